/* test_variants.c — band (window) attention, linear attention, the fast full
 * head and the complexity lab, each against its definition. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_common.h"
#include "attn.h"
#include "attn_fast.h"
#include "attn_variants.h"
#include "complexity.h"

/* ---- helpers ---- */

static double *alloc_doubles(size_t count) {
    double *p = malloc((count ? count : 1) * sizeof(double));
    assert_non_null(p);
    return p;
}

/* q, k, v: (n, d) uniform in [-limit, limit], different per matrix and seed. */
static void fill_qkv(double *q, double *k, double *v, int n, int d, uint32_t seed, double limit) {
    for (size_t i = 0; i < (size_t)n * d; i++) {
        q[i] = attn_prng_uniform(seed, 0, i, limit);
        k[i] = attn_prng_uniform(seed, 1, i, limit);
        v[i] = attn_prng_uniform(seed, 2, i, limit);
    }
}

/* z: (n, d) by the reference stages with mask m; s: (n, n) scratch. */
static void reference_head(double *z, double *s, const double *q, const double *k,
                           const double *v, attn_mask m, bool scale, int n, int d) {
    attn_scores(s, q, k, n, d);
    if (scale) attn_scale(s, s, n, d);
    attn_apply_mask(s, s, m, n);
    attn_softmax_rows(s, s, n);
    attn_weighted_sum(z, s, v, n, d);
}

static void assert_all_close(const double *got, const double *want, size_t count, double tol,
                             const char *what, int n, int d) {
    for (size_t i = 0; i < count; i++) {
        double lim = tol * (fabs(want[i]) > 1.0 ? fabs(want[i]) : 1.0);
        if (!(fabs(got[i] - want[i]) <= lim))
            fail_msg("%s (n=%d, d=%d) entry %zu = %.17g, expected %.17g", what, n, d, i, got[i],
                     want[i]);
    }
}

/* ---- band (sliding-window) attention ---- */

static void test_band_intervals(void **state) {
    (void)state;
    int lo, hi;
    attn_mask w2 = {ATTN_MASK_WINDOW, 2}, cw2 = {ATTN_MASK_CAUSAL_WINDOW, 2};
    attn_mask none = {ATTN_MASK_NONE, 0}, causal = {ATTN_MASK_CAUSAL, 0};
    attn_band(&lo, &hi, w2, 0, 10);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 2);
    attn_band(&lo, &hi, w2, 5, 10);
    assert_int_equal(lo, 3);
    assert_int_equal(hi, 7);
    attn_band(&lo, &hi, w2, 9, 10);
    assert_int_equal(lo, 7);
    assert_int_equal(hi, 9);
    attn_band(&lo, &hi, cw2, 5, 10);
    assert_int_equal(lo, 3);
    assert_int_equal(hi, 5);
    attn_band(&lo, &hi, none, 5, 10);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 9);
    attn_band(&lo, &hi, causal, 5, 10);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 5);
    // the band is exactly what attn_mask_allows allows
    attn_mask kinds[] = {w2, cw2, none, causal, {ATTN_MASK_WINDOW, 7}};
    for (size_t m = 0; m < sizeof kinds / sizeof *kinds; m++)
        for (int i = 0; i < 12; i++) {
            attn_band(&lo, &hi, kinds[m], i, 12);
            for (int j = 0; j < 12; j++)
                assert_int_equal(attn_mask_allows(kinds[m], i, j), j >= lo && j <= hi);
        }
    assert_int_equal(attn_band_scratch_doubles(w2, 100), 5);
    assert_int_equal(attn_band_scratch_doubles(cw2, 100), 3);
    assert_int_equal(attn_band_scratch_doubles(w2, 3), 3); // never wider than n
    assert_int_equal(attn_band_scratch_doubles(none, 40), 40);
    // 2·d per (query, key) pair: n = 5, W = 1 → 2 + 3 + 3 + 3 + 2 = 13 pairs
    attn_mask w1 = {ATTN_MASK_WINDOW, 1};
    assert_int_equal(attn_band_macs(w1, 5, 4), 2 * 13 * 4);
    assert_int_equal(attn_band_macs(none, 6, 3), attn_full_macs(6, 3));
}

