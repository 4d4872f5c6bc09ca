/* test_decode.c — issue 24: grouped-query attention (--kv-heads) and
 * decoding with a KV cache (--decode) in the core, checked by hand-counted
 * cases and against the ordinary whole-sentence path. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn.h"
#include "attn_decode.h"
#include "attn_json.h"
#include "attn_settings.h"

#define SENT "the cat sat on the mat because it was warm"

static void run(attn_trace *t, const attn_config *c, const attn_weights *w) {
    attn_err err;
    memset(t, 0, sizeof *t);
    attn_status st = attn_trace_run(t, SENT, strlen(SENT), c, NULL, w, &err);
    if (st != ATTN_OK) fail_msg("%s", err.msg);
}

static bool same(const double *a, const double *b, size_t count) {
    return memcmp(a, b, sizeof(double) * count) == 0;
}

/* 4 query heads, 2 kv-heads: heads 0, 1 share kv-head 0's K and V, heads 2, 3 kv-head 1's. */
static void test_groups_share_k_and_v(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.heads = 4, c.kv_heads = 2, c.bias = true;
    assert_int_equal(attn_kv_heads(&c), 2);
    assert_int_equal(attn_kv_head_of(&c, 0), 0);
    assert_int_equal(attn_kv_head_of(&c, 1), 0);
    assert_int_equal(attn_kv_head_of(&c, 2), 1);
    assert_int_equal(attn_kv_head_of(&c, 3), 1);
    attn_trace t;
    run(&t, &c, NULL);
    size_t w = (size_t)c.d_model * c.d_k, kv = (size_t)t.n * c.d_k;
    assert_true(same(t.head[0].w_k, t.head[1].w_k, w));
    assert_true(same(t.head[2].w_v, t.head[3].w_v, w));
    assert_true(same(t.head[0].b_k, t.head[1].b_k, (size_t)c.d_k));
    assert_true(same(t.head[0].k, t.head[1].k, kv));
    assert_true(same(t.head[2].v, t.head[3].v, kv));
    assert_false(same(t.head[0].w_k, t.head[2].w_k, w)); // two groups, two K's
    assert_false(same(t.head[0].w_q, t.head[1].w_q, w)); // queries stay each head's own
    assert_false(same(t.head[0].z, t.head[1].z, kv));
    // kv-head g draws from head g's streams: kv-head 1 is ungrouped head 1's K
    attn_config plain = c;
    plain.kv_heads = 0;
    attn_trace u;
    run(&u, &plain, NULL);
    assert_true(same(t.head[2].w_k, u.head[1].w_k, w));
    assert_true(same(t.head[0].w_q, u.head[0].w_q, w));
    // K and V are computed once per kv-head: 2 of 4
    assert_int_equal(t.macs[ATTN_ST_K], 2LL * t.n * c.d_model * c.d_k);
    assert_int_equal(t.macs[ATTN_ST_Q], 4LL * t.n * c.d_model * c.d_k);
    attn_trace_free(&t);
    attn_trace_free(&u);
}

/* G = heads is today's multi-head attention, bit for bit. */
static void test_kv_heads_equal_heads_is_multi_head(void **state) {
    (void)state;
    attn_config a, b;
    attn_config_default(&a);
    a.heads = 4;
    b = a;
    b.kv_heads = 4;
    attn_trace t, u;
    run(&t, &a, NULL);
    run(&u, &b, NULL);
    assert_true(same(t.output, u.output, (size_t)t.n * a.d_model));
    char *x = attn_json_dump(&t), *y = attn_json_dump(&u);
    assert_null(strstr(x, "kv_heads"));            // a dump without --kv-heads is as it was
    assert_non_null(strstr(y, "\"kv_heads\": 4")); // with it, the config says so
    free(x);
    free(y);
    attn_trace_free(&t);
    attn_trace_free(&u);
}

/* Multi-query: one K and V for every head. */
static void test_multi_query(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.heads = 8, c.kv_heads = 1;
    attn_trace t;
    run(&t, &c, NULL);
    for (int h = 1; h < 8; h++) assert_true(same(t.head[0].k, t.head[h].k, (size_t)t.n * c.d_k));
    attn_trace_free(&t);
}

static void test_kv_heads_refused(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.heads = 4, c.kv_heads = 3;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--kv-heads must divide --heads 4 (it is 3)"));
    c.kv_heads = 8; // more kv-heads than heads
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    c.kv_heads = 2;
    assert_int_equal(attn_config_check(&c, &err), ATTN_OK);
    // the settings table reads it, and writes it back
    attn_config d;
    attn_config_default(&d);
    int id = attn_setting_by_flag("--kv-heads", NULL);
    assert_int_equal(id, ATTN_SET_KV_HEADS);
    assert_int_equal(attn_setting_by_key("kv-heads", 8), ATTN_SET_KV_HEADS);
    assert_int_equal(attn_setting_parse(id, "1", 1, &d, NULL), ATTN_SETTING_OK);
    assert_int_equal(d.kv_heads, 1);
    assert_int_equal(attn_setting_parse(id, "9", 1, &d, NULL), ATTN_SETTING_RANGE);
    char buf[8];
    attn_setting_format(id, &d, buf, sizeof buf);
    assert_string_equal(buf, "1");
}

