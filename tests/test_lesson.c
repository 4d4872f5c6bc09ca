/* test_lesson.c — the lesson parser (valid lessons, every kind of error with
 * its line and column), the shipped lessons' designed example, their
 * saturation and cost figures, and the zh/en page pairing. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "fileio.h"
#include "lesson_internal.h"
#include "page.h"
#include "strbuf.h"
#include "viz_lesson.h"
#include "viz_strings.h"

#define ZH_LESSON ATTN_SOURCE_DIR "/lessons/zh/self-attention.lesson"
#define EN_LESSON ATTN_SOURCE_DIR "/lessons/en/self-attention.lesson"

/* A small valid lesson head: lines 1-15; a case's own lines start at 16. */
/* A page that makes a lesson complete, for cases about the lesson's head. */
#define PAGE_TAIL "=== page: a\ntitle: A\n@sentence: cat\n"

#define HEAD \
    "# lesson: t\n"                   /* 1 */ \
    "title: T\n"                      /* 2 */ \
    "lang: en\n"                      /* 3 */ \
    "@config: d_k=2 heads=1\n"        /* 4 */ \
    "@sentence: the cat saw a bird\n" /* 5 */ \
    "@vocab\n"                        /* 6 */ \
    "      noun animate can-fly\n"    /* 7 */ \
    "the:  0 0 0\n"                   /* 8 */ \
    "cat:  1 1 0\n"                   /* 9 */ \
    "saw:  0 0 0\n"                   /* 10 */ \
    "a:    0 0 0\n"                   /* 11 */ \
    "bird: 1 1 1\n"                   /* 12 */ \
    "@end\n"                          /* 13 */ \
    "=== page: p1\n"                  /* 14 */ \
    "title: P1\n"                     /* 15 */

