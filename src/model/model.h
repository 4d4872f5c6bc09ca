/* model.h — a small trainable Transformer made of attnviz's own attention
 * layers (attention only, no LayerNorm, no MLP; Elhage et al. 2021):
 *
 *   x₀ = E[token] + positions               (sinusoidal, learned P, or none)
 *   layer l: per head Q, K, V = x·W (+ b), A = softmax(mask(QKᵀ/√d_k)),
 *            Z = A·V; output = concat(Z)·W_O (+ b_O); x_{l+1} = x_l + output
 *   token objective:   logits = x_L·U + b_U, loss = mean −ln softmax(logits)[target]
 *   pointer objective: Ā = the last layer's weights averaged over heads,
 *                      loss = mean −ln Ā[row][target position]
 *
 * Every layer runs the core's attn_head_forward, attn_concat_heads and
 * attn_matmul (one attention implementation); the backward uses the core's
 * per-stage backward functions (attn_grad.h). Numbers are double. Nothing
 * here prints or exits; fallible functions return attn_status with a message
 * in attn_err. */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attn.h"
#include "attn_grad.h"

#define MODEL_MAX_LAYERS 4
#define MODEL_MAX_LEN ATTN_MAX_TOKENS /* longest sentence a model reads */
#define MODEL_MAX_VOCAB 512
#define MODEL_MAX_WORD 64 /* bytes in one vocabulary word */
#define MODEL_NAME_CAP 32 /* bytes for a task name */
/* E, P, each layer's heads (6 each) with W_O and b_O, U and b_U */
#define MODEL_MAX_TENSORS (2 + MODEL_MAX_LAYERS * (ATTN_MAX_HEADS * 6 + 2) + 2)

typedef enum { MODEL_POS_SINUSOIDAL,
               MODEL_POS_LEARNED,
               MODEL_POS_NONE,
               MODEL_POS_ROPE /* nothing added to x₀: each layer rotates its heads' q and k */ } model_pos;
typedef enum { MODEL_OBJ_POINTER,
               MODEL_OBJ_TOKEN } model_objective;

typedef struct {
    int d_model;               /* embedding width, 1..ATTN_MAX_D_MODEL */
    int d_k;                   /* per-head width, 1..ATTN_MAX_D_K */
    int heads;                 /* heads per layer, 1..ATTN_MAX_HEADS */
    int layers;                /* 1..MODEL_MAX_LAYERS */
    model_pos pos;             /* how positions enter x₀ */
    int max_len;               /* longest sentence, 1..MODEL_MAX_LEN (P's rows when learned) */
    attn_mask mask;            /* the same mask in every layer */
    bool scale;                /* divide scores by sqrt(d_k) */
    bool bias;                 /* b_Q, b_K, b_V, b_O exist */
    model_objective objective; /* what the loss reads */
    int kv_heads;              /* grouped-query attention: G kv-heads (attn_config's); 0: one per head */
    double rope_base;          /* pos rope: RoPE's base B (0 read as ATTN_ROPE_BASE: a task's table leaves it out) */
    int pos_offset;            /* run time only (--pos-offset K): the first token sits at position K; never in a
                                  file, 0 in training; learned positions need K + tokens ≤ max_len */
} model_config;

/* Where each parameter lives: views into a block laid out by model_tensors. */
typedef struct {
    double *mat[ATTN_MAT_COUNT][ATTN_MAX_HEADS]; /* [m][h] as attn_weights; W_O, b_O at h 0; biases NULL when off */
} model_layer_params;

typedef struct {
    double *e;                                  /* (vocab, d_model) token embeddings */
    double *p;                                  /* (max_len, d_model) learned positions, else NULL */
    model_layer_params layer[MODEL_MAX_LAYERS]; /* cfg.layers entries */
    double *u;                                  /* (d_model, vocab) readout, NULL for pointer */
    double *b_u;                                /* (vocab) readout bias, NULL for pointer */
} model_params;

/* One tensor of the flat parameter block, in the file's order. */
typedef struct {
    char name[8];   /* "E", "P", "W_Q" … "b_O", "U", "b_U" */
    int layer;      /* 0-based layer, -1 for E, P, U, b_U */
    int head;       /* 0-based head for W_Q … b_V, else -1 */
    int matrix;     /* attn_matrix for layer tensors, else -1 */
    int rows, cols; /* a vector is 1 × cols */
    bool vector;    /* a bias (a flat array in the file) */
    size_t offset;  /* first double in the block */
    bool decay;     /* AdamW decays it (E, P, U and W_*; not biases) */
} model_tensor;

