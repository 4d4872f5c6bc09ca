/* fuzz_lesson.c — the lesson parser on arbitrary bytes: lesson_parse and
 * lesson_check must agree, and a lesson that parses must hand the GUI only
 * what it can draw and compute: spans inside their paragraph, in order and
 * without overlaps, page ids of [A-Za-z0-9_-], tokens that exist in the page's
 * sentence, heads and configurations in range, designed weights that bind to
 * the page's own configuration (and to its @compare one), and a trace when the
 * page is cheap enough to run. */
#include <string.h>

#include "attn.h"
#include "fuzz_common.h"
#include "lesson.h"
#include "tokenize.h"
#include "utf8.h"

#define FILENAME "fuzz.lesson"

static bool valid_utf8(const char *s) {
    return utf8_find_invalid(s, strlen(s)) == (size_t)-1;
}

static bool is_id(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-'))
            return false;
    return true;
}

/* Spans lie inside the text, in order, without overlaps, on whole code points;
 * a {reference} names one of the page's n_refs resolved references. */
static void check_para(const lesson_para *pa, int n_refs) {
    FUZZ_CHECK(pa->kind == LESSON_PARA_TEXT || pa->kind == LESSON_PARA_ITEM || pa->kind == LESSON_PARA_CODE);
    FUZZ_CHECK(pa->text != NULL && pa->code_lang != NULL && pa->line >= 1);
    FUZZ_CHECK(valid_utf8(pa->text) && valid_utf8(pa->code_lang));
    if (pa->kind != LESSON_PARA_CODE) FUZZ_CHECK(pa->code_lang[0] == '\0');
    size_t len = strlen(pa->text);
    FUZZ_CHECK(pa->n_spans >= 0 && (pa->n_spans == 0 || pa->spans != NULL));
    if (pa->kind == LESSON_PARA_CODE) FUZZ_CHECK(pa->n_spans == 0);
    int end = 0;
    for (int s = 0; s < pa->n_spans; s++) {
        const lesson_span *sp = &pa->spans[s];
        FUZZ_CHECK(sp->kind == LESSON_SPAN_EMPH || sp->kind == LESSON_SPAN_CODE || sp->kind == LESSON_SPAN_REF);
        if (sp->kind == LESSON_SPAN_REF) FUZZ_CHECK(sp->ref >= 0 && sp->ref < n_refs);
        FUZZ_CHECK(sp->start >= end && sp->len > 0 && (size_t)sp->start + (size_t)sp->len <= len);
        FUZZ_CHECK(utf8_find_invalid(pa->text + sp->start, (size_t)sp->len) == (size_t)-1);
        end = sp->start + sp->len;
    }
}

/* A token a page names is a token of its sentence, found again by its text. */
static void check_tokref(const lesson_tokref *r, const attn_tokens *t) {
    FUZZ_CHECK(r->index >= 0 && r->index < t->n && r->text != NULL);
    int len;
    const char *tok = attn_token_text(t, r->index, &len);
    FUZZ_CHECK((size_t)len == strlen(r->text) && memcmp(tok, r->text, (size_t)len) == 0);
    FUZZ_CHECK(lesson_find_token(t, r) == r->index);
}

/* Binds the designed weights to c: only heads c has, and the count matches. */
static void check_weights(const lesson *l, int i, const attn_config *c) {
    attn_weights w;
    memset(&w, 0xA5, sizeof w); // lesson_page_weights must clear every slot itself
    int n = lesson_page_weights(l, i, c, &w), set = (w.x != NULL) + (w.mat[ATTN_MAT_W_O][0] != NULL) + (w.mat[ATTN_MAT_B_O][0] != NULL);
    FUZZ_CHECK(w.x == NULL);
    for (int h = 0; h < ATTN_MAX_HEADS; h++) {
        const double *const m[6] = {w.mat[ATTN_MAT_W_Q][h], w.mat[ATTN_MAT_W_K][h], w.mat[ATTN_MAT_W_V][h], w.mat[ATTN_MAT_B_Q][h], w.mat[ATTN_MAT_B_K][h], w.mat[ATTN_MAT_B_V][h]};
        for (int k = 0; k < 6; k++) {
            if (!m[k]) continue;
            FUZZ_CHECK(h < c->heads);
            set++;
        }
    }
    FUZZ_CHECK(n == set);
}

