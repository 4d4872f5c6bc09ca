/* model_forward.c — one example through every layer and back: the forward
 * with the core's attention, the two losses, and the backward through the
 * layers with the core's per-stage backward functions. */
#include "model.h"
#include "attn_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Carves the workspace out of one block; returns the doubles needed when base
 * is NULL. Forward stages first, then the stage gradients (one zeroed range). */
static size_t layout(model_ws *ws, double *base) {
    const model_config *c = &ws->cfg;
    size_t n = (size_t)c->max_len, dm = (size_t)c->d_model, dk = (size_t)c->d_k;
    size_t hk = (size_t)c->heads * dk, v = (size_t)ws->vocab, used = 0;
#define TAKE(ptr, count) \
    do { \
        if (base) (ptr) = base + used; \
        used += (count); \
    } while (0)
    TAKE(ws->pos, n * dm);
    for (int l = 0; l <= c->layers; l++) TAKE(ws->x[l], n * dm);
    for (int l = 0; l < c->layers; l++) {
        for (int h = 0; h < c->heads; h++) {
            attn_head *hd = &ws->head[l][h];
            TAKE(hd->q, n * dk);
            TAKE(hd->k, n * dk);
            TAKE(hd->v, n * dk);
            if (c->pos == MODEL_POS_ROPE) {
                TAKE(hd->q_rot, n * dk);
                TAKE(hd->k_rot, n * dk);
            }
            TAKE(hd->scores, n * n);
            TAKE(hd->scaled, n * n);
            TAKE(hd->masked, n * n);
            TAKE(hd->weights, n * n);
            TAKE(hd->z, n * dk);
        }
        TAKE(ws->concat[l], n * hk);
        TAKE(ws->output[l], n * dm);
    }
    TAKE(ws->avg, n * n);
    if (c->objective == MODEL_OBJ_TOKEN) {
        TAKE(ws->logits, n * v);
        TAKE(ws->probs, n * v);
    }
    ws->grad_start = used;
    for (int l = 0; l <= c->layers; l++) TAKE(ws->dx[l], n * dm);
    for (int l = 0; l < c->layers; l++) {
        for (int h = 0; h < c->heads; h++) {
            attn_head_grad *g = &ws->hg[l][h];
            TAKE(g->dz, n * dk);
            TAKE(g->d_weights, n * n);
            TAKE(g->d_scaled, n * n);
            TAKE(g->d_scores, n * n);
            TAKE(g->dq, n * dk);
            TAKE(g->dk, n * dk);
            TAKE(g->dv, n * dk);
        }
        TAKE(ws->d_concat[l], n * hk);
    }
    if (c->objective == MODEL_OBJ_TOKEN) TAKE(ws->dlogits, n * v);
    ws->grad_len = used - ws->grad_start;
#undef TAKE
    return used;
}

/* Points every head's weights at the model and its weight gradients at g. */
static void bind_weights(model_ws *ws) {
    const model_config *c = &ws->cfg;
    for (int l = 0; l < c->layers; l++)
        for (int h = 0; h < c->heads; h++) {
            const model_layer_params *p = &ws->w->layer[l];
            attn_head *hd = &ws->head[l][h];
            hd->w_q = p->mat[ATTN_MAT_W_Q][h];
            hd->w_k = p->mat[ATTN_MAT_W_K][h];
            hd->w_v = p->mat[ATTN_MAT_W_V][h];
            hd->b_q = p->mat[ATTN_MAT_B_Q][h]; // NULL without biases: attn_matmul adds none
            hd->b_k = p->mat[ATTN_MAT_B_K][h];
            hd->b_v = p->mat[ATTN_MAT_B_V][h];
            attn_head_grad *g = &ws->hg[l][h];
            const model_layer_params *gp = &ws->g.layer[l];
            g->dw_q = gp->mat[ATTN_MAT_W_Q][h];
            g->dw_k = gp->mat[ATTN_MAT_W_K][h];
            g->dw_v = gp->mat[ATTN_MAT_W_V][h];
            g->db_q = gp->mat[ATTN_MAT_B_Q][h];
            g->db_k = gp->mat[ATTN_MAT_B_K][h];
            g->db_v = gp->mat[ATTN_MAT_B_V][h];
        }
}

