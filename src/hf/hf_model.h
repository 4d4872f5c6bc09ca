/* hf_model.h — a GPT-2 read from a Hugging Face folder (config.json,
 * model.safetensors, and vocab.json + merges.txt or vocab.txt), and its
 * forward pass with every stage kept (issue 26).
 *
 * GPT-2's block, pre-LayerNorm (Radford et al. 2019):
 *   x₀ = wte[id] + wpe[position]
 *   layer l: X = LN₁(x); [Q K V] = X·c_attn.w + c_attn.b, head h the columns
 *            h·d_k … of each third; per head the core's attention
 *            (attn_head_attend: Q·Kᵀ, ÷√d_k, causal mask, softmax, A·V);
 *            output = concat(Z)·c_proj.w + c_proj.b;  resid_mid = x + output;
 *            mlp_out = act(LN₂(resid_mid)·c_fc.w + c_fc.b)·c_proj.w + c_proj.b;
 *            residual = resid_mid + mlp_out
 *   logits = LN_f(x_L)·wteᵀ (or lm_head.weightᵀ), at the last position.
 * act is GELU in its tanh form for "gelu_new" (and "gelu_pytorch_tanh"), or
 * ReLU. LayerNorm: (x − mean)/√(var + ε)·w + b, var the biased variance.
 *
 * Weights stay in the file (mapped) in its dtype (F32, F16, BF16 or F64);
 * the kernels convert one weight row at a time, exactly, and accumulate in
 * double in the core's loop order (attn_matmul), so a model whose weights
 * are doubles gives the core's numbers bit for bit. Nothing is printed;
 * messages (English, naming the file and key) come back in attn_err.
 *
 * Layer 3 of the README's Layout (src/hf): uses src/util and src/core. */
#ifndef ATTN_HF_MODEL_H
#define ATTN_HF_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_err.h"
#include "bpe.h"
#include "hf_tokens.h"
#include "safetensors.h"
#include "wordpiece.h"

#define HF_MAX_TOKENS 256  /* the longest sentence --hf reads (and n_positions caps it) */
#define HF_MAX_LAYERS 96   /* config.json's n_layer at most */
#define HF_MAX_HEADS 128   /* n_head at most */
#define HF_MAX_WIDTH 16384 /* n_embd and n_inner at most */
#define HF_NEXT 10         /* the next tokens kept: the most likely ten */

typedef enum { HF_ACT_GELU_NEW,
               HF_ACT_RELU } hf_activation;

/* config.json, with Hugging Face's GPT2Config defaults for what it omits. */
typedef struct {
    int n_layer, n_head, n_embd, n_positions, vocab_size;
    int n_inner;       /* null or absent: 4·n_embd */
    double eps;        /* layer_norm_epsilon, default 1e-5 */
    hf_activation act; /* activation_function, default gelu_new */
    bool tie;          /* tie_word_embeddings, default true */
    bool scale;        /* scale_attn_weights, default true */
    char act_name[32]; /* as the file spells it */
} hf_config;

/* Parses config.json's text; shown names the file in messages. Refused
 * (ATTN_ERR_PARSE or ATTN_ERR_RANGE): not one JSON object; a model_type or
 * architecture other than GPT-2 ("attnviz implements GPT-2 blocks"); a size
 * that is not a whole number in range; n_embd not a multiple of n_head; an
 * activation other than gelu_new, gelu_pytorch_tanh or relu; the options
 * GPT-2 blocks here do not implement (scale_attn_by_inverse_layer_idx,
 * add_cross_attention). */
attn_status hf_config_parse(hf_config *c, const char *text, size_t len, const char *shown, attn_err *err);

/* One block's tensors (borrowed from the file). */
typedef struct {
    const st_tensor *ln1_w, *ln1_b, *attn_w, *attn_b, *attn_proj_w, *attn_proj_b;
    const st_tensor *ln2_w, *ln2_b, *fc_w, *fc_b, *mlp_proj_w, *mlp_proj_b;
} hf_block;

typedef struct {
    hf_config cfg;
    char *dir;    /* the folder (owned) */
    st_file file; /* model.safetensors, mapped */
    const st_tensor *wte, *wpe, *lnf_w, *lnf_b;
    const st_tensor *unembed; /* wte when tied, else lm_head.weight */
    hf_block *block;          /* cfg.n_layer (owned) */
    hf_bpe *bpe;              /* vocab.json + merges.txt, or NULL */
    hf_wordpiece *wordpiece;  /* vocab.txt, or NULL */
} hf_model;

/* Opens the folder dir: config.json, model.safetensors and the tokenizer
 * (vocab.json + merges.txt when present, else vocab.txt). Every tensor the
 * forward uses is found and checked here: refused, naming the file and key,
 * a missing tensor, a dtype that is not F32/F16/BF16/F64, a shape that
 * disagrees with config.json, a tokenizer with more ids than vocab_size; and
 * a folder without a tokenizer. On error m is left empty. */
attn_status hf_model_open(hf_model *m, const char *dir, attn_err *err);

