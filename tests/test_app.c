/* test_app.c — app state with no window: actions in, state out; the files it
 * keeps (settings) and finds (lessons). */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "test_common.h"
#include "attn_json.h"
#include "app_actions.h"
#include "attn_steps.h"
#include "app_view.h"
#include "app_paths.h"
#include "app_settings.h"
#include "fileio.h"
#include <unistd.h>
#include "viz_strings.h"

static viz_strings strings;

static int setup(void **state) {
    (void)state;
    attn_err err;
    if (viz_strings_load(&strings, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err) != ATTN_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    viz_strings_free(&strings);
    return 0;
}

static void start(app_state *st, const char *sentence) {
    attn_config c;
    attn_config_default(&c);
    attn_err err;
    if (app_init(st, sentence, &c, &strings, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

static void test_init_defaults(void **state) {
    (void)state;
    app_state st;
    start(&st, NULL);
    assert_int_equal(st.src.trace.n, 20);
    assert_int_equal(st.view.query, 13); // 它
    assert_int_equal(st.view.step, ATTN_STEP_SOFTMAX);
    char badge[320];
    app_badge(&st, badge, sizeof badge);
    assert_string_equal(badge, "random, untrained (seed 1)");
    app_free(&st);
    app_free(NULL);
}

static void test_steps_clamp(void **state) {
    (void)state;
    app_state st;
    start(&st, "a b c");
    assert_int_equal(st.view.query, 0);
    app_goto_step(&st, 0);
    app_step(&st, -1);
    assert_int_equal(st.view.step, 0);
    app_step(&st, 100);
    assert_int_equal(st.view.step, ATTN_STEP_COUNT - 1);
    app_free(&st);
}

/* Issue 24 part 4: F4's tiles view: its record follows B, the head and the
 * step; hovering its m, ℓ or O keeps the hover (the view words it). */
static void test_tiles_view(void **state) {
    (void)state;
    app_state st;
    viz_scene s;
    char badge[320];
    start(&st, NULL);
    app_toggle_tiles(&st);
    app_scene(&st, &s, badge, sizeof badge);
    assert_non_null(s.tiles);
    assert_int_equal(s.tiles->b, 4);
    assert_int_equal(s.tiles->count, 25);
    assert_int_equal(s.tiles_step, 0);
    assert_true(attn_tiles_rel_diff(s.tiles->z, st.src.trace.head[0].z, 20 * 4) <= 1e-12);
    app_tiles_step(&st, +1);
    assert_int_equal(st.view.tiles_step, 1);
    app_tiles_step(&st, INT_MAX);
    assert_int_equal(st.view.tiles_step, 24);
    app_tiles_step(&st, +1);
    assert_int_equal(st.view.tiles_step, 24);
    app_tiles_block(&st, +1);
    assert_int_equal(st.view.tiles_b, 5);
    assert_int_equal(st.view.tiles_step, 0);
    app_scene(&st, &s, badge, sizeof badge);
    assert_int_equal(s.tiles->count, 16);
    app_tiles_block(&st, -100);
    app_scene(&st, &s, badge, sizeof badge);
    assert_int_equal(s.tiles->count, 400);
    app_tiles_block(&st, +100);
    assert_int_equal(st.view.tiles_b, 20);
    app_scene(&st, &s, badge, sizeof badge);
    assert_int_equal(s.tiles->count, 1);
    app_hover(&st, (viz_hit){.kind = VIZ_HIT_CELL, .stage = VIZ_TILE_L, .row = 3, .col = 0});
    assert_int_equal(st.view.hover.kind, VIZ_HIT_CELL);
    assert_int_equal(st.view.hover.stage, VIZ_TILE_L);
    char *cmd = app_command_line(&st); // the headless run of the view: its B, and the step's matrix (not the hovered ℓ)
    assert_non_null(strstr(cmd, " --tiles 20 --print weights"));
    free(cmd);
    st.view.head = 1; // the record follows the head shown
    app_scene(&st, &s, badge, sizeof badge);
    assert_true(attn_tiles_rel_diff(s.tiles->z, st.src.trace.head[1].z, 20 * 4) <= 1e-12);
    app_toggle_tiles(&st);
    app_scene(&st, &s, badge, sizeof badge);
    assert_null(s.tiles);
    app_free(&st);
}

/* RoPE in the window: O cycles the schemes, 2b is on the way only with RoPE,
 * a rotated cell's arithmetic is the headless one, Shift+O's shift keeps the
 * scores, and the copied command line reproduces the view. */
static void test_rope_in_the_window(void **state) {
    (void)state;
    app_state st;
    start(&st, NULL);
    app_goto_step(&st, ATTN_STEP_QKV);
    app_step(&st, 1);
    assert_int_equal(st.view.step, ATTN_STEP_SCORES); // no RoPE: 2 → 3
    app_widget(&st, VIZ_W_POSENC, 0);
    assert_true(st.src.cfg.pos_enc && !st.src.cfg.rope);
    app_widget(&st, VIZ_W_POSENC, 0);
    assert_true(!st.src.cfg.pos_enc && st.src.cfg.rope);
    app_step(&st, -1);
    assert_int_equal(st.view.step, ATTN_STEP_ROPE); // 3 → 2b → 2
    app_hover(&st, (viz_hit){.kind = VIZ_HIT_CELL, .stage = ATTN_ST_K_ROT, .head = 1, .row = 13, .col = 3});
    attn_trace t = {0};
    attn_explanation e;
    assert_int_equal(attn_trace_run(&t, st.src.sentence, strlen(st.src.sentence), &st.src.cfg, NULL, NULL, NULL), ATTN_OK);
    assert_int_equal(attn_explain(&e, &t, ATTN_ST_K_ROT, 1, 13, 3, NULL), ATTN_OK);
    assert_non_null(st.src.explain);
    assert_true(st.src.explain->value == e.value && st.src.explain->rotate.angle == e.rotate.angle);
    char *cmd = app_command_line(&st);
    assert_non_null(strstr(cmd, " --pos rope --rope-base 10000"));
    free(cmd);
    size_t nn = (size_t)t.n * t.n;
    double *before = malloc(sizeof(double) * nn);
    memcpy(before, st.src.trace.head[0].scores, sizeof(double) * nn);
    app_widget(&st, VIZ_W_POSENC, ATTN_MAX_POS_OFFSET); // Shift+O: the sentence 1000 positions on
    assert_int_equal(st.src.cfg.pos_offset, 1000);
    for (size_t k = 0; k < nn; k++) assert_close_tol(st.src.trace.head[0].scores[k], before[k], 1e-12);
    free(before);
    app_widget(&st, VIZ_W_POSENC, 0); // RoPE → none: off 2b, back to 2
    assert_false(st.src.cfg.rope || st.src.cfg.pos_enc);
    assert_int_equal(st.view.step, ATTN_STEP_QKV);
    attn_trace_free(&t);
    app_free(&st);
}

static void test_editing(void **state) {
    (void)state;
    app_state st;
    start(&st, "它飞");
    app_edit_begin(&st);
    assert_true(st.edit.ed.active);
    assert_int_equal(st.edit.ed.cursor, 6);
    app_edit_backspace(&st); // one code point: 飞 is three bytes
    assert_int_equal(st.edit.ed.cursor, 3);
    assert_string_equal(st.src.sentence, "它");
    app_edit_insert(&st, "是鸟");
    assert_string_equal(st.src.sentence, "它是鸟");
    assert_int_equal(st.src.trace.n, 3);
    app_edit_move(&st, INT_MIN);
    app_edit_delete(&st);
    assert_string_equal(st.src.sentence, "是鸟");
    app_edit_move(&st, 1);
    assert_int_equal(st.edit.ed.cursor, 3);
    app_edit_move(&st, INT_MAX);
    assert_int_equal(st.edit.ed.cursor, 6);
    // an empty sentence is refused: the last valid one stays computed
    app_edit_backspace(&st);
    app_edit_backspace(&st);
    assert_string_equal(st.edit.ed.text, "");
    assert_non_null(strstr(st.edit.ed.error, "empty"));
    assert_string_equal(st.src.sentence, "是");
    assert_int_equal(st.src.trace.n, 1);
    // Esc restores the sentence from before editing
    app_edit_cancel(&st);
    assert_false(st.edit.ed.active);
    assert_string_equal(st.src.sentence, "它飞");
    assert_int_equal(st.src.trace.n, 2);
    // compositions show but do not change the sentence until committed
    app_edit_begin(&st);
    app_edit_compose(&st, "niao");
    assert_string_equal(st.edit.ed.composition, "niao");
    assert_string_equal(st.src.sentence, "它飞");
    app_edit_insert(&st, "鸟");
    assert_string_equal(st.edit.ed.composition, "");
    app_edit_commit(&st);
    assert_string_equal(st.src.sentence, "它飞鸟");
    assert_false(st.edit.ed.active);
    app_edit_insert(&st, "x"); // not editing: ignored
    assert_string_equal(st.src.sentence, "它飞鸟");
    app_free(&st);
}

static void test_widgets(void **state) {
    (void)state;
    app_state st;
    start(&st, NULL);
    app_widget(&st, VIZ_W_HEADS, +1);
    assert_int_equal(st.src.cfg.heads, 3);
    assert_int_equal(st.src.trace.cfg.heads, 3);
    app_widget(&st, VIZ_W_DK, +1);
    assert_int_equal(st.src.cfg.d_k, 8);
    app_widget(&st, VIZ_W_DK, -1);
    assert_int_equal(st.src.cfg.d_k, 4);
    app_widget(&st, VIZ_W_DMODEL, -1);
    assert_int_equal(st.src.cfg.d_model, 4);
    app_widget(&st, VIZ_W_SCALE, 0);
    assert_false(st.src.trace.cfg.scale);
    app_widget(&st, VIZ_W_MASK, +1);
    assert_int_equal(st.src.trace.cfg.mask.kind, ATTN_MASK_CAUSAL);
    app_widget(&st, VIZ_W_MASK, -1);
    app_widget(&st, VIZ_W_WINDOW, +1); // picks a window mask first
    assert_int_equal(st.src.trace.cfg.mask.kind, ATTN_MASK_WINDOW);
    app_widget(&st, VIZ_W_WINDOW, +1);
    assert_int_equal(st.src.trace.cfg.mask.window, 2);
    uint32_t seed = st.src.cfg.seed;
    app_widget(&st, VIZ_W_SEED, 0);
    assert_true(st.src.cfg.seed != seed);
    app_widget(&st, VIZ_W_COMPARE, +1);
    assert_int_equal(st.view.compare, VIZ_COMPARE_SCALE);
    assert_int_equal(st.src.alt.n, 20);
    assert_true(st.src.alt.cfg.scale != st.src.trace.cfg.scale);
    app_widget(&st, VIZ_W_COMPARE, +1);
    assert_int_equal(st.view.compare, VIZ_COMPARE_HEADS);
    assert_true(st.view.head_b != st.view.head);
    app_widget(&st, VIZ_W_SHOW_HEAD, -1);
    assert_int_equal(st.view.head, 2);
    app_widget(&st, VIZ_W_LANG, 0);
    assert_int_equal(st.look.lang, VIZ_LANG_ZH);
    char badge[320];
    app_badge(&st, badge, sizeof badge);
    assert_non_null(strstr(badge, "随机"));
    app_widget(&st, VIZ_W_THEME, -1);
    assert_int_equal(st.look.theme, VIZ_THEME_CONTRAST);
    app_reset(&st);
    assert_int_equal(st.src.cfg.heads, 2);
    assert_int_equal(st.src.cfg.d_k, 4);
    assert_int_equal(st.view.compare, VIZ_COMPARE_OFF);
    assert_int_equal(st.view.query, 13);
    app_free(&st);
}

static void test_hover_and_cursor(void **state) {
    (void)state;
    app_state st;
    start(&st, NULL);
    app_hover(&st, (viz_hit){.kind = VIZ_HIT_CELL, .stage = ATTN_ST_SCORES, .head = 1, .row = 13, .col = 9});
    assert_true(st.src.explain_valid);
    assert_close(st.src.explain->value, st.src.trace.head[1].scores[13 * 20 + 9]);
    app_hover(&st, (viz_hit){.kind = VIZ_HIT_CELL, .stage = ATTN_ST_SCORES, .head = 5, .row = 0, .col = 0}); // no head 5
    assert_false(st.src.explain_valid);
    assert_int_equal(st.view.hover.kind, VIZ_HIT_NONE);
    app_move_cursor(&st, 0, 0); // starts at the query's row of the step's result
    assert_int_equal(st.view.hover.stage, ATTN_ST_WEIGHTS);
    assert_int_equal(st.view.hover.row, 13);
    app_move_cursor(&st, 100, -5);
    assert_int_equal(st.view.hover.row, 19);
    assert_int_equal(st.view.hover.col, 0);
    // a recompute that shrinks the sentence drops a cursor that no longer exists
    app_edit_begin(&st);
    for (int i = 0; i < 15; i++) app_edit_backspace(&st);
    assert_int_equal(st.src.trace.n, 5);
    assert_true(st.view.query < 5);
    assert_int_equal(st.view.hover.kind, VIZ_HIT_NONE);
    app_free(&st);
}

static void test_copy_texts(void **state) {
    (void)state;
    app_state st;
    start(&st, "it's a \"test\"");
    char what[64];
    char *tsv = app_matrix_tsv(&st, what, sizeof what);
    assert_string_equal(what, "weights (head 1)");
    int lines = 0;
    for (char *p = tsv; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 1 + st.src.trace.n);
    assert_non_null(strstr(tsv, "\tit's\ta\t3:\"\ttest\t5:\"\n")); // repeated tokens carry positions
    free(tsv);
    char *cmd = app_command_line(&st);
    assert_non_null(strstr(cmd, "--sentence 'it'\\''s a \"test\"'"));
    assert_non_null(strstr(cmd, "--heads 2"));
    assert_non_null(strstr(cmd, "--print weights"));
    free(cmd);
    app_free(&st);
}

static void test_scene(void **state) {
    (void)state;
    app_state st;
    start(&st, NULL);
    viz_scene s;
    char badge[320];
    app_scene(&st, &s, badge, sizeof badge);
    assert_ptr_equal(s.trace, &st.src.trace);
    assert_int_equal(s.query, 13);
    assert_string_equal(s.ui[VIZ_S_STEP_1], "Tokens & embeddings X");
    st.look.lang = VIZ_LANG_ZH;
    app_scene(&st, &s, badge, sizeof badge);
    assert_string_equal(s.ui[VIZ_S_STEP_1], "词元与嵌入 X");
    app_free(&st);
}

/* Issue 24: F5's decode view is decoded from the trace shown, follows the
 * query (",", "." and a click), says what the token costs in the narrative,
 * and is absent (the view says why) under a mask that is not causal. */
static void test_decode_view(void **state) {
    (void)state;
    app_state st;
    start(&st, NULL); // the seed sentence, 20 tokens, mask none
    viz_scene s;
    char badge[320];
    app_toggle_decode(&st);
    app_scene(&st, &s, badge, sizeof badge);
    assert_true(s.show_decode);
    assert_null(s.decode); // mask none: nothing to decode
    attn_config c = st.src.cfg;
    c.mask.kind = ATTN_MASK_CAUSAL, c.heads = 4, c.kv_heads = 2;
    assert_true(app_recompute_with(&st, &c));
    app_scene(&st, &s, badge, sizeof badge);
    assert_non_null(s.decode);
    assert_int_equal(s.decode->kv_heads, 2);
    assert_int_equal(s.query, 13);
    assert_non_null(strstr(s.narrative, "Token 14 needs only its own q, k and v rows"));
    assert_non_null(strstr(s.narrative, "4 query heads share 2 K/V heads, 2 each"));
    for (size_t i = 0; i < (size_t)s.decode->n * s.decode->d_k; i++) // the rows decoded are the trace's
        assert_close(s.decode->z[3][i], st.src.trace.head[3].z[i]);
    char *cmd = app_command_line(&st); // the command line that reproduces the view
    assert_non_null(strstr(cmd, " --heads 4 "));
    assert_non_null(strstr(cmd, " --mask causal "));
    assert_non_null(strstr(cmd, " --kv-heads 2 --decode "));
    free(cmd);
    app_kv_heads_step(&st, +1); // J: 2 of 4 -> 1 (multi-query)
    assert_int_equal(st.src.cfg.kv_heads, 1);
    app_kv_heads_step(&st, +1); // no fewer than 1
    assert_int_equal(st.src.cfg.kv_heads, 1);
    app_kv_heads_step(&st, -1);
    app_kv_heads_step(&st, -1); // back to one per head: 0, as the default writes it
    assert_int_equal(st.src.cfg.kv_heads, 0);
    app_decode_token(&st, +1);
    assert_int_equal(st.view.query, 14);
    app_decode_token(&st, +100);
    assert_int_equal(st.view.query, 19);
    app_toggle_decode(&st);
    app_scene(&st, &s, badge, sizeof badge);
    assert_false(s.show_decode);
    assert_null(s.decode);
    app_free(&st);
}

/* A --weights file whose heads differ, then J asks them to share K and V:
 * refused, said in the UI's language, the file's trace kept. */
static void test_weights_group_refused_in_zh(void **state) {
    (void)state;
    app_state st;
    start(&st, "a b c");
    char path[] = "/tmp/attnviz-gqa-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char *json = attn_json_dump(&st.src.trace); // two heads with their own W_K
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    free(json);
    attn_err err;
    assert_int_equal(app_use_weights_file(&st, path, &err), ATTN_OK);
    st.look.lang = VIZ_LANG_ZH;
    app_kv_heads_step(&st, +1);               // 2 heads -> 1 kv-head
    assert_int_equal(st.src.cfg.kv_heads, 0); // refused: unchanged
    assert_non_null(strstr(st.look.status, "heads[1].W_K 与 heads[0].W_K 不同，但有 1 个 KV 头时"));
    unlink(path);
    app_free(&st);
}

static void test_strings_errors(void **state) {
    (void)state;
    viz_strings t;
    attn_err err;
    const char *bad = "# comment\nAPP_NAME\tattnviz\tattnviz\nNOT_A_KEY\ta\tb\n";
    assert_int_equal(viz_strings_parse(&t, bad, strlen(bad), "ui.tsv", &err), ATTN_ERR_PARSE);
    assert_string_equal(err.msg, "ui.tsv:3: unknown string key \"NOT_A_KEY\".");
    const char *short_line = "APP_NAME\tattnviz\n";
    assert_int_equal(viz_strings_parse(&t, short_line, strlen(short_line), "ui.tsv", &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "ui.tsv:1: a line needs"));
    const char *specs = "APP_NAME\tattnviz\tattnviz\nSTATUS_SAVED\tSaved %s (%d%%)\t已保存 %d（%s）\n";
    assert_int_equal(viz_strings_parse(&t, specs, strlen(specs), "ui.tsv", &err), ATTN_ERR_PARSE);
    assert_string_equal(err.msg, "ui.tsv:2: the English and the Chinese text of \"STATUS_SAVED\" must have the same "
                                 "%-placeholders in the same order (English \"sd\", Chinese \"ds\").");
    const char *missing = "APP_NAME\tattnviz\tattnviz\n";
    assert_int_equal(viz_strings_parse(&t, missing, strlen(missing), "ui.tsv", &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "is missing"));
    // every string exists in both languages in the shipped table
    for (int i = 0; i < VIZ_STR_COUNT; i++) {
        assert_non_null(strings.s[VIZ_LANG_EN][i]);
        assert_non_null(strings.s[VIZ_LANG_ZH][i]);
        assert_true(strlen(strings.s[VIZ_LANG_ZH][i]) > 0);
    }
}

/* Copies a shipped lesson into a temporary file; returns its path (static). */
static const char *copy_lesson(const char *lang, char *path, size_t cap) {
    char src[512], *text = NULL;
    size_t len = 0;
    snprintf(src, sizeof src, ATTN_SOURCE_DIR "/lessons/%s/self-attention.lesson", lang);
    assert_int_equal(attn_read_file(src, 1u << 20, &text, &len, NULL), ATTN_OK);
    snprintf(path, cap, "/tmp/attnviz-test-lesson-%s-%d.lesson", lang, (int)getpid());
    assert_int_equal(attn_write_file(path, text, len, NULL, NULL), ATTN_OK);
    free(text);
    return path;
}

/* A model folder opened in the running window (the browser's file picker,
 * app_open_hf_folder): one whose default sentence does not fit (16 positions)
 * is refused and the lesson's view stays; with a sentence it opens as --hf
 * does, the lesson stepping aside, its first run computed on the worker
 * while the view before stays; X of layer 1 is the reference's (PyTorch,
 * tests/data/hf/gen_hf_reference.py: -0.12386200954615187 at [0][0]). Over
 * that model another folder refused changes nothing, and another model
 * opened leaves it shown until the new run is published. */
static void test_hf_folder_over_lesson(void **state) {
    (void)state;
    const char *dir = ATTN_SOURCE_DIR "/tests/data/hf/f32_prefix_tied";
    const char *en = "The animal didn't cross the street because it was too tired.";
    app_state st;
    start(&st, NULL);
    attn_err err;
    if (app_lesson_open(&st, ATTN_SOURCE_DIR "/lessons/en/self-attention.lesson", NULL, NULL, &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    int n = st.src.trace.n;
    double x00 = st.src.trace.x[0];
    assert_int_equal(app_open_hf_folder(&st, dir, NULL, en, "这只动物没看见那只鸟。", &err), ATTN_ERR_INPUT);
    assert_non_null(strstr(err.msg, "this model reads at most 16"));
    assert_null(st.hf);
    assert_non_null(app_lesson(&st));
    assert_int_equal(st.src.trace.n, n); // computed again: the same view
    assert_true(st.src.trace.x[0] == x00);
    if (app_open_hf_folder(&st, dir, "the cat sat on the mat", en, "这只动物没看见那只鸟。", &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    assert_non_null(st.hf);
    assert_null(app_lesson(&st));
    // its first run is the worker's: until it is published the view before stays
    for (int waited = 0; !app_hf_poll(&st); waited++) {
        assert_true(app_hf_busy(&st));
        assert_int_equal(st.src.trace.n, n);
        assert_true(waited < 60000); // a minute at most, even under valgrind
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    assert_false(app_hf_busy(&st));
    assert_null(st.src.vocab);
    assert_int_equal(st.src.trace.n, 6);
    assert_int_equal(st.model.layer, 0);
    assert_true(fabs(st.src.trace.x[0] - -0.12386200954615187) <= 1e-9);
    assert_string_equal(st.src.sentence, "the cat sat on the mat");
    // another folder refused (its default sentence does not fit): the model shown stays, its run and sentence too
    const app_hf *shown = st.hf;
    assert_int_equal(app_open_hf_folder(&st, dir, NULL, en, "这只动物没看见那只鸟。", &err), ATTN_ERR_INPUT);
    assert_ptr_equal(st.hf, shown);
    assert_true(fabs(st.src.trace.x[0] - -0.12386200954615187) <= 1e-9);
    assert_string_equal(st.src.sentence, "the cat sat on the mat");
    assert_string_equal(app_hf_dir(&st), dir);
    // another model opened: the one before is shown until the new run is published
    const char *other = ATTN_SOURCE_DIR "/tests/data/hf/bf16_prefix_eps";
    if (app_open_hf_folder(&st, other, "the mat", en, "这只动物没看见那只鸟。", &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    for (int waited = 0; !app_hf_poll(&st); waited++) {
        assert_int_equal(st.src.trace.n, 6);
        assert_true(fabs(st.src.trace.x[0] - -0.12386200954615187) <= 1e-9);
        assert_true(waited < 60000);
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    assert_string_equal(app_hf_dir(&st), other);
    assert_int_equal(st.src.trace.n, 2);
    assert_false(fabs(st.src.trace.x[0] - -0.12386200954615187) <= 1e-9);
    app_step(&st, 1); // the lesson's pages are gone: keys move through the model
    app_free(&st);
}

static void test_lesson_pages_lang_reload(void **state) {
    (void)state;
    char en[256], zh[256];
    copy_lesson("en", en, sizeof en);
    copy_lesson("zh", zh, sizeof zh);
    app_state st;
    start(&st, NULL);
    attn_err err;
    if (app_lesson_open(&st, en, zh, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_int_equal(st.look.lang, VIZ_LANG_EN);
    assert_int_equal(st.src.weights, APP_WEIGHTS_DESIGN);
    assert_true(st.lesson.predict_pending); // the first page asks before it shows
    app_select_query(&st, 1);               // the guess: "animal"
    assert_false(st.lesson.predict_pending);
    assert_non_null(strstr(st.look.status, "animal"));
    app_lesson_turn(&st, +1);
    app_lesson_turn(&st, +1);
    assert_int_equal(st.lesson.page, 2);
    const char *id = lesson_page_at(app_lesson(&st), 2)->id;
    // L keeps the page: the Chinese lesson's page with the same id
    app_switch_lang(&st);
    assert_int_equal(st.look.lang, VIZ_LANG_ZH);
    assert_string_equal(lesson_page_at(app_lesson(&st), st.lesson.page)->id, id);
    app_switch_lang(&st);
    // an author edits the file: the app reloads it on the same page
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(attn_read_file(en, 1u << 20, &text, &len, NULL), ATTN_OK);
    const char *needle = "title: ", *at = strstr(strstr(text, "=== page: why"), needle);
    assert_non_null(at);
    size_t pre = (size_t)(at - text) + strlen(needle);
    char *edited = malloc(len + 32);
    memcpy(edited, text, pre);
    memcpy(edited + pre, "EDITED ", 7);
    memcpy(edited + pre + 7, text + pre, len - pre);
    sleep(1); // a new modification time, whatever the file system's resolution
    assert_int_equal(attn_write_file(en, edited, len + 7, NULL, NULL), ATTN_OK);
    assert_true(app_lesson_reload(&st));
    assert_int_equal(st.lesson.page, 2);
    assert_non_null(strstr(lesson_page_at(app_lesson(&st), 2)->title, "EDITED"));
    assert_false(app_lesson_reload(&st)); // nothing changed since
    // a broken edit keeps the last good lesson and says why
    sleep(1);
    assert_int_equal(attn_write_file(en, "=== page: x\n@nonsense\n", 22, NULL, NULL), ATTN_OK);
    assert_false(app_lesson_reload(&st));
    assert_non_null(strstr(st.look.status, en));
    assert_int_equal(st.lesson.page, 2);
    free(text);
    free(edited);
    unlink(en);
    unlink(zh);
    app_free(&st);
}

/* ---- settings and the folders they live in ---- */

/* Issue 23 part 2: two sentences the learner types. On the page that
 * compares a sentence with its flipped pair, Shift+E edits the second side:
 * each sentence the model reads is redrawn at once (the scene's second
 * label and run follow), one it cannot read leaves the last valid one and
 * says why, Enter keeps it, Esc brings back the one before; the page's own
 * sentence never changes. Both languages. */
static void test_edit_second_sentence(void **state) {
    (void)state;
    static const char *const langs[2][2] = {{"en", "zh"}, {"zh", "en"}};
    static const char *const typed[2] = {"The animal didn't cross the river because it was too deep.", "这只动物没看见那只鸟，因为它太困了。"};
    for (int k = 0; k < 2; k++) {
        char a[512], b[512];
        snprintf(a, sizeof a, ATTN_SOURCE_DIR "/lessons/%s/self-attention.lesson", langs[k][0]);
        snprintf(b, sizeof b, ATTN_SOURCE_DIR "/lessons/%s/self-attention.lesson", langs[k][1]);
        app_state st;
        start(&st, NULL);
        attn_err err;
        if (app_lesson_open(&st, a, b, "two-layers-flip", &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(st.view.compare, VIZ_COMPARE_SENTENCE);
        assert_non_null(st.src.pair);
        char *sentence = strdup(st.src.sentence), *before = strdup(st.src.pair);
        assert_true(app_edit_pair(&st));
        assert_true(st.edit.ed.active);
        assert_string_equal(st.edit.ed.text, before);
        app_edit_select_all(&st);
        app_edit_insert(&st, typed[k]);
        assert_string_equal(st.src.pair, typed[k]);
        viz_scene sc;
        char badge[320];
        app_scene(&st, &sc, badge, sizeof badge);
        assert_non_null(sc.alt_run);
        assert_string_equal(sc.compare_labels[1], typed[k]);
        assert_string_equal(sc.compare_labels[0], sentence);
        assert_string_equal(st.src.sentence, sentence);
        app_edit_insert(&st, "zzzz"); // a word the model does not know: the last valid one stays, and why
        assert_string_equal(st.src.pair, typed[k]);
        assert_true(st.edit.ed.error[0] != '\0');
        app_edit_backspace(&st);
        app_edit_backspace(&st);
        app_edit_backspace(&st);
        app_edit_backspace(&st);
        app_edit_commit(&st); // Enter keeps it
        assert_false(st.edit.ed.active);
        assert_string_equal(st.src.pair, typed[k]);
        assert_string_equal(st.src.sentence, sentence);
        assert_int_equal(st.view.compare, VIZ_COMPARE_SENTENCE);
        assert_true(app_edit_pair(&st)); // Esc brings back the one before
        app_edit_select_all(&st);
        app_edit_insert(&st, before);
        assert_string_equal(st.src.pair, before);
        app_edit_cancel(&st);
        assert_string_equal(st.src.pair, typed[k]);
        app_scene(&st, &sc, badge, sizeof badge);
        assert_string_equal(sc.compare_labels[1], typed[k]);
        st.view.compare = VIZ_COMPARE_OFF; // another view: Shift+E is E
        assert_false(app_edit_pair(&st));
        free(sentence);
        free(before);
        app_free(&st);
    }
}

static char config_home[64];

/* A fresh XDG_CONFIG_HOME of our own; returns its settings.json path. */
static const char *fresh_config(char *settings, size_t cap) {
    snprintf(config_home, sizeof config_home, "/tmp/attnviz-cfg-XXXXXX");
    assert_non_null(mkdtemp(config_home));
    setenv("XDG_CONFIG_HOME", config_home, 1);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/attnviz", config_home);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(settings, cap, "%s/settings.json", dir);
    return settings;
}

static void drop_config(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", config_home);
    assert_int_equal(system(cmd), 0);
    unsetenv("XDG_CONFIG_HOME");
}

static char *read_all(const char *path) {
    char *t = NULL;
    size_t n;
    return attn_read_file(path, 1u << 20, &t, &n, NULL) == ATTN_OK ? t : NULL;
}

/* A hand edit with a typo is kept as settings.json.bad-N, never replaced by the defaults. */
static void test_settings_bad_file_kept(void **state) {
    (void)state;
    char path[256], bad[300];
    fresh_config(path, sizeof path);
    const char *typo = "{\n  \"theme\": \"dark\",\n  \"lang\" \"zh\"\n}\n";
    assert_int_equal(attn_write_file(path, typo, strlen(typo), NULL, NULL), ATTN_OK);
    app_settings s;
    app_settings_load(&s);
    assert_int_equal(s.state, APP_SETTINGS_KEPT_BAD);
    snprintf(bad, sizeof bad, "%s.bad-1", path);
    assert_string_equal(s.kept, bad);
    char *kept = read_all(bad);
    assert_non_null(kept);
    assert_string_equal(kept, typo);
    free(kept);
    assert_int_equal(access(path, F_OK), -1);
    app_state st;
    start(&st, NULL);
    app_settings_report(&s, &st);
    assert_non_null(strstr(st.look.status, "settings.json.bad-1"));
    assert_non_null(strstr(st.look.status, "line 3, column 10"));
    assert_true(s.can_save);
    assert_int_equal(app_settings_save(&s, &st), 0); // quitting writes fresh settings beside it
    app_settings_free(&s);
    // the next broken edit goes to bad-2; bad-1 stays
    assert_int_equal(attn_write_file(path, "[1, 2]", 6, NULL, NULL), ATTN_OK); // JSON, but not settings
    app_settings_load(&s);
    assert_int_equal(s.state, APP_SETTINGS_KEPT_BAD);
    assert_non_null(strstr(s.kept, "settings.json.bad-2"));
    assert_int_equal(access(bad, F_OK), 0);
    app_settings_free(&s);
    // the Chinese status line says the same
    assert_int_equal(attn_write_file(path, "{", 1, NULL, NULL), ATTN_OK);
    app_settings_load(&s);
    st.look.lang = VIZ_LANG_ZH;
    app_settings_report(&s, &st);
    assert_non_null(strstr(st.look.status, "settings.json.bad-3"));
    assert_non_null(strstr(st.look.status, "有效的 JSON"));
    app_settings_free(&s);
    // two objects back to back are not settings either
    assert_int_equal(attn_write_file(path, "{\"theme\": \"dark\"}{}", 19, NULL, NULL), ATTN_OK);
    app_settings_load(&s);
    assert_int_equal(s.state, APP_SETTINGS_KEPT_BAD);
    assert_int_equal(s.bad_line, 1);
    assert_int_equal(s.bad_col, 18);
    app_settings_free(&s);
    app_free(&st);
    drop_config();
}

/* A settings.json that is a FIFO is neither opened (which would block the
 * window for ever) nor written. */
static void test_settings_fifo_left_alone(void **state) {
    (void)state;
    char path[256];
    fresh_config(path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    app_settings s;
    app_settings_load(&s);
    alarm(0);
    assert_int_equal(s.state, APP_SETTINGS_NOT_A_FILE);
    assert_false(s.can_save);
    app_state st;
    start(&st, NULL);
    assert_int_equal(app_settings_save(&s, &st), -1);
    app_settings_report(&s, &st);
    assert_non_null(strstr(st.look.status, "is not a regular file"));
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    app_settings_free(&s);
    app_free(&st);
    drop_config();
}

/* settings.json as a dotfile manager's symbolic link: read and saved through it. */
static void test_settings_through_symlink(void **state) {
    (void)state;
    char path[256], target[300];
    fresh_config(path, sizeof path);
    snprintf(target, sizeof target, "%s/dotfiles-attnviz.json", config_home);
    const char *dark = "{\"theme\": \"dark\"}";
    assert_int_equal(attn_write_file(target, dark, strlen(dark), NULL, NULL), ATTN_OK);
    assert_int_equal(symlink("../dotfiles-attnviz.json", path), 0);
    app_settings s;
    app_settings_load(&s);
    assert_int_equal(s.state, APP_SETTINGS_FINE);
    assert_int_equal(s.theme, VIZ_THEME_DARK);
    app_state st;
    start(&st, "the new sentence");
    assert_int_equal(app_settings_save(&s, &st), 0);
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode)); // still the link
    char *saved = read_all(target);
    assert_non_null(strstr(saved, "the new sentence")); // its target has the settings
    free(saved);
    app_settings_free(&s);
    app_free(&st);
    drop_config();
}

/* HOME unset: the password database's home; a relative HOME or
 * XDG_CONFIG_HOME is ignored (the XDG rule), never /tmp. */
static void test_settings_folder_rules(void **state) {
    (void)state;
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL, dir[1024], want[1100];
    struct passwd *pw = getpwuid(getuid());
    assert_non_null(pw);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("HOME");
    assert_true(app_config_dir(dir, sizeof dir));
    snprintf(want, sizeof want, "%s/.config/attnviz", pw->pw_dir);
    assert_string_equal(dir, want);
    setenv("HOME", "relative/home", 1);
    assert_true(app_config_dir(dir, sizeof dir));
    assert_string_equal(dir, want);
    setenv("HOME", "/home/learner", 1);
    setenv("XDG_CONFIG_HOME", "cfg", 1); // relative: ignored
    assert_true(app_config_dir(dir, sizeof dir));
    assert_string_equal(dir, "/home/learner/.config/attnviz");
    setenv("XDG_CONFIG_HOME", "/etc/xdg-test", 1);
    assert_true(app_config_dir(dir, sizeof dir));
    assert_string_equal(dir, "/etc/xdg-test/attnviz");
    setenv("XDG_PICTURES_DIR", "Pictures", 1); // relative: ignored
    unsetenv("XDG_CONFIG_HOME");
    assert_true(app_pictures_dir(dir, sizeof dir));
    assert_string_equal(dir, "/home/learner/Pictures");
    unsetenv("XDG_PICTURES_DIR");
    if (home) setenv("HOME", home, 1);
    else unsetenv("HOME");
    free(home);
}

/* No home at all (a user the password database does not know): nothing is
 * saved, and the status line says so. Needs root, to become such a user. */
static void test_settings_no_home(void **state) {
    (void)state;
    if (geteuid() != 0) skip();
    pid_t child = fork();
    if (child == 0) {
        uid_t nobody_known = 54321;
        while (getpwuid(nobody_known)) nobody_known++;
        unsetenv("HOME");
        unsetenv("XDG_CONFIG_HOME");
        unsetenv("XDG_PICTURES_DIR");
        if (setgid(nobody_known) != 0 || setuid(nobody_known) != 0) _exit(2);
        char dir[1024];
        app_settings s;
        app_settings_load(&s);
        app_state st;
        start(&st, NULL);
        app_settings_report(&s, &st);
        bool ok = s.state == APP_SETTINGS_NO_HOME && !s.can_save && app_settings_save(&s, &st) == -1 &&
                  strstr(st.look.status, "no home folder") && !app_config_dir(dir, sizeof dir) &&
                  !app_pictures_dir(dir, sizeof dir) && access("/tmp/.config/attnviz/settings.json", F_OK) != 0;
        _exit(ok ? 0 : 1);
    }
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A lesson the user names may be a FIFO: read once, and never watched for
 * reloads (rereading would wait for a writer that is gone). */
static void test_lesson_fifo_read_once(void **state) {
    (void)state;
    char en[256], fifo[128];
    copy_lesson("en", en, sizeof en);
    snprintf(fifo, sizeof fifo, "/tmp/attnviz-test-fifo-%d.lesson", (int)getpid());
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t writer = fork();
    if (writer == 0) { // like `--lesson <(cat en.lesson)`: one writer, once
        char *text = read_all(en);
        int fd = open(fifo, O_WRONLY);
        ssize_t n = write(fd, text, strlen(text));
        close(fd);
        _exit(n == (ssize_t)strlen(text) ? 0 : 1);
    }
    app_state st;
    start(&st, NULL);
    attn_err err;
    alarm(20);
    if (app_lesson_open(&st, fifo, NULL, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int status;
    waitpid(writer, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(lesson_page_count(app_lesson(&st)), test_lesson_pages(en));
    assert_false(app_lesson_reload(&st)); // returns at once: a FIFO is not watched
    alarm(0);
    app_free(&st);
    unlink(fifo);
    unlink(en);
}

/* Issue 23: every message id of the core and the models exists in zh and
 * en, with as many arguments as its English text, and the window says the
 * sentence errors the core reports in its own language. */
static void test_messages_both_languages(void **state) {
    (void)state;
    app_state st;
    start(&st, "the cat saw a bird");
    const char args[ATTN_MSG_ARGS][128] = {"ARG0", "ARG1", "ARG2", "ARG3", "ARG4", "ARG5", "ARG6", "ARG7"};
    for (int id = ATTN_MSG_NONE + 1; id < ATTN_MSG_COUNT; id++) {
        int want = attn_msg_arg_count((attn_msg)id);
        if (want > ATTN_MSG_ARGS) fail_msg("ERR_%s takes %d arguments, more than %d", attn_msg_name((attn_msg)id), want, ATTN_MSG_ARGS);
        char out[2][640];
        for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
            app_msg_text(&st, lang, (attn_msg)id, args, out[lang], sizeof out[lang]);
            for (int a = 0; a < want; a++)
                if (!strstr(out[lang], args[a])) fail_msg("ERR_%s (%s) drops argument %d: %s", attn_msg_name((attn_msg)id), lang ? "zh" : "en", a, out[lang]);
            if (want < ATTN_MSG_ARGS && strstr(out[lang], args[want])) fail_msg("ERR_%s has too many arguments", attn_msg_name((attn_msg)id));
            assert_null(strchr(out[lang], '%'));
        }
        if (strcmp(out[0], out[1]) == 0) fail_msg("ERR_%s is not translated", attn_msg_name((attn_msg)id));
    }
    // the core's sentence errors, as the window says them in Chinese
    st.look.lang = VIZ_LANG_ZH;
    attn_tokens t = {0};
    attn_err err;
    char why[640];
    assert_int_equal(attn_tokenize(&t, "", 0, NULL, &err), ATTN_ERR_INPUT);
    assert_int_equal(err.id, ATTN_MSG_SENTENCE_EMPTY);
    app_err_text(&st, &err, why, sizeof why);
    assert_string_equal(why, "句子是空的：请输入几个词。");
    char many[4096] = "";
    for (int i = 0; i < ATTN_MAX_TOKENS + 2; i++) strcat(many, "a ");
    assert_int_equal(attn_tokenize(&t, many, strlen(many), NULL, &err), ATTN_ERR_INPUT);
    app_err_text(&st, &err, why, sizeof why);
    assert_non_null(strstr(why, "attnviz 最多显示"));
    st.look.lang = VIZ_LANG_EN;
    app_err_text(&st, &err, why, sizeof why);
    assert_string_equal(why, err.msg); // English: the core's own words
    // files dropped on a zh window: the status line says why in Chinese, with the place and the names
    st.look.lang = VIZ_LANG_ZH;
    char dir[] = "/tmp/attnviz-msgs-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/none.lesson", dir);
    app_open_dropped(&st, path);
    snprintf(why, sizeof why, "无法打开 %s：没有这个文件或文件夹。", path);
    assert_string_equal(st.look.status, why);
    static const char *const files[][2] = {
        {"bad.lesson", "# lesson: x\ntitle: T\nlang: zh\n@sentence: a b\n=== page: a\ntitle: A\n@bogus: 1\n"},
        {"model.json", "{\"format\": \"attnviz-model\", \"version\": 7}\n"},
        {"weights.json", "{\"X\": [[1, 2], [3]]}\n"},
    };
    static const char *const said[] = {"bad.lesson:7:1: 未知的指令 @bogus；", "model.json: version 是 7；这个版本的 attnviz 只读第 1 版的模型文件。",
                                       "weights.json: X 的各行长短不一：第 1 行有 1 个数，第 0 行有 2 个。"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fputs(files[i][1], fp);
        fclose(fp);
        app_open_dropped(&st, path);
        snprintf(why, sizeof why, "%s/%s", dir, said[i]);
        if (strncmp(st.look.status, why, strlen(why)) != 0) fail_msg("dropped %s: the status says \"%s\"", files[i][0], st.look.status);
        unlink(path);
    }
    rmdir(dir);
    app_free(&st);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_defaults),
        cmocka_unit_test(test_tiles_view),
        cmocka_unit_test(test_steps_clamp),
        cmocka_unit_test(test_rope_in_the_window),
        cmocka_unit_test(test_editing),
        cmocka_unit_test(test_widgets),
        cmocka_unit_test(test_hover_and_cursor),
        cmocka_unit_test(test_copy_texts),
        cmocka_unit_test(test_scene),
        cmocka_unit_test(test_decode_view),
        cmocka_unit_test(test_weights_group_refused_in_zh),
        cmocka_unit_test(test_strings_errors),
        cmocka_unit_test(test_messages_both_languages),
        cmocka_unit_test(test_lesson_pages_lang_reload),
        cmocka_unit_test(test_edit_second_sentence),
        cmocka_unit_test(test_settings_bad_file_kept),
        cmocka_unit_test(test_settings_fifo_left_alone),
        cmocka_unit_test(test_settings_through_symlink),
        cmocka_unit_test(test_settings_folder_rules),
        cmocka_unit_test(test_settings_no_home),
        cmocka_unit_test(test_lesson_fifo_read_once),
        cmocka_unit_test(test_hf_folder_over_lesson),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
