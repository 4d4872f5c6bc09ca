/* complexity.c — the complexity lab's measurements (see complexity.h).
 *
 * Shapes of one point: q, k, v, z: (n, d); s: (n, n) for the full methods;
 * scratch: the band's or linear attention's state. */
#include "complexity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "attn_fast.h"
#include "attn_tiles.h"
#include "attn_variants.h"
#include "clock.h"

/* Batches per point while three cost at most CHEAP_POINT_S: the fastest of
 * three, since other programs on the machine only ever add time. */
#define BATCHES 3
#define CHEAP_POINT_S 0.3

static const char *const method_names[ATTN_CX_METHOD_COUNT] = {
    "full",
    "full-fast",
    "window",
    "linear",
    "tiled",
};

const char *attn_cx_method_name(attn_cx_method m) {
    return (m >= 0 && m < ATTN_CX_METHOD_COUNT) ? method_names[m] : "?";
}

void attn_cx_default_options(attn_cx_options *o) {
    memset(o, 0, sizeof *o);
    o->min_n = 16;
    o->max_n = 4096;
    o->dims[0] = 16;
    o->dims[1] = 64;
    o->n_dims = 2;
    o->window = 16;
    o->tile = 64;
    o->budget_s = 15.0;
    o->min_batch_s = 0.002;
    o->fit_min_n = 128;
    o->methods = (1u << ATTN_CX_METHOD_COUNT) - 1;
}

/* ---- the log–log fit ----------------------------------------------------- */

double attn_cx_fit_loglog(const double *x, const double *y, int count, double *intercept) {
    if (intercept) *intercept = NAN;
    if (count < 2) return NAN;
    // ordinary least squares of v = log2 y on u = log2 x, about the means
    // (subtracting the means first keeps the sums well conditioned)
    double mu = 0.0, mv = 0.0;
    for (int i = 0; i < count; i++) {
        if (!(x[i] > 0.0) || !(y[i] > 0.0)) return NAN;
        mu += log2(x[i]);
        mv += log2(y[i]);
    }
    mu /= count;
    mv /= count;
    double suu = 0.0, suv = 0.0;
    for (int i = 0; i < count; i++) {
        double du = log2(x[i]) - mu, dv = log2(y[i]) - mv;
        suu += du * du;
        suv += du * dv;
    }
    if (suu == 0.0) return NAN;
    double slope = suv / suu;
    if (intercept) *intercept = mv - slope * mu;
    return slope;
}

/* Fits time and multiply-adds of s against n. */
static void fit_series(attn_cx_series *s, int fit_min_n) {
    double n[ATTN_CX_MAX_POINTS], t[ATTN_CX_MAX_POINTS], m[ATTN_CX_MAX_POINTS], by[ATTN_CX_MAX_POINTS];
    int c = 0;
    for (int i = 0; i < s->count; i++)
        if (s->points[i].n >= fit_min_n) {
            n[c] = s->points[i].n, t[c] = s->points[i].seconds, m[c] = (double)s->points[i].macs;
            by[c] = (double)s->points[i].bytes;
            c++;
        }
    if (c < 2) { // too few large points: use them all
        c = 0;
        for (int i = 0; i < s->count; i++, c++) {
            n[c] = s->points[i].n, t[c] = s->points[i].seconds, m[c] = (double)s->points[i].macs;
            by[c] = (double)s->points[i].bytes;
        }
    }
    s->fit_points = c < 2 ? 0 : c;
    s->fit_from_n = c < 2 ? 0 : (int)n[0];
    s->slope = attn_cx_fit_loglog(n, t, c, &s->intercept);
    s->mac_slope = attn_cx_fit_loglog(n, m, c, NULL);
    s->mem_slope = attn_cx_fit_loglog(n, by, c, NULL);
}

/* ---- one point ---------------------------------------------------------- */

typedef struct {
    int n, d, window, tile;
    double *q, *k, *v, *z, *s, *scratch; // s only for the full methods
    long long bytes;                     // what they take together
} bufs;

