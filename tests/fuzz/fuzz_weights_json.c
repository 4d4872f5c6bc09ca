/* fuzz_weights_json.c — the --weights loader on arbitrary bytes: parse, then
 * bind to the default config and to the config the file implies (as the CLI
 * does), then run a trace with what was bound when it is cheap enough. */
#include <string.h>

#include "attn.h"
#include "attn_json.h"
#include "fuzz_common.h"
#include "sha256.h"
#include "utf8.h"

/* A sentence of exactly n one-letter tokens ("a a a ..."). */
static char *sentence_of(int n, size_t *len) {
    char *s = malloc((size_t)n * 2);
    FUZZ_CHECK(s != NULL);
    for (int i = 0; i < n; i++) {
        s[2 * i] = 'a';
        s[2 * i + 1] = ' ';
    }
    *len = (size_t)n * 2 - 1;
    return s;
}

/* Every bound matrix has exactly the shape the config asks for. */
static void check_bound(const attn_weights *w, const attn_weights_file *f, const attn_config *c, int n) {
    if (w->x) FUZZ_CHECK(w->x == f->x.v && f->x.rows == n && f->x.cols == c->d_model);
    for (int m = 0; m < ATTN_MAT_COUNT; m++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++) {
            const double *got = w->mat[m][h];
            int rows, cols;
            if (!got) continue;
            attn_matrix_shape((attn_matrix)m, c, &rows, &cols);
            FUZZ_CHECK(got == f->mat[m][h].v && f->mat[m][h].rows == rows && f->mat[m][h].cols == cols);
            FUZZ_CHECK(attn_matrix_per_head((attn_matrix)m) ? h < f->heads && h < c->heads : h == 0);
        }
}

/* Binds f to c for n tokens; on success runs the trace if it is small. */
static void bind_and_run(const attn_weights_file *f, const attn_config *c, int n) {
    attn_weights w;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = attn_weights_file_bind(&w, f, c, n, "fuzz.json", &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(st == ATTN_ERR_SHAPE && err.code == st && strstr(err.msg, "fuzz.json") != NULL);
        return;
    }
    check_bound(&w, f, c, n);
    if (attn_config_check(c, NULL) != ATTN_OK) return;
    // keep each input fast: the largest trace costs ~10^8 multiply-adds
    double macs = (double)c->heads * n * c->d_model * c->d_k * 4.0 + (double)n * n * c->heads * c->d_k;
    if (macs > 2e5) return;
    size_t len;
    char *s = sentence_of(n, &len);
    attn_trace t;
    memset(&t, 0, sizeof t);
    st = attn_trace_run(&t, s, len, c, NULL, &w, &err);
    // values up to 1e18 may overflow a later stage; that must be reported, nothing else
    FUZZ_CHECK(st == ATTN_OK || st == ATTN_ERR_NONFINITE);
    if (st == ATTN_OK) {
        FUZZ_CHECK(t.n == n);
        char *json = attn_json_dump(&t);
        FUZZ_CHECK(json != NULL);
        free(json);
    } else {
        FUZZ_CHECK(strstr(err.msg, "stage produced a value too large") != NULL);
    }
    attn_trace_free(&t);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    attn_weights_file f;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = attn_weights_file_parse(&f, (const char *)data, size, "fuzz.json", &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(err.code == st && strstr(err.msg, "fuzz.json") != NULL);
        FUZZ_CHECK(utf8_find_invalid(err.msg, strlen(err.msg)) == (size_t)-1 || // keys are cut between characters
                   utf8_find_invalid((const char *)data, size) != (size_t)-1);  // (unless the file itself is not UTF-8)
        return 0;
    }
    FUZZ_CHECK(f.heads >= 0 && f.heads <= ATTN_MAX_HEADS);
    char hex[ATTN_SHA256_HEX]; // the hash is of the bytes given, BOM and all
    attn_sha256_hex(data, size, hex);
    FUZZ_CHECK(strcmp(hex, f.sha256) == 0);
    // exactly one JSON value: the same text with a second object appended is refused
    if (size + 3 <= 16384) {
        char *twice = malloc(size + 3);
        FUZZ_CHECK(twice != NULL);
        memcpy(twice, data, size);
        memcpy(twice + size, "{}", 3);
        attn_weights_file g;
        FUZZ_CHECK(attn_weights_file_parse(&g, twice, size + 2, "fuzz.json", NULL) == ATTN_ERR_PARSE);
        free(twice);
    }

    attn_config c;
    attn_config_default(&c);
    int n = f.x.v ? f.x.rows : 3;
    if (n > ATTN_MAX_TOKENS) n = ATTN_MAX_TOKENS;
    bind_and_run(&f, &c, n);

    // the CLI takes the dimensions the file implies when no flag sets them
    int dm, dk, heads;
    attn_weights_file_dims(&f, &dm, &dk, &heads);
    FUZZ_CHECK(dm >= 0 && dk >= 0 && heads >= 0 && heads <= ATTN_MAX_HEADS);
    if (dm) c.d_model = dm;
    if (dk) c.d_k = dk;
    if (heads) c.heads = heads;
    // the parser refused every matrix past the limits, naming its key: the dimensions it implies are valid
    FUZZ_CHECK(attn_config_check(&c, &err) == ATTN_OK);
    bind_and_run(&f, &c, n);

    attn_weights_file_free(&f);
    attn_weights_file_free(&f); // a second free is a no-op
    return 0;
}
