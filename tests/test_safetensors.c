/* test_safetensors.c — src/hf/safetensors: files written here byte by byte
 * (hand-built headers and data), every dtype it converts with hand-computed
 * values, unaligned data, keys with and without "transformer.", and each
 * refusal with its message. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"
#include "safetensors.h"

static char dir[] = "/tmp/attnviz-st-XXXXXX";
static int file_no;

/* Writes 8-byte length + header + data to a new file in dir; returns its path
 * (static buffer, one live at a time). */
static const char *write_st(const char *header, const void *data, size_t data_len) {
    static char path[256];
    snprintf(path, sizeof path, "%s/f%d.safetensors", dir, file_no++);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    uint64_t n = strlen(header);
    for (int i = 0; i < 8; i++) fputc((int)(n >> (8 * i)) & 0xFF, fp);
    fwrite(header, 1, n, fp);
    if (data_len) fwrite(data, 1, data_len, fp);
    assert_int_equal(fclose(fp), 0);
    return path;
}

/* Opening header + data fails with code, its message holding each of the
 * NULL-terminated fragments (and the file's name). */
static void expect_refused(const char *header, const void *data, size_t len, attn_status code, ...) {
    const char *path = write_st(header, data, len);
    st_file f;
    attn_err err;
    attn_status st = st_file_open(&f, path, &err);
    if (st != code) fail_msg("%s: status %d, expected %d (%s)", header, st, code, err.msg);
    assert_int_equal(err.code, code);
    assert_non_null(strstr(err.msg, path));
    va_list ap;
    va_start(ap, code);
    for (const char *frag; (frag = va_arg(ap, const char *)) != NULL;)
        if (!strstr(err.msg, frag)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, frag);
    va_end(ap);
    assert_null(f.tensors);
    assert_int_equal(f.count, 0);
    st_file_free(&f);
}

static void test_half_and_bfloat16_exact(void **state) {
    (void)state;
    assert_true(st_half_to_double(0x3C00) == 1.0);
    assert_true(st_half_to_double(0xC000) == -2.0);
    assert_true(st_half_to_double(0x3555) == 0x1.554p-2);       // 0.333251953125
    assert_true(st_half_to_double(0x7BFF) == 65504.0);          // the largest half
    assert_true(st_half_to_double(0x0400) == ldexp(1, -14));    // the smallest normal
    assert_true(st_half_to_double(0x0001) == ldexp(1, -24));    // the smallest subnormal
    assert_true(st_half_to_double(0x03FF) == ldexp(1023, -24)); // the largest subnormal
    assert_true(st_half_to_double(0x8000) == 0.0 && signbit(st_half_to_double(0x8000)));
    assert_true(isinf(st_half_to_double(0x7C00)) && st_half_to_double(0x7C00) > 0);
    assert_true(isinf(st_half_to_double(0xFC00)) && st_half_to_double(0xFC00) < 0);
    assert_true(isnan(st_half_to_double(0x7E00)) && isnan(st_half_to_double(0x7C01)));
    assert_true(st_bfloat16_to_double(0x3F80) == 1.0);
    assert_true(st_bfloat16_to_double(0xC2F7) == -123.5);
    assert_true(st_bfloat16_to_double(0x0001) == ldexp(1, -133));  // subnormal
    assert_true(st_bfloat16_to_double(0x7F7F) == ldexp(255, 120)); // the largest bfloat16
    assert_true(isinf(st_bfloat16_to_double(0xFF80)) && st_bfloat16_to_double(0xFF80) < 0);
    assert_true(isnan(st_bfloat16_to_double(0x7FC0)));
    assert_true(signbit(st_bfloat16_to_double(0x8000)));
}

/* Every float dtype, data starting at an odd byte of the file, __metadata__,
 * an unused tensor of a dtype attnviz does not read. */