static lesson *parse_ok(const char *text) {
    lesson *l = NULL;
    attn_err err;
    attn_err_clear(&err);
    if (page_lesson_parse(&l, text, strlen(text), "t.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    return l;
}

static lesson *load_ok(const char *path) {
    lesson *l = NULL;
    attn_err err;
    if (page_lesson_load(&l, path, &err) != ATTN_OK) fail_msg("%s", err.msg);
    return l;
}

/* The first error of text must be at line:col and mention want. */
static void expect_err_len(const char *text, size_t len, int line, int col, const char *want) {
    lesson *l = NULL;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = page_lesson_parse(&l, text, len, "t.lesson", &err);
    if (st == ATTN_OK) fail_msg("accepted, expected %d:%d: %s", line, col, want);
    assert_null(l);
    assert_int_equal(st, ATTN_ERR_PARSE);
    char where[64];
    snprintf(where, sizeof where, "t.lesson:%d:%d: ", line, col);
    if (strncmp(err.msg, where, strlen(where)) != 0 || !strstr(err.msg, want))
        fail_msg("got \"%s\", expected \"%s%s\"", err.msg, where, want);
}

static void expect_err(const char *text, int line, int col, const char *want) {
    expect_err_len(text, strlen(text), line, col, want);
}

/* Page i's references, each computed on its trace (and its @compare view), joined by "|". */
static void modern_refs(char *out, size_t cap, const lesson *l, int i) {
    attn_trace t = {0}, alt = {0};
    attn_err err;
    assert_int_equal(lesson_page_trace(&t, l, i, NULL, 0, &err), ATTN_OK);
    const lesson_page *pg = lesson_page_at(l, i);
    bool cmp = pg->compare.kind == LESSON_CMP_CONFIG;
    if (cmp) assert_int_equal(lesson_page_compare_trace(&alt, l, i, &err), ATTN_OK);
    viz_ref_ctx x = {.trace = &t, .alt = cmp ? &alt : NULL};
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < pg->n_refs; k++) {
        char val[128];
        viz_lesson_ref(val, sizeof val, &pg->refs[k], &x);
        used += (size_t)snprintf(out + used, cap - used, "%s%s", k ? "|" : "", val);
        assert_true(used < cap);
    }
    attn_trace_free(&t);
    attn_trace_free(&alt);
}

/* The modern-attention references, by hand: 4 tokens, d_k 2, 4 query heads
 * sharing 2 kv-heads, causal. At token 3 ("c") a head computes 3 score
 * cells; the cache is 2 (K, V) · 1 layer · 2 kv-heads · 2 · 3 tokens · 8
 * bytes = 192 (384 with a kv-head per query head: the @compare view); the
 * real model's at 4096 tokens is 2·32·8·128·4096·2 bytes = 512 MiB. Tiled in
 * blocks of 2: a step holds 8·(2·2 + 2·2 + 2·2) = 96 bytes, n²·8 = 128; 2×2
 * = 4 steps, of which the causal mask hides the upper right one. */
static void test_modern_refs(void **state) {
    (void)state;
    const char *text = "# lesson: t\ntitle: T\nlang: en\n@sentence: a b c d\n"
                       "=== page: a\ntitle: A\n@config: d_model=4 d_k=2 heads=4 kv_heads=2 mask=causal seed=3\n"
                       "@compare: kv_heads=0\n@view: decode\n\n"
                       "{decode cells c} {decode cache c} {decode cache c compare} {decode group} {decode real} "
                       "{decode tokens} {decode name} {setting heads} {setting kv_heads} {setting kv_heads compare} "
                       "{tiles held 2} {tiles full 2} {tiles steps 2} {tiles skipped 2} {decode cells}\n"
                       "=== page: b\ntitle: B\n@config: mask=causal\n@view: tiles 3\n\n{tiles diff 2 head=1} {n}\n";
    lesson *l = parse_ok(text);
    const lesson_page *pg = lesson_page_at(l, 0);
    assert_int_equal(pg->view, LESSON_VIEW_DECODE);
    assert_int_equal(lesson_page_at(l, 1)->view, LESSON_VIEW_TILES);
    assert_int_equal(lesson_page_at(l, 1)->view_block, 3);
    char out[512];
    modern_refs(out, sizeof out, l, 0);
    assert_string_equal(out, "3|192|384|2|512 MiB|4096|Llama 3 8B|4|2|4|96|128|4|1|4");
    modern_refs(out, sizeof out, l, 1);
    char *bar = strchr(out, '|');
    assert_non_null(bar);
    double diff = strtod(out, NULL);
    assert_true(diff >= 0 && diff <= 1e-12); // the online softmax: Z up to rounding
    assert_string_equal(bar + 1, "4");
    lesson_free(l);
}

/* {diff scores}: RoPE's scores do not move when the sentence is shifted by
 * 1000 positions (up to rounding), the sinusoidal encoding's do; and a
 * {scores ROW COL compare} cell is the @compare view's. */
static void test_shift_diff(void **state) {
    (void)state;
    const char *text = "# lesson: t\ntitle: T\nlang: en\n@sentence: a b c d e\n@config: d_model=8 d_k=4 heads=2\n"
                       "=== page: rope\ntitle: R\n@config: pos=rope\n@compare: pos_offset=1000\n\n"
                       "{diff scores}|{scores c a}|{scores c a compare}|{setting pos_offset compare}\n"
                       "=== page: sin\ntitle: S\n@config: pos=sinusoidal\n@compare: pos_offset=1000\n\n{diff scores}\n";
    lesson *l = parse_ok(text);
    char out[512], a[32], b[32];
    modern_refs(out, sizeof out, l, 0);
    double d = strtod(out, NULL);
    assert_true(d >= 0 && d < 1e-12);
    assert_int_equal(sscanf(strchr(out, '|') + 1, "%31[^|]|%31[^|]", a, b), 2);
    assert_string_equal(a, b); // the same score, as the cells show it
    assert_non_null(strstr(out, "|1000"));
    modern_refs(out, sizeof out, l, 1);
    assert_true(strtod(out, NULL) > 0.01);
    lesson_free(l);
}

/* What the new references and @view refuse, with line and column. */
static void test_modern_errors(void **state) {
    (void)state;
    expect_err(HEAD "@view: decode\n", 16, 8, "@view: decode needs a page with mask=causal");
    expect_err(HEAD "@view: tiles 0\n", 16, 8, "@view takes decode or tiles B");
    expect_err(HEAD "@view: sideways\n", 16, 8, "@view takes decode or tiles B");
    expect_err(HEAD "\n{decode cells cat}\n", 17, 2, "{decode …} needs a page with mask=causal");
    expect_err(HEAD "@config: mask=causal\n\n{decode bytes}\n", 18, 9, "{decode …} needs what to show");
    expect_err(HEAD "@config: mask=causal\n\n{decode cells dog}\n", 18, 15, "dog");
    expect_err(HEAD "\n{tiles held}\n", 17, 2, "needs the block size B");
    expect_err(HEAD "\n{tiles held 65}\n", 17, 13, "needs the block size B");
    expect_err(HEAD "\n{diff scores}\n", 17, 2, "needs the page's @compare of settings");
    expect_err(HEAD "\n{diff nothing}\n", 17, 7, "{diff …} needs a stage");
    expect_err(HEAD "\n{setting colour}\n", 17, 10, "{setting …} needs a setting");
    expect_err(HEAD "\n{scores cat saw compare}\n", 17, 17, "“compare” needs the page's @compare of settings");
    // eight words at most, whichever kind of reference (both end the same way)
    expect_err(HEAD "\n{scores cat saw exact exact exact exact exact more}\n", 17, 2, "this reference has too many words");
    expect_err(HEAD "\n{tiles held 4 head=0 head=0 head=0 head=0 head=0 more}\n", 17, 2,
               "this reference has too many words");
    // the steps an error lists are the step table's, keys and names
    expect_err(HEAD "\n{step 12}\n", 17, 7,
               "{step …} needs a step: 1 tokens, 2 qkv, 2b rope, 3 scores, 4 scale, 5 mask, 6 softmax, 7 sum or 8 heads");
    expect_err(HEAD "@step: attention\n", 16, 8,
               "the steps are 1 tokens, 2 qkv, 2b rope, 3 scores, 4 scale, 5 mask, 6 softmax, 7 sum and 8 heads");
}

/* RoPE on a page: pos=rope, @step 2b (or rope) and {step 2b}; 2b without RoPE is refused. */
static void test_rope_page(void **state) {
    (void)state;
    static const char *const page = "# lesson: t\ntitle: T\nlang: en\n=== page: a\ntitle: A\n@sentence: the cat sat\n"
                                    "@config: d_k=4 pos=rope pos_offset=7\n@step: %s\n\nThe step {step 2b}.\n";
    char text[512];
    snprintf(text, sizeof text, page, "2b");
    lesson *l = parse_ok(text);
    const lesson_page *pg = lesson_page_at(l, 0);
    assert_int_equal(pg->step, ATTN_STEP_ROPE);
    assert_true(pg->cfg.rope && !pg->cfg.pos_enc);
    assert_int_equal(pg->cfg.pos_offset, 7);
    lesson_free(l);
    snprintf(text, sizeof text, page, "rope");
    l = parse_ok(text);
    assert_int_equal(lesson_page_at(l, 0)->step, ATTN_STEP_ROPE);
    lesson_free(l);
    snprintf(text, sizeof text, page, "3"); // 3 is still the scores
    l = parse_ok(text);
    assert_int_equal(lesson_page_at(l, 0)->step, ATTN_STEP_SCORES);
    lesson_free(l);
    expect_err("# lesson: t\ntitle: T\nlang: en\n=== page: a\ntitle: A\n@sentence: the cat sat\n@step: 2b\n", 7, 8,
               "step 2b (rope) is shown only with RoPE");
    expect_err("# lesson: t\ntitle: T\nlang: en\n=== page: a\ntitle: A\n@sentence: the cat sat\n"
               "@config: pos=rope d_k=3\n",
               7, 10, "even --d-k");
}

static const char *para_text(const lesson_page *pg, int i) {
    assert_true(i < pg->n_paras);
    return pg->paras[i].text;
}

/* ---- valid lessons ---------------------------------------------------- */

static void test_valid_lesson(void **state) {
    (void)state;
    lesson *l = parse_ok(HEAD
                         "// a comment line is ignored\n"
                         "Some *stressed* words and `code`, written\n"
                         "on two lines.\n"
                         "\n"
                         "- an item\n"
                         "  that continues\n"
                         "- \\*not emphasis\\*\n"
                         "\n"
                         "中文一行\n"
                         "接着一行 and English\n"
                         "@step: softmax\n"
                         "@highlight: cell saw bird\n"
                         "@predict: query=saw head=0\n"
                         "@compare: scale off\n"
                         "```python\n"
                         "  x = 1  # kept as is\n"
                         "\n"
                         "y = *x*\n"
                         "```\n"
                         "=== page: p2\n"
                         "title: P2\n"
                         "@sentence: a cat\n"
                         "@config: d_k=3 mask=window:1 seed=7\n"
                         "@step: 3\n"
                         "@highlight: token 2:cat\n"
                         "@compare: head 0 | head 0\n");
    assert_string_equal(lesson_id(l), "t");
    assert_string_equal(lesson_title(l), "T");
    assert_string_equal(lesson_lang(l), "en");
    assert_int_equal(lesson_page_count(l), 2);
    assert_int_equal(lesson_find_page(l, "p2"), 1);
    assert_int_equal(lesson_find_page(l, "nope"), -1);
    assert_null(lesson_page_at(l, 2));
    const lesson_page *p1 = lesson_page_at(l, 0);
    assert_string_equal(p1->id, "p1");
    assert_string_equal(p1->title, "P1");
    assert_int_equal(p1->line, 14);
    assert_int_equal(p1->n_paras, 5);
    assert_string_equal(para_text(p1, 0), "Some stressed words and code, written on two lines.");
    assert_int_equal(p1->paras[0].kind, LESSON_PARA_TEXT);
    assert_int_equal(p1->paras[0].line, 17);
    assert_int_equal(p1->paras[0].n_spans, 2);
    assert_int_equal(p1->paras[0].spans[0].kind, LESSON_SPAN_EMPH);
    assert_int_equal(p1->paras[0].spans[0].start, 5);
    assert_int_equal(p1->paras[0].spans[0].len, 8);
    assert_int_equal(p1->paras[0].spans[1].kind, LESSON_SPAN_CODE);
    assert_int_equal(p1->paras[0].spans[1].start, 24);
    assert_int_equal(p1->paras[1].kind, LESSON_PARA_ITEM);
    assert_string_equal(para_text(p1, 1), "an item that continues");
    assert_string_equal(para_text(p1, 2), "*not emphasis*");
    assert_int_equal(p1->paras[2].n_spans, 0);
    // CJK lines join without a space; Latin ones with one
    assert_string_equal(para_text(p1, 3), "中文一行接着一行 and English");
    assert_int_equal(p1->paras[4].kind, LESSON_PARA_CODE);
    assert_string_equal(p1->paras[4].code_lang, "python");
    assert_string_equal(para_text(p1, 4), "  x = 1  # kept as is\n\ny = *x*");
    assert_string_equal(p1->sentence, "the cat saw a bird");
    assert_int_equal(p1->n_tokens, 5);
    assert_int_equal(p1->cfg.d_model, 3); // from the vocabulary
    assert_int_equal(p1->cfg.d_k, 2);
    assert_int_equal(p1->cfg.heads, 1);
    assert_int_equal(p1->step, ATTN_STEP_SOFTMAX);
    assert_int_equal(p1->highlight.kind, LESSON_HL_CELL);
    assert_int_equal(p1->highlight.a.index, 2);
    assert_string_equal(p1->highlight.b.text, "bird");
    assert_true(p1->predict.on);
    assert_int_equal(p1->predict.query.index, 2);
    assert_int_equal(p1->predict.answer.index, -1);
    assert_int_equal(p1->compare.kind, LESSON_CMP_CONFIG);
    assert_false(p1->compare.cfg.scale);
    assert_true(p1->cfg.scale);
    assert_string_equal(p1->compare.label, "scale off");
    const lesson_page *p2 = lesson_page_at(l, 1);
    assert_string_equal(p2->sentence, "a cat");
    assert_int_equal(p2->cfg.d_k, 3);
    assert_int_equal(p2->cfg.seed, 7);
    assert_int_equal(p2->cfg.mask.kind, ATTN_MASK_WINDOW);
    assert_int_equal(p2->step, ATTN_STEP_SCORES); // "@step: 3" counts from 1
    assert_int_equal(p2->highlight.kind, LESSON_HL_TOKEN);
    assert_int_equal(p2->highlight.a.index, 1);
    assert_int_equal(p2->compare.kind, LESSON_CMP_HEADS);
    assert_false(p2->predict.on);
    const attn_vocab *v = lesson_vocab(l);
    assert_non_null(v);
    assert_int_equal(v->dim, 3);
    assert_int_equal(v->count, 5);
    assert_string_equal(v->features[2], "can-fly");
    assert_close(v->vectors[4 * 3 + 2], 1.0); // bird, can-fly
    lesson_free(l);
}

static void test_numbers_and_designs(void **state) {
    (void)state;
    lesson *l = parse_ok(HEAD
                         "@weights head 0 W_Q\n"
                         "noun:    −0.5  1e-1\n"
                         "animate: .25   +2\n"
                         "can-fly: 3     -4E1\n"
                         "@end\n"
                         "=== page: p2\n"
                         "title: P2\n"
                         "@random-weights: gain=1.5\n");
    attn_weights w;
    const lesson_page *p1 = lesson_page_at(l, 0);
    assert_int_equal(lesson_page_weights(l, 0, &p1->cfg, &w), 1);
    assert_non_null(w.mat[ATTN_MAT_W_Q][0]);
    assert_null(w.mat[ATTN_MAT_W_K][0]);
    assert_close(w.mat[ATTN_MAT_W_Q][0][0], -0.5);
    assert_close(w.mat[ATTN_MAT_W_Q][0][1], 0.1);
    assert_close(w.mat[ATTN_MAT_W_Q][0][2], 0.25);
    assert_close(w.mat[ATTN_MAT_W_Q][0][5], -40.0);
    attn_config other = p1->cfg;
    other.d_k = 3; // the design no longer fits
    assert_int_equal(lesson_page_weights(l, 0, &other, &w), 0);
    assert_null(w.mat[ATTN_MAT_W_Q][0]);
    // @random-weights: the seeded weights times the gain, only for the page's own sizes and seed
    const lesson_page *p2 = lesson_page_at(l, 1);
    assert_true(p2->random_weights);
    assert_close(p2->gain, 1.5);
    assert_int_equal(lesson_page_weights(l, 1, &p2->cfg, &w), 4);
    double plain[6];
    attn_xavier_uniform(plain, 3, 2, p2->cfg.seed, attn_weight_stream(0, 1));
    assert_close(w.mat[ATTN_MAT_W_K][0][4], 1.5 * plain[4]);
    other = p2->cfg;
    other.seed = 99;
    assert_int_equal(lesson_page_weights(l, 1, &other, &w), 0);
    lesson_free(l);
}

static void test_find_token_after_edit(void **state) {
    (void)state;
    lesson *l = parse_ok(HEAD "@highlight: token bird\n");
    const lesson_page *pg = lesson_page_at(l, 0);
    attn_tokens t = {0};
    assert_int_equal(attn_tokenize(&t, "a bird saw the cat", 18, NULL, NULL), ATTN_OK);
    assert_int_equal(lesson_find_token(&t, &pg->highlight.a), 1);
    lesson_tokref none = {-1, NULL, LESSON_ROLE_NONE, -1, -1};
    assert_int_equal(lesson_find_token(&t, &none), -1);
    attn_tokens_free(&t);
    lesson_free(l);
    lesson_free(NULL); // a no-op
}

/* ---- errors: each kind, with its line and column ------------------------ */

static void test_errors_directives(void **state) {
    (void)state;
    expect_err(HEAD "@frobnicate: x\n", 16, 1, "unknown directive @frobnicate");
    expect_err(HEAD "@step: 9\n", 16, 8, "there is no step “9”");
    expect_err(HEAD "@step: 1\n@step: 2\n", 17, 1, "@step is given twice");
    expect_err(HEAD "@highlight: token dog\n", 16, 19, "has no token “dog” (its tokens: the cat saw a bird)");
    expect_err(HEAD "@highlight: ring cat\n", 16, 13, "write @highlight: token T");
    expect_err(HEAD "@sentence: the cat saw the bird\n@highlight: row the\n", 17, 17,
               "“the” occurs 2 times in the sentence; name one by position: 1:the or 4:the");
    expect_err(HEAD "@highlight: cell saw 2:bird\n", 16, 22, "token 2 of the sentence is “cat”, not “bird”");
    expect_err(HEAD "@predict: query=saw head=1\n", 16, 26, "head “1” does not exist: this page has 1 head");
    expect_err(HEAD "@predict: head=0\n", 16, 11, "@predict needs the query token");
    expect_err(HEAD "@predict: query=saw head=0 answer=bird\n", 16, 11,
               "the answer is “bird”, but with this page's weights “saw” attends most to “the”");
    expect_err(HEAD "@compare: colour=red\n", 16, 11, "unknown setting “colour”");
    expect_err(HEAD "@compare: head 0 | head\n", 16, 11, "compare two heads as @compare: head 0 | head 1");
    expect_err(HEAD "@config: heads=1 colour=red\n", 16, 18, "unknown setting “colour”");
    expect_err(HEAD "@config: d_k=0\n", 16, 14, "d_k needs a whole number from 1 to 128, not “0”");
    expect_err(HEAD "@config: mask=diagonal\n", 16, 15, "Unknown mask \"diagonal\"");
    expect_err(HEAD "@config: scale=maybe\n", 16, 16, "scale is on or off");
    expect_err(HEAD "@random-weights: gain=0\n", 16, 18, "gain=G with G above 0");
    expect_err(HEAD "@end\n", 16, 1, "@end without a block");
    expect_err(HEAD "@vocab\nx\n@end\n", 16, 1, "@vocab belongs before the first page");
    expect_err("# lesson: t\ntitle: T\nlang: en\n@step: 1\n" PAGE_TAIL, 4, 1, "@step belongs inside a page");
    expect_err(HEAD "@sentence:    \n", 16, 11, "this sentence cannot be used: The sentence is empty");
}

static void test_errors_structure(void **state) {
    (void)state;
    expect_err("", 1, 1, "the file is empty");
    expect_err("title: T\nlang: en\n=== page: a\ntitle: A\n@sentence: x\n", 1, 1, "# lesson: ID");
    expect_err("# lesson: t\ntitle: T\nlang: en\nHello\n" PAGE_TAIL, 4, 1, "text before the first page");
    expect_err("# lesson: t\ntitle: T\nlang: en\n@sentence: a\n", 1, 1, "the lesson has no pages");
    expect_err("# lesson: t\ntitle: T\nlang: en\n=== page: a\ntitle: A\n", 4, 1, "this page has no sentence");
    expect_err("# lesson: b@d\ntitle: T\nlang: en\n" PAGE_TAIL, 1, 11, "a lesson id is letters, digits");
    expect_err(HEAD "=== page: p1\ntitle: again\n", 16, 11, "page id “p1” is already used at line 14");
    expect_err(HEAD "=== page: two words\ntitle: X\n", 16, 11, "a page id is letters, digits");
    expect_err(HEAD "=== page: p2\n@step: 1\n", 16, 1, "this page has no title");
    expect_err(HEAD "=== page: p2\nHello\n", 17, 1, "a page starts with its title");
    expect_err(HEAD "==== pages\n", 16, 1, "a page starts with “=== page: ID”");
    expect_err(HEAD "Some *text\n", 16, 6, "emphasis opened with * is not closed on this line");
    expect_err(HEAD "Use `code\n", 16, 5, "code opened with ` is not closed on this line");
    expect_err(HEAD "Say **this**\n", 16, 5, "empty emphasis **");
    expect_err(HEAD "```c\nint x;\n", 16, 1, "this code block is not closed");
    expect_err(HEAD "```c\nint x;\n=== page: p2\ntitle: P2\n", 16, 1, "this code block is not closed");
}

static void test_errors_encoding(void **state) {
    (void)state;
    expect_err(HEAD "ab\xff\n", 16, 3, "invalid UTF-8 (a byte that never appears in UTF-8)");
    expect_err(HEAD "中\xe6\x96\n", 16, 2, "invalid UTF-8 (a truncated sequence)");
    expect_err(HEAD "\xed\xa0\x80\n", 16, 1, "invalid UTF-8 (a UTF-16 surrogate)");
    static const char nul[] = "# lesson: t\nx\0y\n";
    expect_err_len(nul, sizeof nul - 1, 2, 2, "byte 0x00 is not text: this looks like a binary file");
    expect_err("\x7f"
               "ELF\x02\x01\x01",
               1, 1, "byte 0x7F is not text");
    // a byte order mark and CRLF line ends are fine
    lesson *l = parse_ok("\xEF\xBB\xBF# lesson: t\r\ntitle: T\r\nlang: en\r\n=== page: a\r\ntitle: A\r\n@sentence: x y\r\n");
    assert_string_equal(lesson_page_at(l, 0)->title, "A");
    lesson_free(l);
}

static void test_errors_blocks(void **state) {
    (void)state;
    static const char vocab_head[] = "# lesson: t\ntitle: T\nlang: en\n@vocab\n  noun animate\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%scat: 1 1 0\n@end\n" PAGE_TAIL, vocab_head);
    expect_err(buf, 6, 6, "“cat” has 3 numbers but the vocabulary has 2 features");
    snprintf(buf, sizeof buf, "%scat: 1\n@end\n" PAGE_TAIL, vocab_head);
    expect_err(buf, 6, 6, "“cat” has 1 number but the vocabulary has 2 features");
    snprintf(buf, sizeof buf, "%scat: 1 x\n@end\n" PAGE_TAIL, vocab_head);
    expect_err(buf, 6, 8, "“x” is not a number");
    snprintf(buf, sizeof buf, "%s1 1\n@end\n" PAGE_TAIL, vocab_head);
    expect_err(buf, 6, 1, "a vocabulary row is \"word: numbers\"");
    snprintf(buf, sizeof buf, "%scat: 1 1\ncat: 0 1\n@end\n" PAGE_TAIL, vocab_head);
    expect_err(buf, 7, 1, "“cat” is listed twice (first at line 6)");
    snprintf(buf, sizeof buf, "%sice cream: 1 1\n@end\n" PAGE_TAIL, vocab_head);
    expect_err(buf, 6, 1, "“ice cream” is not a single token (the tokenizer reads it as: ice cream)");
    snprintf(buf, sizeof buf, "%scat: 1 1\n=== page: a\ntitle: A\n@sentence: cat\n", vocab_head);
    expect_err(buf, 4, 1, "this @vocab block has no @end");
    expect_err("# lesson: t\ntitle: T\nlang: en\n@vocab\nnoun: x\n@end\n" PAGE_TAIL, 5, 1,
               "the first line of @vocab names the features");
    expect_err("# lesson: t\ntitle: T\nlang: en\n@config: d_model=4\n@vocab\nnoun\ncat: 1\n@end\n" PAGE_TAIL, 4, 10,
               "d_model=4 but the vocabulary has 1 feature;");
    expect_err(HEAD "@weights head 0 W_Q\n1 2\n", 16, 1, "this @weights block has no @end");
    expect_err(HEAD "@weights head 0 W_Q\n1 2\n1 2\n@end\n", 16, 10,
               "W_Q must be 3 rows of 2 numbers (d_model × d_k, with d_model=3 d_k=2 heads=1), but it has 2 rows");
    expect_err(HEAD "@weights head 0 W_Q\n1 2\n1 2 3\n1 2\n1 2\n@end\n", 18, 1,
               "this row of W_Q has 3 numbers but its first row has 2");
    expect_err(HEAD "@weights head 0 W_Q\nnoun: 1 0\ncan-fly: 0 1\nanimate: 0 0\n@end\n", 18, 1,
               "row 2 of W_Q is labelled “can-fly” but dimension 2 is “animate”");
    expect_err(HEAD "@weights head 1 W_K\n1 2\n1 2\n1 2\n@end\n", 16, 10, "this page has 1 head, so W_K of head 1");
    expect_err(HEAD "@weights W_Q\n@end\n", 16, 10, "say which head W_Q belongs to");
    expect_err(HEAD "@weights head 0 W_O\n@end\n", 16, 17, "W_O is shared by all heads");
    expect_err(HEAD "@weights head 9 W_Q\n@end\n", 16, 15, "@weights head needs a head number from 0 to 7");
    expect_err(HEAD "@weights head 0 W_X\n@end\n", 16, 17, "@weights needs a matrix");
    expect_err(HEAD "@weights b_O\n@end\n", 16, 10, "@weights b_O has no rows of numbers");
    expect_err(HEAD "@weights W_O\n1 2 3\n1 2 3\n@end\n@weights W_O\n@end\n", 20, 10, "W_O is already given at line 16");
}

