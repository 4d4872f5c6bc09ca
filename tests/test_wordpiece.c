/* test_wordpiece.c — src/hf/wordpiece: BERT's basic tokenizer and WordPiece
 * on a small hand-written vocab.txt, every step with a hand-worked case, and
 * the refusals. (tests/tokenizers compares it with a Python WordPiece on a
 * larger corpus.) */
#include <stdlib.h>

#include "test_common.h"
#include "unicode_tables.h"
#include "wordpiece.h"

static const char vocab[] =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n"      // 0-3
    "un\n##aff\n##able\nhello\nworld\n" // 4-8
    ",\n!\n'\nt\ndon\n"                 // 9-13
    "你\n好\ncafe\n##s\na\n##a\n";      // 14-19

static hf_wordpiece *load(void) {
    hf_wordpiece *w = NULL;
    attn_err err;
    if (hf_wordpiece_load_text(&w, vocab, strlen(vocab), "vocab.txt", &err) != ATTN_OK) fail_msg("%s", err.msg);
    return w;
}

/* Encodes s and checks the ids after [CLS] (and, when labels is not NULL,
 * each label). */
static void expect(const hf_wordpiece *w, const char *s, const int *ids, int n, const char *const *labels) {
    hf_tokens t;
    attn_err err;
    if (hf_wordpiece_encode(w, s, strlen(s), &t, &err) != ATTN_OK) fail_msg("%s: %s", s, err.msg);
    assert_true(t.count >= 1);
    assert_int_equal(t.v[0].id, 2); // [CLS] first
    assert_string_equal(t.v[0].label, "[CLS]");
    if (t.count - 1 != n) fail_msg("\"%s\": %d tokens after [CLS], expected %d", s, t.count - 1, n);
    for (int i = 0; i < n; i++) {
        if (t.v[i + 1].id != ids[i]) fail_msg("\"%s\": token %d is %d, expected %d", s, i, t.v[i + 1].id, ids[i]);
        if (labels) assert_string_equal(t.v[i + 1].label, labels[i]);
    }
    hf_tokens_free(&t);
}

static void test_pieces(void **state) {
    (void)state;
    hf_wordpiece *w = load();
    expect(w, "UNaffable", (int[]){4, 5, 6}, 3, (const char *[]){"un", "##aff", "##able"});
    expect(w, "unaffables", (int[]){4, 5, 6, 17}, 4, NULL);
    expect(w, "aaa", (int[]){18, 19, 19}, 3, NULL);
    expect(w, "unx", (int[]){1}, 1, (const char *[]){"[UNK]"}); // no way into pieces: the whole word
    expect(w, "", NULL, 0, NULL);                               // [CLS] alone, never [SEP]
    hf_wordpiece_free(w);
    hf_wordpiece_free(NULL);
}

static void test_basic_tokenizer(void **state) {
    (void)state;
    hf_wordpiece *w = load();
    expect(w, "Hello,World!", (int[]){7, 9, 8, 10}, 4, NULL); // split on punctuation
    expect(w, "DON'T", (int[]){13, 11, 12}, 3, NULL);
    expect(w, "Café CAFÉS", (int[]){16, 16, 17}, 3, NULL);                    // lower-cased, accents stripped
    expect(w, "cafe\xcc\x81", (int[]){16}, 1, NULL);                          // a combining accent dropped
    expect(w, "你好吗", (int[]){14, 15, 1}, 3, NULL);                         // each ideograph a word
    expect(w, "hel\x01lo\x7f \xef\xbf\xbd", (int[]){7}, 1, NULL);             // controls and U+FFFD dropped
    expect(w, "hello\xe3\x80\x80world\xc2\xa0!", (int[]){7, 8, 10}, 3, NULL); // U+3000, U+00A0 are spaces
    expect(w, "hello\xe2\x80\x8bworld", (int[]){1}, 1, NULL);                 // U+200B (Cf) dropped: one word
    char run[202];
    memset(run, 'a', 101);
    run[101] = '\0';
    expect(w, run, (int[]){1}, 1, NULL); // 101 characters: [UNK] without trying
    run[100] = '\0';
    hf_tokens t;
    attn_err err;
    assert_int_equal(hf_wordpiece_encode(w, run, 100, &t, &err), ATTN_OK);
    assert_int_equal(t.count, 101); // a ##a ##a ...
    hf_tokens_free(&t);
    assert_int_equal(hf_wordpiece_encode(w, "hel\0lo", 6, &t, &err), ATTN_OK); // U+0000 dropped too
    assert_int_equal(t.count, 2);
    assert_int_equal(t.v[1].id, 7);
    hf_tokens_free(&t);
    hf_wordpiece_set_lower(w, false);
    expect(w, "Hello hello", (int[]){1, 7}, 2, NULL);
    hf_wordpiece_free(w);
}

