/* test_bpe.c — src/hf/bpe: GPT-2's pre-tokenizer on hand-cut sentences, the
 * merges of a small hand-built vocabulary, labels and offsets, and each
 * refusal. (The real GPT-2 vocabulary is compared with independent
 * tokenizers in tests/tokenizers.) */
#include <stdlib.h>

#include "test_common.h"
#include "bpe.h"
#include "strbuf.h"
#include "unicode_tables.h"

/* GPT-2's byte alphabet, from its definition: bytes ! to ~, ¡ to ¬ and ® to ÿ
 * are themselves; the other 68, in order, are U+0100 on. */
static void alphabet_char(attn_strbuf *b, int byte) {
    int cp = byte, next = 256;
    if (!((byte >= 0x21 && byte <= 0x7E) || (byte >= 0xA1 && byte <= 0xAC) || byte >= 0xAE)) {
        for (int i = 0; i < byte; i++)
            if (!((i >= 0x21 && i <= 0x7E) || (i >= 0xA1 && i <= 0xAC) || i >= 0xAE)) next++;
        cp = next;
    }
    char enc[4];
    int n = cp < 0x80 ? (enc[0] = (char)cp, 1) : (enc[0] = (char)(0xC0 | cp >> 6), enc[1] = (char)(0x80 | (cp & 0x3F)), 2);
    if (cp == '"' || cp == '\\') attn_sb_puts(b, "\\");
    attn_sb_append(b, enc, (size_t)n);
}

/* A token of raw bytes s written in the alphabet. */
static void alphabet_str(attn_strbuf *b, const char *s) {
    for (; *s; s++) alphabet_char(b, (unsigned char)*s);
}

/* The vocabulary: bytes 0-255 are ids 0-255, then extra[i] is 256 + i, then
 * <|endoftext|>; merges[i] ("left|right" in raw bytes) has rank i. */
static hf_bpe *make_bpe(const char *const *extra, int n_extra, const char *const *merges, int n_merges) {
    attn_strbuf v, m;
    attn_sb_init(&v);
    attn_sb_init(&m);
    attn_sb_puts(&v, "{");
    for (int i = 0; i < 256; i++) {
        attn_sb_puts(&v, "\"");
        alphabet_char(&v, i);
        attn_sb_printf(&v, "\": %d, ", i);
    }
    for (int i = 0; i < n_extra; i++) {
        attn_sb_puts(&v, "\"");
        alphabet_str(&v, extra[i]);
        attn_sb_printf(&v, "\": %d, ", 256 + i);
    }
    attn_sb_printf(&v, "\"<|endoftext|>\": %d}", 256 + n_extra);
    attn_sb_puts(&m, "#version: 0.2\n");
    for (int i = 0; i < n_merges; i++) {
        const char *sp = strchr(merges[i], '|');
        char left[64];
        snprintf(left, sizeof left, "%.*s", (int)(sp - merges[i]), merges[i]);
        alphabet_str(&m, left);
        attn_sb_puts(&m, " ");
        alphabet_str(&m, sp + 1);
        attn_sb_puts(&m, "\n");
    }
    hf_bpe *b = NULL;
    attn_err err;
    attn_status st = hf_bpe_load_text(&b, v.data, v.len, "vocab.json", m.data, m.len, "merges.txt", &err);
    if (st != ATTN_OK) fail_msg("load: %s", err.msg);
    attn_sb_free(&v);
    attn_sb_free(&m);
    return b;
}

/* The pre-tokens of s joined with '|'. */
static void expect_pretokens(const char *s, const char *want) {
    char got[512] = "";
    size_t len = strlen(s), n = 0;
    for (size_t at = 0; at < len;) {
        size_t end = hf_bpe_pretoken_end(s, len, at);
        assert_true(end > at && end <= len);
        n += (size_t)snprintf(got + n, sizeof got - n, "%s%.*s", at ? "|" : "", (int)(end - at), s + at);
        at = end;
    }
    if (strcmp(got, want) != 0) fail_msg("pre-tokens of \"%s\": \"%s\", expected \"%s\"", s, got, want);
}

static void test_pretokenizer(void **state) {
    (void)state;
    expect_pretokens("Hello world", "Hello| world");
    expect_pretokens("don't DON'T", "don|'t| DON|'|T"); // contractions are lower-case only
    expect_pretokens("we'll they're I've", "we|'ll| they|'re| I|'ve");
    expect_pretokens("a  b", "a| | b"); // a run of spaces keeps one for the word
    expect_pretokens("a\n\nb", "a|\n|\n|b");
    expect_pretokens("end  ", "end|  "); // white space at the end stays whole
    expect_pretokens("abc123 4.5", "abc|123| 4|.|5");
    expect_pretokens("!!! ?", "!!!| ?");
    expect_pretokens("你好，世界", "你好|，|世界"); // letters, then other
    expect_pretokens("x\xc2\xa0y", "x|\xc2\xa0|y"); // U+00A0 is white space, not a space
    expect_pretokens("a\xe3\x80\x80\xe3\x80\x80"
                     "b",
                     "a|\xe3\x80\x80|\xe3\x80\x80|b"); // only U+0020 joins a word
    expect_pretokens("Ⅻ٣", "Ⅻ٣");                      // Nl and Nd are both \p{N}
    expect_pretokens("e\xcc\x81", "e|\xcc\x81");       // a combining mark is not \p{L}
    expect_pretokens("'", "'");
}