static void test_check_collects_every_error(void **state) {
    (void)state;
    static const char text[] = HEAD "@step: 0\n@nope\n@highlight: token dog\n=== page: p1\n";
    char *report = NULL;
    int pages = -1;
    int n = page_lesson_check(text, sizeof text - 1, "t.lesson", &report, &pages);
    assert_int_equal(n, 5);
    assert_int_equal(pages, 0);
    assert_non_null(report);
    // in file order, one per line
    const char *want[] = {"t.lesson:16:8: there is no step", "t.lesson:17:1: unknown directive @nope",
                          "t.lesson:18:19: the page's sentence has no token", "t.lesson:19:11: page id “p1”",
                          "t.lesson:19:1: this page has no title"};
    const char *line = report;
    for (int i = 0; i < 5; i++) {
        if (i == 3) { // same line: column 1 sorts first
            assert_int_equal(strncmp(line, want[4], strlen(want[4])), 0);
        } else if (i == 4) {
            assert_int_equal(strncmp(line, want[3], strlen(want[3])), 0);
        } else if (strncmp(line, want[i], strlen(want[i])) != 0) {
            fail_msg("line %d of the report is \"%.80s\", expected \"%s\"", i, line, want[i]);
        }
        line = strchr(line, '\n') + 1;
    }
    assert_string_equal(line, "");
    free(report);
    report = NULL;
    assert_int_equal(page_lesson_check(HEAD, strlen(HEAD), "t.lesson", &report, &pages), 0);
    assert_null(report);
    assert_int_equal(pages, 1);
}

static void test_load_errors(void **state) {
    (void)state;
    lesson *l = (lesson *)1;
    attn_err err;
    assert_int_equal(page_lesson_load(&l, "/nonexistent/x.lesson", &err), ATTN_ERR_IO);
    assert_null(l);
}

