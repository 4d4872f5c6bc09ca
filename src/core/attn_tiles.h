/* attn_tiles.h — FlashAttention's online softmax (Dao et al. 2022), one head.
 *
 * The ordinary path stores the (n, n) matrices S, S/√dₖ, masked and A. The
 * tiled path never does: queries go in blocks of B rows, and each query
 * block meets the keys and values in blocks of B columns. Per step (query
 * block, key block) it holds only
 *     S_blk: (rows, cols)  the block's scores (scaled, −∞ where masked)
 *     m: (rows)            the running row maximum
 *     ℓ: (rows)            the running sum of exp(s − m)
 *     O: (rows, d)         the running Σ exp(s − m)·v
 * and updates them so that, after the last key block, O/ℓ is the softmax-
 * weighted sum of the values:
 *     m_new = max(m_old, max_j S_blk[i][j])
 *     α     = exp(m_old − m_new)                    (0 when m_old = −∞)
 *     ℓ_new = α·ℓ_old + Σ_j exp(S_blk[i][j] − m_new)
 *     O_new = α·O_old + Σ_j exp(S_blk[i][j] − m_new)·v_j
 *     z_i   = O_i / ℓ_i                             (0 when the row sees nothing)
 * A block whose every (query, key) pair the mask hides is skipped: nothing is
 * computed, so exp(−∞ − (−∞)) never happens. The result equals
 * softmax(QKᵀ/√dₖ)·V of the ordinary steps up to rounding (the sums are
 * reordered: |Δ| ≤ 1e-12·max(1, |z|) in the tests), not bit for bit.
 *
 * Shapes: q, k, v, z: (n, d), row-major doubles. exp is attn_exp (attn_math.c).
 * Pure C: no printing; only attn_tiles_run allocates (it says so). */
#ifndef ATTN_TILES_H
#define ATTN_TILES_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"

#define ATTN_MAX_TILE ATTN_MAX_TOKENS /* --tiles B: 1 … 64 (B ≥ n is one block) */

/* What the tiled pass holds at one step; the pointers are borrowed for the
 * call only (they point into the pass's scratch). */
typedef struct {
    int qb, kb;          /* the query block and key block, from 0 */
    int r0, r1, c0, c1;  /* their rows [r0, r1) and columns [c0, c1) */
    bool skipped;        /* the mask hides the whole block: nothing computed */
    const double *s;     /* (r1 − r0, c1 − c0) the block's scores, −∞ where masked; NULL when skipped */
    const double *m_old; /* (r1 − r0) m, ℓ and O before the step … */
    const double *l_old;
    const double *o_old; /* (r1 − r0, d) */
    const double *m;     /* (r1 − r0) … and after it */
    const double *l;
    const double *o; /* (r1 − r0, d), not yet divided by ℓ */
    size_t bytes;    /* bytes the pass holds at this step: 8·(rows·cols + 2·rows + rows·d) */
} attn_tile_view;

/* Called after each step (skipped ones too), in order: query block by query
 * block, key blocks left to right. */
typedef void (*attn_tile_hook)(void *ctx, const attn_tile_view *step);

/* Doubles of scratch attn_tiled_forward needs for block size b and width d
 * (b clipped to n): the scores block, m, ℓ and O, and their values before the
 * step (kept for the hook: the arithmetic a learner hovers). */
size_t attn_tiled_scratch_doubles(int n, int d, int b);

/* Bytes the pass holds at most (the largest step's attn_tile_view.bytes): the
 * figure to compare with the ordinary path's n²·8 for one (n, n) matrix. */
size_t attn_tiled_bytes_held(int n, int d, int b);

/* z: (n, d) = softmax(mask(q·kᵀ [/ √d when scale]))·v by the online softmax
 * in blocks of b (1 ≤ b; b ≥ n is one block). scratch:
 * attn_tiled_scratch_doubles(n, d, b) doubles. hook may be NULL. Returns the
 * multiply-adds done (2·d per computed (query, key) pair, as attn_full_macs
 * counts). */
long long attn_tiled_forward(double *z, double *scratch, const double *q, const double *k, const double *v,
                             attn_mask m, bool scale, int n, int d, int b, attn_tile_hook hook, void *ctx);

/* The same for query blocks [qb0, qb1) only (rows qb0·b … of z), so that a
 * caller can look at a stop flag between them (the complexity lab). */
long long attn_tiled_forward_blocks(double *z, double *scratch, const double *q, const double *k, const double *v,
                                    attn_mask m, bool scale, int n, int d, int b, int qb0, int qb1,
                                    attn_tile_hook hook, void *ctx);

/* ---- the record of one head's tiled pass, for the dump and the window --- */

typedef struct {
    int qb, kb, r0, r1, c0, c1;
    bool skipped;
    double *s;             /* (rows, cols); NULL when skipped */
    double *m_old, *l_old; /* (rows) */
    double *o_old;         /* (rows, d) */
    double *m, *l;         /* (rows) */
    double *o;             /* (rows, d) */
    size_t bytes;          /* held at this step */
} attn_tile_step;

typedef struct {
    int n, d, b;           /* tokens, head width, block size (as asked) */
    int blocks;            /* ⌈n / b⌉ query blocks, and as many key blocks */
    int count;             /* steps: blocks² */
    int skipped;           /* of them, skipped (fully masked) */
    attn_tile_step *steps; /* count steps, query block by query block */
    double *z;             /* (n, d) O/ℓ: Z_tiled */
    size_t max_bytes;      /* bytes held at most */
    size_t full_bytes;     /* n²·8: one (n, n) matrix of the ordinary path */
    long long macs;        /* multiply-adds done */
    double *block_;        /* the one allocation behind every array above */
} attn_tiles;

/* Runs the tiled pass of one head from its q, k, v (each (n, d); the
 * caller passes whatever the scores are made of) under mask m and scaling,
 * recording every step. Allocates into *out (zeroed or freed before); on
 * error *out is left freed. ATTN_ERR_RANGE when b < 1 or b > ATTN_MAX_TILE,
 * ATTN_ERR_NOMEM when the record does not fit in memory. */
attn_status attn_tiles_run(attn_tiles *out, const double *q, const double *k, const double *v, attn_mask m,
                           bool scale, int n, int d, int b, attn_err *err);

/* attn_tiles_run on head h of trace t: its Q, K, V under its mask and scaling
 * (the scores the ordinary steps take), so out->z is compared with the
 * head's Z. ATTN_ERR_RANGE also when h is not a head of t. */
attn_status attn_tiles_of_head(attn_tiles *out, const attn_trace *t, int h, int b, attn_err *err);

/* Frees what t owns and zeroes it. NULL is a no-op. */
void attn_tiles_free(attn_tiles *t);

/* The largest |a − b| / max(1, |b|) over count entries: how far Z_tiled is
 * from Z (the tests ask ≤ 1e-12). */
double attn_tiles_rel_diff(const double *a, const double *b, size_t count);

#endif
