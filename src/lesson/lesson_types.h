/* lesson_types.h — what a parsed lesson is made of: pages, paragraphs,
 * references, directives, and the source of the models pages name. The
 * parser's public functions are in lesson.h; its internals
 * (lesson_internal.h) need these types without the functions, so the
 * parser's headers include each other in one direction only. */
#ifndef ATTN_LESSON_TYPES_H
#define ATTN_LESSON_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_err.h"

#define LESSON_MAX_BYTES (1u << 20) /* bytes in one lesson file */
#define LESSON_MAX_PAGES 256
#define LESSON_MAX_FEATURES ATTN_MAX_D_MODEL
#define LESSON_MAX_ERRORS 100         /* lesson_check stops collecting after this many */
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
    bool own;              /* written between @own and @end: true only of the page's own sentence, so an
                              edited sentence shows the page's @edited text in its place */
    bool edited;           /* the page's @edited text: shown instead of the @own paragraphs after an edit */
    const char *text;      /* UTF-8, NUL-terminated, markers removed */
    const char *code_lang; /* CODE: the word after ``` ("python", "c"), else "" */
    int n_spans;           /* 0 for CODE */
    const lesson_span *spans;
    int line;     /* where it starts in the file */
    bool missing; /* written between @missing and @end on a page with @hf: shown only when the page's
                     folder was not found (how to get it); the page's other paragraphs with a {heads …}
                     reference are shown only when it was (lesson_para_hf_shown) */
} lesson_para;

/* ---- directives, resolved against the page's sentence ------------------- */

/* A token a page names. index is 0-based in the page's own sentence; text lets
 * a GUI find the token again after the learner edits the sentence (see
 * lesson_find_token). */
/* A token named by its role in the sentence ({weights $pronoun $referent}),
 * found again in every sentence the page shows (lessons/README.md). */
typedef enum {
    LESSON_ROLE_NONE,      /* named by its text */
    LESSON_ROLE_PRONOUN,   /* $pronoun: 它 / it */
    LESSON_ROLE_REFERENT,  /* $referent: the noun the model (or the designed layer) chose for the pronoun */
    LESSON_ROLE_OTHER,     /* $other: the sentence's other noun */
    LESSON_ROLE_PREDICATE, /* $predicate: the word that decides (累, tired, fast) */
    LESSON_ROLE_TOP,       /* $top: the key the pronoun's row weighs most in the layer shown */
    LESSON_ROLE_COUNT
} lesson_role;

typedef struct {
    int index;                           /* -1 when not given */
    const char *text;                    /* the token's text, NULL when not given (or a role) */
    int role;                            /* a lesson_role; then index and text are -1 and NULL */
    int noun_feature, predicate_feature; /* a designed page's @roles: the features of X that mark its
                                            nouns and its predicate (-1: none) */
} lesson_tokref;

/* No token given: what a reference or a question starts from. */
#define LESSON_TOKREF_NONE \
    { .index = -1, .text = NULL, .role = LESSON_ROLE_NONE, .noun_feature = -1, .predicate_feature = -1 }

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
    LESSON_REF_ACCURACY, /* {accuracy}: a model page's held-out accuracy, from its training record */
    LESSON_REF_WORD,     /* {word $other}: a token as the chips label it (for a token named by its role) */
    LESSON_REF_DECODE,   /* {decode FIELD [TOKEN]}: decoding with the KV cache, at a token (default the last) */
    LESSON_REF_TILES,    /* {tiles FIELD B}: the online softmax of a head in blocks of B */
    LESSON_REF_DIFF,     /* {diff STAGE}: the largest |Δ| between the page's stage and its @compare view's */
    LESSON_REF_SETTING,  /* {setting KEY}: one of the page's settings (heads, kv_heads, pos_offset, …) */
    LESSON_REF_HEADS     /* {heads SCORE T}: on a page with @hf, the heads whose head-finder score reaches T */
} lesson_ref_kind;

/* What a {heads …} reference ranks by (src/hf/hf_heads.h's scores, in its order). */
typedef enum {
    LESSON_HEADS_PREV,      /* prev: mean A[i][i−1] */
    LESSON_HEADS_INDUCTION, /* induction: on a repeated random sequence */
    LESSON_HEADS_FIRST,     /* first: the first token's share (an attention sink) */
    LESSON_HEADS_FIELDS
} lesson_heads_field;

/* What a {decode …} reference shows of the token's attn_decode_step. */
typedef enum {
    LESSON_DEC_CELLS,  /* cells: the score cells (dot products) computed for the token, per query head */
    LESSON_DEC_MACS,   /* macs: its multiply-adds, all heads */
    LESSON_DEC_FULL,   /* full: what recomputing the whole causal attention would cost instead */
    LESSON_DEC_CACHE,  /* cache: the KV cache's bytes after it (float64) */
    LESSON_DEC_REAL,   /* real: the same formula for the named real model at 4,096 tokens, fp16, in MiB */
    LESSON_DEC_GROUP,  /* group: query heads per kv-head (heads / kv-heads): how many times the cache shrinks */
    LESSON_DEC_NAME,   /* name: the real model the cache is set beside ("Llama 3 8B") */
    LESSON_DEC_TOKENS, /* tokens: the tokens that model's cache is counted at (4096) */
    LESSON_DEC_FIELDS
} lesson_decode_field;

