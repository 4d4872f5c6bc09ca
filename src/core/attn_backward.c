/* attn_backward.c — the backward of every stage of attn_stages.c and of one
 * head (attn_head_forward), as plain loops in the forward's style. Each
 * function adds into its gradients (see attn_grad.h). */
#include "attn_grad.h"

#include <math.h>
#include <string.h>

/* true when all m entries of g are exactly 0. */
static bool all_zero(const double *g, int m) {
    for (int j = 0; j < m; j++)
        if (g[j] != 0.0) return false;
    return true;
}

void attn_matmul_backward(double *da, double *db, double *dbias, const double *dout,
                          const double *a, const double *b, int n, int k, int m) {
    // a: (n, k), b: (k, m), dout: (n, m); out[i][j] = bias[j] + Σ_c a[i][c]·b[c][j]
    for (int i = 0; i < n; i++) {
        const double *gi = dout + (size_t)i * m;
        const double *ai = a + (size_t)i * k;
        // a loss that reads a few rows (the pronoun's) leaves the other rows' gradients
        // exactly 0; skipping them changes no bit (a sum plus 0·x is the same sum)
        if (all_zero(gi, m)) continue;
        // pass 1: the bias is added to every row, so its gradient is the column sum
        if (dbias)
            for (int j = 0; j < m; j++) dbias[j] += gi[j];
        // pass 2: da[i][c] += Σ_j dout[i][j]·b[c][j], accumulated j by j into the
        // row of da so that no add waits for the previous one
        if (da)
            for (int j = 0; j < m; j++) {
                double g = gi[j];
                double *dai = da + (size_t)i * k;
                for (int c = 0; c < k; c++) dai[c] += g * b[(size_t)c * m + j];
            }
        // pass 3: db[c][j] += a[i][c]·dout[i][j], walking db row by row like the forward
        if (db)
            for (int c = 0; c < k; c++) {
                double *dbc = db + (size_t)c * m;
                double aic = ai[c];
                for (int j = 0; j < m; j++) dbc[j] += aic * gi[j];
            }
    }
}

void attn_scores_backward(double *dq, double *dk, const double *ds, const double *q,
                          const double *k, int n, int d) {
    // q, k, dq, dk: (n, d); ds: (n, n); s[i][j] = Σ_c q[i][c]·k[j][c]
    for (int i = 0; i < n; i++) {
        const double *qi = q + (size_t)i * d;
        double *dqi = dq + (size_t)i * d;
        for (int j = 0; j < n; j++) {
            double g = ds[(size_t)i * n + j];
            if (g == 0.0) continue; // masked, or a row the loss does not read: adds nothing
            const double *kj = k + (size_t)j * d;
            double *dkj = dk + (size_t)j * d;
            // s[i][j] touches row i of q and row j of k, each weighted by the other
            for (int c = 0; c < d; c++) {
                dqi[c] += g * kj[c];
                dkj[c] += g * qi[c];
            }
        }
    }
}

void attn_scale_backward(double *ds, const double *dout, int n, int d_k) {
    // ds, dout: (n, n); a constant divisor passes the gradient through divided
    double div = sqrt((double)d_k);
    for (size_t i = 0; i < (size_t)n * n; i++) ds[i] += dout[i] / div;
}

void attn_mask_backward(double *d, attn_mask m, int n) {
    // d: (n, n)
    if (m.kind == ATTN_MASK_NONE) return; // nothing is hidden
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (!attn_mask_allows(m, i, j)) d[(size_t)i * n + j] = 0.0;
}

void attn_softmax_rows_backward(double *dt, const double *da, const double *a, int n) {
    // a, da, dt: (n, n). With a_ij = exp(t_ij) / Σ_k exp(t_ik), ∂a_ik/∂t_ij =
    // a_ik·([k = j] − a_ij), so dt_ij = Σ_k da_ik·a_ik·([k = j] − a_ij)
    //                                  = a_ij·(da_ij − Σ_k a_ik·da_ik).
    // The row's dot product is computed once, making the row O(n), not O(n²).
    for (int i = 0; i < n; i++) {
        const double *ai = a + (size_t)i * n, *dai = da + (size_t)i * n;
        double *dti = dt + (size_t)i * n;
        // pass 1: Σ_k a_ik·da_ik, the gradient's share every entry gives back
        double dot = 0.0;
        for (int k = 0; k < n; k++) dot += ai[k] * dai[k];
        // pass 2: each entry's own term minus that share, weighted by a_ij
        for (int j = 0; j < n; j++) dti[j] += ai[j] * (dai[j] - dot);
    }
}

