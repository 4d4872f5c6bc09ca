/* attn_fast_kernels.h — the kernels of attn_fast.c. Not a public header:
 * attn_fast.c includes it twice, once for the baseline instruction set and
 * once under a target pragma for AVX2, with K(name) giving each copy its own
 * names (name_base, name_avx2), VEC its vector of VW doubles (VECI, VECU:
 * the integer lanes); a tile row is two vectors, NR = 2·VW columns.
 * Whole functions are compiled for one target this way; an inline function
 * written for the baseline and inlined into an AVX2 function would keep the
 * baseline's code.
 *
 * Shapes: q, k, v, z: (n, d); s, a: (n, n); row-major doubles. The public
 * entry points in each copy: K(scores_rows), K(wsum_rows), K(softmax_rows),
 * each on the query rows [i0, i1). */

/* VW doubles side by side (VEC): element-wise + and · only, so the same
 * roundings as scalar code; loads and stores through memcpy, so no alignment
 * is needed. */
static ALWAYS_INLINE VEC K(vload)(const double *p) {
    VEC x;
    memcpy(&x, p, sizeof x);
    return x;
}
static ALWAYS_INLINE void K(vstore)(double *p, const VEC *x) { memcpy(p, x, sizeof *x); }
#if VW == 2
static ALWAYS_INLINE VEC K(vset1)(double x) { return (VEC){x, x}; }
#else
static ALWAYS_INLINE VEC K(vset1)(double x) { return (VEC){x, x, x, x}; }
#endif
static ALWAYS_INLINE VEC K(vzero)(void) { return K(vset1)(0.0); }

/* ---- scores: s = q·kᵀ ------------------------------------------------- */

/* Packs keys [j0, j0 + nk) × columns [c0, c0 + dc) of k (n, d) into kp as
 * groups of NR keys, each group (dc, NR): kp[g][c][t] = k[j0 + g·NR + t][c0 + c].
 * Missing keys of the last group are zero (computed, never stored). */
static ALWAYS_INLINE void K(pack_keys)(double *kp, const double *k, int d, int j0, int nk,
                                       int c0, int dc) {
    for (int g = 0; g * NR < nk; g++) {
        double *dst = kp + (size_t)g * dc * NR;
        for (int t = 0; t < NR; t++) {
            int j = g * NR + t;
            const double *src = k + (size_t)(j0 + j) * d + c0;
            for (int c = 0; c < dc; c++) dst[(size_t)c * NR + t] = j < nk ? src[c] : 0.0;
        }
    }
}

/* One full tile: s[r][t] (+)= Σ_c q[r][c]·kp[c][t] for r < MR, t < NR.
 * q: MR rows of stride ldq; kp: (dc, NR); s: tile of row stride lds.
 * first: the chunk starts the sum at 0, else continues what s holds.
 * The tile is 8 named vectors (a local array indexed in loops would live on
 * the stack): 8 of the 16 registers, with AVX2 (4×8) as with SSE2 (4×4). */
static ALWAYS_INLINE void K(scores_tile)(double *s, size_t lds, const double *q, size_t ldq,
                                         const double *kp, int dc, int first) {
    VEC s00, s10, s20, s30;
    VEC s01, s11, s21, s31;
    if (first) {
        s00 = s10 = s20 = s30 = K(vzero)();
        s01 = s11 = s21 = s31 = K(vzero)();
    } else {
        s00 = K(vload)(s), s10 = K(vload)(s + lds);
        s20 = K(vload)(s + 2 * lds), s30 = K(vload)(s + 3 * lds);
        s01 = K(vload)(s + VW), s11 = K(vload)(s + lds + VW);
        s21 = K(vload)(s + 2 * lds + VW), s31 = K(vload)(s + 3 * lds + VW);
    }
    for (int c = 0; c < dc; c++) {
        VEC q0 = K(vset1)(q[c]), q1 = K(vset1)(q[ldq + c]);
        VEC q2 = K(vset1)(q[2 * ldq + c]), q3 = K(vset1)(q[3 * ldq + c]);
        VEC k0 = K(vload)(kp + (size_t)c * NR);
        s00 += q0 * k0, s10 += q1 * k0, s20 += q2 * k0, s30 += q3 * k0;
        VEC k1 = K(vload)(kp + (size_t)c * NR + VW);
        s01 += q0 * k1, s11 += q1 * k1, s21 += q2 * k1, s31 += q3 * k1;
    }
    K(vstore)(s, &s00), K(vstore)(s + lds, &s10);
    K(vstore)(s + 2 * lds, &s20), K(vstore)(s + 3 * lds, &s30);
    K(vstore)(s + VW, &s01), K(vstore)(s + lds + VW, &s11);
    K(vstore)(s + 2 * lds + VW, &s21), K(vstore)(s + 3 * lds + VW, &s31);
}