/* Sparse band attention equals full attention with the same mask. The
 * scratch is exactly the size the header promises, so an overrun shows under
 * AddressSanitizer. */
static void test_band_equals_masked_full(void **state) {
    (void)state;
    const int ns[] = {1, 2, 5, 17, 40, 70};
    const int ws[] = {0, 1, 2, 3, 16, 64};
    const int ds[] = {1, 4, 7};
    const attn_mask_kind kinds[] = {ATTN_MASK_WINDOW, ATTN_MASK_CAUSAL_WINDOW, ATTN_MASK_NONE,
                                    ATTN_MASK_CAUSAL};
    int cases = 0;
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
        for (size_t di = 0; di < sizeof ds / sizeof *ds; di++) {
            int n = ns[ni], d = ds[di];
            double *q = alloc_doubles((size_t)n * d), *k = alloc_doubles((size_t)n * d);
            double *v = alloc_doubles((size_t)n * d), *z = alloc_doubles((size_t)n * d);
            double *zr = alloc_doubles((size_t)n * d), *s = alloc_doubles((size_t)n * n);
            fill_qkv(q, k, v, n, d, (uint32_t)(n * 31 + d), 2.0);
            for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++)
                for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++)
                    for (int scale = 0; scale < 2; scale++) {
                        attn_mask m = {kinds[ki], ws[wi]};
                        double *scratch = alloc_doubles(attn_band_scratch_doubles(m, n));
                        reference_head(zr, s, q, k, v, m, scale, n, d);
                        attn_band_forward(z, scratch, q, k, v, m, scale, n, d);
                        assert_all_close(z, zr, (size_t)n * d, 1e-12, "band z", n, d);
                        free(scratch);
                        cases++;
                    }
            free(q), free(k), free(v), free(z), free(zr), free(s);
        }
    assert_int_equal(cases, 6 * 3 * 4 * 6 * 2);
}

/* ---- linear attention ---- */

static void test_phi(void **state) {
    (void)state;
    assert_close(attn_phi(0.0), 1.0);
    assert_close(attn_phi(1.0), 2.0);
    assert_close(attn_phi(2.5), 3.5);
    assert_close(attn_phi(-1.0), exp(-1.0));
    assert_true(attn_phi(-30.0) > 0.0);
    // continuous at 0 from both sides
    assert_close_tol(attn_phi(1e-9), attn_phi(-1e-9), 1e-8);
    assert_int_equal(attn_linear_scratch_doubles(8), 8 * 8 + 3 * 8);
    assert_int_equal(attn_linear_macs(10, 4), 2 * 10 * 16 + 2 * 10 * 4);
}

/* The definition, computed naively in O(n²·d): weights w_ij = φ(q_i)·φ(k_j)
 * (j ≤ i when causal), each row divided by its sum, times V. */
static void naive_linear(double *z, const double *q, const double *k, const double *v,
                         bool causal, int n, int d) {
    double *fq = alloc_doubles((size_t)n * d), *fk = alloc_doubles((size_t)n * d);
    double *w = alloc_doubles((size_t)n * n);
    for (size_t i = 0; i < (size_t)n * d; i++) fq[i] = attn_phi(q[i]), fk[i] = attn_phi(k[i]);
    attn_scores(w, fq, fk, n, d); // φ(Q)·φ(K)ᵀ
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < n; j++) {
            if (causal && j > i) w[(size_t)i * n + j] = 0.0;
            sum += w[(size_t)i * n + j];
        }
        for (int j = 0; j < n; j++) w[(size_t)i * n + j] /= sum;
    }
    attn_weighted_sum(z, w, v, n, d);
    free(fq), free(fk), free(w);
}

