/* attn.h — the attention core: configuration, per-stage functions, the trace
 * that keeps every stage of every head, and the explanation of any cell.
 *
 * Conventions: matrices are row-major arrays of double; each function states
 * its shapes once at the top; outputs come first and sizes last; nothing here
 * allocates except the attn_trace_* functions (which say so).
 *
 * Layer 2 (src/core): includes src/util only. No SDL, no printing, no exit. */
#ifndef ATTN_H
#define ATTN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attn_err.h"
#include "tokenize.h"

#define ATTN_VERSION "0.1.0"

#define ATTN_MAX_D_MODEL 512
#define ATTN_MAX_D_K 128
#define ATTN_MAX_HEADS 8
/* What a trace holds, beyond the settings' ranges above: a trace made from a
 * real model's layer (--hf, src/hf/hf_trace.h) has GPT-2's 12 heads (up to 16:
 * gpt2-medium) of width 64 and up to 256 tokens (ATTN_TRACE_MAX_TOKENS). */
#define ATTN_TRACE_MAX_HEADS 16
#define ATTN_MAX_WINDOW 64
#define ATTN_MAX_ABS 1e18        /* inputs beyond this magnitude are rejected */
#define ATTN_MAX_POS_OFFSET 4096 /* --pos-offset: the first token's position, 0..this */
#define ATTN_ROPE_BASE 10000.0   /* --rope-base's default (LLaMA's theta) */
#define ATTN_MAX_ROPE_BASE 1e9   /* --rope-base: 2..this */

typedef enum {
    ATTN_MASK_NONE,
    ATTN_MASK_CAUSAL,       /* i sees j <= i */
    ATTN_MASK_WINDOW,       /* i sees j with |i - j| <= W */
    ATTN_MASK_CAUSAL_WINDOW /* i sees j with i - W <= j <= i */
} attn_mask_kind;

typedef struct {
    attn_mask_kind kind; /* which pattern */
    int window;          /* W for the window kinds, 1..ATTN_MAX_WINDOW; else unused */
} attn_mask;

typedef struct {
    int d_model;    /* embedding width, 1..512 */
    int d_k;        /* per-head query/key/value width (d_v = d_k), 1..128 */
    int heads;      /* 1..8 */
    uint32_t seed;  /* weight PRNG seed */
    attn_mask mask; /* which scores are hidden before softmax */
    bool scale;     /* divide scores by sqrt(d_k) */
    bool pos_enc;   /* add sinusoidal positional encoding into X */
    int pos_first;  /* … but only into the columns [pos_first, pos_first + pos_count) of X */
    int pos_count;  /*   (pos_count 0: every column, the default) */
    bool bias;      /* add b_Q, b_K, b_V and b_O */
    int kv_heads;   /* G key/value heads shared by groups of heads/G query heads (grouped-query
                       attention; 1: multi-query); 0 means heads (every head its own K, V) */
    /* Positions, with pos_enc (issue 24): the setting `pos` is one scheme —
     * none, sinusoidal (pos_enc) or rope; pos_enc and rope are never both on. */
    bool rope;        /* rotate pairs (2i, 2i+1) of each head's q and k by m·rope_base^(−2i/d_k) */
    double rope_base; /* B of RoPE's angles, 2..1e9 (default 10000) */
    int pos_offset;   /* the first token's position m (sinusoidal and RoPE), 0..4096 (default 0) */
} attn_config;

/* The stages a trace keeps, in computation order. */
typedef enum {
    ATTN_ST_X,
    ATTN_ST_Q,
    ATTN_ST_K,
    ATTN_ST_V,
    ATTN_ST_Q_ROT, /* RoPE only (cfg.rope): q rotated pairwise; attn_trace_stage gives NULL when off */
    ATTN_ST_K_ROT, /* RoPE only: k rotated pairwise */
    ATTN_ST_SCORES,
    ATTN_ST_SCALED,
    ATTN_ST_MASKED,
    ATTN_ST_WEIGHTS,
    ATTN_ST_Z,
    ATTN_ST_CONCAT,
    ATTN_ST_OUTPUT,
    ATTN_STAGE_COUNT
} attn_stage;

