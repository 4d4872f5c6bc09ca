/* test_model.c — the model's layers, losses and backward: central finite
 * differences against the backward for every parameter under every option
 * (each mask, scaling on and off, biases, each position scheme, 1-3 layers,
 * both objectives); the layer forward is the core's attention; parameter
 * layout and tokenizing with the vocabulary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "model.h"
#include "model_run.h"

#define FD_H 1e-5
#define FD_TOL 1e-6

static const char *const words[] = {"a", "b", "c", "d", "e", "f"};

typedef struct {
    int layers, heads;
    model_pos pos;
    model_objective objective;
    const char *mask;
    bool scale, bias;
} fd_case;

static int fd_kv_heads; /* grouped-query attention for the cases made next (0: one K, V per head) */

static void make_model(model *m, const fd_case *fc, uint32_t seed) {
    model_config c = {.d_model = 4, .d_k = fc->pos == MODEL_POS_ROPE ? 2 : 3, .heads = fc->heads, .layers = fc->layers, .pos = fc->pos, .max_len = 7, .scale = fc->scale, .bias = fc->bias, .objective = fc->objective, .kv_heads = fd_kv_heads};
    assert_int_equal(attn_mask_parse(&c.mask, fc->mask, NULL), ATTN_OK);
    attn_err err;
    if (model_create(m, &c, words, 6, "reverse", "a b c", &err) != ATTN_OK) fail_msg("%s", err.msg);
    model_init_weights(m, seed);
    // biases start at 0; give them values so their gradients are tested away from 0
    for (int i = 0; i < m->n_tensors; i++)
        if (m->tensor[i].vector)
            for (int k = 0; k < m->tensor[i].cols; k++)
                m->block[m->tensor[i].offset + k] = attn_prng_uniform(seed, 77, (uint64_t)(i * 100 + k), 0.3);
}

/* Targets every row can see under the mask: the token objective names a
 * vocabulary index, the pointer a visible position. */
static int make_targets(model_target *t, const model *m, int n) {
    int count = 0;
    for (int i = 1; i < n; i += 2) {
        int y = m->cfg.objective == MODEL_OBJ_TOKEN ? (i * 5) % m->vocab_count : i - 1;
        if (m->cfg.objective == MODEL_OBJ_POINTER && !attn_mask_allows(m->cfg.mask, i, y)) y = i;
        t[count++] = (model_target){i, y};
    }
    return count;
}

