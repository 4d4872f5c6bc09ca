/* attn_stages.c — the per-stage functions: plain loops that the explain
 * function mirrors term by term, plus the PRNG and embeddings. */
#include "attn.h"
#include "attn_math.h"
#include "hash.h"

#include <math.h>
#include <string.h>

#define BIAS_LIMIT 0.1 /* seeded biases are uniform in [-0.1, 0.1] */

void attn_matmul(double *out, const double *a, const double *b, const double *bias,
                 int n, int k, int m) {
    // a: (n, k), b: (k, m), bias: (m) or NULL; out: (n, m)
    for (int i = 0; i < n; i++) {
        double *row = out + (size_t)i * m;
        for (int j = 0; j < m; j++) row[j] = bias ? bias[j] : 0.0;
        // i-c-j order walks b row by row, which keeps the inner loop contiguous
        for (int c = 0; c < k; c++) {
            double aic = a[(size_t)i * k + c];
            const double *brow = b + (size_t)c * m;
            for (int j = 0; j < m; j++) row[j] += aic * brow[j];
        }
    }
}

void attn_scores(double *s, const double *q, const double *k, int n, int d) {
    attn_scores_rows(s, q, k, 0, n, n, d);
}

void attn_scores_rows(double *s, const double *q, const double *k, int r0, int r1, int n, int d) {
    // q, k: (n, d); s: (n, n), s[i][j] = Σ_c q[i][c]·k[j][c]
    for (int i = r0; i < r1; i++) {
        const double *qi = q + (size_t)i * d;
        for (int j = 0; j < n; j++) {
            const double *kj = k + (size_t)j * d;
            double acc = 0.0;
            for (int c = 0; c < d; c++) acc += qi[c] * kj[c];
            s[(size_t)i * n + j] = acc;
        }
    }
}

void attn_scale(double *out, const double *s, int n, int d_k) {
    // s, out: (n, n). Dividing by sqrt(d_k) keeps the scores' spread near 1 when
    // q and k have unit-variance entries, so softmax does not saturate.
    attn_scale_count(out, s, (size_t)n * n, d_k);
}

void attn_scale_count(double *out, const double *s, size_t count, int d_k) {
    double div = sqrt((double)d_k);
    for (size_t i = 0; i < count; i++) out[i] = s[i] / div;
}

void attn_apply_mask(double *out, const double *s, attn_mask m, int n) {
    // s, out: (n, n); -inf makes exp() exactly 0, so masked keys get no weight
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t ij = (size_t)i * n + j;
            out[ij] = attn_mask_allows(m, i, j) ? s[ij] : -INFINITY;
        }
}

void attn_softmax_rows(double *a, const double *s, int n) {
    // s, a: (n, n)
    for (int i = 0; i < n; i++) attn_softmax_row(a + (size_t)i * n, s + (size_t)i * n, n);
}

void attn_softmax_row(double *ai, const double *si, int n) {
    // si, ai: (n)
    // pass 1: the row max. Subtracting it makes the largest exponent exp(0) = 1,
    // so exp never overflows (scores of 1e30 stay finite) and the result is
    // unchanged, because softmax is invariant to shifting a row.
    double mx = -INFINITY;
    for (int j = 0; j < n; j++)
        if (si[j] > mx) mx = si[j];
    if (mx == -INFINITY) { // every key masked: nothing to attend to
        for (int j = 0; j < n; j++) ai[j] = 0.0;
        return;
    }
    // pass 2: exponentials and their sum (the sum is >= 1: the max term is 1)
    double sum = 0.0;
    for (int j = 0; j < n; j++) {
        ai[j] = si[j] == -INFINITY ? 0.0 : attn_exp(si[j] - mx);
        sum += ai[j];
    }
    // pass 3: normalise
    for (int j = 0; j < n; j++) ai[j] /= sum;
}

void attn_weighted_sum(double *z, const double *a, const double *v, int n, int d) {
    // a: (n, n), v: (n, d); z: (n, d), z[i][c] = Σ_j a[i][j]·v[j][c]
    attn_matmul(z, a, v, NULL, n, n, d);
}

void attn_positional_row(double *row, int p, int d_model) {
    // row: (d_model); even columns sin, odd columns cos of the same angle, so
    // each pair rotates at its own frequency and relative offsets are linear maps
    for (int c = 0; c < d_model; c++) {
        int pair = c - (c % 2);
        double angle = p / attn_pow(10000.0, (double)pair / d_model);
        row[c] = (c % 2 == 0) ? attn_sin(angle) : attn_cos(angle);
    }
}

