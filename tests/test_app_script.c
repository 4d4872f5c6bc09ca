/* test_app_script.c — the --script parser: every command, escapes, and every error. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "app_script.h"
#include "attn.h"
#include "utf8.h"

static attn_status parse_str(app_script *s, const char *text, attn_err *err) {
    return app_script_parse(s, text, strlen(text), "demo.txt", err);
}

/* Parses text that must succeed; fails the test with the message otherwise. */
static void parse_ok(app_script *s, const char *text) {
    attn_err err;
    attn_err_clear(&err);
    if (parse_str(s, text, &err) != ATTN_OK) fail_msg("rejected: %s", err.msg);
}

/* Parses text (len bytes) that must fail with "demo.txt:LINE: " and want in it. */
static void expect_error_n(const char *text, size_t len, int line, const char *want) {
    app_script s = {(app_script_cmd *)&s, 99}; /* must be reset on failure */
    attn_err err;
    char prefix[32];
    attn_status st = app_script_parse(&s, text, len, "demo.txt", &err);
    if (st == ATTN_OK) fail_msg("accepted: %s", text);
    assert_int_equal(st, ATTN_ERR_PARSE);
    assert_int_equal(err.code, ATTN_ERR_PARSE);
    assert_null(s.cmds);
    assert_int_equal(s.count, 0);
    snprintf(prefix, sizeof prefix, "demo.txt:%d: ", line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0) fail_msg("\"%s\" does not start with \"%s\"", err.msg, prefix);
    if (!strstr(err.msg, want)) fail_msg("\"%s\" lacks \"%s\"", err.msg, want);
    assert_int_equal(utf8_find_invalid(err.msg, strlen(err.msg)), (size_t)-1);
}

static void expect_error(const char *text, int line, const char *want) {
    expect_error_n(text, strlen(text), line, want);
}

static void test_every_command(void **state) {
    (void)state;
    app_script s;
    parse_ok(&s, "size 1280 800\n"
                 "type the cat sat\n"
                 "compose にほ\n"
                 "commit 日本\n"
                 "key ctrl+shift+c\n"
                 "click 10 20\n"
                 "hover token 3\n"
                 "click step 8\n"
                 "hover cell weights 1 2 3\n"
                 "wheel -3\n"
                 "wheel 2 400 300\n"
                 "wait 60000\n"
                 "shot out/my shot.png\n"
                 "expect step 3\n"
                 "quit\n");
    assert_int_equal(s.count, 15);
    const app_script_cmd *c = s.cmds;
    for (int i = 0; i < s.count; i++) {
        assert_int_equal(c[i].line, i + 1);
        assert_non_null(c[i].text);
    }
    assert_int_equal(c[0].kind, APP_SC_SIZE);
    assert_int_equal(c[0].v[0], 1280);
    assert_int_equal(c[0].v[1], 800);
    assert_string_equal(c[0].text, "");
    assert_int_equal(c[1].kind, APP_SC_TYPE);
    assert_string_equal(c[1].text, "the cat sat");
    assert_int_equal(c[2].kind, APP_SC_COMPOSE);
    assert_string_equal(c[2].text, "にほ");
    assert_int_equal(c[3].kind, APP_SC_COMMIT);
    assert_string_equal(c[3].text, "日本");
    assert_int_equal(c[4].kind, APP_SC_KEY);
    assert_string_equal(c[4].text, "c");
    assert_int_equal(c[4].mods, APP_MOD_CTRL | APP_MOD_SHIFT);
    assert_int_equal(c[5].kind, APP_SC_CLICK);
    assert_int_equal(c[5].target, APP_SC_AT_XY);
    assert_int_equal(c[5].v[0], 10);
    assert_int_equal(c[5].v[1], 20);
    assert_int_equal(c[6].kind, APP_SC_HOVER);
    assert_int_equal(c[6].target, APP_SC_AT_TOKEN);
    assert_int_equal(c[6].v[0], 3);
    assert_int_equal(c[7].kind, APP_SC_CLICK);
    assert_int_equal(c[7].target, APP_SC_AT_STEP);
    assert_int_equal(c[7].v[0], 8);
    assert_int_equal(c[8].kind, APP_SC_HOVER);
    assert_int_equal(c[8].target, APP_SC_AT_CELL);
    assert_int_equal(c[8].v[0], ATTN_ST_WEIGHTS);
    assert_int_equal(c[8].v[1], 1);
    assert_int_equal(c[8].v[2], 2);
    assert_int_equal(c[8].v[3], 3);
    assert_int_equal(c[9].kind, APP_SC_WHEEL);
    assert_int_equal(c[9].v[0], -3);
    assert_false(c[9].has_xy);
    assert_int_equal(c[9].v[1], -1);
    assert_int_equal(c[9].v[2], -1);
    assert_int_equal(c[10].kind, APP_SC_WHEEL);
    assert_true(c[10].has_xy);
    assert_int_equal(c[10].v[0], 2);
    assert_int_equal(c[10].v[1], 400);
    assert_int_equal(c[10].v[2], 300);
    assert_int_equal(c[11].kind, APP_SC_WAIT);
    assert_int_equal(c[11].v[0], 60000);
    assert_int_equal(c[12].kind, APP_SC_SHOT);
    assert_string_equal(c[12].text, "out/my shot.png");
    assert_int_equal(c[13].kind, APP_SC_EXPECT);
    assert_string_equal(c[13].name, "step");
    assert_string_equal(c[13].text, "3");
    assert_int_equal(c[14].kind, APP_SC_QUIT);
    assert_string_equal(app_script_kind_name(APP_SC_CLICK), "click");
    assert_string_equal(app_script_kind_name(APP_SC_QUIT), "quit");
    app_script_free(&s);
    assert_null(s.cmds);
    assert_int_equal(s.count, 0);
}

