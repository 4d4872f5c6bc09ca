/* model_generate.h — a trained model continues a sentence token by token
 * (issue 24, part 1): each token goes through every layer once, with a KV
 * cache per layer (attn_decode_token: only its own q, k, v rows are
 * computed), the readout's argmax at the last token is the next token, and
 * it is fed back. Only a token-objective model of a task whose targets are
 * the next token (induction) can do it. */
#ifndef MODEL_GENERATE_H
#define MODEL_GENERATE_H

#include "attn_decode.h"
#include "model.h"

typedef struct {
    int n_prompt;                         /* tokens of the sentence given */
    int n;                                /* tokens after generating: n_prompt + the new ones */
    int ids[MODEL_MAX_LEN];               /* every token's vocabulary index */
    double prob[MODEL_MAX_LEN];           /* generated token i (i >= n_prompt): its probability at row i - 1 */
    attn_decode_step step[MODEL_MAX_LEN]; /* per token, summed over the layers (cache_len, cells: per layer) */
    double *logits;                       /* (n, vocab) the readout at each token, as decoded */
    double *block_;                       /* owned: logits and the caches */
} model_generation;

/* Reads sentence (len bytes) with m's vocabulary and decodes it token by
 * token, then generates count more tokens (0: only decode the sentence).
 * *out must be zeroed or freed; on error it is left freed. Errors: m cannot
 * generate (not a token model, its task's targets are not the next token, or
 * its mask is not causal) when count > 0, naming the task; more tokens than
 * max_len; the tokenizer's; a stage that overflowed. */
attn_status model_generate(model_generation *out, const model *m, const char *sentence, size_t len, int count,
                           attn_err *err);

/* true when m can continue a sentence; otherwise *why (may be NULL) says why. */
bool model_can_generate(const model *m, const char **why);

void model_generation_free(model_generation *g);

#endif
