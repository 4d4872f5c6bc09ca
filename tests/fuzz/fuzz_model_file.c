/* fuzz_model_file.c — the model file reader on arbitrary bytes: a refused file
 * names itself, quotes nothing a terminal would obey and leaves nothing
 * behind; an accepted one holds only printable UTF-8 text, passes the
 * writer's checks, writes back to text that reads to the same parameters,
 * and (when small) runs on its probe. */
#include <string.h>

#include "fuzz_common.h"
#include "model_file.h"
#include "model_run.h"
#include "utf8.h"

/* s is UTF-8 without a control character (what --print may show as it is). */
static bool printable(const char *s) {
    size_t len = strlen(s);
    if (utf8_find_invalid(s, len) != (size_t)-1) return false;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        int n = utf8_decode(s + i, len - i, &cp);
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return false;
        i += (size_t)n;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    model m;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = model_file_parse(&m, (const char *)data, size, "fuzz.json", &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(err.code == st && strstr(err.msg, "fuzz.json") != NULL && m.block == NULL);
        FUZZ_CHECK(printable(err.msg));
        return 0;
    }
    FUZZ_CHECK(printable(m.task) && printable(m.probe));
    for (int i = 0; i < m.vocab_count; i++) FUZZ_CHECK(printable(m.vocab[i]));
    char *text = NULL;
    FUZZ_CHECK(model_file_write_checked(&m, &text, &err) == ATTN_OK);
    model back;
    FUZZ_CHECK(model_file_parse(&back, text, strlen(text), "again.json", &err) == ATTN_OK);
    FUZZ_CHECK(back.n_params == m.n_params && memcmp(back.block, m.block, sizeof(double) * m.n_params) == 0);
    // keep each input fast: run the probe only for a small model
    if (m.n_params < 20000) {
        model_result r;
        memset(&r, 0, sizeof r);
        st = model_run(&r, &m, m.probe, strlen(m.probe), NULL, 0, &err);
        // a probe may not tokenize with the vocabulary, or values up to 1e18 may overflow
        FUZZ_CHECK(st == ATTN_OK || st == ATTN_ERR_INPUT || st == ATTN_ERR_NONFINITE || st == ATTN_ERR_RANGE);
        model_result_free(&r);
    }
    free(text);
    model_free(&back);
    model_free(&m);
    model_free(&m); // a second free is a no-op
    return 0;
}
