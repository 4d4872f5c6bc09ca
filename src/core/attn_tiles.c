/* attn_tiles.c — the online softmax in blocks (see attn_tiles.h for the math).
 *
 * Shapes: q, k, v, z: (n, d); per step a block of rows [r0, r1) of the
 * queries against columns [c0, c1) of the keys and values. */
#include "attn_tiles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn_math.h"
#include "attn_variants.h"

static int clip_block(int n, int b) { return b < n ? b : n; }

size_t attn_tiled_scratch_doubles(int n, int d, int b) {
    size_t bb = (size_t)clip_block(n, b);
    // s: bb², m and ℓ: bb each, O: bb·d — and the same three before the step
    return bb * bb + 2 * (2 * bb + bb * (size_t)d) + 1;
}

static size_t step_bytes(int rows, int cols, int d) {
    return sizeof(double) * ((size_t)rows * cols + 2 * (size_t)rows + (size_t)rows * d);
}

size_t attn_tiled_bytes_held(int n, int d, int b) {
    int bb = clip_block(n, b);
    return n > 0 ? step_bytes(bb, bb, d) : 0;
}

/* true when the mask lets some query of rows [r0, r1) see some key of
 * columns [c0, c1): every mask kind is a band (attn_band), so one interval
 * test per row. */
static bool block_visible(attn_mask m, int r0, int r1, int c0, int c1, int n) {
    for (int i = r0; i < r1; i++) {
        int lo, hi;
        attn_band(&lo, &hi, m, i, n);
        if (lo < c1 && hi >= c0) return true;
    }
    return false;
}

/* The scratch of one pass, cut into its arrays. */
typedef struct {
    double *s, *m, *l, *o, *m_old, *l_old, *o_old;
} tile_state;

static tile_state cut_scratch(double *scratch, int bb, int d) {
    tile_state t;
    t.s = scratch;
    t.m = t.s + (size_t)bb * bb;
    t.l = t.m + bb;
    t.o = t.l + bb;
    t.m_old = t.o + (size_t)bb * d;
    t.l_old = t.m_old + bb;
    t.o_old = t.l_old + bb;
    return t;
}

/* One step for rows [r0, r1) against columns [c0, c1): the block's scores,
 * then per row the new maximum, the rescaling of ℓ and O, and the block's
 * terms added in. Returns its multiply-adds. */
static long long tile_step(tile_state *t, const double *q, const double *k, const double *v, attn_mask m,
                           bool scale, int r0, int r1, int c0, int c1, int d) {
    int rows = r1 - r0, cols = c1 - c0;
    double div = sqrt((double)d);
    long long pairs = 0; // (query, key) pairs computed
    // 1. the block's scores, scaled as attn_scale does (one division), −∞ where masked
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++) {
            double *sij = t->s + (size_t)(i - r0) * cols + (j - c0);
            if (!attn_mask_allows(m, i, j)) {
                *sij = -INFINITY;
                continue;
            }
            const double *qi = q + (size_t)i * d, *kj = k + (size_t)j * d;
            double acc = 0.0;
            for (int c = 0; c < d; c++) acc += qi[c] * kj[c];
            *sij = scale ? acc / div : acc;
            pairs++;
        }
    memcpy(t->m_old, t->m, sizeof(double) * rows);
    memcpy(t->l_old, t->l, sizeof(double) * rows);
    memcpy(t->o_old, t->o, sizeof(double) * rows * d);
    for (int r = 0; r < rows; r++) {
        const double *sr = t->s + (size_t)r * cols;
        double *orow = t->o + (size_t)r * d;
        // 2. the running maximum: the old one or this block's largest score
        double mx = t->m[r];
        for (int c = 0; c < cols; c++)
            if (sr[c] > mx) mx = sr[c];
        if (mx == -INFINITY) continue; // the row has seen no key yet: m, ℓ, O stay (−∞, 0, 0)
        // 3. rescale what was summed against the old maximum: α = exp(m_old − m_new)
        double alpha = t->m[r] == -INFINITY ? 0.0 : attn_exp(t->m[r] - mx);
        t->m[r] = mx;
        t->l[r] *= alpha;
        for (int c = 0; c < d; c++) orow[c] *= alpha;
        // 4. this block's terms exp(s − m_new), into ℓ and O (j, then c, as attn_weighted_sum)
        for (int c = 0; c < cols; c++) {
            if (sr[c] == -INFINITY) continue; // a masked key adds exactly nothing
            double p = attn_exp(sr[c] - mx);
            t->l[r] += p;
            const double *vj = v + (size_t)(c0 + c) * d;
            for (int e = 0; e < d; e++) orow[e] += p * vj[e];
        }
    }
    return pairs * 2 * d;
}

