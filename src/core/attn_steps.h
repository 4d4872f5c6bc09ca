/* attn_steps.h — what each step of the walkthrough shows: one table that the
 * window, every exporter and the CLI loop over.
 *
 * A step shows operands and results, each a matrix of the trace with an id
 * (attn_step_matrix), a file name and a TeX name (attn_steps.def); the
 * screen names are UI strings (MAT_<ID>, DEF_<ID>), so core holds ids, not
 * words. A step has a key ("1" … "8") and a file stem ("qkv"); the sub-step
 * RoPE between the projection and the scores is a row with key "2b" and stem
 * "rope", optional (shown only with cfg.rope), and steps 1–8 keep their keys
 * (see attn_steps.c): whatever a learner reads numbers a step by its key.
 *
 * Layer 2 (src/core): no SDL, no printing, no exit. */
#ifndef ATTN_STEPS_H
#define ATTN_STEPS_H

#include <stdbool.h>

#include "attn.h"

/* Where a step matrix's rows or columns come from (what labels them). */
typedef enum {
    ATTN_AXIS_TOKENS, /* one per token */
    ATTN_AXIS_DIMS,   /* d_model or d_k dimensions (X's: its features, when named) */
    ATTN_AXIS_CONCAT  /* heads · d_k: head h's d_k columns after head h-1's */
} attn_axis;

/* What ATTN_STEP_MAT's "what it is" adds to an attn_matrix: a weight, not a stage. */
#define ATTN_SM_WEIGHT 100

typedef enum {
#define ATTN_STEP_MAT(id, file, tex, what, rows, cols) ATTN_SM_##id,
#include "attn_steps.def"
#undef ATTN_STEP_MAT
    ATTN_SM_COUNT
} attn_step_matrix;

/* How a step shows one of its matrices (flags). */
enum {
    ATTN_SHOW_WINDOW_ONLY = 1, /* drawn, not exported: it is an earlier step's export (X beside Q/K/V) */
    ATTN_SHOW_TRANSPOSED = 2,  /* drawn transposed (Kᵀ above Q·Kᵀ) */
    ATTN_SHOW_DEFINED = 4      /* titled with its definition on screen (DEF_<ID>: "S = QKᵀ") */
};

#define ATTN_STEP_MAX_SHOWN 7

typedef struct {
    attn_step_matrix m;
    unsigned show; /* ATTN_SHOW_* flags */
} attn_shown;

/* One row of the step table. */
typedef struct {
    const char *key;                       /* what texts number it by: "1" … "8" (a sub-step: "2b") */
    const char *name;                      /* the word a lesson's @step names it by: "tokens", "qkv" … */
    const char *slug;                      /* its exports' file stem after the number: "embeddings", "qkv" … */
    attn_stage last;                       /* the stages it computes end here (QKV: V, multi-head: output) */
    bool optional;                         /* shown only when a setting turns it on (attn_step_shown) */
    int operands, results;                 /* how many of each … */
    attn_shown shown[ATTN_STEP_MAX_SHOWN]; /* … operands first, then results, in reading order */
} attn_step_info;

/* The row of step s (NULL out of range). Borrowed, static. */
const attn_step_info *attn_step_get(attn_step s);

/* true when step s is shown under c (every step but an optional one whose
 * setting is off: 2b needs c->rope; c may be NULL: no optional step). */
bool attn_step_shown(attn_step s, const attn_config *c);

/* The next shown step after s in direction dir (+1, −1) under c, or s at
 * either end. */
attn_step attn_step_next(attn_step s, int dir, const attn_config *c);

/* "1" … "8", "2b": what texts and --steps number step s by ("" out of range). */
const char *attn_step_key(attn_step s);

/* The step whose key is the len bytes at key, or -1. */
int attn_step_from_key(const char *key, size_t len);

/* The step numbered k (1 … 8: its key is k), or -1: what "step 3", a number
 * key and @step 3 mean. */
int attn_step_numbered(int k);

/* What step s shows for its table's matrix m under c: with RoPE the scores
 * step reads the rotated q and k (Q → q_rot, K → k_rot); else m. */
attn_step_matrix attn_step_matrix_under(attn_step_matrix m, attn_step s, const attn_config *c);

/* "X", "S_scaled", "concat" …: the matrix's file name ("" out of range). */
const char *attn_step_matrix_file(attn_step_matrix m);

/* "X", "S'", "\\tilde{S}" …: its TeX symbol ("" out of range). */
const char *attn_step_matrix_tex(attn_step_matrix m);

/* Its row and column axes. */
void attn_step_matrix_axes(attn_step_matrix m, attn_axis *rows, attn_axis *cols);

/* true for the matrices that exist once per head (W_Q … V, S … Z). */
bool attn_step_matrix_per_head(attn_step_matrix m);

/* The trace stage m is, or -1 for a weight matrix. */
int attn_step_matrix_stage(attn_step_matrix m);

/* The weight matrix m is (ATTN_MAT_*), or -1 for a stage. */
int attn_step_matrix_weight(attn_step_matrix m);

/* m's values in t for head h (ignored for whole-layer matrices), rows and
 * columns in *rows and *cols (as stored: K, not Kᵀ). Borrowed from t; NULL
 * (0 × 0) when h or m is out of range. */
const double *attn_step_matrix_values(const attn_trace *t, attn_step_matrix m, int h, int *rows, int *cols);

#endif
