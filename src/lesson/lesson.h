/* lesson.h — lessons: plain-text files of pages that walk a learner through
 * self-attention, each page with narrative text and directives that set up
 * the live figure (sentence, configuration, step, highlight, a question, a
 * split view). lessons/README.md documents the format for teachers.
 *
 * Ownership: lesson_parse / lesson_load allocate one lesson that owns every
 * string, page, paragraph, vocabulary word and matrix reachable from it.
 * Everything the accessors return is borrowed and lives until lesson_free.
 * Nothing here prints, exits or uses SDL; errors come back as attn_status with
 * the message "file:line:column: message" (lines and columns count from 1,
 * columns in characters).
 *
 * Layer 4 (src/lesson): includes src/util, src/core and src/model. */
#ifndef ATTN_LESSON_H
#define ATTN_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_err.h"
#include "model_run.h"

#define LESSON_MAX_BYTES (1u << 20) /* bytes in one lesson file */
#define LESSON_MAX_PAGES 256
#define LESSON_MAX_FEATURES ATTN_MAX_D_MODEL
#define LESSON_MAX_ERRORS 100 /* lesson_check stops collecting after this many */
#define LESSON_MAX_MEMORY (64u << 20) /* what one parsed lesson may hold; past it, an error
                                         names the line (a window holds two, and a reload a third) */

/* ---- narrative text ---------------------------------------------------- */

typedef enum {
    LESSON_PARA_TEXT, /* an ordinary paragraph: its lines joined into one */
    LESSON_PARA_ITEM, /* one "- " list item, without the dash */
    LESSON_PARA_CODE  /* a ``` block: lines kept verbatim, joined with '\n' */
} lesson_para_kind;

typedef enum {
    LESSON_SPAN_EMPH, /* written *like this* */
    LESSON_SPAN_CODE, /* written `like this` */
    LESSON_SPAN_REF   /* written {like this}: a step or a number the page computes (lesson_ref) */
} lesson_span_kind;

/* A styled stretch of a paragraph's text, in bytes. The markers (* ` { }) and
 * escaping backslashes are already removed from the text, so a GUI draws the
 * text as it is and styles [start, start + len); a REF span's text is the
 * reference as written ("weights 它 鸟"), which a GUI replaces with what it
 * refers to (see lesson_ref). Spans never overlap and come in order; text
 * outside every span is plain. */
typedef struct {
    lesson_span_kind kind;
    int start, len;
    int ref;       /* REF: index into the page's refs */
    int line, col; /* where it is written in the file */
} lesson_span;


typedef struct {
    lesson_para_kind kind;
    bool after_reveal;     /* written after the page's @reveal: shown once the learner has answered */
    const char *text;      /* UTF-8, NUL-terminated, markers removed */
    const char *code_lang; /* CODE: the word after ``` ("python", "c"), else "" */
    int n_spans;           /* 0 for CODE */
    const lesson_span *spans;
    int line; /* where it starts in the file */
} lesson_para;

/* ---- directives, resolved against the page's sentence ------------------- */

/* A token a page names. index is 0-based in the page's own sentence; text lets
 * a GUI find the token again after the learner edits the sentence (see
 * lesson_find_token). */
typedef struct {
    int index;        /* -1 when not given */
    const char *text; /* the token's text, NULL when not given */
} lesson_tokref;

/* What a {reference} in a page's text stands for: resolved against the page's
 * sentence, and computed by whoever shows the page, on the trace it shows,
 * so the text never quotes a number the figure does not show. */
typedef enum {
    LESSON_REF_STEP,     /* {step scores}: the rail's number and name of a step ("3 · Scores QKᵀ") */
    LESSON_REF_CELL,     /* {weights 它 鸟}, {scores 它 鸟 head=1}, {q 它 2}: one cell, as the figure shows it */
    LESSON_REF_REST,     /* {rest 它 鸟 动物}: the sum of a weights row without the keys named */
    LESSON_REF_MACS,     /* {macs scores}: the multiply-adds the core counted for a step */
    LESSON_REF_MEAN_MAX, /* {mean-max} / {mean-max compare}: the mean of the rows' largest weights */
    LESSON_REF_TOKENS,   /* {n}: how many tokens the sentence has */
    LESSON_REF_TOP,      /* {top 它}: the key a row's weights are largest on (its label) */
    LESSON_REF_RATIO,    /* {ratio 它 鸟 动物}: a row's weight on one key over its weight on another */
    LESSON_REF_ANSWER,   /* {answer 它}: a model page's answer at a row (a word, or the token pointed to) */
    LESSON_REF_ACCURACY  /* {accuracy}: a model page's held-out accuracy, from its training record */
} lesson_ref_kind;

