/* test_model_reference.c — the model against PyTorch float64 autograd
 * (tests/data/gen_model_reference.py, an independent implementation): every
 * stage of both layers, the readout, the loss, the gradient of every
 * parameter and of the attention weights and their softmax input, for token
 * and pointer models under learned, sinusoidal and no positions, causal and
 * window masks, with and without scaling and biases; and three AdamW steps
 * against torch.optim.AdamW. Agreement: |a - b| <= 1e-9 * max(1, |b|). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "test_ref.h"
#include "fileio.h"
#include "model_file.h"
#include "model_run.h"
#include "model_train.h"

#define TOL 1e-9

static void load_model(model *m, const char *name) {
    char path[512];
    attn_err err;
    snprintf(path, sizeof path, "%s/%s", ATTN_TEST_DATA, name);
    if (model_file_load(m, path, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

/* The path gen_model_reference.py names a tensor by ("layers[1].heads[0].W_Q"). */
static void tensor_path(char *out, size_t cap, const model_tensor *t) {
    if (t->layer < 0) snprintf(out, cap, "%s", t->name);
    else if (t->head < 0) snprintf(out, cap, "layers[%d].%s", t->layer, t->name);
    else snprintf(out, cap, "layers[%d].heads[%d].%s", t->layer, t->head, t->name);
}