/* The steps of the walkthrough, in the rail's order. Every text a learner
 * reads numbers them by their key in the step table ("1" … "8", and "2b" for
 * the optional RoPE step shown only with cfg.rope: attn_step_key). */
typedef enum {
    ATTN_STEP_EMBED,
    ATTN_STEP_QKV,
    ATTN_STEP_ROPE, /* 2b: q and k rotated (only with RoPE) */
    ATTN_STEP_SCORES,
    ATTN_STEP_SCALE,
    ATTN_STEP_MASK,
    ATTN_STEP_SOFTMAX,
    ATTN_STEP_WEIGHTED,
    ATTN_STEP_MULTIHEAD,
    ATTN_STEP_COUNT
} attn_step;

/* How many steps are numbered 1 … 8 (2b has a letter): what comes after the
 * steps is numbered from ATTN_STEP_NUMBERED + 1 (a model's readout is 9,
 * the decode view's file 09-decode). */
#define ATTN_STEP_NUMBERED 8

/* The matrices a layer is made of, each drawn from its own PRNG stream and
 * named as the JSON files and lessons name them. The values are the stream
 * numbers of attn_weight_stream (they fix every seeded weight: do not renumber). */
typedef enum {
    ATTN_MAT_W_Q = 0,
    ATTN_MAT_W_K = 1,
    ATTN_MAT_W_V = 2,
    ATTN_MAT_W_O = 3,
    ATTN_MAT_B_Q = 4,
    ATTN_MAT_B_K = 5,
    ATTN_MAT_B_V = 6,
    ATTN_MAT_B_O = 7,
    ATTN_MAT_COUNT
} attn_matrix;

/* ---- configuration ---------------------------------------------------- */

/* Fills c with the defaults: d_model 8, d_k 4, heads 2, seed 1, no mask,
 * scaling on, positional encoding off, biases off. */
void attn_config_default(attn_config *c);

/* ATTN_OK when every field is in range; otherwise ATTN_ERR_RANGE naming the
 * option (as the command line spells it) and its range. */
attn_status attn_config_check(const attn_config *c, attn_err *err);

/* The number of key/value heads G of c (c->kv_heads, or heads when 0), and
 * the kv-head query head h reads: ⌊h / (heads / G)⌋. */
int attn_kv_heads(const attn_config *c);
int attn_kv_head_of(const attn_config *c, int h);

/* true for the matrices a group of query heads shares under grouped-query
 * attention (W_K, W_V, b_K, b_V). */
bool attn_matrix_kv(attn_matrix m);

/* Sets in c every setting in which changed differs from base: "base with
 * changed's changes, applied to c" (a comparison keeps the learner's other
 * settings). */
void attn_config_apply_changes(attn_config *c, const attn_config *base, const attn_config *changed);

/* The settings in which b differs from a, as b has them ("mask=none
 * scale=off"; "" when none differ), in the words lessons use. Returns bytes
 * written (snprintf semantics). */
size_t attn_config_diff_text(char *out, size_t cap, const attn_config *a, const attn_config *b);

/* Parses "none", "causal", "window:W" or "causal-window:W". */
attn_status attn_mask_parse(attn_mask *out, const char *s, attn_err *err);

/* Writes the mask as attn_mask_parse reads it. Returns bytes written. */
size_t attn_mask_format(char *out, size_t cap, attn_mask m);

/* true when query i may attend to key j under m. */
bool attn_mask_allows(attn_mask m, int i, int j);

/* Short lowercase name of a stage as the CLI spells it ("scores"); and back
 * (returns -1 for an unknown name). */
const char *attn_stage_name(attn_stage s);
int attn_stage_from_name(const char *name);
int attn_stage_from_name_n(const char *name, size_t len); /* the same, for len bytes */

/* true for stages that exist once per head (q, k, v, scores ... z). */
bool attn_stage_per_head(attn_stage s);

/* ---- steps and matrices (one table each: attn_steps.c, attn_config.c) -- */

/* The stage step s computes: its result matrix (X, Q, S, S/√dₖ, masked, A, Z,
 * output). */
attn_stage attn_step_result(attn_step s);

/* The word a lesson's @step names the step by: "tokens", "qkv", "scores",
 * "scale", "mask", "softmax", "sum", "heads"; "" out of range. */
const char *attn_step_name(attn_step s);