double attn_rope_angle(int m, int i, int d, double base) {
    // θ_i = B^(−2i/d): pair 0 turns one radian per position, the last pair slowest
    return (double)m * attn_pow(base, -(double)(2 * i) / d);
}

/* Rotates each pair of x's rows by sign·θ into out (out may equal x). */
static void rotate_pairs(double *out, const double *x, int n, int d, int offset, double base, double sign) {
    // x, out: (n, d); pair i of row r: (x[2i], x[2i+1]) times the rotation by sign·θ(offset + r, i)
    for (int r = 0; r < n; r++) {
        const double *xr = x + (size_t)r * d;
        double *o = out + (size_t)r * d;
        for (int i = 0; i < d / 2; i++) {
            double th = attn_rope_angle(offset + r, i, d, base);
            double c = attn_cos(th), s = sign * attn_sin(th);
            double a = xr[2 * i], b = xr[2 * i + 1];
            o[2 * i] = a * c - b * s;
            o[2 * i + 1] = a * s + b * c;
        }
    }
}

void attn_rope(double *out, const double *x, int n, int d, int offset, double base) {
    rotate_pairs(out, x, n, d, offset, base, 1.0);
}

void attn_rope_backward(double *dx, const double *dout, int n, int d, int offset, double base) {
    rotate_pairs(dx, dout, n, d, offset, base, -1.0); // a rotation's transpose turns back
}

void attn_positional_columns(const attn_config *c, int *first, int *width) {
    *first = c->pos_count ? c->pos_first : 0;
    *width = c->pos_count ? c->pos_count : c->d_model;
}

void attn_positional_encoding(double *pe, int n, int d_model) {
    // pe: (n, d_model)
    for (int p = 0; p < n; p++) attn_positional_row(pe + (size_t)p * d_model, p, d_model);
}

/* splitmix64 (Steele, Lea, Flood 2014): a 64-bit mixer with exact integer
 * arithmetic, so every platform draws the same numbers. */
static uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Top 53 bits as a double in [0, 1): exact, no platform rounding. */
static double unit_from_bits(uint64_t r) {
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

double attn_prng_uniform(uint32_t seed, uint32_t stream, uint64_t index, double limit) {
    // counter-based: value = mix(mix(seed, stream) + index), so any entry can be
    // drawn on its own and changing one matrix's size never shifts another's
    uint64_t key = splitmix64(((uint64_t)seed << 32) | stream);
    double u = unit_from_bits(splitmix64(key + index * 0x9E3779B97F4A7C15ull));
    return (2.0 * u - 1.0) * limit;
}

uint32_t attn_weight_stream(int head, attn_matrix m) {
    if (m == ATTN_MAT_W_O) return 1000u;
    if (m == ATTN_MAT_B_O) return 1001u;
    return (uint32_t)(head * 8 + (int)m);
}

void attn_xavier_uniform(double *w, int rows, int cols, uint32_t seed, uint32_t stream) {
    // w: (rows, cols); Glorot & Bengio 2010: keeps activation variance steady
    double limit = sqrt(6.0 / (rows + cols));
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        w[i] = attn_prng_uniform(seed, stream, i, limit);
}

void attn_seeded_matrix(double *dst, attn_matrix m, int head, const attn_config *c) {
    int rows, cols;
    attn_matrix_shape(m, c, &rows, &cols);
    // grouped-query attention: a group's K and V are its kv-head's, drawn from kv-head g's streams
    uint32_t stream = attn_weight_stream(attn_matrix_kv(m) ? attn_kv_head_of(c, head) : head, m);
    if (!attn_matrix_is_bias(m)) {
        attn_xavier_uniform(dst, rows, cols, c->seed, stream);
        return;
    }
    for (int i = 0; i < cols; i++) dst[i] = c->bias ? attn_prng_uniform(c->seed, stream, (uint64_t)i, BIAS_LIMIT) : 0.0;
}

void attn_derived_embedding(double *v, const char *tok, size_t tok_len, int d_model) {
    // FNV-1a over the bytes picks the stream; the value depends on nothing else
    uint64_t h = attn_fnv1a(ATTN_FNV_OFFSET, tok, tok_len);
    for (int c = 0; c < d_model; c++)
        v[c] = 2.0 * unit_from_bits(splitmix64(h + (uint64_t)c * 0x9E3779B97F4A7C15ull)) - 1.0;
}

attn_status attn_check_finite(const double *v, size_t count, const char *what, attn_err *err) {
    for (size_t i = 0; i < count; i++)
        if (!isfinite(v[i]))
            return attn_fail_id(err, ATTN_ERR_NONFINITE, ATTN_MSG_STAGE_NONFINITE, what, i);
    return ATTN_OK;
}