long long attn_tiled_forward(double *z, double *scratch, const double *q, const double *k, const double *v,
                             attn_mask m, bool scale, int n, int d, int b, attn_tile_hook hook, void *ctx) {
    int bb = clip_block(n, b), blocks = bb > 0 ? (n + bb - 1) / bb : 0;
    return attn_tiled_forward_blocks(z, scratch, q, k, v, m, scale, n, d, b, 0, blocks, hook, ctx);
}

long long attn_tiled_forward_blocks(double *z, double *scratch, const double *q, const double *k, const double *v,
                                    attn_mask m, bool scale, int n, int d, int b, int qb0, int qb1,
                                    attn_tile_hook hook, void *ctx) {
    // q, k, v, z: (n, d); scratch: attn_tiled_scratch_doubles(n, d, b)
    int bb = clip_block(n, b), blocks = bb > 0 ? (n + bb - 1) / bb : 0;
    tile_state t = cut_scratch(scratch, bb, d);
    long long macs = 0;
    for (int qb = qb0 < 0 ? 0 : qb0; qb < qb1 && qb < blocks; qb++) {
        int r0 = qb * bb, r1 = r0 + bb < n ? r0 + bb : n, rows = r1 - r0;
        // 1. a fresh query block: m = −∞, ℓ = 0, O = 0
        for (int r = 0; r < rows; r++) t.m[r] = -INFINITY, t.l[r] = 0.0;
        memset(t.o, 0, sizeof(double) * rows * d);
        // 2. the key blocks, left to right; a block the mask hides entirely is skipped
        for (int kb = 0; kb < blocks; kb++) {
            int c0 = kb * bb, c1 = c0 + bb < n ? c0 + bb : n;
            bool skip = !block_visible(m, r0, r1, c0, c1, n);
            if (!skip) macs += tile_step(&t, q, k, v, m, scale, r0, r1, c0, c1, d);
            if (!hook) continue;
            attn_tile_view view = {qb, kb, r0, r1, c0, c1, skip, skip ? NULL : t.s,
                                   skip ? t.m : t.m_old, skip ? t.l : t.l_old, skip ? t.o : t.o_old,
                                   t.m, t.l, t.o, step_bytes(rows, c1 - c0, d)};
            hook(ctx, &view);
        }
        // 3. z = O / ℓ; a row that saw no key (ℓ = 0) is 0, as its softmax row is
        for (int r = 0; r < rows; r++) {
            double *zr = z + (size_t)(r0 + r) * d;
            const double *orow = t.o + (size_t)r * d;
            for (int c = 0; c < d; c++) zr[c] = t.l[r] > 0.0 ? orow[c] / t.l[r] : 0.0;
        }
    }
    return macs;
}

/* ---- the record ----------------------------------------------------------- */

/* Doubles the record of every step takes. */
static size_t record_doubles(int n, int d, int bb, int blocks) {
    size_t total = (size_t)n * d; // z
    for (int qb = 0; qb < blocks; qb++) {
        int rows = (qb + 1) * bb < n ? bb : n - qb * bb;
        for (int kb = 0; kb < blocks; kb++) {
            int cols = (kb + 1) * bb < n ? bb : n - kb * bb;
            total += (size_t)rows * cols + 4 * (size_t)rows + 2 * (size_t)rows * d;
        }
    }
    return total;
}