/* Runs page i with configuration c when that is cheap; returns the status. */
static attn_status small_trace(attn_trace *t, const lesson *l, int i, int n_tokens, const attn_config *c) {
    double macs = (double)c->heads * n_tokens * c->d_model * c->d_k * 4.0 +
                  (double)n_tokens * n_tokens * c->heads * c->d_k * 2.0;
    if (macs > 2e5) return ATTN_ERR_RANGE;
    const lesson_page *pg = lesson_page_at(l, i);
    attn_weights w;
    lesson_page_weights(l, i, c, &w);
    attn_err err;
    memset(t, 0, sizeof *t);
    attn_status st = attn_trace_run(t, pg->sentence, strlen(pg->sentence), c, lesson_vocab(l), &w, &err);
    // designed values up to 1e18 may overflow a later stage; that must be reported, nothing else
    FUZZ_CHECK(st == ATTN_OK || st == ATTN_ERR_NONFINITE);
    if (st == ATTN_OK) FUZZ_CHECK(t->n == n_tokens);
    else attn_trace_free(t);
    return st;
}

static void check_page(const lesson *l, int i) {
    const lesson_page *pg = lesson_page_at(l, i);
    FUZZ_CHECK(pg != NULL);
    FUZZ_CHECK(pg->id != NULL && is_id(pg->id) && lesson_find_page(l, pg->id) == i);
    FUZZ_CHECK(pg->title != NULL && pg->title[0] != '\0' && valid_utf8(pg->title));
    FUZZ_CHECK(pg->line >= 1);
    FUZZ_CHECK(pg->n_paras >= 0 && (pg->n_paras == 0 || pg->paras != NULL));
    FUZZ_CHECK(pg->n_refs >= 0 && (pg->n_refs == 0 || pg->refs != NULL));
    int line = pg->line;
    for (int k = 0; k < pg->n_paras; k++) {
        check_para(&pg->paras[k], pg->n_refs);
        FUZZ_CHECK(pg->paras[k].line >= line); // in file order, after the page's own line
        line = pg->paras[k].line;
    }

    FUZZ_CHECK(attn_config_check(&pg->cfg, NULL) == ATTN_OK);
    FUZZ_CHECK(pg->step >= -1 && pg->step < ATTN_STEP_COUNT);
    FUZZ_CHECK(pg->gain > 0 && pg->gain <= 100);
    FUZZ_CHECK(pg->sentence != NULL && pg->n_tokens >= 1 && pg->n_tokens <= ATTN_MAX_TOKENS);

    // the page's tokens, as the GUI gets them: the sentence with the vocabulary's words
    const attn_vocab *v = lesson_vocab(l);
    attn_wordlist wl = attn_vocab_words(v);
    attn_tokens t;
    FUZZ_CHECK(attn_tokenize(&t, pg->sentence, strlen(pg->sentence), v ? &wl : NULL, NULL) == ATTN_OK);
    FUZZ_CHECK(t.n == pg->n_tokens);

    const lesson_highlight *hl = &pg->highlight;
    FUZZ_CHECK(hl->kind >= LESSON_HL_NONE && hl->kind <= LESSON_HL_CELL);
    if (hl->kind != LESSON_HL_NONE) check_tokref(&hl->a, &t);
    if (hl->kind == LESSON_HL_CELL) check_tokref(&hl->b, &t);

    const lesson_predict *pr = &pg->predict;
    if (pr->on) {
        check_tokref(&pr->query, &t);
        FUZZ_CHECK(pr->head >= 0 && pr->head < pg->cfg.heads);
        if (pr->answer.index >= 0) check_tokref(&pr->answer, &t);
        else FUZZ_CHECK(pr->answer.index == -1 && pr->answer.text == NULL);
    }

    const lesson_compare *cmp = &pg->compare;
    FUZZ_CHECK(cmp->kind >= LESSON_CMP_NONE && cmp->kind <= LESSON_CMP_HEADS);
    if (cmp->kind != LESSON_CMP_NONE) FUZZ_CHECK(cmp->label != NULL && valid_utf8(cmp->label));
    if (cmp->kind == LESSON_CMP_HEADS)
        FUZZ_CHECK(cmp->head_a >= 0 && cmp->head_a < pg->cfg.heads && cmp->head_b >= 0 &&
                   cmp->head_b < pg->cfg.heads);
    if (cmp->kind == LESSON_CMP_CONFIG) FUZZ_CHECK(attn_config_check(&cmp->cfg, NULL) == ATTN_OK);

    check_weights(l, i, &pg->cfg);
    if (cmp->kind == LESSON_CMP_CONFIG) check_weights(l, i, &cmp->cfg);

    attn_trace tr;
    if (small_trace(&tr, l, i, t.n, &pg->cfg) == ATTN_OK) {
        if (pr->on && pr->answer.index >= 0) { // the parser checked the answer on this very trace
            const double *row = attn_trace_stage(&tr, ATTN_ST_WEIGHTS, pr->head) + (size_t)pr->query.index * tr.n;
            int best = 0;
            for (int j = 1; j < tr.n; j++)
                if (row[j] > row[best]) best = j;
            FUZZ_CHECK(best == pr->answer.index);
        }
        attn_trace_free(&tr);
    }
    if (cmp->kind == LESSON_CMP_CONFIG && small_trace(&tr, l, i, t.n, &cmp->cfg) == ATTN_OK) attn_trace_free(&tr);
    attn_tokens_free(&t);
}

