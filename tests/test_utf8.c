/* test_utf8.c — strict decoding, error offsets and display width. */
#include "test_common.h"

#include <string.h>

#include "unicode_tables.h"
#include "utf8.h"

#define NOT_FOUND ((size_t)-1)

static void decode_valid(void **state) {
    (void)state;
    uint32_t cp = 0;
    assert_int_equal(utf8_decode("A", 1, &cp), 1);
    assert_int_equal(cp, 0x41);
    assert_int_equal(utf8_decode("\xC3\xA9", 2, &cp), 2); /* é */
    assert_int_equal(cp, 0xE9);
    assert_int_equal(utf8_decode("\xE5\xAE\x83", 3, &cp), 3); /* 它 */
    assert_int_equal(cp, 0x5B83);
    assert_int_equal(utf8_decode("\xF0\x9F\x91\x8D", 4, &cp), 4); /* 👍 */
    assert_int_equal(cp, 0x1F44D);
    /* Only the first code point is read. */
    assert_int_equal(utf8_decode("\xE5\xAE\x83"
                                 "abc",
                                 6, &cp),
                     3);
    assert_int_equal(cp, 0x5B83);
    /* NUL is a valid code point. */
    assert_int_equal(utf8_decode("\0", 1, &cp), 1);
    assert_int_equal(cp, 0);
}

static void decode_boundaries(void **state) {
    (void)state;
    static const struct {
        const char *s;
        int n;
        uint32_t cp;
    } ok[] = {
        {"\x7F", 1, 0x7F},
        {"\xC2\x80", 2, 0x80},
        {"\xDF\xBF", 2, 0x7FF},
        {"\xE0\xA0\x80", 3, 0x800},
        {"\xED\x9F\xBF", 3, 0xD7FF},
        {"\xEE\x80\x80", 3, 0xE000},
        {"\xEF\xBF\xBF", 3, 0xFFFF},
        {"\xF0\x90\x80\x80", 4, 0x10000},
        {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint32_t cp = 0;
        assert_int_equal(utf8_decode(ok[i].s, strlen(ok[i].s), &cp), ok[i].n);
        assert_int_equal(cp, ok[i].cp);
    }
}

static void decode_malformed(void **state) {
    (void)state;
    static const char *bad[] = {
        "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x8F\xBF\xBF", /* overlong */
        "\xED\xA0\x80", "\xED\xBF\xBF",                                             /* surrogates */
        "\xE4\xB8", "\xE4\x41\x41", "\xF0\x9F\x91", "\xC3",                         /* truncated */
        "\x80", "\xBF",                                                             /* stray */
        "\xF5\x80\x80\x80", "\xF8", "\xFE", "\xFF",                                 /* never used */
        "\xF4\x90\x80\x80",                                                         /* > U+10FFFF */
    };
    uint32_t cp;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(utf8_decode(bad[i], strlen(bad[i]), &cp), 0);
    assert_int_equal(utf8_decode("abc", 0, &cp), 0);
    /* The length limit is respected even if more bytes follow in memory. */
    assert_int_equal(utf8_decode("\xE5\xAE\x83", 2, &cp), 0);
}

static void encode_roundtrip_all(void **state) {
    (void)state;
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        char buf[4];
        uint32_t back = 0xFFFFFFFF;
        int n = utf8_encode(c, buf);
        if (c >= 0xD800 && c <= 0xDFFF) {
            assert_int_equal(n, 0);
            continue;
        }
        int want = c < 0x80 ? 1 : c < 0x800 ? 2
                              : c < 0x10000 ? 3
                                            : 4;
        if (n != want) fail_msg("U+%04X encoded in %d bytes, expected %d", (unsigned)c, n, want);
        if (utf8_decode(buf, (size_t)n, &back) != n || back != c)
            fail_msg("U+%04X does not decode back", (unsigned)c);
    }
    char buf[4];
    assert_int_equal(utf8_encode(0x110000, buf), 0);
    assert_int_equal(utf8_encode(0xFFFFFFFF, buf), 0);
    assert_int_equal(utf8_encode(0x5B83, buf), 3);
    assert_memory_equal(buf, "\xE5\xAE\x83", 3);
}

/* find_invalid gives the offset of the first bad sequence, problem names it. */
static void check_invalid(const char *s, size_t len, size_t off, const char *phrase) {
    size_t got = utf8_find_invalid(s, len);
    if (got != off) fail_msg("offset %zu, expected %zu", got, off);
    assert_string_equal(utf8_problem(s, len, off), phrase);
}

