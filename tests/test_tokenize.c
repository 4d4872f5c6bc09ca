/* test_tokenize.c — token boundaries, errors, repeated tokens and labels. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "tokenize.h"
#include "utf8.h"

#define SEED "这只动物没看见那只鸟，因为它飞得太快了。"
#define ENGLISH "The animal didn't cross the street because it was too tired."

/* Tokenizes s and compares every token's text with want[0..n). */
static void expect_tokens_one(const char *s, const attn_wordlist *vocab, const char *const *want, int n) {
    attn_tokens t;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = attn_tokenize(&t, s, strlen(s), vocab, &err);
    if (st != ATTN_OK) fail_msg("\"%s\": unexpected error: %s", s, err.msg);
    for (int i = 0; i < t.n && i < n; i++) {
        int len;
        const char *p = attn_token_text(&t, i, &len);
        if ((size_t)len != strlen(want[i]) || memcmp(p, want[i], (size_t)len) != 0)
            fail_msg("\"%s\": token %d is \"%.*s\", expected \"%s\"", s, i, len, p, want[i]);
    }
    if (t.n != n) fail_msg("\"%s\": %d tokens, expected %d", s, t.n, n);
    assert_int_equal(t.text_len, strlen(s));
    assert_string_equal(t.text, s);
    attn_tokens_free(&t);
}

/* The same with vocab's words searched in full and through the sorted index. */
static void expect_tokens_v(const char *s, const attn_wordlist *vocab, const char *const *want, int n) {
    expect_tokens_one(s, vocab, want, n);
    if (!vocab || vocab->order) return;
    int *order = malloc(sizeof *order * (size_t)(vocab->count + 1));
    attn_words_sort(order, vocab->words, vocab->count);
    attn_wordlist sorted = {vocab->count, vocab->words, order};
    expect_tokens_one(s, &sorted, want, n);
    free(order);
}

#define EXPECT(s, ...) \
    do { \
        static const char *const want_[] = {__VA_ARGS__}; \
        expect_tokens_v((s), NULL, want_, (int)(sizeof want_ / sizeof want_[0])); \
    } while (0)
#define EXPECT_V(s, vocab, ...) \
    do { \
        static const char *const want_[] = {__VA_ARGS__}; \
        expect_tokens_v((s), (vocab), want_, (int)(sizeof want_ / sizeof want_[0])); \
    } while (0)

/* Tokenizing s[0..len) fails with an input error whose message contains needle,
 * and leaves the (deliberately dirty) output empty. */
