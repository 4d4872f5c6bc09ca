/* test_cli.c — command-line parsing and headless runs, in process. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "attn_settings.h"
#include "cli_args.h"
#include "cli_print.h"
#include "cli_run.h"

static attn_status parse(cli_opts *o, attn_err *err, int argc, ...) {
    char *argv[32];
    va_list ap;
    va_start(ap, argc);
    argv[0] = "attnviz";
    for (int i = 1; i < argc; i++) argv[i] = va_arg(ap, char *);
    va_end(ap);
    return cli_parse(o, argc, argv, err);
}

static void test_defaults_and_modes(void **state) {
    (void)state;
    cli_opts o;
    attn_err err;
    assert_int_equal(parse(&o, &err, 1), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_GUI);
    assert_int_equal(parse(&o, &err, 2, "--headless"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_HEADLESS);
    assert_true(o.print);
    assert_int_equal(o.print_stage, -1);
    assert_int_equal(parse(&o, &err, 3, "--print", "weights"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_HEADLESS);
    assert_int_equal(o.print_stage, ATTN_ST_WEIGHTS);
    assert_int_equal(parse(&o, &err, 2, "--version"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_VERSION);
    assert_int_equal(parse(&o, &err, 2, "--help"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_HELP);
    assert_non_null(strstr(cli_help_text(), "--dump-json"));
    // the window opens with the figure alone (--view figure, as the exports name it)
    assert_int_equal(parse(&o, &err, 3, "--view", "figure"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_GUI);
    assert_string_equal(o.view, "figure");
    assert_int_equal(parse(&o, &err, 3, "--view", "window"), ATTN_OK);
    assert_int_equal(parse(&o, &err, 3, "--view", "poster"), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "not a view"));
    assert_int_equal(parse(&o, &err, 4, "--headless", "--view", "figure"), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--view goes with"));
}

static void test_config_flags(void **state) {
    (void)state;
    cli_opts o;
    attn_err err;
    assert_int_equal(parse(&o, &err, 15, "--headless", "--d-model", "16", "--d-k", "8", "--heads", "3",
                           "--seed", "4294967295", "--mask", "causal-window:2", "--no-scale", "--pos-enc", "--bias"),
                     ATTN_OK);
    assert_int_equal(o.cfg.d_model, 16);
    assert_int_equal(o.cfg.d_k, 8);
    assert_int_equal(o.cfg.heads, 3);
    assert_int_equal(o.cfg.seed, 4294967295u);
    assert_int_equal(o.cfg.mask.kind, ATTN_MASK_CAUSAL_WINDOW);
    assert_int_equal(o.cfg.mask.window, 2);
    assert_false(o.cfg.scale);
    assert_true(o.cfg.pos_enc);
    assert_true(o.cfg.bias);
    assert_true(o.set_d_model && o.set_d_k && o.set_heads);
    assert_int_equal(parse(&o, &err, 3, "--explain", "weights:1:11:9"), ATTN_OK);
    assert_true(o.explain);
    assert_int_equal(o.explain_stage, ATTN_ST_WEIGHTS);
    assert_int_equal(o.explain_head, 1);
    assert_int_equal(o.explain_row, 11);
    assert_int_equal(o.explain_col, 9);
}

/* Every setting of the table is a flag: a value it writes reads back to the
 * same configuration (the lesson key reads it too), and its --help line is
 * in the help, with an INT's range from the table. */
static void test_settings_table(void **state) {
    (void)state;
    static char *const values[ATTN_SETTING_COUNT] = {"16", "8", "3", "7", "window:2", "off", "on", "on", "2-5", "1", "rope", "500000", "1000"};
    attn_config want;
    attn_config_default(&want);
    for (int id = 0; id < ATTN_SETTING_COUNT; id++) {
        const attn_setting *s = attn_setting_at(id);
        cli_opts o;
        attn_err err;
        bool on = strcmp(values[id], "on") == 0;
        char *flag = (char *)(s->kind == ATTN_SETTING_ONOFF && !on ? s->off_flag : s->flag);
        if (s->kind == ATTN_SETTING_ONOFF) assert_int_equal(parse(&o, &err, 3, "--headless", flag), ATTN_OK);
        else assert_int_equal(parse(&o, &err, 4, "--headless", flag, values[id]), ATTN_OK);
        assert_true(cli_setting_given(&o, id));
        char back[32];
        attn_setting_format(id, &o.cfg, back, sizeof back);
        assert_string_equal(back, values[id]);
        attn_config lesson = want; // the lesson key, spelled with - or _
        assert_int_equal(attn_setting_parse(attn_setting_by_key(s->key, strlen(s->key)), values[id], strlen(values[id]),
                                            &lesson, NULL),
                         ATTN_SETTING_OK);
        attn_setting_copy(id, &want, &o.cfg);
        assert_memory_equal(&lesson, &want, sizeof want);
        assert_non_null(strstr(cli_help_text(), flag));
    }
    assert_non_null(strstr(cli_help_text(), "  --d-k N               width per head, 1-128 (default 4)\n"));
    assert_int_equal(attn_setting_by_key("pos-dims", 8), ATTN_SET_POS_DIMS);
    assert_string_equal(attn_setting_keys(), "d_model, d_k, heads, seed, mask, scale, pos_enc, bias, pos_dims, kv_heads, "
                                             "pos, rope_base or pos_offset");
}

