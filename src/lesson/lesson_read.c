/* lesson_read.c — pass 1 of the lesson parser: the file's lines become pages,
 * paragraphs (with their emphasis and code spans), blocks (@vocab, @weights,
 * ``` code) and raw directives, which lesson.c interprets. Also the arena and
 * the small text helpers both passes use. */
#include "lesson_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "utf8.h"

/* ---- arena ---------------------------------------------------------------- */

#define ARENA_CHUNK 65536

/* Zeroed memory that lives until lsn_arena_free; NULL (and a->failed) when out of memory. */
void *lsn_arena_alloc(arena *a, size_t size) {
    size_t unit = sizeof(max_align_t);
    size = (size + unit - 1) / unit * unit;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        if (a->limit && (cap > a->limit || a->total > a->limit - cap)) {
            a->failed = a->over_limit = true;
            return NULL;
        }
        b = malloc(sizeof *b + cap);
        if (!b) {
            a->failed = true;
            return NULL;
        }
        a->total += cap;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

void lsn_arena_free(arena *a) {
    while (a->head) {
        arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

char *lsn_arena_strndup(arena *a, const char *s, size_t n) {
    char *d = lsn_arena_alloc(a, n + 1);
    if (d) memcpy(d, s, n);
    return d;
}

/* Returns arr with room for element count (doubling into a new arena block when
 * full; the old copy stays in the arena until it is freed). */
void *lsn_arena_grow(arena *a, void *arr, int count, int *cap, size_t elem) {
    if (count < *cap) return arr;
    int ncap = *cap ? *cap * 2 : 8;
    void *n = lsn_arena_alloc(a, elem * (size_t)ncap);
    if (!n) return NULL;
    if (count) memcpy(n, arr, elem * (size_t)count);
    *cap = ncap;
    return n;
}

const char *const lsn_dir_names[D_KINDS] = {
    "sentence",
    "config",
    "step",
    "highlight",
    "predict",
    "compare",
    "random-weights",
    "reveal",
    "features",
    "model",
    "layer",
    "backward",
    "train",
    "try",
    "edited",
    "own",
    "roles",
    "view",
    "hf",
    "missing",
};

/* ---- errors and columns --------------------------------------------------- */

/* A new error of p at line:col, or NULL (past the limit, counted; out of memory). */
static lerr *new_err(parser *p, int line, int col) {
    lerrs *e = &p->errs;
    if (e->n >= LESSON_MAX_ERRORS) { // kept count only: the report says more follow, and from where
        if (e->dropped++ == 0) e->drop_line = line, e->drop_col = col;
        return NULL;
    }
    if (e->n == e->cap) {
        int ncap = e->cap ? e->cap * 2 : 16;
        lerr *nv = realloc(e->v, sizeof *nv * (size_t)ncap);
        if (!nv) {
            p->nomem = true;
            return NULL;
        }
        e->v = nv;
        e->cap = ncap;
    }
    lerr *r = &e->v[e->n];
    r->line = line;
    r->col = col;
    r->seq = e->n++;
    attn_err_clear(&r->e);
    return r;
}

/* Cuts r's message to 400 bytes (on a character boundary): with the file name and the place
 * before it, the first error is still whole in an attn_err, as in the report. */
static void cut_msg(lerr *r) {
    if (strlen(r->e.msg) < 400) return;
    r->e.msg[399] = '\0';
    utf8_trim_partial(r->e.msg);
}

void lsn_add_err(parser *p, int line, int col, const char *fmt, ...) {
    lerr *r = new_err(p, line, col);
    if (!r) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->e.msg, 400, fmt, ap);
    va_end(ap);
    r->e.code = ATTN_ERR_PARSE;
    // a long quote may be cut inside a character: drop the partial one, so the message stays UTF-8
    size_t bad = utf8_find_invalid(r->e.msg, strlen(r->e.msg));
    if (bad != (size_t)-1) r->e.msg[bad] = '\0';
}

void lsn_add_msg(parser *p, int line, int col, attn_msg id, ...) {
    lerr *r = new_err(p, line, col);
    if (!r) return;
    va_list ap;
    va_start(ap, id);
    attn_fail_vat(&r->e, ATTN_ERR_PARSE, NULL, id, ap);
    va_end(ap);
    cut_msg(r);
}

void lsn_add_err_of(parser *p, int line, int col, attn_msg lead, const attn_err *why) {
    const char *words = attn_msg_english(lead);
    if (why->id == ATTN_MSG_NONE) { // English only: as it is, after the lead's English
        lsn_add_err(p, line, col, "%s%s%s", words, *words ? " " : "", why->msg);
        return;
    }
    lerr *r = new_err(p, line, col);
    if (!r) return;
    r->e = *why;
    r->e.at[0] = '\0';
    r->e.lead = lead;
    r->e.code = ATTN_ERR_PARSE;
    if (*words) {
        attn_strbuf m;
        attn_sb_init(&m);
        attn_sb_printf(&m, "%s %s", words, why->msg);
        if (attn_sb_ok(&m) && m.data) snprintf(r->e.msg, sizeof r->e.msg, "%s", m.data);
        attn_sb_free(&m);
        utf8_trim_partial(r->e.msg);
    }
    cut_msg(r);
}

/* Columns count characters: one per UTF-8 lead byte from start to at. */
int lsn_count_chars(const char *start, const char *at) {
    int c = 0;
    for (const char *q = start; q < at; q++) c += ((unsigned char)*q & 0xC0) != 0x80;
    return c;
}

static int col_at(const parser *p, const char *at) {
    return 1 + lsn_count_chars(p->ln, at);
}

void *lsn_nomem_check(parser *p, void *ptr) {
    if (!ptr) p->nomem = true;
    return ptr;
}

/* ---- small text helpers --------------------------------------------------- */

static bool is_space(char c) {
    return c == ' ' || c == '\t';
}

const char *lsn_skip_spaces(const char *s, const char *end) {
    while (s < end && is_space(*s)) s++;
    return s;
}

const char *lsn_trim_end(const char *s, const char *end) {
    while (end > s && is_space(end[-1])) end--;
    return end;
}

/* true when s[0..n) starts with the NUL-terminated prefix. */
bool lsn_starts_with(const char *s, size_t n, const char *prefix) {
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

bool lsn_word_is(const char *w, size_t n, const char *s) {
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

/* Next whitespace-separated word of [*s, end): sets *w and *n, advances *s.
 * false when none is left. */
bool lsn_next_word(const char **s, const char *end, const char **w, size_t *n) {
    const char *q = lsn_skip_spaces(*s, end);
    if (q == end) return false;
    const char *b = q;
    while (q < end && !is_space(*q)) q++;
    *w = b;
    *n = (size_t)(q - b);
    *s = q;
    return true;
}

/* Reads a whole decimal number ("2", "-0.5", "1e-3", with U+2212 as a minus)
 * locale-independently: the digits and the exponent go to strtod without a
 * decimal point, which reads the same in every locale. Past 40 significant
 * digits the rest only moves the point (a double holds 17). */
lsn_num lsn_parse_number(const char *s, size_t n, double *out) {
    char buf[96];
    size_t i = 0, k = 0;
    if (n >= 3 && memcmp(s, "\xE2\x88\x92", 3) == 0) {
        buf[k++] = '-';
        i = 3;
    } else if (i < n && (s[i] == '-' || s[i] == '+')) {
        if (s[i] == '-') buf[k++] = '-';
        i++;
    }
    int digits = 0, kept = 0, exp10 = 0;
    bool dot = false;
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            digits++;
            if (kept == 0 && s[i] == '0') { // a leading zero: only where the point is
                if (dot) exp10--;
            } else if (kept < 40) {
                buf[k++] = s[i], kept++;
                if (dot) exp10--;
            } else if (!dot) {
                exp10++;
            }
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (digits == 0) return LSN_NUM_NOT;
    if (kept == 0) buf[k++] = '0';
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int sign = 1, e = 0, ed = 0;
        if (i < n && (s[i] == '-' || s[i] == '+')) sign = s[i++] == '-' ? -1 : 1;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ed++)
            if (e < 10000) e = e * 10 + (s[i] - '0');
        if (ed == 0) return LSN_NUM_NOT;
        exp10 += sign * e;
    }
    if (i != n) return LSN_NUM_NOT;
    snprintf(buf + k, sizeof buf - k, "e%d", exp10);
    double v = strtod(buf, NULL);
    if (!isfinite(v) || fabs(v) > ATTN_MAX_ABS) return LSN_NUM_TOO_LARGE;
    *out = v;
    return LSN_NUM_OK;
}

/* Reads a whole number of digits only (no sign) in [lo, hi]. */
bool lsn_parse_int(const char *s, size_t n, long long lo, long long hi, long long *out) {
    return n > 0 && s[0] >= '0' && s[0] <= '9' && attn_parse_int(s, n, lo, hi, out) == ATTN_INT_OK;
}

/* true for [A-Za-z0-9_-]+. */
static bool is_id(const char *s, size_t n) {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

/* The first or last code point of valid UTF-8 text (0 when empty). */
static uint32_t first_cp(const char *s, size_t n) {
    uint32_t cp = 0;
    return utf8_decode(s, n, &cp) ? cp : 0;
}

static uint32_t last_cp(const char *s, size_t n) {
    size_t i = n;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) i--;
    return i > 0 ? first_cp(s + i - 1, n - i + 1) : 0;
}

/* ---- paragraphs and inline markup ----------------------------------------- */

static void add_span(parser *p, lesson_span_kind kind, size_t start, size_t len, int col) {
    if (p->n_spans == p->cap_spans) {
        int ncap = p->cap_spans ? p->cap_spans * 2 : 8;
        lesson_span *nv = realloc(p->spans, sizeof *nv * (size_t)ncap);
        if (!nv) {
            p->nomem = true;
            return;
        }
        p->spans = nv;
        p->cap_spans = ncap;
    }
    p->spans[p->n_spans++] = (lesson_span){kind, (int)start, (int)len, -1, p->line, col};
}

/* Copies s[0..n) into the paragraph, dropping the backslash of \* \` \\ \@ \{ \}. */
static void append_unescaped(parser *p, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && strchr("*`\\@{}", s[i + 1])) i++;
        attn_sb_append(&p->para, &s[i], 1);
    }
}

