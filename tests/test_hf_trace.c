/* test_hf_trace.c — a GPT-2 layer as the core's attn_trace (src/hf/hf_trace.h):
 * the core, run again from the trace's own X and weights (attn_head_forward,
 * attn_concat_heads, attn_matmul), gives the run's stages bit for bit on every
 * layer and head of the generated models (F32, F16, BF16; 12 heads on the
 * vocab.txt model, beyond the toys' 8); attn_explain's terms of a Q and an
 * output cell add up to the stored value; X's LayerNorm arithmetic gives the
 * stored X; and the refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn.h"
#include "hf_model.h"
#include "hf_trace.h"

static attn_explanation ex; /* large: keep it off the stack */

typedef struct {
    hf_model m;
    hf_tokens toks;
    hf_run r;
} fixture;

static void open_case(fixture *f, const char *name, const char *sentence) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/hf/%s", ATTN_TEST_DATA, name);
    attn_err err;
    memset(f, 0, sizeof *f);
    if (hf_model_open(&f->m, dir, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (hf_model_tokenize(&f->m, sentence, strlen(sentence), false, &f->toks, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int id[HF_MAX_TOKENS];
    for (int i = 0; i < f->toks.count; i++) id[i] = f->toks.v[i].id;
    if (hf_forward(&f->r, &f->m, id, f->toks.count, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

static void close_case(fixture *f) {
    hf_run_free(&f->r);
    hf_tokens_free(&f->toks);
    hf_model_free(&f->m);
}

static void assert_same(const double *a, const double *b, size_t count, const char *what) {
    for (size_t i = 0; i < count; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) fail_msg("%s[%zu]: %.17g != %.17g", what, i, a[i], b[i]);
}

/* Every stage of every layer and head, recomputed by the core from the trace. */
static void check_recompute(const char *name, const char *sentence, int want_heads) {
    fixture f;
    open_case(&f, name, sentence);
    int n = f.r.n, d = f.r.d, dk = f.r.d_k;
    assert_int_equal(f.r.n_head, want_heads);
    size_t nn = (size_t)n * n, nd = (size_t)n * d, nk = (size_t)n * dk;
    double *buf = malloc(sizeof(double) * (nk * 4 + nn * 4 + nd * 2));
    assert_non_null(buf);
    for (int l = 0; l < f.r.n_layer; l++) {
        attn_trace t = {0};
        attn_err err;
        if (hf_trace_layer(&t, &f.m, &f.r, &f.toks, l, &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(t.n, n);
        assert_int_equal(t.cfg.heads, want_heads);
        assert_int_equal(t.cfg.d_model, d);
        assert_int_equal(t.cfg.mask.kind, ATTN_MASK_CAUSAL);
        assert_true(t.cfg.bias);
        assert_true(t.x == f.r.layer[l].x); // X is LN₁'s output, borrowed
        assert_int_equal(attn_config_check(&t.cfg, &err), want_heads <= ATTN_MAX_HEADS ? ATTN_OK : ATTN_ERR_RANGE);
        for (int h = 0; h < t.cfg.heads; h++) {
            attn_head hd = t.head[h]; // its weights, fresh stages
            double *p = buf;
            hd.q = p, p += nk;
            hd.k = p, p += nk;
            hd.v = p, p += nk;
            hd.z = p, p += nk;
            hd.scores = p, p += nn;
            hd.scaled = p, p += nn;
            hd.masked = p, p += nn;
            hd.weights = p, p += nn;
            if (attn_head_forward(&hd, t.x, n, &t.cfg, &err) != ATTN_OK) fail_msg("%s", err.msg);
            const attn_head *want = &f.r.layer[l].head[h];
            assert_same(hd.q, want->q, nk, "q");
            assert_same(hd.k, want->k, nk, "k");
            assert_same(hd.v, want->v, nk, "v");
            assert_same(hd.scores, want->scores, nn, "scores");
            assert_same(hd.weights, want->weights, nn, "weights");
            assert_same(hd.z, want->z, nk, "z");
        }
        double *concat = buf, *out = buf + nd;
        attn_concat_heads(concat, t.head, t.cfg.heads, n, dk);
        assert_same(concat, t.concat, nd, "concat");
        attn_matmul(out, concat, t.w_o, t.b_o, n, d, d);
        assert_same(out, t.output, nd, "output");
        // the hover's arithmetic: the terms add up to the stored cell
        int row = n - 1, col = dk - 1, h = t.cfg.heads - 1;
        if (attn_explain(&ex, &t, ATTN_ST_Q, h, row, col, &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(ex.kind, ATTN_EXPLAIN_DOT);
        assert_int_equal(ex.n_terms, d);
        double sum = 0;
        for (int c = 0; c < ex.n_terms; c++) sum += ex.terms[c].value;
        assert_true(ex.dot.has_bias);
        assert_true(fabs(sum + ex.dot.bias - ex.value) <= 1e-12 * fmax(1, fabs(ex.value)));
        assert_true(ex.value == t.head[h].q[(size_t)row * dk + col]);
        if (attn_explain(&ex, &t, ATTN_ST_OUTPUT, 0, row, d - 1, &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(ex.n_terms, d);
        // X: LayerNorm's arithmetic gives the stored X
        hf_ln_explanation ln;
        if (hf_explain_ln1(&ln, &f.m, &f.r, l, row, d - 1, &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(ln.width, d);
        double v = (ln.x - ln.mean) / sqrt(ln.var + ln.eps) * ln.w + ln.b;
        assert_true(fabs(v - ln.value) <= 1e-12 * fmax(1, fabs(v)));
        attn_trace_free(&t);
    }
    free(buf);
    close_case(&f);
}

static void test_f32_tied(void **state) {
    (void)state;
    check_recompute("f32_prefix_tied", "The cat sat on it.", 2);
}

static void test_f16_untied(void **state) {
    (void)state;
    check_recompute("f16_bare_untied", "the cat the cat the cat", 4);
}

static void test_bf16(void **state) {
    (void)state;
    check_recompute("bf16_prefix_eps", "Hello, world!", 2);
}

static void test_twelve_heads(void **state) { // beyond ATTN_MAX_HEADS: the toys' limit is not the trace's
    (void)state;
    check_recompute("wordpiece_12heads", "猫坐在垫子上，它累了。", 12);
}

static void test_labels_and_refusals(void **state) {
    (void)state;
    fixture f;
    open_case(&f, "f16_bare_untied", "ab ab cd");
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(hf_trace_layer(&t, &f.m, &f.r, &f.toks, 0, &err), ATTN_OK);
    // each token's label, and a label that occurs twice is numbered
    char lab[64];
    for (int i = 0; i < t.n; i++) {
        attn_token_label(&t.tokens, i, 0, lab, sizeof lab);
        const char *want = f.toks.v[i].label;
        if (!t.tokens.repeated[i]) assert_string_equal(lab, want);
        else assert_non_null(strstr(lab, want));
    }
    int repeats = 0;
    for (int i = 0; i < t.n; i++) repeats += t.tokens.repeated[i];
    assert_true(repeats >= 2); // "ab" twice at least
    attn_trace_free(&t);
    assert_int_equal(hf_trace_layer(&t, &f.m, &f.r, &f.toks, f.r.n_layer, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "Layer"));
    assert_int_equal(hf_trace_layer(&t, &f.m, &f.r, &f.toks, -1, &err), ATTN_ERR_RANGE);
    assert_null(t.block_);
    hf_tokens none = {0};
    assert_int_equal(hf_trace_layer(&t, &f.m, &f.r, &none, 0, &err), ATTN_ERR_RANGE);
    hf_ln_explanation ln;
    assert_int_equal(hf_explain_ln1(&ln, &f.m, &f.r, 0, f.r.n, 0, &err), ATTN_ERR_RANGE);
    close_case(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_tied),
        cmocka_unit_test(test_f16_untied),
        cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_twelve_heads),
        cmocka_unit_test(test_labels_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