static void check_case(const char *name) {
    char file[128];
    snprintf(file, sizeof file, "model_ref_%s.json", name);
    cJSON *root = ref_json(file);
    snprintf(file, sizeof file, "model_ref_%s.model.json", name);
    model m;
    load_model(&m, file);
    const char *sentence = cJSON_GetObjectItem(root, "sentence")->valuestring;
    const cJSON *tj = cJSON_GetObjectItem(root, "targets"), *exp = cJSON_GetObjectItem(root, "expected");
    model_target_spec spec[8];
    int count = cJSON_GetArraySize(tj);
    for (int k = 0; k < count; k++) {
        const cJSON *t = cJSON_GetArrayItem(tj, k);
        spec[k] = (model_target_spec){cJSON_GetArrayItem(t, 0)->valueint, cJSON_GetArrayItem(t, 1)->valuestring};
    }
    model_result r = {0};
    attn_err err;
    if (model_run(&r, &m, sentence, strlen(sentence), spec, count, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int n = r.n, dm = m.cfg.d_model, dk = m.cfg.d_k, v = m.vocab_count;
    char what[160];
    for (int l = 0; l < m.cfg.layers; l++) {
        const cJSON *lj = cJSON_GetArrayItem(cJSON_GetObjectItem(exp, "layers"), l);
        const attn_trace *t = &r.layer[l];
        snprintf(what, sizeof what, "%s layer %d X", name, l);
        ref_compare(what, t->x, n, dm, cJSON_GetObjectItem(lj, "X"), TOL);
        snprintf(what, sizeof what, "%s layer %d output", name, l);
        ref_compare(what, t->output, n, dm, cJSON_GetObjectItem(lj, "output"), TOL);
        snprintf(what, sizeof what, "%s layer %d residual", name, l);
        ref_compare(what, r.residual[l], n, dm, cJSON_GetObjectItem(lj, "residual"), TOL);
        for (int h = 0; h < m.cfg.heads; h++) {
            const cJSON *hj = cJSON_GetArrayItem(cJSON_GetObjectItem(lj, "heads"), h);
            const attn_head *hd = &t->head[h];
            const attn_head_grad *g = model_result_head_grad(&r, l, h);
            struct {
                const char *key;
                const double *v;
                int cols;
            } st[] = {
                {"Q", hd->q, dk},
                {"K", hd->k, dk},
                {"V", hd->v, dk},
                {"scores", hd->scores, n},
                {"scaled", hd->scaled, n},
                {"weights", hd->weights, n},
                {"Z", hd->z, dk},
                {"d_weights", g->d_weights, n},
                {"d_scaled", g->d_scaled, n},
            };
            for (size_t s = 0; s < sizeof st / sizeof *st; s++) {
                snprintf(what, sizeof what, "%s layer %d head %d %s", name, l, h, st[s].key);
                ref_compare(what, st[s].v, n, st[s].cols, cJSON_GetObjectItem(hj, st[s].key), TOL);
            }
        }
    }
    if (m.cfg.objective == MODEL_OBJ_TOKEN) {
        ref_compare("logits", r.logits, n, v, cJSON_GetObjectItem(exp, "logits"), TOL);
        ref_compare("probs", r.probs, n, v, cJSON_GetObjectItem(exp, "probs"), TOL);
    }
    assert_close_tol(r.loss, cJSON_GetObjectItem(exp, "loss")->valuedouble, TOL);
    const cJSON *grads = cJSON_GetObjectItem(exp, "grads");
    assert_int_equal(cJSON_GetArraySize(grads), m.n_tensors); // every parameter, no more
    for (int i = 0; i < m.n_tensors; i++) {
        const model_tensor *t = &m.tensor[i];
        char path[64];
        tensor_path(path, sizeof path, t);
        snprintf(what, sizeof what, "%s grad %s", name, path);
        ref_compare(what, r.grad_block_ + t->offset, t->rows, t->cols, cJSON_GetObjectItem(grads, path), TOL);
    }
    model_result_free(&r);
    model_free(&m);
    cJSON_Delete(root);
}

/* Issue 24: a model with grouped-query attention (4 heads, 2 kv-heads) against
 * PyTorch with K and V repeat_interleave'd per group: the stages, the loss and
 * every gradient, the shared K and V's being the sum over their group. */
static void test_grouped_query_model(void **state) {
    (void)state;
    cJSON *root = ref_json("gqa_ref_model_token.json");
    model m;
    load_model(&m, "gqa_ref_model_token.model.json");
    assert_int_equal(m.cfg.kv_heads, 2);
    const char *sentence = cJSON_GetObjectItem(root, "sentence")->valuestring;
    const cJSON *tj = cJSON_GetObjectItem(root, "targets"), *exp = cJSON_GetObjectItem(root, "expected");
    model_target_spec spec[8];
    int count = cJSON_GetArraySize(tj);
    for (int k = 0; k < count; k++) {
        const cJSON *t = cJSON_GetArrayItem(tj, k);
        spec[k] = (model_target_spec){cJSON_GetArrayItem(t, 0)->valueint, cJSON_GetArrayItem(t, 1)->valuestring};
    }
    model_result r = {0};
    attn_err err;
    if (model_run(&r, &m, sentence, strlen(sentence), spec, count, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int n = r.n, dm = m.cfg.d_model, dk = m.cfg.d_k;
    char what[160];
    for (int l = 0; l < m.cfg.layers; l++) {
        const cJSON *lj = cJSON_GetArrayItem(cJSON_GetObjectItem(exp, "layers"), l);
        snprintf(what, sizeof what, "gqa layer %d output", l);
        ref_compare(what, r.layer[l].output, n, dm, cJSON_GetObjectItem(lj, "output"), TOL);
        snprintf(what, sizeof what, "gqa layer %d residual", l);
        ref_compare(what, r.residual[l], n, dm, cJSON_GetObjectItem(lj, "residual"), TOL);
        for (int h = 0; h < m.cfg.heads; h++) {
            const cJSON *hj = cJSON_GetArrayItem(cJSON_GetObjectItem(lj, "heads"), h);
            const attn_head *hd = &r.layer[l].head[h];
            const char *keys[] = {"Q", "K", "V", "weights", "Z"};
            const double *vals[] = {hd->q, hd->k, hd->v, hd->weights, hd->z};
            int cols[] = {dk, dk, dk, n, dk};
            for (int s = 0; s < 5; s++) {
                snprintf(what, sizeof what, "gqa layer %d head %d %s", l, h, keys[s]);
                ref_compare(what, vals[s], n, cols[s], cJSON_GetObjectItem(hj, keys[s]), TOL);
            }
        }
    }
    ref_compare("gqa logits", r.logits, n, m.vocab_count, cJSON_GetObjectItem(exp, "logits"), TOL);
    assert_close_tol(r.loss, cJSON_GetObjectItem(exp, "loss")->valuedouble, TOL);
    const cJSON *grads = cJSON_GetObjectItem(exp, "grads");
    assert_int_equal(cJSON_GetArraySize(grads), m.n_tensors); // one W_K, W_V, b_K, b_V per group
    for (int i = 0; i < m.n_tensors; i++) {
        const model_tensor *t = &m.tensor[i];
        char path[64];
        tensor_path(path, sizeof path, t);
        snprintf(what, sizeof what, "gqa grad %s", path);
        ref_compare(what, r.grad_block_ + t->offset, t->rows, t->cols, cJSON_GetObjectItem(grads, path), TOL);
    }
    model_result_free(&r);
    model_free(&m);
    cJSON_Delete(root);
}

static void test_forward_loss_gradients(void **state) {
    (void)state;
    check_case("token_learned_causal_bias");
    check_case("pointer_sinusoidal");
    check_case("pointer_none_window_noscale");
}

/* Three steps of AdamW on a batch of three sentences, as torch.optim.AdamW. */
static void test_adamw_steps(void **state) {
    (void)state;
    cJSON *root = ref_json("model_ref_adamw_token.json");
    model m;
    load_model(&m, "model_ref_adamw_token.model.json");
    double *grad = calloc(m.n_params, sizeof(double));
    model_ws ws;
    model_adamw opt;
    attn_err err;
    assert_int_equal(model_ws_init(&ws, &m, grad, NULL), ATTN_OK);
    assert_int_equal(model_adamw_init(&opt, m.n_params, NULL), ATTN_OK);
    const cJSON *batch = cJSON_GetObjectItem(root, "batch"), *exp = cJSON_GetObjectItem(root, "expected");
    double lr = cJSON_GetObjectItem(root, "lr")->valuedouble, wd = cJSON_GetObjectItem(root, "weight_decay")->valuedouble;
    int total = 0;
    for (int e = 0; e < cJSON_GetArraySize(batch); e++)
        total += cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(batch, e), "targets"));
    for (int step = 0; step < 3; step++) {
        memset(grad, 0, sizeof(double) * m.n_params);
        double loss = 0.0;
        for (int e = 0; e < cJSON_GetArraySize(batch); e++) {
            const cJSON *ex = cJSON_GetArrayItem(batch, e), *tj = cJSON_GetObjectItem(ex, "targets");
            const char *s = cJSON_GetObjectItem(ex, "sentence")->valuestring;
            attn_tokens toks;
            int ids[MODEL_MAX_LEN];
            model_target t[8];
            if (model_tokenize(&m, s, strlen(s), &toks, ids, &err) != ATTN_OK) fail_msg("%s", err.msg);
            for (int k = 0; k < cJSON_GetArraySize(tj); k++) {
                const cJSON *tk = cJSON_GetArrayItem(tj, k);
                const char *w = cJSON_GetArrayItem(tk, 1)->valuestring;
                t[k] = (model_target){cJSON_GetArrayItem(tk, 0)->valueint, model_word_id(&m, w, strlen(w))};
            }
            assert_int_equal(model_forward(&ws, ids, toks.n, NULL), ATTN_OK);
            assert_int_equal(model_loss(&ws, ids, t, cJSON_GetArraySize(tj), 1.0 / total, true, &loss, NULL), ATTN_OK);
            attn_tokens_free(&toks);
        }
        assert_close_tol(loss, cJSON_GetArrayItem(cJSON_GetObjectItem(exp, "losses"), step)->valuedouble, TOL);
        model_adamw_step(&opt, &m, grad, lr, wd);
    }
    const cJSON *params = cJSON_GetObjectItem(exp, "params");
    for (int i = 0; i < m.n_tensors; i++) {
        char path[64], what[96];
        tensor_path(path, sizeof path, &m.tensor[i]);
        snprintf(what, sizeof what, "after 3 AdamW steps, %s", path);
        ref_compare(what, m.block + m.tensor[i].offset, m.tensor[i].rows, m.tensor[i].cols, cJSON_GetObjectItem(params, path), TOL);
    }
    model_adamw_free(&opt);
    model_ws_free(&ws);
    free(grad);
    model_free(&m);
    cJSON_Delete(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_loss_gradients),
        cmocka_unit_test(test_grouped_query_model),
        cmocka_unit_test(test_adamw_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