/* Finds the closing marker of a span that opens at s[i] (no escapes inside
 * code; \* does not close emphasis). Returns its index or n. */
static size_t find_close(const char *s, size_t n, size_t i, char mark) {
    char close = mark == '{' ? '}' : mark;
    for (size_t j = i + 1; j < n; j++) {
        if (mark != '`' && s[j] == '\\' && j + 1 < n) {
            j++;
            continue;
        }
        if (s[j] == close) return j;
    }
    return n;
}

/* Appends one line of narrative: *emphasis*, `code` and {references}
 * become spans (each opens and closes on the same line). */
static void inline_line(parser *p, const char *s, size_t n) {
    size_t plain = 0;            // start of the pending plain run
    const char *counted = p->ln; // the spans' columns, counted on from the last one: linear in the line
    int col = 1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            i++;
            continue;
        }
        if (s[i] == '}') {
            lsn_add_msg(p, p->line, col_at(p, s + i), ATTN_MSG_LSN_BRACE_CLOSE);
            return;
        }
        if (s[i] != '*' && s[i] != '`' && s[i] != '{') continue;
        char mark = s[i];
        size_t j = find_close(s, n, i, mark);
        if (j == n) {
            lsn_add_msg(p, p->line, col_at(p, s + i),
                        mark == '*'   ? ATTN_MSG_LSN_EMPH_UNCLOSED
                        : mark == '`' ? ATTN_MSG_LSN_CODE_SPAN_UNCLOSED
                                      : ATTN_MSG_LSN_REF_UNCLOSED);
            return;
        }
        if (j == i + 1 && mark == '{') {
            lsn_add_msg(p, p->line, col_at(p, s + i),
                        ATTN_MSG_LSN_REF_EMPTY);
            return;
        }
        if (j == i + 1) {
            lsn_add_msg(p, p->line, col_at(p, s + i), mark == '*' ? ATTN_MSG_LSN_EMPH_EMPTY : ATTN_MSG_LSN_CODE_EMPTY);
            return;
        }
        append_unescaped(p, s + plain, i - plain);
        size_t start = p->para.len;
        if (mark == '`') attn_sb_append(&p->para, s + i + 1, j - i - 1);
        else append_unescaped(p, s + i + 1, j - i - 1);
        lesson_span_kind kind = mark == '*' ? LESSON_SPAN_EMPH : mark == '`' ? LESSON_SPAN_CODE
                                                                             : LESSON_SPAN_REF;
        col += lsn_count_chars(counted, s + i + 1);
        p->l->columns_walked += (size_t)(s + i + 1 - counted);
        counted = s + i + 1;
        add_span(p, kind, start, p->para.len - start, col);
        plain = j + 1;
        i = j;
    }
    append_unescaped(p, s + plain, n - plain);
}