static void check_lesson(const lesson *l) {
    FUZZ_CHECK(lesson_id(l) != NULL && is_id(lesson_id(l)));
    FUZZ_CHECK(lesson_title(l) != NULL && lesson_title(l)[0] != '\0' && valid_utf8(lesson_title(l)));
    FUZZ_CHECK(lesson_lang(l) != NULL && lesson_lang(l)[0] != '\0' && valid_utf8(lesson_lang(l)));
    int n = lesson_page_count(l);
    FUZZ_CHECK(n >= 1 && n <= LESSON_MAX_PAGES);
    FUZZ_CHECK(lesson_page_at(l, -1) == NULL && lesson_page_at(l, n) == NULL);
    FUZZ_CHECK(lesson_find_page(l, "") == -1);
    attn_weights w;
    FUZZ_CHECK(lesson_page_weights(l, n, &lesson_page_at(l, 0)->cfg, &w) == 0);
    const attn_vocab *v = lesson_vocab(l);
    if (v) {
        FUZZ_CHECK(v->dim >= 1 && v->dim <= LESSON_MAX_FEATURES && v->count >= 0);
        FUZZ_CHECK(v->count == 0 || (v->words != NULL && v->vectors != NULL));
        for (int i = 0; i < v->count; i++) FUZZ_CHECK(v->words[i] != NULL && valid_utf8(v->words[i]));
        for (int i = 0; i < v->dim; i++) FUZZ_CHECK(v->features[i] != NULL && valid_utf8(v->features[i]));
    }
    int line = 0;
    for (int i = 0; i < n; i++) {
        check_page(l, i);
        FUZZ_CHECK(lesson_page_at(l, i)->line > line); // pages in file order
        line = lesson_page_at(l, i)->line;
    }
}

/* Lines of a lesson_check report: "fuzz.lesson:LINE:COL: message\n", valid UTF-8. */
static int check_report(const char *report) {
    int lines = 0;
    FUZZ_CHECK(valid_utf8(report));
    for (const char *s = report; *s; lines++) {
        const char *nl = strchr(s, '\n');
        FUZZ_CHECK(nl != NULL);
        FUZZ_CHECK(strncmp(s, FILENAME ":", strlen(FILENAME ":")) == 0);
        s = nl + 1;
    }
    return lines;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char sentinel; // lesson_parse must set *out, and lesson_check *report, in every case
    const char *text = (const char *)data;
    lesson *l = (lesson *)&sentinel;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = lesson_parse(&l, text, size, FILENAME, &err);

    char *report = &sentinel;
    int pages = -1;
    int n_errs = lesson_check(text, size, FILENAME, &report, &pages);
    FUZZ_CHECK(n_errs >= 0 && n_errs <= LESSON_MAX_ERRORS);

    if (st != ATTN_OK) {
        FUZZ_CHECK(l == NULL);
        FUZZ_CHECK(err.code == st && (st == ATTN_ERR_PARSE || st == ATTN_ERR_NOMEM));
        FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL && valid_utf8(err.msg));
        FUZZ_CHECK(strncmp(err.msg, FILENAME ":", strlen(FILENAME ":")) == 0);
        FUZZ_CHECK(n_errs >= 1 && pages == 0);
        if (st == ATTN_ERR_PARSE) {
            // lesson_check reports every error in file order (past the limit, one more line
            // says how many more there are); lesson_parse the first
            FUZZ_CHECK(report != NULL);
            int lines = check_report(report);
            FUZZ_CHECK(lines == n_errs || (n_errs == LESSON_MAX_ERRORS && lines == n_errs + 1 &&
                                           strstr(report, "attnviz lists at most") != NULL));
            FUZZ_CHECK(strncmp(report, err.msg, strlen(err.msg)) == 0 && report[strlen(err.msg)] == '\n');
        }
        free(report);
        return 0;
    }
    FUZZ_CHECK(l != NULL);
    FUZZ_CHECK(n_errs == 0 && report == NULL && pages == lesson_page_count(l));
    check_lesson(l);
    lesson_free(l);
    lesson_free(NULL); // a no-op
    return 0;
}
