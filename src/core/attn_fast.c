/* attn_fast.c — the full head at large n: same sums as attn_stages.c, faster.
 *
 * Shapes: q, k, v, z: (n, d); s, a: (n, n); row-major doubles.
 *
 * Where the reference spends its time at n = 2048, d = 64 (one head, about
 * 0.4 s): Q·Kᵀ is n² dot products, each a reduction over c that the compiler
 * may not vectorise (reassociating a double sum changes its rounding) and that
 * costs two loads per multiply-add; A·V streams each output row once per key;
 * the softmax calls a scalar exp (attn_exp) 4 million times. Here:
 *   1. register tiles: a 4×8 tile of the output (4×4 with SSE2) lives in
 *      vector registers while the shared index streams past, so each loaded
 *      value feeds 4 or 8 multiply-adds instead of one;
 *   2. packing: for Q·Kᵀ a panel of 64 keys is copied transposed, (d, 8) per
 *      group of 8 keys (4 with SSE2), so the innermost step is element-wise
 *      over contiguous keys: no horizontal sums;
 *   3. cache blocking: the packed key panel (≤ 32 KiB) and a chunk of 64
 *      value rows (32 KiB at d = 64) are reused from L1/L2 by every row
 *      tile. Value rows are d·8 bytes apart, so a long chunk's 8-column
 *      slices fall on few L1 sets; 64 rows measured best of 32…256;
 *   4. a vectorised exp (4 or 2 at a time, ~1 ulp) in the softmax, and the
 *      softmax and weighted sum of 16 query rows done together while those
 *      rows are still in cache.
 * Scores and weighted sums add the same terms in the same order as the
 * reference (c = 0, 1, … and j = 0, 1, …), many sums side by side, with no
 * multiply-add fused into one rounding (GCC's ISO C mode keeps
 * -ffp-contract=off, and neither target has FMA): they equal the reference
 * bit for bit. The softmax differs from it by a few
 * ulp (its exp and the order of its row sum). The kernels are compiled twice
 * (attn_fast_kernels.h): with vectors of 2 doubles for the baseline (SSE2 on
 * x86-64; any GCC/Clang target) and, on x86-64, with vectors of 4 for AVX2,
 * picked at run time. */
#include "attn_fast.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define MR 4        /* query rows per register tile */
#define NR (2 * VW) /* keys (scores) or value columns (weighted sum) per register
                       tile: two vectors of VW doubles, VW set per copy below */
#define KC 64       /* keys per packed panel */
#define DC 64       /* d-chunk per packed panel: panel = KC·DC doubles = 32 KiB */
#define JC 64       /* value rows per weighted-sum chunk: 32 KiB at d = 64 */
#define RB 16       /* query rows per softmax + weighted-sum block of the head */

#if !defined(__GNUC__)
#error "attn_fast.c needs GCC or Clang: vector extensions, target pragmas"
#endif
#define ALWAYS_INLINE inline __attribute__((always_inline))
// The kernels' small helpers are always inlined, so no vector crosses a call
// boundary and the warning that returning a 32-byte vector changes the ABI
// (SSE2 vs AVX) does not apply. Vectors go in by pointer: GCC also prints a
// note about vector parameters that no pragma silences.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#elif __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif

/* Vectors of 2 and 4 doubles, and integer lanes of the same widths for bit
 * tricks: comparing two vectors gives an integer mask (all ones or zero per
 * lane) and casts reinterpret the bits. The baseline uses 2 (one SSE2
 * register: a 4-wide vector there would live in memory), AVX2 uses 4. */
typedef double v2d __attribute__((vector_size(2 * sizeof(double))));
typedef long long v2i __attribute__((vector_size(2 * sizeof(long long))));
typedef unsigned long long v2u __attribute__((vector_size(2 * sizeof(long long))));
typedef double v4d __attribute__((vector_size(4 * sizeof(double))));
typedef long long v4i __attribute__((vector_size(4 * sizeof(long long))));
typedef unsigned long long v4u __attribute__((vector_size(4 * sizeof(long long))));
// per lane: mask ? yes : no (C has no ?: on vectors); VEC, VECI as included
#define VSELECT(mask, yes, no) ((VEC)(((mask) & (VECI)(yes)) | (~(mask) & (VECI)(no))))