static void test_ranges_and_cells(void **state) {
    (void)state;
    app_script s;
    parse_ok(&s, "size 320 240\nsize 7680 4320\nwait 0\nclick 0 0\nclick step 1\n"
                 "click cell x 0 0 0\nclick cell output 0 5 7\nclick cell scores 7 0 1\n"
                 "hover 2147483647 3\nwheel 0 0 0\n");
    assert_int_equal(s.count, 10);
    assert_int_equal(s.cmds[0].v[0], 320);
    assert_int_equal(s.cmds[0].v[1], 240);
    assert_int_equal(s.cmds[1].v[0], 7680);
    assert_int_equal(s.cmds[1].v[1], 4320);
    assert_int_equal(s.cmds[2].v[0], 0);
    assert_int_equal(s.cmds[4].v[0], 1);
    assert_int_equal(s.cmds[5].v[0], ATTN_ST_X);
    assert_int_equal(s.cmds[6].v[0], ATTN_ST_OUTPUT);
    assert_int_equal(s.cmds[6].v[3], 7);
    assert_int_equal(s.cmds[7].v[0], ATTN_ST_SCORES);
    assert_int_equal(s.cmds[7].v[1], 7);
    assert_int_equal(s.cmds[8].v[0], INT_MAX);
    assert_true(s.cmds[9].has_xy);
    app_script_free(&s);
}

static void test_text_and_escapes(void **state) {
    (void)state;
    app_script s;
    parse_ok(&s, "type a\\nb\\tc\\\\d\n"
                 "type  two leading\n"           /* rest of line after one space */
                 "type inner  spaces  kept   \n" /* trailing spaces go with the line */
                 "commit x\\\\n\n"
                 "compose\n"
                 "compose   \n"
                 "compose 変換\\n\n"
                 "type # not a comment\n"
                 "type\tafter tab\n"
                 "shot C:\\out\\n.png\n" /* paths are taken as is */
                 "expect sentence the cat \\n sat\n"
                 "expect  spaced_name  x\n");
    assert_int_equal(s.count, 12);
    assert_string_equal(s.cmds[0].text, "a\nb\tc\\d");
    assert_string_equal(s.cmds[1].text, " two leading");
    assert_string_equal(s.cmds[2].text, "inner  spaces  kept");
    assert_string_equal(s.cmds[3].text, "x\\n");
    assert_int_equal(s.cmds[4].kind, APP_SC_COMPOSE);
    assert_string_equal(s.cmds[4].text, "");
    assert_string_equal(s.cmds[5].text, "");
    assert_string_equal(s.cmds[6].text, "変換\n");
    assert_string_equal(s.cmds[7].text, "# not a comment");
    assert_string_equal(s.cmds[8].text, "after tab");
    assert_string_equal(s.cmds[9].text, "C:\\out\\n.png");
    assert_string_equal(s.cmds[10].name, "sentence");
    assert_string_equal(s.cmds[10].text, "the cat \\n sat");
    assert_string_equal(s.cmds[11].name, "spaced_name");
    assert_string_equal(s.cmds[11].text, " x");
    app_script_free(&s);
}

