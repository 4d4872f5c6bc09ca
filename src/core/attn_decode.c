/* attn_decode.c — decoding with a KV cache (attn_decode.h). */
#include "attn_decode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long long attn_kv_cache_bytes(int layers, int kv_heads, int d_k, long long tokens, int bytes_per_value) {
    return 2LL * layers * kv_heads * d_k * tokens * bytes_per_value;
}

long long attn_decode_full_macs(const attn_config *c, int n) {
    long long m[ATTN_STAGE_COUNT], total = 0;
    attn_count_macs(m, c, n);
    for (int s = 0; s < ATTN_STAGE_COUNT; s++) total += m[s];
    return total;
}

/* The multiply-adds of one token's rows: attn_count_macs' rules for one
 * query row against cells keys. */
static long long step_macs(const attn_config *c, int cells) {
    long long dm = c->d_model, dk = c->d_k, h = c->heads, g = attn_kv_heads(c);
    return h * dm * dk + 2 * g * dm * dk      // q of every head; k and v of every kv-head
           + (c->rope ? 2 * (h + g) * dk : 0) // RoPE: q of every head, k of every kv-head, 2 products each
           + h * cells * dk                   // scores
           + (c->scale ? h * cells : 0)       // one division each
           + h * cells                        // softmax: one exp and one add each
           + h * cells * dk                   // z = a·V
           + h * dk * dm;                     // the output row: concat·W_O
}

static attn_status check(const double *v, size_t count, attn_stage s, attn_err *err) {
    return attn_check_finite(v, count, attn_stage_name(s), err);
}

attn_status attn_decode_token(attn_decode_step *rec, double *z_row, double *const *a_rows, double *const *k_cache,
                              double *const *v_cache, const attn_head *heads, const double *x, int step,
                              const attn_config *c, attn_err *err) {
    int dm = c->d_model, dk = c->d_k, G = attn_kv_heads(c);
    rec->first = c->mask.kind == ATTN_MASK_CAUSAL_WINDOW && step > c->mask.window ? step - c->mask.window : 0;
    bool sliding = c->mask.kind == ATTN_MASK_CAUSAL_WINDOW; // the next token reads the W newest rows: keep those
    rec->cache_len = sliding && step + 1 > c->mask.window ? c->mask.window : step + 1;
    rec->evicted = step + 1 - rec->cache_len;
    rec->cells = step + 1 - rec->first;
    rec->cells_read = rec->cells - 1;
    // pass 1: each kv-head's new k and v row joins its cache (once for its whole group)
    for (int g = 0; g < G; g++) {
        const attn_head *lead = &heads[g * (c->heads / G)];
        double *k = k_cache[g] + (size_t)step * dk, *v = v_cache[g] + (size_t)step * dk;
        attn_matmul(k, x, lead->w_k, lead->b_k, 1, dm, dk);
        attn_matmul(v, x, lead->w_v, lead->b_v, 1, dm, dk);
        if (c->rope) attn_rope(k, k, 1, dk, c->pos_offset + step, c->rope_base); // the cache keeps rotated keys
        attn_status st = check(k, (size_t)dk, ATTN_ST_K, err);
        if (st == ATTN_OK) st = check(v, (size_t)dk, ATTN_ST_V, err);
        if (st != ATTN_OK) return st;
    }
    for (int h = 0; h < c->heads; h++) {
        const attn_head *hd = &heads[h];
        int g = attn_kv_head_of(c, h), len = rec->cells;
        const double *kc = k_cache[g] + (size_t)rec->first * dk, *vc = v_cache[g] + (size_t)rec->first * dk;
        double q[ATTN_MAX_D_K], s[ATTN_MAX_TOKENS], a_own[ATTN_MAX_TOKENS];
        double *a = a_rows ? a_rows[h] + rec->first : a_own;
        double *z = z_row + (size_t)h * dk;
        // pass 2: the new query row, its 1×len scores against the cache, scaled and masked
        attn_matmul(q, x, hd->w_q, hd->b_q, 1, dm, dk);
        if (c->rope) attn_rope(q, q, 1, dk, c->pos_offset + step, c->rope_base); // at the token's position
        attn_status st = check(q, (size_t)dk, ATTN_ST_Q, err);
        if (st != ATTN_OK) return st;
        attn_scores_rows(s, q, kc, 0, 1, len, dk);
        if ((st = check(s, (size_t)len, ATTN_ST_SCORES, err)) != ATTN_OK) return st;
        if (c->scale) attn_scale_count(s, s, (size_t)len, dk);
        for (int j = 0; j < len; j++) // every cell read is allowed; the mask is the same rule as the full path's
            if (!attn_mask_allows(c->mask, step, rec->first + j)) s[j] = -INFINITY;
        // pass 3: the softmax row and z's row
        attn_softmax_row(a, s, len);
        attn_matmul(z, a, vc, NULL, 1, len, dk);
        if ((st = check(z, (size_t)dk, ATTN_ST_Z, err)) != ATTN_OK) return st;
    }
    rec->macs = step_macs(c, rec->cells);
    return ATTN_OK;
}

