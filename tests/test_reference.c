/* test_reference.c — the core against NumPy reference files in tests/data/
 * (made by tests/data/gen_reference.py, an independent implementation). Each
 * file's X and weights go through the real --weights loader, then every stage
 * must agree within |a - b| <= 1e-5 * max(1, |b|). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "test_ref.h"
#include "attn.h"
#include "attn_decode.h"
#include "attn_json.h"
#include "fileio.h"

#define TOL 1e-5

static const char *const cases[] = {
    "ref_single_none.json",
    "ref_multihead_bias.json",
    "ref_causal_bias.json",
    "ref_window1.json",
    "ref_causal_window2.json",
    "ref_noscale_saturated.json",
    "ref_chinese_window3.json",
    "ref_heads8_causal.json",
};

static void config_from_json(attn_config *c, const cJSON *j) {
    attn_config_default(c);
    c->d_model = cJSON_GetObjectItem(j, "d_model")->valueint;
    c->d_k = cJSON_GetObjectItem(j, "d_k")->valueint;
    c->heads = cJSON_GetObjectItem(j, "heads")->valueint;
    c->scale = cJSON_IsTrue(cJSON_GetObjectItem(j, "scale"));
    c->bias = cJSON_IsTrue(cJSON_GetObjectItem(j, "bias"));
    c->pos_enc = cJSON_IsTrue(cJSON_GetObjectItem(j, "pos_enc"));
    assert_int_equal(attn_mask_parse(&c->mask, cJSON_GetObjectItem(j, "mask")->valuestring, NULL), ATTN_OK);
}

/* Compares a matrix from the trace with a nested array; null means -inf. */
static void compare_tol(const char *file, const char *what, const double *m, int rows, int cols,
                        const cJSON *ref, double tol) {
    assert_non_null(ref);
    assert_int_equal(cJSON_GetArraySize(ref), rows);
    for (int i = 0; i < rows; i++) {
        const cJSON *row = cJSON_GetArrayItem(ref, i);
        assert_int_equal(cJSON_GetArraySize(row), cols);
        for (int j = 0; j < cols; j++) {
            const cJSON *cell = cJSON_GetArrayItem(row, j);
            double a = m[(size_t)i * cols + j];
            if (cJSON_IsNull(cell)) {
                if (a != -INFINITY) fail_msg("%s %s[%d][%d] = %g, expected masked", file, what, i, j, a);
                continue;
            }
            double b = cell->valuedouble;
            double lim = tol * (fabs(b) > 1 ? fabs(b) : 1);
            if (!(fabs(a - b) <= lim))
                fail_msg("%s %s[%d][%d] = %.17g, numpy %.17g", file, what, i, j, a, b);
        }
    }
}

static void compare(const char *file, const char *what, const double *m, int rows, int cols, const cJSON *ref) {
    compare_tol(file, what, m, rows, cols, ref, TOL);
}

