/* model.c — configuration, the parameter layout, creating, seeding, copying
 * and freeing a model, and tokenizing with its vocabulary. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PRNG streams of the model's weights: E, P and U have their own; layer l's
 * matrix m of head h is stream MODEL_STREAM_LAYER·(l + 1) + attn_weight_stream(h, m). */
#define MODEL_STREAM_E 1u
#define MODEL_STREAM_P 2u
#define MODEL_STREAM_U 3u
#define MODEL_STREAM_LAYER 4096u
#define EMBED_LIMIT 1.0 /* E and P uniform in [-1, 1]: the sinusoids' own range */

static const char *const pos_names[] = {"sinusoidal", "learned", "none", "rope"};
static const char *const objective_names[] = {"pointer", "token"};

const char *model_pos_name(model_pos p) {
    return (int)p >= 0 && p <= MODEL_POS_ROPE ? pos_names[p] : "?";
}

attn_status model_pos_parse(model_pos *out, const char *s, attn_err *err) {
    for (int i = 0; i <= MODEL_POS_ROPE; i++)
        if (strcmp(s, pos_names[i]) == 0) {
            *out = (model_pos)i;
            return ATTN_OK;
        }
    return attn_fail(err, ATTN_ERR_RANGE, "--pos is sinusoidal, learned, none or rope (not \"%s\").", s);
}

bool model_pos_in_x(model_pos p) {
    return p == MODEL_POS_SINUSOIDAL || p == MODEL_POS_LEARNED;
}

const char *model_objective_name(model_objective o) {
    return (int)o >= 0 && o <= MODEL_OBJ_TOKEN ? objective_names[o] : "?";
}

attn_status model_objective_parse(model_objective *out, const char *s, attn_err *err) {
    for (int i = 0; i <= MODEL_OBJ_TOKEN; i++)
        if (strcmp(s, objective_names[i]) == 0) {
            *out = (model_objective)i;
            return ATTN_OK;
        }
    return attn_fail(err, ATTN_ERR_RANGE, "--objective is pointer or token (not \"%s\").", s);
}

void model_attn_config(attn_config *out, const model_config *c) {
    attn_config_default(out);
    out->d_model = c->d_model;
    out->d_k = c->d_k;
    out->heads = c->heads;
    out->mask = c->mask;
    out->scale = c->scale;
    out->bias = c->bias;
    out->pos_enc = false; // a layer's X is given whole
    out->kv_heads = c->kv_heads == c->heads ? 0 : c->kv_heads;
    out->rope = c->pos == MODEL_POS_ROPE;
    out->rope_base = c->rope_base > 0 ? c->rope_base : ATTN_ROPE_BASE;
    out->pos_offset = c->pos_offset; // RoPE turns position offset + i
}

attn_status model_config_check(const model_config *c, attn_err *err) {
    attn_config a;
    model_attn_config(&a, c);
    attn_status st = attn_config_check(&a, err);
    if (st != ATTN_OK) return st;
    if (c->layers < 1 || c->layers > MODEL_MAX_LAYERS)
        return attn_fail(err, ATTN_ERR_RANGE, "--layers must be between 1 and %d (it is %d).",
                         MODEL_MAX_LAYERS, c->layers);
    if (c->max_len < 1 || c->max_len > MODEL_MAX_LEN)
        return attn_fail(err, ATTN_ERR_RANGE, "max_len must be between 1 and %d (it is %d).",
                         MODEL_MAX_LEN, c->max_len);
    if ((int)c->pos < 0 || c->pos > MODEL_POS_ROPE || (int)c->objective < 0 || c->objective > MODEL_OBJ_TOKEN)
        return attn_fail(err, ATTN_ERR_RANGE, "Unknown position scheme or objective.");
    return ATTN_OK;
}