/* ---- the shipped lessons ---------------------------------------------------- */

/* Runs a page through attn_trace_run with the lesson's vocabulary and the
 * page's designed weights, as the GUI and the CLI do. */
static void run_page(attn_trace *t, const lesson *l, int page, const attn_config *cfg) {
    const lesson_page *pg = lesson_page_at(l, page);
    attn_weights w;
    lesson_page_weights(l, page, cfg, &w);
    attn_err err;
    memset(t, 0, sizeof *t);
    if (attn_trace_run(t, pg->sentence, strlen(pg->sentence), cfg, lesson_vocab(l), &w, &err) != ATTN_OK)
        fail_msg("%s", err.msg);
}

static int argmax_row(const attn_trace *t, int head, int row) {
    const double *a = attn_trace_stage(t, ATTN_ST_WEIGHTS, head) + (size_t)row * t->n;
    int best = 0;
    for (int j = 1; j < t->n; j++)
        if (a[j] > a[best]) best = j;
    return best;
}

static int token_index(const attn_trace *t, const char *text) {
    for (int i = 0; i < t->n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        if ((size_t)len == strlen(text) && memcmp(tok, text, (size_t)len) == 0) return i;
    }
    fail_msg("no token %s", text);
    return -1;
}

/* The page's query attends most to `want`, through designed weights only. */
static void check_designed(const char *path, const char *page_id, const char *query, const char *want,
                           double min_weight) {
    lesson *l = load_ok(path);
    int page = lesson_find_page(l, page_id);
    assert_true(page >= 0);
    const lesson_page *pg = lesson_page_at(l, page);
    assert_true(pg->predict.on);
    assert_string_equal(pg->predict.query.text, query);
    attn_trace t;
    run_page(&t, l, page, &pg->cfg);
    assert_int_equal(t.source, ATTN_SRC_EXPLICIT);
    assert_int_equal(t.vocab_rows, t.n); // every token of the sentence is in the vocabulary
    int q = token_index(&t, query), a = token_index(&t, want);
    assert_int_equal(pg->predict.query.index, q);
    assert_int_equal(pg->predict.answer.index, a);
    assert_int_equal(argmax_row(&t, pg->predict.head, q), a);
    double w = attn_trace_stage(&t, ATTN_ST_WEIGHTS, pg->predict.head)[(size_t)q * t.n + a];
    if (w < min_weight) fail_msg("%s -> %s has weight %.4f, below %.2f", query, want, w, min_weight);
    print_message("%s page %s: %s -> %s weight %.4f (head %d)\n", path, page_id, query, want, w, pg->predict.head);
    attn_trace_free(&t);
    lesson_free(l);
}

static void test_designed_example(void **state) {
    (void)state;
    check_designed(ZH_LESSON, "intro", "它", "鸟", 0.5);
    check_designed(EN_LESSON, "intro", "it", "bird", 0.5); // the same example as the zh page, the same answer
    // the multi-head page: the meaning head still resolves the pronoun, the position head looks back one word
    check_designed(ZH_LESSON, "multi-head", "快", "太", 0.5);
    check_designed(EN_LESSON, "multi-head", "fast", "too", 0.5);
    lesson *l = load_ok(ZH_LESSON);
    int page = lesson_find_page(l, "multi-head");
    attn_trace t;
    run_page(&t, l, page, &lesson_page_at(l, page)->cfg);
    assert_int_equal(argmax_row(&t, 0, token_index(&t, "它")), token_index(&t, "鸟"));
    for (int i = 1; i < t.n; i++) assert_int_equal(argmax_row(&t, 1, i), i - 1);
    attn_trace_free(&t);
    lesson_free(l);
}

/* The page's {references} of a kind (and, for a step's, of that step). */
static int page_refs(const lesson_page *pg, lesson_ref_kind kind, int step) {
    int n = 0;
    for (int i = 0; i < pg->n_refs; i++)
        n += pg->refs[i].kind == kind && (step < 0 || pg->refs[i].step == step);
    return n;
}

/* d_k 64: scaling off saturates (mean row max >= 0.9), on does not (< 0.5),
 * for this page's seed and for each of 200 others; the page shows the two
 * figures by reference ({mean-max} and {mean-max compare}), not typed. */
static void check_saturation(const char *path) {
    lesson *l = load_ok(path);
    int page = lesson_find_page(l, "scale");
    const lesson_page *pg = lesson_page_at(l, page);
    assert_int_equal(pg->cfg.d_k, 64);
    assert_true(pg->cfg.scale);
    assert_int_equal(pg->step, ATTN_STEP_SOFTMAX); // where saturation shows
    assert_int_equal(pg->compare.kind, LESSON_CMP_CONFIG);
    assert_false(pg->compare.cfg.scale);
    attn_trace t, alt = {0};
    run_page(&t, l, page, &pg->cfg);
    attn_err err;
    assert_int_equal(lesson_page_compare_trace(&alt, l, page, &err), ATTN_OK);
    double on = attn_mean_row_max(&t, 0), off = attn_mean_row_max(&alt, 0);
    print_message("%s: mean row max %.4f without scaling, %.4f with\n", path, off, on);
    assert_true(off >= 0.9);
    assert_true(on < 0.5);
    int plain = 0, cmp = 0;
    for (int i = 0; i < pg->n_refs; i++)
        if (pg->refs[i].kind == LESSON_REF_MEAN_MAX) *(pg->refs[i].compare ? &cmp : &plain) += 1;
    assert_true(plain >= 1 && cmp >= 1);
    attn_trace_free(&t);
    attn_trace_free(&alt);
    // "every one of 200 seeds": each is clearly more saturated without scaling
    for (unsigned seed = 1; seed <= 200; seed++) {
        attn_config c = pg->cfg, c2 = pg->compare.cfg;
        c.seed = c2.seed = seed;
        attn_weights w;
        double v[2];
        for (int k = 0; k < 2; k++) { // the page's own ×2 random weights, at this seed
            attn_config *cc = k ? &c2 : &c;
            double *m[ATTN_MAT_COUNT] = {0};
            memset(&w, 0, sizeof w);
            for (int mi = 0; mi < ATTN_MAT_COUNT; mi++) {
                if (attn_matrix_is_bias((attn_matrix)mi)) continue;
                int rows, cols;
                attn_matrix_shape((attn_matrix)mi, cc, &rows, &cols);
                m[mi] = malloc(sizeof(double) * (size_t)rows * cols);
                attn_seeded_matrix(m[mi], (attn_matrix)mi, 0, cc);
                for (int x = 0; x < rows * cols; x++) m[mi][x] *= pg->gain;
                w.mat[mi][0] = m[mi];
            }
            attn_trace tt = {0};
            assert_int_equal(attn_trace_run(&tt, pg->sentence, strlen(pg->sentence), cc, lesson_vocab(l), &w, &err),
                             ATTN_OK);
            v[k] = attn_mean_row_max(&tt, 0);
            attn_trace_free(&tt);
            for (int mi = 0; mi < ATTN_MAT_COUNT; mi++) free(m[mi]);
        }
        if (!(v[1] > v[0] + 0.25)) fail_msg("%s: seed %u: mean row max %.3f scaled, %.3f not", path, seed, v[0], v[1]);
    }
    lesson_free(l);
}

static void test_saturation(void **state) {
    (void)state;
    check_saturation(ZH_LESSON);
    check_saturation(EN_LESSON);
}

/* The cost page shows the core's multiply-add counts of every step by
 * reference, and they are the trace's; its figure is the window mask's. */
static void check_costs(const char *path) {
    lesson *l = load_ok(path);
    int page = lesson_find_page(l, "cost");
    const lesson_page *pg = lesson_page_at(l, page);
    assert_int_equal(pg->cfg.mask.kind, ATTN_MASK_WINDOW);
    const attn_step steps[] = {ATTN_STEP_QKV, ATTN_STEP_SCORES, ATTN_STEP_SCALE, ATTN_STEP_SOFTMAX, ATTN_STEP_WEIGHTED,
                               ATTN_STEP_MULTIHEAD};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (page_refs(pg, LESSON_REF_MACS, steps[i]) != 1)
            fail_msg("%s: the cost page does not show the multiply-adds of %s", path, attn_step_name(steps[i]));
    assert_int_equal(page_refs(pg, LESSON_REF_TOKENS, -1), 1);
    attn_trace t;
    run_page(&t, l, page, &pg->cfg);
    assert_true(attn_step_macs(&t, ATTN_STEP_QKV) == t.macs[ATTN_ST_Q] + t.macs[ATTN_ST_K] + t.macs[ATTN_ST_V]);
    assert_true(attn_step_macs(&t, ATTN_STEP_SCORES) == (long long)t.n * t.n * t.cfg.d_k);
    attn_trace_free(&t);
    lesson_free(l);
}

static void test_cost_figures(void **state) {
    (void)state;
    check_costs(ZH_LESSON);
    check_costs(EN_LESSON);
}

/* Numbers in the narrative come from the figure: no decimal number is typed
 * outside code (a value would go stale the moment the learner edits), and
 * every step is named by reference (no "step 2" that is not the rail's 2). */
static void check_no_typed_figures(const char *path) {
    lesson *l = load_ok(path);
    for (int p = 0; p < lesson_page_count(l); p++) {
        const lesson_page *pg = lesson_page_at(l, p);
        for (int i = 0; i < pg->n_paras; i++) {
            const lesson_para *pa = &pg->paras[i];
            if (pa->kind == LESSON_PARA_CODE) continue;
            int sp = 0; // a reference's own words ({heads prev 0.5}: a threshold) are not a figure
            for (const char *c = pa->text; *c; c++) {
                int at = (int)(c - pa->text);
                while (sp < pa->n_spans && pa->spans[sp].start + pa->spans[sp].len <= at) sp++;
                if (sp < pa->n_spans && pa->spans[sp].kind == LESSON_SPAN_REF && at >= pa->spans[sp].start) continue;
                if (c[0] >= '0' && c[0] <= '9' && c[1] == '.' && c[2] >= '0' && c[2] <= '9')
                    fail_msg("%s page %s: a typed decimal number in \"%.40s\"", path, pg->id, c);
            }
            if (strstr(pa->text, "第 1 步") || strstr(pa->text, "第 2 步") || strstr(pa->text, "Step 1") ||
                strstr(pa->text, "Step 2") || strstr(pa->text, "step 5"))
                fail_msg("%s page %s: a step numbered by hand", path, pg->id);
        }
        if (strstr(pg->title, "步") || strstr(pg->title, "Step")) fail_msg("%s: title \"%s\" numbers a step", path, pg->title);
    }
    lesson_free(l);
}