static void end_para(parser *p) {
    if (!p->in_para) return;
    p->in_para = false;
    page_rec *pg = p->page;
    lesson_para *para = lsn_nomem_check(p, PUSH(&p->l->mem, pg->paras, pg->pub.n_paras, pg->cap_paras));
    char *text =
        lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, p->para.data ? p->para.data : "", p->para.len));
    lesson_span *spans = NULL;
    if (p->n_spans) {
        spans = lsn_nomem_check(p, lsn_arena_alloc(&p->l->mem, sizeof *spans * (size_t)p->n_spans));
        if (spans) memcpy(spans, p->spans, sizeof *spans * (size_t)p->n_spans);
    }
    if (para && text) {
        *para = (lesson_para){p->para_kind, pg->reveal_read && !p->para_edited, pg->own_open && !p->para_edited, p->para_edited,
                              text, "", spans ? p->n_spans : 0, spans, p->para_line, pg->missing_open != 0};
        if (p->para_kind == LESSON_PARA_CODE) para->code_lang = p->code_lang ? p->code_lang : "";
    }
    if (!attn_sb_ok(&p->para)) p->nomem = true;
    attn_sb_free(&p->para);
    p->n_spans = 0;
    p->para_edited = false;
}

static void begin_para(parser *p, lesson_para_kind kind) {
    end_para(p);
    p->in_para = true;
    p->para_kind = kind;
    p->para_line = p->line;
}

/* A line of narrative text (s: without leading spaces). "- " starts a list
 * item; other lines continue the paragraph or item being read. Lines join with
 * a space, except next to a CJK (wide) character. */