/* Frees what m owns and empties it. NULL is a no-op. */
void hf_model_free(hf_model *m);

/* The sentence's tokens with m's tokenizer (bos: GPT-2's <|endoftext|>
 * first; vocab.txt models always start with [CLS], and refuse bos).
 * Refused (ATTN_ERR_INPUT): the tokenizer's refusals; no tokens; more than
 * HF_MAX_TOKENS or n_positions tokens. */
attn_status hf_model_tokenize(const hf_model *m, const char *s, size_t len, bool bos, hf_tokens *out,
                              attn_err *err);

/* The label of vocabulary id (valid UTF-8, as hf_tokens labels tokens;
 * byte pieces of a character as "‹e4 bd›"), malloc'd; NULL for an unknown
 * id or when memory runs out. */
char *hf_model_piece_label(const hf_model *m, int id);

/* One block's stages on n tokens. */
typedef struct {
    double *resid_pre; /* (n, d) the block's input */
    double *x;         /* (n, d) LN₁'s output: the attention's X */
    attn_head *head;   /* n_head heads: q, k, v (n, d_k), scores … weights (n, n), z (n, d_k);
                          their w_*, b_* are NULL (the weights stay in the file) */
    double *concat;    /* (n, d) */
    double *output;    /* (n, d) concat·c_proj.w + c_proj.b */
    double *resid_mid; /* (n, d) resid_pre + output */
    double *ln2;       /* (n, d) LN₂'s output */
    double *hidden;    /* (n, n_inner) act(ln2·c_fc.w + c_fc.b) */
    double *mlp_out;   /* (n, d) */
    double *residual;  /* (n, d) the block's output */
} hf_layer_run;

typedef struct {
    int n, n_layer, n_head, d, d_k, n_inner, vocab;
    attn_config acfg;       /* one head's configuration for the core (d_model, d_k, causal, scale) */
    int *ids;               /* (n) */
    hf_layer_run *layer;    /* n_layer */
    double *final;          /* (n, d) LN_f's output */
    double *logits;         /* (vocab) at the last position */
    double *probs;          /* (vocab) their softmax */
    int next_count;         /* min(HF_NEXT, vocab) */
    int next_id[HF_NEXT];   /* the most likely next tokens, most likely first (ties: lower id) */
    double next_p[HF_NEXT]; /* their probabilities */
    double *block_;         /* the one allocation behind the arrays above */
    attn_head *heads_;      /* n_layer · n_head, behind layer[l].head */
} hf_run;

/* Runs the model on ids: (n), 1 <= n <= min(HF_MAX_TOKENS, n_positions),
 * each id below vocab_size. *r must be zeroed or freed; on error it is left
 * freed. Errors: n or an id out of range (ATTN_ERR_RANGE), memory, a stage
 * that is not finite (naming the layer and stage). */
attn_status hf_forward(hf_run *r, const hf_model *m, const int *ids, int n, attn_err *err);

/* The same forward in pieces, for a caller that must not wait for all of it
 * (the browser, which has no threads, computes one block per frame):
 * hf_forward_begin checks ids, allocates *r and adds the embeddings;
 * each hf_forward_step runs one block, and the last step the final
 * LayerNorm and the readout, setting *done. The job borrows r and m; on
 * an error (or when done) it has freed what it holds, and on an error r
 * too. hf_forward_job_free drops a job given up half-way (r stays the
 * caller's to free). The result is hf_forward's bit for bit. */
typedef struct {
    hf_run *r;             /* the run being filled (borrowed) */
    const hf_model *m;     /* borrowed */
    int layer;             /* the next block; n_layer: the readout is next */
    double *scratch, *qkv; /* owned working memory */
} hf_forward_job;
attn_status hf_forward_begin(hf_forward_job *j, hf_run *r, const hf_model *m, const int *ids, int n, attn_err *err);
attn_status hf_forward_step(hf_forward_job *j, bool *done, attn_err *err);
void hf_forward_job_free(hf_forward_job *j); /* NULL is a no-op */

/* Frees what r owns and zeroes it. NULL is a no-op. */
void hf_run_free(hf_run *r);

/* out: (n, m) = a: (n, k) · columns [col0, col0 + m) of w: (k, ≥ col0 + m)
 * in the file's dtype, + those elements of bias: (≥ col0 + m) (bias may be
 * NULL). The core's loop order, so with F64 weights the result is
 * attn_matmul's bit for bit. row: m doubles of scratch. */
void hf_matmul(double *out, const double *a, const st_tensor *w, const st_tensor *bias, int col0, int n,
               int k, int m, double *row);

/* Elements [first, first + count) of t (a float dtype) to double, exactly. */
void hf_tensor_read(const st_tensor *t, size_t first, size_t count, double *out);

/* LayerNorm of each row of x: (n, d) into out with w, b: (d) and eps. */
void hf_layer_norm(double *out, const double *x, const double *w, const double *b, double eps, int n, int d);

/* GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), with the
 * project's exp. */
double hf_gelu_new(double x);

#endif