/* What a training left in the file; no time or other run-dependent value. */
typedef struct {
    uint32_t seed;             /* initial weights and example order */
    int steps;                 /* optimiser steps taken */
    int batch;                 /* examples per step */
    double lr;                 /* AdamW learning rate (constant) */
    double weight_decay;       /* AdamW decoupled weight decay */
    double loss;               /* mean loss over the training set after the last step */
    double heldout_accuracy;   /* share of held-out target rows predicted right, 0..1 */
    bool has_referent;         /* referent tasks: referent_attention is meaningful */
    double referent_attention; /* share of held-out sentences whose last-layer strongest weight from the pronoun is on the referent */
} model_training;

typedef struct {
    model_config cfg;                       /* shapes and options */
    char task[MODEL_NAME_CAP];              /* the task it was trained on ("referent-zh") */
    char *probe;                            /* a sentence to show by default (owned) */
    int vocab_count;                        /* words, = E's rows */
    char **vocab;                           /* vocab_count owned words: row i of E, column i of U */
    int n_tensors;                          /* entries in tensor */
    model_tensor tensor[MODEL_MAX_TENSORS]; /* the parameters in file order */
    size_t n_params;                        /* doubles in block */
    double *block;                          /* every parameter (owned) */
    model_params w;                         /* views into block */
    model_training training;                /* the training record */
} model;

/* ---- configuration ---------------------------------------------------- */

/* Names as the command line and the file spell them; the _parse functions
 * return ATTN_ERR_RANGE naming the choices. */
const char *model_pos_name(model_pos p);
attn_status model_pos_parse(model_pos *out, const char *s, attn_err *err);
/* true when the scheme adds a row P to x₀ (sinusoidal, learned); none and
 * rope add nothing there. */
bool model_pos_in_x(model_pos p);
const char *model_objective_name(model_objective o);
attn_status model_objective_parse(model_objective *out, const char *s, attn_err *err);

/* ATTN_OK when every field is in range, else ATTN_ERR_RANGE naming the
 * option as the command line spells it. */
attn_status model_config_check(const model_config *c, attn_err *err);

/* The attention core's configuration of one layer of c (no positional
 * encoding: a layer's X is given). */
void model_attn_config(attn_config *out, const model_config *c);

/* ---- parameters --------------------------------------------------------- */

/* Fills out (MODEL_MAX_TENSORS entries) with the tensors of c with a vocab of
 * vocab words, in file order, and returns how many; *total gets the doubles. */
int model_tensors(model_tensor *out, const model_config *c, int vocab, size_t *total);

/* Points p's views at block, laid out as the tensors say. */
void model_params_bind(model_params *p, double *block, const model_tensor *t, int count);

/* Makes an empty model of c with the given vocabulary (copied), task name and
 * probe: *out owns a zeroed parameter block. Errors: c out of range, a vocab
 * of 0 or more than MODEL_MAX_VOCAB words, an empty, too long or repeated
 * word, memory. On error *out is left empty. */
attn_status model_create(model *out, const model_config *c, const char *const *vocab, int vocab_count,
                         const char *task, const char *probe, attn_err *err);

/* Fills m's parameters from seed: W_* Xavier-uniform, E and P uniform in
 * [-1, 1], U Xavier-uniform, biases 0 (attn_prng_uniform; the same on every
 * platform). */
void model_init_weights(model *m, uint32_t seed);

/* Deep copy of src into *dst (which must not own anything). */
attn_status model_copy(model *dst, const model *src, attn_err *err);

/* Frees what m owns and zeroes it. NULL is a no-op. */
void model_free(model *m);

/* The vocabulary as the core's attn_vocab (words borrowed from m, vectors E),
 * for tokenizing with the vocabulary as the lexicon. */
void model_vocab_view(const model *m, attn_vocab *out);

/* Index of the vocabulary word for a token (exact, then ASCII
 * case-insensitive: "The" is "the"), or -1. */
int model_word_id(const model *m, const char *tok, size_t len);

/* Tokenizes sentence (len bytes) with m's vocabulary as the lexicon into *toks
 * (the caller frees it) and ids (MODEL_MAX_LEN entries). Errors: the
 * tokenizer's, a token not in the vocabulary (named), more tokens than
 * max_len (both named). */
attn_status model_tokenize(const model *m, const char *sentence, size_t len, attn_tokens *toks,
                           int *ids, attn_err *err);

/* ---- one example's forward and backward -------------------------------- */