static void test_offsets(void **state) {
    (void)state;
    hf_wordpiece *w = load();
    const char *s = "Café! 你 unaffable";
    hf_tokens t;
    attn_err err;
    assert_int_equal(hf_wordpiece_encode(w, s, strlen(s), &t, &err), ATTN_OK);
    // [CLS] cafe ! 你 un ##aff ##able
    const size_t starts[] = {0, 0, 5, 7, 11, 13, 16}, ends[] = {0, 5, 6, 10, 13, 16, 20};
    assert_int_equal(t.count, 7);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(t.v[i].start, starts[i]);
        assert_int_equal(t.v[i].end, ends[i]);
    }
    hf_tokens_free(&t);
    assert_int_equal(hf_wordpiece_encode(w, "a\xc3", 2, &t, &err), ATTN_ERR_INPUT);
    assert_non_null(strstr(err.msg, "not valid UTF-8"));
    assert_int_equal(t.count, 0);
    hf_wordpiece_free(w);
}

static void test_lower_strip_table(void **state) {
    (void)state;
    uint32_t out[3];
    assert_int_equal(uni_lower_strip('A', out), 1);
    assert_int_equal(out[0], 'a');
    assert_int_equal(uni_lower_strip(0xC9, out), 1); // É → e
    assert_int_equal(out[0], 'e');
    assert_int_equal(uni_lower_strip(0x130, out), 1); // İ → i (lower gives i + U+0307, which is stripped)
    assert_int_equal(out[0], 'i');
    assert_int_equal(uni_lower_strip(0x0301, out), 0); // a combining accent alone: nothing
    assert_int_equal(uni_lower_strip(0xDF, out), 1);   // ß stays
    assert_int_equal(out[0], 0xDF);
    assert_int_equal(uni_lower_strip(0x4F60, out), 1);
    assert_int_equal(out[0], 0x4F60);
    assert_int_equal(uni_lower_strip(0xAC00, out), 2); // 가 → ᄀ ᅡ
    assert_true(out[0] == 0x1100 && out[1] == 0x1161);
    assert_int_equal(uni_lower_strip(0xD7A3, out), 3); // 힣 → ᄒ ᅵ ᇂ
    assert_true(out[0] == 0x1112 && out[1] == 0x1175 && out[2] == 0x11C2);
    assert_int_equal(uni_lower_strip(0x1E9E, out), 1); // ẞ → ß
    assert_int_equal(out[0], 0xDF);
    assert_int_equal(uni_lower_strip(0xF900, out), 1); // a compatibility ideograph → its unified one
    assert_int_equal(out[0], 0x8C48);
}

static void test_load_refusals(void **state) {
    (void)state;
    hf_wordpiece *w = (hf_wordpiece *)1;
    attn_err err;
    assert_int_equal(hf_wordpiece_load_text(&w, "[CLS]\nx\n", 8, "v.txt", &err), ATTN_ERR_PARSE);
    assert_null(w);
    assert_non_null(strstr(err.msg, "v.txt has no [UNK] line"));
    assert_int_equal(hf_wordpiece_load_text(&w, "[UNK]\n[CLS]\n\xff\n", 14, "v.txt", &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "v.txt, line 3: not UTF-8"));
    // CR LF lines, no final newline, a repeated token keeps its later id
    assert_int_equal(hf_wordpiece_load_text(&w, "[UNK]\r\n[CLS]\r\nab\r\nab", 20, "v.txt", &err), ATTN_OK);
    hf_tokens t;
    assert_int_equal(hf_wordpiece_encode(w, "ab", 2, &t, &err), ATTN_OK);
    assert_int_equal(t.count, 2);
    assert_int_equal(t.v[0].id, 1);
    assert_int_equal(t.v[1].id, 3);
    hf_tokens_free(&t);
    hf_wordpiece_free(w);
    assert_int_equal(hf_wordpiece_load(&w, "/nonexistent/vocab.txt", &err), ATTN_ERR_IO);
    assert_null(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_basic_tokenizer),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_lower_strip_table),
        cmocka_unit_test(test_load_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