/* The file stem of the step's exports: "embeddings", "qkv", "scores",
 * "scale", "mask", "softmax", "weighted-sum", "multi-head"; "" out of range. */
const char *attn_step_slug(attn_step s);

/* The step attn_step_name gives the len bytes at name, or -1. */
int attn_step_from_name(const char *name, size_t len);

/* "W_Q" … "b_O": the matrix's key in JSON files and lessons. */
const char *attn_matrix_name(attn_matrix m);

/* The matrix named len bytes at name (as attn_matrix_name writes it), or -1. */
int attn_matrix_from_name(const char *name, size_t len);

/* true for b_Q … b_O (vectors), false for W_Q … W_O. */
bool attn_matrix_is_bias(attn_matrix m);

/* true for the per-head matrices (W_Q, W_K, W_V and their biases). */
bool attn_matrix_per_head(attn_matrix m);

/* Rows and columns of matrix m under c (a bias is 1 × cols). */
void attn_matrix_shape(attn_matrix m, const attn_config *c, int *rows, int *cols);

/* ---- per-stage functions (any n; no allocation) ----------------------- */

/* out: (n, m) = a: (n, k) · b: (k, m) + bias: (m) (bias may be NULL). */
void attn_matmul(double *out, const double *a, const double *b, const double *bias,
                 int n, int k, int m);

/* s: (n, n) = q: (n, d) · k: (n, d)ᵀ. */
void attn_scores(double *s, const double *q, const double *k, int n, int d);

/* Rows [r0, r1) of the same: s and q point at the whole matrices. */
void attn_scores_rows(double *s, const double *q, const double *k, int r0, int r1, int n, int d);

/* out: (n, n) = s / sqrt(d_k). out may equal s. */
void attn_scale(double *out, const double *s, int n, int d_k);

/* The same for count entries (one row of a decoding step: count = t + 1). */
void attn_scale_count(double *out, const double *s, size_t count, int d_k);

/* out: (n, n) = s where the mask allows, -INFINITY elsewhere. out may equal s. */
void attn_apply_mask(double *out, const double *s, attn_mask m, int n);

/* a: (n, n) = row-wise softmax of s: (n, n); -INFINITY entries get exactly 0.
 * A row with no finite entry is all zeros. out may equal s. */
void attn_softmax_rows(double *a, const double *s, int n);

/* One row of the same: a: (len) = softmax of s: (len) (a decoding step's row). */
void attn_softmax_row(double *a, const double *s, int len);

/* z: (n, d) = a: (n, n) · v: (n, d). */
void attn_weighted_sum(double *z, const double *a, const double *v, int n, int d);

/* Sinusoidal positional encoding (Vaswani et al. 2017): pe: (n, d_model),
 * pe[p][2i] = sin(p / 10000^(2i/d_model)), pe[p][2i+1] = cos(same angle). */
void attn_positional_encoding(double *pe, int n, int d_model);

/* One row (position p) of the same encoding: row: (d_model). */
void attn_positional_row(double *row, int p, int d_model);

/* RoPE's angle for pair i (dimensions 2i, 2i+1) at position m:
 * m·base^(−2i/d) (attn_math's pow; d even). */
double attn_rope_angle(int m, int i, int d, double base);

/* RoPE (Su et al. 2021, paired as LLaMA's reference code pairs): out: (n, d) =
 * x: (n, d) with pair (2i, 2i+1) of row r rotated by attn_rope_angle(offset + r, i):
 *   out[2i]   = x[2i]·cos θ − x[2i+1]·sin θ
 *   out[2i+1] = x[2i]·sin θ + x[2i+1]·cos θ.
 * d must be even. out may equal x. */
void attn_rope(double *out, const double *x, int n, int d, int offset, double base);

/* Its backward: dx: (n, d) = each pair of dout rotated back by −θ (the
 * rotation's transpose). dx may equal dout. */
void attn_rope_backward(double *dx, const double *dout, int n, int d, int offset, double base);

/* The columns of X c's positional encoding fills: *first, and *width of them
 * (every column unless pos_count says otherwise). The encoding is always the
 * d_model-wide one; a lesson only keeps it to some of its columns. */
void attn_positional_columns(const attn_config *c, int *first, int *width);

