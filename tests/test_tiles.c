/* test_tiles.c — the online softmax in blocks (attn_tiles.h) against the
 * ordinary stages, a 2×2 case worked by hand, the skipped blocks and the
 * bytes held. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "test_common.h"
#include "attn.h"
#include "attn_tiles.h"
#include "fileio.h"

static double *alloc_doubles(size_t count) {
    double *p = calloc(count ? count : 1, sizeof(double));
    assert_non_null(p);
    return p;
}

static void fill_qkv(double *q, double *k, double *v, int n, int d, uint32_t seed, double limit) {
    for (size_t i = 0; i < (size_t)n * d; i++) {
        q[i] = attn_prng_uniform(seed, 0, i, limit);
        k[i] = attn_prng_uniform(seed, 1, i, limit);
        v[i] = attn_prng_uniform(seed, 2, i, limit);
    }
}

/* z by the ordinary stages (what the trace keeps); s: (n, n) scratch. */
static void reference_head(double *z, double *s, const double *q, const double *k, const double *v, attn_mask m,
                           bool scale, int n, int d) {
    attn_scores(s, q, k, n, d);
    if (scale) attn_scale(s, s, n, d);
    attn_apply_mask(s, s, m, n);
    attn_softmax_rows(s, s, n);
    attn_weighted_sum(z, s, v, n, d);
}

static const attn_mask masks[] = {
    {ATTN_MASK_NONE, 0},
    {ATTN_MASK_CAUSAL, 0},
    {ATTN_MASK_WINDOW, 1},
    {ATTN_MASK_WINDOW, 3},
    {ATTN_MASK_CAUSAL_WINDOW, 1},
    {ATTN_MASK_CAUSAL_WINDOW, 2},
};
#define N_MASKS (int)(sizeof masks / sizeof *masks)

/* Z_tiled = Z (|Δ| ≤ 1e-12·max(1, |z|)) for every B in 1..n+1, every mask
 * kind, scaling on and off, through the record and through the bare pass. */
static void test_equals_ordinary_path(void **state) {
    (void)state;
    static const int ns[] = {1, 2, 3, 5, 8, 13, 20, 64};
    static const int ds[] = {1, 4, 7};
    int cases = 0;
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
        for (size_t di = 0; di < sizeof ds / sizeof *ds; di++) {
            int n = ns[ni], d = ds[di];
            double *q = alloc_doubles((size_t)n * d), *k = alloc_doubles((size_t)n * d);
            double *v = alloc_doubles((size_t)n * d), *z = alloc_doubles((size_t)n * d);
            double *z2 = alloc_doubles((size_t)n * d), *s = alloc_doubles((size_t)n * n);
            fill_qkv(q, k, v, n, d, (uint32_t)(7 * n + d), 2.0);
            for (int mi = 0; mi < N_MASKS; mi++)
                for (int sc = 0; sc < 2; sc++) {
                    reference_head(z, s, q, k, v, masks[mi], sc, n, d);
                    for (int b = 1; b <= n + 1 && b <= ATTN_MAX_TILE; b++) { // n = 64: B 65 is refused
                        attn_tiles t = {0};
                        assert_int_equal(attn_tiles_run(&t, q, k, v, masks[mi], sc, n, d, b, NULL), ATTN_OK);
                        double diff = attn_tiles_rel_diff(t.z, z, (size_t)n * d);
                        if (!(diff <= 1e-12))
                            fail_msg("n=%d d=%d mask %d scale %d B=%d: relative difference %.3g", n, d, mi, sc, b,
                                     diff);
                        double *scratch = alloc_doubles(attn_tiled_scratch_doubles(n, d, b));
                        long long macs = attn_tiled_forward(z2, scratch, q, k, v, masks[mi], sc, n, d, b, NULL, NULL);
                        assert_memory_equal(z2, t.z, sizeof(double) * n * d); // the record changes nothing
                        assert_true(macs == t.macs);
                        free(scratch);
                        attn_tiles_free(&t);
                        cases++;
                    }
                }
            free(q), free(k), free(v), free(z), free(z2), free(s);
        }
    assert_true(cases > 3000);
}

/* The scores reach ±1e28: every exponent is taken after subtracting the
 * running maximum, so nothing overflows, and the result is the ordinary one. */