static void test_linear_equals_naive(void **state) {
    (void)state;
    const int ns[] = {1, 2, 7, 33, 100};
    const int ds[] = {1, 3, 8, 16};
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
        for (size_t di = 0; di < sizeof ds / sizeof *ds; di++)
            for (int causal = 0; causal < 2; causal++) {
                int n = ns[ni], d = ds[di];
                double *q = alloc_doubles((size_t)n * d), *k = alloc_doubles((size_t)n * d);
                double *v = alloc_doubles((size_t)n * d), *z = alloc_doubles((size_t)n * d);
                double *zr = alloc_doubles((size_t)n * d);
                double *scratch = alloc_doubles(attn_linear_scratch_doubles(d));
                fill_qkv(q, k, v, n, d, (uint32_t)(n * 7 + d), 3.0);
                naive_linear(zr, q, k, v, causal, n, d);
                attn_linear_forward(z, scratch, q, k, v, causal, n, d);
                assert_all_close(z, zr, (size_t)n * d, 1e-10, causal ? "causal linear z" : "linear z", n, d);
                free(q), free(k), free(v), free(z), free(zr), free(scratch);
            }
}

/* Causal linear attention: the first token sees only itself, so z_0 = v_0;
 * with every key equal, every row is a plain running mean of V. */
static void test_linear_causal_is_running_mean(void **state) {
    (void)state;
    enum { N = 6,
           D = 3 };
    double q[N * D], k[N * D], v[N * D], z[N * D], scratch[D * D + 3 * D];
    for (int i = 0; i < N * D; i++) q[i] = 0.1 * (i % 5) - 0.2, k[i] = 0.5, v[i] = i;
    attn_linear_forward(z, scratch, q, k, v, true, N, D);
    for (int i = 0; i < N; i++)
        for (int c = 0; c < D; c++) {
            double mean = 0.0;
            for (int j = 0; j <= i; j++) mean += v[j * D + c];
            assert_close(z[i * D + c], mean / (i + 1));
        }
}

/* ---- the fast full head ---- */

/* Scores and weighted sum on shapes that hit every edge of the tiles (n and
 * d not multiples of 4 or 8, d above the 64-wide packing chunk), on the best
 * instruction set and on the baseline. */
static void test_fast_stages_equal_reference(void **state) {
    (void)state;
    const int ns[] = {1, 3, 4, 5, 8, 9, 63, 64, 65, 130};
    const int ds[] = {1, 3, 4, 8, 9, 64, 65, 130};
    for (int base = 0; base < 2; base++) {
        attn_fast_force_baseline(base);
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
            for (size_t di = 0; di < sizeof ds / sizeof *ds; di++) {
                int n = ns[ni], d = ds[di];
                double *q = alloc_doubles((size_t)n * d), *k = alloc_doubles((size_t)n * d);
                double *v = alloc_doubles((size_t)n * d), *z = alloc_doubles((size_t)n * d);
                double *zr = alloc_doubles((size_t)n * d), *s = alloc_doubles((size_t)n * n);
                double *sr = alloc_doubles((size_t)n * n);
                fill_qkv(q, k, v, n, d, (uint32_t)(n + 1000 * d), 1.0);
                attn_scores(sr, q, k, n, d);
                attn_scores_fast(s, q, k, n, d);
                assert_all_close(s, sr, (size_t)n * n, 1e-12, "fast scores", n, d);
                attn_softmax_rows(sr, sr, n);
                attn_weighted_sum(zr, sr, v, n, d);
                attn_weighted_sum_fast(z, sr, v, n, d);
                assert_all_close(z, zr, (size_t)n * d, 1e-12, "fast weighted sum", n, d);
                free(q), free(k), free(v), free(z), free(zr), free(s), free(sr);
            }
    }
    attn_fast_force_baseline(false);
}

/* The fast head equals the reference composition, scaled or not, including
 * scores spread wide enough that most weights underflow to 0. */
