/* model_run.h — one sentence through a trained model, for showing it: each
 * layer as the core's own attn_trace (so every view, attn_explain and export
 * works per layer unchanged), the residuals, the readout, the prediction and,
 * with targets, the loss and the gradient of every stage and parameter. */
#ifndef MODEL_RUN_H
#define MODEL_RUN_H

#include "model.h"

/* A target as a learner names it: a row and the answer's word (for pointer,
 * the word must occur exactly once in the sentence; its position is the answer). */
typedef struct {
    int pos;           /* the row, from 0 */
    const char *token; /* the answer, a vocabulary word */
} model_target_spec;

typedef struct {
    int n;                                    /* tokens */
    int ids[MODEL_MAX_LEN];                   /* their vocabulary indices */
    attn_trace layer[MODEL_MAX_LAYERS];       /* layer l's trace: X = its input, the model's weights (owned) */
    const double *embed;                      /* (n, d_model) E[token], the first part of layer 0's X */
    const double *pos;                        /* (n, d_model) the positions added to it (zeros for none) */
    const double *residual[MODEL_MAX_LAYERS]; /* (n, d_model) X + output of layer l: layer l+1's X */
    const double *logits, *probs;             /* (n, vocab) token objective; NULL for pointer */
    const double *avg;                        /* (n, n) the last layer's weights averaged over heads */
    int predicted[MODEL_MAX_LEN];             /* the vocabulary index predicted at each row */
    int n_targets;                            /* targets given (0: no loss, no gradients) */
    model_target targets[MODEL_MAX_LEN];      /* resolved: row and vocabulary index or position */
    double loss;                              /* mean loss over the targets */
    model_params grad;                        /* ∂L/∂ every parameter (views into grad_block) */
    const double *d_x[MODEL_MAX_LAYERS];      /* (n, d_model) ∂L/∂X of layer l */
    const double *d_output[MODEL_MAX_LAYERS]; /* (n, d_model) ∂L/∂output of layer l (= ∂L/∂residual) */
    model_ws ws_;                             /* the computation behind the pointers (owned) */
    double *grad_block_;                      /* owned */
    double *embed_block_;                     /* owned: embed and pos */
} model_result;

/* Tokenizes sentence (len bytes) with m's vocabulary, runs every layer and,
 * with targets (count may be 0), the loss and the backward. *out must be
 * zeroed or freed; it borrows nothing from the caller but m, which must
 * outlive it. Errors: the tokenizer's and model_tokenize's, a target row
 * outside the sentence or given twice, a target word not in the vocabulary
 * or (pointer) not exactly once in the sentence, a masked target, a stage or
 * loss that overflowed. On error *out is left freed. */
attn_status model_run(model_result *out, const model *m, const char *sentence, size_t len,
                      const model_target_spec *targets, int count, attn_err *err);

/* The same with the targets already resolved (rows and answers as
 * model_target holds them: a vocabulary index, or for pointer a position),
 * as task_label gives them. Errors as model_run, and a target out of range. */
attn_status model_run_targets(model_result *out, const model *m, const char *sentence, size_t len,
                              const model_target *targets, int count, attn_err *err);

/* The targets a view of sentence r shows the backward pass for: the task's
 * own answers when m's task can label the sentence (task_label: for
 * referent-*, the referent at the pronoun), else the model's prediction at
 * row query (clamped). Writes them into out (MODEL_MAX_LEN entries), sets
 * *labelled, and returns their count (at least 1). r: a run of m (targets
 * or not). */
int model_view_targets(const model *m, const model_result *r, int query, model_target *out, bool *labelled);

/* model_run of sentence, then again with model_view_targets' targets for
 * query (< 0: the pronoun, else the first token): a view's run. */
attn_status model_run_view(model_result *out, const model *m, const char *sentence, size_t len, int query,
                           bool *labelled, attn_err *err);

/* Frees what r owns and zeroes it. NULL is a no-op. */
void model_result_free(model_result *r);

/* The matrix of stage (an attn_stage or model_stage) of layer and head in r,
 * borrowed from r, with its shape in *rows, *cols; NULL (shape 0×0) when r
 * has no such matrix (readout of a pointer model, a gradient without
 * targets, avg of a layer but the last, an index out of range). */
const double *model_result_stage(const model_result *r, const model *m, int stage, int layer, int head,
                                 int *rows, int *cols);

/* true when stage (an attn_stage or model_stage) has one matrix per head. */
bool model_stage_per_head(int stage);

/* Every stage's gradient of head h of layer l (after a run with targets),
 * borrowed from r. */
const attn_head_grad *model_result_head_grad(const model_result *r, int l, int h);

/* ---- explaining a cell ---------------------------------------------------------- */

typedef enum {
    MODEL_ST_RESIDUAL = ATTN_STAGE_COUNT, /* after the core's x … output */
    MODEL_ST_LOGITS,
    MODEL_ST_PROBS,
    MODEL_ST_D_WEIGHTS,
    MODEL_ST_D_SCALED,
    MODEL_ST_AVG, /* (n, n) the last layer's weights averaged over heads: a pointer model's answer */
    MODEL_STAGE_COUNT
} model_stage;

/* "residual", "logits", "probs", "d_weights", "d_scaled", "avg", or the core's names
 * (attn_stage_name) for the stages below ATTN_STAGE_COUNT; and back (-1). */
const char *model_stage_name(int stage);
int model_stage_from_name(const char *name);

/* The gradient the backward view shows on step s: MODEL_ST_D_WEIGHTS (∂L/∂A)
 * on the softmax step, MODEL_ST_D_SCALED (∂L/∂S′, which the mask passes
 * through) on the scale and mask steps; -1 on every other step (it has no
 * backward view). The window, the copy and the exports all ask here. */
int model_step_grad(attn_step s);

typedef enum {
    MODEL_EX_CORE,      /* a stage of the layer's trace: core holds attn_explain's answer */
    MODEL_EX_EMBED,     /* X of layer 0: a = E[token][c], b = the position's value */
    MODEL_EX_COPY,      /* X of a later layer: the previous layer's residual, a */
    MODEL_EX_RESIDUAL,  /* a = X, b = output; value = a + b */
    MODEL_EX_LOGITS,    /* core.kind DOT: Σ_c x_L[i][c]·U[c][v] + b_U[v] */
    MODEL_EX_PROBS,     /* core.kind SOFTMAX over the logits row */
    MODEL_EX_D_WEIGHTS, /* core.kind DOT: Σ_c dZ[i][c]·V[j][c], plus a: the loss's own term (pointer) */
    MODEL_EX_D_SCALED,  /* grad: A_ij, dA_ij, Σ_k A_ik·dA_ik */
    MODEL_EX_AVG        /* core.kind DOT: terms[h].a = head h's A_ij, b = 1/heads; value = their sum */
} model_explain_kind;

typedef struct {
    model_explain_kind kind;
    int stage, layer, head, row, col;   /* the cell, as asked */
    double value;                       /* the cell as stored */
    double a, b;                        /* EMBED, COPY, RESIDUAL, D_WEIGHTS: see the kinds */
    attn_explanation core;              /* CORE, LOGITS, PROBS, D_WEIGHTS */
    attn_softmax_grad_explanation grad; /* D_SCALED */
} model_explanation;

/* Explains cell (row, col) of stage (an attn_stage or model_stage) of layer
 * and head in r. The gradient stages need targets. Returns ATTN_OK or
 * ATTN_ERR_RANGE naming what is out of range. */
attn_status model_explain(model_explanation *e, const model_result *r, const model *m, int stage, int layer,
                          int head, int row, int col, attn_err *err);

#endif