/* --pos-dims and pos_dims= read with one rule: digits only, FIRST <= LAST < 512. */
static void test_pos_dims_one_rule(void **state) {
    (void)state;
    static const char *const bad[] = {"3-1", "+1-3", " 1-3", "1- 3", "0-512", "1", "-", "a-b", "1-3x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cli_opts o;
        attn_err err;
        assert_int_equal(parse(&o, &err, 4, "--headless", "--pos-dims", (char *)bad[i]), ATTN_ERR_RANGE);
        attn_config c;
        attn_config_default(&c);
        assert_int_equal(attn_setting_parse(ATTN_SET_POS_DIMS, bad[i], strlen(bad[i]), &c, NULL), ATTN_SETTING_BAD);
    }
}

static void expect_error(const char *want, int argc, char *a1, char *a2) {
    cli_opts o;
    attn_err err;
    attn_status st = argc == 2 ? parse(&o, &err, 2, a1) : parse(&o, &err, 3, a1, a2);
    if (st == ATTN_OK) fail_msg("%s %s was accepted", a1, a2 ? a2 : "");
    if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

/* One --pos: the last of --pos and its alias --pos-enc wins, learned is a
 * model's, and the offset and base have the table's ranges. */
static void test_pos_one_scheme(void **state) {
    (void)state;
    cli_opts o;
    attn_err err;
    assert_int_equal(parse(&o, &err, 5, "--headless", "--pos", "rope", "--pos-enc"), ATTN_OK);
    assert_true(o.cfg.pos_enc);
    assert_false(o.cfg.rope);
    assert_int_equal(parse(&o, &err, 5, "--headless", "--pos-enc", "--pos", "rope"), ATTN_OK);
    assert_false(o.cfg.pos_enc);
    assert_true(o.cfg.rope);
    assert_int_equal(o.cfg.rope_base, 10000.0);
    assert_int_equal(parse(&o, &err, 5, "--headless", "--pos", "rope", "--no-pos-enc"), ATTN_OK);
    assert_false(o.cfg.rope || o.cfg.pos_enc);
    expect_error("--pos learned is a table a model learns", 3, "--pos", "learned");
    expect_error("Unknown position scheme \"alibi\"", 3, "--pos", "alibi");
    expect_error("--pos-offset must be between 0 and 4096 (it is 4097)", 3, "--pos-offset", "4097");
    expect_error("--rope-base must be between 2 and 1000000000 (it is 1)", 3, "--rope-base", "1");
    attn_config c;
    attn_config_default(&c);
    c.rope = true;
    c.d_k = 3;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "needs an even --d-k (it is 3)"));
    c.d_k = 4;
    c.pos_count = 2;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--pos-dims keeps the sinusoids to some columns of X"));
    c.pos_count = 0;
    c.pos_enc = true;
    assert_int_equal(attn_config_check(&c, &err), ATTN_ERR_RANGE);
    // --train takes the scheme over; --pos-offset is a run's, not a training's
    assert_int_equal(parse(&o, &err, 7, "--train", "induction", "--save", "m.json", "--pos", "rope"), ATTN_OK);
    assert_int_equal(o.model.pos, MODEL_POS_ROPE);
    assert_int_equal(parse(&o, &err, 9, "--train", "induction", "--save", "m.json", "--pos", "learned", "--rope-base",
                           "500"),
                     ATTN_ERR_RANGE);
    assert_int_equal(parse(&o, &err, 7, "--train", "induction", "--save", "m.json", "--pos-offset", "3"), ATTN_ERR_RANGE);
    // a model run takes it (the sentence starts at 3); another one-layer flag stays refused
    assert_int_equal(parse(&o, &err, 6, "--headless", "--model", "m.json", "--pos-offset", "3"), ATTN_OK);
    assert_int_equal(o.cfg.pos_offset, 3);
    assert_int_equal(parse(&o, &err, 8, "--headless", "--model", "m.json", "--pos-offset", "3", "--heads", "2"),
                     ATTN_ERR_RANGE);
}

