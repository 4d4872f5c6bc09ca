/* test_explain.c — every explained cell's terms add up to the stored value. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn.h"
#include "cli_explain.h"

static attn_explanation ex; /* large: keep it off the stack */

/* Rebuilds a cell's value from its explanation alone. */
static double rebuild(const attn_explanation *e) {
    double sum = 0;
    switch (e->kind) {
    case ATTN_EXPLAIN_INPUT: return e->input.embedding + e->input.position;
    case ATTN_EXPLAIN_DOT:
        for (int k = 0; k < e->n_terms; k++) {
            assert_close(e->terms[k].value, e->terms[k].a * e->terms[k].b);
            sum += e->terms[k].value;
        }
        return sum + (e->dot.has_bias ? e->dot.bias : 0.0);
    case ATTN_EXPLAIN_SCALE: return e->scale.score / e->scale.divisor;
    case ATTN_EXPLAIN_MASK: return e->mask.masked ? -INFINITY : e->mask.score;
    case ATTN_EXPLAIN_SOFTMAX:
        for (int k = 0; k < e->n_terms; k++) sum += e->terms[k].value;
        assert_close(sum, e->softmax.denom);
        return e->softmax.masked ? 0.0 : e->terms[e->col].value / e->softmax.denom;
    case ATTN_EXPLAIN_COPY: return e->value;
    case ATTN_EXPLAIN_ROTATE:
        assert_close(e->rotate.cos, cos(e->rotate.angle));
        assert_close(e->rotate.sin, sin(e->rotate.angle));
        return e->rotate.odd ? e->rotate.a * e->rotate.sin + e->rotate.b * e->rotate.cos
                             : e->rotate.a * e->rotate.cos - e->rotate.b * e->rotate.sin;
    }
    return NAN;
}

static void check_all_cells(const attn_trace *t) {
    for (int s = 0; s < ATTN_STAGE_COUNT; s++) {
        if ((s == ATTN_ST_Q_ROT || s == ATTN_ST_K_ROT) && !t->cfg.rope) continue; // RoPE's own stages
        int heads = attn_stage_per_head((attn_stage)s) ? t->cfg.heads : 1, rows, cols;
        attn_trace_shape(t, (attn_stage)s, &rows, &cols);
        for (int h = 0; h < heads; h++)
            for (int i = 0; i < rows; i++)
                for (int j = 0; j < cols; j++) {
                    assert_int_equal(attn_explain(&ex, t, (attn_stage)s, h, i, j, NULL), ATTN_OK);
                    double v = attn_trace_stage(t, (attn_stage)s, h)[i * cols + j];
                    double r = rebuild(&ex);
                    if (v == -INFINITY) assert_true(r == -INFINITY);
                    else assert_close_tol(r, v, 1e-12);
                    if (s == ATTN_ST_CONCAT)
                        assert_close(v, t->head[ex.copy.head].z[i * t->cfg.d_k + ex.copy.col]);
                }
    }
}

static void test_terms_add_up_every_stage(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.bias = true;
    c.pos_enc = true;
    c.mask.kind = ATTN_MASK_CAUSAL_WINDOW;
    c.mask.window = 2;
    c.heads = 3;
    attn_trace t = {0};
    const char *s = "The animal didn't cross the street because it was too tired.";
    assert_int_equal(attn_trace_run(&t, s, strlen(s), &c, NULL, NULL, NULL), ATTN_OK);
    check_all_cells(&t);
    attn_trace_free(&t);
    c.scale = false;
    c.bias = false;
    c.mask.kind = ATTN_MASK_NONE;
    assert_int_equal(attn_trace_run(&t, "这只动物没看见那只鸟", strlen("这只动物没看见那只鸟"), &c, NULL, NULL, NULL), ATTN_OK);
    check_all_cells(&t);
    attn_trace_free(&t);
    // RoPE: q_rot and k_rot cells are their pair turned; the scores' terms are q_rot·k_rot
    c.pos_enc = false;
    c.rope = true;
    c.pos_offset = 40;
    c.mask.kind = ATTN_MASK_CAUSAL;
    assert_int_equal(attn_trace_run(&t, s, strlen(s), &c, NULL, NULL, NULL), ATTN_OK);
    check_all_cells(&t);
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_SCORES, 1, 5, 2, NULL), ATTN_OK);
    assert_true(ex.terms[1].a == t.head[1].q_rot[5 * c.d_k + 1]);
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_K_ROT, 0, 3, 3, NULL), ATTN_OK);
    assert_int_equal(ex.kind, ATTN_EXPLAIN_ROTATE);
    assert_int_equal(ex.rotate.pos, 43);
    assert_int_equal(ex.rotate.pair, 1);
    assert_true(ex.rotate.odd);
    assert_close(ex.rotate.angle, 43 * 0.01); // 10000^(-2/4)
    attn_trace_free(&t);
    c.rope = false;
    attn_err err;
    assert_int_equal(attn_trace_run(&t, "a b", 3, &c, NULL, NULL, NULL), ATTN_OK);
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_Q_ROT, 0, 0, 0, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "q_rot exists only with --pos rope"));
    attn_trace_free(&t);
}