typedef struct {
    attn_tiles *t;
    double *next; // the record's next free double
    int at;       // the next step
} recorder;

static double *take(recorder *r, const double *src, size_t count) {
    double *dst = r->next;
    memcpy(dst, src, sizeof(double) * count);
    r->next += count;
    return dst;
}

static void record_step(void *ctx, const attn_tile_view *v) {
    recorder *r = ctx;
    attn_tile_step *s = &r->t->steps[r->at++];
    size_t rows = (size_t)(v->r1 - v->r0), cols = (size_t)(v->c1 - v->c0), d = (size_t)r->t->d;
    s->qb = v->qb, s->kb = v->kb, s->r0 = v->r0, s->r1 = v->r1, s->c0 = v->c0, s->c1 = v->c1;
    s->skipped = v->skipped;
    s->s = v->skipped ? NULL : take(r, v->s, rows * cols);
    s->m_old = take(r, v->m_old, rows);
    s->l_old = take(r, v->l_old, rows);
    s->o_old = take(r, v->o_old, rows * d);
    s->m = take(r, v->m, rows);
    s->l = take(r, v->l, rows);
    s->o = take(r, v->o, rows * d);
    s->bytes = v->bytes;
    r->t->skipped += v->skipped;
    if (v->bytes > r->t->max_bytes) r->t->max_bytes = v->bytes;
}

attn_status attn_tiles_run(attn_tiles *out, const double *q, const double *k, const double *v, attn_mask m,
                           bool scale, int n, int d, int b, attn_err *err) {
    memset(out, 0, sizeof *out);
    if (b < 1 || b > ATTN_MAX_TILE)
        return attn_fail(err, ATTN_ERR_RANGE, "--tiles must be between 1 and %d (it is %d).", ATTN_MAX_TILE, b);
    int bb = clip_block(n, b), blocks = n > 0 ? (n + bb - 1) / bb : 0;
    size_t doubles = record_doubles(n, d, bb, blocks) + attn_tiled_scratch_doubles(n, d, b);
    out->steps = calloc((size_t)blocks * blocks + 1, sizeof *out->steps);
    out->block_ = malloc(doubles * sizeof(double));
    if (!out->steps || !out->block_) {
        attn_tiles_free(out);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to record the tiled pass.");
    }
    out->n = n, out->d = d, out->b = b, out->blocks = blocks, out->count = blocks * blocks;
    out->full_bytes = (size_t)n * n * sizeof(double);
    out->z = out->block_;
    double *scratch = out->z + (size_t)n * d;
    recorder r = {out, scratch + attn_tiled_scratch_doubles(n, d, b), 0};
    out->macs = attn_tiled_forward(out->z, scratch, q, k, v, m, scale, n, d, b, record_step, &r);
    return ATTN_OK;
}

attn_status attn_tiles_of_head(attn_tiles *out, const attn_trace *t, int h, int b, attn_err *err) {
    memset(out, 0, sizeof *out);
    if (h < 0 || h >= t->cfg.heads)
        return attn_fail(err, ATTN_ERR_RANGE, "Head %d does not exist (there are %d).", h, t->cfg.heads);
    const attn_head *hd = &t->head[h];
    const double *q = t->cfg.rope ? hd->q_rot : hd->q, *k = t->cfg.rope ? hd->k_rot : hd->k; // as the scores read them
    return attn_tiles_run(out, q, k, hd->v, t->cfg.mask, t->cfg.scale, t->n, t->cfg.d_k, b, err);
}

void attn_tiles_free(attn_tiles *t) {
    if (!t) return;
    free(t->steps);
    free(t->block_);
    memset(t, 0, sizeof *t);
}

double attn_tiles_rel_diff(const double *a, const double *b, size_t count) {
    double worst = 0.0;
    for (size_t i = 0; i < count; i++) {
        double scale = fabs(b[i]) > 1.0 ? fabs(b[i]) : 1.0;
        double rel = fabs(a[i] - b[i]) / scale;
        if (rel > worst) worst = rel;
    }
    return worst;
}
