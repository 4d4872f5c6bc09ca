/* attn_grad.h — the backward pass of one attention layer, stage by stage,
 * beside the forward functions of attn.h (attn_backward.c).
 *
 * Each forward stage y = f(x) has a backward that, given ∂L/∂y, produces
 * ∂L/∂x (and ∂L/∂W for its weights). Conventions, as in attn.h: row-major
 * doubles, shapes once at the top, outputs first and sizes last, no
 * allocation. Every *_backward function ADDS (+=) into the gradients it
 * produces, because a forward input can feed several stages (X feeds Q, K, V
 * and the residual; W is shared by every example of a batch): the caller
 * zeroes a gradient before its first contribution. */
#ifndef ATTN_GRAD_H
#define ATTN_GRAD_H

#include "attn.h"

/* ---- per-stage backward functions ----------------------------------------- */

/* Undoes out = a·b + bias (attn_matmul): a: (n, k), b: (k, m), dout: (n, m).
 * da += dout·bᵀ, db += aᵀ·dout, dbias += Σ_rows dout. Any of da, db, dbias
 * may be NULL (that gradient is not wanted). */
void attn_matmul_backward(double *da, double *db, double *dbias, const double *dout,
                          const double *a, const double *b, int n, int k, int m);

/* Undoes s = q·kᵀ (attn_scores): q, k: (n, d), ds: (n, n).
 * dq += ds·k, dk += dsᵀ·q. */
void attn_scores_backward(double *dq, double *dk, const double *ds, const double *q,
                          const double *k, int n, int d);

/* Undoes out = s / sqrt(d_k) (attn_scale): ds += dout / sqrt(d_k); (n, n). */
void attn_scale_backward(double *ds, const double *dout, int n, int d_k);

/* Undoes the mask (attn_apply_mask) in place: d: (n, n); the entries m hides
 * become 0, because a masked entry was set to the constant -inf and does not
 * depend on the scores at all. */
void attn_mask_backward(double *d, attn_mask m, int n);

/* Undoes a = softmax of each row of t (attn_softmax_rows): a, da: (n, n).
 * dt_ij += a_ij·(da_ij − Σ_k a_ik·da_ik). A masked entry (a_ij = 0) gets 0. */
void attn_softmax_rows_backward(double *dt, const double *da, const double *a, int n);

/* Undoes z = a·v (attn_weighted_sum): a: (n, n), v, dz: (n, d).
 * da += dz·vᵀ, dv += aᵀ·dz. */
void attn_weighted_sum_backward(double *da, double *dv, const double *dz, const double *a,
                                const double *v, int n, int d);

/* ---- one head --------------------------------------------------------------- */

/* The gradients of one head: every stage's, not only the weights', so a
 * learner can see ∂L/∂A and ∂L/∂scaled. The caller points each field at
 * storage of the stated shape (nothing here allocates). */
typedef struct {
    double *dw_q, *dw_k, *dw_v; /* (d_model, d_k) ∂L/∂W_Q … (added to) */
    double *db_q, *db_k, *db_v; /* (d_k) ∂L/∂b_Q … (added to); NULL when biases are off */
    double *dz;                 /* (n, d_k) ∂L/∂Z: the input of the backward pass */
    double *d_weights;          /* (n, n) ∂L/∂A = dZ·Vᵀ (+ what the caller put there first) */
    double *d_scaled;           /* (n, n) ∂L/∂scaled, the softmax input's gradient; 0 where masked */
    double *d_scores;           /* (n, n) ∂L/∂scores */
    double *dq, *dk, *dv;       /* (n, d_k) ∂L/∂Q, ∂L/∂K, ∂L/∂V */
} attn_head_grad;

/* The backward pass of attn_head_forward: hd holds the forward's weights and
 * stages for x: (n, d_model) under c. On entry g->dz holds ∂L/∂Z, and
 * d_weights, d_scaled, d_scores, dq, dk, dv hold zeros (or, for d_weights, a
 * gradient reaching A by another path). Fills them, adds the weights' and
 * biases' gradients into g->dw_* / g->db_*, and adds ∂L/∂x into dx:
 * (n, d_model) when dx is not NULL. */
void attn_head_backward(attn_head_grad *g, double *dx, const attn_head *hd, const double *x,
                        int n, const attn_config *c);

/* ---- explaining one gradient cell --------------------------------------------- */

/* The arithmetic of ∂L/∂scaled_ij, term by term, as numbers (the CLI and the
 * GUI word it): value = a·(da − dot), dot = Σ_k A_ik·dA_ik. */
typedef struct {
    int row, col;                     /* the cell (i, j) */
    double a;                         /* A_ij */
    double da;                        /* dA_ij = ∂L/∂A_ij */
    double dot;                       /* Σ_k A_ik·dA_ik, summed in k order as the backward does */
    double value;                     /* A_ij·(dA_ij − dot); 0 where masked */
    bool masked;                      /* the mask hides (i, j): its gradient is 0 */
    int n_terms;                      /* n: one term per k */
    attn_term terms[ATTN_MAX_TOKENS]; /* index k, a = A_ik, b = dA_ik, value = A_ik·dA_ik */
} attn_softmax_grad_explanation;

/* Explains cell (row, col) of the softmax backward of a: (n, n) and da: (n, n)
 * under mask m. Returns ATTN_OK, or ATTN_ERR_RANGE naming the row or column
 * that is out of range (n must be at most ATTN_MAX_TOKENS). */
attn_status attn_explain_softmax_backward(attn_softmax_grad_explanation *e, const double *a,
                                          const double *da, attn_mask m, int n, int row, int col,
                                          attn_err *err);

#endif