/* Appends one tensor to the table. */
static void add_tensor(model_tensor *out, int *count, size_t *total, const char *name, int layer,
                       int head, int matrix, int rows, int cols, bool vector, bool decay) {
    model_tensor *t = &out[(*count)++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->layer = layer;
    t->head = head;
    t->matrix = matrix;
    t->rows = rows;
    t->cols = cols;
    t->vector = vector;
    t->decay = decay;
    t->offset = *total;
    *total += (size_t)rows * cols;
}

int model_tensors(model_tensor *out, const model_config *c, int vocab, size_t *total) {
    int count = 0;
    attn_config a;
    model_attn_config(&a, c);
    *total = 0;
    add_tensor(out, &count, total, "E", -1, -1, -1, vocab, c->d_model, false, true);
    if (c->pos == MODEL_POS_LEARNED)
        add_tensor(out, &count, total, "P", -1, -1, -1, c->max_len, c->d_model, false, true);
    for (int l = 0; l < c->layers; l++) {
        // in the file's order: each head's W_Q, W_K, W_V (b_Q, b_K, b_V), then W_O (b_O)
        static const attn_matrix per_head[] = {ATTN_MAT_W_Q, ATTN_MAT_W_K, ATTN_MAT_W_V,
                                               ATTN_MAT_B_Q, ATTN_MAT_B_K, ATTN_MAT_B_V};
        for (int h = 0; h < c->heads; h++)
            for (int i = 0; i < 6; i++) {
                attn_matrix m = per_head[i];
                bool bias = attn_matrix_is_bias(m);
                if (bias && !c->bias) continue;
                if (attn_matrix_kv(m) && h % (c->heads / attn_kv_heads(&a))) continue; // the group's first head holds its K, V
                int rows, cols;
                attn_matrix_shape(m, &a, &rows, &cols);
                add_tensor(out, &count, total, attn_matrix_name(m), l, h, (int)m, rows, cols, bias, !bias);
            }
        int rows, cols;
        attn_matrix_shape(ATTN_MAT_W_O, &a, &rows, &cols);
        add_tensor(out, &count, total, "W_O", l, -1, ATTN_MAT_W_O, rows, cols, false, true);
        if (c->bias) add_tensor(out, &count, total, "b_O", l, -1, ATTN_MAT_B_O, 1, c->d_model, true, false);
    }
    if (c->objective == MODEL_OBJ_TOKEN) {
        add_tensor(out, &count, total, "U", -1, -1, -1, c->d_model, vocab, false, true);
        add_tensor(out, &count, total, "b_U", -1, -1, -1, 1, vocab, true, false);
    }
    return count;
}

void model_params_bind(model_params *p, double *block, const model_tensor *t, int count) {
    memset(p, 0, sizeof *p);
    int heads = 0;
    for (int i = 0; i < count; i++) {
        double *at = block + t[i].offset;
        if (t[i].layer >= 0) p->layer[t[i].layer].mat[t[i].matrix][t[i].head < 0 ? 0 : t[i].head] = at;
        else if (strcmp(t[i].name, "E") == 0) p->e = at;
        else if (strcmp(t[i].name, "P") == 0) p->p = at;
        else if (strcmp(t[i].name, "U") == 0) p->u = at;
        else p->b_u = at;
        if (t[i].matrix == ATTN_MAT_W_Q && t[i].head >= heads) heads = t[i].head + 1;
    }
    // grouped-query attention: a head without its own K, V reads its group's (the
    // first head before it that has them); a gradient block bound the same way
    // adds every head of the group into the one shared tensor
    for (int l = 0; l < MODEL_MAX_LAYERS; l++)
        for (int m = 0; m < ATTN_MAT_COUNT; m++)
            for (int h = 1; h < heads && attn_matrix_kv((attn_matrix)m); h++)
                if (!p->layer[l].mat[m][h]) p->layer[l].mat[m][h] = p->layer[l].mat[m][h - 1];
}

static attn_status check_vocab(const char *const *vocab, int count, attn_err *err) {
    if (count < 1 || count > MODEL_MAX_VOCAB)
        return attn_fail(err, ATTN_ERR_RANGE, "A vocabulary has 1 to %d words (this one has %d).",
                         MODEL_MAX_VOCAB, count);
    for (int i = 0; i < count; i++) {
        size_t len = strlen(vocab[i]);
        if (len == 0 || len >= MODEL_MAX_WORD)
            return attn_fail(err, ATTN_ERR_RANGE, "vocab[%d] must have 1 to %d bytes.", i, MODEL_MAX_WORD - 1);
        for (int j = 0; j < i; j++)
            if (strcmp(vocab[i], vocab[j]) == 0)
                return attn_fail(err, ATTN_ERR_PARSE, "vocab[%d] \"%s\" repeats vocab[%d]; each word appears once.",
                                 i, vocab[i], j);
    }
    return ATTN_OK;
}

attn_status model_create(model *out, const model_config *c, const char *const *vocab, int vocab_count,
                         const char *task, const char *probe, attn_err *err) {
    model m;
    memset(&m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    attn_status st = model_config_check(c, err);
    if (st == ATTN_OK) st = check_vocab(vocab, vocab_count, err);
    if (st != ATTN_OK) return st;
    m.cfg = *c;
    snprintf(m.task, sizeof m.task, "%s", task ? task : "");
    m.n_tensors = model_tensors(m.tensor, c, vocab_count, &m.n_params);
    m.vocab_count = vocab_count;
    m.vocab = calloc((size_t)vocab_count, sizeof *m.vocab);
    m.probe = strdup(probe ? probe : "");
    m.block = calloc(m.n_params, sizeof(double));
    if (!m.vocab || !m.probe || !m.block) goto nomem;
    for (int i = 0; i < vocab_count; i++)
        if (!(m.vocab[i] = strdup(vocab[i]))) goto nomem;
    model_params_bind(&m.w, m.block, m.tensor, m.n_tensors);
    *out = m;
    return ATTN_OK;
nomem:
    model_free(&m);
    return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for a model of %zu parameters.", m.n_params);
}

void model_init_weights(model *m, uint32_t seed) {
    for (int i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensor[i];
        double *w = m->block + t->offset;
        size_t count = (size_t)t->rows * t->cols;
        if (t->vector) { // biases start at 0, as the readout's and the layers' do in most recipes
            memset(w, 0, sizeof(double) * count);
        } else if (t->layer >= 0) {
            attn_config a;
            model_attn_config(&a, &m->cfg);
            int h = t->head < 0 ? 0 : t->head; // a group's K and V: kv-head g's stream, as in the core
            if (attn_matrix_kv((attn_matrix)t->matrix)) h = attn_kv_head_of(&a, h);
            uint32_t stream = MODEL_STREAM_LAYER * (uint32_t)(t->layer + 1) + attn_weight_stream(h, (attn_matrix)t->matrix);
            attn_xavier_uniform(w, t->rows, t->cols, seed, stream);
        } else if (strcmp(t->name, "U") == 0) {
            attn_xavier_uniform(w, t->rows, t->cols, seed, MODEL_STREAM_U);
        } else { // E and P
            uint32_t stream = strcmp(t->name, "E") == 0 ? MODEL_STREAM_E : MODEL_STREAM_P;
            for (size_t k = 0; k < count; k++) w[k] = attn_prng_uniform(seed, stream, k, EMBED_LIMIT);
        }
    }
}

attn_status model_copy(model *dst, const model *src, attn_err *err) {
    attn_status st = model_create(dst, &src->cfg, (const char *const *)src->vocab, src->vocab_count,
                                  src->task, src->probe, err);
    if (st != ATTN_OK) return st;
    memcpy(dst->block, src->block, sizeof(double) * src->n_params);
    dst->training = src->training;
    return ATTN_OK;
}

void model_free(model *m) {
    if (!m) return;
    if (m->vocab)
        for (int i = 0; i < m->vocab_count; i++) free(m->vocab[i]);
    free(m->vocab);
    free(m->probe);
    free(m->block);
    memset(m, 0, sizeof *m);
}

void model_vocab_view(const model *m, attn_vocab *out) {
    memset(out, 0, sizeof *out);
    out->dim = m->cfg.d_model;
    out->count = m->vocab_count;
    out->words = (const char *const *)m->vocab;
    out->vectors = m->w.e;
}

int model_word_id(const model *m, const char *tok, size_t len) {
    attn_vocab v;
    model_vocab_view(m, &v);
    return attn_vocab_find(&v, tok, len);
}

attn_status model_check_positions(const model *m, int n, attn_err *err) {
    int k = m->cfg.pos_offset;
    if (m->cfg.pos != MODEL_POS_LEARNED || k + n <= m->cfg.max_len) return ATTN_OK;
    char a[24], b[24], c[24];
    snprintf(a, sizeof a, "%d", k);
    snprintf(b, sizeof b, "%d", k + n - 1);
    snprintf(c, sizeof c, "%d", m->cfg.max_len - 1);
    return attn_fail_msg(err, ATTN_ERR_RANGE, ATTN_MSG_MODEL_POS_OFFSET, a, b, c);
}

attn_status model_tokenize(const model *m, const char *sentence, size_t len, attn_tokens *toks,
                           int *ids, attn_err *err) {
    attn_wordlist words = {m->vocab_count, (const char *const *)m->vocab, NULL}; // at most 512 words: no index
    attn_status st = attn_tokenize(toks, sentence, len, &words, err);
    if (st != ATTN_OK) return st;
    char a[24], b[24], w[128];
    if (toks->n > m->cfg.max_len) {
        snprintf(a, sizeof a, "%d", toks->n);
        snprintf(b, sizeof b, "%d", m->cfg.max_len);
        st = attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_MODEL_MAX_LEN, a, b, NULL);
        goto cleanup;
    }
    if ((st = model_check_positions(m, toks->n, err)) != ATTN_OK) goto cleanup;
    for (int i = 0; i < toks->n; i++) {
        int tl;
        const char *tok = attn_token_text(toks, i, &tl);
        ids[i] = model_word_id(m, tok, (size_t)tl);
        if (ids[i] < 0) {
            snprintf(w, sizeof w, "%.*s", tl, tok);
            snprintf(a, sizeof a, "%d", i + 1);
            snprintf(b, sizeof b, "%d", m->vocab_count);
            st = attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_MODEL_UNKNOWN_WORD, w, a, b);
            goto cleanup;
        }
    }
    return ATTN_OK;
cleanup:
    attn_tokens_free(toks);
    return st;
}