/* Weights whose heads of one group differ are refused, by the trace and by the file reader. */
static void test_group_weights_must_agree(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.heads = 2;
    attn_trace t;
    run(&t, &c, NULL); // two heads with their own W_K
    attn_weights w;
    memset(&w, 0, sizeof w);
    for (int h = 0; h < 2; h++) w.mat[ATTN_MAT_W_K][h] = t.head[h].w_k;
    c.kv_heads = 1;
    attn_trace u = {0};
    assert_int_equal(attn_trace_run(&u, SENT, strlen(SENT), &c, NULL, &w, &err), ATTN_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "Head 2's W_K differs from head 1's"));
    w.mat[ATTN_MAT_W_K][1] = t.head[0].w_k; // equal: accepted, and head 2 need not repeat it
    run(&u, &c, &w);
    attn_trace_free(&u);
    w.mat[ATTN_MAT_W_K][1] = NULL;
    run(&u, &c, &w);
    assert_true(same(u.head[1].w_k, t.head[0].w_k, (size_t)c.d_model * c.d_k));
    attn_trace_free(&u);
    // a dump of two separate heads, read back with --kv-heads 1
    char *json = attn_json_dump(&t);
    attn_weights_file f;
    assert_int_equal(attn_weights_file_parse(&f, json, strlen(json), "d.json", &err), ATTN_OK);
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, t.n, "d.json", &err), ATTN_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "d.json: heads[1].W_K differs from heads[0].W_K"));
    attn_weights_file_free(&f);
    free(json);
    attn_trace_free(&t);
}

/* A grouped dump fed back (with its --kv-heads) reproduces itself byte for byte,
 * Z_decode and decode keys included in what is ignored. */
static void test_dump_round_trip(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.heads = 4, c.kv_heads = 2, c.mask.kind = ATTN_MASK_CAUSAL;
    attn_trace t;
    run(&t, &c, NULL);
    attn_decode d = {0};
    assert_int_equal(attn_decode_run(&d, &t, &err), ATTN_OK);
    char *json = attn_json_dump_decode(&t, &d);
    assert_non_null(strstr(json, "\"Z_decode\""));
    assert_non_null(strstr(json, "\"real\": {\"name\": \"Llama 3 8B\""));
    attn_weights_file f;
    attn_weights w;
    assert_int_equal(attn_weights_file_parse(&f, json, strlen(json), "d.json", &err), ATTN_OK);
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, t.n, "d.json", &err), ATTN_OK);
    attn_trace u;
    run(&u, &c, &w);
    attn_decode e = {0};
    assert_int_equal(attn_decode_run(&e, &u, &err), ATTN_OK);
    char *again = attn_json_dump_decode(&u, &e);
    assert_string_equal(json, again);
    free(again);
    free(json);
    attn_weights_file_free(&f);
    attn_decode_free(&d);
    attn_decode_free(&e);
    attn_trace_free(&t);
    attn_trace_free(&u);
}

static void check_rows_equal(const attn_config *c) {
    attn_trace t;
    attn_decode d = {0};
    attn_err err;
    run(&t, c, NULL);
    assert_int_equal(attn_decode_run(&d, &t, &err), ATTN_OK);
    for (int h = 0; h < c->heads; h++)
        for (int i = 0; i < t.n; i++) {
            for (int k = 0; k < c->d_k; k++) assert_close(d.z[h][i * c->d_k + k], t.head[h].z[i * c->d_k + k]);
            for (int j = 0; j < t.n; j++) assert_close(d.weights[h][i * t.n + j], t.head[h].weights[i * t.n + j]);
        }
    assert_true(attn_decode_max_rel_diff(&d, &t) <= 1e-12);
    attn_decode_free(&d);
    attn_trace_free(&t);
}

/* Each decoded row equals the same row of the full causal computation. */
static void test_decode_rows_equal_causal(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.mask.kind = ATTN_MASK_CAUSAL;
    check_rows_equal(&c);
    c.heads = 4, c.kv_heads = 2, c.bias = true;
    check_rows_equal(&c);
    c.mask.kind = ATTN_MASK_CAUSAL_WINDOW, c.mask.window = 2, c.scale = false;
    check_rows_equal(&c);
    c.heads = 8, c.kv_heads = 1, c.d_k = 8, c.d_model = 16;
    check_rows_equal(&c);
    c.rope = true, c.pos_enc = false, c.pos_offset = 7; // RoPE: the new q and k rotated at their own position
    check_rows_equal(&c);
    c.heads = 4, c.kv_heads = 2, c.mask.kind = ATTN_MASK_CAUSAL, c.pos_offset = 0;
    check_rows_equal(&c);
}