static void test_no_typed_figures(void **state) {
    (void)state;
    check_no_typed_figures(ZH_LESSON);
    check_no_typed_figures(EN_LESSON);
    check_no_typed_figures(ATTN_SOURCE_DIR "/lessons/zh/modern-attention.lesson");
    check_no_typed_figures(ATTN_SOURCE_DIR "/lessons/en/modern-attention.lesson");
}

static void test_pages_paired(void **state) {
    (void)state;
    lesson *zh = load_ok(ZH_LESSON), *en = load_ok(EN_LESSON);
    assert_string_equal(lesson_lang(zh), "zh");
    assert_string_equal(lesson_lang(en), "en");
    assert_string_equal(lesson_id(zh), lesson_id(en));
    assert_true(lesson_page_count(zh) >= 11);
    assert_int_equal(lesson_page_count(zh), lesson_page_count(en));
    for (int i = 0; i < lesson_page_count(zh); i++) {
        const lesson_page *a = lesson_page_at(zh, i), *b = lesson_page_at(en, i);
        assert_string_equal(a->id, b->id);
        assert_int_equal(a->step, b->step);
        assert_int_equal(a->cfg.heads, b->cfg.heads);
        assert_true(a->n_paras > 0 && b->n_paras > 0);
    }
    lesson_free(zh);
    lesson_free(en);
}

/* A @weights block's first line names its columns; @features names the
 * labels kept when labels thin out, for the lesson and per page. */
static void test_column_names_and_features(void **state) {
    (void)state;
    static const char text[] =
        "# lesson: t\ntitle: T\nlang: en\n@config: d_k=2 heads=1\n@sentence: the cat saw a bird\n"
        "@vocab\n      noun animate can-fly\nthe:  0 0 0\ncat:  1 1 0\nsaw:  0 0 0\na:    0 0 0\nbird: 1 1 1\n@end\n"
        "@features: can-fly wants-animate\n"
        "@weights head 0 W_Q\n        wants-animate wants-can-fly\nnoun: 0 0\nanimate: 1 0\ncan-fly: 0 1\n@end\n"
        "@weights head 0 W_K\n0 0\n1 0\n0 1\n@end\n"
        "=== page: a\ntitle: A\n"
        "=== page: b\ntitle: B\n@features: noun wants-can-fly\n";
    lesson *l = parse_ok(text);
    const lesson_page *a = lesson_page_at(l, 0), *b = lesson_page_at(l, 1);
    assert_int_equal(a->n_keep, 2); // the lesson's
    assert_string_equal(a->keep[0], "can-fly");
    assert_string_equal(a->keep[1], "wants-animate");
    assert_int_equal(b->n_keep, 2); // its own
    assert_string_equal(b->keep[0], "noun");
    lesson_names nm;
    assert_int_equal(lesson_page_names(l, 0, &a->cfg, &nm), 1);
    assert_non_null(nm.mat[ATTN_MAT_W_Q][0]);
    assert_string_equal(nm.mat[ATTN_MAT_W_Q][0][1], "wants-can-fly");
    assert_null(nm.mat[ATTN_MAT_W_K][0]); // designed, but its columns are not named
    attn_weights w;                       // the names go with the rows of numbers: the block is still a 3×2 matrix
    assert_int_equal(lesson_page_weights(l, 0, &a->cfg, &w), 2);
    assert_true(w.mat[ATTN_MAT_W_Q][0][2] == 1.0 && w.mat[ATTN_MAT_W_Q][0][5] == 1.0);
    attn_config wide = a->cfg;
    wide.d_k = 3; // the design no longer fits: nor do its names
    assert_int_equal(lesson_page_names(l, 0, &wide, &nm), 0);
    assert_null(nm.mat[ATTN_MAT_W_Q][0]);
    lesson_free(l);
    expect_err(HEAD "@weights head 0 W_Q\n  a b c\n1 2\n1 2\n1 2\n@end\n", 17, 3,
               "this line names 3 columns but the rows of W_Q have 2 numbers");
    expect_err(HEAD "@weights head 0 W_Q\n  a a\n1 2\n1 2\n1 2\n@end\n", 17, 5, "column “a” is named twice");
    expect_err(HEAD "@weights head 0 W_Q\nnoun 1 0\n1 2\n1 2\n@end\n", 17, 1, "“noun” is not a number");
    expect_err(HEAD "@features: noun dog\n", 16, 17, "“dog” is neither a feature of @vocab nor a column named");
    expect_err(HEAD "@features:\n", 16, 11, "@features names the features or columns this page talks about");
    expect_err(HEAD "@features: noun\n@features: noun\n", 17, 1, "@features is given twice here (first at line 16)");
}