static void test_huge_scores(void **state) {
    (void)state;
    int n = 9, d = 2;
    double q[18], k[18], v[18], z[18], s[81];
    fill_qkv(q, k, v, n, d, 5, 1e14);
    for (int i = 0; i < 18; i++) v[i] /= 1e14;
    for (int mi = 0; mi < N_MASKS; mi++)
        for (int b = 1; b <= n; b++) {
            reference_head(z, s, q, k, v, masks[mi], false, n, d);
            attn_tiles t = {0};
            assert_int_equal(attn_tiles_run(&t, q, k, v, masks[mi], false, n, d, b, NULL), ATTN_OK);
            for (int i = 0; i < n * d; i++) assert_true(isfinite(t.z[i]));
            assert_true(attn_tiles_rel_diff(t.z, z, (size_t)n * d) <= 1e-12);
            attn_tiles_free(&t);
        }
}

/* n = 2, d = 1, B = 1, no scaling: q = (1, 2), k = (1, 3), v = (10, 20).
 * Row 0's scores are 1 and 3, row 1's 2 and 6. By hand:
 *   step (0,0): m = 1, ℓ = 1, O = 10
 *   step (0,1): m = 3, α = e^(1−3), ℓ = e^−2 + 1, O = 10·e^−2 + 20
 *   step (1,0): m = 2, ℓ = 1, O = 10
 *   step (1,1): m = 6, α = e^(2−6), ℓ = e^−4 + 1, O = 10·e^−4 + 20
 * and z = O/ℓ. Under the causal mask step (0,1) is skipped and z_0 = 10. */
static void test_hand_2x2(void **state) {
    (void)state;
    const double q[2] = {1, 2}, k[2] = {1, 3}, v[2] = {10, 20};
    const double e2 = 0.1353352832366127, e4 = 0.018315638888734179; // e^−2, e^−4
    attn_mask none = {ATTN_MASK_NONE, 0}, causal = {ATTN_MASK_CAUSAL, 0};
    attn_tiles t = {0};
    assert_int_equal(attn_tiles_run(&t, q, k, v, none, false, 2, 1, 1, NULL), ATTN_OK);
    assert_int_equal(t.count, 4);
    assert_int_equal(t.skipped, 0);
    const attn_tile_step *st = t.steps;
    assert_int_equal(st[1].qb, 0);
    assert_int_equal(st[1].kb, 1);
    assert_close(st[0].s[0], 1.0);
    assert_close(st[1].s[0], 3.0);
    assert_close(st[2].s[0], 2.0);
    assert_close(st[3].s[0], 6.0);
    assert_true(st[0].m_old[0] == -INFINITY);
    assert_close(st[0].l_old[0], 0.0);
    assert_close(st[0].m[0], 1.0);
    assert_close(st[0].l[0], 1.0);
    assert_close(st[0].o[0], 10.0);
    assert_close(st[1].m_old[0], 1.0);
    assert_close(st[1].l_old[0], 1.0);
    assert_close(st[1].o_old[0], 10.0);
    assert_close(st[1].m[0], 3.0);
    assert_close(st[1].l[0], e2 + 1);
    assert_close(st[1].o[0], 10 * e2 + 20);
    assert_close(st[2].m[0], 2.0);
    assert_close(st[2].l[0], 1.0);
    assert_close(st[2].o[0], 10.0);
    assert_close(st[3].m[0], 6.0);
    assert_close(st[3].l[0], e4 + 1);
    assert_close(st[3].o[0], 10 * e4 + 20);
    assert_close(t.z[0], (10 * e2 + 20) / (e2 + 1));
    assert_close(t.z[1], (10 * e4 + 20) / (e4 + 1));
    assert_int_equal(t.full_bytes, 2 * 2 * 8);
    assert_int_equal(t.max_bytes, 8 * (1 + 2 + 1)); // s, m, ℓ, O of one row and one column
    attn_tiles_free(&t);
    assert_int_equal(attn_tiles_run(&t, q, k, v, causal, false, 2, 1, 1, NULL), ATTN_OK);
    assert_int_equal(t.skipped, 1);
    assert_true(t.steps[1].skipped);
    assert_null(t.steps[1].s);
    assert_close(t.steps[1].m[0], 1.0);
    assert_close(t.steps[1].l[0], 1.0); // unchanged);
    assert_close(t.z[0], 10.0);
    assert_close(t.z[1], (10 * e4 + 20) / (e4 + 1));
    assert_int_equal(t.macs, 3 * 2); // three pairs computed, 2·d each
    attn_tiles_free(&t);
}

