/* complexity.h — the complexity lab: time attention's cost on this machine.
 *
 * For n = min_n, 2·min_n, … ≤ max_n and each head width d, times one head of
 *   full       the reference stages attn_scores → attn_scale →
 *              attn_softmax_rows → attn_weighted_sum (what attn_explain shows)
 *   full-fast  attn_head_forward_fast (same result, blocked and vectorised)
 *   window     attn_band_forward with window:W, computed sparsely
 *   linear     attn_linear_forward, φ(x) = elu(x) + 1, non-causal
 *   tiled      attn_tiled_forward, FlashAttention's online softmax in blocks
 *              of B (attn_tiles.h): full attention's result and n² time,
 *              without the (n, n) matrix
 * on deterministic inputs, with no trace (so no 64-token limit), and fits the
 * slope of log(time) against log(n) by least squares: about 2 for full
 * attention (n² pairs of tokens) and tiled, about 1 for window and linear —
 * and the same for the peak memory, the bytes a point's buffers take (q, k,
 * v, z and the method's own: full's (n, n) scores, tiled's block state): about
 * 2 for full, 1 for the others.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC). Each point is run once to warm the
 * caches and size a batch, then timed in batches of at least min_batch_s
 * (small n repeat hundreds of times) and the fastest batch is kept: the
 * other programs on the machine only ever add time. A series stops early when
 * its next point (predicted from the last one and the method's exponent)
 * would overrun the time budget; the others go on.
 *
 * Pure C, prints nothing: the numbers come back in attn_cx_result. attn_cx_run
 * allocates its buffers (for one point at a time) and frees them before it
 * returns. */
#ifndef ATTN_COMPLEXITY_H
#define ATTN_COMPLEXITY_H

#include <stdatomic.h>
#include <stdbool.h>

#include "attn_err.h"

typedef enum {
    ATTN_CX_FULL,
    ATTN_CX_FULL_FAST,
    ATTN_CX_WINDOW,
    ATTN_CX_LINEAR,
    ATTN_CX_TILED, /* issue 24 part 4 */
    ATTN_CX_METHOD_COUNT
} attn_cx_method;

#define ATTN_CX_MAX_POINTS 24    /* sizes per series (n doubles from min_n to max_n) */
#define ATTN_CX_MAX_DIMS 4       /* head widths per run */
#define ATTN_CX_MAX_N 65536      /* largest n accepted */
#define ATTN_CX_MAX_FULL_N 16384 /* full methods stop here: (n, n) doubles = 2 GiB */

typedef struct {
    int n, d;        /* sequence length and head width */
    double seconds;  /* one run: the fastest batch's time / reps */
    long long macs;  /* multiply-adds of one run */
    int reps;        /* runs per timed batch */
    long long bytes; /* peak memory of one run: every buffer the point allocates */
} attn_cx_point;

typedef struct {
    attn_cx_method method;
    int d;
    int count; /* valid entries in points, n ascending */
    attn_cx_point points[ATTN_CX_MAX_POINTS];
    bool cut;     /* stopped before max_n (time budget, or the full-n cap) */
    double slope; /* log2(seconds) ≈ slope·log2(n) + intercept, least squares
                           over the points with n ≥ fit_min_n (all points when fewer
                           than 2 of them); NAN with fewer than 2 points */
    double intercept;
    double mac_slope; /* the same fit for the multiply-adds (exactly 2 for full) */
    double mem_slope; /* the same fit for the peak memory (bytes) */
    int fit_points;   /* points the fits used (0: no fit) */
    int fit_from_n;   /* the smallest n among them */
} attn_cx_series;

typedef struct attn_cx_options {
    int min_n, max_n;           /* default 16, 4096; both ≥ 1 */
    int dims[ATTN_CX_MAX_DIMS]; /* head widths, default {16, 64} */
    int n_dims;
    int window;         /* W of the window method, default 16 */
    int tile;           /* B of the tiled method, default 64 (1 … ATTN_MAX_N) */
    double budget_s;    /* time budget for the whole run, default 15 s */
    double min_batch_s; /* shortest timed batch, default 0.002 s */
    int fit_min_n;      /* smallest n the fit uses, default 128: below,
                                      call overhead dominates and the window covers
                                      the whole sequence (n ≤ 2W+1) */
    unsigned methods;   /* bit (1u << method) per method to run; default all */
    /* Called after each measured point (may be NULL), e.g. to draw as it goes. */
    void (*progress)(void *ctx, const attn_cx_series *s, const attn_cx_point *p);
    void *progress_ctx;
    /* When not NULL and set (from another thread), the run stops at its next
     * check — between timed runs, and between the stages of a full head — so
     * it ends within one stage's time (about 0.1 s at n = 2048). */
    atomic_int *stop;
} attn_cx_options;

typedef struct {
    attn_cx_options opt; /* the options the run used */
    int n_series;        /* dims × methods, d-major */
    attn_cx_series series[ATTN_CX_METHOD_COUNT * ATTN_CX_MAX_DIMS];
    double elapsed_s; /* wall time of the whole run */
    const char *isa;  /* attn_fast_isa() for full-fast */
    bool stopped;     /* opt.stop ended the run early: the points so far are kept */
} attn_cx_result;

/* Fills o with the defaults above. */
void attn_cx_default_options(attn_cx_options *o);

/* "full", "full-fast", "window", "linear", "tiled". */
const char *attn_cx_method_name(attn_cx_method m);

/* ATTN_OK when every option is in range, else ATTN_ERR_RANGE naming it
 * (attn_cx_run checks the same first). */
attn_status attn_cx_check_options(const attn_cx_options *o, attn_err *err);

/* Runs the lab. ATTN_ERR_RANGE naming the option when one is out of range,
 * ATTN_ERR_NOMEM when a point's buffers cannot be allocated; *out holds
 * everything measured up to then either way. A run stopped through o->stop
 * returns ATTN_OK with out->stopped set (the point it was timing is dropped). */
attn_status attn_cx_run(attn_cx_result *out, const attn_cx_options *o, attn_err *err);

/* Least-squares line through (log2 x_i, log2 y_i), i < count: returns the
 * slope and stores the intercept (may be NULL). NAN when count < 2, when the
 * x are all equal, or when any value is ≤ 0. */
double attn_cx_fit_loglog(const double *x, const double *y, int count, double *intercept);

#endif