static void test_every_dtype_unaligned(void **state) {
    (void)state;
    unsigned char data[64] = {0};
    // F32 [1.5, -0.25] at 0..8
    const unsigned char f32[8] = {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x80, 0xBE};
    // F16 [1, 2^-24, -inf] at 8..14
    const unsigned char f16[6] = {0x00, 0x3C, 0x01, 0x00, 0x00, 0xFC};
    // BF16 [1, -123.5] at 14..18
    const unsigned char bf16[4] = {0x80, 0x3F, 0xF7, 0xC2};
    // F64 [0.1] at 18..26
    const unsigned char f64[8] = {0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F};
    memcpy(data, f32, 8);
    memcpy(data + 8, f16, 6);
    memcpy(data + 14, bf16, 4);
    memcpy(data + 18, f64, 8);
    data[26] = 1; // BOOL mask [1, 0] at 26..28
    // a header of odd length puts the data at an odd address
    const char *header = "{\"__metadata__\":{\"format\":\"pt\"},"
                         "\"transformer.a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                         "\"b\":{\"dtype\":\"F16\",\"shape\":[1,3],\"data_offsets\":[8,14]},"
                         "\"c\":{\"dtype\":\"BF16\",\"shape\":[2,1],\"data_offsets\":[14,18]},"
                         "\"d\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[18,26]},"
                         "\"h.0.attn.bias\":{\"dtype\":\"BOOL\",\"shape\":[1,1,2],\"data_offsets\":[26,28]}}";
    assert_int_equal(strlen(header) % 2, 1);
    const char *path = write_st(header, data, 28);
    st_file f;
    attn_err err;
    assert_int_equal(st_file_open(&f, path, &err), ATTN_OK);
    assert_int_equal(f.count, 5);
    assert_true(f.mapped);
    const st_tensor *a = st_file_find(&f, "a"), *b = st_file_find(&f, "b"), *c = st_file_find(&f, "c");
    const st_tensor *d = st_file_find(&f, "d");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_non_null(d);
    assert_int_equal(((uintptr_t)a->data) % 2, 1);
    double v[3];
    assert_int_equal(st_tensor_to_double(&f, a, 0, 2, v, &err), ATTN_OK);
    assert_true(v[0] == 1.5 && v[1] == -0.25);
    assert_int_equal(b->rank, 2);
    assert_int_equal(b->shape[1], 3);
    assert_int_equal(st_tensor_row_to_double(&f, b, 0, v, &err), ATTN_OK);
    assert_true(v[0] == 1.0 && v[1] == ldexp(1, -24) && isinf(v[2]) && v[2] < 0);
    assert_int_equal(st_tensor_row_to_double(&f, c, 1, v, &err), ATTN_OK);
    assert_true(v[0] == -123.5);
    assert_int_equal(d->rank, 0);
    assert_int_equal(d->count, 1);
    assert_int_equal(st_tensor_to_double(&f, d, 0, 1, v, &err), ATTN_OK);
    assert_true(v[0] == 0.1);
    // a row or range past the end is refused, not read
    assert_int_equal(st_tensor_row_to_double(&f, c, 2, v, &err), ATTN_ERR_RANGE);
    assert_int_equal(st_tensor_to_double(&f, a, 1, 2, v, &err), ATTN_ERR_RANGE);
    // the unused mask opened fine; converting it is refused, naming file and key
    const st_tensor *mask = st_file_find(&f, "transformer.h.0.attn.bias");
    assert_non_null(mask);
    assert_int_equal(mask->dtype, ST_BOOL);
    assert_int_equal(st_tensor_to_double(&f, mask, 0, 1, v, &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "\"h.0.attn.bias\" has dtype BOOL"));
    st_file_free(&f);
    st_file_free(&f); // a second free is a no-op
    st_file_free(NULL);
}

static void test_prefix_tolerant_lookup(void **state) {
    (void)state;
    unsigned char data[8] = {0};
    const char *path = write_st("{\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                                "\"transformer.wpe.weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                                data, 8);
    st_file f;
    attn_err err;
    assert_int_equal(st_file_open(&f, path, &err), ATTN_OK);
    assert_string_equal(st_file_find(&f, "wte.weight")->name, "wte.weight");
    assert_string_equal(st_file_find(&f, "transformer.wte.weight")->name, "wte.weight");
    assert_string_equal(st_file_find(&f, "wpe.weight")->name, "transformer.wpe.weight");
    assert_string_equal(st_file_find(&f, "transformer.wpe.weight")->name, "transformer.wpe.weight");
    assert_null(st_file_find(&f, "lm_head.weight"));
    assert_null(st_file_find(&f, "weight"));
    const st_tensor *t = (const st_tensor *)1;
    assert_int_equal(st_file_require(&f, "lm_head.weight", &t, &err), ATTN_ERR_SHAPE);
    assert_null(t);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "no tensor \"lm_head.weight\""));
    st_file_free(&f);
}