static void test_fast_head_equals_reference(void **state) {
    (void)state;
    const int ns[] = {1, 2, 5, 16, 17, 33, 100, 257};
    const int ds[] = {1, 4, 7, 64};
    const double limits[] = {1.0, 30.0};
    attn_mask none = {ATTN_MASK_NONE, 0};
    for (int base = 0; base < 2; base++) {
        attn_fast_force_baseline(base);
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
            for (size_t di = 0; di < sizeof ds / sizeof *ds; di++)
                for (size_t li = 0; li < 2; li++)
                    for (int scale = 0; scale < 2; scale++) {
                        int n = ns[ni], d = ds[di];
                        double *q = alloc_doubles((size_t)n * d), *k = alloc_doubles((size_t)n * d);
                        double *v = alloc_doubles((size_t)n * d), *z = alloc_doubles((size_t)n * d);
                        double *zr = alloc_doubles((size_t)n * d), *a = alloc_doubles((size_t)n * n);
                        double *ar = alloc_doubles((size_t)n * n);
                        fill_qkv(q, k, v, n, d, (uint32_t)(7 * n + d), limits[li]);
                        reference_head(zr, ar, q, k, v, none, scale, n, d);
                        attn_head_forward_fast(z, a, q, k, v, n, d, scale);
                        assert_all_close(a, ar, (size_t)n * n, 1e-12, "fast head weights", n, d);
                        assert_all_close(z, zr, (size_t)n * d, 1e-12, "fast head z", n, d);
                        free(q), free(k), free(v), free(z), free(zr), free(a), free(ar);
                    }
    }
    attn_fast_force_baseline(false);
}

/* The fast softmax keeps the reference's rules: -inf gets exactly 0, an
 * all -inf row is all zeros, huge scores stay finite, and every row length
 * (the last n % 4 take a separate path) sums to 1. */
static void test_fast_softmax_rules(void **state) {
    (void)state;
    for (int n = 1; n <= 11; n++) {
        double *s = alloc_doubles((size_t)n * n), *a = alloc_doubles((size_t)n * n);
        double *ar = alloc_doubles((size_t)n * n);
        for (int i = 0; i < n * n; i++) s[i] = 1e30 * sin(i * 0.7) + (i % 3);
        for (int j = 0; j < n; j++) s[j] = -INFINITY; // row 0: all masked
        for (int i = 1; i < n; i++) s[(size_t)i * n + (i * 5) % n] = -INFINITY;
        if (n > 1) s[(size_t)n * n - 1] = -1e308; // finite, far below
        attn_softmax_rows(ar, s, n);
        attn_softmax_rows_fast(a, s, n);
        assert_all_close(a, ar, (size_t)n * n, 1e-12, "fast softmax", n, 0);
        for (int j = 0; j < n; j++) assert_true(a[j] == 0.0);
        for (int i = 1; i < n; i++) {
            double sum = 0.0;
            for (int j = 0; j < n; j++) sum += a[(size_t)i * n + j];
            if (n > 1) assert_true(a[(size_t)i * n + (i * 5) % n] == 0.0);
            if (n > 1) assert_close(sum, 1.0);
        }
        attn_softmax_rows_fast(s, s, n); // in place
        assert_all_close(s, ar, (size_t)n * n, 1e-12, "fast softmax in place", n, 0);
        free(s), free(a), free(ar);
    }
    // exp over the whole range, through two-entry rows [0, x]: weight e^x / (1 + e^x)
    for (double x = -745.0; x <= 0.0; x += 0.37) {
        double row[2] = {0.0, x}, out[2];
        attn_softmax_rows_fast(out, row, 1); // n = 1: [0] alone → 1
        assert_true(out[0] == 1.0);
        double two[4] = {0.0, x, x, 0.0}, w[4];
        attn_softmax_rows_fast(w, two, 2);
        double want = exp(x) / (1.0 + exp(x));
        assert_close_tol(w[1], want, 1e-15);
        assert_close_tol(w[2], want, 1e-15);
    }
}

/* ---- the complexity lab ---- */