static void test_bad_flags(void **state) {
    (void)state;
    expect_error("--d-k must be between 1 and 128 (it is 0)", 3, "--d-k", "0");
    expect_error("--heads must be between 1 and 8 (it is 9)", 3, "--heads", "9");
    expect_error("--heads must be between 1 and 8 (it is 0)", 3, "--heads", "0");
    expect_error("--d-model must be between 1 and 512", 3, "--d-model", "513");
    expect_error("--seed must be between 0 and 4294967295", 3, "--seed", "4294967296");
    expect_error("--seed must be between 0 and 4294967295", 3, "--seed", "99999999999999999999999");
    expect_error("--seed must be between 0 and 4294967295", 3, "--seed", "-1");
    expect_error("--d-k needs a whole number, not \"2.5\"", 3, "--d-k", "2.5");
    expect_error("--d-k needs a whole number, not \"four\"", 3, "--d-k", "four");
    expect_error("--d-k needs a whole number, not \"\"", 3, "--d-k", "");
    expect_error("between 1 and 64", 3, "--mask", "window:0");
    expect_error("Unknown mask", 3, "--mask", "diagonal");
    expect_error("--heads needs a value", 2, "--heads", NULL);
    expect_error("Unknown option \"--frobnicate\"", 2, "--frobnicate", NULL);
    expect_error("unknown stage \"attention\"", 3, "--print", "attention");
    expect_error("STAGE:HEAD:ROW:COL", 3, "--explain", "weights:0:1");
    expect_error("unknown stage \"w\"", 3, "--explain", "w:0:1:1");
}

/* Runs argv through the headless front end; returns the exit code and the
 * text written to stdout and stderr (caller frees). */
static int run(char **out, char **errtext, int argc, char **argv) {
    cli_opts o;
    attn_err err;
    assert_int_equal(cli_parse(&o, argc, argv, &err), ATTN_OK);
    size_t olen, elen;
    FILE *fo = open_memstream(out, &olen), *fe = open_memstream(errtext, &elen);
    int code = cli_run_headless(&o, fo, fe);
    fclose(fo);
    fclose(fe);
    return code;
}

static void test_print_seed_sentence(void **state) {
    (void)state;
    char *out, *errtext;
    char *argv[] = {"attnviz", "--headless", "--print"};
    assert_int_equal(run(&out, &errtext, 3, argv), 0);
    assert_non_null(strstr(out, "tokens (20): 1:这 2:只 3:动 "));
    assert_non_null(strstr(out, "weights: random, untrained (seed 1)"));
    const char *stages[] = {"== x:", "== q, head 1", "== k, head 2", "== v, head 1", "== scores, head 1",
                            "== scaled, head 2", "== masked, head 1", "== weights, head 2", "== z, head 1",
                            "== concat:", "== output:"}; // heads counted from 1, as the window counts them
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) assert_non_null(strstr(out, stages[i]));
    assert_non_null(strstr(out, "9:只")); // repeated tokens carry their position
    assert_string_equal(errtext, "");
    free(out);
    free(errtext);
}

static void test_aligned_by_display_width(void **state) {
    (void)state;
    char *out, *errtext;
    char *argv[] = {"attnviz", "--headless", "--sentence", "它 is 鸟", "--print", "weights"};
    assert_int_equal(run(&out, &errtext, 6, argv), 0);
    // every row of the first weights table has the same display width
    char *table = strstr(out, "== weights, head 1");
    assert_non_null(table);
    char *line = strchr(table, '\n') + 1;
    int widths[4];
    for (int r = 0; r < 4; r++) {
        char *end = strchr(line, '\n');
        int w = 0;
        for (char *p = line; p < end; p++) w += ((unsigned char)*p & 0xC0) != 0x80;
        for (char *p = line; p < end; p++) // CJK characters are 3 bytes and 2 columns
            if ((unsigned char)*p >= 0xE0) w += 1;
        widths[r] = w;
        line = end + 1;
    }
    assert_int_equal(widths[0], widths[1]);
    assert_int_equal(widths[1], widths[2]);
    assert_int_equal(widths[2], widths[3]);
    free(out);
    free(errtext);
}