attn_status model_ws_init(model_ws *ws, const model *m, double *grad, attn_err *err) {
    memset(ws, 0, sizeof *ws);
    ws->cfg = m->cfg;
    model_attn_config(&ws->acfg, &m->cfg);
    ws->vocab = m->vocab_count;
    ws->w = &m->w;
    if (grad) model_params_bind(&ws->g, grad, m->tensor, m->n_tensors);
    ws->block = calloc(layout(ws, NULL), sizeof(double));
    if (!ws->block)
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the model's workspace.");
    layout(ws, ws->block);
    bind_weights(ws);
    // the sinusoids once, not per example (pow, sin and cos are the costly part of x₀)
    for (int p = 0; p < m->cfg.max_len && m->cfg.pos == MODEL_POS_SINUSOIDAL; p++) // from --pos-offset on
        attn_positional_row(ws->pos + (size_t)p * m->cfg.d_model, m->cfg.pos_offset + p, m->cfg.d_model);
    return ATTN_OK;
}

const double *model_pos_row(const model_ws *ws, int i) {
    size_t dm = (size_t)ws->cfg.d_model;
    return ws->cfg.pos == MODEL_POS_LEARNED ? ws->w->p + (size_t)(ws->cfg.pos_offset + i) * dm : ws->pos + (size_t)i * dm;
}

void model_ws_free(model_ws *ws) {
    if (!ws) return;
    free(ws->block);
    memset(ws, 0, sizeof *ws);
}

/* Names the layer in a stage's overflow message ("layer 2: The weights stage …"). */
static attn_status layer_error(attn_err *err, attn_status st, int l) {
    if (err) {
        char msg[sizeof err->msg];
        memcpy(msg, err->msg, sizeof msg);
        snprintf(err->msg, sizeof err->msg, "Layer %d: %.480s", l + 1, msg);
    }
    return st;
}

attn_status model_forward(model_ws *ws, const int *ids, int n, attn_err *err) {
    const model_config *c = &ws->cfg;
    int dm = c->d_model, dk = c->d_k, hk = c->heads * dk;
    if (n < 1 || n > c->max_len)
        return attn_fail(err, ATTN_ERR_RANGE, "An example has %d tokens; this model reads 1 to %d.", n, c->max_len);
    if (c->pos == MODEL_POS_LEARNED && c->pos_offset + n > c->max_len)
        return attn_fail(err, ATTN_ERR_RANGE, "Positions %d to %d are past the model's learned table (max_len %d).",
                         c->pos_offset, c->pos_offset + n - 1, c->max_len);
    ws->n = n;
    // pass 1: x₀ = E[token] + the position's row (zeros for none)
    for (int i = 0; i < n; i++) {
        const double *e = ws->w->e + (size_t)ids[i] * dm, *p = model_pos_row(ws, i);
        double *x = ws->x[0] + (size_t)i * dm;
        for (int j = 0; j < dm; j++) x[j] = model_pos_in_x(c->pos) ? e[j] + p[j] : e[j];
    }
    // pass 2: each layer is the core's attention, then the residual x + output
    for (int l = 0; l < c->layers; l++) {
        const model_layer_params *p = &ws->w->layer[l];
        for (int h = 0; h < c->heads; h++) {
            attn_status st = attn_head_forward(&ws->head[l][h], ws->x[l], n, &ws->acfg, err);
            if (st != ATTN_OK) return layer_error(err, st, l);
        }
        attn_concat_heads(ws->concat[l], ws->head[l], c->heads, n, dk);
        attn_matmul(ws->output[l], ws->concat[l], p->mat[ATTN_MAT_W_O][0], p->mat[ATTN_MAT_B_O][0], n, hk, dm);
        double *x = ws->x[l], *out = ws->output[l], *next = ws->x[l + 1];
        for (size_t i = 0; i < (size_t)n * dm; i++) next[i] = x[i] + out[i];
        attn_status st = attn_check_finite(next, (size_t)n * dm, "residual", err);
        if (st != ATTN_OK) return layer_error(err, st, l);
    }
    // pass 3: Ā, the last layer's weights averaged over its heads (the pointer's answer)
    const attn_head *last = ws->head[c->layers - 1];
    for (size_t k = 0; k < (size_t)n * n; k++) {
        double s = 0.0;
        for (int h = 0; h < c->heads; h++) s += last[h].weights[k];
        ws->avg[k] = s / c->heads;
    }
    return ATTN_OK;
}