static void test_refusals(void **state) {
    (void)state;
    unsigned char data[16] = {0};
    const char *ok_entry = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    // the data cut short: offsets past its end
    expect_refused(ok_entry, data, 6, ATTN_ERR_PARSE, "\"a\"", "outside the 6 bytes of data", "truncated",
                   NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,4]}}", data, 16, ATTN_ERR_PARSE,
                   "\"a\" has data_offsets [8, 4]", NULL);
    // overlapping tensors
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                   "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                   data, 8, ATTN_ERR_PARSE, "\"b\" overlaps that of \"a\"", NULL);
    // size that dtype × shape does not give
    expect_refused("{\"a\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,8]}}", data, 8, ATTN_ERR_PARSE,
                   "\"a\" (F16, 1 dimensions) needs 6 bytes", NULL);
    // not JSON, not an object, offsets through doubles, a missing field, a repeated key
    expect_refused("{\"a\":", data, 0, ATTN_ERR_PARSE, "header is not the JSON", NULL);
    expect_refused("[1, 2]", data, 0, ATTN_ERR_PARSE, "header is not the JSON", "'{'", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8.0]}}", data, 8,
                   ATTN_ERR_PARSE, "whole number", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8e0]}}", data, 8,
                   ATTN_ERR_PARSE, "whole number", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", data, 8,
                   ATTN_ERR_PARSE, "whole number", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,99999999999999999999]}}", data, 8,
                   ATTN_ERR_PARSE, "below 2^63", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", data, 8, ATTN_ERR_PARSE,
                   "\"a\" has no shape", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,2],\"data_offsets\":[0,8]}}", data, 8,
                   ATTN_ERR_PARSE, "more than 8 dimensions", NULL);
    expect_refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                   "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                   data, 8,
                   ATTN_ERR_PARSE, "names tensor \"a\" twice", NULL);
    // a key with a control character is quoted harmlessly
    expect_refused("{\"\\u001b[31m\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,80]}}", data, 8,
                   ATTN_ERR_PARSE, "\"\\x1b[31m\"", NULL);
}

/* Files whose first bytes are wrong: too short, a header longer than the
 * file, a header length over the cap. */
static void test_refused_lengths(void **state) {
    (void)state;
    char path[256];
    st_file f;
    attn_err err;
    snprintf(path, sizeof path, "%s/short.safetensors", dir);
    FILE *fp = fopen(path, "wb");
    fwrite("\x10\0\0", 1, 3, fp);
    fclose(fp);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "3 bytes are too short"));
    assert_non_null(strstr(err.msg, path));

    fp = fopen(path, "wb");
    fwrite("\x40\0\0\0\0\0\0\0{\"a\"", 1, 12, fp); // 64 bytes of header announced, 4 present
    fclose(fp);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "should be 64 bytes, but only 4 follow (is the file truncated?)"));

    fp = fopen(path, "wb");
    fwrite("\x01\0\0\x01\0\0\0\0{}", 1, 10, fp); // 16 MiB + 1
    fclose(fp);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "16777217 bytes, over the 16 MiB"));

    // an empty header object, padded with spaces as the format allows: no tensors
    fp = fopen(path, "wb");
    fwrite("\x04\0\0\0\0\0\0\0{}  ", 1, 12, fp);
    fclose(fp);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_OK);
    assert_int_equal(f.count, 0);
    st_file_free(&f);
}

static void test_pipe_and_folder_refused(void **state) {
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    st_file f;
    attn_err err;
    // O_NONBLOCK: refused at once, without waiting for a writer
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "is not a regular file (it is a named pipe)"));
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(st_file_open(&f, dir, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "(it is a folder)"));
    snprintf(path, sizeof path, "%s/missing.safetensors", dir);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "Cannot open"));
}

