/* hf_heads.h — the head finder of --hf (issue 26): three scores per head of
 * a real model, each a mean of attention weights, and the "hide the first
 * token" view of a head's weights.
 *
 *   prev_token   mean over rows i >= 1 of A[i][i−1]: a previous-token head
 *                puts nearly all of each row on the token just before.
 *   induction    on a repeated random sequence r r (2T tokens, r drawn from
 *                the vocabulary with a seed), the mean over the second
 *                copy's rows i (T <= i < 2T) of A[i][i−T+1]: the token that
 *                followed the same token in the first copy. Olsson et al.
 *                2022 ("In-context learning and induction heads") measure
 *                induction heads this way.
 *   first_token  mean over rows i >= 1 of A[i][0]: the share of weight on
 *                the first token. Xiao et al. 2023 ("Efficient streaming
 *                language models with attention sinks") report that trained
 *                models pour much of it there — an attention sink.
 * Row 0 is left out of prev_token and first_token: it sees only token 0.
 *
 * Layer 3 of the README's Layout (src/hf): uses src/util and src/core. */
#ifndef ATTN_HF_HEADS_H
#define ATTN_HF_HEADS_H

#include <stdint.h>

#include "attn_err.h"
#include "hf_model.h"

#define HF_INDUCTION_LEN 32     /* T, the default repeated half's length */
#define HF_INDUCTION_SEED 2022u /* the default seed of the random sequence */

typedef struct {
    double prev_token;  /* mean over rows i >= 1 of A[i][i-1]; 0 when n == 1 */
    double induction;   /* on a repeated random token sequence r r (length 2T): mean over the
                           second copy's rows i of A[i][i-T+1] (the token after the earlier copy) */
    double first_token; /* mean over rows i >= 1 of A[i][0]: the attention sink's share; 1 when n == 1 */
} hf_head_score;

/* scores: n_layer*n_head entries, [l*n_head + h]. run: hf_forward of the learner's sentence
 * (prev_token, first_token); the induction score runs its own forward of a seeded random
 * sequence of length 2*induction_len (ids drawn from the vocabulary, seed given).
 * induction_len is cut to min(HF_MAX_TOKENS, n_positions) / 2 when longer; below 1 it is
 * ATTN_ERR_RANGE. Errors of that forward (memory, a stage not finite) come back as its. */
attn_status hf_head_scores(const hf_model *m, const hf_run *run, int induction_len, uint64_t seed,
                           hf_head_score *scores, attn_err *err);

/* The scores from the two runs hf_head_scores makes: run (the sentence) and
 * rep (the seeded sequence of t tokens written twice, hf_induction_ids), for
 * a caller that computes rep itself in pieces (the browser, hf_forward_step). */
void hf_head_scores_from(const hf_run *run, const hf_run *rep, int t, hf_head_score *scores);

/* The random sequence hf_head_scores repeats: ids[0..t) drawn uniformly from [0, vocab)
 * with seed (splitmix64), the same on every platform. */
void hf_induction_ids(int *ids, int t, int vocab, uint64_t seed);

/* The three scores of one head's weights a: (n, n). induction: the weights of
 * the repeated sequence (2t, 2t), or NULL (score 0). */
hf_head_score hf_head_score_of(const double *a, int n, const double *induction, int t);

/* out (n,n): A with column 0 removed and each row renormalised over the rest (row 0, which
 * sees only token 0, stays all zero); says nothing else. */
void hf_hide_first(const double *a, int n, double *out);

/* The order of the n_layer*n_head heads by one score, highest first (ties:
 * lower index first). which: 0 prev_token, 1 induction, 2 first_token.
 * order: count entries, the indices l*n_head + h. */
void hf_head_rank(const hf_head_score *scores, int count, int which, int *order);

/* The value of score `which` (as hf_head_rank). */
double hf_head_score_get(const hf_head_score *s, int which);

/* The T hf_head_scores uses for induction_len on m: induction_len cut to
 * min(HF_MAX_TOKENS, n_positions) / 2. */
int hf_induction_len(const hf_model *m, int induction_len);

#endif
