/* test_backward.c — the core's per-stage backward functions and one head's
 * backward against central finite differences of L = Σ R ⊙ stage, with R a
 * fixed random matrix, for every mask, with and without scaling and biases;
 * the softmax backward on a hand-computed row; the gradient-cell explanation. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn.h"
#include "attn_grad.h"

#define FD_H 1e-5
#define FD_TOL 1e-7

static void fill(double *v, size_t count, uint32_t stream, double limit) {
    for (size_t i = 0; i < count; i++) v[i] = attn_prng_uniform(7, stream, i, limit);
}

/* Σ r ⊙ v: the scalar whose gradient with respect to v is r. */
static double dot(const double *r, const double *v, size_t count) {
    double s = 0.0;
    for (size_t i = 0; i < count; i++) s += v[i] == -INFINITY ? 0.0 : r[i] * v[i];
    return s;
}

/* One head with every buffer, for n tokens under c. */
typedef struct {
    attn_head hd;
    attn_head_grad g;
    double *x, *dx, *r, *store;
} head_case;

static void head_case_init(head_case *hc, int n, const attn_config *c) {
    int dm = c->d_model, dk = c->d_k;
    size_t nn = (size_t)n * n, ndk = (size_t)n * dk, w = (size_t)dm * dk, used = 0;
    size_t need = 6 * w + 6 * (size_t)dk + 8 * ndk + 7 * nn + 2 * (size_t)n * dm + ndk;
    hc->store = calloc(need, sizeof(double));
    double *b = hc->store;
#define TAKE(p, cnt) \
    do { \
        (p) = b + used; \
        used += (cnt); \
    } while (0)
    TAKE(hc->hd.w_q, w);
    TAKE(hc->hd.w_k, w);
    TAKE(hc->hd.w_v, w);
    TAKE(hc->hd.b_q, dk);
    TAKE(hc->hd.b_k, dk);
    TAKE(hc->hd.b_v, dk);
    TAKE(hc->hd.q, ndk);
    TAKE(hc->hd.k, ndk);
    TAKE(hc->hd.v, ndk);
    TAKE(hc->hd.z, ndk);
    TAKE(hc->hd.scores, nn);
    TAKE(hc->hd.scaled, nn);
    TAKE(hc->hd.masked, nn);
    TAKE(hc->hd.weights, nn);
    TAKE(hc->g.dw_q, w);
    TAKE(hc->g.dw_k, w);
    TAKE(hc->g.dw_v, w);
    TAKE(hc->g.db_q, dk);
    TAKE(hc->g.db_k, dk);
    TAKE(hc->g.db_v, dk);
    TAKE(hc->g.dz, ndk);
    TAKE(hc->g.dq, ndk);
    TAKE(hc->g.dk, ndk);
    TAKE(hc->g.dv, ndk);
    TAKE(hc->g.d_weights, nn);
    TAKE(hc->g.d_scaled, nn);
    TAKE(hc->g.d_scores, nn);
    TAKE(hc->x, (size_t)n * dm);
    TAKE(hc->dx, (size_t)n * dm);
    TAKE(hc->r, (size_t)n * dk);
#undef TAKE
    assert_true(used == need);
    fill(hc->hd.w_q, w, 1, 0.8);
    fill(hc->hd.w_k, w, 2, 0.8);
    fill(hc->hd.w_v, w, 3, 0.8);
    fill(hc->hd.b_q, dk, 4, 0.3);
    fill(hc->hd.b_k, dk, 5, 0.3);
    fill(hc->hd.b_v, dk, 6, 0.3);
    fill(hc->x, (size_t)n * dm, 8, 1.0);
    fill(hc->r, ndk, 9, 1.0);
}

/* L = Σ R ⊙ Z of a fresh forward. */
static double head_loss(head_case *hc, int n, const attn_config *c) {
    attn_head h = hc->hd;
    if (!c->bias) h.b_q = h.b_k = h.b_v = NULL;
    assert_int_equal(attn_head_forward(&h, hc->x, n, c, NULL), ATTN_OK);
    return dot(hc->r, h.z, (size_t)n * c->d_k);
}

