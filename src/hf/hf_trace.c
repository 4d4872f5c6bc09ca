/* hf_trace.c — a layer of a GPT-2 run as the core's attn_trace (hf_trace.h). */
#include "hf_trace.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* The tokens: their labels one after another, each marked when another
 * token has the same label (attn_token_label then numbers it). */
static attn_status trace_tokens(attn_tokens *t, const hf_tokens *toks, attn_err *err) {
    attn_strbuf b;
    attn_sb_init(&b);
    t->n = toks->count;
    for (int i = 0; i < toks->count; i++) {
        t->off[i] = (int)b.len;
        attn_sb_puts(&b, toks->v[i].label);
        t->len[i] = (int)b.len - t->off[i];
    }
    t->text_len = b.len;
    t->text = attn_sb_take(&b);
    if (!t->text) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the tokens' labels.");
    for (int i = 0; i < t->n; i++)
        for (int j = i + 1; j < t->n; j++)
            if (t->len[i] == t->len[j] && memcmp(t->text + t->off[i], t->text + t->off[j], (size_t)t->len[i]) == 0)
                t->repeated[i] = t->repeated[j] = 1;
    return ATTN_OK;
}

attn_status hf_trace_layer(attn_trace *out, const hf_model *m, const hf_run *r, const hf_tokens *toks, int layer,
                           attn_err *err) {
    attn_trace_free(out);
    int n = r->n, d = r->d, dk = r->d_k, H = r->n_head;
    if (layer < 0 || layer >= r->n_layer)
        return attn_fail(err, ATTN_ERR_RANGE, "Layer %d does not exist: layers are 0 to %d.", layer, r->n_layer - 1);
    if (H > ATTN_TRACE_MAX_HEADS || n > ATTN_TRACE_MAX_TOKENS || d > ATTN_EXPLAIN_MAX_TERMS ||
        r->n_inner > ATTN_EXPLAIN_MAX_TERMS)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_HT_LIMITS,
                            ATTN_TRACE_MAX_HEADS, ATTN_EXPLAIN_MAX_TERMS, ATTN_TRACE_MAX_TOKENS, H, d, r->n_inner, n);
    if (!toks || toks->count != n)
        return attn_fail(err, ATTN_ERR_RANGE, "The tokens (%d) are not the run's (%d).", toks ? toks->count : 0, n);
    const hf_layer_run *L = &r->layer[layer];
    const hf_block *bl = &m->block[layer];
    attn_trace t;
    memset(&t, 0, sizeof t);
    // shapes: per head W_Q, W_K, W_V (d, dk) and b_Q, b_K, b_V (dk); W_O (d, d), b_O (d)
    size_t per_head = 3 * (size_t)d * dk + 3 * (size_t)dk, count = (size_t)H * per_head + (size_t)d * d + (size_t)d;
    t.block_ = malloc(sizeof(double) * count);
    if (!t.block_) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for layer %d's weights.", layer);
    attn_status st = trace_tokens(&t.tokens, toks, err);
    if (st != ATTN_OK) {
        attn_trace_free(&t);
        return st;
    }
    t.cfg = r->acfg;
    t.cfg.heads = H;
    t.cfg.bias = true;
    t.cfg.pos_enc = false;
    t.cfg.rope = false;
    t.n = n;
    t.vocab_rows = 0;
    t.vocab_used = false;
    for (int i = 0; i < ATTN_TRACE_MAX_TOKENS; i++) t.vocab_index[i] = -1;
    t.x_given = true;
    t.source = ATTN_SRC_EXPLICIT;
    t.x = L->x;
    t.concat = L->concat;
    t.output = L->output;
    // pass 1: each head's stages from the run, its columns of c_attn as doubles
    double *p = t.block_;
    size_t width = (size_t)3 * d;
    for (int h = 0; h < H; h++) {
        attn_head *hd = &t.head[h];
        *hd = L->head[h];
        double **w[] = {&hd->w_q, &hd->w_k, &hd->w_v}, **bias[] = {&hd->b_q, &hd->b_k, &hd->b_v};
        for (int k = 0; k < 3; k++) {
            *w[k] = p;
            for (int row = 0; row < d; row++, p += dk)
                hf_tensor_read(bl->attn_w, (size_t)row * width + (size_t)(k * d + h * dk), (size_t)dk, p);
        }
        for (int k = 0; k < 3; k++) {
            *bias[k] = p;
            hf_tensor_read(bl->attn_b, (size_t)(k * d + h * dk), (size_t)dk, p);
            p += dk;
        }
        for (int mt = 0; mt < ATTN_MAT_COUNT; mt++)
            if (attn_matrix_per_head((attn_matrix)mt)) t.given[mt][h] = true;
    }
    // pass 2: c_proj as W_O and b_O
    t.w_o = p;
    hf_tensor_read(bl->attn_proj_w, 0, (size_t)d * d, p);
    p += (size_t)d * d;
    t.b_o = p;
    hf_tensor_read(bl->attn_proj_b, 0, (size_t)d, p);
    t.given[ATTN_MAT_W_O][0] = t.given[ATTN_MAT_B_O][0] = true;
    attn_count_macs(t.macs, &t.cfg, n);
    *out = t;
    return ATTN_OK;
}

attn_status hf_explain_ln1(hf_ln_explanation *e, const hf_model *m, const hf_run *r, int layer, int row, int col,
                           attn_err *err) {
    if (layer < 0 || layer >= r->n_layer)
        return attn_fail(err, ATTN_ERR_RANGE, "Layer %d does not exist: layers are 0 to %d.", layer, r->n_layer - 1);
    if (row < 0 || row >= r->n || col < 0 || col >= r->d)
        return attn_fail(err, ATTN_ERR_RANGE, "X[%d][%d] is outside X: rows 0 to %d, columns 0 to %d.", row, col,
                         r->n - 1, r->d - 1);
    const hf_layer_run *L = &r->layer[layer];
    int d = r->d;
    const double *x = L->resid_pre + (size_t)row * d;
    // the loops of hf_layer_norm: mean, then the biased variance
    double mean = 0.0, var = 0.0;
    for (int c = 0; c < d; c++) mean += x[c];
    mean /= d;
    for (int c = 0; c < d; c++) var += (x[c] - mean) * (x[c] - mean);
    var /= d;
    memset(e, 0, sizeof *e);
    e->x = x[col];
    e->mean = mean;
    e->var = var;
    e->eps = m->cfg.eps;
    e->width = d;
    hf_tensor_read(m->block[layer].ln1_w, (size_t)col, 1, &e->w);
    hf_tensor_read(m->block[layer].ln1_b, (size_t)col, 1, &e->b);
    e->value = L->x[(size_t)row * d + col];
    return ATTN_OK;
}