static void text_line(parser *p, const char *s, const char *end) {
    if (end - s >= 2 && s[0] == '-' && s[1] == ' ') {
        begin_para(p, LESSON_PARA_ITEM);
        s = lsn_skip_spaces(s + 2, end);
    } else if (!p->in_para) {
        begin_para(p, LESSON_PARA_TEXT);
    }
    size_t n = (size_t)(end - s);
    if (p->para.len > 0 && n > 0 && utf8_cp_width(last_cp(p->para.data, p->para.len)) < 2 &&
        utf8_cp_width(first_cp(s, n)) < 2)
        attn_sb_append(&p->para, " ", 1);
    inline_line(p, s, n);
}

/* ---- blocks --------------------------------------------------------------- */

static const char *blk_name(const parser *p) {
    return p->blk == BLK_VOCAB ? "@vocab" : p->blk == BLK_WEIGHTS ? "@weights"
                                                                  : "```";
}

/* Reports a block that the file (or another section) ends before its @end. */
static void unterminated(parser *p) {
    if (p->blk == BLK_CODE)
        lsn_add_msg(p, p->blk_line, p->blk_col, ATTN_MSG_LSN_CODE_UNCLOSED);
    else
        lsn_add_msg(p, p->blk_line, p->blk_col, ATTN_MSG_LSN_BLOCK_UNCLOSED,
                    blk_name(p));
}

static void finish_block(parser *p) {
    design_mat *m = p->mat;
    if (p->blk == BLK_WEIGHTS && !p->blk_discard && m && m->names && m->rows > 0 && !m->broken &&
        m->n_names != m->cols)
        lsn_add_msg(p, m->names_line, m->names_col, m->n_names == 1 ? ATTN_MSG_LSN_NAMES_COLUMNS_1 : ATTN_MSG_LSN_NAMES_COLUMNS,
                    m->n_names, attn_matrix_name(m->kind), m->cols);
    if (p->blk == BLK_CODE) {
        end_para(p);
    } else if (p->blk == BLK_WEIGHTS && !p->blk_discard && p->mat && p->mat->rows == 0 && !p->mat->broken) {
        lsn_add_msg(p, p->mat->line, p->mat->col, ATTN_MSG_LSN_WEIGHTS_NO_ROWS,
                    attn_matrix_name(p->mat->kind));
    } else if (p->blk == BLK_VOCAB && !p->blk_discard && !p->vocab_header) {
        lsn_add_msg(p, p->blk_line, p->blk_col,
                    ATTN_MSG_LSN_VOCAB_EMPTY);
    }
    p->blk = BLK_NONE;
    p->mat = NULL;
}

/* Reads "numbers..." from [s, end) into *out (a growable arena array);
 * returns how many, or -1 after reporting a word that is not a number. */
static int read_numbers(parser *p, const char *s, const char *end, double **arr, int *n, int *cap) {
    const char *w;
    size_t wn;
    int count = 0;
    while (lsn_next_word(&s, end, &w, &wn)) {
        double v;
        lsn_num got = lsn_parse_number(w, wn, &v);
        int shown = (int)utf8_cut(w, wn, 60); // a quoted word is cut between characters
        if (got == LSN_NUM_TOO_LARGE) {
            lsn_add_msg(p, p->line, col_at(p, w),
                        ATTN_MSG_LSN_NUMBER_LARGE, shown, w);
            return -1;
        }
        if (got != LSN_NUM_OK) {
            lsn_add_msg(p, p->line, col_at(p, w),
                        ATTN_MSG_LSN_NOT_A_NUMBER, shown, w);
            return -1;
        }
        double *slot = lsn_nomem_check(p, PUSH(&p->l->mem, *arr, *n, *cap));
        if (!slot) return -1;
        *slot = v;
        count++;
    }
    return count;
}

/* Splits "label: numbers" at the last colon (numbers never contain one). */
static const char *split_label(const char *s, const char *end, const char **label_end) {
    const char *colon = NULL;
    for (const char *q = s; q < end; q++)
        if (*q == ':') colon = q;
    *label_end = colon ? lsn_trim_end(s, colon) : s;
    return colon ? colon + 1 : s;
}

static void vocab_header(parser *p, const char *s, const char *end) {
    lesson *l = p->l;
    if (memchr(s, ':', (size_t)(end - s))) {
        lsn_add_msg(p, p->line, col_at(p, s),
                    ATTN_MSG_LSN_VOCAB_FIRST);
        p->blk_discard = true; // its rows cannot be read without the features
        return;
    }
    const char *w;
    size_t wn;
    while (lsn_next_word(&s, end, &w, &wn)) {
        if (l->n_features == LESSON_MAX_FEATURES) { // the rows cannot be read: like an unreadable header
            lsn_add_msg(p, p->line, col_at(p, w), ATTN_MSG_LSN_VOCAB_FEATURES_MAX,
                        LESSON_MAX_FEATURES, ATTN_MAX_D_MODEL);
            l->n_features = 0;
            p->vocab_header = p->blk_discard = true;
            return;
        }
        const char **slot = lsn_nomem_check(p, PUSH(&l->mem, l->features, l->n_features, l->cap_features));
        if (slot) *slot = lsn_nomem_check(p, lsn_arena_strndup(&l->mem, w, wn));
    }
    p->vocab_header = true;
}