/* Step t of the trace's layer: the token's rows, then its totals and the cache's bytes. */
static attn_status decode_step(attn_decode *d, const attn_trace *t, int step, attn_err *err) {
    const attn_config *c = &t->cfg;
    int dk = c->d_k, n = t->n;
    attn_decode_step *rec = &d->step[step];
    double z[ATTN_MAX_HEADS * ATTN_MAX_D_K], *a[ATTN_MAX_HEADS];
    for (int h = 0; h < d->heads; h++) a[h] = d->weights[h] + (size_t)step * n;
    attn_status st = attn_decode_token(rec, z, a, d->k_cache, d->v_cache, t->head, t->x + (size_t)step * c->d_model,
                                       step, c, err);
    if (st != ATTN_OK) return st;
    for (int h = 0; h < d->heads; h++) memcpy(d->z[h] + (size_t)step * dk, z + (size_t)h * dk, sizeof(double) * (size_t)dk);
    rec->full_macs = attn_decode_full_macs(c, step + 1);
    rec->macs_total = rec->macs + (step ? d->step[step - 1].macs_total : 0);
    rec->full_total = rec->full_macs + (step ? d->step[step - 1].full_total : 0);
    rec->cache_bytes = attn_kv_cache_bytes(d->layers, d->kv_heads, dk, rec->cache_len, 8); // the rows kept
    rec->real_bytes = attn_kv_cache_bytes(ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                                          step + 1, ATTN_DECODE_REAL_BYTES);
    return ATTN_OK;
}

attn_status attn_decode_run(attn_decode *out, const attn_trace *t, attn_err *err) {
    const attn_config *c = &t->cfg;
    attn_decode d;
    memset(&d, 0, sizeof d);
    attn_decode_free(out);
    if (c->mask.kind != ATTN_MASK_CAUSAL && c->mask.kind != ATTN_MASK_CAUSAL_WINDOW) {
        char mask[32];
        attn_mask_format(mask, sizeof mask, c->mask);
        return attn_fail_msg(err, ATTN_ERR_RANGE, ATTN_MSG_DECODE_MASK, mask, NULL, NULL);
    }
    d.n = t->n, d.heads = c->heads, d.kv_heads = attn_kv_heads(c), d.d_k = c->d_k, d.layers = 1;
    d.window = c->mask.kind == ATTN_MASK_CAUSAL_WINDOW ? c->mask.window : 0;
    size_t n = (size_t)t->n, dk = (size_t)c->d_k;
    size_t per_head = n * dk + n * n, per_kv = 2 * n * dk;
    d.block_ = calloc((size_t)d.heads * per_head + (size_t)d.kv_heads * per_kv, sizeof(double));
    if (!d.block_) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to decode %d tokens.", t->n);
    double *p = d.block_;
    for (int h = 0; h < d.heads; h++, p += per_head) d.z[h] = p, d.weights[h] = p + n * dk;
    for (int g = 0; g < d.kv_heads; g++, p += per_kv) d.k_cache[g] = p, d.v_cache[g] = p + n * dk;
    for (int step = 0; step < t->n; step++) {
        attn_status st = decode_step(&d, t, step, err);
        if (st != ATTN_OK) {
            attn_decode_free(&d);
            return st;
        }
    }
    *out = d;
    return ATTN_OK;
}

void attn_decode_free(attn_decode *d) {
    if (!d) return;
    free(d->block_);
    memset(d, 0, sizeof *d);
}

double attn_decode_max_rel_diff(const attn_decode *d, const attn_trace *t) {
    double worst = 0;
    for (int h = 0; h < d->heads; h++)
        for (size_t i = 0; i < (size_t)d->n * d->d_k; i++) {
            double z = t->head[h].z[i], rel = fabs(d->z[h][i] - z) / (fabs(z) > 1 ? fabs(z) : 1);
            if (rel > worst) worst = rel;
        }
    return worst;
}
