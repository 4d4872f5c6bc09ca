/* hf_trace.h — one layer of a GPT-2 run (hf_model.h) as the core's
 * attn_trace, so that everything made for a trace — the walkthrough's
 * drawing, attn_explain's hover arithmetic, the exporters — shows a real
 * model's layer unchanged (issue 26), as model_run.h's layer[] does for the
 * trained toys.
 *
 * The trace of layer l:
 *   X        = LN₁'s output of layer l (the attention's input; not an embedding)
 *   head h   = the run's own stages of head h (q … z), with W_Q, W_K, W_V
 *              and b_Q, b_K, b_V = head h's columns of c_attn as doubles
 *   concat   = the run's concat;  W_O, b_O = c_proj as doubles
 *   output   = the run's c_proj output
 *   cfg      = d_model n_embd, d_k, heads n_head, causal mask, the model's
 *              scaling, biases on, no positions (GPT-2's are learned and
 *              already in the residual), no RoPE
 *   tokens   = the tokenizer's labels, one after another (valid UTF-8)
 * The stages are borrowed from the run (it must outlive the trace); only this
 * layer's weights are converted to double (owned, in block_: for GPT-2 small
 * 4·768·768 doubles, 18.9 MB), so attn_trace_free frees the trace as usual.
 *
 * Layer 3 of the README's Layout (src/hf): uses src/util and src/core. */
#ifndef ATTN_HF_TRACE_H
#define ATTN_HF_TRACE_H

#include "attn.h"
#include "hf_model.h"
#include "hf_tokens.h"

/* Fills *out (zeroed or freed) with layer `layer` of r, a run of m on toks
 * (r->n tokens). Refused (ATTN_ERR_RANGE): a layer out of range, more heads
 * than ATTN_TRACE_MAX_HEADS, more tokens than ATTN_TRACE_MAX_TOKENS, a width
 * beyond ATTN_EXPLAIN_MAX_TERMS (a cell's explanation could not hold its
 * terms), toks not r's; ATTN_ERR_NOMEM. On error *out is left freed. */
attn_status hf_trace_layer(attn_trace *out, const hf_model *m, const hf_run *r, const hf_tokens *toks, int layer,
                           attn_err *err);

/* LayerNorm's arithmetic behind X[row][col] of layer l (X = LN₁(resid_pre)):
 * x = resid_pre[row][col], the row's mean and (biased) variance, ε, the
 * weight w and bias b of column col; value = (x − mean)/√(var + ε)·w + b as
 * the run stored it. */
typedef struct {
    double x, mean, var, eps, w, b, value;
    int width; /* the columns mean and var are over (n_embd) */
} hf_ln_explanation;

/* Fills *e for X[row][col] of layer l of r. Returns ATTN_OK or
 * ATTN_ERR_RANGE naming what is out of range. */
attn_status hf_explain_ln1(hf_ln_explanation *e, const hf_model *m, const hf_run *r, int layer, int row, int col,
                           attn_err *err);

#endif