#define LESSON_REF_MAX_KEYS 4 /* tokens a REST reference may leave out */

typedef struct {
    lesson_ref_kind kind;
    int step;                 /* STEP, MACS: the attn_step */
    int stage;                /* CELL: the matrix, an attn_stage (a model_stage on a model page) */
    int head;                 /* CELL, REST, MEAN_MAX, TOP, RATIO: 0-based (as @predict's head=) */
    int layer;                /* on a model page: the layer (0-based, layer=L), -1: the page's; else -1 */
    lesson_tokref row;        /* CELL, REST, TOP, RATIO, ANSWER: the row's token */
    lesson_tokref col;        /* CELL of a token×token stage: the column's token */
    int col_dim;              /* CELL of the other stages: the column (0-based; for probs and logits a word's index), else -1 */
    int n_keys;               /* REST: the tokens left out; RATIO: 2, the key over the other */
    lesson_tokref keys[LESSON_REF_MAX_KEYS];
    bool exact;               /* CELL, REST: 3 significant digits instead of the cells' 2 decimals */
    bool compare;             /* MEAN_MAX: of the page's @compare view */
    int line, column;         /* where it is written, for messages */
} lesson_ref;

typedef enum {
    LESSON_HL_NONE,
    LESSON_HL_TOKEN,  /* a: a token (its label, its row of X) */
    LESSON_HL_ROW,    /* a: a query row of the n×n matrices */
    LESSON_HL_COLUMN, /* a: a key column */
    LESSON_HL_CELL    /* a: the row (query), b: the column (key) */
} lesson_highlight_kind;

typedef struct {
    lesson_highlight_kind kind;
    lesson_tokref a, b;
} lesson_highlight;

/* Predict before reveal: "which token will query attend to most, in head?"
 * answer is optional; when given, the parser checks the page's own weights
 * really make it the largest weight of the query's row. */
typedef struct {
    bool on;
    lesson_tokref query;
    int head;
    int layer;            /* on a model page: the layer asked about (0-based), -1: the page's */
    lesson_tokref answer; /* index -1 when the page gives none */
} lesson_predict;

typedef enum {
    LESSON_CMP_NONE,
    LESSON_CMP_CONFIG, /* the same page with cfg changed ("scale=off") */
    LESSON_CMP_HEADS   /* two heads of the same run side by side */
} lesson_compare_kind;

typedef struct {
    lesson_compare_kind kind;
    attn_config cfg;    /* CONFIG: the page's configuration with the changes applied */
    int head_a, head_b; /* HEADS */
    const char *label;  /* the directive's text as written, e.g. "scale=off" */
} lesson_compare;

typedef struct {
    const char *id; /* stable, [A-Za-z0-9_-]; pairs pages across languages */
    const char *title;
    int line; /* of its "=== page:" line */
    int n_paras;
    const lesson_para *paras;
    int n_refs;
    const lesson_ref *refs; /* the {references} of its paragraphs (lesson_span.ref) */
    const char *sentence; /* the page's @sentence, else the lesson's */
    int n_tokens;         /* tokens of sentence with the lesson's vocabulary */
    attn_config cfg;      /* the lesson's @config with the page's on top */
    int step;             /* attn_step (@step: 1–8 or a name), or -1 when not given */
    lesson_highlight highlight;
    lesson_predict predict;
    lesson_compare compare;
    int n_keep;          /* @features (the page's, else the lesson's): labels this page talks about, */
    const char *const *keep; /* most important first; they stay when labels thin out */
    bool random_weights; /* @random-weights: the page ignores the lesson's designs */
    bool has_reveal;     /* @reveal: its paragraphs after it wait for the learner's answer */
    double gain;         /* its gain (1 when not given) */
    /* @model: a trained model instead of the one designed layer */
    const char *model_name; /* the file as written, or NULL: the page shows its own layer */
    const model *model;     /* it, read (owned by the lesson), or NULL when it was not found or not read */
    const char *model_path; /* where it was read from, or NULL */
    const char *model_why;  /* when model is NULL: where it was looked for, or why it could not be read */
    int layer;              /* @layer (0-based), or -1: the model's last */
    bool backward;          /* @backward: the backward pass on the scale, mask and softmax steps */
    bool readout;           /* @step: readout (or 9): the model's answer after its last layer */
    const char *train_task; /* @train TASK, else the model's task (or NULL): what the training view (F3) offers */
} lesson_page;