static void bufs_free(bufs *b) {
    free(b->q), free(b->k), free(b->v), free(b->z), free(b->s), free(b->scratch);
    memset(b, 0, sizeof *b);
}

static bool is_full(attn_cx_method m) { return m == ATTN_CX_FULL || m == ATTN_CX_FULL_FAST; }

static attn_mask window_mask(int w) {
    attn_mask m = {ATTN_MASK_WINDOW, w};
    return m;
}

/* Allocates and fills one point's buffers. Inputs are uniform in [-1, 1] from
 * the core's PRNG; every array is written once here, so no page is first
 * touched inside a timed run. */
static bool bufs_alloc(bufs *b, attn_cx_method m, int n, int d, int window, int tile) {
    memset(b, 0, sizeof *b);
    b->n = n, b->d = d, b->window = window, b->tile = tile;
    size_t nd = (size_t)n * d, scratch = 1;
    if (m == ATTN_CX_WINDOW) scratch = attn_band_scratch_doubles(window_mask(window), n);
    if (m == ATTN_CX_LINEAR) scratch = attn_linear_scratch_doubles(d);
    if (m == ATTN_CX_TILED) scratch = attn_tiled_scratch_doubles(n, d, tile);
    b->bytes = (long long)sizeof(double) * (long long)(4 * nd + scratch + (is_full(m) ? (size_t)n * n : 0));
    b->q = malloc(nd * sizeof(double));
    b->k = malloc(nd * sizeof(double));
    b->v = malloc(nd * sizeof(double));
    b->z = calloc(nd, sizeof(double));
    b->scratch = calloc(scratch, sizeof(double));
    if (is_full(m)) b->s = calloc((size_t)n * n, sizeof(double));
    if (!b->q || !b->k || !b->v || !b->z || !b->scratch || (is_full(m) && !b->s)) {
        bufs_free(b);
        return false;
    }
    for (size_t i = 0; i < nd; i++) {
        b->q[i] = attn_prng_uniform(1, 0, i, 1.0);
        b->k[i] = attn_prng_uniform(1, 1, i, 1.0);
        b->v[i] = attn_prng_uniform(1, 2, i, 1.0);
    }
    if (b->s) memset(b->s, 0, (size_t)n * n * sizeof(double)); // calloc may map lazily
    return true;
}

