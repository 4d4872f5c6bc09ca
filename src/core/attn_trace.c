/* attn_trace.c — runs every stage for one sentence and keeps each result. */
#include "attn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Carves the trace's arrays out of one block; returns the doubles needed when
 * base is NULL. */
static size_t layout(attn_trace *t, double *base) {
    const attn_config *c = &t->cfg;
    size_t n = (size_t)t->n, dm = (size_t)c->d_model, dk = (size_t)c->d_k;
    size_t hk = (size_t)c->heads * dk, used = 0;
#define TAKE(ptr, count) \
    do { \
        if (base) (ptr) = base + used; \
        used += (count); \
    } while (0)
    TAKE(t->x, n * dm);
    for (int h = 0; h < c->heads; h++) {
        attn_head *hd = &t->head[h];
        TAKE(hd->w_q, dm * dk);
        TAKE(hd->w_k, dm * dk);
        TAKE(hd->w_v, dm * dk);
        TAKE(hd->b_q, dk);
        TAKE(hd->b_k, dk);
        TAKE(hd->b_v, dk);
        TAKE(hd->q, n * dk);
        TAKE(hd->k, n * dk);
        TAKE(hd->v, n * dk);
        if (c->rope) {
            TAKE(hd->q_rot, n * dk);
            TAKE(hd->k_rot, n * dk);
        }
        TAKE(hd->scores, n * n);
        TAKE(hd->scaled, n * n);
        TAKE(hd->masked, n * n);
        TAKE(hd->weights, n * n);
        TAKE(hd->z, n * dk);
    }
    TAKE(t->concat, n * hk);
    TAKE(t->w_o, hk * dm);
    TAKE(t->b_o, dm);
    TAKE(t->output, n * dm);
#undef TAKE
    return used;
}

double *attn_trace_matrix(attn_trace *t, attn_matrix m, int h) {
    attn_head *hd = &t->head[h >= 0 && h < ATTN_TRACE_MAX_HEADS ? h : 0];
    switch (m) {
    case ATTN_MAT_W_Q: return hd->w_q;
    case ATTN_MAT_W_K: return hd->w_k;
    case ATTN_MAT_W_V: return hd->w_v;
    case ATTN_MAT_B_Q: return hd->b_q;
    case ATTN_MAT_B_K: return hd->b_k;
    case ATTN_MAT_B_V: return hd->b_v;
    case ATTN_MAT_W_O: return t->w_o;
    case ATTN_MAT_B_O: return t->b_o;
    default: return NULL;
    }
}

const double *attn_trace_matrix_const(const attn_trace *t, attn_matrix m, int h) {
    return attn_trace_matrix((attn_trace *)t, m, h); // the same slots, read only
}

/* Names the source from what init_weights took: every W_* supplied, none, or some. */
static attn_weight_source weight_source(const attn_trace *t) {
    int given = 0, total = 0;
    for (int m = 0; m < ATTN_MAT_COUNT; m++) {
        if (attn_matrix_is_bias((attn_matrix)m)) continue;
        int nh = attn_matrix_per_head((attn_matrix)m) ? t->cfg.heads : 1;
        for (int h = 0; h < nh; h++) given += t->given[m][h];
        total += nh;
    }
    return given == 0 ? ATTN_SRC_RANDOM : given == total ? ATTN_SRC_EXPLICIT
                                                         : ATTN_SRC_MIXED;
}

static void embed(attn_trace *t, const attn_vocab *vocab, const attn_weights *w) {
    int n = t->n, dm = t->cfg.d_model;
    for (int i = 0; i < n; i++) t->vocab_index[i] = -1;
    if (w && w->x) {
        memcpy(t->x, w->x, sizeof(double) * (size_t)n * dm);
        t->x_given = true;
        return;
    }
    t->vocab_used = vocab && vocab->dim == dm;
    for (int i = 0; i < n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        int row = t->vocab_used ? attn_vocab_find(vocab, tok, (size_t)len) : -1;
        double *xi = t->x + (size_t)i * dm;
        t->vocab_index[i] = row;
        if (row >= 0) {
            memcpy(xi, vocab->vectors + (size_t)row * dm, sizeof(double) * (size_t)dm);
            t->vocab_rows++;
        } else {
            attn_derived_embedding(xi, tok, (size_t)len, dm);
        }
    }
    if (t->cfg.pos_enc) {
        // add the encoding row by row so no scratch buffer is needed; a lesson
        // may keep it to the columns it set aside for positions
        double pe[ATTN_MAX_D_MODEL];
        int first, width;
        attn_positional_columns(&t->cfg, &first, &width);
        for (int p = 0; p < n; p++) {
            attn_positional_row(pe, t->cfg.pos_offset + p, dm);
            for (int c = first; c < first + width; c++) t->x[(size_t)p * dm + c] += pe[c];
        }
    }
}