static void expect_error(const char *s, size_t len, const char *needle) {
    attn_tokens t;
    attn_err err;
    memset(&t, 0xAB, sizeof t);
    attn_err_clear(&err);
    attn_status st = attn_tokenize(&t, s, len, NULL, &err);
    if (st != ATTN_ERR_INPUT) fail_msg("expected an input error containing \"%s\", got %d", needle, st);
    assert_int_equal(err.code, ATTN_ERR_INPUT);
    if (!strstr(err.msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
    assert_int_equal(t.n, 0);
    assert_null(t.text);
    assert_int_equal(t.text_len, 0);
    assert_int_equal(t.repeated[0], 0);
}

static void chinese_seed(void **state) {
    (void)state;
    EXPECT(SEED, "这", "只", "动", "物", "没", "看", "见", "那", "只", "鸟", "，",
           "因", "为", "它", "飞", "得", "太", "快", "了", "。");
}

static void chinese_vocab(void **state) {
    (void)state;
    static const char *const words[] = {"动物", "因为"};
    const attn_wordlist v = {2, words, NULL};
    EXPECT_V(SEED, &v, "这", "只", "动物", "没", "看", "见", "那", "只", "鸟", "，",
             "因为", "它", "飞", "得", "太", "快", "了", "。");
}

static void vocab_longest_match(void **state) {
    (void)state;
    /* Single-code-point words are ignored, so 因 alone never blocks 因为. */
    static const char *const a[] = {"因", "因为"};
    static const char *const b[] = {"因为", "因"};
    const attn_wordlist va = {2, a, NULL}, vb = {2, b, NULL};
    EXPECT_V("因为它", &va, "因为", "它");
    EXPECT_V("因为它", &vb, "因为", "它");
    static const char *const c[] = {"因为", "因为它飞", "它飞"};
    const attn_wordlist vc = {3, c, NULL};
    EXPECT_V("因为它飞了", &vc, "因为它飞", "了");
    EXPECT_V("因为它了", &vc, "因为", "它", "了");
    /* Unusable entries: NULL, whitespace inside, invalid UTF-8, empty. */
    static const char *const d[] = {NULL, "因 为", "因\xFF", ""};
    const attn_wordlist vd = {4, d, NULL};
    EXPECT_V("因为", &vd, "因", "为");
    /* Words only apply at an ideograph, and an empty list changes nothing. */
    static const char *const e[] = {"ab"};
    const attn_wordlist ve = {1, e, NULL}, empty = {0, NULL, NULL};
    EXPECT_V("ab 动物", &ve, "ab", "动", "物");
    EXPECT_V("动物", &empty, "动", "物");
}

static void english(void **state) {
    (void)state;
    EXPECT(ENGLISH, "The", "animal", "didn't", "cross", "the", "street", "because", "it",
           "was", "too", "tired", ".");
}

static void apostrophes(void **state) {
    (void)state;
    EXPECT("don\xE2\x80\x99t", "don\xE2\x80\x99t"); /* U+2019 */
    EXPECT("rock'n'roll", "rock'n'roll");
    EXPECT("'quoted'", "'", "quoted", "'");
    EXPECT("dogs' bones", "dogs", "'", "bones");
    EXPECT("it''s", "it", "'", "'", "s");
    EXPECT("l'été", "l'été");
}

static void punctuation(void **state) {
    (void)state;
    EXPECT("Hello, world!", "Hello", ",", "world", "!");
    EXPECT("a-b", "a", "-", "b");
    EXPECT("3.14", "3", ".", "14");
    EXPECT("...", ".", ".", ".");
}

static void mixed_scripts(void **state) {
    (void)state;
    EXPECT("Hello世界 123abc", "Hello", "世", "界", "123abc");
    EXPECT("Привет, мир!", "Привет", ",", "мир", "!");
    EXPECT("Καλημέρα κόσμε", "Καλημέρα", "κόσμε");
    EXPECT("مرحبا بالعالم", "مرحبا", "بالعالم");
    EXPECT("שָׁלוֹם עולם", "שָׁלוֹם", "עולם"); /* Hebrew with vowel points (marks) */
    EXPECT("안녕하세요 세계", "안녕하세요", "세계");
    EXPECT("नमस्ते दुनिया", "नमस्ते", "दुनिया");    /* Devanagari with Mn and Mc marks */
    EXPECT("私はcatです", "私", "はcatです"); /* kana are letters of another script */
    EXPECT("x²+y²", "x²", "+", "y²");
}

static void combining_marks(void **state) {
    (void)state;
    EXPECT("e\xCC\x81te", "e\xCC\x81te");
    EXPECT("\xCC\x81"
           "a",
           "\xCC\x81"
           "a");                                                /* a mark may start a run */
    EXPECT("中\xCC\x81文", "中\xCC\x81", "文");                 /* joins the ideograph */
    EXPECT("!\xCC\x81?", "!\xCC\x81", "?");                     /* joins any token */
    EXPECT("，\xCC\x81\xCC\x88好", "，\xCC\x81\xCC\x88", "好"); /* several marks */
    EXPECT("a \xCC\x81", "a", "\xCC\x81");                      /* not across a space */
}

static void cjk_punctuation(void **state) {
    (void)state;
    EXPECT("（你好）", "（", "你", "好", "）");
    EXPECT("人々", "人", "々");
    EXPECT("「a」b", "「", "a", "」", "b");
    EXPECT("Hi！OK？", "Hi", "！", "OK", "？");
    EXPECT("ＡＢＣ１２", "ＡＢＣ１２");                                                 /* full-width letters and digits are letters */
    EXPECT("\U00020000\U0002A700\U0002F800", "\U00020000", "\U0002A700", "\U0002F800"); /* ext. B, C, compat */
}

static void emoji(void **state) {
    (void)state;
    EXPECT("👍🏽", "👍🏽");
    EXPECT("👨\u200D👩\u200D👧", "👨\u200D👩\u200D👧");
    EXPECT("🇨🇳🇺🇸", "🇨🇳", "🇺🇸");
    EXPECT("🇨🇳🇺", "🇨🇳", "🇺");
    EXPECT("\xE2\x9D\xA4\xEF\xB8\x8F", "\xE2\x9D\xA4\xEF\xB8\x8F"); /* ❤ + VS16 */
    EXPECT("a👍b", "a", "👍", "b");
    EXPECT("👍👍", "👍", "👍");
    EXPECT("🏳\uFE0F\u200D🌈!", "🏳\uFE0F\u200D🌈", "!");
    EXPECT("👩🏽\u200D💻 ok", "👩🏽\u200D💻", "ok");
    EXPECT("🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F",
           "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F");
    EXPECT("1\uFE0F\u20E3", "1\uFE0F\u20E3"); /* keycap */
    EXPECT("我\u2764\uFE0F你", "我", "\u2764\uFE0F", "你");
}

static void whitespace(void **state) {
    (void)state;
    EXPECT("  a\tb\nc\r\nd\u3000e\u00A0f\u2003g  ", "a", "b", "c", "d", "e", "f", "g");
    EXPECT("你好\u3000世界", "你", "好", "世", "界");
}

static void offsets_cover_text(void **state) {
    (void)state;
    const char *s = " Hello世界, didn't 👍🏽 e\xCC\x81 ";
    attn_tokens t;
    assert_int_equal(attn_tokenize(&t, s, strlen(s), NULL, NULL), ATTN_OK);
    assert_int_equal(t.n, 7);
    assert_int_equal(t.off[0], 1);
    assert_int_equal(t.len[0], 5);
    assert_int_equal(t.off[1], 6);
    assert_int_equal(t.len[1], 3);
    /* Tokens are in order, never overlap, and only spaces lie between them. */
    int pos = 0;
    for (int i = 0; i < t.n; i++) {
        assert_true(t.off[i] >= pos && t.len[i] > 0);
        for (int k = pos; k < t.off[i]; k++) assert_int_equal(s[k], ' ');
        pos = t.off[i] + t.len[i];
    }
    assert_int_equal(strlen(s) - (size_t)pos, 1);
    attn_tokens_free(&t);
}

static void empty_inputs(void **state) {
    (void)state;
    expect_error("", 0, "empty");
    expect_error(NULL, 0, "empty");
    expect_error(" \t\n\u3000\u00A0", strlen(" \t\n\u3000\u00A0"), "only spaces");
}

static void nul_byte(void **state) {
    (void)state;
    expect_error("abc\0def", 7, "NUL byte at byte 3 ");
    expect_error("\0", 1, "NUL byte at byte 0 ");
    expect_error("a\0\xFF", 3, "NUL byte at byte 1 "); /* the first problem wins */
    expect_error("\xFF\0", 2, "byte 0 (counting from 0) there is a byte that never");
}

static void invalid_utf8(void **state) {
    (void)state;
    expect_error("ab\xC0\x80", 4, "at byte 2 (counting from 0) there is an overlong encoding");
    expect_error("abc\xE0\x80\x80", 6, "at byte 3 (counting from 0) there is an overlong encoding");
    expect_error("\xED\xA0\x80", 3, "at byte 0 (counting from 0) there is a UTF-16 surrogate");
    expect_error("你\xE4\xB8", 5, "at byte 3 (counting from 0) there is a truncated sequence");
    expect_error("hello, \x80", 8, "at byte 7 (counting from 0) there is a stray continuation byte");
    expect_error("x\xFF", 2, "at byte 1 (counting from 0) there is a byte that never appears");
    expect_error("\xF4\x90\x80\x80", 4, "at byte 0 (counting from 0) there is a code point above U+10FFFF");
    expect_error("ok\xE4\xB8", 4, "not valid UTF-8");
}

/* n space-separated copies of word, in a malloc'd string. */
static char *repeat_words(const char *word, const char *sep, int n) {
    size_t wl = strlen(word), sl = strlen(sep);
    char *s = malloc((size_t)n * (wl + sl) + 1);
    assert_non_null(s);
    size_t p = 0;
    for (int i = 0; i < n; i++) {
        memcpy(s + p, word, wl);
        p += wl;
        memcpy(s + p, sep, sl);
        p += sl;
    }
    s[p] = '\0';
    return s;
}

static void token_limit(void **state) {
    (void)state;
    attn_tokens t;
    attn_err err;
    char *s = repeat_words("a", " ", 64);
    assert_int_equal(attn_tokenize(&t, s, strlen(s), NULL, &err), ATTN_OK);
    assert_int_equal(t.n, 64);
    assert_int_equal(t.off[63], 126);
    attn_tokens_free(&t);
    free(s);
    s = repeat_words("字", "", 64);
    assert_int_equal(attn_tokenize(&t, s, strlen(s), NULL, &err), ATTN_OK);
    assert_int_equal(t.n, 64);
    attn_tokens_free(&t);
    free(s);
    s = repeat_words("a", " ", 65);
    expect_error(s, strlen(s), "The sentence has 65 tokens; attnviz shows at most 64.");
    free(s);
    s = repeat_words("字", "", 1000);
    expect_error(s, strlen(s), "has 1000 tokens");
    free(s);
}

static void byte_limit(void **state) {
    (void)state;
    attn_tokens t;
    char *s = malloc(70001);
    assert_non_null(s);
    memset(s, 'a', 70000);
    s[70000] = '\0';
    expect_error(s, 70000, "The sentence is 70000 bytes long; at most 65536 are allowed.");
    expect_error(s, ATTN_MAX_SENTENCE_BYTES + 1, "65537 bytes long");
    assert_int_equal(attn_tokenize(&t, s, ATTN_MAX_SENTENCE_BYTES, NULL, NULL), ATTN_OK);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.len[0], ATTN_MAX_SENTENCE_BYTES);
    char label[32];
    assert_int_equal(attn_token_label(&t, 0, 8, label, sizeof label), 10);
    assert_string_equal(label, "aaaaaaa…");
    attn_tokens_free(&t);
    free(s);
}

static void repeated_tokens(void **state) {
    (void)state;
    attn_tokens t;
    assert_int_equal(attn_tokenize(&t, SEED, strlen(SEED), NULL, NULL), ATTN_OK);
    for (int i = 0; i < t.n; i++) assert_int_equal(t.repeated[i], i == 1 || i == 8);
    attn_tokens_free(&t);

    const char *s = "the cat saw The cat";
    assert_int_equal(attn_tokenize(&t, s, strlen(s), NULL, NULL), ATTN_OK);
    static const int want[] = {0, 1, 0, 0, 1}; /* case matters: the != The */
    for (int i = 0; i < t.n; i++) assert_int_equal(t.repeated[i], want[i]);
    attn_tokens_free(&t);
}

static void label_of(const attn_tokens *t, int i, int cols, const char *want) {
    char buf[64];
    size_t n = attn_token_label(t, i, cols, buf, sizeof buf);
    if (strcmp(buf, want) != 0) fail_msg("label(%d, %d cols) = \"%s\", expected \"%s\"", i, cols, buf, want);
    assert_int_equal(n, strlen(want));
}

static void labels(void **state) {
    (void)state;
    attn_tokens t;
    assert_int_equal(attn_tokenize(&t, SEED, strlen(SEED), NULL, NULL), ATTN_OK);
    label_of(&t, 0, 0, "这");
    label_of(&t, 1, 0, "2:只"); /* positions count from 1, as a learner counts */
    label_of(&t, 8, 0, "9:只"); /* 这只动物没看见那只: the second 只 is the 9th token */
    label_of(&t, 8, 4, "9:只"); /* exactly fits */
    label_of(&t, 8, 3, "9:…");
    label_of(&t, 8, 2, "9…");
    label_of(&t, 8, 1, "…");
    label_of(&t, 9, 0, "鸟");
    label_of(&t, 10, 2, "，");
    label_of(&t, 10, 1, "…");
    label_of(&t, 20, 0, ""); /* out of range */
    label_of(&t, -1, 0, "");
    attn_tokens_free(&t);

    static const char *const words[] = {"因为它飞"};
    const attn_wordlist v = {1, words, NULL};
    assert_int_equal(attn_tokenize(&t, "因为它飞 extraordinary", strlen("因为它飞 extraordinary"), &v, NULL),
                     ATTN_OK);
    label_of(&t, 0, 8, "因为它飞");
    label_of(&t, 0, 7, "因为它…");
    label_of(&t, 0, 6, "因为…"); /* 它 would need columns 5-6, the ellipsis the 7th */
    label_of(&t, 0, 5, "因为…");
    label_of(&t, 0, 4, "因…");
    label_of(&t, 1, 5, "extr…");
    label_of(&t, 1, 13, "extraordinary");
    label_of(&t, 1, -1, "extraordinary");
    attn_tokens_free(&t);
}

static void label_buffer_limits(void **state) {
    (void)state;
    attn_tokens t;
    char buf[8];
    assert_int_equal(attn_tokenize(&t, "extraordinary 只 只", strlen("extraordinary 只 只"), NULL, NULL),
                     ATTN_OK);
    assert_int_equal(attn_token_label(&t, 0, 0, buf, 4), 3);
    assert_string_equal(buf, "ext");
    assert_int_equal(attn_token_label(&t, 1, 0, buf, 4), 2); /* "2:" then 只 does not fit */
    assert_string_equal(buf, "2:");
    assert_int_equal(attn_token_label(&t, 2, 0, buf, 6), 5);
    assert_string_equal(buf, "3:只");
    assert_int_equal(attn_token_label(&t, 0, 5, buf, sizeof buf), 7); /* "extr" + 3-byte … */
    assert_string_equal(buf, "extr…");
    assert_int_equal(attn_token_label(&t, 0, 0, buf, 1), 0);
    assert_string_equal(buf, "");
    buf[0] = 'x';
    assert_int_equal(attn_token_label(&t, 0, 0, buf, 0), 0);
    assert_int_equal(buf[0], 'x'); /* cap 0: nothing written */
    assert_int_equal(attn_token_label(&t, 0, 0, NULL, 8), 0);
    attn_tokens_free(&t);
}

/* Whatever the column limit, a label is valid UTF-8 and fits. */
static void labels_never_split(void **state) {
    (void)state;
    const char *s = "Hello世界 didn't 👍🏽 👨\u200D👩\u200D👧 🇨🇳 e\xCC\x81te Hello 世";
    attn_tokens t;
    assert_int_equal(attn_tokenize(&t, s, strlen(s), NULL, NULL), ATTN_OK);
    for (int i = 0; i < t.n; i++) {
        for (int cols = 1; cols <= 16; cols++) {
            char buf[64];
            size_t n = attn_token_label(&t, i, cols, buf, sizeof buf);
            assert_int_equal(n, strlen(buf));
            assert_true(utf8_find_invalid(buf, n) == (size_t)-1);
            assert_true(utf8_width(buf, n) <= cols);
        }
    }
    attn_tokens_free(&t);
}

static void token_text(void **state) {
    (void)state;
    attn_tokens t;
    int len = -1;
    assert_int_equal(attn_tokenize(&t, ENGLISH, strlen(ENGLISH), NULL, NULL), ATTN_OK);
    const char *p = attn_token_text(&t, 2, &len);
    assert_int_equal(len, 6);
    assert_memory_equal(p, "didn't", 6);
    assert_null(attn_token_text(&t, 12, &len));
    assert_int_equal(len, 0);
    assert_null(attn_token_text(NULL, 0, &len));
    attn_tokens_free(&t);
    assert_null(attn_token_text(&t, 0, &len));
}

static void free_and_copy(void **state) {
    (void)state;
    attn_tokens t, c, e;
    attn_err err;
    attn_tokens_free(NULL);
    memset(&e, 0, sizeof e);
    attn_tokens_free(&e);
    attn_tokens_free(&e);
    assert_int_equal(attn_tokenize(&t, SEED, strlen(SEED), NULL, &err), ATTN_OK);
    assert_int_equal(attn_tokens_copy(&c, &t, &err), ATTN_OK);
    assert_ptr_not_equal(c.text, t.text);
    assert_string_equal(c.text, SEED);
    assert_int_equal(c.text_len, t.text_len);
    assert_int_equal(c.n, 20);
    assert_memory_equal(c.off, t.off, sizeof t.off);
    assert_memory_equal(c.len, t.len, sizeof t.len);
    assert_memory_equal(c.repeated, t.repeated, sizeof t.repeated);
    attn_tokens_free(&t);
    assert_null(t.text);
    assert_int_equal(t.n, 0);
    char buf[16];
    attn_token_label(&c, 8, 0, buf, sizeof buf); /* the copy outlives the original */
    assert_string_equal(buf, "9:只");
    attn_tokens_free(&c);
    /* Copying an empty set gives an empty set. */
    assert_int_equal(attn_tokens_copy(&c, &e, &err), ATTN_OK);
    assert_int_equal(c.n, 0);
    assert_null(c.text);
}

static void control_characters_refused(void **state) {
    (void)state;
    expect_error("a\x01"
                 "b",
                 3, "control character (U+0001) at byte 1");
    expect_error("a \x1b[31m", 7, "(U+001B) at byte 2");
    expect_error("ab"
                 "\x7f",
                 3, "(U+007F) at byte 2");
    expect_error("x\xc2\x9b", 3, "(U+009B) at byte 1"); /* a C1 control */
    attn_tokens t;
    /* tabs, line breaks and NEL are whitespace, not refused */
    assert_int_equal(attn_tokenize(&t, "a\tb\r\nc"
                                       "\xc2\x85"
                                       "d",
                                   9, NULL, NULL),
                     ATTN_OK);
    assert_int_equal(t.n, 4);
    attn_tokens_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chinese_seed),
        cmocka_unit_test(chinese_vocab),
        cmocka_unit_test(vocab_longest_match),
        cmocka_unit_test(english),
        cmocka_unit_test(apostrophes),
        cmocka_unit_test(punctuation),
        cmocka_unit_test(mixed_scripts),
        cmocka_unit_test(combining_marks),
        cmocka_unit_test(cjk_punctuation),
        cmocka_unit_test(emoji),
        cmocka_unit_test(whitespace),
        cmocka_unit_test(offsets_cover_text),
        cmocka_unit_test(empty_inputs),
        cmocka_unit_test(nul_byte),
        cmocka_unit_test(invalid_utf8),
        cmocka_unit_test(token_limit),
        cmocka_unit_test(byte_limit),
        cmocka_unit_test(repeated_tokens),
        cmocka_unit_test(labels),
        cmocka_unit_test(label_buffer_limits),
        cmocka_unit_test(labels_never_split),
        cmocka_unit_test(token_text),
        cmocka_unit_test(free_and_copy),
        cmocka_unit_test(control_characters_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