static bool stop_asked(const atomic_int *stop) {
    return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

#define STOP_ROWS 256 /* rows of a reference n²·d stage between looks at a stop (~25 ms at n = 2048, d = 64) */

/* The reference head, its two n²·d stages (0.2 s each at n = 2048, d = 64)
 * in blocks of rows — the loops of attn_scores and attn_weighted_sum, row by
 * row the same — so that a stop is seen within one block. */
static void run_reference(bufs *b, const atomic_int *stop) {
    int n = b->n, d = b->d;
    for (int r = 0; r < n && !stop_asked(stop); r += STOP_ROWS)
        attn_scores_rows(b->s, b->q, b->k, r, r + STOP_ROWS < n ? r + STOP_ROWS : n, n, d);
    attn_scale(b->s, b->s, n, d);
    attn_softmax_rows(b->s, b->s, n);
    for (int r = 0; r < n && !stop_asked(stop); r += STOP_ROWS) // attn_weighted_sum is this matmul
        attn_matmul(b->z + (size_t)r * d, b->s + (size_t)r * n, b->v, NULL, r + STOP_ROWS < n ? STOP_ROWS : n - r,
                    n, d);
}

/* One head by method m, scaled by 1/sqrt(d) like the app's default. */
static void run_once(attn_cx_method m, bufs *b, const atomic_int *stop) {
    int n = b->n, d = b->d;
    const attn_mask none = {ATTN_MASK_NONE, 0};
    switch (m) {
    case ATTN_CX_FULL:
        run_reference(b, stop);
        break;
    case ATTN_CX_FULL_FAST:
        attn_head_forward_fast(b->z, b->s, b->q, b->k, b->v, n, d, true);
        break;
    case ATTN_CX_WINDOW:
        attn_band_forward(b->z, b->scratch, b->q, b->k, b->v, window_mask(b->window), true, n, d);
        break;
    case ATTN_CX_LINEAR:
        attn_linear_forward(b->z, b->scratch, b->q, b->k, b->v, false, n, d);
        break;
    case ATTN_CX_TILED: // a few query blocks at a time, so that a stop is seen between them
        for (int qb = 0, per = STOP_ROWS / b->tile > 0 ? STOP_ROWS / b->tile : 1, blocks = (n + b->tile - 1) / b->tile;
             qb < blocks && !stop_asked(stop); qb += per)
            attn_tiled_forward_blocks(b->z, b->scratch, b->q, b->k, b->v, none, true, n, d, b->tile, qb, qb + per,
                                      NULL, NULL);
        break;
    case ATTN_CX_METHOD_COUNT:
        break;
    }
}

static double time_batch(attn_cx_method m, bufs *b, int reps, const atomic_int *stop) {
    double t0 = attn_clock_s();
    for (int r = 0; r < reps && !stop_asked(stop); r++) run_once(m, b, stop);
    return (attn_clock_s() - t0) / reps;
}

/* Measures one point into *p: 1. a warm-up run that also sizes the batch,
 * 2. batches of ≥ min_batch_s — three when cheap, one when not, none when
 * the budget (deadline) has no room — 3. the fastest time per run, the
 * warm-up included. */
static void measure(attn_cx_point *p, attn_cx_method m, bufs *b, double min_batch_s,
                    double deadline, const atomic_int *stop) {
    double t1 = time_batch(m, b, 1, stop);
    p->reps = 1;
    p->seconds = t1;
    double want = min_batch_s > t1 ? min_batch_s : t1;
    int reps = t1 > 0.0 ? (int)ceil(want / t1) : 1000;
    if (reps < 1) reps = 1;
    if (reps > 1000000) reps = 1000000;
    double batch = t1 * reps;
    int batches = BATCHES * batch <= CHEAP_POINT_S ? BATCHES : 1;
    // leave the other series room: spend at most half of what is left
    while (batches > 0 && batches * batch > (deadline - attn_clock_s()) / 2) batches--;
    if (batches > 0) p->reps = reps;
    for (int i = 0; i < batches && !stop_asked(stop); i++) {
        double t = time_batch(m, b, reps, stop);
        if (t < p->seconds) p->seconds = t;
    }
}

static long long point_macs(attn_cx_method m, int n, int d, int window) {
    if (m == ATTN_CX_WINDOW) return attn_band_macs(window_mask(window), n, d);
    if (m == ATTN_CX_LINEAR) return attn_linear_macs(n, d);
    return attn_full_macs(n, d);
}

/* Seconds the next point of s (at n) takes at least: one run, predicted from
 * the last point and the method's exponent (n² or n), or a few batches. */
static double predict_cost(const attn_cx_series *s, int n, double min_batch_s) {
    double floor_s = 2 * min_batch_s;
    if (s->count == 0) return floor_s;
    const attn_cx_point *last = &s->points[s->count - 1];
    double ratio = (double)n / last->n, exponent = is_full(s->method) || s->method == ATTN_CX_TILED ? 2.0 : 1.0;
    double run = last->seconds * pow(ratio, exponent);
    return run > floor_s ? run : floor_s;
}

/* ---- the run ------------------------------------------------------------ */

attn_status attn_cx_check_options(const attn_cx_options *o, attn_err *err) {
    if (o->min_n < 1 || o->min_n > ATTN_CX_MAX_N)
        return attn_fail(err, ATTN_ERR_RANGE, "The smallest n must be between 1 and %d.", ATTN_CX_MAX_N);
    if (o->max_n < o->min_n || o->max_n > ATTN_CX_MAX_N)
        return attn_fail(err, ATTN_ERR_RANGE, "--max-n must be between %d and %d.", o->min_n,
                         ATTN_CX_MAX_N);
    int points = 0;
    for (long long n = o->min_n; n <= o->max_n; n *= 2) points++;
    if (points > ATTN_CX_MAX_POINTS)
        return attn_fail(err, ATTN_ERR_RANGE, "From n = %d to %d is more than %d sizes.", o->min_n,
                         o->max_n, ATTN_CX_MAX_POINTS);
    if (o->n_dims < 1 || o->n_dims > ATTN_CX_MAX_DIMS)
        return attn_fail(err, ATTN_ERR_RANGE, "Give between 1 and %d head widths.", ATTN_CX_MAX_DIMS);
    for (int i = 0; i < o->n_dims; i++)
        if (o->dims[i] < 1 || o->dims[i] > 1024)
            return attn_fail(err, ATTN_ERR_RANGE, "Each head width d must be between 1 and 1024.");
    if (o->window < 0 || o->window > ATTN_CX_MAX_N)
        return attn_fail(err, ATTN_ERR_RANGE, "The window W must be between 0 and %d.", ATTN_CX_MAX_N);
    if (o->tile < 1 || o->tile > ATTN_CX_MAX_N)
        return attn_fail(err, ATTN_ERR_RANGE, "The block size B must be between 1 and %d.", ATTN_CX_MAX_N);
    if (!(o->budget_s > 0.0) || !(o->min_batch_s > 0.0) || !(o->min_batch_s <= 10.0))
        return attn_fail(err, ATTN_ERR_RANGE, "The time budget and batch time must be positive.");
    return ATTN_OK;
}

attn_status attn_cx_run(attn_cx_result *out, const attn_cx_options *o, attn_err *err) {
    memset(out, 0, sizeof *out);
    out->opt = *o;
    out->isa = attn_fast_isa();
    attn_status st = attn_cx_check_options(o, err);
    if (st != ATTN_OK) return st;
    // 1. one series per (d, method), d-major
    for (int di = 0; di < o->n_dims; di++)
        for (int m = 0; m < ATTN_CX_METHOD_COUNT; m++) {
            if (!(o->methods & (1u << m))) continue;
            attn_cx_series *s = &out->series[out->n_series++];
            s->method = (attn_cx_method)m;
            s->d = o->dims[di];
            s->slope = s->intercept = s->mac_slope = s->mem_slope = NAN;
        }
    // 2. n ascending, so the budget is spent evenly across the sizes; a series
    //    whose next point would overrun it stops (is cut), the others go on
    double start = attn_clock_s();
    bool *stopped = calloc((size_t)out->n_series + 1, sizeof(bool));
    if (!stopped) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory for the complexity lab.");
    for (long long n = o->min_n; n <= o->max_n && st == ATTN_OK && !out->stopped; n *= 2)
        for (int i = 0; i < out->n_series && st == ATTN_OK; i++) {
            attn_cx_series *s = &out->series[i];
            if (stopped[i]) continue;
            double left = o->budget_s - (attn_clock_s() - start);
            if ((is_full(s->method) && n > ATTN_CX_MAX_FULL_N) ||
                predict_cost(s, (int)n, o->min_batch_s) > left) {
                stopped[i] = s->cut = true;
                continue;
            }
            bufs b;
            if (!bufs_alloc(&b, s->method, (int)n, s->d, o->window, o->tile)) {
                st = attn_fail(err, ATTN_ERR_NOMEM,
                               "Out of memory for the %s method at n = %lld, d = %d.",
                               attn_cx_method_name(s->method), n, s->d);
                break;
            }
            attn_cx_point *p = &s->points[s->count++];
            p->n = (int)n, p->d = s->d;
            p->macs = point_macs(s->method, (int)n, s->d, o->window);
            p->bytes = b.bytes;
            measure(p, s->method, &b, o->min_batch_s, start + o->budget_s, o->stop);
            bufs_free(&b);
            if (stop_asked(o->stop)) { // a point cut short is no measurement
                s->count--;
                out->stopped = true;
                break;
            }
            if (o->progress) o->progress(o->progress_ctx, s, p);
        }
    free(stopped);
    // 3. the fits
    for (int i = 0; i < out->n_series; i++) fit_series(&out->series[i], o->fit_min_n);
    out->elapsed_s = attn_clock_s() - start;
    return st;
}