static void find_invalid_each_kind(void **state) {
    (void)state;
    check_invalid("ab\xC0\x80", 4, 2, "an overlong encoding");
    check_invalid("abc\xE0\x80\x80", 6, 3, "an overlong encoding");
    check_invalid("\xF0\x8F\xBF\xBF", 4, 0, "an overlong encoding");
    check_invalid("x\xED\xA0\x80y", 5, 1, "a UTF-16 surrogate");
    check_invalid("\xE4\xBD\xA0\xE4\xB8", 5, 3, "a truncated sequence"); /* 你 + half of 中 */
    check_invalid("\xE4\xB8"
                  "a",
                  3, 0, "a truncated sequence");
    check_invalid("hello, \x80", 8, 7, "a stray continuation byte");
    check_invalid("\xC3\xA9\xA9", 3, 2, "a stray continuation byte");
    check_invalid("x\xFF", 2, 1, "a byte that never appears in UTF-8");
    check_invalid("\xF5\x80\x80\x80", 4, 0, "a byte that never appears in UTF-8");
    check_invalid("ok \xF4\x90\x80\x80", 7, 3, "a code point above U+10FFFF");
}

static void find_invalid_accepts_valid(void **state) {
    (void)state;
    const char *s = "这只动物 didn't 👍🏽 e\xCC\x81";
    assert_true(utf8_find_invalid(s, strlen(s)) == NOT_FOUND);
    assert_true(utf8_find_invalid("a\0b", 3) == NOT_FOUND); /* NUL is valid UTF-8 */
    assert_true(utf8_find_invalid("", 0) == NOT_FOUND);
    /* Only len bytes are examined. */
    assert_true(utf8_find_invalid("ab\xFF", 2) == NOT_FOUND);
    assert_string_equal(utf8_problem("a", 1, 0), "a well-formed character");
}

static void cp_width(void **state) {
    (void)state;
    assert_int_equal(utf8_cp_width('a'), 1);
    assert_int_equal(utf8_cp_width(0xE9), 1);    /* é */
    assert_int_equal(utf8_cp_width(0x0416), 1);  /* Ж */
    assert_int_equal(utf8_cp_width(0x0301), 0);  /* combining acute */
    assert_int_equal(utf8_cp_width(0x20E3), 0);  /* enclosing keycap (Me) */
    assert_int_equal(utf8_cp_width(0x200D), 0);  /* ZWJ */
    assert_int_equal(utf8_cp_width(0xFE0F), 0);  /* VS16 */
    assert_int_equal(utf8_cp_width(0xE0067), 0); /* tag g */
    assert_int_equal(utf8_cp_width(0x5B83), 2);  /* 它 */
    assert_int_equal(utf8_cp_width(0x3000), 2);  /* ideographic space */
    assert_int_equal(utf8_cp_width(0xFF0C), 2);  /* ， */
    assert_int_equal(utf8_cp_width(0xAC00), 2);  /* 가 */
    assert_int_equal(utf8_cp_width(0x1F44D), 2); /* 👍 */
    assert_int_equal(utf8_cp_width(0x20000), 2); /* CJK extension B */
    assert_int_equal(utf8_cp_width(0x2026), 1);  /* … */
}

static void string_width(void **state) {
    (void)state;
    assert_int_equal(utf8_width("它飞", strlen("它飞")), 4);
    assert_int_equal(utf8_width("tired", 5), 5);
    assert_int_equal(utf8_width("e\xCC\x81te", 5), 3);
    assert_int_equal(utf8_width("Hello世界", strlen("Hello世界")), 9);
    assert_int_equal(utf8_width("", 0), 0);
}