/* The records, counted by hand for d_model 8, d_k 4, 2 heads, 1 kv-head, scaled. */
static void test_decode_records(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.kv_heads = 1, c.mask.kind = ATTN_MASK_CAUSAL;
    attn_trace t;
    run(&t, &c, NULL);
    attn_decode d = {0};
    assert_int_equal(attn_decode_run(&d, &t, &err), ATTN_OK);
    // token 0: q 2·8·4 = 64, k and v 2·1·8·4 = 64, scores 2·1·4 = 8, scale 2, softmax 2,
    // z 2·1·4 = 8, output row 2·4·8 = 64: 212
    assert_int_equal(d.step[0].macs, 212);
    assert_int_equal(d.step[0].full_macs, 212); // one token: the same work
    // token 3: cells 4: 64 + 64 + 32 + 8 + 8 + 32 + 64 = 272
    assert_int_equal(d.step[3].cells, 4);
    assert_int_equal(d.step[3].cells_read, 3);
    assert_int_equal(d.step[3].macs, 272);
    // recomputing 4 tokens: q 2·4·8·4 = 256, k 128, v 128 (1 kv-head), scores 2·16·4 = 128,
    // scale 32, softmax 32, z 128, output 4·2·4·8 = 256: 1088
    assert_int_equal(d.step[3].full_macs, 1088);
    assert_int_equal(d.step[3].macs_total, 212 + 232 + 252 + 272);
    assert_true(d.step[t.n - 1].macs_total < d.step[t.n - 1].full_total);
    // 2 · 1 layer · 1 kv-head · d_k 4 · 4 tokens · 8 bytes
    assert_int_equal(d.step[3].cache_bytes, 256);
    assert_int_equal(d.step[3].real_bytes, 2LL * 32 * 8 * 128 * 4 * 2);
    assert_int_equal(attn_kv_cache_bytes(32, 8, 128, 4096, 2), 536870912LL);
    // 8 query heads with 2 kv-heads: the cache is 4 times smaller than with 8
    assert_int_equal(attn_kv_cache_bytes(1, 8, 4, 10, 8) / attn_kv_cache_bytes(1, 2, 4, 10, 8), 4);
    attn_decode_free(&d);
    attn_trace_free(&t);
    // causal-window:2 reads at most 3 cells, so the cache slides: it keeps the 2 newest rows
    c.mask.kind = ATTN_MASK_CAUSAL_WINDOW, c.mask.window = 2;
    run(&t, &c, NULL);
    assert_int_equal(attn_decode_run(&d, &t, &err), ATTN_OK);
    assert_int_equal(d.window, 2);
    assert_int_equal(d.step[1].cells, 2);
    assert_int_equal(d.step[1].cache_len, 2); // tokens 0 and 1: nothing evicted yet
    assert_int_equal(d.step[1].evicted, 0);
    assert_int_equal(d.step[2].cache_len, 2); // token 2 read 0, 1, 2; token 0 leaves after it
    assert_int_equal(d.step[2].evicted, 1);
    assert_int_equal(d.step[5].cells, 3);
    assert_int_equal(d.step[5].first, 3);
    assert_int_equal(d.step[5].cells_read, 2); // the 2 rows the sliding cache held before token 5
    assert_int_equal(d.step[5].cache_len, 2);
    assert_int_equal(d.step[5].evicted, 4);
    assert_int_equal(d.step[5].cache_bytes, 2 * 1 * 1 * 4 * 2 * 8); // the 2-row cache, not 6 rows
    assert_true(attn_decode_max_rel_diff(&d, &t) == 0.0);           // the same rows as the full path, bit for bit
    char *json = attn_json_dump_decode(&t, &d);
    assert_non_null(strstr(json, "\"cache_len\": [1, 2, 2, 2, 2, 2"));
    assert_non_null(strstr(json, "\"evicted\": [0, 0, 1, 2, 3, 4"));
    free(json);
    attn_decode_free(&d);
    attn_trace_free(&t);
}

static void test_decode_refused_without_causal_mask(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    attn_trace t;
    attn_decode d = {0};
    run(&t, &c, NULL);
    assert_int_equal(attn_decode_run(&d, &t, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--decode needs --mask causal or causal-window:W (the mask is none)"));
    assert_null(d.block_);
    attn_trace_free(&t);
    c.mask.kind = ATTN_MASK_WINDOW, c.mask.window = 1;
    run(&t, &c, NULL);
    assert_int_equal(attn_decode_run(&d, &t, &err), ATTN_ERR_RANGE);
    attn_trace_free(&t);
    attn_decode_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_share_k_and_v),
        cmocka_unit_test(test_kv_heads_equal_heads_is_multi_head),
        cmocka_unit_test(test_multi_query),
        cmocka_unit_test(test_kv_heads_refused),
        cmocka_unit_test(test_group_weights_must_agree),
        cmocka_unit_test(test_dump_round_trip),
        cmocka_unit_test(test_decode_rows_equal_causal),
        cmocka_unit_test(test_decode_records),
        cmocka_unit_test(test_decode_refused_without_causal_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