static void test_run_errors(void **state) {
    (void)state;
    char *out, *errtext;
    char *argv1[] = {"attnviz", "--headless", "--sentence", "   "};
    assert_int_equal(run(&out, &errtext, 4, argv1), 1);
    assert_non_null(strstr(errtext, "attnviz: "));
    assert_non_null(strstr(errtext, "only spaces"));
    free(out);
    free(errtext);
    char *argv2[] = {"attnviz", "--headless", "--weights", "/nonexistent.json"};
    assert_int_equal(run(&out, &errtext, 4, argv2), 1);
    assert_non_null(strstr(errtext, "Cannot open /nonexistent.json"));
    assert_string_equal(out, "");
    free(out);
    free(errtext);
    char *argv3[] = {"attnviz", "--explain", "weights:5:0:0"};
    assert_int_equal(run(&out, &errtext, 3, argv3), 1);
    assert_non_null(strstr(errtext, "Head 5 does not exist"));
    free(out);
    free(errtext);
}

static void test_explain_output(void **state) {
    (void)state;
    char *out, *errtext;
    char *argv[] = {"attnviz", "--explain", "scores:0:13:9"};
    assert_int_equal(run(&out, &errtext, 3, argv), 0);
    assert_non_null(strstr(out, "scores (head 1 of 2) [13][9]"));
    assert_non_null(strstr(out, "\"它\""));
    assert_non_null(strstr(out, "total = "));
    free(out);
    free(errtext);
}

static void test_format_cell(void **state) {
    (void)state;
    char buf[32];
    cli_format_cell(buf, sizeof buf, 0.25);
    assert_string_equal(buf, "0.2500");
    cli_format_cell(buf, sizeof buf, -INFINITY);
    assert_string_equal(buf, "-inf");
    cli_format_cell(buf, sizeof buf, 1.5e20);
    assert_string_equal(buf, "1.500e+20");
}

/* ---- lessons (issue 4) ---------------------------------------------------- */

#define ZH_LESSON ATTN_SOURCE_DIR "/lessons/zh/self-attention.lesson"
#define BAD_LESSON ATTN_SOURCE_DIR "/tests/lessons/bad-several.lesson"

