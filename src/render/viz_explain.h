/* viz_explain.h — the arithmetic of one cell in the UI's words: the core's
 * explanation (attn_explain: terms and values, no words) as lines of text in
 * the scene's language, for the window's cell-arithmetic panel and exports.
 * Tokens are named as the chips name them ("它", "9:只"), dimensions as the
 * figure's axes do (feature names, 0, 1, …, h1.0), heads from 1. */
#ifndef VIZ_EXPLAIN_H
#define VIZ_EXPLAIN_H

#include <stdbool.h>

#include "attn.h"
#include "model_run.h"

typedef enum {
    VIZ_XL_TITLE,   /* which cell: "A[它, 鸟] · head 1 of 2" */
    VIZ_XL_FORMULA, /* the formula, in symbols */
    VIZ_XL_TERM,    /* one term of a sum */
    VIZ_XL_RESULT,  /* how the terms make the value */
    VIZ_XL_NOTE     /* a sentence (a masked key, scaling off, …) */
} viz_xline_kind;

typedef struct {
    viz_xline_kind kind;
    bool focus;     /* the term of the hovered cell itself (softmax: its key) */
    char text[224]; /* UTF-8 */
} viz_xline;

typedef struct {
    viz_xline *lines; /* n lines in order (owned) */
    int n;
    int first_term; /* index in lines of the first term, n_terms terms in a row */
    int n_terms;
    int focus; /* the term to keep in view (index among the terms) */
} viz_xtext;

/* Words e (an explanation of a cell of t) into *x with ui (the strings of one
 * language, VIZ_STR_COUNT of them) and features (names of X's columns, or
 * NULL). Returns false when memory ran out (x is then empty). */
bool viz_explain_text(viz_xtext *x, const attn_explanation *e, const attn_trace *t, const char *const *ui,
                      const char *const *features);

/* The same for a cell of a model's run (model_explain): the core's cells of
 * its layer as above, with the layer named; the embedding, the residual, the
 * readout, the head average and the gradients in their own words. */
bool viz_explain_model_text(viz_xtext *x, const model_explanation *e, const model_result *r, const model *m,
                            const char *const *ui);

/* Frees what x owns and zeroes it. NULL is a no-op. */
void viz_xtext_free(viz_xtext *x);

struct viz_hf;
/* A real model's X cell (--hf): LayerNorm's arithmetic from hf's ln_* for
 * the cell e names (its title as viz_explain_text words it). */
bool viz_explain_ln_text(viz_xtext *x, const attn_explanation *e, const attn_trace *t, const struct viz_hf *hf,
                         const char *const *ui);

/* The symbol of a stage's matrix as the figures title it: "X", "Q", "S",
 * "S/√dₖ" (or "S" when scale is off), "mask(S)", "A", "Z", "concat", "out". */
const char *viz_stage_symbol(attn_stage s, bool scale);

#endif
