/* attn_variants.h — two cheaper kinds of attention, for the complexity lab.
 *
 * Full attention costs O(n²·d): every query meets every key. The variants:
 *
 *  - band (sliding-window) attention, computed SPARSELY: query i meets only
 *    the keys its mask allows, a band of at most 2W+1 (window:W) or W+1
 *    (causal-window:W) keys, so O(n·W·d) work and O(W) scratch instead of an
 *    (n, n) matrix. Its output equals full attention with that mask.
 *
 *  - linear attention (Katharopoulos et al. 2020, "Transformers are RNNs"):
 *    softmax(q·k) is replaced by the kernel φ(q)·φ(k) with φ(x) = elu(x) + 1
 *    (> 0, so the weights stay positive). Then
 *        z_i = Σ_j φ(q_i)·φ(k_j) v_j / Σ_j φ(q_i)·φ(k_j)
 *            = φ(q_i)ᵀ (Σ_j φ(k_j) v_jᵀ) / φ(q_i)ᵀ (Σ_j φ(k_j)),
 *    and the bracketed sums — a (d, d) matrix and a (d) vector — are shared
 *    by every query: O(n·d²), linear in n. It is a different model, not an
 *    approximation of softmax attention.
 *
 * Conventions as in attn.h: row-major doubles, outputs first, sizes last,
 * shapes stated here, no allocation — the caller passes the scratch, whose
 * size the *_scratch_doubles functions give. */
#ifndef ATTN_VARIANTS_H
#define ATTN_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"

/* ---- band (sliding-window) attention ---------------------------------- */

/* The keys query i may see under m, as the interval [*lo, *hi] of 0..n-1
 * (every attn_mask kind is a band: none → [0, n-1], causal → [0, i],
 * window:W → [i-W, i+W], causal-window:W → [i-W, i], clipped to 0..n-1). */
void attn_band(int *lo, int *hi, attn_mask m, int i, int n);

/* Doubles of scratch attn_band_forward needs: the widest band, 2W+1 for
 * window:W, W+1 for causal-window:W (n for none and causal), at most n. */
size_t attn_band_scratch_doubles(attn_mask m, int n);

/* z: (n, d) = softmax_band(q·kᵀ [/ sqrt(d) when scale]) · v, computed only on
 * the band: for each query, its band's scores, their softmax, and the
 * weighted sum of its band's values.
 * q, k, v: (n, d); scratch: attn_band_scratch_doubles(m, n) doubles.
 * Equals attn_scores → attn_scale → attn_apply_mask(m) → attn_softmax_rows →
 * attn_weighted_sum (same operations in the same order on the band; the
 * masked keys only ever added exact zeros there). */
void attn_band_forward(double *z, double *scratch, const double *q, const double *k,
                       const double *v, attn_mask m, bool scale, int n, int d);

/* Multiply-adds of attn_band_forward: 2·d per (query, band key) pair. */
long long attn_band_macs(attn_mask m, int n, int d);

/* ---- linear attention --------------------------------------------------- */

/* φ(x) = elu(x) + 1 = x + 1 for x > 0, exp(x) for x ≤ 0: positive, smooth. */
double attn_phi(double x);

/* Doubles of scratch attn_linear_forward needs: d·d + 3·d. */
size_t attn_linear_scratch_doubles(int d);

/* z: (n, d) = linear attention of q, k, v: (n, d):
 *   z_i = φ(q_i)ᵀ S / φ(q_i)ᵀ u,  S = Σ_j φ(k_j) v_jᵀ: (d, d),  u = Σ_j φ(k_j): (d)
 * with the sums over every j, or over j ≤ i when causal (then S and u are
 * running sums: the "RNN" form, one state update per token).
 * scratch: attn_linear_scratch_doubles(d) doubles. */
void attn_linear_forward(double *z, double *scratch, const double *q, const double *k,
                         const double *v, bool causal, int n, int d);

/* Multiply-adds of attn_linear_forward: 2·n·d² + 2·n·d (the φ(k) v outer
 * products and φ(q)ᵀS, plus u and φ(q)ᵀu). */
long long attn_linear_macs(int n, int d);

/* Multiply-adds of full attention (scores + weighted sum): 2·n²·d. */
long long attn_full_macs(int n, int d);

#endif