static void check_case(const char *file) {
    size_t len;
    char *text = ref_text(file, &len);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    attn_config c;
    config_from_json(&c, cJSON_GetObjectItem(root, "config"));
    const char *sentence = cJSON_GetObjectItem(root, "sentence")->valuestring;
    attn_weights_file f;
    attn_weights w;
    attn_trace t = {0};
    attn_err err;
    int n = cJSON_GetArraySize(cJSON_GetObjectItem(root, "tokens"));
    if (attn_weights_file_parse(&f, text, len, file, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (attn_weights_file_bind(&w, &f, &c, n, file, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (attn_trace_run(&t, sentence, strlen(sentence), &c, NULL, &w, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_int_equal(t.n, n);
    assert_int_equal(t.source, ATTN_SRC_EXPLICIT);
    int dm = c.d_model, dk = c.d_k, hk = c.heads * dk;
    compare(file, "X", t.x, n, dm, cJSON_GetObjectItem(root, "X"));
    const cJSON *heads = cJSON_GetObjectItem(root, "heads");
    for (int h = 0; h < c.heads; h++) {
        const cJSON *hj = cJSON_GetArrayItem(heads, h);
        const attn_head *hd = &t.head[h];
        compare(file, "Q", hd->q, n, dk, cJSON_GetObjectItem(hj, "Q"));
        compare(file, "K", hd->k, n, dk, cJSON_GetObjectItem(hj, "K"));
        compare(file, "V", hd->v, n, dk, cJSON_GetObjectItem(hj, "V"));
        compare(file, "scores", hd->scores, n, n, cJSON_GetObjectItem(hj, "scores"));
        compare(file, "scaled", hd->scaled, n, n, cJSON_GetObjectItem(hj, "scaled"));
        compare(file, "masked", hd->masked, n, n, cJSON_GetObjectItem(hj, "masked"));
        compare(file, "weights", hd->weights, n, n, cJSON_GetObjectItem(hj, "weights"));
        compare(file, "Z", hd->z, n, dk, cJSON_GetObjectItem(hj, "Z"));
    }
    compare(file, "concat", t.concat, n, hk, cJSON_GetObjectItem(root, "concat"));
    compare(file, "output", t.output, n, dm, cJSON_GetObjectItem(root, "output"));
    attn_trace_free(&t);
    attn_weights_file_free(&f);
    cJSON_Delete(root);
    free(text);
}

/* Issue 24: grouped-query attention and decoding against PyTorch float64
 * (tests/data/gen_gqa_reference.py: K and V repeat_interleave'd into standard
 * attention; a separate token-by-token loop with growing caches), within the
 * contract's |a - b| <= 1e-12 * max(1, |b|). */
static void check_gqa_case(const char *file) {
    size_t len;
    char *text = ref_text(file, &len);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    attn_config c;
    const cJSON *cj = cJSON_GetObjectItem(root, "config");
    config_from_json(&c, cj);
    c.kv_heads = cJSON_GetObjectItem(cj, "kv_heads")->valueint;
    const char *sentence = cJSON_GetObjectItem(root, "sentence")->valuestring;
    attn_weights_file f;
    attn_weights w;
    attn_trace t = {0};
    attn_decode d = {0};
    attn_err err;
    int n = cJSON_GetArraySize(cJSON_GetObjectItem(root, "tokens"));
    if (attn_weights_file_parse(&f, text, len, file, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (attn_weights_file_bind(&w, &f, &c, n, file, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (attn_trace_run(&t, sentence, strlen(sentence), &c, NULL, &w, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (attn_decode_run(&d, &t, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int dk = c.d_k;
    const cJSON *heads = cJSON_GetObjectItem(root, "heads");
    for (int h = 0; h < c.heads; h++) {
        const cJSON *hj = cJSON_GetArrayItem(heads, h);
        const attn_head *hd = &t.head[h];
        struct {
            const char *key;
            const double *m;
            int cols;
        } st[] = {{"Q", hd->q, dk}, {"K", hd->k, dk}, {"V", hd->v, dk}, {"scores", hd->scores, n}, {"scaled", hd->scaled, n}, {"masked", hd->masked, n}, {"weights", hd->weights, n}, {"Z", hd->z, dk}, {"Z_decode", d.z[h], dk}};
        for (size_t k = 0; k < sizeof st / sizeof *st; k++)
            compare_tol(file, st[k].key, st[k].m, n, st[k].cols, cJSON_GetObjectItem(hj, st[k].key), 1e-12);
    }
    compare_tol(file, "output", t.output, n, c.d_model, cJSON_GetObjectItem(root, "output"), 1e-12);
    attn_decode_free(&d);
    attn_trace_free(&t);
    attn_weights_file_free(&f);
    cJSON_Delete(root);
    free(text);
}

static void test_pytorch_gqa_and_decode(void **state) {
    (void)state;
    check_gqa_case("gqa_ref_layer_h4g2_causal_bias.json");
    check_gqa_case("gqa_ref_layer_h8g1_cwindow3.json");
    check_gqa_case("gqa_ref_layer_h6g3_causal_noscale.json");
}

static void test_numpy_references(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(cases[i]);
}

static void check_posenc(const char *file) {
    size_t len;
    char *text = ref_text(file, &len);
    cJSON *root = cJSON_Parse(text);
    int n = cJSON_GetObjectItem(root, "n")->valueint;
    int dm = cJSON_GetObjectItem(root, "d_model")->valueint;
    double *pe = malloc(sizeof(double) * (size_t)n * dm);
    attn_positional_encoding(pe, n, dm);
    compare(file, "pe", pe, n, dm, cJSON_GetObjectItem(root, "pe"));
    free(pe);
    cJSON_Delete(root);
    free(text);
}

static void test_numpy_positional_encoding(void **state) {
    (void)state;
    check_posenc("ref_posenc.json");
    check_posenc("ref_posenc_odd.json");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numpy_references),
        cmocka_unit_test(test_numpy_positional_encoding),
        cmocka_unit_test(test_pytorch_gqa_and_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
