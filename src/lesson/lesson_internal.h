/* lesson_internal.h — what the two halves of the lesson parser share: the
 * lesson as stored, the parser's state and small helpers. Only for
 * src/lesson/lesson*.c; lesson.h is the public API (it includes lesson_types.h,
 * not this file, and this file not lesson.h: no circle).
 *
 * lesson_read.c: pass 1, the file's lines into pages, paragraphs, blocks and
 * raw directives. lesson.c: pass 2, the directives interpreted per page, and
 * the API. Everything a lesson owns lives in one arena, so freeing a lesson (or
 * a half-built one) is one walk. */
#ifndef ATTN_LESSON_INTERNAL_H
#define ATTN_LESSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson_types.h"
#include "sha256.h"
#include "strbuf.h"

/* ---- arena ---------------------------------------------------------------- */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[]; /* max_align_t keeps every allocation aligned */
} arena_block;

typedef struct {
    arena_block *head;
    size_t total;    /* bytes of every block */
    size_t limit;    /* at most this many in all (0: no limit) */
    bool failed;     /* an allocation failed: the lesson is incomplete */
    bool over_limit; /* ... because the lesson would pass limit */
} arena;

/* Appends a zeroed element to a growable arena array; evaluates to its address
 * or NULL when memory ran out. */
#define PUSH(A, ARR, COUNT, CAP) \
    (((ARR) = lsn_arena_grow((A), (ARR), (COUNT), &(CAP), sizeof *(ARR))) ? &(ARR)[(COUNT)++] : NULL)

void *lsn_arena_alloc(arena *a, size_t size); /* zeroed; NULL (and a->failed) when out of memory or past a->limit */
void lsn_arena_free(arena *a);
char *lsn_arena_strndup(arena *a, const char *s, size_t n);
void *lsn_arena_grow(arena *a, void *arr, int count, int *cap, size_t elem);

/* ---- the lesson as stored ------------------------------------------------ */


typedef struct {
    const char *label; /* the row's "label:" as written, or NULL */
    int line, col;     /* where the row (or its label) starts */
} row_note;

/* One designed matrix from a @weights block. */
typedef struct {
    attn_matrix kind; /* which matrix (attn.h) */
    int head;         /* -1 for W_O and b_O */
    int rows, cols;
    double *v; /* rows × cols */
    int n_v, cap_v;
    row_note *notes; /* one per row */
    int cap_notes;
    int line, col;      /* the @weights line, column of its arguments */
    bool broken;        /* a row was refused (and reported): its shape and labels are not checked */
    const char **names; /* its columns' names, from the block's first line, or NULL */
    int n_names, cap_names;
    int names_line, names_col; /* where that line starts */
} design_mat;

typedef enum {
    D_SENTENCE,
    D_CONFIG,
    D_STEP,
    D_HIGHLIGHT,
    D_PREDICT,
    D_COMPARE,
    D_RANDOM,
    D_REVEAL,
    D_FEATURES,
    D_MODEL,
    D_LAYER,
    D_BACKWARD,
    D_TRAIN,
    D_TRY,
    D_EDITED,
    D_OWN,
    D_ROLES,
    D_VIEW,
    D_HF,
    D_MISSING,
    D_KINDS
} dir_kind;
extern const char *const lsn_dir_names[D_KINDS]; /* "sentence" … "features" */

/* A directive as written; pass 2 interprets it. */
typedef struct {
    dir_kind kind;
    const char *args; /* trimmed copy of what follows "@name:" */
    int line, col;    /* col: the first character of args (or the end of the line) */
} raw_dir;

/* Directives and designs given at one level: the lesson's or a page's. */
typedef struct {
    raw_dir *dirs;
    int n_dirs, cap_dirs;
    design_mat *mats;
    int n_mats, cap_mats;
} scope;

typedef struct {
    lesson_page pub; /* what lesson_page_at hands out */
    scope sc;
    lesson_para *paras; /* pub.paras */
    int cap_paras;
    double *gained[ATTN_MAT_COUNT][ATTN_MAX_HEADS]; /* @random-weights with a gain: W_Q, W_K, W_V, W_O */
    bool title_reported;                            /* pass 1 already said the title is missing */
    bool reveal_read;                               /* pass 1 has read the page's @reveal: paragraphs from here come after it */
    int own_open;                                   /* pass 1 is inside @own … @end (the line of @own, else 0) */
    int missing_open;                               /* pass 1 is inside @missing … @end (its line, else 0) */
    const char **tries;                             /* pub.tries */
    int cap_tries;
    lesson_ref *refs; /* pub.refs */
    int cap_refs;
} page_rec;