#define LOG2E 0x1.71547652b82fep0
#define LN2_HI 0x1.62e42fee00000p-1
#define LN2_LO 0x1.a39ef35793c76p-33
#define SHIFTER 0x1.8p52
#define SHIFTER_BITS 0x4338000000000000ull

/* ---- the kernels, once per instruction set ---------------------------- */

// baseline (SSE2): vectors of 2, a 4×4 tile in 8 of the 16 xmm registers
#define K(name) name##_base
#define VEC v2d
#define VECI v2i
#define VECU v2u
#define VW 2
#include "attn_fast_kernels.h"
#undef VEC
#undef VECI
#undef VECU
#undef VW
#undef K

#if defined(__x86_64__)
#define HAVE_AVX2 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
// AVX2: vectors of 4, a 4×8 tile in 8 of the 16 ymm registers
#define K(name) name##_avx2
#define VEC v4d
#define VECI v4i
#define VECU v4u
#define VW 4
#include "attn_fast_kernels.h"
#undef VEC
#undef VECI
#undef VECU
#undef VW
#undef K
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

static bool force_baseline; // attn_fast_force_baseline

static bool have_avx2(void) {
    if (force_baseline) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#endif

typedef void (*rows_fn)(double *, const double *, const double *, int, int, int, int);

static rows_fn pick_scores(void) {
#ifdef HAVE_AVX2
    if (have_avx2()) return scores_rows_avx2;
#endif
    return scores_rows_base;
}

static rows_fn pick_wsum(void) {
#ifdef HAVE_AVX2
    if (have_avx2()) return wsum_rows_avx2;
#endif
    return wsum_rows_base;
}

typedef void (*softmax_fn)(double *, int, int, bool, int, int);

static softmax_fn pick_softmax(void) {
#ifdef HAVE_AVX2
    if (have_avx2()) return softmax_rows_avx2;
#endif
    return softmax_rows_base;
}

void attn_fast_force_baseline(bool on) {
#ifdef HAVE_AVX2
    force_baseline = on;
#else
    (void)on;
#endif
}

const char *attn_fast_isa(void) {
#ifdef HAVE_AVX2
    return have_avx2() ? "avx2" : "sse2";
#else
    return "generic";
#endif
}

/* ---- public entry points ---------------------------------------------- */

void attn_scores_fast(double *s, const double *q, const double *k, int n, int d) {
    pick_scores()(s, q, k, n, d, 0, n);
}

void attn_weighted_sum_fast(double *z, const double *a, const double *v, int n, int d) {
    pick_wsum()(z, a, v, n, d, 0, n);
}

void attn_softmax_rows_fast(double *a, const double *s, int n) {
    if (a != s) memcpy(a, s, sizeof(double) * (size_t)n * n);
    pick_softmax()(a, n, 1, false, 0, n);
}

void attn_head_forward_fast(double *z, double *a_scratch, const double *q, const double *k,
                            const double *v, int n, int d, bool scale) {
    // q, k, v: (n, d); a_scratch: (n, n) → A; z: (n, d)
    rows_fn wsum = pick_wsum();
    softmax_fn softmax = pick_softmax();
    // 1. every score, one packed key panel at a time (each key packed once)
    pick_scores()(a_scratch, q, k, n, d, 0, n);
    for (int i0 = 0; i0 < n; i0 += RB) {
        int i1 = n - i0 < RB ? n : i0 + RB;
        // 2. scale and softmax a block of rows, then 3. their outputs
        //    z rows = A rows · V while those rows are still in cache
        softmax(a_scratch, n, d, scale, i0, i1);
        wsum(z, a_scratch, v, n, d, i0, i1);
    }
}
