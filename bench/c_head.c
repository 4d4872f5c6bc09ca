/* c_head.c — one full attention head timed in C, for bench/numpy_compare.sh.
 *
 * Usage: attn_bench_head [N [D [REPS [Z_OUT]]]]   (defaults 2048 64 10)
 * Shapes: q, k, v, z: (N, D); a: (N, N). Inputs are the core's PRNG,
 * attn_prng_uniform(1, stream, i, 1.0) with stream 0, 1, 2 for q, k, v —
 * bench/numpy_head.py draws the same numbers, so both compute the same head.
 * Times attn_head_forward_fast (scores, scale, softmax, weighted sum) REPS
 * times after a warm-up and the reference stages a few times, checks the two
 * agree, and prints one line per path plus a machine-readable line:
 *   c: n=… d=… isa=… fast_best_ms=… fast_median_ms=… ref_best_ms=… max_diff=…
 * Z_OUT, when given, receives z from the fast path as N·D raw doubles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "attn_fast.h"
#include "clock.h"

#define REF_REPS 3


static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The reference composition that attn_explain mirrors. */
static void reference_head(double *z, double *a, const double *q, const double *k,
                           const double *v, int n, int d) {
    attn_scores(a, q, k, n, d);
    attn_scale(a, a, n, d);
    attn_softmax_rows(a, a, n);
    attn_weighted_sum(z, a, v, n, d);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    int d = argc > 2 ? atoi(argv[2]) : 64;
    int reps = argc > 3 ? atoi(argv[3]) : 10;
    const char *z_out = argc > 4 ? argv[4] : NULL;
    if (n < 1 || n > 16384 || d < 1 || d > 1024 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: attn_bench_head [N 1..16384 [D 1..1024 [REPS 1..1000 [Z_OUT]]]]\n");
        return 2;
    }
    size_t nd = (size_t)n * d, nn = (size_t)n * n;
    double *q = malloc(nd * sizeof *q), *k = malloc(nd * sizeof *k), *v = malloc(nd * sizeof *v);
    double *z = malloc(nd * sizeof *z), *zr = malloc(nd * sizeof *zr);
    double *a = malloc(nn * sizeof *a), *times = malloc((size_t)reps * sizeof *times);
    if (!q || !k || !v || !z || !zr || !a || !times) {
        fprintf(stderr, "attn_bench_head: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < nd; i++) {
        q[i] = attn_prng_uniform(1, 0, i, 1.0);
        k[i] = attn_prng_uniform(1, 1, i, 1.0);
        v[i] = attn_prng_uniform(1, 2, i, 1.0);
    }
    memset(a, 0, nn * sizeof *a); // touch every page before timing

    // 1. the fast path: a warm-up, then REPS timed runs
    attn_head_forward_fast(z, a, q, k, v, n, d, true);
    for (int r = 0; r < reps; r++) {
        double t0 = attn_clock_s();
        attn_head_forward_fast(z, a, q, k, v, n, d, true);
        times[r] = attn_clock_s() - t0;
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    double fast_best = times[0], fast_median = times[reps / 2];

    // 2. the reference stages, fewer times (they are slow), and the agreement
    double ref_best = INFINITY;
    for (int r = 0; r < REF_REPS; r++) {
        double t0 = attn_clock_s();
        reference_head(zr, a, q, k, v, n, d);
        double t = attn_clock_s() - t0;
        if (t < ref_best) ref_best = t;
    }
    double max_diff = 0.0;
    for (size_t i = 0; i < nd; i++) {
        double e = fabs(z[i] - zr[i]);
        if (e > max_diff) max_diff = e;
    }

    if (z_out) {
        FILE *f = fopen(z_out, "wb");
        if (!f || fwrite(z, sizeof *z, nd, f) != nd || fclose(f) != 0) {
            fprintf(stderr, "attn_bench_head: cannot write %s\n", z_out);
            return 1;
        }
    }
    printf("C fast head    (%s, 1 thread): best %8.2f ms, median %8.2f ms over %d runs\n",
           attn_fast_isa(), fast_best * 1e3, fast_median * 1e3, reps);
    printf("C reference    (attn_stages.c loops): best %8.2f ms over %d runs (fast is %.1fx faster)\n",
           ref_best * 1e3, REF_REPS, ref_best / fast_best);
    printf("fast vs reference: max |z difference| = %.3g\n", max_diff);
    printf("c: n=%d d=%d isa=%s fast_best_ms=%.3f fast_median_ms=%.3f ref_best_ms=%.3f max_diff=%.3g\n",
           n, d, attn_fast_isa(), fast_best * 1e3, fast_median * 1e3, ref_best * 1e3, max_diff);
    free(q), free(k), free(v), free(z), free(zr), free(a), free(times);
    return max_diff <= 1e-12 ? 0 : 1;
}