typedef struct {
    const char *word;
    int line, col;
} vocab_word;

struct lesson {
    arena mem;
    char sha256[ATTN_SHA256_HEX]; /* of the text it was parsed from */
    const char *id, *title, *lang;
    page_rec *pages;
    int n_pages, cap_pages;
    scope top;            /* before the first page */
    attn_config cfg;      /* the lesson's @config */
    const char *sentence; /* the lesson's @sentence, or NULL */
    bool has_vocab;
    int vocab_line;
    const char **features;
    int n_features, cap_features;
    vocab_word *words;
    int n_words, cap_words;
    double *vectors; /* n_words × n_features */
    int n_vectors, cap_vectors;
    const char **keep; /* the lesson's @features: labels kept first when labels thin out */
    int n_keep;
    const char **word_ptrs; /* words[i].word, for attn_vocab */
    int *word_order;        /* attn_words_sort's index of word_ptrs */
    attn_vocab vocab;
    const char *dir;                /* the folder of the lesson's file: @model is found from here */
    const lesson_model_source *src; /* reads the models pages name, or NULL */
    struct lesson_model_slot {      /* the models its pages read, each file once (by its canonical key) */
        char *key;
        lesson_model *m; /* pages point to it; freed with src->free_model */
    } * models;
    int n_models, cap_models;
    size_t model_bytes; /* what they hold: counts against LESSON_MAX_MEMORY */
};

/* ---- errors --------------------------------------------------------------- */

typedef struct {
    int line, col, seq;
    char msg[400];
} lerr;

typedef struct {
    lerr *v;
    int n, cap;
    int dropped;             /* errors past LESSON_MAX_ERRORS, not kept */
    int drop_line, drop_col; /* where the first of them was */
} lerrs;

/* ---- parser state ------------------------------------------------------- */

typedef enum { BLK_NONE,
               BLK_VOCAB,
               BLK_WEIGHTS,
               BLK_CODE } blk_kind;

typedef struct {
    lesson *l;
    lerrs errs;
    bool nomem;
    bool stop;      /* a limit was passed (and reported): read no further */
    const char *ln; /* the current line (pass 1) */
    int line;
    page_rec *page; /* the current page, NULL before the first */
    bool page_titled;
    /* the paragraph being read */
    bool in_para;
    lesson_para_kind para_kind;
    int para_line;
    bool para_edited; /* the paragraph is the page's @edited text */
    attn_strbuf para;
    lesson_span *spans; /* malloc'd scratch, copied into the arena per paragraph */
    int n_spans, cap_spans;
    /* the block being read */
    blk_kind blk;
    int blk_line, blk_col;
    bool blk_discard;  /* misplaced block: read to its @end, keep nothing */
    bool vocab_header; /* the @vocab block's feature line was read */
    design_mat *mat;   /* the @weights block's matrix */
    const char *code_lang;
    int code_lines;        /* lines read into the open code block */
    bool top_sentence_bad; /* the lesson's @sentence was reported */
    bool top_config_bad;   /* the lesson's @config was reported: pages are not checked */
    int role_features[2];  /* the lesson's @roles: noun= and predicate= features (-1: none) */
    bool checking;         /* lesson_check: a model that is not found is an error (a window only says so) */
} parser;

/* ---- shared helpers (lesson_read.c) ----------------------------------------- */

void lsn_add_err(parser *p, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

int lsn_count_chars(const char *start, const char *at); /* characters (UTF-8 lead bytes) in [start, at) */
void *lsn_nomem_check(parser *p, void *ptr);            /* ptr; marks p out of memory when NULL */
const char *lsn_skip_spaces(const char *s, const char *end);
const char *lsn_trim_end(const char *s, const char *end);
bool lsn_starts_with(const char *s, size_t n, const char *prefix);
bool lsn_word_is(const char *w, size_t n, const char *s);
bool lsn_next_word(const char **s, const char *end, const char **w, size_t *n);
typedef enum { LSN_NUM_OK,
               LSN_NUM_NOT,
               LSN_NUM_TOO_LARGE } lsn_num;
lsn_num lsn_parse_number(const char *s, size_t n, double *out); /* TOO_LARGE: beyond ±1e18 (ATTN_MAX_ABS) */
bool lsn_parse_int(const char *s, size_t n, long long lo, long long hi, long long *out);

/* Pass 1: refuses binary or invalid UTF-8 text (false, with the error added),
 * then reads the lines. */
bool lsn_check_encoding(parser *p, const char *text, size_t len);
void lsn_read_lines(parser *p, const char *text, size_t len);

#endif