void attn_weighted_sum_backward(double *da, double *dv, const double *dz, const double *a,
                                const double *v, int n, int d) {
    // a: (n, n), v, dz: (n, d); z = a·v is a matmul without bias
    attn_matmul_backward(da, dv, NULL, dz, a, v, n, n, d);
}

/* dst += src over count entries. */
static void add_into(double *dst, const double *src, size_t count) {
    for (size_t i = 0; i < count; i++) dst[i] += src[i];
}

void attn_head_backward(attn_head_grad *g, double *dx, const attn_head *hd, const double *x,
                        int n, const attn_config *c) {
    // x, dx: (n, d_model); q, k, v and their gradients: (n, d_k); the rest (n, n).
    // The passes of attn_head_forward, undone in reverse order.
    int dm = c->d_model, dk = c->d_k;
    // pass 3 undone: Z = A·V, then A = softmax(masked)
    attn_weighted_sum_backward(g->d_weights, g->dv, g->dz, hd->weights, hd->v, n, dk);
    attn_softmax_rows_backward(g->d_scaled, g->d_weights, hd->weights, n);
    // pass 2 undone: the mask (masked entries get 0), the scaling, the scores
    attn_mask_backward(g->d_scaled, c->mask, n);
    if (c->scale) attn_scale_backward(g->d_scores, g->d_scaled, n, dk);
    else add_into(g->d_scores, g->d_scaled, (size_t)n * n); // scaled was a copy of scores
    if (c->rope) {                                          // the scores were q_rot·k_rotᵀ: their gradients, turned back through the rotation
        attn_scores_backward(g->dq, g->dk, g->d_scores, hd->q_rot, hd->k_rot, n, dk);
        attn_rope_backward(g->dq, g->dq, n, dk, c->pos_offset, c->rope_base);
        attn_rope_backward(g->dk, g->dk, n, dk, c->pos_offset, c->rope_base);
    } else {
        attn_scores_backward(g->dq, g->dk, g->d_scores, hd->q, hd->k, n, dk);
    }
    // pass 1 undone: the projections Q, K, V = X·W (+ b); X feeds all three
    const bool bias = c->bias;
    attn_matmul_backward(dx, g->dw_q, bias ? g->db_q : NULL, g->dq, x, hd->w_q, n, dm, dk);
    attn_matmul_backward(dx, g->dw_k, bias ? g->db_k : NULL, g->dk, x, hd->w_k, n, dm, dk);
    attn_matmul_backward(dx, g->dw_v, bias ? g->db_v : NULL, g->dv, x, hd->w_v, n, dm, dk);
}

attn_status attn_explain_softmax_backward(attn_softmax_grad_explanation *e, const double *a,
                                          const double *da, attn_mask m, int n, int row, int col,
                                          attn_err *err) {
    if (n < 1 || n > ATTN_MAX_TOKENS)
        return attn_fail(err, ATTN_ERR_RANGE, "A row of %d entries cannot be explained (at most %d).",
                         n, ATTN_MAX_TOKENS);
    if (row < 0 || row >= n)
        return attn_fail(err, ATTN_ERR_RANGE, "Row %d is outside d_scaled: rows are 0 to %d.", row, n - 1);
    if (col < 0 || col >= n)
        return attn_fail(err, ATTN_ERR_RANGE, "Column %d is outside d_scaled: columns are 0 to %d.",
                         col, n - 1);
    memset(e, 0, offsetof(attn_softmax_grad_explanation, terms));
    const double *ai = a + (size_t)row * n, *dai = da + (size_t)row * n;
    e->row = row;
    e->col = col;
    e->n_terms = n;
    // the same sum in the same order as attn_softmax_rows_backward, so the
    // value shown is the value stored, bit for bit
    double dot = 0.0;
    for (int k = 0; k < n; k++) {
        attn_term *t = &e->terms[k];
        t->index = k;
        t->a = ai[k];
        t->b = dai[k];
        t->value = ai[k] * dai[k];
        dot += t->value;
    }
    e->a = ai[col];
    e->da = dai[col];
    e->dot = dot;
    e->masked = !attn_mask_allows(m, row, col);
    e->value = e->masked ? 0.0 : 0.0 + e->a * (e->da - dot);
    return ATTN_OK;
}