typedef struct lesson lesson; /* opaque */

/* ---- parsing ------------------------------------------------------------ */

/* Parses a whole lesson (text of len bytes; filename is used in messages).
 * On success *out owns the lesson. On error *out is NULL and err holds the
 * first error in file order as "file:line:column: message"
 * (ATTN_ERR_PARSE; ATTN_ERR_NOMEM when memory ran out). */
attn_status lesson_parse(lesson **out, const char *text, size_t len, const char *filename, attn_err *err);

/* Reads path (at most LESSON_MAX_BYTES) and parses it; errors as above, or
 * ATTN_ERR_IO when the file cannot be read. */
attn_status lesson_load(lesson **out, const char *path, attn_err *err);

/* Checks a lesson and collects every error (up to LESSON_MAX_ERRORS), in file
 * order. Returns the number of errors listed (0: valid). *report gets a
 * malloc'd text with one "file:line:column: message\n" line per error — and,
 * when more were found than listed, a last line saying how many more from
 * where — or NULL when there is none (or memory ran out: the count is still
 * right). *n_pages (may be NULL) gets the page count of a valid lesson, else 0. */
int lesson_check(const char *text, size_t len, const char *filename, char **report, int *n_pages);

/* Frees l and everything it owns. NULL is a no-op. */
void lesson_free(lesson *l);

/* ---- the lesson --------------------------------------------------------- */

const char *lesson_id(const lesson *l);
const char *lesson_title(const lesson *l);
const char *lesson_lang(const lesson *l); /* as written after "lang:", e.g. "zh" */
const char *lesson_sha256(const lesson *l); /* hex SHA-256 of the bytes it was parsed from */
int lesson_page_count(const lesson *l);
const lesson_page *lesson_page_at(const lesson *l, int i); /* NULL when out of range */
int lesson_find_page(const lesson *l, const char *id);     /* index, or -1 */

/* The lesson's vocabulary (features named, one vector per word), or NULL when
 * it has none. Its words also make multi-character tokens (动物, 因为). */
const attn_vocab *lesson_vocab(const lesson *l);

/* Fills *out with the designed matrices of page i that fit cfg (a page's own
 * @weights first, then the lesson's; with @random-weights and a gain other
 * than 1, the seeded random weights times the gain when cfg's seed and sizes
 * are the page's). Matrices that are not designed or do not fit stay NULL, so
 * attn_trace_run draws them at random. Pointers are borrowed from l. Returns
 * how many matrices were filled in. */
int lesson_page_weights(const lesson *l, int i, const attn_config *cfg, attn_weights *out);

/* The names the lesson gives the columns of the designed matrices that
 * lesson_page_weights picks for page i under cfg (the first line of their
 * @weights blocks): out->mat[m][h] (W_Q's names Q's columns, W_V's V's and
 * Z's), NULL where a matrix is not designed, does not fit or names none.
 * Returns how many are named. */
typedef struct {
    const char *const *mat[ATTN_MAT_COUNT][ATTN_MAX_HEADS];
} lesson_names;
int lesson_page_names(const lesson *l, int i, const attn_config *cfg, lesson_names *out);

/* Runs page i: its sentence (or sentence/len when sentence is not NULL), its
 * configuration, the lesson's vocabulary and the page's weights. *out as for
 * attn_trace_run (zeroed or freed before; free with attn_trace_free). */
attn_status lesson_page_trace(attn_trace *out, const lesson *l, int i, const char *sentence, size_t len,
                              attn_err *err);

/* Runs page i's @compare view (its settings with the @compare's changes),
 * as lesson_page_trace; ATTN_ERR_RANGE when the page compares no settings. */
attn_status lesson_page_compare_trace(attn_trace *out, const lesson *l, int i, attn_err *err);

/* Runs page i's model on its sentence (or sentence/len when not NULL) with
 * the targets a view shows (model_run_view; query < 0: the pronoun, else
 * the first token). ATTN_ERR_RANGE when the page has no model (or it was
 * not found). */
attn_status lesson_page_run(model_result *out, const lesson *l, int i, const char *sentence, size_t len, int query,
                            bool *labelled, attn_err *err);

/* The layer a page's model shows: pg->layer, or the model's last. */
int lesson_page_layer(const lesson_page *pg);

/* Index of ref's token in t: ref->index when that token has ref's text, else
 * the first token with that text, else -1. */
int lesson_find_token(const attn_tokens *t, const lesson_tokref *ref);

#endif
