/* attn_trace.c — runs every stage for one sentence and keeps each result. */
#include "attn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BIAS_LIMIT 0.1

/* Carves the trace's arrays out of one block; returns the doubles needed when
 * base is NULL. */
static size_t layout(attn_trace *t, double *base) {
    const attn_config *c = &t->cfg;
    size_t n = (size_t)t->n, dm = (size_t)c->d_model, dk = (size_t)c->d_k;
    size_t hk = (size_t)c->heads * dk, used = 0;
#define TAKE(ptr, count) do { if (base) (ptr) = base + used; used += (count); } while (0)
    TAKE(t->x, n * dm);
    for (int h = 0; h < c->heads; h++) {
        attn_head *hd = &t->head[h];
        TAKE(hd->w_q, dm * dk); TAKE(hd->w_k, dm * dk); TAKE(hd->w_v, dm * dk);
        TAKE(hd->b_q, dk); TAKE(hd->b_k, dk); TAKE(hd->b_v, dk);
        TAKE(hd->q, n * dk); TAKE(hd->k, n * dk); TAKE(hd->v, n * dk);
        TAKE(hd->scores, n * n); TAKE(hd->scaled, n * n);
        TAKE(hd->masked, n * n); TAKE(hd->weights, n * n);
        TAKE(hd->z, n * dk);
    }
    TAKE(t->concat, n * hk);
    TAKE(t->w_o, hk * dm);
    TAKE(t->b_o, dm);
    TAKE(t->output, n * dm);
#undef TAKE
    return used;
}

static void fill_weight(double *dst, const double *given, int rows, int cols,
                        uint32_t seed, uint32_t stream) {
    if (given) memcpy(dst, given, sizeof(double) * (size_t)rows * cols);
    else attn_xavier_uniform(dst, rows, cols, seed, stream);
}

static void fill_bias(double *dst, const double *given, int len, bool on,
                      uint32_t seed, uint32_t stream) {
    for (int i = 0; i < len; i++)
        dst[i] = !on ? 0.0 : given ? given[i] : attn_prng_uniform(seed, stream, (uint64_t)i, BIAS_LIMIT);
}

/* Counts supplied vs generated projection weights to name the source. */
static attn_weight_source weight_source(const attn_weights *w, int heads) {
    if (!w) return ATTN_SRC_RANDOM;
    int given = 0, total = 0;
    for (int h = 0; h < heads; h++) {
        given += (w->w_q[h] != NULL) + (w->w_k[h] != NULL) + (w->w_v[h] != NULL);
        total += 3;
    }
    given += w->w_o != NULL;
    total += 1;
    return given == 0 ? ATTN_SRC_RANDOM : given == total ? ATTN_SRC_EXPLICIT : ATTN_SRC_MIXED;
}

static void embed(attn_trace *t, const attn_vocab *vocab, const attn_weights *w) {
    int n = t->n, dm = t->cfg.d_model;
    if (w && w->x) {
        memcpy(t->x, w->x, sizeof(double) * (size_t)n * dm);
        t->x_given = true;
        return;
    }
    for (int i = 0; i < n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        int row = (vocab && vocab->dim == dm) ? attn_vocab_find(vocab, tok, (size_t)len) : -1;
        double *xi = t->x + (size_t)i * dm;
        if (row >= 0) {
            memcpy(xi, vocab->vectors + (size_t)row * dm, sizeof(double) * (size_t)dm);
            t->vocab_rows++;
        } else {
            attn_derived_embedding(xi, tok, (size_t)len, dm);
        }
    }
    if (t->cfg.pos_enc) {
        // add the encoding row by row so no scratch buffer is needed
        double pe[ATTN_MAX_D_MODEL];
        for (int p = 0; p < n; p++) {
            attn_positional_row(pe, p, dm);
            for (int c = 0; c < dm; c++) t->x[(size_t)p * dm + c] += pe[c];
        }
    }
}

