/* test_attn.c — the per-stage functions and the trace, on hand-computed cases. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn.h"

static const char *seed_sentence = "这只动物没看见那只鸟，因为它飞得太快了。";

/* ---- per-stage functions ---- */

static void test_matmul_with_bias(void **state) {
    (void)state;
    const double a[2 * 3] = {1, 2, 3, 4, 5, 6};
    const double b[3 * 2] = {1, 0, 0, 1, 1, 1};
    const double bias[2] = {10, 20};
    double out[4];
    attn_matmul(out, a, b, bias, 2, 3, 2);
    // row 0: [1+3, 2+3] + bias; row 1: [4+6, 5+6] + bias
    assert_close(out[0], 14);
    assert_close(out[1], 25);
    assert_close(out[2], 20);
    assert_close(out[3], 31);
    attn_matmul(out, a, b, NULL, 2, 3, 2);
    assert_close(out[0], 4);
    assert_close(out[3], 11);
}

static void test_scores_scale_softmax_weighted_sum(void **state) {
    (void)state;
    // n = 3, d_k = 2
    const double q[6] = {1, 0, 0, 1, 1, 1};
    const double k[6] = {1, 0, 0, 1, 1, 1};
    double s[9], sc[9], a[9];
    attn_scores(s, q, k, 3, 2);
    const double expect[9] = {1, 0, 1, 0, 1, 1, 1, 1, 2};
    for (int i = 0; i < 9; i++) assert_close(s[i], expect[i]);
    attn_scale(sc, s, 3, 2);
    assert_close(sc[8], 2.0 / sqrt(2.0));
    assert_close(sc[1], 0.0);
    // softmax of [0, ln 2, ln 3] is exactly [1/6, 2/6, 3/6]
    const double row[9] = {0, log(2.0), log(3.0), 5, 5, 5, -1, 0, 1};
    attn_softmax_rows(a, row, 3);
    assert_close(a[0], 1.0 / 6);
    assert_close(a[1], 2.0 / 6);
    assert_close(a[2], 3.0 / 6);
    assert_close(a[3], 1.0 / 3);
    assert_close(a[4], 1.0 / 3);
    // Z = A·V: [1/6, 1/3, 1/2] · [[1,2],[3,4],[5,6]] = [11/3, 14/3]
    const double v[6] = {1, 2, 3, 4, 5, 6};
    double z[6];
    attn_weighted_sum(z, a, v, 3, 2);
    assert_close(z[0], 11.0 / 3);
    assert_close(z[1], 14.0 / 3);
    assert_close(z[2], 3.0);
    assert_close(z[3], 4.0); // uniform row: the mean of V
}

static void test_softmax_invariants(void **state) {
    (void)state;
    enum { N = 5 };
    double s[N * N], shifted[N * N], a[N * N], b[N * N];
    for (int i = 0; i < N * N; i++) s[i] = sin(i * 1.7) * 3.0;
    for (int i = 0; i < N * N; i++) shifted[i] = s[i] + 1000.0 * (i / N + 1);
    attn_softmax_rows(a, s, N);
    attn_softmax_rows(b, shifted, N);
    for (int i = 0; i < N; i++) {
        double sum = 0;
        for (int j = 0; j < N; j++) {
            sum += a[i * N + j];
            assert_true(a[i * N + j] > 0.0);
            assert_close_tol(b[i * N + j], a[i * N + j], 1e-9); // shift invariance
        }
        assert_close(sum, 1.0);
    }
}

static void test_softmax_huge_scores_stay_finite(void **state) {
    (void)state;
    const double s[4] = {1e30, -1e30, 1e30, 1e30};
    double a[4];
    attn_softmax_rows(a, s, 2);
    assert_close(a[0], 1.0);
    assert_close(a[1], 0.0);
    assert_close(a[2], 0.5);
    assert_close(a[3], 0.5);
    assert_int_equal(attn_check_finite(a, 4, "weights", NULL), ATTN_OK);
}