/* The same for a partial tile at the edges: mr ≤ MR rows, nt ≤ NR keys. */
static void K(scores_edge)(double *s, size_t lds, const double *q, size_t ldq,
                           const double *kp, int dc, int first, int mr, int nt) {
    for (int r = 0; r < mr; r++)
        for (int t = 0; t < nt; t++) {
            double acc = first ? 0.0 : s[r * lds + t];
            for (int c = 0; c < dc; c++) acc += q[r * ldq + c] * kp[(size_t)c * NR + t];
            s[r * lds + t] = acc;
        }
}

/* Rows [i0, i1) of s (n, n) = q·kᵀ. */
static void K(scores_rows)(double *s, const double *q, const double *k, int n, int d,
                           int i0, int i1) {
    double kp[KC * DC]; // the packed panel: 32 KiB, stays in L1
    for (int j0 = 0; j0 < n; j0 += KC) {
        int nk = n - j0 < KC ? n - j0 : KC;
        for (int c0 = 0; c0 < d; c0 += DC) {
            int dc = d - c0 < DC ? d - c0 : DC;
            K(pack_keys)(kp, k, d, j0, nk, c0, dc);
            for (int i = i0; i < i1; i += MR) {
                int mr = i1 - i < MR ? i1 - i : MR;
                const double *qi = q + (size_t)i * d + c0;
                for (int g = 0; g * NR < nk; g++) {
                    double *sij = s + (size_t)i * n + j0 + g * NR;
                    const double *kg = kp + (size_t)g * dc * NR;
                    int nt = nk - g * NR < NR ? nk - g * NR : NR;
                    if (mr == MR && nt == NR) K(scores_tile)(sij, (size_t)n, qi, (size_t)d, kg, dc, c0 == 0);
                    else K(scores_edge)(sij, (size_t)n, qi, (size_t)d, kg, dc, c0 == 0, mr, nt);
                }
            }
        }
    }
}

/* ---- weighted sum: z = a·v -------------------------------------------- */

/* One full tile: z[r][t] (+)= Σ_{j<jc} a[r][j]·v[j][t] for r < MR, t < NR.
 * a: MR rows of stride lda; v: jc rows of stride ldv; z: tile of stride ldz.
 * Registers as in the scores tile. */
static ALWAYS_INLINE void K(wsum_tile)(double *z, size_t ldz, const double *a, size_t lda,
                                       const double *v, size_t ldv, int jc, int first) {
    VEC z00, z10, z20, z30;
    VEC z01, z11, z21, z31;
    if (first) {
        z00 = z10 = z20 = z30 = K(vzero)();
        z01 = z11 = z21 = z31 = K(vzero)();
    } else {
        z00 = K(vload)(z), z10 = K(vload)(z + ldz);
        z20 = K(vload)(z + 2 * ldz), z30 = K(vload)(z + 3 * ldz);
        z01 = K(vload)(z + VW), z11 = K(vload)(z + ldz + VW);
        z21 = K(vload)(z + 2 * ldz + VW), z31 = K(vload)(z + 3 * ldz + VW);
    }
    for (int j = 0; j < jc; j++) {
        VEC a0 = K(vset1)(a[j]), a1 = K(vset1)(a[lda + j]);
        VEC a2 = K(vset1)(a[2 * lda + j]), a3 = K(vset1)(a[3 * lda + j]);
        VEC v0 = K(vload)(v + (size_t)j * ldv);
        z00 += a0 * v0, z10 += a1 * v0, z20 += a2 * v0, z30 += a3 * v0;
        VEC v1 = K(vload)(v + (size_t)j * ldv + VW);
        z01 += a0 * v1, z11 += a1 * v1, z21 += a2 * v1, z31 += a3 * v1;
    }
    K(vstore)(z, &z00), K(vstore)(z + ldz, &z10);
    K(vstore)(z + 2 * ldz, &z20), K(vstore)(z + 3 * ldz, &z30);
    K(vstore)(z + VW, &z01), K(vstore)(z + ldz + VW, &z11);
    K(vstore)(z + 2 * ldz + VW, &z21), K(vstore)(z + 3 * ldz + VW, &z31);
}

