/* attn_variants.c — band (sliding-window) attention computed sparsely, and
 * linear attention with φ(x) = elu(x) + 1. See attn_variants.h for the math.
 *
 * Shapes: q, k, v, z: (n, d), row-major doubles. */
#include "attn_variants.h"
#include "attn_math.h"

#include <math.h>
#include <string.h>

/* ---- band attention ----------------------------------------------------- */

void attn_band(int *lo, int *hi, attn_mask m, int i, int n) {
    int w = m.window < 0 ? 0 : m.window;
    int a = 0, b = n - 1; // ATTN_MASK_NONE: every key
    switch (m.kind) {
    case ATTN_MASK_NONE: break;
    case ATTN_MASK_CAUSAL: b = i; break;
    case ATTN_MASK_WINDOW: a = i - w, b = i + w; break;
    case ATTN_MASK_CAUSAL_WINDOW: a = i - w, b = i; break;
    }
    *lo = a < 0 ? 0 : a;
    *hi = b > n - 1 ? n - 1 : b;
}

size_t attn_band_scratch_doubles(attn_mask m, int n) {
    int w = m.window < 0 ? 0 : m.window;
    long long width = n; // none, causal: up to every key
    if (m.kind == ATTN_MASK_WINDOW) width = 2LL * w + 1;
    if (m.kind == ATTN_MASK_CAUSAL_WINDOW) width = (long long)w + 1;
    if (width > n) width = n;
    return width > 0 ? (size_t)width : 1;
}

/* Softmax of one band row in place (len ≥ 1) — the passes of
 * attn_softmax_rows, minus the masked entries, which only contributed exact
 * zeros there (so the two give the same bits). */
static void band_softmax(double *w, int len) {
    // pass 1: the max; subtracting it makes the largest exp(0) = 1, no overflow
    double mx = -INFINITY;
    for (int t = 0; t < len; t++)
        if (w[t] > mx) mx = w[t];
    // pass 2: exponentials and their sum; pass 3: normalise
    double sum = 0.0;
    for (int t = 0; t < len; t++) {
        w[t] = attn_exp(w[t] - mx);
        sum += w[t];
    }
    for (int t = 0; t < len; t++) w[t] /= sum;
}

void attn_band_forward(double *z, double *scratch, const double *q, const double *k,
                       const double *v, attn_mask m, bool scale, int n, int d) {
    // q, k, v: (n, d); scratch: (band width); z: (n, d)
    double div = sqrt((double)d);
    for (int i = 0; i < n; i++) {
        int lo, hi;
        attn_band(&lo, &hi, m, i, n);
        const double *qi = q + (size_t)i * d;
        double *zi = z + (size_t)i * d;
        double *w = scratch; // w[t] is key j = lo + t
        int len = hi - lo + 1;
        // 1. the band's scores (scaled as attn_scale does: one division)
        for (int j = lo; j <= hi; j++) {
            const double *kj = k + (size_t)j * d;
            double acc = 0.0;
            for (int c = 0; c < d; c++) acc += qi[c] * kj[c];
            w[j - lo] = scale ? acc / div : acc;
        }
        // 2. their softmax
        band_softmax(w, len);
        // 3. z_i = Σ_band w_j · v_j, in the reference's j-then-c order
        for (int c = 0; c < d; c++) zi[c] = 0.0;
        for (int j = lo; j <= hi; j++) {
            const double *vj = v + (size_t)j * d;
            double wj = w[j - lo];
            for (int c = 0; c < d; c++) zi[c] += wj * vj[c];
        }
    }
}

long long attn_band_macs(attn_mask m, int n, int d) {
    long long pairs = 0;
    for (int i = 0; i < n; i++) {
        int lo, hi;
        attn_band(&lo, &hi, m, i, n);
        pairs += hi - lo + 1;
    }
    return 2 * pairs * d; // q·k and w·v per pair
}

/* ---- linear attention ---------------------------------------------------- */

double attn_phi(double x) {
    // elu(x) + 1: equal to x + 1 above 0 and exp(x) below, joined smoothly at
    // 1; strictly positive, so every query-key weight φ(q)·φ(k) is positive
    // like softmax's, and the normaliser φ(q)ᵀu never changes sign
    return x > 0.0 ? x + 1.0 : attn_exp(x);
}

size_t attn_linear_scratch_doubles(int d) {
    return (size_t)d * d + 3 * (size_t)d;
}

static void phi_row(double *out, const double *x, int d) {
    for (int c = 0; c < d; c++) out[c] = attn_phi(x[c]);
}

/* The state takes in one key/value pair: u += φ(k_j), S += φ(k_j) v_jᵀ. */
static void state_add(double *s, double *u, double *fk, const double *kj, const double *vj,
                      int d) {
    // s: (d, d); u, fk: (d) — fk is scratch for φ(k_j)
    phi_row(fk, kj, d);
    for (int a = 0; a < d; a++) {
        u[a] += fk[a];
        double *sa = s + (size_t)a * d;
        for (int b = 0; b < d; b++) sa[b] += fk[a] * vj[b]; // contiguous in b: vectorises
    }
}

/* One output row: z_i = φ(q_i)ᵀ S / φ(q_i)ᵀ u. */
static void state_read(double *zi, double *fq, const double *s, const double *u,
                       const double *qi, int d) {
    // s: (d, d); u, fq: (d) — fq is scratch for φ(q_i)
    phi_row(fq, qi, d);
    double den = 0.0;
    for (int c = 0; c < d; c++) zi[c] = 0.0;
    for (int a = 0; a < d; a++) {
        den += fq[a] * u[a];
        const double *sa = s + (size_t)a * d;
        for (int c = 0; c < d; c++) zi[c] += fq[a] * sa[c];
    }
    for (int c = 0; c < d; c++) zi[c] /= den;
}

void attn_linear_forward(double *z, double *scratch, const double *q, const double *k,
                         const double *v, bool causal, int n, int d) {
    // q, k, v: (n, d); scratch: S (d, d), u (d), φ(q_i) (d), φ(k_j) (d); z: (n, d)
    double *s = scratch, *u = s + (size_t)d * d, *fq = u + d, *fk = fq + d;
    memset(s, 0, sizeof(double) * ((size_t)d * d + d));
    if (causal) {
        // the RNN form: after taking in token i, the state holds Σ_{j≤i}
        for (int i = 0; i < n; i++) {
            state_add(s, u, fk, k + (size_t)i * d, v + (size_t)i * d, d);
            state_read(z + (size_t)i * d, fq, s, u, q + (size_t)i * d, d);
        }
        return;
    }
    // 1. one state from every key and value: O(n·d²)
    for (int j = 0; j < n; j++) state_add(s, u, fk, k + (size_t)j * d, v + (size_t)j * d, d);
    // 2. every query reads it: O(n·d²)
    for (int i = 0; i < n; i++) state_read(z + (size_t)i * d, fq, s, u, q + (size_t)i * d, d);
}

long long attn_linear_macs(int n, int d) {
    return 2LL * n * d * d + 2LL * n * d;
}

long long attn_full_macs(int n, int d) {
    return 2LL * n * n * d;
}
