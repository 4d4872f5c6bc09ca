/* test_hf_heads.c — the head finder (src/hf/hf_heads.h): the three scores
 * and the "hide the first token" view on hand-computed weights; and on the
 * generated model with a previous-token head planted by hand
 * (tests/data/hf/planted_prev_head, gen_hf_reference.py), that head ranks
 * first by prev_token and every head's prev_token and first_token agree with
 * PyTorch's weights to 1e-9. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "test_ref.h"
#include "hf_heads.h"
#include "hf_model.h"

/* causal, rows sum to 1 */
static const double A3[9] = {1.0, 0.0, 0.0, 0.25, 0.75, 0.0, 0.5, 0.2, 0.3};

static void test_scores_by_hand(void **state) {
    (void)state;
    // the repeated sequence r r with t = 2: rows 2 and 3 are the second copy;
    // their targets are A[2][1] and A[3][2]
    static const double rep[16] = {1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0,
                                   0.1, 0.6, 0.3, 0.0, 0.1, 0.1, 0.5, 0.3};
    hf_head_score s = hf_head_score_of(A3, 3, rep, 2);
    assert_close(s.prev_token, (0.25 + 0.2) / 2.0);  // A[1][0], A[2][1]
    assert_close(s.first_token, (0.25 + 0.5) / 2.0); // A[1][0], A[2][0]; row 0 left out
    assert_close(s.induction, (0.6 + 0.5) / 2.0);
    s = hf_head_score_of(A3, 3, NULL, 0);
    assert_close(s.induction, 0.0);
    static const double one[1] = {1.0};
    s = hf_head_score_of(one, 1, NULL, 0);
    assert_close(s.prev_token, 0.0);
    assert_close(s.first_token, 1.0);
}

static void test_hide_first(void **state) {
    (void)state;
    double out[9];
    hf_hide_first(A3, 3, out);
    static const double want[9] = {0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.4, 0.6};
    for (int i = 0; i < 9; i++) assert_close(out[i], want[i]);
    // a row with all its weight on token 0 stays zero, not NaN
    static const double sink[4] = {1.0, 0.0, 1.0, 0.0};
    double o2[4];
    hf_hide_first(sink, 2, o2);
    for (int i = 0; i < 4; i++) assert_close(o2[i], 0.0);
}

static void test_rank(void **state) {
    (void)state;
    hf_head_score s[4] = {{0.1, 0.9, 0.5}, {0.7, 0.2, 0.5}, {0.3, 0.2, 0.9}, {0.7, 0.0, 0.1}};
    int order[4];
    hf_head_rank(s, 4, 0, order);
    assert_int_equal(order[0], 1); // 0.7, the lower index of the tie first
    assert_int_equal(order[1], 3);
    assert_int_equal(order[2], 2);
    assert_int_equal(order[3], 0);
    hf_head_rank(s, 4, 1, order);
    assert_int_equal(order[0], 0);
    assert_int_equal(order[3], 3);
    hf_head_rank(s, 4, 2, order);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 0);
}

static void test_induction_ids(void **state) {
    (void)state;
    int a[64], b[64], c[64];
    hf_induction_ids(a, 64, 50257, 7);
    hf_induction_ids(b, 64, 50257, 7);
    hf_induction_ids(c, 64, 50257, 8);
    int same_seed = 0, other_seed = 0, distinct = 0;
    for (int i = 0; i < 64; i++) {
        assert_true(a[i] >= 0 && a[i] < 50257);
        same_seed += a[i] == b[i];
        other_seed += a[i] == c[i];
        distinct += i > 0 && a[i] != a[i - 1];
    }
    assert_int_equal(same_seed, 64);
    assert_true(other_seed < 4);
    assert_true(distinct > 60);
    // a vocabulary of one: every id is 0
    hf_induction_ids(a, 8, 1, 7);
    for (int i = 0; i < 8; i++) assert_int_equal(a[i], 0);
}

static void test_planted_head(void **state) {
    (void)state;
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/hf/planted_prev_head", ATTN_TEST_DATA);
    snprintf(path, sizeof path, "%s/reference.json", dir);
    cJSON *ref = ref_json(path);
    hf_model m;
    attn_err err;
    if (hf_model_open(&m, dir, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const cJSON *ids = cJSON_GetObjectItem(ref, "token_ids");
    int n = cJSON_GetArraySize(ids), id[HF_MAX_TOKENS];
    for (int i = 0; i < n; i++) id[i] = cJSON_GetArrayItem(ids, i)->valueint;
    hf_run r = {0};
    if (hf_forward(&r, &m, id, n, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int count = r.n_layer * r.n_head;
    hf_head_score *s = calloc((size_t)count, sizeof *s);
    int *order = calloc((size_t)count, sizeof *order);
    assert_non_null(s);
    assert_non_null(order);
    // T = 32 asks for 64 positions; the model has 16, so T is cut to 8
    if (hf_head_scores(&m, &r, HF_INDUCTION_LEN, HF_INDUCTION_SEED, s, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const cJSON *want = cJSON_GetObjectItem(ref, "head_scores");
    assert_int_equal(cJSON_GetArraySize(want), count);
    for (int k = 0; k < count; k++) {
        const cJSON *w = cJSON_GetArrayItem(want, k);
        assert_close_tol(s[k].prev_token, cJSON_GetObjectItem(w, "prev_token")->valuedouble, 1e-9);
        assert_close_tol(s[k].first_token, cJSON_GetObjectItem(w, "first_token")->valuedouble, 1e-9);
        assert_true(s[k].induction >= 0.0 && s[k].induction <= 1.0);
    }
    const cJSON *planted = cJSON_GetObjectItem(ref, "planted");
    int want_head = cJSON_GetObjectItem(planted, "layer")->valueint * r.n_head +
                    cJSON_GetObjectItem(planted, "head")->valueint;
    hf_head_rank(s, count, 0, order);
    assert_int_equal(order[0], want_head);
    assert_true(s[order[0]].prev_token > 0.9);
    assert_true(s[order[1]].prev_token < 0.5);
    // the induction forward is seeded: the same seed gives the same scores
    hf_head_score *again = calloc((size_t)count, sizeof *again);
    assert_non_null(again);
    if (hf_head_scores(&m, &r, 4, HF_INDUCTION_SEED, again, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (hf_head_scores(&m, &r, 4, HF_INDUCTION_SEED, s, &err) != ATTN_OK) fail_msg("%s", err.msg);
    for (int k = 0; k < count; k++) assert_true(again[k].induction == s[k].induction);
    // a copy of no tokens is refused
    assert_int_equal(hf_head_scores(&m, &r, 0, 1, s, &err), ATTN_ERR_RANGE);
    free(again);
    free(order);
    free(s);
    hf_run_free(&r);
    hf_model_free(&m);
    cJSON_Delete(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_by_hand),
        cmocka_unit_test(test_hide_first),
        cmocka_unit_test(test_rank),
        cmocka_unit_test(test_induction_ids),
        cmocka_unit_test(test_planted_head),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