/* ln Σ_j exp(l_j), computed as max + ln Σ_j exp(l_j − max) so that no
 * exponent overflows; −ln softmax(l)_y is then this minus l_y, exact even
 * where the probability itself would round to 0. */
static double log_sum_exp(const double *l, int v) {
    double mx = l[0], sum = 0.0;
    for (int j = 1; j < v; j++)
        if (l[j] > mx) mx = l[j];
    for (int j = 0; j < v; j++) sum += attn_exp(l[j] - mx);
    return mx + attn_log(sum);
}

void model_readout(model_ws *ws, int first, int count) {
    if (ws->cfg.objective != MODEL_OBJ_TOKEN) return;
    int dm = ws->cfg.d_model, v = ws->vocab;
    const double *xl = ws->x[ws->cfg.layers] + (size_t)first * dm;
    double *logits = ws->logits + (size_t)first * v, *probs = ws->probs + (size_t)first * v;
    // logits = x_L·U + b_U on the rows asked for, then a row softmax
    attn_matmul(logits, xl, ws->w->u, ws->w->b_u, count, dm, v);
    for (int i = 0; i < count; i++) {
        const double *li = logits + (size_t)i * v;
        double *pi = probs + (size_t)i * v, lse = log_sum_exp(li, v);
        for (int j = 0; j < v; j++) pi[j] = attn_exp(li[j] - lse);
    }
}

int model_predict_row(const model_ws *ws, int i) {
    int cols = ws->cfg.objective == MODEL_OBJ_TOKEN ? ws->vocab : ws->n;
    const double *row = ws->cfg.objective == MODEL_OBJ_TOKEN ? ws->logits + (size_t)i * cols
                                                             : ws->avg + (size_t)i * cols;
    int best = 0;
    for (int j = 1; j < cols; j++)
        if (row[j] > row[best]) best = j; // strictly larger: ties go to the lowest index
    return best;
}

/* Adds each target's loss (scaled) into *loss and, when backward, its
 * gradient at the readout (dlogits) or at the last layer's weights. */
static attn_status loss_terms(model_ws *ws, const model_target *t, int count, double scale,
                              bool backward, double *loss, attn_err *err) {
    const model_config *c = &ws->cfg;
    int n = ws->n, v = ws->vocab;
    for (int k = 0; k < count; k++) {
        int i = t[k].row, y = t[k].target;
        int limit = c->objective == MODEL_OBJ_TOKEN ? v : n;
        if (i < 0 || i >= n || y < 0 || y >= limit)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MF_TARGET_OUTSIDE,
                                k, i, y);
        if (c->objective == MODEL_OBJ_TOKEN) {
            // −ln softmax(logits)[y]; its gradient is (probs − onehot(y)) · scale
            model_readout(ws, i, 1);
            const double *p = ws->probs + (size_t)i * v, *li = ws->logits + (size_t)i * v;
            *loss += (log_sum_exp(li, v) - li[y]) * scale;
            if (!backward) continue;
            double *dl = ws->dlogits + (size_t)i * v;
            for (int j = 0; j < v; j++) dl[j] += (p[j] - (j == y ? 1.0 : 0.0)) * scale;
        } else {
            // −ln Ā_iy with Ā = (1/H) Σ_h A_h: ∂/∂A_h,iy = −1 / (H · Ā_iy)
            if (!attn_mask_allows(c->mask, i, y))
                return attn_fail(err, ATTN_ERR_RANGE,
                                 "The model's mask hides position %d from row %d, so it cannot be the answer.", y, i);
            double a = ws->avg[(size_t)i * n + y];
            *loss += -attn_log(a) * scale;
            if (!backward) continue;
            for (int h = 0; h < c->heads; h++)
                ws->hg[c->layers - 1][h].d_weights[(size_t)i * n + y] += -scale / (c->heads * a);
        }
    }
    if (!isfinite(*loss))
        return attn_fail_id(err, ATTN_ERR_NONFINITE, ATTN_MSG_LOSS_NONFINITE);
    return ATTN_OK;
}

