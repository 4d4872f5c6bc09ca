/* attn_fast.h — a faster path for one full (unmasked) attention head at large n.
 *
 * Shapes (row-major doubles, outputs first, sizes last, like attn.h):
 *   q, k, v : (n, d)      queries, keys, values of one head
 *   s, a    : (n, n)      scores Q·Kᵀ, then the row-softmax weights
 *   z       : (n, d)      the head's output A·V
 *
 * The reference stages in attn_stages.c stay the definition (attn_explain
 * mirrors them). The scores and the weighted sum here add the same terms in
 * the same order and give the same bits; the softmax uses a vectorised exp and
 * differs by a few ulp; tests hold everything within 1e-12 relative of the
 * reference. Nothing allocates; scratch is on the stack (32 KiB) or passed in. */
#ifndef ATTN_FAST_H
#define ATTN_FAST_H

#include <stdbool.h>

/* s: (n, n) = q: (n, d) · k: (n, d)ᵀ — same contract as attn_scores. */
void attn_scores_fast(double *s, const double *q, const double *k, int n, int d);

/* z: (n, d) = a: (n, n) · v: (n, d) — same contract as attn_weighted_sum.
 * z must not overlap a or v. */
void attn_weighted_sum_fast(double *z, const double *a, const double *v, int n, int d);

/* a: (n, n) = row-wise softmax of s: (n, n), as attn_softmax_rows (within a
 * few ulp); -INFINITY entries get 0, a row with no finite entry is all zeros.
 * a may equal s. */
void attn_softmax_rows_fast(double *a, const double *s, int n);

/* One full head: z = softmax(q·kᵀ [/ sqrt(d) when scale]) · v, no mask.
 * a_scratch: (n, n), holds the attention weights A on return. Equal to
 * attn_scores → attn_scale (when scale) → attn_softmax_rows → attn_weighted_sum.
 * z and a_scratch must not overlap each other or the inputs. */
void attn_head_forward_fast(double *z, double *a_scratch, const double *q, const double *k,
                            const double *v, int n, int d, bool scale);

/* Which instruction set the fast kernels run with on this machine ("avx2" or
 * "sse2" on x86-64, "generic" elsewhere); for benchmark reports. */
const char *attn_fast_isa(void);

/* true: the fast functions use only the baseline instruction set (SSE2 on
 * x86-64) even where AVX2 is there; false (the default): the best available.
 * For tests and benchmarks; not thread-safe — call it while no fast function
 * runs. */
void attn_fast_force_baseline(bool on);

#endif
