/* hf_heads.c — the head finder's scores (see hf_heads.h). Means of
 * attention weights the forward already kept; the induction score runs one
 * more forward on a seeded repeated sequence. */
#include "hf_heads.h"

#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t x) {
    // Steele, Lea & Flood 2014, as src/core's PRNG
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void hf_induction_ids(int *ids, int t, int vocab, uint64_t seed) {
    for (int i = 0; i < t; i++) {
        uint64_t bits = splitmix64(seed + (uint64_t)i * 0x9E3779B97F4A7C15ull);
        // the top 32 bits times vocab, shifted: uniform enough, no modulo bias worth naming
        ids[i] = (int)(((bits >> 32) * (uint64_t)vocab) >> 32);
    }
}

hf_head_score hf_head_score_of(const double *a, int n, const double *induction, int t) {
    // a: (n, n) row-stochastic, causal; induction: (2t, 2t) or NULL
    hf_head_score s = {0.0, 0.0, n == 1 ? 1.0 : 0.0};
    // pass 1: the previous token and the first token, over rows 1..n-1
    if (n > 1) {
        double prev = 0.0, first = 0.0;
        for (int i = 1; i < n; i++) {
            prev += a[(size_t)i * n + i - 1];
            first += a[(size_t)i * n];
        }
        s.prev_token = prev / (n - 1);
        s.first_token = first / (n - 1);
    }
    // pass 2: the induction target, over the second copy's rows t..2t-1
    if (induction && t >= 1) {
        int n2 = 2 * t;
        double sum = 0.0;
        for (int i = t; i < n2; i++) sum += induction[(size_t)i * n2 + i - t + 1];
        s.induction = sum / t;
    }
    return s;
}

attn_status hf_head_scores(const hf_model *m, const hf_run *run, int induction_len, uint64_t seed,
                           hf_head_score *scores, attn_err *err) {
    // scores: (n_layer · n_head); run: the learner's sentence, n tokens
    if (induction_len < 1)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_HH_INDUCTION_COPY,
                            induction_len);
    int t = hf_induction_len(m, induction_len);
    if (t < 1)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_HH_POSITIONS, m->cfg.n_positions);
    // pass 1: the repeated random sequence r r and its forward
    int *ids = malloc(sizeof *ids * (size_t)(2 * t));
    if (!ids) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    hf_induction_ids(ids, t, m->cfg.vocab_size, seed);
    memcpy(ids + t, ids, sizeof *ids * (size_t)t);
    hf_run rep = {0};
    attn_status st = hf_forward(&rep, m, ids, 2 * t, err);
    free(ids);
    if (st != ATTN_OK) return st;
    // pass 2: every head's scores
    hf_head_scores_from(run, &rep, t, scores);
    hf_run_free(&rep);
    return ATTN_OK;
}

void hf_head_scores_from(const hf_run *run, const hf_run *rep, int t, hf_head_score *scores) {
    for (int l = 0; l < run->n_layer; l++)
        for (int h = 0; h < run->n_head; h++)
            scores[l * run->n_head + h] =
                hf_head_score_of(run->layer[l].head[h].weights, run->n, rep->layer[l].head[h].weights, t);
}

void hf_hide_first(const double *a, int n, double *out) {
    // out[i][0] = 0; out[i][j] = a[i][j] / Σ_{j'≥1} a[i][j'] (all zero when that sum is 0)
    for (int i = 0; i < n; i++) {
        const double *r = a + (size_t)i * n;
        double *o = out + (size_t)i * n;
        double rest = 0.0;
        for (int j = 1; j < n; j++) rest += r[j];
        o[0] = 0.0;
        for (int j = 1; j < n; j++) o[j] = rest > 0.0 ? r[j] / rest : 0.0;
    }
}

double hf_head_score_get(const hf_head_score *s, int which) {
    return which == 0 ? s->prev_token : which == 1 ? s->induction
                                                   : s->first_token;
}

void hf_head_rank(const hf_head_score *scores, int count, int which, int *order) {
    // insertion sort, stable: count is n_layer · n_head (144 for GPT-2 small)
    for (int k = 0; k < count; k++) {
        int j = k;
        double v = hf_head_score_get(&scores[k], which);
        while (j > 0 && hf_head_score_get(&scores[order[j - 1]], which) < v) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
}

int hf_induction_len(const hf_model *m, int induction_len) {
    int cap = m->cfg.n_positions < HF_MAX_TOKENS ? m->cfg.n_positions : HF_MAX_TOKENS;
    return 2 * induction_len > cap ? cap / 2 : induction_len;
}