static void test_masks(void **state) {
    (void)state;
    attn_mask none = {ATTN_MASK_NONE, 1}, causal = {ATTN_MASK_CAUSAL, 1};
    attn_mask win = {ATTN_MASK_WINDOW, 1}, cwin = {ATTN_MASK_CAUSAL_WINDOW, 2};
    assert_true(attn_mask_allows(none, 0, 4));
    assert_true(attn_mask_allows(causal, 3, 3));
    assert_true(attn_mask_allows(causal, 3, 0));
    assert_false(attn_mask_allows(causal, 0, 1));
    assert_true(attn_mask_allows(win, 2, 3));
    assert_true(attn_mask_allows(win, 2, 1));
    assert_false(attn_mask_allows(win, 2, 4));
    assert_false(attn_mask_allows(win, 2, 0));
    assert_true(attn_mask_allows(cwin, 4, 2));
    assert_false(attn_mask_allows(cwin, 4, 1));
    assert_false(attn_mask_allows(cwin, 4, 5));
    // masked entries become -inf and get weight exactly 0
    double s[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, m[9], a[9];
    attn_apply_mask(m, s, causal, 3);
    assert_true(m[1] == -INFINITY && m[2] == -INFINITY && m[5] == -INFINITY);
    assert_close(m[3], 4.0);
    attn_softmax_rows(a, m, 3);
    assert_true(a[1] == 0.0 && a[2] == 0.0 && a[5] == 0.0);
    assert_close(a[0], 1.0);
    assert_close(a[3], 1.0 / (1.0 + exp(1.0)));
}

static void test_mask_parse_and_format(void **state) {
    (void)state;
    attn_mask m;
    attn_err err;
    char buf[32];
    const char *ok[] = {"none", "causal", "window:3", "causal-window:64"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(attn_mask_parse(&m, ok[i], &err), ATTN_OK);
        attn_mask_format(buf, sizeof buf, m);
        assert_string_equal(buf, ok[i]);
    }
    const char *bad[] = {"window:0", "window:65", "window:", "window:2x", "diagonal", "causal-window:-1"};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(attn_mask_parse(&m, bad[i], &err), ATTN_ERR_RANGE);
        assert_true(strlen(err.msg) > 10);
    }
    assert_int_equal(attn_mask_parse(&m, "window:0", &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "between 1 and 64"));
}

static void test_config_ranges(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    assert_int_equal(c.d_model, 8);
    assert_int_equal(c.d_k, 4);
    assert_int_equal(c.heads, 2);
    assert_int_equal(c.seed, 1);
    assert_true(c.scale);
    assert_false(c.pos_enc);
    assert_false(c.bias);
    assert_int_equal(attn_config_check(&c, &err), ATTN_OK);
    c.d_k = 0;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--d-k"));
    attn_config_default(&c);
    c.heads = 9;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--heads"));
    attn_config_default(&c);
    c.d_model = 513;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "512"));
}

static void test_prng_and_embeddings(void **state) {
    (void)state;
    // the documented splitmix64 sequence: pinned so every platform draws the same
    assert_close(attn_prng_uniform(1, 0, 0, 1.0), attn_prng_uniform(1, 0, 0, 1.0));
    assert_true(attn_prng_uniform(1, 0, 0, 1.0) != attn_prng_uniform(1, 1, 0, 1.0));
    assert_true(attn_prng_uniform(1, 0, 0, 1.0) != attn_prng_uniform(2, 0, 0, 1.0));
    double w[64 * 64];
    attn_xavier_uniform(w, 64, 64, 7, 3);
    double lim = sqrt(6.0 / 128), mean = 0;
    for (int i = 0; i < 64 * 64; i++) {
        assert_true(fabs(w[i]) <= lim);
        mean += w[i];
    }
    assert_true(fabs(mean / (64 * 64)) < 0.01); // centred
    double e8[8], e16[16], other[8];
    attn_derived_embedding(e8, "cat", 3, 8);
    attn_derived_embedding(e16, "cat", 3, 16);
    attn_derived_embedding(other, "dog", 3, 8);
    for (int c = 0; c < 8; c++) {
        assert_close(e8[c], e16[c]); // a longer d_model extends a shorter one
        assert_true(fabs(e8[c]) <= 1.0);
    }
    assert_true(memcmp(e8, other, sizeof e8) != 0);
}

static void test_positional_encoding(void **state) {
    (void)state;
    double pe[3 * 4];
    attn_positional_encoding(pe, 3, 4);
    assert_close(pe[0], 0.0);
    assert_close(pe[1], 1.0); // position 0: sin 0, cos 0
    assert_close(pe[4], sin(1.0));
    assert_close(pe[5], cos(1.0));
    assert_close(pe[6], sin(1.0 / 100.0));
    assert_close(pe[7], cos(1.0 / 100.0));
    assert_close(pe[8], sin(2.0));
}

/* ---- the trace ---- */