/* Every matrix: the caller's where given (a bias only while biases are on),
 * else the seeded one. Under grouped-query attention a group's W_K, W_V,
 * b_K, b_V are one matrix: the group's first head given it gives it to the
 * group, and a head given a different one is refused. */
static attn_status init_weights(attn_trace *t, const attn_weights *w, attn_err *err) {
    const attn_config *c = &t->cfg;
    for (int m = 0; m < ATTN_MAT_COUNT; m++) {
        int rows, cols, nh = attn_matrix_per_head((attn_matrix)m) ? c->heads : 1;
        attn_matrix_shape((attn_matrix)m, c, &rows, &cols);
        size_t count = (size_t)rows * cols;
        bool off = attn_matrix_is_bias((attn_matrix)m) && !c->bias;
        for (int h = 0; h < nh; h++) {
            const double *given = w && !off ? w->mat[m][h] : NULL;
            double *dst = attn_trace_matrix(t, (attn_matrix)m, h);
            int first = attn_matrix_kv((attn_matrix)m) ? attn_kv_head_of(c, h) * (c->heads / attn_kv_heads(c)) : h;
            const double *lead = w && !off ? w->mat[m][first] : NULL;
            if (first != h && given && (!lead || memcmp(given, lead, sizeof(double) * count) != 0))
                return attn_fail(err, ATTN_ERR_SHAPE,
                                 "Head %d's %s differs from head %d's, but with --kv-heads %d they share one "
                                 "(heads %d to %d are one group).",
                                 h + 1, attn_matrix_name((attn_matrix)m), first + 1, attn_kv_heads(c), first + 1,
                                 first + c->heads / attn_kv_heads(c));
            if (first != h && !given) given = lead;
            if (given) memcpy(dst, given, sizeof(double) * count);
            else attn_seeded_matrix(dst, (attn_matrix)m, h, c);
            t->given[m][h] = given != NULL;
        }
    }
    return ATTN_OK;
}

/* Checks a stage's result; the message names the stage as the CLI spells it. */
#define CHECK(ptr, count, stage) \
    do { \
        attn_status st_ = attn_check_finite((ptr), (count), attn_stage_name(stage), err); \
        if (st_ != ATTN_OK) return st_; \
    } while (0)

attn_status attn_head_forward(attn_head *hd, const double *x, int n, const attn_config *c, attn_err *err) {
    int dm = c->d_model, dk = c->d_k;
    size_t ndk = (size_t)n * dk;
    // pass 1: projections Q, K, V = X·W (+ b): (n, d_model)·(d_model, d_k) -> (n, d_k)
    attn_matmul(hd->q, x, hd->w_q, hd->b_q, n, dm, dk);
    attn_matmul(hd->k, x, hd->w_k, hd->b_k, n, dm, dk);
    attn_matmul(hd->v, x, hd->w_v, hd->b_v, n, dm, dk);
    CHECK(hd->q, ndk, ATTN_ST_Q);
    CHECK(hd->k, ndk, ATTN_ST_K);
    CHECK(hd->v, ndk, ATTN_ST_V);
    return attn_head_attend(hd, n, c, err);
}

