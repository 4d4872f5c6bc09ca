/* fuzz_tokenize.c — the UTF-8 decoder, the tokenizer and token labels on
 * arbitrary bytes; a small trace on top so embeddings, JSON strings and the
 * explain text see the same odd tokens. Invariants abort, so a wrong answer
 * counts as a crash, not only a memory error. */
#include <string.h>

#include "attn.h"
#include "cli_explain.h"
#include "attn_json.h"
#include "fuzz_common.h"
#include "tokenize.h"
#include "utf8.h"

/* Lesson-like words plus ones the tokenizer must ignore: one code point, a
 * space inside, invalid UTF-8, empty. */
static const char *const words[] = {
    "动物",
    "因为",
    "那只",
    "飞得太快",
    "它",
    "a b",
    "\xff\xfe",
    "",
    "didn't",
    "动物园",
};
#define N_WORDS ((int)(sizeof words / sizeof *words))
static const double vectors[N_WORDS * 2] = {
    1,
    0,
    0,
    1,
    0.5,
    0.5,
    -1,
    1,
    1e3,
    -1e3,
    0,
    0,
    2,
    2,
    3,
    3,
    0.25,
    -0.25,
    1,
    1,
};

/* Walks the bytes code point by code point and checks it agrees with
 * utf8_find_invalid, utf8_encode and utf8_problem. */
static void check_utf8(const char *s, size_t len) {
    size_t i = 0, bad = (size_t)-1;
    while (i < len) {
        uint32_t cp = 0;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            bad = i;
            break;
        }
        FUZZ_CHECK(n >= 1 && n <= 4 && (size_t)n <= len - i);
        FUZZ_CHECK(cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF));
        char enc[4];
        FUZZ_CHECK(utf8_encode(cp, enc) == n && memcmp(enc, s + i, (size_t)n) == 0);
        int w = utf8_cp_width(cp);
        FUZZ_CHECK(w >= 0 && w <= 2);
        i += (size_t)n;
    }
    FUZZ_CHECK(utf8_find_invalid(s, len) == bad);
    const char *what = utf8_problem(s, len, bad == (size_t)-1 ? len : bad);
    FUZZ_CHECK(what != NULL && what[0] != '\0');
    if (bad != (size_t)-1) FUZZ_CHECK(strcmp(what, "a well-formed character") != 0);

    int width = utf8_width(s, len);
    FUZZ_CHECK(width >= 0 && (size_t)width <= 2 * len);
    static const int cols[] = {-1, 0, 1, 2, 3, 7, 12, 1000};
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
        size_t p = utf8_prefix_fitting(s, len, cols[k]);
        FUZZ_CHECK(p <= len);
        FUZZ_CHECK(utf8_width(s, p) <= (cols[k] < 0 ? 0 : cols[k]));
        if (bad == (size_t)-1) FUZZ_CHECK(utf8_find_invalid(s, p) == (size_t)-1); // whole code points
    }
}

/* Labels are NUL-terminated inside cap, valid UTF-8 and within max_cols. */
static void check_labels(const attn_tokens *t) {
    static const int cols[] = {0, 1, 3, 12};
    static const size_t caps[] = {1, 5, 96};
    char out[96];
    for (int i = 0; i < t->n; i++)
        for (size_t a = 0; a < sizeof cols / sizeof *cols; a++)
            for (size_t b = 0; b < sizeof caps / sizeof *caps; b++) {
                memset(out, 'x', sizeof out);
                size_t len = attn_token_label(t, i, cols[a], out, caps[b]);
                FUZZ_CHECK(len < caps[b] && out[len] == '\0' && strlen(out) == len);
                FUZZ_CHECK(utf8_find_invalid(out, len) == (size_t)-1);
                if (cols[a] > 0 && caps[b] == sizeof out) FUZZ_CHECK(utf8_width(out, len) <= cols[a]);
            }
}

/* A successful split covers the sentence in order, without overlaps. */
static void check_tokens(const attn_tokens *t, const char *s, size_t len) {
    FUZZ_CHECK(t->n >= 1 && t->n <= ATTN_MAX_TOKENS);
    FUZZ_CHECK(t->text && t->text_len == len && memcmp(t->text, s, len) == 0 && t->text[len] == '\0');
    int end = 0;
    for (int i = 0; i < t->n; i++) {
        int tl;
        const char *p = attn_token_text(t, i, &tl);
        FUZZ_CHECK(p == t->text + t->off[i] && tl == t->len[i] && tl > 0);
        FUZZ_CHECK(t->off[i] >= end && (size_t)t->off[i] + (size_t)tl <= len);
        FUZZ_CHECK(utf8_find_invalid(p, (size_t)tl) == (size_t)-1);
        FUZZ_CHECK(!memchr(p, ' ', (size_t)tl) && !memchr(p, '\n', (size_t)tl) && !memchr(p, '\t', (size_t)tl));
        end = t->off[i] + tl;
    }
    int tl;
    FUZZ_CHECK(attn_token_text(t, t->n, &tl) == NULL && tl == 0);
}