static void test_lesson_flags(void **state) {
    (void)state;
    cli_opts o;
    attn_err err;
    assert_int_equal(parse(&o, &err, 3, "--lesson", "a.lesson"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_GUI); // the GUI opens it
    assert_string_equal(o.lesson_path, "a.lesson");
    assert_null(o.page_id);
    assert_int_equal(parse(&o, &err, 7, "--headless", "--lesson", "a.lesson", "--page", "scale", "--no-scale"),
                     ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_HEADLESS);
    assert_string_equal(o.page_id, "scale");
    assert_true(o.set_scale);
    assert_false(o.set_seed || o.set_mask || o.set_pos_enc || o.set_bias);
    assert_int_equal(parse(&o, &err, 3, "--check-lesson", "a.lesson"), ATTN_OK);
    assert_int_equal(o.mode, CLI_MODE_HEADLESS);
    assert_string_equal(o.check_lesson, "a.lesson");
    assert_false(o.print);
    expect_error("--page needs --lesson", 3, "--page", "intro");
    char *argv1[] = {"attnviz", "--lesson", "a", "--weights", "w.json"};
    assert_int_equal(cli_parse(&o, 5, argv1, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "either --lesson"));
    char *argv2[] = {"attnviz", "--check-lesson", "a", "--print"};
    assert_int_equal(cli_parse(&o, 4, argv2, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--check-lesson only checks a lesson"));
    assert_non_null(strstr(cli_help_text(), "--check-lesson FILE"));
}

static void test_lesson_headless(void **state) {
    (void)state;
    char *out, *errtext;
    char *argv[] = {"attnviz", "--headless", "--lesson", ZH_LESSON, "--page", "intro", "--print", "weights"};
    assert_int_equal(run(&out, &errtext, 8, argv), 0);
    assert_non_null(strstr(out, "tokens (17): 1:这 2:只 3:动物 4:没 5:看见")); // the vocabulary's words
    assert_non_null(strstr(out, "weights: from the lesson "));
    assert_non_null(strstr(out, "page intro"));
    assert_non_null(strstr(out, "0.8088")); // 它 -> 鸟
    free(out);
    free(errtext);
    // --sentence replaces the page's sentence and keeps the vocabulary and the designs
    char *argv2[] = {"attnviz", "--headless", "--lesson", ZH_LESSON, "--sentence", "它看见那只猫。", "--print", "x"};
    assert_int_equal(run(&out, &errtext, 8, argv2), 0);
    assert_non_null(strstr(out, "tokens (6): 1:它 2:看见 3:那 4:只 5:猫 6:。"));
    assert_non_null(strstr(out, "weights: from the lesson "));
    free(out);
    free(errtext);
    // a settings flag the design does not fit: random weights, and the tokens line says so
    char *argv3[] = {"attnviz", "--headless", "--lesson", ZH_LESSON, "--d-k", "3", "--print", "x"};
    assert_int_equal(run(&out, &errtext, 8, argv3), 0);
    assert_non_null(strstr(out, "weights: random, untrained (seed 1)"));
    free(out);
    free(errtext);
    char *argv4[] = {"attnviz", "--headless", "--lesson", ZH_LESSON, "--page", "nope"};
    assert_int_equal(run(&out, &errtext, 6, argv4), 1);
    assert_non_null(strstr(errtext, "has no page \"nope\"; its pages are: intro, qkv, why"));
    assert_string_equal(out, "");
    free(out);
    free(errtext);
}

static void test_check_lesson(void **state) {
    (void)state;
    char *out, *errtext;
    char *argv[] = {"attnviz", "--check-lesson", ZH_LESSON};
    assert_int_equal(run(&out, &errtext, 3, argv), 0);
    char want[64];
    snprintf(want, sizeof want, "self-attention.lesson: ok, %d pages\n", test_lesson_pages(ZH_LESSON));
    assert_non_null(strstr(out, want));
    assert_string_equal(errtext, "");
    free(out);
    free(errtext);
    char *argv2[] = {"attnviz", "--check-lesson", BAD_LESSON};
    assert_int_equal(run(&out, &errtext, 3, argv2), 1);
    assert_string_equal(out, "");
    assert_non_null(strstr(errtext, "bad-several.lesson:8:7: “bird” has 3 numbers"));
    assert_non_null(strstr(errtext, "bad-several.lesson:13:8: there is no step “9”"));
    assert_non_null(strstr(errtext, "bad-several.lesson:15:1: unknown directive @colour"));
    free(out);
    free(errtext);
    char *argv3[] = {"attnviz", "--check-lesson", "/nonexistent.lesson"};
    assert_int_equal(run(&out, &errtext, 3, argv3), 1);
    assert_non_null(strstr(errtext, "attnviz: Cannot open /nonexistent.lesson"));
    free(out);
    free(errtext);
}

/* Issue 24: --tiles B, refused outside 1..64 in the learner's language, and
 * what --print says about the tiled pass. */
static void test_tiles_flag(void **state) {
    (void)state;
    cli_opts o;
    attn_err err;
    assert_int_equal(parse(&o, &err, 4, "--tiles", "3", "--print", "--headless"), ATTN_OK);
    assert_int_equal(o.tiles, 3);
    assert_int_equal(parse(&o, &err, 3, "--tiles", "64", "--print"), ATTN_OK);
    assert_int_equal(o.tiles, 64);
    assert_int_equal(parse(&o, &err, 6, "--tiles", "0", "--print", "--lang", "en"), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--tiles needs a block size B, a whole number from 1 to 64 (not \"0\")"));
    assert_int_equal(parse(&o, &err, 6, "--lang", "zh", "--tiles", "65", "--print"), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--tiles 的块大小 B 必须是 1 到 64 之间的整数（现在是 \"65\"）"));
    assert_int_equal(parse(&o, &err, 3, "--tiles", "-1"), ATTN_ERR_RANGE);
    assert_int_equal(parse(&o, &err, 6, "--tiles", "2", "--model", "m.json", "--print"), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "not with --model"));
    char *out, *errtext;
    char *argv[] = {"attnviz", "--headless", "--print", "weights", "--mask", "causal", "--tiles", "4"};
    assert_int_equal(run(&out, &errtext, 8, argv), 0);
    assert_non_null(strstr(out, "tiles (head 0): B = 4, 5×5 blocks, 25 steps (10 skipped, fully masked); bytes held at "
                                "most 320 (one n×n matrix: n²·8 = 3200)"));
    assert_non_null(strstr(out, "tiles (head 1): B = 4"));
    assert_string_equal(errtext, "");
    free(out);
    free(errtext);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiles_flag),
        cmocka_unit_test(test_defaults_and_modes),
        cmocka_unit_test(test_config_flags),
        cmocka_unit_test(test_bad_flags),
        cmocka_unit_test(test_print_seed_sentence),
        cmocka_unit_test(test_aligned_by_display_width),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_explain_output),
        cmocka_unit_test(test_format_cell),
        cmocka_unit_test(test_lesson_flags),
        cmocka_unit_test(test_lesson_headless),
        cmocka_unit_test(test_check_lesson),
        cmocka_unit_test(test_settings_table),
        cmocka_unit_test(test_pos_dims_one_rule),
        cmocka_unit_test(test_pos_one_scheme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