/* A block is skipped exactly when the mask hides every pair in it (counted
 * here cell by cell), and no recorded m, ℓ or O is NaN: exp(−∞ − (−∞)) never
 * happened. */
static void test_skipped_blocks(void **state) {
    (void)state;
    int n = 13, d = 3;
    double q[39], k[39], v[39];
    fill_qkv(q, k, v, n, d, 11, 1.0);
    for (int mi = 0; mi < N_MASKS; mi++)
        for (int b = 1; b <= n; b++) {
            attn_tiles t = {0};
            assert_int_equal(attn_tiles_run(&t, q, k, v, masks[mi], true, n, d, b, NULL), ATTN_OK);
            int want = 0;
            for (int s = 0; s < t.count; s++) {
                const attn_tile_step *st = &t.steps[s];
                bool any = false;
                for (int i = st->r0; i < st->r1; i++)
                    for (int j = st->c0; j < st->c1; j++) any |= attn_mask_allows(masks[mi], i, j);
                assert_int_equal(st->skipped, !any);
                want += !any;
                for (int r = 0; r < st->r1 - st->r0; r++) {
                    assert_false(isnan(st->m[r]));
                    assert_true(isfinite(st->l[r]));
                    for (int c = 0; c < d; c++) assert_true(isfinite(st->o[(size_t)r * d + c]));
                }
            }
            assert_int_equal(t.skipped, want);
            if (masks[mi].kind == ATTN_MASK_CAUSAL) assert_int_equal(t.skipped, t.blocks * (t.blocks - 1) / 2);
            attn_tiles_free(&t);
        }
}

/* The bytes held: 8·(B² + 2B + B·d) at most (B clipped to n), below one (n, n)
 * matrix's n²·8 while B ≤ n/2 (d = 4, n = 20), and the same at every step of
 * a full block. */
static void test_bytes_held(void **state) {
    (void)state;
    int n = 20, d = 4;
    double q[80], k[80], v[80];
    fill_qkv(q, k, v, n, d, 3, 1.0);
    attn_mask none = {ATTN_MASK_NONE, 0};
    for (int b = 1; b <= n + 1; b++) {
        attn_tiles t = {0};
        assert_int_equal(attn_tiles_run(&t, q, k, v, none, true, n, d, b, NULL), ATTN_OK);
        size_t bb = (size_t)(b < n ? b : n);
        assert_int_equal(t.max_bytes, 8 * (bb * bb + 2 * bb + bb * d));
        assert_int_equal(t.max_bytes, attn_tiled_bytes_held(n, d, b));
        assert_int_equal(t.full_bytes, (size_t)n * n * 8);
        if (2 * b <= n) assert_true(t.max_bytes < t.full_bytes);
        assert_true(t.steps[0].bytes == t.max_bytes);
        attn_tiles_free(&t);
    }
}