static void test_trace_seed_sentence(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(attn_trace_run(&t, seed_sentence, strlen(seed_sentence), &c, NULL, NULL, &err), ATTN_OK);
    assert_int_equal(t.n, 20);
    assert_int_equal(t.source, ATTN_SRC_RANDOM);
    // the two 只 (indices 1 and 8) get the same derived vector
    for (int d = 0; d < c.d_model; d++) assert_close(t.x[1 * 8 + d], t.x[8 * 8 + d]);
    for (int h = 0; h < c.heads; h++)
        for (int i = 0; i < 20; i++) {
            double sum = 0;
            for (int j = 0; j < 20; j++) sum += t.head[h].weights[i * 20 + j];
            assert_close(sum, 1.0);
        }
    // concat is the heads' Z side by side
    assert_close(t.concat[3 * 8 + 5], t.head[1].z[3 * 4 + 1]);
    assert_int_equal(t.macs[ATTN_ST_SCORES], 2LL * 20 * 20 * 4);
    assert_int_equal(t.macs[ATTN_ST_Q], 2LL * 20 * 8 * 4);
    assert_int_equal(t.macs[ATTN_ST_OUTPUT], 20LL * 8 * 8);
    int rows, cols;
    attn_trace_shape(&t, ATTN_ST_CONCAT, &rows, &cols);
    assert_int_equal(rows, 20);
    assert_int_equal(cols, 8);
    assert_null(attn_trace_stage(&t, ATTN_ST_Q, 2));
    assert_int_equal(attn_trace_pronoun(&t), 13); // 它
    // deterministic: a second run gives identical bits
    attn_trace t2 = {0};
    assert_int_equal(attn_trace_run(&t2, seed_sentence, strlen(seed_sentence), &c, NULL, NULL, &err), ATTN_OK);
    assert_memory_equal(t.output, t2.output, sizeof(double) * 20 * 8);
    attn_trace_free(&t);
    attn_trace_free(&t2);
    attn_trace_free(NULL);
}

static void test_trace_pos_enc_and_mask(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.pos_enc = true;
    c.mask.kind = ATTN_MASK_CAUSAL;
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, seed_sentence, strlen(seed_sentence), &c, NULL, NULL, NULL), ATTN_OK);
    double raw[8];
    int len;
    const char *tok = attn_token_text(&t.tokens, 9, &len);
    attn_derived_embedding(raw, tok, (size_t)len, 8);
    double pe[8];
    attn_positional_row(pe, 9, 8);
    for (int d = 0; d < 8; d++) assert_close(t.x[9 * 8 + d], raw[d] + pe[d]);
    assert_true(t.head[0].masked[0 * 20 + 1] == -INFINITY);
    assert_true(t.head[1].weights[4 * 20 + 5] == 0.0);
    assert_close(t.head[0].weights[0], 1.0); // the first token can only see itself
    attn_trace_free(&t);
}

static void test_trace_no_scale_copies(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.scale = false;
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, "a b c", 5, &c, NULL, NULL, NULL), ATTN_OK);
    assert_memory_equal(t.head[0].scaled, t.head[0].scores, sizeof(double) * 9);
    assert_int_equal(t.macs[ATTN_ST_SCALED], 0);
    attn_trace_free(&t);
}

static void test_trace_errors_leave_output_empty(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(attn_trace_run(&t, "   ", 3, &c, NULL, NULL, &err), ATTN_ERR_INPUT);
    assert_null(t.block_);
    assert_int_equal(t.n, 0);
    c.heads = 0;
    assert_int_equal(attn_trace_run(&t, "a b", 3, &c, NULL, NULL, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--heads"));
}

static void test_trace_nonfinite_names_stage(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.heads = 1;
    c.d_model = 2;
    c.d_k = 2;
    const double x[4] = {1e300, 1e300, 1, 1};
    const double w[4] = {1e300, 0, 0, 1};
    attn_weights wt;
    memset(&wt, 0, sizeof wt);
    wt.x = x;
    wt.mat[ATTN_MAT_W_Q][0] = w;
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(attn_trace_run(&t, "a b", 3, &c, NULL, &wt, &err), ATTN_ERR_NONFINITE);
    assert_non_null(strstr(err.msg, "The q stage"));
    assert_null(t.block_);
}

static void test_trace_explicit_weights(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.heads = 1;
    c.d_model = 2;
    c.d_k = 2;
    const double x[4] = {1, 0, 0, 1};
    const double id[4] = {1, 0, 0, 1};
    attn_weights wt;
    memset(&wt, 0, sizeof wt);
    wt.x = x;
    wt.mat[ATTN_MAT_W_Q][0] = wt.mat[ATTN_MAT_W_K][0] = wt.mat[ATTN_MAT_W_V][0] = wt.mat[ATTN_MAT_W_O][0] = id;
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, "a b", 3, &c, NULL, &wt, NULL), ATTN_OK);
    assert_int_equal(t.source, ATTN_SRC_EXPLICIT);
    assert_true(t.x_given);
    // S = I, scaled by 1/√2; A row 0 = softmax([1/√2, 0])
    double e = exp(1.0 / sqrt(2.0));
    assert_close(t.head[0].weights[0], e / (e + 1.0));
    assert_close(t.output[0], e / (e + 1.0)); // identity W_V and W_O pass Z through
    attn_trace_free(&t);
    wt.mat[ATTN_MAT_W_O][0] = NULL;
    assert_int_equal(attn_trace_run(&t, "a b", 3, &c, NULL, &wt, NULL), ATTN_OK);
    assert_int_equal(t.source, ATTN_SRC_MIXED);
    attn_trace_free(&t);
}

