/* test_generate.c — issue 24: a trained model continues a sentence with a KV
 * cache per layer. Each decoded readout row equals the same row of the whole
 * sentence run at once (model_run) within |Δ| <= 1e-12·max(1, |z|); the
 * shipped induction model completes the second copy; models that cannot
 * generate are refused. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "model_file.h"
#include "model_generate.h"
#include "model_run.h"

static void load(model *m, const char *name) {
    char path[512];
    attn_err err;
    snprintf(path, sizeof path, "%s/assets/models/%s", ATTN_SOURCE_DIR, name);
    if (model_file_load(m, path, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

/* The words of g's tokens, space-separated, into buf. */
static void words(char *buf, size_t cap, const model *m, const model_generation *g, int from) {
    buf[0] = '\0';
    for (int t = from; t < g->n; t++) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s", t > from ? " " : "", m->vocab[g->ids[t]]);
    }
}

static void test_induction_completes_the_copy(void **state) {
    (void)state;
    model m;
    load(&m, "induction.json");
    model_generation g = {0};
    attn_err err;
    const char *prompt = "k c h a n e p k";
    assert_int_equal(model_generate(&g, &m, prompt, strlen(prompt), 6, &err), ATTN_OK);
    assert_int_equal(g.n_prompt, 8);
    assert_int_equal(g.n, 14);
    char got[128];
    words(got, sizeof got, &m, &g, g.n_prompt);
    assert_string_equal(got, "c h a n e p"); // what followed k the first time, in order
    // every decoded row is the whole sentence's row, computed at once
    words(got, sizeof got, &m, &g, 0);
    model_result r = {0};
    assert_int_equal(model_run(&r, &m, got, strlen(got), NULL, 0, &err), ATTN_OK);
    assert_int_equal(r.n, g.n);
    for (int t = 0; t < g.n; t++)
        for (int j = 0; j < m.vocab_count; j++) assert_close(g.logits[t * m.vocab_count + j], r.logits[t * m.vocab_count + j]);
    for (int t = g.n_prompt; t < g.n; t++) {
        assert_int_equal(g.ids[t], r.predicted[t - 1]); // the argmax fed back
        assert_close(g.prob[t], r.probs[(t - 1) * m.vocab_count + g.ids[t]]);
    }
    // the records: one cache row per token per layer; 2 layers · 1 kv-head · d_k 8 · 14 · 8 bytes
    assert_int_equal(g.step[13].cache_len, 14);
    assert_int_equal(g.step[13].cache_bytes, 2LL * 2 * 1 * 8 * 14 * 8);
    assert_true(g.step[13].macs_total < g.step[13].full_total);
    model_result_free(&r);
    model_generation_free(&g);
    model_free(&m);
}

static void test_cannot_generate(void **state) {
    (void)state;
    model m;
    model_generation g = {0};
    attn_err err;
    load(&m, "reverse.json"); // a token model, but its answers are not the next token
    assert_int_equal(model_generate(&g, &m, "3 1 4", 5, 1, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "cannot continue a sentence: its task's answers are not the next token"));
    assert_int_equal(err.id, ATTN_MSG_GENERATE_TASK); // an id: the window words it in zh and en
    assert_string_equal(err.args[0], "reverse");
    assert_null(g.block_);
    assert_int_equal(model_generate(&g, &m, "3 1 4", 5, 0, &err), ATTN_OK); // decoding the sentence works
    model_generation_free(&g);
    model_free(&m);
    load(&m, "sort.json"); // a pointer model
    assert_false(model_can_generate(&m, NULL));
    assert_int_equal(model_generate(&g, &m, "3 1 4", 5, 1, &err), ATTN_ERR_RANGE);
    assert_int_equal(err.id, ATTN_MSG_GENERATE_POINTER);
    assert_non_null(strstr(err.msg, "(task sort) cannot continue a sentence: it points at positions"));
    model_free(&m);
    load(&m, "induction.json"); // past max_len
    assert_int_equal(model_generate(&g, &m, "a b c d e f g h a b c d", 23, 5, &err), ATTN_ERR_RANGE);
    assert_string_equal(err.msg, "12 tokens and 5 more are more than this model reads: at most 16 (its max_len).");
    assert_int_equal(err.id, ATTN_MSG_GENERATE_MAX_LEN);
    m.cfg.mask.kind = ATTN_MASK_NONE; // an induction model whose rows see ahead: refused for its mask
    assert_int_equal(model_generate(&g, &m, "a b c", 5, 1, &err), ATTN_ERR_RANGE);
    assert_int_equal(err.id, ATTN_MSG_GENERATE_MASK);
    assert_non_null(strstr(err.msg, "(task induction) cannot continue a sentence: its mask lets a row see"));
    model_free(&m);
    model_generation_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_induction_completes_the_copy),
        cmocka_unit_test(test_cannot_generate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