/* The vector a token gets when no vocabulary lists it: v: (d_model), values in
 * [-1, 1], derived only from the token's bytes (same token, same vector, at any
 * position, on every platform); a longer d_model extends a shorter one. */
void attn_derived_embedding(double *v, const char *tok, size_t tok_len, int d_model);

/* Xavier-uniform weights from the documented PRNG: w: (rows, cols), values in
 * [-a, a] with a = sqrt(6 / (rows + cols)). stream selects an independent
 * sequence for each matrix (see attn_weight_stream). */
void attn_xavier_uniform(double *w, int rows, int cols, uint32_t seed, uint32_t stream);

/* The PRNG stream of matrix m of head h: h * 8 + m for the per-head
 * matrices; 1000 for W_O and 1001 for b_O (h ignored). */
uint32_t attn_weight_stream(int head, attn_matrix m);

/* dst: attn_matrix_shape(m, c) = the seeded value of matrix m of head h under
 * c: Xavier-uniform for W_*, uniform in [-0.1, 0.1] for b_* (zeros when c's
 * biases are off). What every weight nobody supplied is. */
void attn_seeded_matrix(double *dst, attn_matrix m, int head, const attn_config *c);

/* Uniform value in [-limit, limit] for (seed, stream, index); the whole PRNG. */
double attn_prng_uniform(uint32_t seed, uint32_t stream, uint64_t index, double limit);

/* ATTN_OK when all count values are finite, else ATTN_ERR_NONFINITE naming
 * what (a stage or key name). */
attn_status attn_check_finite(const double *v, size_t count, const char *what, attn_err *err);

/* ---- explicit weights -------------------------------------------------- */

/* Weights the caller supplies instead of the PRNG; each NULL pointer falls back
 * to the normal source. All arrays are borrowed, shapes as attn_matrix_shape. */
typedef struct {
    const double *x;                                   /* (n, d_model): used as given, no positional encoding */
    const double *mat[ATTN_MAT_COUNT][ATTN_MAX_HEADS]; /* [m][h]; W_O and b_O at head 0 */
} attn_weights;

/* A vocabulary: named feature dimensions and one vector per listed word. */
typedef struct {
    int dim;                     /* vector length (the lesson's d_model) */
    int count;                   /* number of words */
    const char *const *words;    /* count UTF-8 words, borrowed */
    const double *vectors;       /* (count, dim), borrowed */
    const char *const *features; /* dim feature names, or NULL; borrowed */
    const int *order;            /* NULL, or attn_words_sort's index of words (borrowed):
                                   lookups and tokenizing then binary-search it */
} attn_vocab;

/* Index of the vocabulary word for a token (exact match first, then ASCII
 * case-insensitive: the lowest index), or -1. vocab may be NULL. */
int attn_vocab_find(const attn_vocab *vocab, const char *tok, size_t tok_len);

/* The word list of a vocabulary, for attn_tokenize (count 0 when vocab is NULL). */
attn_wordlist attn_vocab_words(const attn_vocab *vocab);

/* ---- the trace: one sentence, every stage of every head --------------- */

typedef struct {
    double *w_q, *w_k, *w_v; /* (d_model, d_k) */
    double *b_q, *b_k, *b_v; /* (d_k); zeros when biases are off */
    double *q, *k, *v;       /* (n, d_k) */
    double *q_rot, *k_rot;   /* (n, d_k) q and k after RoPE (cfg.rope); NULL when it is off */
    double *scores;          /* (n, n) Q·Kᵀ (with RoPE: q_rot·k_rotᵀ) */
    double *scaled;          /* (n, n) scores / sqrt(d_k), or a copy when scaling is off */
    double *masked;          /* (n, n) scaled with -INFINITY where masked */
    double *weights;         /* (n, n) row softmax of masked */
    double *z;               /* (n, d_k) weights · V */
} attn_head;

typedef enum {
    ATTN_SRC_RANDOM,   /* seeded Xavier-uniform, untrained */
    ATTN_SRC_EXPLICIT, /* every weight supplied by the caller (file or lesson) */
    ATTN_SRC_MIXED     /* some supplied, the rest random */
} attn_weight_source;