/* The complete example in lessons/README.md is a valid lesson. */
static void test_readme_example(void **state) {
    (void)state;
    char *text = NULL;
    size_t len = 0;
    attn_err err;
    assert_int_equal(attn_read_file(ATTN_SOURCE_DIR "/lessons/README.md", 1 << 20, &text, &len, &err), ATTN_OK);
    const char *start = strstr(text, "```text\n# lesson:");
    assert_non_null(start);
    start += strlen("```text\n");
    const char *end = strstr(start, "\n```\n");
    assert_non_null(end);
    lesson *l = NULL;
    if (page_lesson_parse(&l, start, (size_t)(end - start) + 1, "README.md example", &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    assert_true(lesson_page_count(l) >= 2);
    lesson_free(l);
    free(text);
}

/* ---- limits: each is said, with its line, never as "not enough memory" ---- */

static char *grow(attn_strbuf *b) {
    assert_true(attn_sb_ok(b));
    return b->data;
}

static void test_limits_named(void **state) {
    (void)state;
    attn_strbuf b;
    // page 257
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@sentence: cat\n");
    for (int i = 0; i < LESSON_MAX_PAGES + 1; i++) attn_sb_printf(&b, "=== page: p%d\ntitle: P\n", i);
    expect_err(grow(&b), 4 + 2 * LESSON_MAX_PAGES + 1, 1, "a lesson has at most 256 pages; this is page 257");
    attn_sb_free(&b);
    // feature 513: the limit, not "@vocab is empty"
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@vocab\n");
    for (int i = 0; i < LESSON_MAX_FEATURES + 1; i++) attn_sb_printf(&b, "%sf%d", i ? " " : "", i);
    attn_sb_puts(&b, "\ncat: 1\n@end\n" PAGE_TAIL);
    expect_err(grow(&b), 5, 2451, // f512 starts after "f0 … f511": 10·3 + 90·4 + 412·5 characters
               "a vocabulary has at most 512 features (d_model is at most 512); this line names more");
    char *report = NULL;
    assert_int_equal(page_lesson_check(b.data, b.len, "t.lesson", &report, NULL), 1); // and nothing else
    free(report);
    attn_sb_free(&b);
    // a number past the bound, and one of many digits that is fine
    expect_err(HEAD "@weights head 0 W_Q\n1 2\n0 0\n0 1e19\n@end\n", 19, 3,
               "“1e19” is too large: values must be at most 1e18 in size");
    lesson *l = parse_ok(HEAD "@weights head 0 b_Q\n0.00000000000000000000000000000000000000000000000000125 "
                              "123456789012345678.9012345678901234567890123456789\n@end\n");
    attn_config c = lesson_page_at(l, 0)->cfg;
    attn_weights w;
    assert_int_equal(lesson_page_weights(l, 0, &c, &w), 1);
    assert_close(w.mat[ATTN_MAT_B_Q][0][0], 1.25e-51);
    assert_close(w.mat[ATTN_MAT_B_Q][0][1], 123456789012345678.9);
    lesson_free(l);
}

/* A line of 200,000 emphasis spans is read in time linear in the line: each
 * span's column was counted from the line's start (16 s for 400,000 spans).
 * Counted, not timed: the bytes walked to give the spans their columns are
 * at most the line's length (the old reader walked about 80 billion), so
 * the test holds on any machine and under any sanitizer. */
static void test_emphasis_linear(void **state) {
    (void)state;
    enum { SPANS = 200000 };
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, HEAD);
    for (int i = 0; i < SPANS; i++) attn_sb_puts(&b, "*a* ");
    attn_sb_puts(&b, "\n");
    lesson *l = parse_ok(grow(&b));
    const lesson_para *para = &lesson_page_at(l, 0)->paras[0];
    assert_int_equal(para->n_spans, SPANS);
    assert_int_equal(para->spans[SPANS - 1].col, 4 * (SPANS - 1) + 2); // after "*a* " × 199,999 and the '*'
    assert_in_range(l->columns_walked, 1, 4 * (size_t)SPANS);
    lesson_free(l);
    attn_sb_free(&b);
}

/* Past LESSON_MAX_ERRORS the report says how many more there are, and from where. */
static void test_error_list_limit(void **state) {
    (void)state;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@sentence: cat\n=== page: a\ntitle: A\n");
    for (int i = 0; i < LESSON_MAX_ERRORS + 7; i++) attn_sb_puts(&b, "@nonsense\n");
    char *report = NULL;
    int n = page_lesson_check(grow(&b), b.len, "t.lesson", &report, NULL);
    assert_int_equal(n, LESSON_MAX_ERRORS);
    assert_non_null(strstr(report, "t.lesson:107:1: and 7 more errors from here on; attnviz lists at most 100"));
    free(report);
    attn_sb_free(&b);
}

/* @random-weights with a gain copies the weights per page: the memory that
 * takes is bounded, and passing the bound is an error at the directive. */
static void test_memory_bounded(void **state) {
    (void)state;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@sentence: a b c\n");
    for (int i = 0; i < 32; i++) // 16 MiB each at the largest settings
        attn_sb_printf(&b, "=== page: p%d\ntitle: P\n@config: d_model=512 d_k=128 heads=8 seed=%d\n"
                           "@random-weights: gain=2\n",
                       i, i + 1);
    expect_err(grow(&b), 5 + 4 * 3 + 3, 18, "with this page the lesson would need more than 64 MiB of memory");
    attn_sb_free(&b);
    // the same seed and gain on every page share one copy: fine
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@sentence: a b c\n");
    for (int i = 0; i < 32; i++)
        attn_sb_printf(&b, "=== page: p%d\ntitle: P\n@config: d_model=512 d_k=128 heads=8\n"
                           "@random-weights: gain=2\n",
                       i);
    lesson *l = parse_ok(grow(&b));
    attn_weights w0, w31;
    lesson_page_weights(l, 0, &lesson_page_at(l, 0)->cfg, &w0);
    lesson_page_weights(l, 31, &lesson_page_at(l, 31)->cfg, &w31);
    assert_non_null(w0.mat[ATTN_MAT_W_Q][7]);
    assert_ptr_equal(w0.mat[ATTN_MAT_W_Q][7], w31.mat[ATTN_MAT_W_Q][7]);
    lesson_free(l);
    attn_sb_free(&b);
}

/* The vocabulary is checked in n log n: repeats are still found, each
 * against its first line, and words still tokenize through the index. */
static void test_large_vocabulary(void **state) {
    (void)state;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@sentence: 动物 w5 动物园\n@vocab\nf\n");
    for (int i = 0; i < 20000; i++) attn_sb_printf(&b, "w%d: %d\n", i, i % 7);
    attn_sb_puts(&b, "动物: 1\n动物园: 2\nW5: 3\nw17: 4\nw17: 5\n@end\n=== page: a\ntitle: A\n");
    char *report = NULL;
    assert_int_equal(page_lesson_check(grow(&b), b.len, "t.lesson", &report, NULL), 2);
    assert_non_null(strstr(report, "t.lesson:20010:1: “w17” is listed twice (first at line 24)"));
    assert_non_null(strstr(report, "t.lesson:20011:1: “w17” is listed twice (first at line 24)"));
    free(report);
    attn_sb_free(&b);
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n@sentence: 动物园里的 w5 动物\n@vocab\nf\n");
    for (int i = 0; i < 20000; i++) attn_sb_printf(&b, "w%d: %d\n", i, i % 7);
    attn_sb_puts(&b, "动物: 1\n动物园: 2\n@end\n=== page: a\ntitle: A\n");
    lesson *l = parse_ok(grow(&b));
    attn_trace t = {0};
    assert_int_equal(lesson_page_trace(&t, l, 0, NULL, 0, NULL), ATTN_OK);
    assert_int_equal(t.n, 5); // 动物园 里 的 w5 动物: the longest listed word wins
    int len;
    const char *tok = attn_token_text(&t.tokens, 0, &len);
    assert_int_equal(len, (int)strlen("动物园"));
    assert_memory_equal(tok, "动物园", (size_t)len);
    assert_close(t.x[3], 5.0); // w5's vector (d_model 1)
    assert_close(t.x[4], 1.0); // 动物's
    attn_trace_free(&t);
    lesson_free(l);
    attn_sb_free(&b);
}

/* A lesson naming more models than its first slots hold: every page keeps
 * its own model (the slots never move when more are read), each read once. */
static void test_many_models(void **state) {
    (void)state;
    static const char *const files[] = {"referent-en.json", "referent-en-steps0.json", "reverse.json", "sort.json",
                                        "induction.json", "referent-en-token-seed1.json", "referent-en.json"};
    static const char *const tasks[] = {"referent-en", "referent-en", "reverse", "sort", "induction", "referent-en",
                                        "referent-en"};
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n");
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        attn_sb_printf(&b, "=== page: p%zu\ntitle: P\n@model: %s\n", i, files[i]);
    lesson *l = NULL;
    attn_err err;
    // beside the shipped lessons: @model finds ../../assets/models from there
    if (page_lesson_parse(&l, grow(&b), b.len, ATTN_SOURCE_DIR "/lessons/en/t.lesson", &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < lesson_page_count(l); i++) {
        const lesson_page *pg = lesson_page_at(l, i);
        assert_non_null(pg->model);
        assert_string_equal(page_model(pg)->task, tasks[i]);
        assert_string_equal(pg->train_task, tasks[i]);
        model_result r = {0};
        bool labelled;
        assert_int_equal(page_run(&r, l, i, NULL, 0, -1, &labelled, &err), ATTN_OK);
        assert_int_equal(r.layer[0].n, pg->n_tokens);
        model_result_free(&r);
    }
    assert_ptr_equal(lesson_page_at(l, 0)->model, lesson_page_at(l, 6)->model); // the same file, read once
    lesson_free(l);
    attn_sb_free(&b);
}

/* One model file named by several spellings is read and held once (ten
 * spellings of a 2 MB model held 712 MB): every page points to one model. */
static void test_model_spellings(void **state) {
    (void)state;
    static const char *const names[] = {
        "referent-en.json", "./referent-en.json", ".//referent-en.json", "../en/../../assets/models/referent-en.json",
        ATTN_SOURCE_DIR "/assets/models/referent-en.json", ATTN_SOURCE_DIR "/assets/models/../models/referent-en.json"};
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "# lesson: t\ntitle: T\nlang: en\n");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        attn_sb_printf(&b, "=== page: p%zu\ntitle: P\n@model: %s\n", i, names[i]);
    lesson *l = NULL;
    attn_err err;
    if (page_lesson_parse(&l, grow(&b), b.len, ATTN_SOURCE_DIR "/lessons/en/t.lesson", &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    const model *first = page_model(lesson_page_at(l, 0));
    assert_non_null(first);
    for (int i = 1; i < lesson_page_count(l); i++)
        if (page_model(lesson_page_at(l, i)) != first)
            fail_msg("@model: %s was read again instead of sharing %s", names[i], names[0]);
    lesson_free(l);
    attn_sb_free(&b);
}

/* ---- a stand-in source of models: each "holds" 40 MiB ---- */

struct lesson_model {
    char name[64];
};
static bool fake_locate(const char *dir, const char *name, char *path, size_t path_cap, char *key, size_t key_cap,
                        char *why, size_t why_cap) {
    (void)dir, (void)why, (void)why_cap;
    snprintf(path, path_cap, "%s", name);
    snprintf(key, key_cap, "%s", name);
    return true;
}
static lesson_model *fake_load(const char *path, char *why, size_t cap) {
    (void)why, (void)cap;
    lesson_model *m = calloc(1, sizeof *m);
    if (m) snprintf(m->name, sizeof m->name, "%s", path);
    return m;
}
static void fake_free(lesson_model *m) { free(m); }
static void fake_facts(const lesson_model *m, lesson_model_facts *out) {
    (void)m;
    attn_config_default(&out->cfg);
    out->layers = 1;
    out->probe = "cat sat";
    out->task = "sort";
    out->bytes = (size_t)40 << 20;
}
static attn_status fake_tokenize(const lesson_model *m, const char *s, size_t n, attn_tokens *out, attn_err *err) {
    (void)m;
    return attn_tokenize(out, s, n, NULL, err);
}
static int fake_word_id(const lesson_model *m, const char *w, size_t n) {
    (void)m, (void)w, (void)n;
    return -1;
}
static int fake_stage(const char *name) {
    (void)name;
    return -1;
}
static const char *fake_stage_name(int stage) {
    (void)stage;
    return "?";
}
static lesson_cols fake_cols(int stage) {
    (void)stage;
    return LESSON_COLS_D_K;
}
static attn_status fake_row(const lesson_model *m, const char *sentence, int layer, int head, int query, double *row,
                            int cap, int *n, attn_err *err) {
    (void)m, (void)sentence, (void)layer, (void)head, (void)query, (void)row, (void)cap, (void)n;
    return attn_fail(err, ATTN_ERR_RANGE, "not run");
}
static const char *fake_task(const char *name) { return name; }
static const char *fake_task_names(void) { return "sort"; }
static const lesson_model_source fake_source = {fake_locate, fake_load, fake_free, fake_facts, fake_tokenize,
                                                fake_word_id, fake_stage, fake_stage_name, fake_cols, fake_row,
                                                fake_task, fake_task, fake_task_names, NULL, NULL};

/* The models a lesson reads count against LESSON_MAX_MEMORY: two models of
 * 40 MiB pass 64 MiB, said at the second @model; one named twice is held once. */
static void test_models_count_against_memory(void **state) {
    (void)state;
    static const char *const text = "# lesson: t\ntitle: T\nlang: en\n"
                                    "=== page: a\ntitle: A\n@model: one.json\n"
                                    "=== page: b\ntitle: B\n@model: one.json\n"
                                    "=== page: c\ntitle: C\n@model: two.json\n";
    lesson *l = NULL;
    attn_err err;
    assert_int_equal(lesson_parse_with(&l, text, strlen(text), "t.lesson", &fake_source, &err), ATTN_ERR_PARSE);
    assert_null(l);
    assert_non_null(strstr(err.msg, "t.lesson:12:9: with this page the lesson would need more than 64 MiB of memory: "
                                    "the model holds 40.0 MiB"));
    size_t two_pages = strstr(text, "=== page: c") - text; // the first two pages alone: one model, held once
    assert_int_equal(lesson_parse_with(&l, text, two_pages, "t.lesson", &fake_source, &err), ATTN_OK);
    assert_ptr_equal(lesson_page_at(l, 0)->model, lesson_page_at(l, 1)->model);
    lesson_free(l);
}

/* @layer counts from 1, as lessons/README.md and the window do: @layer: 1
 * is the first layer (0-based 0), the model's last is its layer count. */
static void test_layer_from_one(void **state) {
    (void)state;
    static const char *const head = "# lesson: t\ntitle: T\nlang: en\n=== page: p\ntitle: P\n"
                                    "@model: referent-en.json\n@layer: ";
    const char *path = ATTN_SOURCE_DIR "/lessons/en/t.lesson"; // beside the shipped models
    for (int want = 1; want <= 2; want++) {
        char text[256];
        snprintf(text, sizeof text, "%s%d\n", head, want);
        lesson *l = NULL;
        attn_err err;
        if (page_lesson_parse(&l, text, strlen(text), path, &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(lesson_page_at(l, 0)->layer, want - 1);
        assert_int_equal(lesson_page_layer(lesson_page_at(l, 0)), want - 1);
        lesson_free(l);
    }
    for (int bad = 0; bad <= 3; bad += 3) {
        char text[256];
        snprintf(text, sizeof text, "%s%d\n", head, bad);
        lesson *l = NULL;
        attn_err err;
        assert_int_equal(page_lesson_parse(&l, text, strlen(text), path, &err), ATTN_ERR_PARSE);
        assert_non_null(strstr(err.msg, ":7:9: layer “"));
        assert_non_null(strstr(err.msg, "the model has 2 layers, numbered from 1"));
    }
}

/* The shipped lessons' model pages: each model is found, and what the pages
 * say the models do is what they do: the flip of the pronoun in layer 2
 * (pointer models), the token models' answers and where their last layer
 * looks, the one-layer patterns. Each case: page, sentence's row, layer,
 * the key its strongest weight is on, the model's answer there. */
static void check_model_pages(const char *path, const char *const cases[][5], size_t n) {
    lesson *l = load_ok(path);
    for (int i = 0; i < lesson_page_count(l); i++) {
        const lesson_page *pg = lesson_page_at(l, i);
        if (pg->model_name && !pg->model) fail_msg("%s page %s: %s", path, pg->id, pg->model_why);
    }
    for (size_t c = 0; c < n; c++) {
        int i = lesson_find_page(l, cases[c][0]);
        assert_true(i >= 0);
        const lesson_page *pg = lesson_page_at(l, i);
        model_result r = {0};
        bool labelled;
        attn_err err;
        assert_int_equal(page_run(&r, l, i, NULL, 0, -1, &labelled, &err), ATTN_OK);
        const attn_trace *t = &r.layer[atoi(cases[c][2])];
        const char *colon = strchr(cases[c][1], ':'); // "10:c": a token named by its position
        lesson_tokref row = {colon ? atoi(cases[c][1]) - 1 : -1, colon ? colon + 1 : cases[c][1], LESSON_ROLE_NONE, -1, -1};
        int q = lesson_find_token(&t->tokens, &row), best = 0;
        assert_true(q >= 0);
        const double *a = t->head[0].weights + (size_t)q * t->n;
        for (int j = 1; j < t->n; j++)
            if (a[j] > a[best]) best = j;
        char lab[64];
        attn_token_label(&t->tokens, best, 0, lab, sizeof lab);
        if (strcmp(lab, cases[c][3]) != 0)
            fail_msg("%s page %s: row %s of layer %s looks most at %s, not %s", path, pg->id, cases[c][1],
                     cases[c][2], lab, cases[c][3]);
        const char *said = page_model(pg)->vocab[r.predicted[q]];
        if (strcmp(said, cases[c][4]) != 0)
            fail_msg("%s page %s: the answer at %s is %s, not %s", path, pg->id, cases[c][1], said, cases[c][4]);
        model_result_free(&r);
    }
    lesson_free(l);
}

static void test_model_pages(void **state) {
    (void)state;
    static const char *const zh[][5] = {
        {"two-layers", "它", "1", "动物", "动物"},
        {"two-layers", "它", "0", "累", "动物"},
        {"two-layers-flip", "它", "1", "鸟", "鸟"},
        {"two-layers-flip", "它", "0", "飞", "鸟"},
        {"other-language", "it", "1", "street", "street"},
        {"other-language", "it", "0", "wide", "street"},
        {"limits", "它", "1", "鸟", "鸟"},
        {"limits-seed", "它", "1", "，", "鸟"},
        {"limits-seed", "，", "0", "鸟", "鸟"},
        {"reverse", "3", "0", "8", "8"},
        {"sort", "5", "0", "1", "1"},
        {"induction", "10:c", "1", "3:h", "h"},
        {"induction", "3:h", "0", "2:c", "h"},
    };
    static const char *const en[][5] = {
        {"two-layers", "it", "1", "animal", "animal"},
        {"two-layers", "it", "0", "tired", "animal"},
        {"two-layers-flip", "it", "1", "street", "street"},
        {"two-layers-flip", "it", "0", "wide", "street"},
        {"other-language", "它", "1", "鸟", "鸟"},
        {"other-language", "它", "0", "飞", "鸟"},
        {"limits", "it", "1", "animal", "animal"},
        {"limits-seed", "it", "1", "tired", "animal"},
        {"limits-seed", "tired", "0", "animal", "animal"},
        {"reverse", "3", "0", "8", "8"},
        {"sort", "5", "0", "1", "1"},
        {"induction", "10:c", "1", "3:h", "h"},
        {"induction", "3:h", "0", "2:c", "h"},
    };
    check_model_pages(ZH_LESSON, zh, sizeof zh / sizeof *zh);
    check_model_pages(EN_LESSON, en, sizeof en / sizeof *en);
}

/* ---- issue 23: @try, roles, @own and @edited -------------------------- */

static void test_try_errors(void **state) {
    (void)state;
    // a reference outside @own that names a token the suggestion does not have
    expect_err(HEAD "@try: the bird saw a cat | a bird\nSee {weights saw cat}.\n", 17, 6,
               "the sentence “a bird” has no “saw”: name the token by its role");
    // the same inside @own holds only for the page's own sentence: accepted
    lesson *l = parse_ok(HEAD "@try: a bird\n@own\nSee {weights saw cat}.\n@end\n@edited: Now {n} tokens.\n");
    const lesson_page *pg = lesson_page_at(l, 0);
    assert_int_equal(pg->n_tries, 1);
    assert_string_equal(pg->tries[0], "a bird");
    assert_true(pg->has_own);
    assert_true(pg->paras[0].own);
    assert_true(pg->paras[1].edited && !pg->paras[1].own);
    lesson_free(l);
    expect_err(HEAD "@try: the cat | \n", 16, 16, "an empty @try sentence");
    expect_err(HEAD "@own\ntext\n", 16, 1, "@own is not closed");
    expect_err(HEAD "@own\n@own\n@end\n", 17, 1, "@own is already open");
    expect_err(HEAD "Who is {word $nobody}?\n", 16, 14, "there is no role “$nobody”");
    expect_err(HEAD "Who is {word $pronoun}?\n", 16, 14, "$pronoun needs a pronoun (它 or it)");
    expect_err(HEAD "@roles: noun=noun\n", 16, 1, "@roles belongs before the first page");

    // a model page that invites edits is checked on its task's held-out sentences too
    char *text = NULL;
    size_t len = 0;
    attn_err err;
    assert_int_equal(attn_read_file(EN_LESSON, LESSON_MAX_BYTES, &text, &len, &err), ATTN_OK);
    attn_strbuf b;
    attn_sb_init(&b);
    const char *at = strstr(text, "The model answers \"{answer it}\" (9).");
    assert_non_null(at);
    attn_sb_append(&b, text, (size_t)(at - text));
    attn_sb_puts(&b, "The model answers \"{answer it}\" (9), {weights it animal}."); // every @try has "animal"
    attn_sb_puts(&b, at + strlen("The model answers \"{answer it}\" (9)."));
    char *report = NULL;
    assert_int_equal(page_lesson_check(b.data, b.len, EN_LESSON, &report, NULL), 1);
    assert_non_null(strstr(report, "didn't cross the street because it was too wide.” has no “animal”"));
    free(report);
    attn_sb_free(&b);
    free(text);
}

/* The shipped one-layer page after its suggestion "was too wide": roles find
 * the tokens of the new sentence, the text of the page's own sentence gives
 * way to @edited and the R note, and no reference shows "—". */
static void test_try_narrative(void **state) {
    (void)state;
    lesson *l = load_ok(EN_LESSON);
    int i = lesson_find_page(l, "one-layer");
    assert_true(i >= 0);
    const lesson_page *pg = lesson_page_at(l, i);
    assert_int_equal(pg->n_tries, 2);
    const char *wide = pg->tries[1];
    assert_non_null(strstr(wide, "too wide"));
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(lesson_page_trace(&t, l, i, wide, strlen(wide), &err), ATTN_OK);
    viz_ref_ctx x = {.trace = &t, .sentence = wide};
    char word[64];
    // features of this lesson's vocabulary: noun is 9, state 15 (@roles)
    lesson_tokref pred = {-1, NULL, LESSON_ROLE_PREDICATE, 9, 15}, other = {-1, NULL, LESSON_ROLE_OTHER, 9, 15},
                  referent = {-1, NULL, LESSON_ROLE_REFERENT, 9, 15}, pron = {-1, NULL, LESSON_ROLE_PRONOUN, 9, 15};
    int k = viz_lesson_role(&x, &pred, -1, 0);
    attn_token_label(&t.tokens, k, 0, word, sizeof word);
    assert_string_equal(word, "wide");
    k = viz_lesson_role(&x, &referent, -1, 0);
    attn_token_label(&t.tokens, k, 0, word, sizeof word);
    assert_string_equal(word, "bird"); // the designed layer still picks the bird
    k = viz_lesson_role(&x, &other, -1, 0);
    attn_token_label(&t.tokens, k, 0, word, sizeof word);
    assert_string_equal(word, "animal");
    k = viz_lesson_role(&x, &pron, -1, 0);
    attn_token_label(&t.tokens, k, 0, word, sizeof word);
    assert_string_equal(word, "it");

    attn_strbuf b;
    attn_sb_init(&b);
    viz_lesson_narrative(&b, pg, false, &x);
    assert_non_null(strstr(b.data, "You changed the ending: it is now \"wide\"."));
    assert_non_null(strstr(b.data, "LESSON_EDITED")); // the R note (its key: no strings given here)
    assert_null(strstr(b.data, "now \"it was too tired\""));
    assert_null(strstr(b.data, "—"));
    attn_sb_free(&b);

    // the page's own sentence: its own text, no note
    x.sentence = pg->sentence;
    attn_trace own = {0};
    assert_int_equal(lesson_page_trace(&own, l, i, NULL, 0, &err), ATTN_OK);
    x.trace = &own;
    attn_sb_init(&b);
    viz_lesson_narrative(&b, pg, false, &x);
    assert_non_null(strstr(b.data, "now \"it was too tired\""));
    assert_null(strstr(b.data, "LESSON_EDITED"));
    attn_sb_free(&b);

    // a sentence that lost a token a paragraph names: that paragraph gives way, never "—"
    const char *cat = "The cat didn't see the dog because it was too tired.";
    attn_trace_free(&t);
    assert_int_equal(lesson_page_trace(&t, l, i, cat, strlen(cat), &err), ATTN_OK);
    x.trace = &t;
    x.sentence = cat;
    attn_sb_init(&b);
    viz_lesson_narrative(&b, pg, false, &x);
    assert_null(strstr(b.data, "—"));
    assert_non_null(strstr(b.data, "LESSON_EDITED"));
    attn_sb_free(&b);
    attn_trace_free(&t);
    attn_trace_free(&own);
    lesson_free(l);
}

/* Issue 23 part 6: the two-layer page says why layer 2's other rows look at
 * the referent too (the pointer objective trains only the pronoun's row),
 * and has the learner read the pronoun's row first, in both languages. */
static void test_two_layers_explains_rows(void **state) {
    (void)state;
    const char *path[2] = {ZH_LESSON, EN_LESSON}, *want[2][2] = {{"“指针”目标", "先读“它”那一行"}, {"pointer objective", "Read the row of \"it\" first"}};
    for (int k = 0; k < 2; k++) {
        lesson *l = load_ok(path[k]);
        const lesson_page *pg = lesson_page_at(l, lesson_find_page(l, "two-layers"));
        assert_non_null(pg);
        bool said[2] = {false, false};
        for (int i = 0; i < pg->n_paras; i++)
            for (int w = 0; w < 2; w++) said[w] |= strstr(pg->paras[i].text, want[k][w]) != NULL;
        if (!said[0] || !said[1]) fail_msg("%s: two-layers does not say \"%s\" and \"%s\"", path[k], want[k][0], want[k][1]);
        lesson_free(l);
    }
}


/* A page with @hf (issue 26): the folder from ATTNVIZ_PAGE_MODEL (the
 * page-model override) or not found, never an error; {heads SCORE T} named
 * from the head finder's scores on the page's sentence — on the generated
 * model with a planted previous-token head (layer 2 head 3, counted from 1),
 * that head — and a sentence for when none passes; and the refusals. */
static void test_hf_page(void **state) {
    (void)state;
    static const char *const text = "# lesson: t\ntitle: T\nlang: en\n@config: mask=causal\n"
                                    "=== page: real\ntitle: R\n@hf: gpt2\n"
                                    "@sentence: the cat sat on the mat, then it sat on the cat\n"
                                    "Found: {heads prev 0.5}. None: {heads first 0.9}.\n\n"
                                    "@missing\nGet the files.\n@end\n";
    setenv(PAGE_HF_ENV, ATTN_TEST_DATA "/hf/planted_prev_head", 1);
    lesson *l = parse_ok(text);
    const lesson_page *pg = lesson_page_at(l, 0);
    assert_string_equal(pg->hf_name, "gpt2");
    assert_string_equal(pg->hf_path, ATTN_TEST_DATA "/hf/planted_prev_head");
    assert_int_equal(pg->n_paras, 2);
    assert_false(pg->paras[0].missing);
    assert_true(pg->paras[1].missing);
    // with the folder the heads are named and the @missing text left out; without it, the other way round
    assert_true(lesson_para_hf_shown(pg, &pg->paras[0], true));
    assert_false(lesson_para_hf_shown(pg, &pg->paras[1], true));
    assert_false(lesson_para_hf_shown(pg, &pg->paras[0], false));
    assert_true(lesson_para_hf_shown(pg, &pg->paras[1], false));
    assert_int_equal(pg->n_refs, 2);
    assert_int_equal(pg->refs[0].kind, LESSON_REF_HEADS);
    assert_int_equal(pg->refs[0].field, LESSON_HEADS_PREV);
    assert_true(pg->refs[0].threshold == 0.5);
    page_hf h;
    attn_err err;
    if (page_hf_open(&h, pg, NULL, 0, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char out[256];
    page_hf_ref_text(&h, &pg->refs[0], NULL, out, sizeof out);
    assert_string_equal(out, "at least 0.50: layer 2 head 3 (1.00)");
    page_hf_words zh; // the strings table's Chinese, as the window and --print hand them in
    viz_strings table;
    if (viz_strings_load(&table, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err) != ATTN_OK) fail_msg("%s", err.msg);
    viz_lesson_hf_words(&zh, table.s[VIZ_LANG_ZH]);
    page_hf_ref_text(&h, &pg->refs[0], &zh, out, sizeof out);
    assert_string_equal(out, "至少 0.50 的有：第 2 层头 3（1.00）");
    page_hf_ref_text(&h, &pg->refs[1], NULL, out, sizeof out);
    assert_string_equal(out, "no head reaches 0.90 (the highest is layer 2 head 2, at 0.52)");
    // a threshold every head passes: six named, then how many more
    lesson_ref all = pg->refs[0];
    all.threshold = 1e-300;
    page_hf_ref_text(&h, &all, NULL, out, sizeof out);
    assert_non_null(strstr(out, ": layer 2 head 3 (1.00), layer 1 head 4 (0.33), "));
    assert_non_null(strstr(out, " and 2 more"));
    page_hf_ref_text(&h, &all, &zh, out, sizeof out);
    assert_non_null(strstr(out, "：第 2 层头 3（1.00）、第 1 层头 4（0.33）、"));
    assert_non_null(strstr(out, "，另有 2 个"));
    // the table's English is the built-in English
    page_hf_words en;
    viz_lesson_hf_words(&en, table.s[VIZ_LANG_EN]);
    assert_string_equal(en.none, page_hf_words_en.none);
    assert_string_equal(en.pass, page_hf_words_en.pass);
    assert_string_equal(en.head, page_hf_words_en.head);
    assert_string_equal(en.list, page_hf_words_en.list);
    assert_string_equal(en.more, page_hf_words_en.more);
    // the window's narrative: with the folder the heads, in the UI's words; while computing, that it does;
    // without it, the @missing text; never "—"
    viz_ref_ctx x = {.ui = table.s[VIZ_LANG_ZH], .hf = &h, .hf_found = true};
    attn_strbuf b;
    attn_sb_init(&b);
    viz_lesson_narrative(&b, pg, false, &x);
    assert_non_null(strstr(b.data, "Found: 至少 0.50 的有：第 2 层头 3（1.00）."));
    assert_null(strstr(b.data, "Get the files."));
    assert_null(strstr(b.data, "—"));
    attn_sb_free(&b);
    page_hf computing = {.count = h.count, .n_head = h.n_head}; // no scores yet
    x.hf = &computing;
    x.ui = table.s[VIZ_LANG_EN];
    attn_sb_init(&b);
    viz_lesson_narrative(&b, pg, false, &x);
    assert_non_null(strstr(b.data, "Found: (the heads are being found…)."));
    attn_sb_free(&b);
    x.hf = NULL, x.hf_found = false;
    attn_sb_init(&b);
    viz_lesson_narrative(&b, pg, false, &x);
    assert_string_equal(b.data, "Get the files.\n\n");
    attn_sb_free(&b);
    viz_strings_free(&table);
    page_hf_free(&h);
    lesson_free(l);
    // a folder without config.json: not found, and said where
    setenv(PAGE_HF_ENV, ATTN_TEST_DATA "/hf", 1);
    l = parse_ok(text);
    pg = lesson_page_at(l, 0);
    assert_null(pg->hf_path);
    assert_non_null(strstr(pg->hf_why, "has no config.json"));
    assert_int_equal(page_hf_open(&h, pg, NULL, 0, &err), ATTN_ERR_IO);
    lesson_free(l);
    unsetenv(PAGE_HF_ENV);
    // and the refusals
    static const char *const head = "# lesson: t\ntitle: T\nlang: en\n@sentence: a b\n=== page: p\ntitle: P\n";
    char buf[512];
#define HF_ERR(body, line, col, want) (snprintf(buf, sizeof buf, "%s%s", head, body), expect_err(buf, line, col, want))
    HF_ERR("{heads prev 0.5}\n", 7, 2, "it needs @hf: FOLDER on the page");
    HF_ERR("@hf: gpt2\n{heads next 0.5}\n", 8, 8, "needs a score: prev, induction or first");
    HF_ERR("@hf: gpt2\n{heads prev 2}\n", 8, 13, "a number above 0 and at most 1");
    HF_ERR("@hf: gpt2\n{heads prev 0.5 head=1}\n", 8, 13, "and nothing after it");
    HF_ERR("@hf: gpt 2\n", 7, 6, "write @hf: FOLDER");
    HF_ERR("@model: x.json\n@hf: gpt2\n", 8, 1, "a page shows @model or @hf, not both");
    HF_ERR("@missing\ntext\n@end\n", 8, 1, "@missing is for a page with @hf");
    HF_ERR("@hf: gpt2\n@missing\ntext\n", 8, 1, "@missing is not closed");
    HF_ERR("@hf: gpt2\n@missing\n{heads prev 0.5}\n@end\n", 9, 2, "{heads …} cannot be in @missing");
#undef HF_ERR
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_lesson),
        cmocka_unit_test(test_rope_page),
        cmocka_unit_test(test_modern_refs),
        cmocka_unit_test(test_shift_diff),
        cmocka_unit_test(test_modern_errors),
        cmocka_unit_test(test_numbers_and_designs),
        cmocka_unit_test(test_find_token_after_edit),
        cmocka_unit_test(test_errors_directives),
        cmocka_unit_test(test_errors_structure),
        cmocka_unit_test(test_errors_encoding),
        cmocka_unit_test(test_errors_blocks),
        cmocka_unit_test(test_check_collects_every_error),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_designed_example),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_cost_figures),
        cmocka_unit_test(test_no_typed_figures),
        cmocka_unit_test(test_pages_paired),
        cmocka_unit_test(test_column_names_and_features),
        cmocka_unit_test(test_readme_example),
        cmocka_unit_test(test_limits_named),
        cmocka_unit_test(test_error_list_limit),
        cmocka_unit_test(test_emphasis_linear),
        cmocka_unit_test(test_layer_from_one),
        cmocka_unit_test(test_model_spellings),
        cmocka_unit_test(test_models_count_against_memory),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_large_vocabulary),
        cmocka_unit_test(test_many_models),
        cmocka_unit_test(test_model_pages),
        cmocka_unit_test(test_try_errors),
        cmocka_unit_test(test_try_narrative),
        cmocka_unit_test(test_two_layers_explains_rows),
        cmocka_unit_test(test_hf_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