/* Central differences of head_loss in every entry of v against grad. */
static void check_fd(head_case *hc, int n, const attn_config *c, double *v, const double *grad,
                     size_t count, const char *what) {
    for (size_t i = 0; i < count; i++) {
        double keep = v[i];
        v[i] = keep + FD_H;
        double up = head_loss(hc, n, c);
        v[i] = keep - FD_H;
        double down = head_loss(hc, n, c);
        v[i] = keep;
        double fd = (up - down) / (2 * FD_H);
        if (!(fabs(fd - grad[i]) <= FD_TOL * (fabs(fd) > 1 ? fabs(fd) : 1)))
            fail_msg("%s[%zu]: backward %.12g, finite differences %.12g", what, i, grad[i], fd);
    }
}

static void check_head(int n, const attn_config *c) {
    head_case hc;
    int dm = c->d_model, dk = c->d_k;
    size_t w = (size_t)dm * dk;
    head_case_init(&hc, n, c);
    attn_head h = hc.hd;
    if (!c->bias) h.b_q = h.b_k = h.b_v = NULL;
    assert_int_equal(attn_head_forward(&h, hc.x, n, c, NULL), ATTN_OK);
    memcpy(hc.g.dz, hc.r, sizeof(double) * (size_t)n * dk); // ∂(Σ R ⊙ Z)/∂Z = R
    attn_head_backward(&hc.g, hc.dx, &h, hc.x, n, c);
    check_fd(&hc, n, c, hc.x, hc.dx, (size_t)n * dm, "dX");
    check_fd(&hc, n, c, hc.hd.w_q, hc.g.dw_q, w, "dW_Q");
    check_fd(&hc, n, c, hc.hd.w_k, hc.g.dw_k, w, "dW_K");
    check_fd(&hc, n, c, hc.hd.w_v, hc.g.dw_v, w, "dW_V");
    if (c->bias) {
        check_fd(&hc, n, c, hc.hd.b_q, hc.g.db_q, (size_t)dk, "db_Q");
        check_fd(&hc, n, c, hc.hd.b_k, hc.g.db_k, (size_t)dk, "db_K");
        check_fd(&hc, n, c, hc.hd.b_v, hc.g.db_v, (size_t)dk, "db_V");
    }
    // masked entries: exactly 0 in d_scaled, whatever d_weights holds there
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (!attn_mask_allows(c->mask, i, j)) assert_true(hc.g.d_scaled[(size_t)i * n + j] == 0.0);
    free(hc.store);
}

static void test_head_backward_every_option(void **state) {
    (void)state;
    const char *masks[] = {"none", "causal", "window:1", "causal-window:2"};
    for (size_t m = 0; m < 4; m++)
        for (int scale = 0; scale < 2; scale++)
            for (int bias = 0; bias < 2; bias++) {
                attn_config c;
                attn_config_default(&c);
                c.d_model = 5;
                c.d_k = 3;
                c.heads = 1;
                c.scale = scale;
                c.bias = bias;
                assert_int_equal(attn_mask_parse(&c.mask, masks[m], NULL), ATTN_OK);
                check_head(6, &c);
            }
}

/* Softmax backward by hand: a = (0.5, 0.5), da = (1, 0): dot = 0.5, dt = (0.25, −0.25). */
static void test_softmax_backward_by_hand(void **state) {
    (void)state;
    double a[4] = {0.5, 0.5, 1.0, 0.0}, da[4] = {1.0, 0.0, 3.0, 7.0}, dt[4] = {0};
    attn_softmax_rows_backward(dt, da, a, 2);
    assert_close(dt[0], 0.25);
    assert_close(dt[1], -0.25);
    assert_close(dt[2], 0.0);  // a one-hot row passes no gradient back
    assert_true(dt[3] == 0.0); // an entry with weight 0 (masked) gets exactly 0
}