static void test_refuses_block_sizes(void **state) {
    (void)state;
    double q[4] = {0}, k[4] = {0}, v[4] = {0};
    attn_mask none = {ATTN_MASK_NONE, 0};
    attn_tiles t = {0};
    attn_err err;
    assert_int_equal(attn_tiles_run(&t, q, k, v, none, true, 2, 2, 0, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--tiles"));
    assert_null(t.steps);
    assert_int_equal(attn_tiles_run(&t, q, k, v, none, true, 2, 2, ATTN_MAX_TILE + 1, &err), ATTN_ERR_RANGE);
    assert_int_equal(attn_tiles_run(&t, q, k, v, none, true, 2, 2, ATTN_MAX_TILE, &err), ATTN_OK);
    assert_int_equal(t.blocks, 1);
    attn_tiles_free(&t);
    attn_tiles_free(NULL);
}

/* rows × cols numbers of a JSON array of rows into dst. */
static void read_rows(double *dst, const cJSON *rows, int n, int d) {
    assert_int_equal(cJSON_GetArraySize(rows), n);
    for (int i = 0; i < n; i++) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        assert_int_equal(cJSON_GetArraySize(row), d);
        for (int c = 0; c < d; c++) dst[(size_t)i * d + c] = cJSON_GetArrayItem(row, c)->valuedouble;
    }
}

/* PyTorch float64's standard softmax attention (tests/data/gen_tiles_reference.py,
 * an independent implementation) against the tiled pass, every B in 1..n+1. */
static void test_pytorch_reference(void **state) {
    (void)state;
    char path[1024], *text = NULL;
    size_t len = 0;
    attn_err err;
    snprintf(path, sizeof path, "%s/tiles_ref.json", ATTN_TEST_DATA);
    if (attn_read_file(path, 1u << 24, &text, &len, &err) != ATTN_OK) fail_msg("%s", err.msg);
    cJSON *root = cJSON_ParseWithLength(text, len);
    assert_non_null(root);
    const cJSON *cases = cJSON_GetObjectItem(root, "cases");
    int checked = 0;
    double worst = 0.0;
    for (int ci = 0; ci < cJSON_GetArraySize(cases); ci++) {
        const cJSON *c = cJSON_GetArrayItem(cases, ci);
        int n = cJSON_GetObjectItem(c, "n")->valueint, d = cJSON_GetObjectItem(c, "d")->valueint;
        bool scale = cJSON_IsTrue(cJSON_GetObjectItem(c, "scale"));
        attn_mask m;
        assert_int_equal(attn_mask_parse(&m, cJSON_GetObjectItem(c, "mask")->valuestring, NULL), ATTN_OK);
        double *q = alloc_doubles((size_t)n * d), *k = alloc_doubles((size_t)n * d);
        double *v = alloc_doubles((size_t)n * d), *z = alloc_doubles((size_t)n * d);
        read_rows(q, cJSON_GetObjectItem(c, "q"), n, d);
        read_rows(k, cJSON_GetObjectItem(c, "k"), n, d);
        read_rows(v, cJSON_GetObjectItem(c, "v"), n, d);
        read_rows(z, cJSON_GetObjectItem(c, "z"), n, d);
        for (int b = 1; b <= n + 1; b++) {
            attn_tiles t = {0};
            assert_int_equal(attn_tiles_run(&t, q, k, v, m, scale, n, d, b, NULL), ATTN_OK);
            double diff = attn_tiles_rel_diff(t.z, z, (size_t)n * d);
            if (!(diff <= 1e-12))
                fail_msg("%s, B = %d: relative difference %.3g", cJSON_GetObjectItem(c, "name")->valuestring, b, diff);
            if (diff > worst) worst = diff;
            attn_tiles_free(&t);
            checked++;
        }
        free(q), free(k), free(v), free(z);
    }
    print_message("PyTorch reference: %d (case, B) pairs, largest relative difference %.3g\n", checked, worst);
    assert_true(checked > 70);
    cJSON_Delete(root);
    free(text);
}

/* With RoPE the tiled pass reads the rotated q and k, as the scores do. */
static void test_rope_reads_rotated(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.heads = 2, c.rope = true, c.pos_enc = false, c.pos_offset = 5, c.mask.kind = ATTN_MASK_CAUSAL;
    const char *s = "the animal did not cross the street because it was too tired";
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(attn_trace_run(&t, s, strlen(s), &c, NULL, NULL, &err), ATTN_OK);
    for (int h = 0; h < c.heads; h++)
        for (int b = 1; b <= t.n; b += 3) {
            attn_tiles tl = {0};
            assert_int_equal(attn_tiles_of_head(&tl, &t, h, b, &err), ATTN_OK);
            assert_true(attn_tiles_rel_diff(tl.z, t.head[h].z, (size_t)t.n * c.d_k) <= 1e-12);
            attn_tiles_free(&tl);
        }
    attn_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equals_ordinary_path),
        cmocka_unit_test(test_huge_scores),
        cmocka_unit_test(test_hand_2x2),
        cmocka_unit_test(test_skipped_blocks),
        cmocka_unit_test(test_bytes_held),
        cmocka_unit_test(test_pytorch_reference),
        cmocka_unit_test(test_refuses_block_sizes),
        cmocka_unit_test(test_rope_reads_rotated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