static void vocab_row(parser *p, const char *s, const char *end) {
    lesson *l = p->l;
    const char *word_end;
    const char *nums = split_label(s, end, &word_end);
    if (nums == s || word_end == s) {
        lsn_add_msg(p, p->line, col_at(p, s), ATTN_MSG_LSN_VOCAB_ROW);
        return;
    }
    int before = l->n_vectors;
    int got = read_numbers(p, nums, end, &l->vectors, &l->n_vectors, &l->cap_vectors);
    if (got < 0) {
        l->n_vectors = before;
        return;
    }
    if (got != l->n_features) {
        l->n_vectors = before;
        lsn_add_msg(p, p->line, col_at(p, lsn_skip_spaces(nums, end)),
                    got == 1 ? ATTN_MSG_LSN_VOCAB_NUMBERS_1 : ATTN_MSG_LSN_VOCAB_NUMBERS, (int)(word_end - s), s, got,
                    l->n_features);
        return;
    }
    vocab_word *vw = lsn_nomem_check(p, PUSH(&l->mem, l->words, l->n_words, l->cap_words));
    if (vw) *vw = (vocab_word){lsn_arena_strndup(&l->mem, s, (size_t)(word_end - s)), p->line, col_at(p, s)};
}

/* A @weights block's first line may name its columns instead (words, no
 * colon, not numbers): Q's columns on W_Q's block, and so on. */
static bool weights_header(parser *p, const char *s, const char *end) {
    design_mat *m = p->mat;
    const char *w, *q = s;
    size_t wn;
    double v;
    if (m->rows > 0 || m->names || memchr(s, ':', (size_t)(end - s))) return false;
    while (lsn_next_word(&q, end, &w, &wn))
        if (lsn_parse_number(w, wn, &v) != LSN_NUM_NOT) return false; // a row without its label (or a slip): read as numbers
    m->names_line = p->line;
    m->names_col = col_at(p, s);
    for (q = s; lsn_next_word(&q, end, &w, &wn);) {
        for (int i = 0; i < m->n_names; i++)
            if (lsn_word_is(w, wn, m->names[i])) {
                lsn_add_msg(p, p->line, col_at(p, w), ATTN_MSG_LSN_COLUMN_TWICE, (int)wn, w);
                m->broken = true;
                return true;
            }
        const char **slot = lsn_nomem_check(p, PUSH(&p->l->mem, m->names, m->n_names, m->cap_names));
        if (slot) *slot = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, w, wn));
    }
    return true;
}

static void weights_row(parser *p, const char *s, const char *end) {
    design_mat *m = p->mat;
    if (weights_header(p, s, end)) return;
    const char *label_end;
    const char *nums = split_label(s, end, &label_end);
    int got = read_numbers(p, nums, end, &m->v, &m->n_v, &m->cap_v);
    if (got < 0) {
        m->broken = true; // a missing row would also be reported as a wrong shape and shifted labels
        return;
    }
    if (got == 0) {
        lsn_add_msg(p, p->line, col_at(p, s), ATTN_MSG_LSN_ROW_NUMBERS,
                    attn_matrix_name(m->kind));
        m->broken = true;
        return;
    }
    if (m->rows > 0 && got != m->cols) {
        m->n_v -= got;
        m->broken = true;
        lsn_add_msg(p, p->line, col_at(p, lsn_skip_spaces(nums, end)),
                    got == 1 ? ATTN_MSG_LSN_ROW_LENGTH_1 : ATTN_MSG_LSN_ROW_LENGTH, attn_matrix_name(m->kind), got, m->cols);
        return;
    }
    m->cols = got;
    int cap = m->cap_notes;
    row_note *note = lsn_nomem_check(p, PUSH(&p->l->mem, m->notes, m->rows, cap));
    m->cap_notes = cap;
    if (note) {
        note->line = p->line;
        note->col = col_at(p, s);
        if (nums != s) note->label = lsn_arena_strndup(&p->l->mem, s, (size_t)(label_end - s));
    }
}

/* One line inside @vocab or @weights (s..end trimmed, not blank). */
static void block_line(parser *p, const char *s, const char *end) {
    if (p->blk_discard) return;
    if (p->blk == BLK_VOCAB) {
        if (!p->vocab_header) vocab_header(p, s, end);
        else vocab_row(p, s, end);
    } else {
        weights_row(p, s, end);
    }
}

/* ---- directives ----------------------------------------------------------- */

static scope *cur_scope(parser *p) {
    return p->page ? &p->page->sc : &p->l->top;
}