static void prefix_fitting(void **state) {
    (void)state;
    const char *s = "它飞"; /* 6 bytes, 4 columns */
    assert_int_equal(utf8_prefix_fitting(s, 6, 4), 6);
    assert_int_equal(utf8_prefix_fitting(s, 6, 3), 3); /* never half of 飞 */
    assert_int_equal(utf8_prefix_fitting(s, 6, 2), 3);
    assert_int_equal(utf8_prefix_fitting(s, 6, 1), 0);
    assert_int_equal(utf8_prefix_fitting(s, 6, 0), 0);
    assert_int_equal(utf8_prefix_fitting(s, 6, -5), 0);
    assert_int_equal(utf8_prefix_fitting("abc", 3, 10), 3);
    /* A zero-width mark stays with the letter before it. */
    assert_int_equal(utf8_prefix_fitting("e\xCC\x81x", 4, 1), 3);
    /* Every cut of a mixed string lands on a code point boundary. */
    const char *m = "a它\xF0\x9F\x91\x8D"
                    "e\xCC\x81飞b";
    size_t len = strlen(m);
    for (int cols = 0; cols <= 12; cols++) {
        size_t n = utf8_prefix_fitting(m, len, cols);
        assert_true(utf8_find_invalid(m, n) == NOT_FOUND);
        assert_true(utf8_width(m, n) <= cols);
        if (n < len) { /* the next code point really does not fit */
            uint32_t cp;
            int k = utf8_decode(m + n, len - n, &cp);
            assert_true(utf8_width(m, n + (size_t)k) > cols);
        }
    }
}

static void unicode_tables(void **state) {
    (void)state;
    assert_true(uni_is_word('a') && uni_is_word('Z') && uni_is_word('7'));
    assert_false(uni_is_word('!') || uni_is_word(' ') || uni_is_word('\''));
    assert_true(uni_is_word(0x4E00) && uni_is_word(0x0301) && uni_is_word(0x0660)); /* 一, mark, Arabic 0 */
    assert_false(uni_is_word(0x1F44D) || uni_is_word(0xFF0C) || uni_is_word(0x3002));
    assert_true(uni_is_mark(0x0301) && uni_is_mark(0x093E) && uni_is_mark(0x20E3) && uni_is_mark(0xFE0F));
    assert_false(uni_is_mark('e') || uni_is_mark(0x200D));
    assert_true(uni_is_zero_width(0x0301) && uni_is_zero_width(0x20E3));
    assert_false(uni_is_zero_width(0x093E)); /* Devanagari AA is a spacing mark (Mc) */
    assert_true(uni_is_wide(0x4E00) && uni_is_wide(0xFF01) && uni_is_wide(0x1F600));
    assert_true(uni_is_wide(0x3134F)); /* unassigned, but in a block that defaults to wide */
    assert_false(uni_is_wide('a') || uni_is_wide(0x2026) || uni_is_wide(0x10FFFF));
    assert_non_null(strchr(uni_version(), '.'));
    /* Marks are word characters; zero-width marks are marks. */
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        if (uni_is_mark(c) && !uni_is_word(c)) fail_msg("U+%04X: mark but not word", (unsigned)c);
        if (uni_is_zero_width(c) && !uni_is_mark(c)) fail_msg("U+%04X: zero-width non-mark", (unsigned)c);
    }
}

/* What a file says, echoed to a terminal: controls and broken bytes are shown
 * as escapes, text stays as it is, and a cut never splits a character or an
 * escape. */
static void visible(void **state) {
    (void)state;
    char out[64];
    const char title[] = "\x1b]0;owned\x07ok"; /* a terminal's "set the title" */
    assert_int_equal(utf8_visible(out, sizeof out, title, strlen(title)), 18);
    assert_string_equal(out, "\\x1b]0;owned\\x07ok");
    const char mixed[] = "\xc2\x85 \xff\x7f\t鸟";
    utf8_visible(out, sizeof out, mixed, strlen(mixed));
    assert_string_equal(out, "\\u0085 \\xff\\x7f\\x09鸟");
    utf8_visible(out, sizeof out, "a\0b", 3); /* a NUL inside the text */
    assert_string_equal(out, "a\\x00b");
    assert_int_equal(utf8_visible(out, 5, "ab\x1b", 3), 2); /* "\x1b" would not fit whole */
    assert_string_equal(out, "ab");
    assert_int_equal(utf8_visible(out, 4, "a鸟", 4), 1); /* nor 鸟 after a */
    assert_int_equal(utf8_visible(out, 1, "abc", 3), 0);
    assert_string_equal(out, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_valid),
        cmocka_unit_test(decode_boundaries),
        cmocka_unit_test(decode_malformed),
        cmocka_unit_test(encode_roundtrip_all),
        cmocka_unit_test(find_invalid_each_kind),
        cmocka_unit_test(find_invalid_accepts_valid),
        cmocka_unit_test(cp_width),
        cmocka_unit_test(string_width),
        cmocka_unit_test(prefix_fitting),
        cmocka_unit_test(unicode_tables),
        cmocka_unit_test(visible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
