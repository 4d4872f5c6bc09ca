/* fuzz_safetensors.c — the safetensors reader on arbitrary bytes: a refused
 * file names itself and leaves nothing behind; an accepted one has every
 * tensor's data inside the bytes, no two overlapping, and converts (or
 * refuses to convert) every element without reading outside them. */
#include <string.h>

#include "fuzz_common.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // a copy of exactly size bytes, so that ASan sees any read past the end
    unsigned char *bytes = malloc(size ? size : 1);
    FUZZ_CHECK(bytes != NULL);
    if (size) memcpy(bytes, data, size);
    st_file f;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = st_file_parse(&f, bytes, size, "fuzz.safetensors", &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(err.code == st && strncmp(err.msg, "fuzz.safetensors", 16) == 0);
        FUZZ_CHECK(f.tensors == NULL && f.count == 0);
        free(bytes);
        return 0;
    }
    for (size_t i = 0; i < f.count; i++) {
        const st_tensor *t = &f.tensors[i];
        FUZZ_CHECK(st_file_find(&f, t->name) != NULL);
        FUZZ_CHECK(t->data >= bytes && t->data + (t->end - t->begin) <= bytes + size);
        size_t esize = st_dtype_size(t->dtype);
        FUZZ_CHECK(esize == 0 || t->count * esize == t->end - t->begin);
        double v[64];
        uint64_t n = t->count < 64 ? t->count : 64;
        st = st_tensor_to_double(&f, t, t->count - n, n, v, &err);
        FUZZ_CHECK(st == (st_dtype_is_float(t->dtype) ? ATTN_OK : ATTN_ERR_PARSE));
        if (t->rank > 0 && t->shape[0] > 0 && t->count / t->shape[0] <= 64 && st == ATTN_OK)
            FUZZ_CHECK(st_tensor_row_to_double(&f, t, t->shape[0] - 1, v, &err) == ATTN_OK);
        for (size_t j = 0; j < i; j++) // no two tensors with data overlap
            FUZZ_CHECK(t->end == t->begin || f.tensors[j].end == f.tensors[j].begin ||
                       t->end <= f.tensors[j].begin || f.tensors[j].end <= t->begin);
        if (i > 256) break; // keep each input fast
    }
    st_file_free(&f);
    st_file_free(&f); // a second free is a no-op
    free(bytes);
    return 0;
}