static void test_score_terms_are_q_row_and_k_row(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, "a b c d", 7, &c, NULL, NULL, NULL), ATTN_OK);
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_SCORES, 1, 2, 3, NULL), ATTN_OK);
    assert_int_equal(ex.kind, ATTN_EXPLAIN_DOT);
    assert_int_equal(ex.n_terms, c.d_k);
    for (int k = 0; k < c.d_k; k++) {
        assert_close(ex.terms[k].a, t.head[1].q[2 * c.d_k + k]);
        assert_close(ex.terms[k].b, t.head[1].k[3 * c.d_k + k]);
    }
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_Z, 0, 1, 2, NULL), ATTN_OK);
    assert_int_equal(ex.n_terms, 4); // one term per token j: a_1j · v_j2
    assert_close(ex.terms[3].a, t.head[0].weights[1 * 4 + 3]);
    assert_close(ex.terms[3].b, t.head[0].v[3 * c.d_k + 2]);
    attn_trace_free(&t);
}

static void test_explain_range_errors(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(attn_trace_run(&t, "a b c", 5, &c, NULL, NULL, NULL), ATTN_OK);
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_WEIGHTS, 2, 0, 0, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "Head 2"));
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_WEIGHTS, 0, 3, 0, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "Row 3"));
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_Q, 0, 0, 4, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "0 to 3"));
    assert_int_equal(attn_explain(&ex, &t, (attn_stage)99, 0, 0, 0, &err), ATTN_ERR_RANGE);
    attn_trace_free(&t);
}

static void test_format_mentions_values(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.mask.kind = ATTN_MASK_CAUSAL;
    attn_trace t = {0};
    const char *s = "这只动物没看见那只鸟，因为它飞得太快了。";
    assert_int_equal(attn_trace_run(&t, s, strlen(s), &c, NULL, NULL, NULL), ATTN_OK);
    char buf[8192];
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_WEIGHTS, 0, 13, 9, NULL), ATTN_OK);
    size_t need = cli_explain_format(&ex, &t, buf, sizeof buf);
    assert_true(need < sizeof buf);
    assert_non_null(strstr(buf, "\"它\""));
    assert_non_null(strstr(buf, "9:只"));        // repeated tokens carry their 1-based position
    assert_non_null(strstr(buf, "masked -> 0")); // later tokens are masked for 它
    char small[16];
    size_t need2 = cli_explain_format(&ex, &t, small, sizeof small);
    assert_int_equal(need2, need); // reports the full size when cut
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(attn_explain(&ex, &t, ATTN_ST_MASKED, 0, 0, 5, NULL), ATTN_OK);
    cli_explain_format(&ex, &t, buf, sizeof buf);
    assert_non_null(strstr(buf, "-inf"));
    attn_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_add_up_every_stage),
        cmocka_unit_test(test_score_terms_are_q_row_and_k_row),
        cmocka_unit_test(test_explain_range_errors),
        cmocka_unit_test(test_format_mentions_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