static void init_weights(attn_trace *t, const attn_weights *w) {
    const attn_config *c = &t->cfg;
    int dm = c->d_model, dk = c->d_k;
    for (int h = 0; h < c->heads; h++) {
        attn_head *hd = &t->head[h];
        fill_weight(hd->w_q, w ? w->w_q[h] : NULL, dm, dk, c->seed, attn_weight_stream(h, 0));
        fill_weight(hd->w_k, w ? w->w_k[h] : NULL, dm, dk, c->seed, attn_weight_stream(h, 1));
        fill_weight(hd->w_v, w ? w->w_v[h] : NULL, dm, dk, c->seed, attn_weight_stream(h, 2));
        fill_bias(hd->b_q, w ? w->b_q[h] : NULL, dk, c->bias, c->seed, attn_weight_stream(h, 4));
        fill_bias(hd->b_k, w ? w->b_k[h] : NULL, dk, c->bias, c->seed, attn_weight_stream(h, 5));
        fill_bias(hd->b_v, w ? w->b_v[h] : NULL, dk, c->bias, c->seed, attn_weight_stream(h, 6));
    }
    fill_weight(t->w_o, w ? w->w_o : NULL, c->heads * dk, dm, c->seed, attn_weight_stream(0, 3));
    fill_bias(t->b_o, w ? w->b_o : NULL, dm, c->bias, c->seed, attn_weight_stream(0, 7));
}

/* Checks a stage's result; the message names the stage as the CLI spells it. */
#define CHECK(ptr, count, stage) do { \
        attn_status st_ = attn_check_finite((ptr), (count), attn_stage_name(stage), err); \
        if (st_ != ATTN_OK) return st_; \
    } while (0)

static attn_status run_head(attn_trace *t, int h, attn_err *err) {
    const attn_config *c = &t->cfg;
    attn_head *hd = &t->head[h];
    int n = t->n, dm = c->d_model, dk = c->d_k;
    size_t nn = (size_t)n * n, ndk = (size_t)n * dk;
    // pass 1: projections Q, K, V = X·W (+ b): (n, d_model)·(d_model, d_k) -> (n, d_k)
    attn_matmul(hd->q, t->x, hd->w_q, hd->b_q, n, dm, dk);
    attn_matmul(hd->k, t->x, hd->w_k, hd->b_k, n, dm, dk);
    attn_matmul(hd->v, t->x, hd->w_v, hd->b_v, n, dm, dk);
    CHECK(hd->q, ndk, ATTN_ST_Q);
    CHECK(hd->k, ndk, ATTN_ST_K);
    CHECK(hd->v, ndk, ATTN_ST_V);
    // pass 2: scores, optional scaling, mask
    attn_scores(hd->scores, hd->q, hd->k, n, dk);
    CHECK(hd->scores, nn, ATTN_ST_SCORES);
    if (c->scale) attn_scale(hd->scaled, hd->scores, n, dk);
    else memcpy(hd->scaled, hd->scores, sizeof(double) * nn);
    attn_apply_mask(hd->masked, hd->scaled, c->mask, n);
    // pass 3: row softmax and the weighted sum of values
    attn_softmax_rows(hd->weights, hd->masked, n);
    CHECK(hd->weights, nn, ATTN_ST_WEIGHTS);
    attn_weighted_sum(hd->z, hd->weights, hd->v, n, dk);
    CHECK(hd->z, ndk, ATTN_ST_Z);
    return ATTN_OK;
}

static void count_macs(attn_trace *t) {
    const attn_config *c = &t->cfg;
    long long n = t->n, dm = c->d_model, dk = c->d_k, h = c->heads;
    memset(t->macs, 0, sizeof t->macs);
    t->macs[ATTN_ST_Q] = t->macs[ATTN_ST_K] = t->macs[ATTN_ST_V] = h * n * dm * dk;
    t->macs[ATTN_ST_SCORES] = h * n * n * dk;
    t->macs[ATTN_ST_SCALED] = c->scale ? h * n * n : 0; /* one division each */
    t->macs[ATTN_ST_WEIGHTS] = h * n * n;               /* one exp and one add each */
    t->macs[ATTN_ST_Z] = h * n * n * dk;
    t->macs[ATTN_ST_OUTPUT] = n * h * dk * dm;
}

static attn_status run_stages(attn_trace *t, const attn_vocab *vocab,
                              const attn_weights *w, attn_err *err) {
    const attn_config *c = &t->cfg;
    int n = t->n, dm = c->d_model, dk = c->d_k, hk = c->heads * dk;
    embed(t, vocab, w);
    CHECK(t->x, (size_t)n * dm, ATTN_ST_X);
    init_weights(t, w);
    for (int h = 0; h < c->heads; h++) {
        attn_status st = run_head(t, h, err);
        if (st != ATTN_OK) return st;
        for (int i = 0; i < n; i++) // concat: head h fills columns h·d_k .. h·d_k + d_k - 1
            memcpy(t->concat + (size_t)i * hk + (size_t)h * dk, t->head[h].z + (size_t)i * dk,
                   sizeof(double) * (size_t)dk);
    }
    attn_matmul(t->output, t->concat, t->w_o, t->b_o, n, hk, dm);
    CHECK(t->output, (size_t)n * dm, ATTN_ST_OUTPUT);
    count_macs(t);
    return ATTN_OK;
}