/* "@weights head H NAME" or "@weights NAME" (W_O, b_O). */
static void open_weights(parser *p, const char *args, const char *end) {
    p->blk = BLK_WEIGHTS;
    p->blk_discard = true; // until the header is understood
    const char *s = args, *w = end;
    size_t wn = 0;
    long long head = -1;
    bool have = lsn_next_word(&s, end, &w, &wn);
    if (have && lsn_word_is(w, wn, "head")) {
        const char *hw = end;
        size_t hn = 0;
        if (!lsn_next_word(&s, end, &hw, &hn) || !lsn_parse_int(hw, hn, 0, ATTN_MAX_HEADS - 1, &head)) {
            lsn_add_msg(p, p->line, col_at(p, hw),
                        ATTN_MSG_LSN_WEIGHTS_HEAD,
                        ATTN_MAX_HEADS - 1);
            return;
        }
        have = lsn_next_word(&s, end, &w, &wn);
        if (!have) w = end;
    }
    int kind = have ? attn_matrix_from_name(w, wn) : -1;
    const char *extra = lsn_skip_spaces(s, end);
    if (kind < 0 || extra != end) {
        lsn_add_msg(p, p->line, col_at(p, kind < 0 ? w : extra),
                    ATTN_MSG_LSN_WEIGHTS_MATRIX);
        return;
    }
    bool per_head = attn_matrix_per_head((attn_matrix)kind);
    if (per_head != (head >= 0)) {
        lsn_add_msg(p, p->line, col_at(p, w), per_head ? ATTN_MSG_LSN_WEIGHTS_SAY_HEAD : ATTN_MSG_LSN_WEIGHTS_SHARED,
                    attn_matrix_name((attn_matrix)kind), attn_matrix_name((attn_matrix)kind));
        return;
    }
    scope *sc = cur_scope(p);
    for (int i = 0; i < sc->n_mats; i++)
        if ((int)sc->mats[i].kind == kind && sc->mats[i].head == (int)head) {
            lsn_add_msg(p, p->line, col_at(p, args), per_head ? ATTN_MSG_LSN_MAT_TWICE_HEAD : ATTN_MSG_LSN_MAT_TWICE,
                        attn_matrix_name((attn_matrix)kind), sc->mats[i].line);
            return;
        }
    design_mat *m = lsn_nomem_check(p, PUSH(&p->l->mem, sc->mats, sc->n_mats, sc->cap_mats));
    if (!m) return;
    *m = (design_mat){.kind = (attn_matrix)kind, .head = (int)head, .line = p->line, .col = col_at(p, args)};
    p->mat = m;
    p->blk_discard = false;
}

static void open_vocab(parser *p, const char *args, const char *end) {
    lesson *l = p->l;
    p->blk = BLK_VOCAB;
    p->blk_discard = true;
    p->vocab_header = false;
    if (args != end) {
        lsn_add_msg(p, p->line, col_at(p, args),
                    ATTN_MSG_LSN_VOCAB_ARGS);
    } else if (p->page) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_VOCAB_TOP);
    } else if (l->has_vocab) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_VOCAB_TWICE, l->vocab_line);
    } else {
        l->has_vocab = true;
        l->vocab_line = p->line;
        p->blk_discard = false;
    }
}

/* "@name: args" (the colon may be left out). s: the line from its '@'. */
static void directive_line(parser *p, const char *s, const char *end) {
    const char *name = s + 1, *q = name;
    while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '-' || *q == '_')) q++;
    size_t nn = (size_t)(q - name);
    if (q < end && *q == ':') q++;
    const char *args = lsn_skip_spaces(q, end);
    end_para(p);
    p->blk_line = p->line;
    p->blk_col = 1;
    if (lsn_word_is(name, nn, "vocab")) {
        open_vocab(p, args, end);
        return;
    }
    if (lsn_word_is(name, nn, "weights")) {
        open_weights(p, args, end);
        return;
    }
    if (lsn_word_is(name, nn, "end")) {
        if (p->page && p->page->own_open) p->page->own_open = 0;              // the end of @own
        else if (p->page && p->page->missing_open) p->page->missing_open = 0; // the end of @missing
        else lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_END_ALONE);
        return;
    }
    int kind = -1;
    for (int k = 0; k < D_KINDS; k++)
        if (lsn_word_is(name, nn, lsn_dir_names[k])) kind = k;
    if (kind < 0) {
        lsn_add_msg(p, p->line, 1,
                    ATTN_MSG_LSN_DIRECTIVE_UNKNOWN,
                    (int)nn, name);
        return;
    }
    if (!p->page && kind != D_SENTENCE && kind != D_CONFIG && kind != D_FEATURES && kind != D_ROLES) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_DIR_IN_PAGE, lsn_dir_names[kind]);
        return;
    }
    if (kind == D_REVEAL) p->page->reveal_read = true; // the paragraphs after it wait for the answer
    if (kind == D_ROLES && p->page) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_ROLES_TOP);
        return;
    }
    if (kind == D_OWN) {
        if (p->page->missing_open) lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_OWN_IN_MISSING);
        else if (p->page->own_open) lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_OWN_OPEN);
        else if (args != end) lsn_add_msg(p, p->line, col_at(p, args), ATTN_MSG_LSN_OWN_ARGS);
        p->page->own_open = p->line;
        return;
    }
    if (kind == D_MISSING) {
        if (p->page->missing_open || p->page->own_open)
            lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_MISSING_OPEN);
        else if (args != end)
            lsn_add_msg(p, p->line, col_at(p, args), ATTN_MSG_LSN_MISSING_ARGS);
        p->page->missing_open = p->line;
        return;
    }
    if (kind == D_EDITED) { // its text is a paragraph of its own, with references
        begin_para(p, LESSON_PARA_TEXT);
        p->para_edited = true;
        inline_line(p, args, (size_t)(end - args));
        end_para(p);
    }
    scope *sc = cur_scope(p);
    raw_dir *d = lsn_nomem_check(p, PUSH(&p->l->mem, sc->dirs, sc->n_dirs, sc->cap_dirs));
    if (d)
        *d = (raw_dir){(dir_kind)kind, lsn_arena_strndup(&p->l->mem, args, (size_t)(end - args)), p->line,
                       col_at(p, args)};
}