/* ∂L/∂x_L from the readout rows: dx += dlogits·Uᵀ, dU += x_Lᵀ·dlogits, db_U += Σ dlogits. */
static void readout_backward(model_ws *ws, const model_target *t, int count) {
    int dm = ws->cfg.d_model, v = ws->vocab, l = ws->cfg.layers;
    for (int k = 0; k < count; k++) {
        int i = t[k].row;
        bool seen = false; // a row given twice has its dlogits summed once already
        for (int q = 0; q < k; q++) seen |= t[q].row == i;
        if (seen) continue;
        attn_matmul_backward(ws->dx[l] + (size_t)i * dm, ws->g.u, ws->g.b_u, ws->dlogits + (size_t)i * v,
                             ws->x[l] + (size_t)i * dm, ws->w->u, 1, dm, v);
    }
}

/* The layers, last to first: residual, W_O, the split of concat, each head. */
static void layers_backward(model_ws *ws) {
    const model_config *c = &ws->cfg;
    int n = ws->n, dm = c->d_model, dk = c->d_k, hk = c->heads * dk;
    for (int l = c->layers - 1; l >= 0; l--) {
        const model_layer_params *p = &ws->w->layer[l];
        model_layer_params *gp = &ws->g.layer[l];
        // residual x_{l+1} = x_l + output: both get ∂L/∂x_{l+1} whole
        double *dnext = ws->dx[l + 1], *dx = ws->dx[l];
        for (size_t i = 0; i < (size_t)n * dm; i++) dx[i] += dnext[i];
        // output = concat·W_O (+ b_O)
        attn_matmul_backward(ws->d_concat[l], gp->mat[ATTN_MAT_W_O][0], gp->mat[ATTN_MAT_B_O][0], dnext,
                             ws->concat[l], p->mat[ATTN_MAT_W_O][0], n, hk, dm);
        // concat: head h's Z sits in columns [h·d_k, (h+1)·d_k)
        for (int h = 0; h < c->heads; h++)
            for (int i = 0; i < n; i++)
                memcpy(ws->hg[l][h].dz + (size_t)i * dk, ws->d_concat[l] + (size_t)i * hk + (size_t)h * dk,
                       sizeof(double) * (size_t)dk);
        for (int h = 0; h < c->heads; h++)
            attn_head_backward(&ws->hg[l][h], dx, &ws->head[l][h], ws->x[l], n, &ws->acfg);
    }
}

/* x₀ = E[token] + positions: each row's gradient goes to its token's row of E
 * (and to P's row of its position when positions are learned). */
static void embed_backward(model_ws *ws, const int *ids) {
    int dm = ws->cfg.d_model;
    for (int i = 0; i < ws->n; i++) {
        const double *d = ws->dx[0] + (size_t)i * dm;
        double *de = ws->g.e + (size_t)ids[i] * dm;
        for (int j = 0; j < dm; j++) de[j] += d[j];
        if (ws->cfg.pos != MODEL_POS_LEARNED) continue;
        double *dp = ws->g.p + (size_t)(ws->cfg.pos_offset + i) * dm; // the row of the token's position
        for (int j = 0; j < dm; j++) dp[j] += d[j];
    }
}

attn_status model_loss(model_ws *ws, const int *ids, const model_target *t, int count, double scale,
                       bool backward, double *loss, attn_err *err) {
    if (backward) memset(ws->block + ws->grad_start, 0, sizeof(double) * ws->grad_len);
    attn_status st = loss_terms(ws, t, count, scale, backward, loss, err);
    if (st != ATTN_OK || !backward || !ws->g.e) return st;
    if (ws->cfg.objective == MODEL_OBJ_TOKEN) readout_backward(ws, t, count);
    layers_backward(ws);
    embed_backward(ws, ids);
    return ATTN_OK;
}