static void test_fit_loglog(void **state) {
    (void)state;
    double n[9], t[9], lin[9];
    for (int i = 0; i < 9; i++) {
        n[i] = 16 << i;
        t[i] = 3e-9 * n[i] * n[i]; // exact n² timings
        lin[i] = 5e-7 * n[i];
    }
    double b;
    assert_close(attn_cx_fit_loglog(n, t, 9, &b), 2.0);
    assert_close(b, log2(3e-9));
    assert_close(attn_cx_fit_loglog(n, lin, 9, NULL), 1.0);
    assert_close(attn_cx_fit_loglog(n, t, 2, NULL), 2.0);
    // noise that is symmetric in log space leaves the slope exactly 2
    double noisy[8];
    for (int i = 0; i < 8; i++) noisy[i] = t[i] * ((i % 2) ? 1.25 : 1.0 / 1.25);
    double ns4[4] = {n[0], n[0], n[1], n[1]}, t4[4] = {t[0] * 2, t[0] / 2, t[1] * 2, t[1] / 2};
    assert_close(attn_cx_fit_loglog(ns4, t4, 4, NULL), 2.0);
    assert_true(fabs(attn_cx_fit_loglog(n, noisy, 8, NULL) - 2.0) < 0.1);
    // degenerate input
    assert_true(isnan(attn_cx_fit_loglog(n, t, 1, &b)));
    assert_true(isnan(b));
    double same[3] = {64, 64, 64};
    assert_true(isnan(attn_cx_fit_loglog(same, t, 3, NULL)));
    double zero[3] = {1, 0, 2};
    assert_true(isnan(attn_cx_fit_loglog(n, zero, 3, NULL)));
}

static int progress_calls;
static void count_progress(void *ctx, const attn_cx_series *s, const attn_cx_point *p) {
    (void)s;
    assert_ptr_equal(ctx, &progress_calls);
    assert_true(p->seconds > 0.0);
    progress_calls++;
}

/* Asking to stop ends the run at once: after the third point, nothing more is
 * measured, and the run says it stopped. */
static atomic_int stop_flag;
static void stop_after_three(void *ctx, const attn_cx_series *s, const attn_cx_point *p) {
    (void)s, (void)p;
    if (++*(int *)ctx == 3) atomic_store(&stop_flag, 1);
}

static void test_complexity_stop(void **state) {
    (void)state;
    attn_cx_options o;
    attn_cx_default_options(&o);
    o.min_n = 8, o.max_n = 256, o.n_dims = 1, o.dims[0] = 4, o.min_batch_s = 1e-4;
    int calls = 0;
    o.progress = stop_after_three, o.progress_ctx = &calls, o.stop = &stop_flag;
    atomic_store(&stop_flag, 0);
    attn_cx_result r;
    assert_int_equal(attn_cx_run(&r, &o, NULL), ATTN_OK);
    assert_true(r.stopped);
    int points = 0;
    for (int i = 0; i < r.n_series; i++) points += r.series[i].count;
    assert_int_equal(points, 3);
    assert_int_equal(calls, 3);
}

/* Stopping from another thread while the window's own run (the F2 lab's
 * options, up to n = 2048) times its largest point: how long the stop takes
 * is printed, a figure for the report; the bound only catches a stop that
 * does not work. */
static atomic_int largest_n;
static void note_n(void *ctx, const attn_cx_series *s, const attn_cx_point *p) {
    (void)ctx, (void)s;
    if (p->n > atomic_load(&largest_n)) atomic_store(&largest_n, p->n);
}