/* ---- headers and pages ---------------------------------------------------- */

/* An @own the page left open. */
static void own_left_open(parser *p) {
    if (p->page && p->page->missing_open) {
        lsn_add_msg(p, p->page->missing_open, 1, ATTN_MSG_LSN_MISSING_UNCLOSED);
        p->page->missing_open = 0;
    }
    if (!p->page || !p->page->own_open) return;
    lsn_add_msg(p, p->page->own_open, 1, ATTN_MSG_LSN_OWN_UNCLOSED);
    p->page->own_open = 0;
}

static void start_page(parser *p, const char *s, const char *end) {
    lesson *l = p->l;
    const char *id = lsn_skip_spaces(s + strlen("=== page:"), end);
    end_para(p);
    own_left_open(p);
    if (!is_id(id, (size_t)(end - id))) {
        lsn_add_msg(p, p->line, col_at(p, id),
                    ATTN_MSG_LSN_PAGE_ID,
                    (int)(end - id), id);
    }
    for (int i = 0; i < l->n_pages; i++)
        if (lsn_word_is(id, (size_t)(end - id), l->pages[i].pub.id))
            lsn_add_msg(p, p->line, col_at(p, id), ATTN_MSG_LSN_PAGE_ID_USED,
                        l->pages[i].pub.id, l->pages[i].pub.line);
    if (l->n_pages == LESSON_MAX_PAGES) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_MAX_PAGES, LESSON_MAX_PAGES,
                    LESSON_MAX_PAGES + 1);
        p->stop = true; // read no further: the pages before are still checked
        return;
    }
    page_rec *pg = lsn_nomem_check(p, PUSH(&l->mem, l->pages, l->n_pages, l->cap_pages));
    if (!pg) return;
    pg->pub.id = lsn_nomem_check(p, lsn_arena_strndup(&l->mem, id, (size_t)(end - id)));
    pg->pub.title = "";
    pg->pub.line = p->line;
    pg->pub.gain = 1.0;
    pg->pub.step = -1; // the page names no step: the app keeps the learner's
    p->page = pg;
    p->page_titled = false;
}

/* "key: value" header lines: # lesson:, title:, lang:. Returns true when s is one. */
static bool header_line(parser *p, const char *s, const char *end) {
    lesson *l = p->l;
    size_t n = (size_t)(end - s);
    const char **field = NULL, *key = NULL;
    if (lsn_starts_with(s, n, "# lesson:")) field = &l->id, key = "# lesson:";
    else if (lsn_starts_with(s, n, "title:"))
        field = p->page ? &p->page->pub.title : &l->title, key = "title:";
    else if (lsn_starts_with(s, n, "lang:") && !p->page) field = &l->lang, key = "lang:";
    else return false;
    const char *v = lsn_skip_spaces(s + strlen(key), end);
    if (field == &l->id && (p->page || l->n_pages)) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_HEADER_TOP);
        return true;
    }
    if (*field && **field) {
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_KEY_TWICE, key);
        return true;
    }
    if (v == end) lsn_add_msg(p, p->line, col_at(p, v), ATTN_MSG_LSN_KEY_VALUE, key);
    else if (field == &l->id && !is_id(v, (size_t)(end - v)))
        lsn_add_msg(p, p->line, col_at(p, v), ATTN_MSG_LSN_LESSON_ID,
                    (int)(end - v), v);
    // kept even when wrong, so it is not reported missing as well
    *field = lsn_nomem_check(p, lsn_arena_strndup(&l->mem, v, (size_t)(end - v)));
    if (p->page) {
        p->page_titled = true;
        p->page->title_reported = v == end;
    }
    return true;
}

/* ---- pass 1: lines -------------------------------------------------------- */