/* The same at the edges: mr ≤ MR rows, nt ≤ NR columns. */
static void K(wsum_edge)(double *z, size_t ldz, const double *a, size_t lda, const double *v,
                         size_t ldv, int jc, int first, int mr, int nt) {
    for (int r = 0; r < mr; r++)
        for (int t = 0; t < nt; t++) {
            double acc = first ? 0.0 : z[r * ldz + t];
            for (int j = 0; j < jc; j++) acc += a[r * lda + j] * v[(size_t)j * ldv + t];
            z[r * ldz + t] = acc;
        }
}

/* Rows [i0, i1) of z (n, d) = a·v, with a (n, n) and v (n, d). */
static void K(wsum_rows)(double *z, const double *a, const double *v, int n, int d,
                         int i0, int i1) {
    for (int j0 = 0; j0 < n; j0 += JC) {
        int jc = n - j0 < JC ? n - j0 : JC;
        for (int i = i0; i < i1; i += MR) {
            int mr = i1 - i < MR ? i1 - i : MR;
            const double *aij = a + (size_t)i * n + j0;
            for (int t0 = 0; t0 < d; t0 += NR) {
                int nt = d - t0 < NR ? d - t0 : NR;
                double *zi = z + (size_t)i * d + t0;
                const double *vj = v + (size_t)j0 * d + t0;
                if (mr == MR && nt == NR) K(wsum_tile)(zi, (size_t)d, aij, (size_t)n, vj, (size_t)d, jc, j0 == 0);
                else K(wsum_edge)(zi, (size_t)d, aij, (size_t)n, vj, (size_t)d, jc, j0 == 0, mr, nt);
            }
        }
    }
}

/* ---- softmax --------------------------------------------------------- */

/* exp(x) of VW numbers x ≤ 0 (a score minus its row max), to about 1 ulp.
 * libm's exp is one call per number; this is the textbook method in vector
 * form:
 *   1. x = k·ln2 + r with k = round(x/ln2) and |r| ≤ ln2/2. Adding 1.5·2^52
 *      rounds x/ln2 to an integer and leaves k in the low mantissa bits;
 *      ln2 is split in a high part with 21 trailing zero bits (k·LN2_HI is
 *      exact for |k| < 2^11) and a low part, so r keeps its precision.
 *   2. exp(r) by its Taylor series to r^13/13!: the first omitted term is
 *      below 5e-18 relative for |r| ≤ 0.35, under rounding (1.1e-16).
 *   3. 2^k built from exponent bits, as two factors 2^k1·2^k2 that are each a
 *      normal number, so results down to the subnormal range round once.
 * x is first clamped to ≥ -1100, where exp underflows to exactly 0: a masked
 * (-inf) score gets weight 0 without a special case, as in the reference. */