/* The stage functions one by one: matmul, scores and scale against finite differences. */
static void test_matmul_and_scores_backward(void **state) {
    (void)state;
    enum { N = 3,
           K = 4,
           M = 2 };
    double a[N * K], b[K * M], bias[M], r[N * M], out[N * M];
    double da[N * K] = {0}, db[K * M] = {0}, dbias[M] = {0};
    fill(a, N * K, 11, 1.0);
    fill(b, K * M, 12, 1.0);
    fill(bias, M, 13, 1.0);
    fill(r, N * M, 14, 1.0);
    attn_matmul_backward(da, db, dbias, r, a, b, N, K, M);
    double *vars[] = {a, b, bias}, *grads[] = {da, db, dbias};
    size_t counts[] = {N * K, K * M, M};
    for (int v = 0; v < 3; v++)
        for (size_t i = 0; i < counts[v]; i++) {
            double keep = vars[v][i];
            vars[v][i] = keep + FD_H;
            attn_matmul(out, a, b, bias, N, K, M);
            double up = dot(r, out, N * M);
            vars[v][i] = keep - FD_H;
            attn_matmul(out, a, b, bias, N, K, M);
            double down = dot(r, out, N * M);
            vars[v][i] = keep;
            assert_close_tol(grads[v][i], (up - down) / (2 * FD_H), FD_TOL);
        }
    // scores and scale: L = Σ R ⊙ (Q·Kᵀ / √d)
    double q[N * K], k[N * K], rs[N * N], s[N * N], ds[N * N] = {0}, dq[N * K] = {0}, dk[N * K] = {0};
    fill(q, N * K, 15, 1.0);
    fill(k, N * K, 16, 1.0);
    fill(rs, N * N, 17, 1.0);
    attn_scale_backward(ds, rs, N, K);
    attn_scores_backward(dq, dk, ds, q, k, N, K);
    double *qk[] = {q, k}, *dqk[] = {dq, dk};
    for (int v = 0; v < 2; v++)
        for (size_t i = 0; i < N * K; i++) {
            double keep = qk[v][i], f[2];
            for (int side = 0; side < 2; side++) {
                qk[v][i] = keep + (side ? -FD_H : FD_H);
                attn_scores(s, q, k, N, K);
                attn_scale(s, s, N, K);
                f[side] = dot(rs, s, N * N);
            }
            qk[v][i] = keep;
            assert_close_tol(dqk[v][i], (f[0] - f[1]) / (2 * FD_H), FD_TOL);
        }
}

/* The explanation of a d_scaled cell equals the stored cell, bit for bit. */
static void test_explain_softmax_backward(void **state) {
    (void)state;
    enum { N = 5 };
    attn_mask m = {ATTN_MASK_CAUSAL, 1};
    double t[N * N], a[N * N], da[N * N], dt[N * N] = {0};
    fill(t, N * N, 21, 2.0);
    fill(da, N * N, 22, 1.0);
    attn_apply_mask(t, t, m, N);
    attn_softmax_rows(a, t, N);
    attn_softmax_rows_backward(dt, da, a, N);
    attn_mask_backward(dt, m, N);
    attn_softmax_grad_explanation e;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            assert_int_equal(attn_explain_softmax_backward(&e, a, da, m, N, i, j, NULL), ATTN_OK);
            assert_true(e.value == dt[i * N + j]);
            assert_int_equal(e.masked, j > i);
            assert_int_equal(e.n_terms, N);
            double sum = 0.0;
            for (int k = 0; k < N; k++) sum += e.terms[k].value;
            assert_true(sum == e.dot);
            assert_true(e.a == a[i * N + j] && e.da == da[i * N + j]);
        }
    attn_err err;
    assert_int_equal(attn_explain_softmax_backward(&e, a, da, m, N, N, 0, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "Row 5 is outside d_scaled"));
    assert_int_equal(attn_explain_softmax_backward(&e, a, da, m, N, 0, -1, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "Column -1"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_backward_by_hand),
        cmocka_unit_test(test_matmul_and_scores_backward),
        cmocka_unit_test(test_head_backward_every_option),
        cmocka_unit_test(test_explain_softmax_backward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