static void code_line(parser *p, const char *line, const char *end) {
    const char *s = lsn_skip_spaces(line, end), *e = lsn_trim_end(s, end);
    if (e - s == 3 && memcmp(s, "```", 3) == 0) {
        finish_block(p);
        return;
    }
    if (p->code_lines++ > 0) attn_sb_append(&p->para, "\n", 1);
    attn_sb_append(&p->para, line, (size_t)(lsn_trim_end(line, end) - line));
}

static void open_code(parser *p, const char *s, const char *end) {
    begin_para(p, LESSON_PARA_CODE);
    p->para_line = p->line + 1;
    p->blk = BLK_CODE;
    p->code_lines = 0;
    p->blk_line = p->line;
    p->blk_col = col_at(p, s);
    const char *lang = lsn_skip_spaces(s + 3, end);
    p->code_lang = lsn_arena_strndup(&p->l->mem, lang, (size_t)(end - lang));
}

/* Lines that begin a new section end an open @vocab/@weights block early. */
static bool breaks_block(const char *s, size_t n) {
    return lsn_starts_with(s, n, "===") || (n > 0 && s[0] == '@' && !lsn_starts_with(s, n, "@end"));
}

static void page_line(parser *p, const char *s, const char *end) {
    if (!p->page_titled) {
        lsn_add_msg(p, p->line, col_at(p, s),
                    ATTN_MSG_LSN_PAGE_TITLE_FIRST);
        p->page_titled = true; // one report per page
        p->page->title_reported = true;
    }
    if (lsn_starts_with(s, (size_t)(end - s), "```")) open_code(p, s, end);
    else text_line(p, s, end);
}

static void one_line(parser *p, const char *line, const char *end) {
    p->ln = line;
    if (p->blk == BLK_CODE && !lsn_starts_with(line, (size_t)(end - line), "=== page:")) {
        code_line(p, line, end);
        return;
    }
    const char *s = lsn_skip_spaces(line, end), *e = lsn_trim_end(s, end);
    size_t n = (size_t)(e - s);
    if (p->blk != BLK_NONE) {
        if (breaks_block(s, n) || p->blk == BLK_CODE) {
            unterminated(p);
            finish_block(p);
        } else {
            if (n == 4 && memcmp(s, "@end", 4) == 0) finish_block(p);
            else if (n > 0 && !lsn_starts_with(s, n, "//")) block_line(p, s, e);
            return;
        }
    }
    if (lsn_starts_with(s, n, "//")) return; // a comment
    if (n == 0) end_para(p);
    else if (lsn_starts_with(s, n, "=== page:")) start_page(p, s, e);
    else if (lsn_starts_with(s, n, "==="))
        lsn_add_msg(p, p->line, col_at(p, s), ATTN_MSG_LSN_PAGE_START);
    else if (s == line && s[0] == '@') directive_line(p, s, e);
    else if ((!p->page || !p->page_titled) && header_line(p, s, e)) return;
    else if (lsn_starts_with(s, n, "# lesson:"))
        lsn_add_msg(p, p->line, 1, ATTN_MSG_LSN_HEADER_TOP);
    else if (!p->page)
        lsn_add_msg(p, p->line, col_at(p, s), ATTN_MSG_LSN_TEXT_BEFORE_PAGE);
    else page_line(p, s, e);
}

/* Refuses binary files and invalid UTF-8 before anything else is read. */
bool lsn_check_encoding(parser *p, const char *text, size_t len) {
    int line = 1;
    const char *ls = text;
    if (len >= 2 && (memcmp(text, "\xFF\xFE", 2) == 0 || memcmp(text, "\xFE\xFF", 2) == 0)) {
        lsn_add_msg(p, 1, 1,
                    ATTN_MSG_LSN_UTF16);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line++;
            ls = text + i + 1;
        } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) {
            lsn_add_msg(p, line, 1 + lsn_count_chars(ls, text + i),
                        ATTN_MSG_LSN_BINARY, c);
            return false;
        }
    }
    size_t bad = utf8_find_invalid(text, len);
    if (bad == (size_t)-1) return true;
    line = 1;
    ls = text;
    for (size_t i = 0; i < bad; i++)
        if (text[i] == '\n') line++, ls = text + i + 1;
    lsn_add_msg(p, line, 1 + lsn_count_chars(ls, text + bad), ATTN_MSG_LSN_UTF8, attn_utf8_problem_msg(text, len, bad));
    return false;
}

void lsn_read_lines(parser *p, const char *text, size_t len) {
    const char *s = text, *end = text + len;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3; // a byte order mark
    while (s < end && !p->nomem && !p->stop) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        const char *le = (e > s && e[-1] == '\r') ? e - 1 : e;
        p->line++;
        one_line(p, s, le);
        s = nl ? nl + 1 : end;
    }
    if (p->blk != BLK_NONE && !p->stop) {
        unterminated(p);
        finish_block(p);
    }
    end_para(p);
    own_left_open(p);
}