/* What a {tiles …} reference shows of a head's attn_tiles. */
typedef enum {
    LESSON_TILE_HELD,    /* held: bytes the tiled pass holds at most */
    LESSON_TILE_FULL,    /* full: n²·8, one (n, n) matrix of the ordinary path */
    LESSON_TILE_DIFF,    /* diff: the largest |Δ| / max(1, |z|) between Z_tiled and Z */
    LESSON_TILE_STEPS,   /* steps: (query block, key block) steps */
    LESSON_TILE_SKIPPED, /* skipped: of them, fully masked and skipped */
    LESSON_TILE_FIELDS
} lesson_tiles_field;

/* The view a page opens on beside its step (@view). */
typedef enum {
    LESSON_VIEW_NONE,
    LESSON_VIEW_DECODE, /* @view: decode — the decode view (F5) */
    LESSON_VIEW_TILES   /* @view: tiles B — the tiles view (F4) with blocks of B */
} lesson_view;

#define LESSON_REF_MAX_KEYS 4 /* tokens a REST reference may leave out */

typedef struct {
    lesson_ref_kind kind;
    int step;          /* STEP, MACS: the attn_step */
    int stage;         /* CELL: the matrix, an attn_stage (a model_stage on a model page) */
    int head;          /* CELL, REST, MEAN_MAX, TOP, RATIO: 0-based (as @predict's head=) */
    int layer;         /* on a model page: the layer (0-based, layer=L), -1: the page's; else -1 */
    lesson_tokref row; /* CELL, REST, TOP, RATIO, ANSWER: the row's token */
    lesson_tokref col; /* CELL of a token×token stage: the column's token */
    int col_dim;       /* CELL of the other stages: the column (0-based; for probs and logits a word's index), else -1 */
    int n_keys;        /* REST: the tokens left out; RATIO: 2, the key over the other */
    lesson_tokref keys[LESSON_REF_MAX_KEYS];
    bool exact;       /* CELL, REST: 3 significant digits instead of the cells' 2 decimals */
    bool compare;     /* MEAN_MAX, CELL, DECODE, TILES, SETTING: of the page's @compare view */
    int field;        /* DECODE: a lesson_decode_field; TILES: a lesson_tiles_field; SETTING: an attn setting id */
    int block;        /* TILES: the block size B */
    int line, column; /* where it is written, for messages */
    double threshold; /* HEADS: the score a head must reach (0 < T <= 1); field is a lesson_heads_field */
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
    LESSON_CMP_CONFIG,  /* the same page with cfg changed ("scale=off") */
    LESSON_CMP_HEADS,   /* two heads of the same run side by side */
    LESSON_CMP_SENTENCE /* the page's sentence and another through its model ("sentence TEXT") */
} lesson_compare_kind;

typedef struct {
    lesson_compare_kind kind;
    attn_config cfg;      /* CONFIG: the page's configuration with the changes applied */
    int head_a, head_b;   /* HEADS */
    const char *sentence; /* SENTENCE: the other sentence */
    const char *label;    /* the directive's text as written, e.g. "scale=off" */
} lesson_compare;

/* A model a page names, as its source read it (opaque here; src/page). */
typedef struct lesson_model lesson_model;