static void *lab_thread(void *arg) {
    attn_cx_options o;
    attn_cx_default_options(&o);
    o.max_n = 2048, o.dims[0] = 64, o.n_dims = 1, o.budget_s = 8.0, o.stop = &stop_flag;
    o.progress = note_n;
    attn_cx_run(arg, &o, NULL);
    return NULL;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void test_complexity_stop_latency(void **state) {
    (void)state;
    attn_cx_result *r = calloc(1, sizeof *r);
    atomic_store(&stop_flag, 0);
    atomic_store(&largest_n, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, lab_thread, r), 0);
    struct timespec tick = {0, 10 * 1000 * 1000}, settle = {0, 60 * 1000 * 1000};
    for (int i = 0; i < 3000 && atomic_load(&largest_n) < 1024; i++) nanosleep(&tick, NULL);
    nanosleep(&settle, NULL); // n = 2048 is being timed now
    double t0 = now_ms();
    atomic_store(&stop_flag, 1);
    pthread_join(th, NULL);
    double took = now_ms() - t0;
    printf("complexity lab: stopped %.1f ms after it was asked, while timing n = 2048\n", took);
    assert_true(r->stopped);
    assert_true(took < 5000);
    free(r);
}

/* A small real run: every method at every size, multiply-adds as the
 * formulas say, the fits exact for the counts. */
static void test_complexity_run_small(void **state) {
    (void)state;
    attn_cx_options o;
    attn_cx_default_options(&o);
    assert_int_equal(o.min_n, 16);
    assert_int_equal(o.max_n, 4096);
    o.min_n = 8, o.max_n = 64, o.dims[0] = 4, o.dims[1] = 9, o.n_dims = 2;
    o.window = 2, o.min_batch_s = 1e-4, o.budget_s = 30.0, o.fit_min_n = 16;
    o.progress = count_progress, o.progress_ctx = &progress_calls;
    attn_cx_result r;
    attn_err err;
    progress_calls = 0;
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_OK);
    assert_int_equal(r.n_series, 2 * ATTN_CX_METHOD_COUNT);
    assert_int_equal(progress_calls, 2 * ATTN_CX_METHOD_COUNT * 4);
    assert_non_null(r.isa);
    attn_mask w = {ATTN_MASK_WINDOW, 2};
    for (int i = 0; i < r.n_series; i++) {
        const attn_cx_series *s = &r.series[i];
        assert_int_equal(s->d, i < ATTN_CX_METHOD_COUNT ? 4 : 9);
        assert_int_equal(s->method, i % ATTN_CX_METHOD_COUNT);
        assert_int_equal(s->count, 4);
        assert_false(s->cut);
        assert_int_equal(s->fit_points, 3); // n = 16, 32, 64
        assert_int_equal(s->fit_from_n, 16);
        for (int j = 0; j < s->count; j++) {
            const attn_cx_point *p = &s->points[j];
            assert_int_equal(p->n, 8 << j);
            assert_int_equal(p->d, s->d);
            assert_true(p->seconds > 0.0 && p->reps >= 1);
            long long want = s->method == ATTN_CX_WINDOW   ? attn_band_macs(w, p->n, s->d)
                             : s->method == ATTN_CX_LINEAR ? attn_linear_macs(p->n, s->d)
                                                           : attn_full_macs(p->n, s->d);
            assert_int_equal(p->macs, want);
        }
        assert_false(isnan(s->slope));
        if (s->method == ATTN_CX_FULL || s->method == ATTN_CX_FULL_FAST) assert_close(s->mac_slope, 2.0);
        if (s->method == ATTN_CX_LINEAR) assert_close(s->mac_slope, 1.0);
    }
    assert_string_equal(attn_cx_method_name(ATTN_CX_FULL_FAST), "full-fast");
    assert_string_equal(attn_cx_method_name(ATTN_CX_WINDOW), "window");
    assert_string_equal(attn_cx_method_name(ATTN_CX_TILED), "tiled");
}

/* Issue 24: the tiled method's peak memory. Full holds q, k, v, z and the
 * (n, n) scores; tiled holds q, k, v, z and one block's state, so its bytes
 * are exactly 8·(4nd + B² + 2·(2B + B·d) + 1) and, from n = 256 on (B 16,
 * d 8), grow as n while full's grow towards n². */