static double loss_of(model_ws *ws, const int *ids, int n, const model_target *t, int count, bool backward) {
    double loss = 0.0;
    attn_err err;
    if (model_forward(ws, ids, n, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (model_loss(ws, ids, t, count, 1.0 / count, backward, &loss, &err) != ATTN_OK) fail_msg("%s", err.msg);
    return loss;
}

static void check_case(const fd_case *fc) {
    model m;
    make_model(&m, fc, 3);
    double *grad = calloc(m.n_params, sizeof(double));
    model_ws ws;
    assert_int_equal(model_ws_init(&ws, &m, grad, NULL), ATTN_OK);
    const int ids[] = {0, 3, 1, 5, 3, 2, 4};
    int n = 6;
    model_target t[8];
    int count = make_targets(t, &m, n);
    loss_of(&ws, ids, n, t, count, true);
    for (size_t i = 0; i < m.n_params; i++) {
        double keep = m.block[i];
        m.block[i] = keep + FD_H;
        double up = loss_of(&ws, ids, n, t, count, false);
        m.block[i] = keep - FD_H;
        double down = loss_of(&ws, ids, n, t, count, false);
        m.block[i] = keep;
        double fd = (up - down) / (2 * FD_H);
        if (!(fabs(fd - grad[i]) <= FD_TOL * (fabs(fd) > 1 ? fabs(fd) : 1))) {
            const model_tensor *tt = m.tensor;
            while (tt + 1 < m.tensor + m.n_tensors && tt[1].offset <= i) tt++;
            fail_msg("layers %d heads %d pos %s %s mask %s scale %d bias %d: %s (layer %d head %d) entry %zu: "
                     "backward %.12g, finite differences %.12g",
                     fc->layers, fc->heads, model_pos_name(fc->pos),
                     model_objective_name(fc->objective), fc->mask, fc->scale, fc->bias, tt->name, tt->layer,
                     tt->head, i - tt->offset, grad[i], fd);
        }
    }
    model_ws_free(&ws);
    free(grad);
    model_free(&m);
}

static void test_gradients_layers_positions_objectives(void **state) {
    (void)state;
    const char *masks[] = {"none", "causal", "window:1", "causal-window:2"};
    int k = 0;
    for (int layers = 1; layers <= 3; layers++)
        for (int pos = 0; pos <= MODEL_POS_ROPE; pos++) // RoPE: d_k 2, one pair
            for (int obj = 0; obj <= MODEL_OBJ_TOKEN; obj++, k++) {
                fd_case fc = {layers, 1 + k % 2, (model_pos)pos, (model_objective)obj, masks[k % 4], k % 3 != 0,
                              k % 2 == 0};
                check_case(&fc);
            }
}

static void test_gradients_masks_scaling_bias(void **state) {
    (void)state;
    const char *masks[] = {"none", "causal", "window:1", "causal-window:2"};
    for (int mk = 0; mk < 4; mk++)
        for (int scale = 0; scale < 2; scale++)
            for (int bias = 0; bias < 2; bias++)
                for (int obj = 0; obj <= MODEL_OBJ_TOKEN; obj++) {
                    fd_case fc = {2, 2, MODEL_POS_SINUSOIDAL, (model_objective)obj, masks[mk], scale, bias};
                    check_case(&fc);
                }
}

/* Grouped-query attention (issue 24): a group's K and V are one parameter,
 * whose gradient is the sum over the group's heads; the finite differences of
 * that one parameter check the sum. */
static void test_gradients_grouped_query(void **state) {
    (void)state;
    const char *masks[] = {"causal", "none", "causal-window:2"};
    for (int kv = 1; kv <= 2; kv++)
        for (int bias = 0; bias < 2; bias++)
            for (int obj = 0; obj <= MODEL_OBJ_TOKEN; obj++) {
                fd_case fc = {2, 4, MODEL_POS_LEARNED, (model_objective)obj, masks[(kv + bias + obj) % 3], true, bias};
                fd_kv_heads = kv;
                check_case(&fc);
            }
    // the layout: heads 1 and 3 of 4 (G 2) hold only W_Q, and read heads 0's and 2's K, V
    model m;
    fd_case fc = {1, 4, MODEL_POS_NONE, MODEL_OBJ_TOKEN, "causal", true, false};
    fd_kv_heads = 2;
    make_model(&m, &fc, 5);
    fd_kv_heads = 0;
    int wk = 0;
    for (int i = 0; i < m.n_tensors; i++) wk += m.tensor[i].matrix == ATTN_MAT_W_K;
    assert_int_equal(wk, 2);
    const model_layer_params *p = &m.w.layer[0];
    assert_ptr_equal(p->mat[ATTN_MAT_W_K][1], p->mat[ATTN_MAT_W_K][0]);
    assert_ptr_equal(p->mat[ATTN_MAT_W_V][3], p->mat[ATTN_MAT_W_V][2]);
    assert_ptr_not_equal(p->mat[ATTN_MAT_W_K][2], p->mat[ATTN_MAT_W_K][0]);
    assert_ptr_not_equal(p->mat[ATTN_MAT_W_Q][1], p->mat[ATTN_MAT_W_Q][0]);
    model_free(&m);
}

/* The layer forward is the core's attention: the same numbers as a trace of
 * the layer with X and the weights given. */
static void test_layer_is_the_core_attention(void **state) {
    (void)state;
    fd_case fc = {2, 2, MODEL_POS_LEARNED, MODEL_OBJ_TOKEN, "window:2", true, true};
    model m;
    make_model(&m, &fc, 5);
    model_ws ws;
    assert_int_equal(model_ws_init(&ws, &m, NULL, NULL), ATTN_OK);
    const int ids[] = {0, 1, 2, 3, 4, 5, 0};
    assert_int_equal(model_forward(&ws, ids, 7, NULL), ATTN_OK);
    for (int l = 0; l < 2; l++) {
        attn_weights w = {.x = ws.x[l]};
        for (int mt = 0; mt < ATTN_MAT_COUNT; mt++)
            for (int h = 0; h < 2; h++) w.mat[mt][h] = m.w.layer[l].mat[mt][h];
        attn_config c;
        model_attn_config(&c, &m.cfg);
        attn_trace t = {0};
        assert_int_equal(attn_trace_run(&t, "a b c d e f a", 13, &c, NULL, &w, NULL), ATTN_OK);
        assert_memory_equal(t.output, ws.output[l], sizeof(double) * 7 * 4);
        assert_memory_equal(t.head[1].weights, ws.head[l][1].weights, sizeof(double) * 49);
        attn_trace_free(&t);
    }
    model_ws_free(&ws);
    model_free(&m);
}

static void test_layout_and_vocabulary(void **state) {
    (void)state;
    fd_case fc = {2, 3, MODEL_POS_NONE, MODEL_OBJ_POINTER, "none", true, false};
    model m;
    make_model(&m, &fc, 1);
    // E, then per layer 3 heads × (W_Q, W_K, W_V) and W_O; no P, no biases, no U
    assert_int_equal(m.n_tensors, 1 + 2 * (3 * 3 + 1));
    assert_null(m.w.p);
    assert_null(m.w.u);
    assert_null(m.w.layer[0].mat[ATTN_MAT_B_Q][0]);
    assert_string_equal(m.tensor[1].name, "W_Q");
    assert_true(m.tensor[1].decay);
    assert_int_equal(model_word_id(&m, "C", 1), 2); // ASCII case folds: "C" is "c"
    assert_int_equal(model_word_id(&m, "z", 1), -1);
    attn_tokens toks;
    int ids[MODEL_MAX_LEN];
    attn_err err;
    assert_int_equal(model_tokenize(&m, "a z", 3, &toks, ids, &err), ATTN_ERR_INPUT);
    assert_non_null(strstr(err.msg, "\"z\" (token 2) is not in the model's vocabulary"));
    assert_int_equal(model_tokenize(&m, "a b c d e f a b", 15, &toks, ids, &err), ATTN_ERR_INPUT);
    assert_non_null(strstr(err.msg, "8 tokens; this model reads at most 7"));
    assert_int_equal(model_tokenize(&m, "f e", 3, &toks, ids, &err), ATTN_OK);
    assert_int_equal(ids[0], 5);
    attn_tokens_free(&toks);
    model copy;
    assert_int_equal(model_copy(&copy, &m, NULL), ATTN_OK);
    assert_memory_equal(copy.block, m.block, sizeof(double) * m.n_params);
    model_free(&copy);
    model_free(&m);
    model_free(NULL);
    model_ws_free(NULL);
    const char *dup[] = {"a", "a"};
    model_config c = m.cfg;
    c = (model_config){.d_model = 4, .d_k = 2, .heads = 1, .layers = 1, .max_len = 4};
    assert_int_equal(model_create(&m, &c, dup, 2, "reverse", "", &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "repeats vocab[0]"));
    c.layers = 5;
    assert_int_equal(model_create(&m, &c, words, 2, "reverse", "", &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--layers must be between 1 and 4"));
}

/* A run for showing: the traces hold the workspace's numbers, and every
 * explanation adds up to the cell it explains. */
static void test_run_and_explain(void **state) {
    (void)state;
    const char *masks[] = {"causal", "none"};
    for (int obj = 0; obj <= MODEL_OBJ_TOKEN; obj++) {
        fd_case fc = {2, 2, MODEL_POS_LEARNED, (model_objective)obj, masks[obj], true, true};
        model m;
        make_model(&m, &fc, 9);
        model_target_spec spec[] = {{3, obj == MODEL_OBJ_TOKEN ? "e" : "a"}, {5, obj == MODEL_OBJ_TOKEN ? "b" : "c"}};
        model_result r = {0};
        attn_err err;
        if (model_run(&r, &m, "a b c d e f", 11, spec, 2, &err) != ATTN_OK) fail_msg("%s", err.msg);
        int n = r.n, dm = 4;
        assert_int_equal(n, 6);
        for (int l = 0; l < 2; l++) {
            assert_memory_equal(r.layer[l].head[1].weights, r.ws_.head[l][1].weights, sizeof(double) * 36);
            assert_memory_equal(r.layer[l].x, r.ws_.x[l], sizeof(double) * 24);
            for (int k = 0; k < n * dm; k++) assert_true(r.residual[l][k] == r.layer[l].x[k] + r.layer[l].output[k]);
        }
        model_explanation *e = malloc(sizeof *e);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                assert_int_equal(model_explain(e, &r, &m, MODEL_ST_D_SCALED, 1, 1, i, j, NULL), ATTN_OK);
                assert_true(e->value == model_result_head_grad(&r, 1, 1)->d_scaled[i * n + j]);
                assert_true(e->grad.masked || e->value == 0.0 + e->grad.a * (e->grad.da - e->grad.dot));
                assert_int_equal(model_explain(e, &r, &m, MODEL_ST_D_WEIGHTS, 1, 0, i, j, NULL), ATTN_OK);
                double sum = e->a;
                for (int c = 0; c < e->core.n_terms; c++) sum += e->core.terms[c].value;
                assert_close(sum, e->value);
            }
        assert_int_equal(model_explain(e, &r, &m, MODEL_ST_RESIDUAL, 0, 0, 2, 3, NULL), ATTN_OK);
        assert_true(e->value == e->a + e->b);
        assert_int_equal(model_explain(e, &r, &m, ATTN_ST_X, 0, 0, 2, 3, NULL), ATTN_OK);
        assert_int_equal(e->kind, MODEL_EX_EMBED);
        assert_true(e->value == e->a + e->b);
        assert_int_equal(model_explain(e, &r, &m, ATTN_ST_WEIGHTS, 1, 1, 4, 2, NULL), ATTN_OK);
        assert_int_equal(e->core.kind, ATTN_EXPLAIN_SOFTMAX);
        if (obj == MODEL_OBJ_TOKEN) {
            assert_int_equal(model_explain(e, &r, &m, MODEL_ST_LOGITS, 0, 0, 3, 4, NULL), ATTN_OK);
            double sum = e->core.dot.bias;
            for (int c = 0; c < e->core.n_terms; c++) sum += e->core.terms[c].value;
            assert_close(sum, e->value);
            assert_int_equal(model_explain(e, &r, &m, MODEL_ST_PROBS, 0, 0, 3, 4, NULL), ATTN_OK);
            assert_close(exp(e->core.softmax.score - e->core.softmax.row_max) / e->core.softmax.denom, e->value);
            assert_true(e->core.value == e->value); // the panel's last line ("… / denominator = p") reads it
            assert_int_equal(r.predicted[3], model_predict_row(&r.ws_, 3));
        } else {
            assert_int_equal(model_explain(e, &r, &m, MODEL_ST_LOGITS, 0, 0, 3, 4, &err), ATTN_ERR_RANGE);
            assert_non_null(strstr(err.msg, "exist only for a token model"));
        }
        assert_int_equal(model_explain(e, &r, &m, ATTN_ST_Q, 2, 0, 0, 0, &err), ATTN_ERR_RANGE);
        assert_non_null(strstr(err.msg, "Layer 2 does not exist"));
        assert_int_equal(model_explain(e, &r, &m, ATTN_ST_Q, 0, 2, 0, 0, &err), ATTN_ERR_RANGE);
        assert_non_null(strstr(err.msg, "Head 2 does not exist"));
        free(e);
        model_result_free(&r);
        // a run without targets has no gradients to explain
        assert_int_equal(model_run(&r, &m, "a b", 3, NULL, 0, NULL), ATTN_OK);
        e = malloc(sizeof *e);
        assert_int_equal(model_explain(e, &r, &m, MODEL_ST_D_SCALED, 1, 0, 0, 0, &err), ATTN_ERR_RANGE);
        assert_non_null(strstr(err.msg, "give the loss a target"));
        free(e);
        model_result_free(&r);
        model_result_free(NULL);
        model_free(&m);
    }
}

/* --pos-offset K with a trained model (issue 24): every layer's scores of a
 * RoPE model depend only on m − n, so shifting the sentence by 1000 keeps
 * them (|Δ| ≤ 1e-12·max(1, |s|)) while q_rot itself turns; with sinusoids
 * added to x₀ they change; learned positions refuse a shift past P's rows,
 * with the message id the window words. */
static void forward_at(model *m, int offset, model_ws *ws, const int *ids, int n) {
    attn_err err;
    m->cfg.pos_offset = offset;
    assert_int_equal(model_ws_init(ws, m, NULL, &err), ATTN_OK);
    if (model_forward(ws, ids, n, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

static double scores_diff(const model_ws *a, const model_ws *b, int n) {
    double worst = 0.0;
    for (int l = 0; l < a->cfg.layers; l++)
        for (int h = 0; h < a->cfg.heads; h++)
            for (int k = 0; k < n * n; k++) {
                double s = a->head[l][h].scores[k], t = b->head[l][h].scores[k];
                worst = fmax(worst, fabs(s - t) / fmax(1.0, fabs(s)));
            }
    return worst;
}

static void test_pos_offset_trained(void **state) {
    (void)state;
    const int ids[] = {0, 3, 1, 5, 3, 2};
    int n = 6;
    model_ws w0, w1;
    // RoPE: shift-invariant through both layers, the residual too
    fd_case rope = {2, 2, MODEL_POS_ROPE, MODEL_OBJ_TOKEN, "none", true, false};
    model m;
    make_model(&m, &rope, 5);
    forward_at(&m, 0, &w0, ids, n);
    forward_at(&m, 1000, &w1, ids, n);
    assert_true(scores_diff(&w0, &w1, n) <= 1e-12);
    assert_true(fabs(w0.head[0][0].q_rot[2] - w1.head[0][0].q_rot[2]) > 1e-3); // q itself turned
    for (int k = 0; k < n * m.cfg.d_model; k++)
        assert_true(fabs(w0.x[2][k] - w1.x[2][k]) <= 1e-12 * fmax(1.0, fabs(w0.x[2][k])));
    model_ws_free(&w0), model_ws_free(&w1), model_free(&m);
    // sinusoidal: the positions are added to x₀, so the scores change
    fd_case sin = {2, 2, MODEL_POS_SINUSOIDAL, MODEL_OBJ_TOKEN, "none", true, false};
    make_model(&m, &sin, 5);
    forward_at(&m, 0, &w0, ids, n);
    forward_at(&m, 1000, &w1, ids, n);
    assert_true(scores_diff(&w0, &w1, n) > 1e-3);
    double pe[4];
    attn_positional_row(pe, 1000, 4); // token 1's x₀ = E[a] + PE(1000)
    for (int j = 0; j < 4; j++) assert_true(fabs(w1.x[0][j] - (m.w.e[j] + pe[j])) < 1e-15);
    model_ws_free(&w0), model_ws_free(&w1), model_free(&m);
    // learned: 6 tokens from position 1 are rows 1–6 of P (max_len 7); from position 2 the last is past it
    fd_case learned = {1, 1, MODEL_POS_LEARNED, MODEL_OBJ_TOKEN, "none", true, false};
    make_model(&m, &learned, 5);
    forward_at(&m, 1, &w1, ids, n);
    for (int j = 0; j < 4; j++) assert_true(w1.x[0][j] == m.w.e[j] + m.w.p[4 + j]);
    model_ws_free(&w1);
    attn_err err;
    m.cfg.pos_offset = 2;
    assert_int_equal(model_check_positions(&m, n, &err), ATTN_ERR_RANGE);
    assert_int_equal(err.id, ATTN_MSG_MODEL_POS_OFFSET);
    assert_string_equal(err.args[1], "7");
    assert_string_equal(err.args[2], "6");
    attn_tokens toks = {0};
    int got[MODEL_MAX_LEN];
    assert_int_equal(model_tokenize(&m, "a b c d e f", 11, &toks, got, &err), ATTN_ERR_RANGE);
    assert_int_equal(err.id, ATTN_MSG_MODEL_POS_OFFSET);
    attn_tokens_free(&toks);
    m.cfg.pos_offset = 1;
    assert_int_equal(model_check_positions(&m, n, &err), ATTN_OK);
    model_free(&m);
}

/* Which gradient each step's backward view shows: ∂L/∂A on 6, ∂L/∂S′ on 4
 * and 5, none elsewhere (by hand, one row a step). */
static void test_step_grad(void **state) {
    (void)state;
    static const int want[ATTN_STEP_COUNT] = {
        [ATTN_STEP_EMBED] = -1,
        [ATTN_STEP_QKV] = -1,
        [ATTN_STEP_ROPE] = -1,
        [ATTN_STEP_SCORES] = -1,
        [ATTN_STEP_SCALE] = MODEL_ST_D_SCALED,
        [ATTN_STEP_MASK] = MODEL_ST_D_SCALED,
        [ATTN_STEP_SOFTMAX] = MODEL_ST_D_WEIGHTS,
        [ATTN_STEP_WEIGHTED] = -1,
        [ATTN_STEP_MULTIHEAD] = -1,
    };
    for (int s = 0; s < ATTN_STEP_COUNT; s++) assert_int_equal(model_step_grad((attn_step)s), want[s]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_and_vocabulary),
        cmocka_unit_test(test_step_grad),
        cmocka_unit_test(test_layer_is_the_core_attention),
        cmocka_unit_test(test_gradients_layers_positions_objectives),
        cmocka_unit_test(test_gradients_masks_scaling_bias),
        cmocka_unit_test(test_gradients_grouped_query),
        cmocka_unit_test(test_run_and_explain),
        cmocka_unit_test(test_pos_offset_trained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