typedef struct {
    attn_config cfg;                                  /* configuration the trace was computed with */
    attn_tokens tokens;                               /* owned tokens of the sentence */
    int n;                                            /* tokens.n, for brevity */
    int vocab_rows;                                   /* tokens whose embedding came from the vocabulary */
    bool vocab_used;                                  /* a vocabulary of d_model features was given (its words make X's rows) */
    int vocab_index[ATTN_TRACE_MAX_TOKENS];           /* token i's vocabulary word, or -1 (X given, or derived from its bytes) */
    bool x_given;                                     /* X came from attn_weights.x */
    attn_weight_source source;                        /* where the projection weights came from (W_*: derived from given) */
    bool given[ATTN_MAT_COUNT][ATTN_TRACE_MAX_HEADS]; /* matrix m of head h (W_O, b_O: h 0) was supplied, not seeded */
    double *x;                                        /* (n, d_model), positional encoding included */
    attn_head head[ATTN_TRACE_MAX_HEADS];             /* cfg.heads entries are valid */
    double *concat;                                   /* (n, heads * d_k) */
    double *w_o;                                      /* (heads * d_k, d_model) */
    double *b_o;                                      /* (d_model); zeros when biases are off */
    double *output;                                   /* (n, d_model) concat · W_O */
    long long macs[ATTN_STAGE_COUNT];                 /* multiply-adds per stage, all heads */
    double *block_;                                   /* the one allocation behind every array above */
} attn_trace;

/* The multiply-adds (divisions and exponentials counted as one) the core
 * counted for the stages step s computes (QKV: Q, K and V), all heads. */
long long attn_step_macs(const attn_trace *t, attn_step s);

/* macs: ATTN_STAGE_COUNT entries = the multiply-adds each stage of the
 * ordinary (whole-sentence) path takes for n tokens under c, all heads; K
 * and V are counted once per kv-head. What attn_trace's macs holds. */
void attn_count_macs(long long *macs, const attn_config *c, int n);

/* The trace's storage for matrix m of head h (W_O, b_O: h ignored). */
double *attn_trace_matrix(attn_trace *t, attn_matrix m, int h);
const double *attn_trace_matrix_const(const attn_trace *t, attn_matrix m, int h);

/* One head's forward pass: from hd's weights (w_q … b_v, set by the caller)
 * and x: (n, d_model), fills hd's q, k, v, scores, scaled, masked, weights
 * and z under c (d_model, d_k, mask, scale); with c->rope also q_rot and
 * k_rot (the caller's storage, not NULL then). Returns ATTN_OK, or
 * ATTN_ERR_NONFINITE naming the stage that overflowed. */
attn_status attn_head_forward(attn_head *hd, const double *x, int n, const attn_config *c, attn_err *err);

/* Passes 2 and 3 of attn_head_forward alone: from hd's q, k, v (set by the
 * caller), fills scores, scaled, masked, weights and z under c (d_k, mask,
 * scale). The one attention of every model, whatever made its Q, K and V
 * (GPT-2's fused c_attn, src/hf). Errors as attn_head_forward. */
attn_status attn_head_attend(attn_head *hd, int n, const attn_config *c, attn_err *err);

/* concat: (n, heads·d_k), head h's z: (n, d_k) in columns [h·d_k, (h+1)·d_k). */
void attn_concat_heads(double *concat, const attn_head *heads, int n_heads, int n, int d_k);

/* Tokenizes sentence (len bytes) with vocab's words, then runs every stage.
 * Allocates (one block) into *out, which must be zeroed or freed; on error
 * *out is left freed. weights and vocab may be NULL. Errors name the option,
 * the input problem, the key whose shape is wrong, or the stage that went
 * non-finite. */
attn_status attn_trace_run(attn_trace *out, const char *sentence, size_t len,
                           const attn_config *cfg, const attn_vocab *vocab,
                           const attn_weights *weights, attn_err *err);

/* Frees everything *t owns and zeroes it. NULL is a no-op. */
void attn_trace_free(attn_trace *t);

/* Index of the first token that is the pronoun of the classic question (它,
 * "it", "It"), or -1: the sensible first query of a sentence. */
int attn_trace_pronoun(const attn_trace *t);

/* The same for tokens (a sentence not yet computed). */
int attn_tokens_pronoun(const attn_tokens *t);