static void test_unicode_classes(void **state) {
    (void)state;
    assert_true(uni_is_letter('a') && uni_is_letter(0x4F60) && uni_is_letter(0x00AA));
    assert_false(uni_is_letter('1') || uni_is_letter(0x0301) || uni_is_letter('_'));
    assert_true(uni_is_number('7') && uni_is_number(0x216B) && uni_is_number(0x00B2) && uni_is_number(0x0663));
    assert_false(uni_is_number('a') || uni_is_number('.'));
    assert_true(uni_is_white_space(' ') && uni_is_white_space('\n') && uni_is_white_space(0x0B) &&
                uni_is_white_space(0x85) && uni_is_white_space(0xA0) && uni_is_white_space(0x3000) &&
                uni_is_white_space(0x2029));
    assert_false(uni_is_white_space(0x1C) || uni_is_white_space(0x200B) || uni_is_white_space(0xFEFF) ||
                 uni_is_white_space('x'));
}

static void expect_ids(const hf_bpe *b, const char *s, bool bos, const int *ids, int n) {
    hf_tokens t;
    attn_err err;
    if (hf_bpe_encode(b, s, strlen(s), bos, &t, &err) != ATTN_OK) fail_msg("%s: %s", s, err.msg);
    if (t.count != n) fail_msg("\"%s\": %d tokens, expected %d", s, t.count, n);
    for (int i = 0; i < n; i++)
        if (t.v[i].id != ids[i]) fail_msg("\"%s\": token %d is %d, expected %d", s, i, t.v[i].id, ids[i]);
    hf_tokens_free(&t);
}

/* Merges by rank, the lowest first, the leftmost of equals first. */
static void test_merges_by_rank(void **state) {
    (void)state;
    // ids: lo 256, low 257, er 258, lower 259, " l" 260, aa 261
    const char *extra[] = {"lo", "low", "er", "lower", " l", "aa"};
    const char *merges[] = {"l|o", "lo|w", "e|r", "low|er", "a|a", " |l"};
    hf_bpe *b = make_bpe(extra, 6, merges, 6);
    expect_ids(b, "lower", false, (int[]){259}, 1);
    expect_ids(b, "lowe", false, (int[]){257, 'e'}, 2);
    // " lower": " l" (rank 5) loses to "l o" (rank 0): " ", then "lower"
    expect_ids(b, " lower", false, (int[]){' ', 259}, 2);
    expect_ids(b, " la", false, (int[]){260, 'a'}, 2);
    expect_ids(b, "aaa", false, (int[]){261, 'a'}, 2); // the leftmost pair first
    expect_ids(b, "aaaa", false, (int[]){261, 261}, 2);
    expect_ids(b, "low!", false, (int[]){257, '!'}, 2); // merges stay inside a pre-token
    expect_ids(b, "lo", true, (int[]){262, 256}, 2);    // <|endoftext|> first when asked
    expect_ids(b, "<|endoftext|>", false, (int[]){'<', '|', 'e', 'n', 'd', 'o', 'f', 't', 'e', 'x', 't', '|', '>'}, 13);
    assert_int_equal(hf_bpe_vocab_size(b), 263);
    size_t n = 0;
    const char *p = hf_bpe_piece(b, 260, &n);
    assert_int_equal(n, 2);
    assert_memory_equal(p, " l", 2);
    assert_null(hf_bpe_piece(b, 263, &n));
    hf_bpe_free(b);
    hf_bpe_free(NULL);
}

/* Offsets in the sentence; labels of whole characters and of byte pieces. */
static void test_labels_and_offsets(void **state) {
    (void)state;
    const char *extra2[] = {"\xe4\xbd", "hi", " hi"};
    const char *merges2[] = {"\xe4|\xbd", "h|i", " |hi"};
    hf_bpe *b = make_bpe(extra2, 3, merges2, 3);
    const char *s = "\xe4\xbd\xa0 hi\n\xe5\xa5\xbd\x01";
    hf_tokens t;
    attn_err err;
    assert_int_equal(hf_bpe_encode(b, s, strlen(s), true, &t, &err), ATTN_OK);
    // <|endoftext|>, 你 as e4bd + a0, " hi", "\n", 好 as three bytes, U+0001
    const char *labels[] = {"<|endoftext|>", "‹e4 bd›", "‹a0›", "␣hi", "↵", "‹e5›", "‹a5›", "‹bd›", "‹U+0001›"};
    const size_t starts[] = {0, 0, 2, 3, 6, 7, 8, 9, 10}, ends[] = {0, 2, 3, 6, 7, 8, 9, 10, 11};
    assert_int_equal(t.count, 9);
    for (int i = 0; i < 9; i++) {
        assert_string_equal(t.v[i].label, labels[i]);
        assert_int_equal(t.v[i].start, starts[i]);
        assert_int_equal(t.v[i].end, ends[i]);
    }
    // the character a piece belongs to: 你 over tokens 1-2, 好 over 5-7
    assert_int_equal(t.v[1].char_start, 0);
    assert_int_equal(t.v[1].char_end, 3);
    assert_int_equal(t.v[2].char_start, 0);
    assert_int_equal(t.v[2].char_end, 3);
    assert_int_equal(t.v[6].char_start, 7);
    assert_int_equal(t.v[6].char_end, 10);
    assert_int_equal(t.v[3].char_start, 3);
    assert_int_equal(t.v[3].char_end, 6);
    assert_int_equal(t.v[1].id, 256);
    assert_int_equal(t.v[3].id, 258);
    hf_tokens_free(&t);
    hf_tokens_free(&t);
    hf_tokens_free(NULL);
    hf_bpe_free(b);
}