/* A file replaced (renamed over) while open: the open one keeps its data. */
static void test_replaced_while_mapped(void **state) {
    (void)state;
    const unsigned char one[4] = {0x00, 0x00, 0x80, 0x3F};
    char first[256];
    snprintf(first, sizeof first, "%s", write_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", one, 4));
    st_file f;
    attn_err err;
    assert_int_equal(st_file_open(&f, first, &err), ATTN_OK);
    const char *second = write_st("{}", NULL, 0);
    assert_int_equal(rename(second, first), 0);
    double v = 0;
    assert_int_equal(st_tensor_to_double(&f, st_file_find(&f, "a"), 0, 1, &v, &err), ATTN_OK);
    assert_true(v == 1.0);
    st_file_free(&f);
}

/* st_file_parse on bytes in memory (what the fuzzer drives): a valid file,
 * then each prefix of it refused cleanly. */
static void test_parse_prefixes(void **state) {
    (void)state;
    const char *header = "{\"x\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    size_t hlen = strlen(header);
    unsigned char buf[128] = {0};
    buf[0] = (unsigned char)hlen;
    memcpy(buf + 8, header, hlen);
    buf[8 + hlen + 1] = 0x3F, buf[8 + hlen] = 0x80; // 1.0
    size_t size = 8 + hlen + 4;
    st_file f;
    attn_err err;
    assert_int_equal(st_file_parse(&f, buf, size, "mem", &err), ATTN_OK);
    assert_false(f.mapped);
    double v[2];
    assert_int_equal(st_tensor_to_double(&f, &f.tensors[0], 0, 2, v, &err), ATTN_OK);
    assert_true(v[0] == 1.0 && v[1] == 0.0);
    st_file_free(&f);
    for (size_t n = 0; n < size; n++) {
        assert_int_equal(st_file_parse(&f, buf, n, "mem", &err), ATTN_ERR_PARSE);
        assert_non_null(strstr(err.msg, "mem: "));
        st_file_free(&f);
    }
}

/* st_file_provide (the browser build's picked file): the bytes handed over
 * stand for that path once, owned by the st_file that takes them (no disk
 * read: no file exists there); refused bytes are freed by the open; a second
 * provide replaces the first; other paths still go to the disk. Under ASan
 * (tests/sanitizers) a leak or double free here fails. */
static void test_provided_bytes(void **state) {
    (void)state;
    const char *header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    size_t hlen = strlen(header), size = 8 + hlen + 4;
    char path[300];
    snprintf(path, sizeof path, "%s/picked/model.safetensors", dir); // no such file on the disk
    st_file f;
    attn_err err;
    for (int round = 0; round < 2; round++) {
        unsigned char *bytes = calloc(1, size);
        assert_non_null(bytes);
        bytes[0] = (unsigned char)hlen;
        memcpy(bytes + 8, header, hlen);
        const unsigned char two[4] = {0x00, 0x00, 0x00, 0x40}; // 2.0f
        memcpy(bytes + 8 + hlen, two, 4);
        if (round == 1) { // a first file never opened: replaced, freed
            unsigned char *first = malloc(16);
            assert_non_null(first);
            st_file_provide(path, first, 16);
        }
        st_file_provide(path, bytes, size);
        assert_int_equal(st_file_open(&f, path, &err), ATTN_OK);
        assert_true(f.owned && !f.mapped);
        assert_ptr_equal(f.bytes, bytes); // taken, not copied
        double v = 0;
        assert_int_equal(st_tensor_to_double(&f, st_file_find(&f, "w"), 0, 1, &v, &err), ATTN_OK);
        assert_true(v == 2.0);
        st_file_free(&f);
        // taken once: the path is the disk's again, where nothing is
        assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_IO);
        assert_non_null(strstr(err.msg, "Cannot open"));
    }
    // a truncated file handed over: refused with the usual message, its bytes freed
    unsigned char *cut = calloc(1, 4);
    assert_non_null(cut);
    st_file_provide(path, cut, 4);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "too short"));
    // another path is not served the bytes; NULL drops them
    unsigned char *kept = calloc(1, 8);
    assert_non_null(kept);
    st_file_provide(path, kept, 8);
    assert_int_equal(st_file_open(&f, "/nonexistent/model.safetensors", &err), ATTN_ERR_IO);
    st_file_provide(NULL, NULL, 0);
    assert_int_equal(st_file_open(&f, path, &err), ATTN_ERR_IO);
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_and_bfloat16_exact),
        cmocka_unit_test(test_every_dtype_unaligned),
        cmocka_unit_test(test_prefix_tolerant_lookup),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_refused_lengths),
        cmocka_unit_test(test_pipe_and_folder_refused),
        cmocka_unit_test(test_replaced_while_mapped),
        cmocka_unit_test(test_parse_prefixes),
        cmocka_unit_test(test_provided_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
