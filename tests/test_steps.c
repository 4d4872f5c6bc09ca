/* test_steps.c — the step table (src/core/attn_steps.c): what each step
 * shows, the matrices' names in files, TeX and on screen, and the exports
 * that loop over it. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn_steps.h"
#include "export.h"
#include "viz_strings.h"

static const char *const sentence = "这只动物没看见那只鸟，因为它飞得太快了。";

/* Every text numbers a step by its key, and the keys are 1..8 in the rail's
 * order: the table, not a position, says so (the sub-step "2b", RoPE's, keeps
 * them; it is shown only with RoPE). */
static void test_keys_and_rows(void **state) {
    (void)state;
    static const char *const keys[ATTN_STEP_COUNT] = {"1", "2", "2b", "3", "4", "5", "6", "7", "8"};
    attn_config rope;
    attn_config_default(&rope);
    rope.rope = true;
    for (int s = 0; s < ATTN_STEP_COUNT; s++) {
        const attn_step_info *info = attn_step_get((attn_step)s);
        assert_non_null(info);
        assert_string_equal(info->key, keys[s]);
        assert_true(info->results >= 1);
        assert_true(info->operands + info->results <= ATTN_STEP_MAX_SHOWN);
        assert_int_equal(info->optional, s == ATTN_STEP_ROPE);
        assert_int_equal(attn_step_shown((attn_step)s, NULL), s != ATTN_STEP_ROPE);
        assert_true(attn_step_shown((attn_step)s, &rope));
        assert_int_equal(attn_step_from_name(info->name, strlen(info->name)), s);
        assert_int_equal(attn_step_from_key(keys[s], strlen(keys[s])), s);
        assert_string_equal(attn_step_key((attn_step)s), keys[s]);
    }
    assert_null(attn_step_get(ATTN_STEP_COUNT));
    assert_null(attn_step_get((attn_step)-1));
    assert_string_equal(attn_step_slug(ATTN_STEP_WEIGHTED), "weighted-sum");
    assert_string_equal(attn_step_name(ATTN_STEP_MULTIHEAD), "heads");
    // numbers are keys: step 3 is the scores with or without 2b; 2b is between 2 and 3
    assert_int_equal(attn_step_numbered(3), ATTN_STEP_SCORES);
    assert_int_equal(attn_step_numbered(9), -1);
    assert_string_equal(attn_step_slug(ATTN_STEP_ROPE), "rope");
    attn_config plain;
    attn_config_default(&plain);
    assert_int_equal(attn_step_next(ATTN_STEP_QKV, 1, &plain), ATTN_STEP_SCORES);
    assert_int_equal(attn_step_next(ATTN_STEP_QKV, 1, &rope), ATTN_STEP_ROPE);
    assert_int_equal(attn_step_next(ATTN_STEP_SCORES, -1, &plain), ATTN_STEP_QKV);
    assert_int_equal(attn_step_next(ATTN_STEP_MULTIHEAD, 1, &plain), ATTN_STEP_MULTIHEAD);
    // with RoPE the scores step reads q_rot and k_rot
    assert_int_equal(attn_step_matrix_under(ATTN_SM_K, ATTN_STEP_SCORES, &rope), ATTN_SM_K_ROT);
    assert_int_equal(attn_step_matrix_under(ATTN_SM_K, ATTN_STEP_SCORES, &plain), ATTN_SM_K);
    assert_int_equal(attn_step_matrix_under(ATTN_SM_K, ATTN_STEP_ROPE, &rope), ATTN_SM_K);
}

/* The result stage of each step is its first result's. */
static void test_results(void **state) {
    (void)state;
    static const attn_stage want[ATTN_STEP_COUNT] = {ATTN_ST_X, ATTN_ST_Q, ATTN_ST_Q_ROT, ATTN_ST_SCORES, ATTN_ST_SCALED,
                                                     ATTN_ST_MASKED, ATTN_ST_WEIGHTS, ATTN_ST_Z, ATTN_ST_OUTPUT};
    for (int s = 0; s < ATTN_STEP_COUNT; s++) assert_int_equal(attn_step_result((attn_step)s), want[s]);
    const attn_step_info *mask = attn_step_get(ATTN_STEP_MASK);
    assert_int_equal(mask->operands, 1);
    assert_int_equal(mask->shown[0].m, ATTN_SM_S_SCALED);
    assert_int_equal(mask->shown[1].m, ATTN_SM_S_MASKED);
    const attn_step_info *scores = attn_step_get(ATTN_STEP_SCORES);
    assert_int_equal(scores->shown[1].m, ATTN_SM_K);
    assert_true(scores->shown[1].show & ATTN_SHOW_TRANSPOSED);
}