attn_status attn_trace_run(attn_trace *out, const char *sentence, size_t len,
                           const attn_config *cfg, const attn_vocab *vocab,
                           const attn_weights *weights, attn_err *err) {
    attn_trace t;
    memset(&t, 0, sizeof t);
    attn_trace_free(out);
    attn_status st = attn_config_check(cfg, err);
    if (st != ATTN_OK) goto cleanup;
    t.cfg = *cfg;
    attn_wordlist words = {vocab ? vocab->count : 0, vocab ? vocab->words : NULL};
    st = attn_tokenize(&t.tokens, sentence, len, vocab ? &words : NULL, err);
    if (st != ATTN_OK) goto cleanup;
    t.n = t.tokens.n;
    t.source = weight_source(weights, cfg->heads);
    t.block_ = malloc(sizeof(double) * layout(&t, NULL));
    if (!t.block_) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for a %d-token trace.", t.n);
        goto cleanup;
    }
    layout(&t, t.block_);
    st = run_stages(&t, vocab, weights, err);
    if (st != ATTN_OK) goto cleanup;
    *out = t;
    return ATTN_OK;
cleanup:
    attn_trace_free(&t);
    return st;
}

void attn_trace_free(attn_trace *t) {
    if (!t) return;
    attn_tokens_free(&t->tokens);
    free(t->block_);
    memset(t, 0, sizeof *t);
}

void attn_trace_shape(const attn_trace *t, attn_stage s, int *rows, int *cols) {
    int n = t->n, dm = t->cfg.d_model, dk = t->cfg.d_k;
    *rows = n;
    switch (s) {
    case ATTN_ST_X: case ATTN_ST_OUTPUT: *cols = dm; break;
    case ATTN_ST_Q: case ATTN_ST_K: case ATTN_ST_V: case ATTN_ST_Z: *cols = dk; break;
    case ATTN_ST_CONCAT: *cols = t->cfg.heads * dk; break;
    default: *cols = n; break;
    }
}

const double *attn_trace_stage(const attn_trace *t, attn_stage s, int h) {
    if (attn_stage_per_head(s) && (h < 0 || h >= t->cfg.heads)) return NULL;
    const attn_head *hd = attn_stage_per_head(s) ? &t->head[h] : NULL;
    switch (s) {
    case ATTN_ST_X: return t->x;
    case ATTN_ST_Q: return hd->q;
    case ATTN_ST_K: return hd->k;
    case ATTN_ST_V: return hd->v;
    case ATTN_ST_SCORES: return hd->scores;
    case ATTN_ST_SCALED: return hd->scaled;
    case ATTN_ST_MASKED: return hd->masked;
    case ATTN_ST_WEIGHTS: return hd->weights;
    case ATTN_ST_Z: return hd->z;
    case ATTN_ST_CONCAT: return t->concat;
    case ATTN_ST_OUTPUT: return t->output;
    default: return NULL;
    }
}

int attn_vocab_find(const attn_vocab *vocab, const char *tok, size_t tok_len) {
    if (!vocab) return -1;
    for (int i = 0; i < vocab->count; i++) // exact match first
        if (strlen(vocab->words[i]) == tok_len && memcmp(vocab->words[i], tok, tok_len) == 0)
            return i;
    for (int i = 0; i < vocab->count; i++) { // then ASCII case-insensitive ("The" finds "the")
        const char *w = vocab->words[i];
        if (strlen(w) != tok_len) continue;
        size_t k = 0;
        for (; k < tok_len; k++) {
            unsigned char a = (unsigned char)w[k], b = (unsigned char)tok[k];
            if (a >= 'A' && a <= 'Z') a = (unsigned char)(a + 32);
            if (b >= 'A' && b <= 'Z') b = (unsigned char)(b + 32);
            if (a != b) break;
        }
        if (k == tok_len) return i;
    }
    return -1;
}

int attn_trace_pronoun(const attn_trace *t) {
    static const char *const pronouns[] = {"它", "it", "It"};
    for (int i = 0; i < t->n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        for (size_t k = 0; k < sizeof pronouns / sizeof *pronouns; k++)
            if ((size_t)len == strlen(pronouns[k]) && memcmp(tok, pronouns[k], (size_t)len) == 0) return i;
    }
    return -1;
}