attn_status attn_head_attend(attn_head *hd, int n, const attn_config *c, attn_err *err) {
    int dk = c->d_k;
    size_t nn = (size_t)n * n, ndk = (size_t)n * dk;
    // pass 1b (RoPE): rotate each pair of q and k by its position's angle; v stays
    const double *qs = hd->q, *ks = hd->k;
    if (c->rope) {
        attn_rope(hd->q_rot, hd->q, n, dk, c->pos_offset, c->rope_base);
        attn_rope(hd->k_rot, hd->k, n, dk, c->pos_offset, c->rope_base);
        qs = hd->q_rot, ks = hd->k_rot;
        CHECK(hd->q_rot, ndk, ATTN_ST_Q_ROT);
        CHECK(hd->k_rot, ndk, ATTN_ST_K_ROT);
    }
    // pass 2: scores, optional scaling, mask
    attn_scores(hd->scores, qs, ks, n, dk);
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

void attn_concat_heads(double *concat, const attn_head *heads, int n_heads, int n, int d_k) {
    size_t hk = (size_t)n_heads * d_k;
    for (int h = 0; h < n_heads; h++)
        for (int i = 0; i < n; i++)
            memcpy(concat + (size_t)i * hk + (size_t)h * d_k, heads[h].z + (size_t)i * d_k, sizeof(double) * (size_t)d_k);
}

void attn_count_macs(long long *macs, const attn_config *c, int n_tokens) {
    long long n = n_tokens, dm = c->d_model, dk = c->d_k, h = c->heads, g = attn_kv_heads(c);
    memset(macs, 0, sizeof(long long) * ATTN_STAGE_COUNT);
    macs[ATTN_ST_Q] = h * n * dm * dk;
    macs[ATTN_ST_K] = macs[ATTN_ST_V] = g * n * dm * dk;                      /* one K and V per kv-head, shared by its group */
    macs[ATTN_ST_Q_ROT] = macs[ATTN_ST_K_ROT] = c->rope ? h * n * dk * 2 : 0; /* RoPE: 2 products per value */
    macs[ATTN_ST_SCORES] = h * n * n * dk;
    macs[ATTN_ST_SCALED] = c->scale ? h * n * n : 0; /* one division each */
    macs[ATTN_ST_WEIGHTS] = h * n * n;               /* one exp and one add each */
    macs[ATTN_ST_Z] = h * n * n * dk;
    macs[ATTN_ST_OUTPUT] = n * h * dk * dm;
}

static void count_macs(attn_trace *t) {
    attn_count_macs(t->macs, &t->cfg, t->n);
}

static attn_status run_stages(attn_trace *t, const attn_vocab *vocab,
                              const attn_weights *w, attn_err *err) {
    const attn_config *c = &t->cfg;
    int n = t->n, dm = c->d_model, dk = c->d_k, hk = c->heads * dk;
    embed(t, vocab, w);
    CHECK(t->x, (size_t)n * dm, ATTN_ST_X);
    attn_status st0 = init_weights(t, w, err);
    if (st0 != ATTN_OK) return st0;
    t->source = weight_source(t);
    for (int h = 0; h < c->heads; h++) {
        attn_status st = attn_head_forward(&t->head[h], t->x, n, c, err);
        if (st != ATTN_OK) return st;
    }
    attn_concat_heads(t->concat, t->head, c->heads, n, dk);
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
    attn_wordlist words = attn_vocab_words(vocab);
    st = attn_tokenize(&t.tokens, sentence, len, vocab ? &words : NULL, err);
    if (st != ATTN_OK) goto cleanup;
    t.n = t.tokens.n;
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
    case ATTN_ST_X:
    case ATTN_ST_OUTPUT: *cols = dm; break;
    case ATTN_ST_Q:
    case ATTN_ST_K:
    case ATTN_ST_V:
    case ATTN_ST_Q_ROT:
    case ATTN_ST_K_ROT:
    case ATTN_ST_Z: *cols = dk; break;
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
    case ATTN_ST_Q_ROT: return hd->q_rot; // NULL without RoPE
    case ATTN_ST_K_ROT: return hd->k_rot;
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

attn_wordlist attn_vocab_words(const attn_vocab *vocab) {
    attn_wordlist w = {0, NULL, NULL};
    if (vocab) w = (attn_wordlist){vocab->count, vocab->words, vocab->order};
    return w;
}

int attn_vocab_find(const attn_vocab *vocab, const char *tok, size_t tok_len) {
    if (!vocab) return -1;
    if (vocab->order) { // the case-folded run holding tok: an exact match, else its lowest index
        int first, last;
        attn_words_find(vocab->words, vocab->order, vocab->count, tok, tok_len, &first, &last);
        for (int k = first; k < last; k++) {
            const char *w = vocab->words[vocab->order[k]];
            if (w && strlen(w) == tok_len && memcmp(w, tok, tok_len) == 0) return vocab->order[k];
        }
        return first < last ? vocab->order[first] : -1;
    }
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
    return attn_tokens_pronoun(&t->tokens);
}

int attn_tokens_pronoun(const attn_tokens *t) {
    static const char *const pronouns[] = {"它", "it", "It"};
    for (int i = 0; i < t->n; i++) {
        int len;
        const char *tok = attn_token_text(t, i, &len);
        for (size_t k = 0; k < sizeof pronouns / sizeof *pronouns; k++)
            if ((size_t)len == strlen(pronouns[k]) && memcmp(tok, pronouns[k], (size_t)len) == 0) return i;
    }
    return -1;
}

int attn_trace_default_query(const attn_trace *t) {
    int p = attn_trace_pronoun(t);
    return p >= 0 ? p : 0;
}

double attn_mean_row_max(const attn_trace *t, int h) {
    const double *a = attn_trace_stage(t, ATTN_ST_WEIGHTS, h);
    if (!a || t->n == 0) return 0;
    double sum = 0;
    for (int i = 0; i < t->n; i++) {
        double mx = 0;
        for (int j = 0; j < t->n; j++)
            if (a[(size_t)i * t->n + j] > mx) mx = a[(size_t)i * t->n + j];
        sum += mx;
    }
    return sum / t->n;
}