static void test_complexity_tiled_memory(void **state) {
    (void)state;
    attn_cx_options o;
    attn_cx_default_options(&o);
    o.min_n = 256, o.max_n = 1024, o.dims[0] = 8, o.n_dims = 1, o.tile = 16;
    o.methods = (1u << ATTN_CX_FULL) | (1u << ATTN_CX_TILED);
    o.min_batch_s = 1e-4, o.budget_s = 60.0, o.fit_min_n = 256;
    attn_cx_result r;
    assert_int_equal(attn_cx_run(&r, &o, NULL), ATTN_OK);
    assert_int_equal(r.n_series, 2);
    const attn_cx_series *full = &r.series[0], *tiled = &r.series[1];
    assert_int_equal(tiled->method, ATTN_CX_TILED);
    assert_int_equal(tiled->count, 3);
    for (int j = 0; j < tiled->count; j++) {
        long long n = tiled->points[j].n, d = 8, b = 16;
        assert_int_equal(tiled->points[j].bytes, 8 * (4 * n * d + b * b + 2 * (2 * b + b * d) + 1));
        assert_int_equal(full->points[j].bytes, 8 * (4 * n * d + n * n + 1));
        assert_int_equal(tiled->points[j].macs, attn_full_macs((int)n, 8));
        assert_true(tiled->points[j].bytes < full->points[j].bytes);
    }
    assert_true(fabs(tiled->mem_slope - 1.0) < 0.06); // 0.96: the block state is a constant
    assert_true(full->mem_slope > 1.6);
    assert_true(o.tile == r.opt.tile);
    o.tile = 0;
    attn_err err;
    assert_int_equal(attn_cx_check_options(&o, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "block size B"));
}

/* The budget stops series; bad options are refused with the option named. */
static void test_complexity_budget_and_ranges(void **state) {
    (void)state;
    attn_cx_options o;
    attn_cx_result r;
    attn_err err;
    attn_cx_default_options(&o);
    o.budget_s = 1e-9; // nothing fits
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_OK);
    for (int i = 0; i < r.n_series; i++) {
        assert_true(r.series[i].cut);
        assert_int_equal(r.series[i].count, 0);
        assert_true(isnan(r.series[i].slope));
    }
    attn_cx_default_options(&o);
    o.methods = 1u << ATTN_CX_LINEAR, o.n_dims = 1, o.max_n = 32;
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_OK);
    assert_int_equal(r.n_series, 1);
    assert_int_equal(r.series[0].method, ATTN_CX_LINEAR);
    assert_int_equal(r.series[0].count, 2);

    attn_cx_default_options(&o);
    assert_int_equal(attn_cx_check_options(&o, &err), ATTN_OK);
    o.max_n = 8; // below min_n
    assert_int_equal(attn_cx_check_options(&o, &err), ATTN_ERR_RANGE);
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--max-n"));
    attn_cx_default_options(&o);
    o.max_n = ATTN_CX_MAX_N * 2;
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_ERR_RANGE);
    attn_cx_default_options(&o);
    o.n_dims = 0;
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_ERR_RANGE);
    attn_cx_default_options(&o);
    o.budget_s = 0.0;
    assert_int_equal(attn_cx_run(&r, &o, &err), ATTN_ERR_RANGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_band_intervals),
        cmocka_unit_test(test_band_equals_masked_full),
        cmocka_unit_test(test_phi),
        cmocka_unit_test(test_linear_equals_naive),
        cmocka_unit_test(test_linear_causal_is_running_mean),
        cmocka_unit_test(test_fast_stages_equal_reference),
        cmocka_unit_test(test_fast_head_equals_reference),
        cmocka_unit_test(test_fast_softmax_rules),
        cmocka_unit_test(test_fit_loglog),
        cmocka_unit_test(test_complexity_run_small),
        cmocka_unit_test(test_complexity_stop),
        cmocka_unit_test(test_complexity_stop_latency),
        cmocka_unit_test(test_complexity_budget_and_ranges),
        cmocka_unit_test(test_complexity_tiled_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