/* A target row: row is a position of the sentence; target is a vocabulary
 * index (token objective) or a position (pointer objective). */
typedef struct {
    int row;
    int target;
} model_target;

/* The workspace of one example (n <= max_len tokens): every stage of every
 * layer and head, and every stage's gradient. Made once (model_ws_init), then
 * reused for any number of examples: nothing is allocated per example. */
typedef struct {
    model_config cfg;                                 /* the model's configuration */
    attn_config acfg;                                 /* one layer's, for the core */
    int vocab;                                        /* vocabulary size */
    int n;                                            /* tokens of the current example */
    const model_params *w;                            /* the model's parameters (borrowed) */
    model_params g;                                   /* where the parameter gradients are added (views; all NULL: forward only) */
    double *pos;                                      /* (max_len, d_model) the sinusoids, or P, or zeros */
    double *x[MODEL_MAX_LAYERS + 1];                  /* x[l]: (n, d_model) layer l's input; x[layers] the last residual */
    attn_head head[MODEL_MAX_LAYERS][ATTN_MAX_HEADS]; /* weights into the model, stages here */
    double *concat[MODEL_MAX_LAYERS];                 /* (n, heads·d_k) */
    double *output[MODEL_MAX_LAYERS];                 /* (n, d_model) concat·W_O (+ b_O) */
    double *logits;                                   /* (n, vocab) token objective: x_L·U + b_U, on the rows computed */
    double *probs;                                    /* (n, vocab) their row softmax */
    double *avg;                                      /* (n, n) the last layer's weights averaged over heads */
    /* gradients of the stages (zeroed by model_backward) */
    double *dx[MODEL_MAX_LAYERS + 1];                    /* ∂L/∂x[l]; dx[l+1] is also ∂L/∂output of layer l */
    double *d_concat[MODEL_MAX_LAYERS];                  /* ∂L/∂concat */
    attn_head_grad hg[MODEL_MAX_LAYERS][ATTN_MAX_HEADS]; /* every stage of every head */
    double *dlogits;                                     /* (n, vocab) ∂L/∂logits */
    size_t grad_start, grad_len;                         /* the stage gradients' part of block (zeroed per example) */
    double *block;                                       /* the one allocation behind every array above */
} model_ws;

/* Makes a workspace for m. grad: a block shaped like m->block into which
 * model_backward adds the parameter gradients, or NULL (forward only). The
 * workspace borrows m and grad: both must outlive it and not move. */
attn_status model_ws_init(model_ws *ws, const model *m, double *grad, attn_err *err);

/* Frees what ws owns and zeroes it. NULL is a no-op. */
void model_ws_free(model_ws *ws);

/* The position row added to token i's embedding (position cfg.pos_offset + i):
 * P's row when learned, else the sinusoids' (zeros for none and rope). */
const double *model_pos_row(const model_ws *ws, int i);

/* ATTN_OK when n tokens from position m->cfg.pos_offset fit the model: with
 * learned positions the last must be a row of P (offset + n ≤ max_len);
 * else an error with ATTN_MSG_MODEL_POS_OFFSET (worded in every language). */
attn_status model_check_positions(const model *m, int n, attn_err *err);

/* Runs every layer for ids: (n) (vocabulary indices, n <= max_len) and
 * computes Ā for the last layer. Returns ATTN_OK, or ATTN_ERR_NONFINITE
 * naming the layer and stage that overflowed. */
attn_status model_forward(model_ws *ws, const int *ids, int n, attn_err *err);

/* After model_forward: the readout (token objective) on rows [first, first + count):
 * logits and probs. A no-op for pointer. */
void model_readout(model_ws *ws, int first, int count);

/* After model_forward: the loss of the targets, weighted by scale (training
 * passes 1 / the batch's target count, so the batch's loss is a mean), added
 * into *loss; and, when backward is true, every gradient: the stages' are
 * rewritten, the parameters' added into ws->g. Token targets need their
 * readout row (computed here). Errors: a target out of range or masked from
 * its row (ATTN_ERR_RANGE), a loss that is not finite (ATTN_ERR_NONFINITE). */
attn_status model_loss(model_ws *ws, const int *ids, const model_target *t, int count, double scale,
                       bool backward, double *loss, attn_err *err);

/* The prediction at row i after model_forward (and model_readout of row i for
 * token): the vocabulary index of the largest logit, or for pointer the
 * position with the largest Ā (ties to the lowest index). */
int model_predict_row(const model_ws *ws, int i);

#endif