typedef struct {
    const char *id; /* stable, [A-Za-z0-9_-]; pairs pages across languages */
    const char *title;
    int line; /* of its "=== page:" line */
    int n_paras;
    const lesson_para *paras;
    int n_refs;
    const lesson_ref *refs; /* the {references} of its paragraphs (lesson_span.ref) */
    const char *sentence;   /* the page's @sentence, else the lesson's */
    int n_tokens;           /* tokens of sentence with the lesson's vocabulary */
    attn_config cfg;        /* the lesson's @config with the page's on top */
    int step;               /* attn_step (@step: 1–8 or a name), or -1 when not given */
    lesson_highlight highlight;
    lesson_predict predict;
    lesson_compare compare;
    int n_keep;              /* @features (the page's, else the lesson's): labels this page talks about, */
    const char *const *keep; /* most important first; they stay when labels thin out */
    bool random_weights;     /* @random-weights: the page ignores the lesson's designs */
    bool has_reveal;         /* @reveal: its paragraphs after it wait for the learner's answer */
    double gain;             /* its gain (1 when not given) */
    /* @model: a trained model instead of the one designed layer */
    const char *model_name;    /* the file as written, or NULL: the page shows its own layer */
    const lesson_model *model; /* it, read (owned by the lesson), or NULL when it was not found or not read */
    int model_layers;          /* its layers (0 without a model) */
    const char *model_path;    /* where it was read from, or NULL */
    const char *model_why;     /* when model is NULL: where it was looked for, or why it could not be read */
    int layer;                 /* @layer (written from 1, kept 0-based), or -1: the model's last */
    bool backward;             /* @backward: the backward pass on the scale, mask and softmax steps */
    bool readout;              /* @step: readout (or 9): the model's answer after its last layer */
    const char *train_task;    /* @train TASK, else the model's task (or NULL): what the training view (F3) offers */
    int n_tries;               /* @try: the sentences the text invites the learner to try, */
    const char *const *tries;  /* each one checked against every reference outside @own */
    bool has_own;              /* some paragraphs hold only for the page's own sentence (@own … @end) */
    lesson_view view;          /* @view: the view the page opens on (decode, tiles B), else NONE */
    int view_block;            /* @view: tiles B: its B */
    /* @hf: a real model's folder (issue 26) beside the designed layer; never an error when missing */
    const char *hf_name; /* the folder as written, or NULL */
    const char *hf_path; /* where it was found (a folder with config.json), or NULL */
    const char *hf_why;  /* when hf_path is NULL: where it was looked for */
} lesson_page;

typedef struct lesson lesson; /* opaque */

/* ---- the models pages name ------------------------------------------------ */

/* The columns of a model's own stage (beyond the core's), for a {STAGE ROW COLUMN} reference. */
typedef enum {
    LESSON_COLS_TOKENS,  /* token × token: a column is a token */
    LESSON_COLS_WORDS,   /* the readout: a column is a word of the model's vocabulary */
    LESSON_COLS_D_MODEL, /* d_model columns */
    LESSON_COLS_D_K      /* d_k columns */
} lesson_cols;

/* What the parser needs to know of a page's model. */
typedef struct {
    attn_config cfg; /* one layer's configuration, the seed its training used */
    int layers;
    const char *probe; /* the sentence a page shows when it names none (borrowed from the model) */
    const char *task;  /* its task's name (borrowed) */
    size_t bytes;      /* the memory it holds: counts against LESSON_MAX_MEMORY */
} lesson_model_facts;

/* Finds, reads and describes the models pages name (src/page implements it).
 * Every function is given; the parser never frees what they borrow. */
typedef struct {
    /* Finds name (as written after @model:) for a lesson in folder dir. true
     * with the path to read into path and its canonical form (one file has
     * one key however it is spelled) into key; false with where it looked
     * into why. */
    bool (*locate)(const char *dir, const char *name, char *path, size_t path_cap, char *key, size_t key_cap,
                   char *why, size_t why_cap);
    /* Reads the model at path (malloc'd; free with free_model), or NULL with why. */
    lesson_model *(*load)(const char *path, char *why, size_t why_cap);
    void (*free_model)(lesson_model *m); /* NULL is a no-op */
    void (*facts)(const lesson_model *m, lesson_model_facts *out);
    /* Tokenizes s (n bytes) with the model's vocabulary into *out (free with attn_tokens_free). */
    attn_status (*tokenize)(const lesson_model *m, const char *s, size_t n, attn_tokens *out, attn_err *err);
    int (*word_id)(const lesson_model *m, const char *w, size_t n); /* index in its vocabulary, or -1 */
    int (*stage_from_name)(const char *name);                       /* a model's own stage (>= ATTN_STAGE_COUNT) or -1 */
    const char *(*stage_name)(int stage);                           /* any stage's name */
    lesson_cols (*stage_cols)(int stage);                           /* a model's own stage's columns */
    /* Runs the model on sentence as a page shows it (query: the row asked
     * about) and copies the weights row query of head of layer into row (at
     * most cap values); *n gets the tokens. */
    attn_status (*weights_row)(const lesson_model *m, const char *sentence, int layer, int head, int query,
                               double *row, int cap, int *n, attn_err *err);
    const char *(*task_find)(const char *name);    /* the task named name (its static name), or NULL */
    const char *(*task_of_file)(const char *base); /* the task a model file is named after, or NULL */
    const char *(*task_names)(void);               /* "a, b, c": for messages */
    /* The held-out sentences of the task named task, one after another, each
     * ending in a NUL, the last followed by another (malloc'd: the caller
     * frees it), or NULL. A page that invites edits (@try) is checked on them. */
    char *(*heldout)(const char *task);
    /* Finds the Hugging Face folder name (as written after @hf:) for a lesson
     * in folder dir: true with the folder into path; false with where it
     * looked into why. May be NULL: then no @hf folder is found. */
    bool (*locate_hf)(const char *dir, const char *name, char *path, size_t path_cap, char *why, size_t why_cap);
} lesson_model_source;

#endif