static ALWAYS_INLINE VEC K(vexp_nonpos)(const VEC *xp) {
    VEC x = *xp;
    x = VSELECT(x < K(vset1)(-1100.0), K(vset1)(-1100.0), x);
    // 1. k and r
    VEC t = x * K(vset1)(LOG2E) + K(vset1)(SHIFTER);
    VEC kd = t - K(vset1)(SHIFTER);
    VEC r = (x - kd * K(vset1)(LN2_HI)) - kd * K(vset1)(LN2_LO);
    // 2. exp(r) = 1 + r + r²/2! + … + r^13/13!, Horner form
    VEC p = K(vset1)(1.0 / 6227020800.0);
    p = p * r + K(vset1)(1.0 / 479001600.0);
    p = p * r + K(vset1)(1.0 / 39916800.0);
    p = p * r + K(vset1)(1.0 / 3628800.0);
    p = p * r + K(vset1)(1.0 / 362880.0);
    p = p * r + K(vset1)(1.0 / 40320.0);
    p = p * r + K(vset1)(1.0 / 5040.0);
    p = p * r + K(vset1)(1.0 / 720.0);
    p = p * r + K(vset1)(1.0 / 120.0);
    p = p * r + K(vset1)(1.0 / 24.0);
    p = p * r + K(vset1)(1.0 / 6.0);
    p = p * r + K(vset1)(0.5);
    p = p * r + K(vset1)(1.0);
    p = p * r + K(vset1)(1.0);
    // 3. u = k + 2046 lies in [459, 2046] (k in [-1587, 0]); with h = u/2 the
    //    exponent fields h and u - h give 2^(h-1023)·2^(u-h-1023) = 2^k
    VECU u = (VECU)t - SHIFTER_BITS + 2046u;
    VECU h = u >> 1;
    return p * (VEC)(h << 52) * (VEC)((u - h) << 52);
}

/* The lanes of x as one double: their sum (pairwise), or their max. */
static ALWAYS_INLINE double K(vhsum)(const VEC *x) {
#if VW == 2
    return (*x)[0] + (*x)[1];
#else
    return ((*x)[0] + (*x)[1]) + ((*x)[2] + (*x)[3]);
#endif
}
static ALWAYS_INLINE double K(vhmax)(const VEC *x) {
    double m = (*x)[0];
    for (int l = 1; l < VW; l++)
        if ((*x)[l] > m) m = (*x)[l];
    return m;
}

/* One row of length n in place: divide by div (when scale), then softmax —
 * the passes of attn_scale and attn_softmax_rows, VW numbers at a time. The
 * last n % VW go through a buffer padded with -inf (exp gives 0). */
static ALWAYS_INLINE void K(softmax_row_body)(double *row, int n, double div, bool scale) {
    int nv = n - n % VW, rest = n - nv;
    double tail[VW];
    for (int l = 0; l < VW; l++) tail[l] = l < rest ? row[nv + l] : -INFINITY;
    // pass 1: scale, and the row max (subtracting it keeps every exp ≤ 1)
    VEC vmax = K(vset1)(-INFINITY), vdiv = K(vset1)(div);
    for (int j = 0; j < nv; j += VW) {
        VEC x = K(vload)(row + j);
        if (scale) {
            x = x / vdiv;
            K(vstore)(row + j, &x);
        }
        vmax = VSELECT(x > vmax, x, vmax);
    }
    VEC xt = K(vload)(tail);
    if (scale) xt = xt / vdiv;
    vmax = VSELECT(xt > vmax, xt, vmax);
    double mx = K(vhmax)(&vmax);
    if (mx == -INFINITY) { // only -inf scores: nothing to attend to, as the reference
        memset(row, 0, sizeof(double) * (size_t)n);
        return;
    }
    // pass 2: exponentials and their sum (≥ 1: the max gives exp(0) = 1)
    VEC vsum = K(vzero)(), vmx = K(vset1)(mx);
    for (int j = 0; j < nv; j += VW) {
        VEC x = K(vload)(row + j) - vmx, e = K(vexp_nonpos)(&x);
        K(vstore)(row + j, &e);
        vsum += e;
    }
    xt = xt - vmx;
    VEC et = K(vexp_nonpos)(&xt);
    vsum += et;
    // pass 3: normalise; one division, then products (within 1 ulp of dividing)
    VEC inv = K(vset1)(1.0 / K(vhsum)(&vsum));
    for (int j = 0; j < nv; j += VW) {
        VEC y = K(vload)(row + j) * inv;
        K(vstore)(row + j, &y);
    }
    for (int l = 0; l < rest; l++) row[nv + l] = et[l] * inv[0];
}

/* Rows [i0, i1) of a (n, n), in place. */
static void K(softmax_rows)(double *a, int n, int d_k, bool scale, int i0, int i1) {
    double div = sqrt((double)d_k);
    for (int i = i0; i < i1; i++) K(softmax_row_body)(a + (size_t)i * n, n, div, scale);
}