/* The mean over the query rows of head h of t of each row's largest weight:
 * 1 when every query attends to one key only, 1/n when evenly spread. Rows
 * with every key masked count as 0. */
double attn_mean_row_max(const attn_trace *t, int h);

/* The query a view of t starts on: the pronoun when there is one, else token 0. */
int attn_trace_default_query(const attn_trace *t);

/* Rows and columns of a stage's matrix in t (per-head stages are per head). */
void attn_trace_shape(const attn_trace *t, attn_stage s, int *rows, int *cols);

/* Pointer to a stage's matrix for head h (ignored for X, concat, output), or
 * NULL when h is out of range. Borrowed from t. */
const double *attn_trace_stage(const attn_trace *t, attn_stage s, int h);

/* The stage's equation with its shapes spelled out, e.g.
 * "Q = X·W_Q   (20×8)·(8×4) → 20×4" (UTF-8, language-neutral). Returns bytes
 * written (snprintf semantics). */
size_t attn_stage_equation(const attn_trace *t, attn_stage s, char *out, size_t cap);

/* ---- explain any cell ------------------------------------------------- */

typedef enum {
    ATTN_EXPLAIN_INPUT,   /* X: embedding (+ positional encoding) */
    ATTN_EXPLAIN_DOT,     /* value = Σ terms a·b (+ bias) */
    ATTN_EXPLAIN_SCALE,   /* value = raw / divisor */
    ATTN_EXPLAIN_MASK,    /* value = raw, or -inf where masked */
    ATTN_EXPLAIN_SOFTMAX, /* value = exp(raw - row_max) / denom */
    ATTN_EXPLAIN_COPY,    /* concat: value copied from head's Z */
    ATTN_EXPLAIN_ROTATE   /* q_rot, k_rot: value = a·cos θ − b·sin θ (even column) or a·sin θ + b·cos θ (odd) */
} attn_explain_kind;

/* The most terms one cell sums: a toy's heads·d_k (8·128), and a real
 * model's MLP cell (GPT-2 small: 3,072; gpt2-medium: 4,096) — about 128 KB:
 * allocate explanations, never on the stack. */
#define ATTN_EXPLAIN_MAX_TERMS 4096

typedef struct {
    int index;    /* c for Σ_c; j for softmax/weighted-sum terms */
    double a, b;  /* the two factors (softmax: a = s_ij, b = row max) */
    double value; /* a·b for DOT; exp(a - b) for SOFTMAX */
} attn_term;

typedef struct {
    attn_stage stage;       /* which matrix */
    int head, row, col;     /* which cell (head ignored for whole-layer stages) */
    attn_explain_kind kind; /* which formula applies */
    double value;           /* the cell as stored in the trace */
    union {                 /* the inputs of kind's formula besides the terms */
        struct {
            double embedding, position;
        } input; /* INPUT: value = embedding + position */
        struct {
            double bias;
            bool has_bias;
        } dot; /* DOT: value = Σ terms (+ bias when has_bias) */
        struct {
            double score, divisor;
        } scale; /* SCALE: value = score / divisor */
        struct {
            double score;
            bool masked;
        } mask; /* MASK: value = score, or -inf when masked */
        struct {
            double score, row_max, denom;
            bool masked;
        } softmax; /* SOFTMAX: value = terms[col] / denom */
        struct {
            int head, col;
        } copy; /* COPY: value = Z of head, column col */
        struct {
            double a, b;     /* the pair (q or k at columns 2i, 2i+1) before the rotation */
            double angle;    /* θ = m·B^(−2i/d_k) */
            double cos, sin; /* cos θ, sin θ as the rotation used them */
            int pair, pos;   /* i, and the row's position m (pos_offset + row) */
            bool odd;        /* the cell is column 2i+1 */
        } rotate;            /* ROTATE */
    };
    int n_terms; /* valid entries in terms */
    attn_term terms[ATTN_EXPLAIN_MAX_TERMS];
} attn_explanation;

/* Explains cell (row, col) of stage s, head h (0-based). Fills *e and returns
 * ATTN_OK, or ATTN_ERR_RANGE naming the index that is out of range. */
attn_status attn_explain(attn_explanation *e, const attn_trace *t, attn_stage s,
                         int h, int row, int col, attn_err *err);

#endif