/* One spelling per matrix and medium: the file's, the TeX's; the stage or weight behind it. */
static void test_matrix_names(void **state) {
    (void)state;
    assert_string_equal(attn_step_matrix_file(ATTN_SM_S_SCALED), "S_scaled");
    assert_string_equal(attn_step_matrix_tex(ATTN_SM_S_SCALED), "S'");
    assert_string_equal(attn_step_matrix_tex(ATTN_SM_S_MASKED), "\\tilde{S}");
    assert_string_equal(attn_step_matrix_file(ATTN_SM_CONCAT), "concat");
    assert_string_equal(attn_step_matrix_file(ATTN_SM_COUNT), "");
    assert_int_equal(attn_step_matrix_stage(ATTN_SM_S_SCALED), ATTN_ST_SCALED);
    assert_string_equal(attn_stage_name((attn_stage)attn_step_matrix_stage(ATTN_SM_S_SCALED)), "scaled"); // the CLI's
    assert_int_equal(attn_step_matrix_stage(ATTN_SM_W_O), -1);
    assert_int_equal(attn_step_matrix_weight(ATTN_SM_W_O), ATTN_MAT_W_O);
    assert_int_equal(attn_step_matrix_weight(ATTN_SM_A), -1);
    assert_true(attn_step_matrix_per_head(ATTN_SM_W_K));
    assert_true(attn_step_matrix_per_head(ATTN_SM_Z));
    assert_false(attn_step_matrix_per_head(ATTN_SM_W_O));
    assert_false(attn_step_matrix_per_head(ATTN_SM_CONCAT));
    attn_axis r, c;
    attn_step_matrix_axes(ATTN_SM_W_O, &r, &c);
    assert_int_equal(r, ATTN_AXIS_CONCAT);
    assert_int_equal(c, ATTN_AXIS_DIMS);
}

/* The values are the trace's own arrays, with their shapes. */
static void test_matrix_values(void **state) {
    (void)state;
    attn_config cfg;
    attn_config_default(&cfg);
    cfg.heads = 3;
    attn_trace t;
    memset(&t, 0, sizeof t);
    assert_int_equal(attn_trace_run(&t, sentence, strlen(sentence), &cfg, NULL, NULL, NULL), ATTN_OK);
    int rows, cols;
    assert_ptr_equal(attn_step_matrix_values(&t, ATTN_SM_S_SCALED, 2, &rows, &cols), t.head[2].scaled);
    assert_int_equal(rows, t.n);
    assert_int_equal(cols, t.n);
    assert_ptr_equal(attn_step_matrix_values(&t, ATTN_SM_W_V, 1, &rows, &cols), t.head[1].w_v);
    assert_int_equal(rows, 8);
    assert_int_equal(cols, 4);
    assert_ptr_equal(attn_step_matrix_values(&t, ATTN_SM_W_O, 0, &rows, &cols), t.w_o);
    assert_int_equal(rows, 12); // 3 heads · d_k 4
    assert_int_equal(cols, 8);
    assert_ptr_equal(attn_step_matrix_values(&t, ATTN_SM_CONCAT, 7, &rows, &cols), t.concat); // head ignored
    assert_null(attn_step_matrix_values(&t, ATTN_SM_Q, 3, &rows, &cols));                     // no head 4
    assert_int_equal(rows, 0);
    attn_trace_free(&t);
}

/* The screen names are UI strings, one per matrix and language. */
static void test_screen_names(void **state) {
    (void)state;
    viz_strings ui;
    attn_err err;
    assert_int_equal(viz_strings_load(&ui, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err), ATTN_OK);
    assert_string_equal(ui.s[VIZ_LANG_EN][VIZ_S_MAT_X + ATTN_SM_S_SCALED], "S/√dₖ");
    assert_string_equal(ui.s[VIZ_LANG_ZH][VIZ_S_DEF_X + ATTN_SM_S], "S = QKᵀ");
    assert_int_equal(VIZ_S_MAT_X + ATTN_SM_OUT, VIZ_S_MAT_OUT);
    assert_int_equal(VIZ_S_DEF_X + ATTN_SM_OUT, VIZ_S_DEF_OUT);
    viz_strings_free(&ui);
}

/* An export writes what the table shows, in its order, except what only the
 * window draws (X beside the projection): per head, W_Q W_K W_V Q K V. */
static void test_export_loops_over_the_table(void **state) {
    (void)state;
    attn_config cfg;
    attn_config_default(&cfg);
    attn_trace t;
    memset(&t, 0, sizeof t);
    assert_int_equal(attn_trace_run(&t, sentence, strlen(sentence), &cfg, NULL, NULL, NULL), ATTN_OK);
    export_matrix ms[EXPORT_MAX_MATRICES];
    static const char *const qkv[] = {"W_Q", "W_K", "W_V", "Q", "K", "V"};
    int n = export_step_matrices(&t, ATTN_STEP_QKV, -1, ms, EXPORT_MAX_MATRICES);
    assert_int_equal(n, 12);
    for (int i = 0; i < n; i++) {
        assert_string_equal(ms[i].name, qkv[i % 6]);
        assert_int_equal(ms[i].head, i / 6);
    }
    n = export_step_matrices(&t, ATTN_STEP_MULTIHEAD, 1, ms, EXPORT_MAX_MATRICES);
    assert_int_equal(n, 3);
    assert_string_equal(ms[0].tex, "\\operatorname{concat}(Z)");
    assert_int_equal(ms[1].row_axis, EXPORT_AXIS_CONCAT);
    assert_int_equal(ms[2].head, -1);
    n = export_step_matrices(&t, ATTN_STEP_MASK, 0, ms, 1); // cap respected
    assert_int_equal(n, 1);
    assert_string_equal(ms[0].name, "S_scaled");
    n = export_step_matrices(&t, ATTN_STEP_EMBED, -1, ms, EXPORT_MAX_MATRICES);
    assert_int_equal(n, 1);
    assert_true(ms[0].features);
    attn_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_and_rows),
        cmocka_unit_test(test_results),
        cmocka_unit_test(test_matrix_names),
        cmocka_unit_test(test_matrix_values),
        cmocka_unit_test(test_screen_names),
        cmocka_unit_test(test_export_loops_over_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