/* Runs a small trace on the sentence, dumps it and explains one cell. */
static void run_small_trace(const char *s, size_t len, const attn_tokens *t, const attn_vocab *vocab) {
    attn_config c;
    attn_config_default(&c);
    c.d_model = 2; // the vocabulary's dim, so listed words use their vectors
    c.d_k = 1 + (int)(len % 2);
    c.heads = 1 + (int)(len % 3);
    c.pos_enc = (len % 5) < 2;
    c.bias = len % 2;
    c.mask.kind = (attn_mask_kind)(len % 4);
    c.mask.window = 1 + (int)(len % 3);
    attn_trace tr;
    memset(&tr, 0, sizeof tr);
    attn_err err;
    attn_status st = attn_trace_run(&tr, s, len, &c, vocab, NULL, &err);
    FUZZ_CHECK(st == ATTN_OK); // the same text already tokenized with these words
    FUZZ_CHECK(tr.n == t->n);
    if (tr.n <= 8) { // the dump of a long sentence costs more than all the rest
        char *json = attn_json_dump(&tr);
        FUZZ_CHECK(json != NULL);
        free(json);
    }
    static attn_explanation e; // large: keep it off the stack
    FUZZ_CHECK(attn_explain(&e, &tr, ATTN_ST_WEIGHTS, c.heads - 1, tr.n - 1, 0, &err) == ATTN_OK);
    size_t need = cli_explain_format(&e, &tr, NULL, 0);
    char *text = malloc(need + 1);
    FUZZ_CHECK(text && cli_explain_format(&e, &tr, text, need + 1) == need && strlen(text) == need);
    free(text);
    attn_trace_free(&tr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data;
    check_utf8(s, size);

    attn_tokens plain, listed;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = attn_tokenize(&plain, s, size, NULL, &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(st == ATTN_ERR_INPUT && err.code == st && err.msg[0] != '\0');
        FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL);
        FUZZ_CHECK(plain.n == 0 && plain.text == NULL);
    } else {
        check_tokens(&plain, s, size);
        check_labels(&plain);
        attn_tokens copy;
        FUZZ_CHECK(attn_tokens_copy(&copy, &plain, NULL) == ATTN_OK);
        FUZZ_CHECK(copy.n == plain.n && copy.text != plain.text && strcmp(copy.text, plain.text) == 0);
        attn_tokens_free(&copy);
    }

    attn_wordlist wl = {N_WORDS, words, NULL};
    attn_status st2 = attn_tokenize(&listed, s, size, &wl, NULL);
    // the sorted index gives the tokens a full search gives
    int order[N_WORDS];
    attn_words_sort(order, words, N_WORDS);
    attn_wordlist indexed = {N_WORDS, words, order};
    attn_tokens fast;
    attn_status st3 = attn_tokenize(&fast, s, size, &indexed, NULL);
    FUZZ_CHECK(st3 == st2 && fast.n == listed.n);
    for (int i = 0; i < fast.n; i++) FUZZ_CHECK(fast.off[i] == listed.off[i] && fast.len[i] == listed.len[i]);
    attn_tokens_free(&fast);
    if (st == ATTN_OK) {
        // longest match only merges ideographs, so it never adds tokens
        FUZZ_CHECK(st2 == ATTN_OK && listed.n <= plain.n);
        check_tokens(&listed, s, size);
        check_labels(&listed);
        attn_vocab vocab = {2, N_WORDS, words, vectors, NULL, NULL}, indexed_vocab = vocab;
        indexed_vocab.order = order;
        for (int i = 0; i < listed.n; i++) // a token finds the same vector either way
            FUZZ_CHECK(attn_vocab_find(&vocab, s + listed.off[i], (size_t)listed.len[i]) ==
                       attn_vocab_find(&indexed_vocab, s + listed.off[i], (size_t)listed.len[i]));
        run_small_trace(s, size, &listed, &vocab);
    } else if (st2 == ATTN_OK) {
        FUZZ_CHECK(strstr(err.msg, "tokens; attnviz shows at most") != NULL); // only the count can differ
        check_tokens(&listed, s, size);
    }
    attn_tokens_free(&listed);
    attn_tokens_free(&plain);
    attn_tokens_free(&plain); // a second free is a no-op
    return 0;
}
