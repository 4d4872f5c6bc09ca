/* model_generate.c — a trained model continues a sentence with a KV cache per
 * layer (model_generate.h). */
#include "model_generate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"

bool model_can_generate(const model *m, const char **why) {
    const task_info *t = task_find(m->task);
    const char *no = m->cfg.objective != MODEL_OBJ_TOKEN ? "it points at positions (a pointer model), it does not "
                                                           "predict words"
                     : !t || !t->generates               ? "its task's answers are not the next token"
                     : m->cfg.mask.kind != ATTN_MASK_CAUSAL && m->cfg.mask.kind != ATTN_MASK_CAUSAL_WINDOW
                         ? "its mask lets a row see the tokens after it"
                         : NULL;
    if (why) *why = no;
    return no == NULL;
}

/* The caches of every layer: kv-head g of layer l at cache[l][g]. */
typedef struct {
    double *k[MODEL_MAX_LAYERS][ATTN_MAX_HEADS], *v[MODEL_MAX_LAYERS][ATTN_MAX_HEADS];
} caches;

/* Token t through every layer: x₀'s row, each layer's decode step and residual,
 * the readout's row. */
static attn_status decode_one(model_generation *g, model_ws *ws, caches *kv, int t, attn_err *err) {
    const model_config *c = &ws->cfg;
    int dm = c->d_model, hk = c->heads * c->d_k;
    double x[ATTN_MAX_D_MODEL], z[ATTN_MAX_HEADS * ATTN_MAX_D_K], out[ATTN_MAX_D_MODEL];
    const double *e = ws->w->e + (size_t)g->ids[t] * dm, *p = model_pos_row(ws, t);
    for (int j = 0; j < dm; j++) x[j] = c->pos == MODEL_POS_NONE ? e[j] : e[j] + p[j]; // as model_forward's pass 1
    attn_decode_step *sum = &g->step[t];
    memset(sum, 0, sizeof *sum);
    for (int l = 0; l < c->layers; l++) {
        const model_layer_params *lp = &ws->w->layer[l];
        attn_decode_step rec;
        attn_status st = attn_decode_token(&rec, z, NULL, kv->k[l], kv->v[l], ws->head[l], x, t, &ws->acfg, err);
        if (st != ATTN_OK) return st;
        attn_matmul(out, z, lp->mat[ATTN_MAT_W_O][0], lp->mat[ATTN_MAT_B_O][0], 1, hk, dm);
        for (int j = 0; j < dm; j++) x[j] += out[j]; // the residual, as model_forward's pass 2
        if ((st = attn_check_finite(x, (size_t)dm, "residual", err)) != ATTN_OK) return st;
        sum->first = rec.first, sum->cache_len = rec.cache_len, sum->cells = rec.cells, sum->cells_read = rec.cells_read;
        sum->evicted = rec.evicted;
        sum->macs += rec.macs;
        sum->full_macs += attn_decode_full_macs(&ws->acfg, t + 1);
    }
    sum->macs_total = sum->macs + (t ? g->step[t - 1].macs_total : 0);
    sum->full_total = sum->full_macs + (t ? g->step[t - 1].full_total : 0);
    sum->cache_bytes = attn_kv_cache_bytes(c->layers, attn_kv_heads(&ws->acfg), c->d_k, sum->cache_len, 8); // rows kept
    sum->real_bytes = attn_kv_cache_bytes(ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                                          t + 1, ATTN_DECODE_REAL_BYTES);
    // the readout's row (the model's own function) on the decoded last residual
    memcpy(ws->x[c->layers] + (size_t)t * dm, x, sizeof(double) * (size_t)dm);
    ws->n = t + 1;
    model_readout(ws, t, 1);
    memcpy(g->logits + (size_t)t * ws->vocab, ws->logits + (size_t)t * ws->vocab, sizeof(double) * (size_t)ws->vocab);
    return ATTN_OK;
}

static attn_status generate(model_generation *g, const model *m, const char *sentence, size_t len, int count,
                            model_ws *ws, attn_err *err) {
    attn_tokens toks = {0};
    attn_status st = model_tokenize(m, sentence, len, &toks, g->ids, err);
    g->n_prompt = toks.n;
    attn_tokens_free(&toks);
    if (st != ATTN_OK) return st;
    if (count > 0 && !model_can_generate(m, NULL)) { // with an id: the window says it in the UI's language
        const task_info *t = task_find(m->task);
        attn_msg id = m->cfg.objective != MODEL_OBJ_TOKEN ? ATTN_MSG_GENERATE_POINTER
                      : !t || !t->generates               ? ATTN_MSG_GENERATE_TASK
                                                          : ATTN_MSG_GENERATE_MASK; // model_can_generate's order
        return attn_fail_msg(err, ATTN_ERR_RANGE, id, m->task, NULL, NULL);
    }
    if (count > 0 && (st = model_check_positions(m, g->n_prompt + count, err)) != ATTN_OK) return st;
    if (g->n_prompt + count > m->cfg.max_len) {
        char a[16], b[16], c[16];
        snprintf(a, sizeof a, "%d", g->n_prompt);
        snprintf(b, sizeof b, "%d", count);
        snprintf(c, sizeof c, "%d", m->cfg.max_len);
        return attn_fail_msg(err, ATTN_ERR_RANGE, ATTN_MSG_GENERATE_MAX_LEN, a, b, c);
    }
    if ((st = model_ws_init(ws, m, NULL, err)) != ATTN_OK) return st;
    int G = attn_kv_heads(&ws->acfg), dk = m->cfg.d_k, max = m->cfg.max_len, v = m->vocab_count;
    size_t per_cache = (size_t)max * dk;
    g->block_ = calloc((size_t)max * v + (size_t)m->cfg.layers * G * 2 * per_cache, sizeof(double));
    if (!g->block_) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to generate.");
    g->logits = g->block_;
    caches kv;
    double *at = g->block_ + (size_t)max * v;
    for (int l = 0; l < m->cfg.layers; l++)
        for (int k = 0; k < G; k++) {
            kv.k[l][k] = at, at += per_cache;
            kv.v[l][k] = at, at += per_cache;
        }
    g->n = g->n_prompt;
    for (int t = 0; t < g->n_prompt + count; t++) {
        if (t >= g->n) { // the argmax of the last row becomes the next token
            const double *row = g->logits + (size_t)(t - 1) * v;
            int best = 0;
            for (int j = 1; j < v; j++)
                if (row[j] > row[best]) best = j; // ties go to the lowest index, as model_predict_row's
            g->ids[g->n++] = best;
            g->prob[t] = ws->probs[(size_t)(t - 1) * v + best];
        }
        if ((st = decode_one(g, ws, &kv, t, err)) != ATTN_OK) return st;
    }
    return ATTN_OK;
}

attn_status model_generate(model_generation *out, const model *m, const char *sentence, size_t len, int count,
                           attn_err *err) {
    model_generation g;
    model_ws ws;
    memset(&g, 0, sizeof g);
    memset(&ws, 0, sizeof ws);
    model_generation_free(out);
    attn_status st = generate(&g, m, sentence, len, count, &ws, err);
    model_ws_free(&ws);
    if (st != ATTN_OK) {
        model_generation_free(&g);
        return st;
    }
    *out = g;
    return ATTN_OK;
}

void model_generation_free(model_generation *g) {
    if (!g) return;
    free(g->block_);
    memset(g, 0, sizeof *g);
}