static void test_keys(void **state) {
    (void)state;
    static const struct {
        const char *line, *name;
        unsigned mods;
    } cases[] = {
        {"key Right", "Right", 0},
        {"key F11", "F11", 0},
        {"key Return", "Return", 0},
        {"key Escape", "Escape", 0},
        {"key Space", "Space", 0},
        {"key PageDown", "PageDown", 0},
        {"key Backspace", "Backspace", 0},
        {"key e", "e", 0},
        {"key ?", "?", 0},
        {"key +", "+", 0},
        {"key ctrl+=", "=", APP_MOD_CTRL},
        {"key ctrl++", "+", APP_MOD_CTRL},
        {"key ctrl+shift++", "+", APP_MOD_CTRL | APP_MOD_SHIFT},
        {"key alt+Left", "Left", APP_MOD_ALT},
        {"key Ctrl+SHIFT+c", "c", APP_MOD_CTRL | APP_MOD_SHIFT},
        {"key shift+alt+ctrl+F5", "F5", APP_MOD_CTRL | APP_MOD_SHIFT | APP_MOD_ALT},
        {"key ctrl", "ctrl", 0}, /* the Ctrl key alone */
        {"  key   Tab  ", "Tab", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        app_script s;
        parse_ok(&s, cases[i].line);
        assert_int_equal(s.count, 1);
        assert_int_equal(s.cmds[0].kind, APP_SC_KEY);
        if (strcmp(s.cmds[0].text, cases[i].name) != 0 || s.cmds[0].mods != cases[i].mods)
            fail_msg("%s gave \"%s\" mods %u", cases[i].line, s.cmds[0].text, s.cmds[0].mods);
        app_script_free(&s);
    }
}

static void test_comments_blanks_line_numbers(void **state) {
    (void)state;
    app_script s;
    parse_ok(&s, "\xEF\xBB\xBF# a script\n"
                 "\n"
                 "   \t  \n"
                 "   # indented comment\n"
                 "  size 800 600  \r\n"
                 "#quit\n"
                 "\r\n"
                 "quit");
    assert_int_equal(s.count, 2);
    assert_int_equal(s.cmds[0].kind, APP_SC_SIZE);
    assert_int_equal(s.cmds[0].line, 5);
    assert_int_equal(s.cmds[1].kind, APP_SC_QUIT);
    assert_int_equal(s.cmds[1].line, 8);
    app_script_free(&s);

    parse_ok(&s, "");
    assert_int_equal(s.count, 0);
    assert_null(s.cmds);
    app_script_free(&s);
    parse_ok(&s, "# only comments\n\n");
    assert_int_equal(s.count, 0);
    app_script_free(&s);
    app_script_free(NULL);
}

static void test_no_trailing_newline(void **state) {
    (void)state;
    app_script s;
    parse_ok(&s, "size 800 600\nclick 10 20");
    assert_int_equal(s.count, 2);
    assert_int_equal(s.cmds[1].v[1], 20);
    app_script_free(&s);
    parse_ok(&s, "type last words");
    assert_string_equal(s.cmds[0].text, "last words");
    app_script_free(&s);
    /* ends mid-command: an ordinary missing-arguments error on that line */
    expect_error("size 800 600\nclick 10", 2, "missing arguments for click: write click X Y");
    expect_error("wait 5\nexpect step", 2, "missing arguments for expect");
}

static void test_unknown_and_arity(void **state) {
    (void)state;
    expect_error("size 800 600\n\nclik 3 4\n", 3,
                 "unknown command \"clik\"; commands are: size, type, compose, commit, key, click, "
                 "hover, wheel, wait, shot, save, drop, expect, await, quit.");
    expect_error("Quit", 1, "unknown command \"Quit\"");
    expect_error("size 800", 1, "missing arguments for size: write size W H, e.g. size 1280 800.");
    expect_error("size 800 600 1", 1, "extra argument \"1\" for size");
    expect_error("type", 1, "missing arguments for type: write type TEXT");
    expect_error("commit", 1, "missing arguments for commit");
    expect_error("key", 1, "missing arguments for key");
    expect_error("key ctrl c", 1, "extra argument \"c\" for key");
    expect_error("click", 1, "missing arguments for click");
    expect_error("hover 1 2 3", 1, "extra argument \"3\" for hover");
    expect_error("click token", 1, "missing arguments for click: write click token N, e.g. click token 2.");
    expect_error("hover token 1 2", 1, "extra argument \"2\"");
    expect_error("click step", 1, "write click step N");
    expect_error("click cell weights 0 1", 1, "write click cell STAGE HEAD ROW COL");
    expect_error("click cell weights 0 1 2 3", 1, "extra argument \"3\"");
    expect_error("click foo 1", 1, "click needs X Y, token N, step N, control NAME [N] or cell STAGE HEAD ROW COL, not \"foo\"");
    expect_error("hover foo 1", 1, "hover needs X Y, token N, control NAME [N] or cell");
    expect_error("hover step 2", 1, "hover cannot point at a rail step");
    expect_error("wheel", 1, "missing arguments for wheel");
    expect_error("wheel 1 2", 1, "missing arguments for wheel: give both X and Y or neither");
    expect_error("wheel 1 2 3 4", 1, "extra argument \"4\" for wheel");
    expect_error("wait", 1, "missing arguments for wait");
    expect_error("wait 1 2", 1, "extra argument \"2\"");
    expect_error("shot", 1, "missing arguments for shot: write shot PATH");
    expect_error("expect", 1, "missing arguments for expect: write expect NAME VALUE");
    expect_error("quit now", 1, "extra argument \"now\": quit takes no arguments.");
}

static void test_numbers(void **state) {
    (void)state;
    expect_error("size 319 600", 1, "size W must be between 320 and 7680 (it is 319).");
    expect_error("size 7681 600", 1, "size W must be between 320 and 7680");
    expect_error("size 800 239", 1, "size H must be between 240 and 4320 (it is 239).");
    expect_error("size 800 4321", 1, "size H must be between 240 and 4320");
    expect_error("size 80x0 600", 1, "size W must be a whole number, not \"80x0\".");
    expect_error("click 1.5 2", 1, "click X must be a whole number, not \"1.5\".");
    expect_error("click 1 y", 1, "click Y must be a whole number, not \"y\".");
    expect_error("click -1 2", 1, "click X must be 0 or more (it is -1).");
    expect_error("click +1 2", 1, "click X must be a whole number, not \"+1\".");
    expect_error("click - 2", 1, "click needs X Y, token N, step N, control NAME [N] or cell STAGE HEAD ROW COL, not \"-\"");
    expect_error("hover 2147483648 0", 1, "hover X is too large: at most 2147483647 (it is 2147483648).");
    expect_error("hover 1 99999999999999999999999", 1, "hover Y is too large");
    expect_error("click token -1", 1, "click token N must be 0 or more (it is -1).");
    expect_error("click step 0", 1, "click step N must be between 1 and 8 (it is 0).");
    expect_error("click step 9", 1, "click step N must be between 1 and 8 (it is 9).");
    expect_error("click step two", 1, "click step N must be a whole number");
    expect_error("click cell attention 0 0 0", 1,
                 "unknown stage \"attention\"; use x, q, k, v, scores, scaled, masked, weights, z, concat or output "
                 "(with a model also residual, logits, probs, d_weights, d_scaled or avg).");
    expect_error("hover cell q -1 0 0", 1, "hover cell HEAD must be 0 or more");
    expect_error("hover cell q 0 r 0", 1, "hover cell ROW must be a whole number");
    expect_error("hover cell q 0 0 -2", 1, "hover cell COL must be 0 or more");
    expect_error("wheel 2147483648", 1, "wheel DY must be between -2147483648 and 2147483647");
    expect_error("wheel down", 1, "wheel DY must be a whole number, not \"down\"");
    expect_error("wheel 1 -5 0", 1, "wheel X must be 0 or more");
    expect_error("wait -1", 1, "wait MS must be between 0 and 60000 (it is -1).");
    expect_error("wait 60001", 1, "wait MS must be between 0 and 60000 (it is 60001).");
    expect_error("wait 1s", 1, "wait MS must be a whole number, not \"1s\".");
}

static void test_text_key_expect_errors(void **state) {
    (void)state;
    expect_error("type \\q", 1, "unknown escape \\q in type text; use \\n (new line), \\t (tab) or \\\\ (backslash).");
    expect_error("commit a\\é", 1, "unknown escape \\é in commit text");
    expect_error("type ends \\", 1, "type text ends with a lone \\; write \\\\ for a backslash.");
    expect_error("compose \\x", 1, "unknown escape \\x in compose text");
    expect_error("key ctrl+", 1, "key ctrl+ has modifiers but no key");
    expect_error("key ctrl+shift+", 1, "key ctrl+shift+ has modifiers but no key");
    expect_error("key meta+c", 1, "unknown modifier \"meta\" in key meta+c; modifiers are ctrl+, shift+ and alt+");
    expect_error("key ctrl+foo+c", 1, "unknown modifier \"foo\"");
    expect_error("key ctrl+ctrl+c", 1, "key ctrl+ctrl+c names the same modifier twice.");
    expect_error("expect Step 3", 1, "expect NAME must be lowercase letters and _ only (like step or sentence), not \"Step\".");
    expect_error("expect step-1 3", 1, "expect NAME must be lowercase letters");
    expect_error("expect abcdefghijklmnopqrstuvwxyzabcdef 1", 1, "expect NAME \"abcdefghijklmnopqrstuvwxyzabcdef\" is too long (at most 31 letters).");
}

static void test_long_lines(void **state) {
    (void)state;
    size_t n = 70 * 1024;
    char *text = malloc(n + 64);
    assert_non_null(text);
    /* a 70 KiB line on line 2 */
    strcpy(text, "wait 1\ntype ");
    size_t off = strlen(text);
    memset(text + off, 'a', n);
    strcpy(text + off + n, "\nquit\n");
    expect_error(text, 2, "this line is 71685 bytes long; a line may be at most 65536 bytes (64 KiB).");

    /* exactly 64 KiB is still fine */
    app_script s;
    memset(text, 'b', APP_SCRIPT_MAX_LINE);
    memcpy(text, "type ", 5);
    text[APP_SCRIPT_MAX_LINE] = '\0';
    parse_ok(&s, text);
    assert_int_equal(s.count, 1);
    assert_int_equal(strlen(s.cmds[0].text), APP_SCRIPT_MAX_LINE - 5);
    app_script_free(&s);

    /* a long unknown command is quoted clipped, and the message stays whole */
    memset(text, 'z', 1000);
    strcpy(text + 1000, " 1");
    attn_err err;
    assert_int_equal(parse_str(&s, text, &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "zzz...\"; commands are: size"));
    assert_non_null(strstr(err.msg, "quit."));
    free(text);
}

static void test_utf8_and_nul(void **state) {
    (void)state;
    expect_error("wait 1\nwait 2\ntype caf\xC3\n", 3, "this line is not valid UTF-8: at byte 9 (counting from 1) there is a truncated sequence.");
    expect_error("type \xC0\xAF", 1, "not valid UTF-8: at byte 6");
    expect_error("# comment \xFF\n", 1, "not valid UTF-8");
    expect_error("type \xED\xA0\x80", 1, "a UTF-16 surrogate");
    static const char nul[] = "wait 1\ntype a\0b\nquit\n";
    expect_error_n(nul, sizeof nul - 1, 2, "this line contains a NUL byte at byte 7 (counting from 1)");
    static const char nul_comment[] = "# \0\n";
    expect_error_n(nul_comment, sizeof nul_comment - 1, 1, "NUL byte");
}

static void test_messages_stay_utf8(void **state) {
    (void)state;
    /* a long multi-byte file name and token: the cut message must not end mid code point */
    char name[600], line[300];
    strcpy(line, "click ");
    for (int i = 0; i < 60; i++) strcat(line, "日");
    app_script s;
    attn_err err;
    for (int shift = 0; shift < 3; shift++) { /* moves the cut across a code point */
        strcpy(name, shift == 0 ? "" : shift == 1 ? "a"
                                                  : "ab");
        for (int i = 0; i < 199; i++) strcat(name, "é");
        assert_int_equal(app_script_parse(&s, line, strlen(line), name, &err), ATTN_ERR_PARSE);
        assert_true(strlen(err.msg) > 400);
        assert_int_equal(utf8_find_invalid(err.msg, strlen(err.msg)), (size_t)-1);
        assert_null(s.cmds);
    }
    assert_int_equal(app_script_parse(&s, "clik", 4, NULL, &err), ATTN_ERR_PARSE);
    assert_int_equal(strncmp(err.msg, "script:1: ", 10), 0);
    assert_int_equal(app_script_parse(&s, "clik", 4, "x", NULL), ATTN_ERR_PARSE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_command),
        cmocka_unit_test(test_ranges_and_cells),
        cmocka_unit_test(test_text_and_escapes),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_comments_blanks_line_numbers),
        cmocka_unit_test(test_no_trailing_newline),
        cmocka_unit_test(test_unknown_and_arity),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_text_key_expect_errors),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_utf8_and_nul),
        cmocka_unit_test(test_messages_stay_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