static void test_encode_refusals(void **state) {
    (void)state;
    hf_bpe *b = make_bpe(NULL, 0, NULL, 0);
    hf_tokens t;
    attn_err err;
    assert_int_equal(hf_bpe_encode(b, "a\xff", 2, false, &t, &err), ATTN_ERR_INPUT);
    assert_non_null(strstr(err.msg, "not valid UTF-8"));
    assert_int_equal(t.count, 0);
    char run[HF_BPE_MAX_PRETOKEN + 2];
    memset(run, 'a', sizeof run);
    run[HF_BPE_MAX_PRETOKEN] = '\0';
    assert_int_equal(hf_bpe_encode(b, run, HF_BPE_MAX_PRETOKEN, false, &t, &err), ATTN_OK);
    assert_int_equal(t.count, HF_BPE_MAX_PRETOKEN);
    hf_tokens_free(&t);
    run[HF_BPE_MAX_PRETOKEN] = 'a';
    run[HF_BPE_MAX_PRETOKEN + 1] = '\0';
    assert_int_equal(hf_bpe_encode(b, run, HF_BPE_MAX_PRETOKEN + 1, false, &t, &err), ATTN_ERR_INPUT);
    assert_non_null(strstr(err.msg, "a run of 1025 bytes"));
    assert_null(t.v);
    hf_bpe_free(b);
}

static void expect_load_refused(const char *vocab, const char *merges, const char *frag) {
    hf_bpe *b = (hf_bpe *)1;
    attn_err err;
    attn_status st = hf_bpe_load_text(&b, vocab, strlen(vocab), "v.json", merges, strlen(merges), "m.txt", &err);
    assert_int_equal(st, ATTN_ERR_PARSE);
    assert_null(b);
    if (!strstr(err.msg, frag)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, frag);
}

static void test_load_refusals(void **state) {
    (void)state;
    expect_load_refused("[1]", "", "v.json is not a vocabulary");
    expect_load_refused("{\"a\": ", "", "not JSON at line 1");
    expect_load_refused("{\"a\": 1.5}", "", "token \"a\" has id out of range");
    expect_load_refused("{\"a\": \"x\"}", "", "token \"a\" has id missing");
    expect_load_refused("{\"a\": 1, \"b\": 1}", "", "id 1 is given to two tokens");
    expect_load_refused("{\"\xe4\xbd\xa0\": 1}", "", "not written in GPT-2's byte alphabet");
    expect_load_refused("{\"a\": 1}", "", "v.json has no token for the byte 0x00");
    // a complete alphabet, then bad merges
    attn_strbuf v;
    attn_sb_init(&v);
    attn_sb_puts(&v, "{");
    for (int i = 0; i < 256; i++) {
        attn_sb_puts(&v, i ? ", \"" : "\"");
        alphabet_char(&v, i);
        attn_sb_printf(&v, "\": %d", i);
    }
    attn_sb_puts(&v, ", \"ab\": 256}");
    expect_load_refused(v.data, "#version: 0.2\na b\nab\n", "m.txt, line 3: a merge is two tokens");
    expect_load_refused(v.data, "a b\nab c\n", "m.txt, line 2: the merged token is not in the vocabulary");
    expect_load_refused(v.data, "a b\nxy z\n", "m.txt, line 2: \"xy\" is not a token");
    hf_bpe *b = NULL;
    attn_err err;
    assert_int_equal(hf_bpe_load_text(&b, v.data, v.len, "v", "a b\r\n\n", 6, "m", &err), ATTN_OK);
    hf_bpe_free(b);
    attn_sb_free(&v);
    assert_int_equal(hf_bpe_load(&b, "/nonexistent/vocab.json", "/nonexistent/merges.txt", &err), ATTN_ERR_IO);
    assert_null(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pretokenizer),
        cmocka_unit_test(test_unicode_classes),
        cmocka_unit_test(test_merges_by_rank),
        cmocka_unit_test(test_labels_and_offsets),
        cmocka_unit_test(test_encode_refusals),
        cmocka_unit_test(test_load_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