static void test_vocab_lookup(void **state) {
    (void)state;
    const char *words[] = {"动物", "the", "鸟"};
    const double vecs[3 * 2] = {1, 0, 0, 1, 0.5, 0.5};
    attn_vocab v = {2, 3, words, vecs, NULL, NULL};
    assert_int_equal(attn_vocab_find(&v, "The", 3), 1);
    assert_int_equal(attn_vocab_find(&v, "鸟", strlen("鸟")), 2);
    assert_int_equal(attn_vocab_find(&v, "cat", 3), -1);
    assert_int_equal(attn_vocab_find(NULL, "cat", 3), -1);
    // through the sorted index: the same answers, an exact match before a case-folded one
    const char *cased[] = {"The", "鸟", "the", "THE", "动物"};
    int order[5];
    attn_words_sort(order, cased, 5);
    attn_vocab vi = {2, 5, cased, vecs, NULL, order}, vl = vi;
    vl.order = NULL;
    static const char *const probes[] = {"the", "THE", "The", "tHe", "鸟", "动物", "动", "cat", "them", "th", ""};
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
        assert_int_equal(attn_vocab_find(&vi, probes[i], strlen(probes[i])),
                         attn_vocab_find(&vl, probes[i], strlen(probes[i])));
    assert_int_equal(attn_vocab_find(&vi, "tHe", 3), 0);
    assert_int_equal(attn_vocab_find(&vi, "the", 3), 2);
    attn_config c;
    attn_config_default(&c);
    c.d_model = 2;
    attn_trace t = {0};
    const char *s = "动物看见鸟";
    assert_int_equal(attn_trace_run(&t, s, strlen(s), &c, &v, NULL, NULL), ATTN_OK);
    assert_int_equal(t.n, 4); // 动物 is one token through the vocabulary
    assert_int_equal(t.vocab_rows, 2);
    assert_close(t.x[0], 1.0);
    assert_close(t.x[3 * 2 + 1], 0.5);
    attn_trace_free(&t);
}

static void test_equations(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, seed_sentence, strlen(seed_sentence), &c, NULL, NULL, NULL), ATTN_OK);
    char eq[160];
    attn_stage_equation(&t, ATTN_ST_Q, eq, sizeof eq);
    assert_string_equal(eq, "Q = X·W_Q   (20×8)·(8×4) → 20×4");
    attn_stage_equation(&t, ATTN_ST_SCORES, eq, sizeof eq);
    assert_string_equal(eq, "S = Q·Kᵀ   (20×4)·(4×20) → 20×20");
    attn_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_with_bias),
        cmocka_unit_test(test_scores_scale_softmax_weighted_sum),
        cmocka_unit_test(test_softmax_invariants),
        cmocka_unit_test(test_softmax_huge_scores_stay_finite),
        cmocka_unit_test(test_masks),
        cmocka_unit_test(test_mask_parse_and_format),
        cmocka_unit_test(test_config_ranges),
        cmocka_unit_test(test_prng_and_embeddings),
        cmocka_unit_test(test_positional_encoding),
        cmocka_unit_test(test_trace_seed_sentence),
        cmocka_unit_test(test_trace_pos_enc_and_mask),
        cmocka_unit_test(test_trace_no_scale_copies),
        cmocka_unit_test(test_trace_errors_leave_output_empty),
        cmocka_unit_test(test_trace_nonfinite_names_stage),
        cmocka_unit_test(test_trace_explicit_weights),
        cmocka_unit_test(test_vocab_lookup),
        cmocka_unit_test(test_equations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
