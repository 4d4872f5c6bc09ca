/* model_run.c — a sentence through a model for showing it: per-layer traces,
 * the readout, the prediction, the loss and every gradient; and the
 * explanation of one cell of any of them. */
#include "model_run.h"
#include "task.h"
#include "attn_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The targets as rows and answers (vocabulary indices or positions). */
static attn_status resolve_targets(model_result *r, const model *m, const model_target_spec *spec, int count,
                                   attn_err *err) {
    for (int k = 0; k < count; k++) {
        int row = spec[k].pos;
        if (row < 0 || row >= r->n)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_TARGET_POS, row,
                                spec[k].token, r->n - 1);
        for (int q = 0; q < k; q++)
            if (spec[q].pos == row)
                return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_TARGET_TWICE, row);
        int id = model_word_id(m, spec[k].token, strlen(spec[k].token));
        if (id < 0)
            return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_MR_TARGET_WORD, row,
                                spec[k].token, spec[k].token);
        int answer = id;
        if (m->cfg.objective == MODEL_OBJ_POINTER) { // the answer is where the word stands
            int found = 0;
            for (int i = 0; i < r->n; i++)
                if (r->ids[i] == id) answer = i, found++;
            if (found != 1)
                return attn_fail(err, ATTN_ERR_INPUT,
                                 "--target %d:%s: a pointer model's answer is a position, so \"%s\" must occur exactly "
                                 "once in the sentence (it occurs %d times).",
                                 row, spec[k].token, spec[k].token, found);
        }
        r->targets[k] = (model_target){row, answer};
    }
    r->n_targets = count;
    return ATTN_OK;
}

/* Layer l as the core's trace: X and every weight given, so every existing
 * view, explanation and export reads it as a one-layer trace. */
static attn_status layer_trace(model_result *r, const model *m, int l, const char *sentence, size_t len,
                               attn_err *err) {
    attn_config c;
    memset(&c, 0, sizeof c); // padding too: the trace copies it, and exports hash the configuration's bytes
    model_attn_config(&c, &m->cfg);
    attn_weights w;
    memset(&w, 0, sizeof w);
    w.x = r->ws_.x[l];
    for (int mt = 0; mt < ATTN_MAT_COUNT; mt++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++) w.mat[mt][h] = m->w.layer[l].mat[mt][h];
    attn_vocab v;
    model_vocab_view(m, &v);
    return attn_trace_run(&r->layer[l], sentence, len, &c, &v, &w, err);
}

/* E[token] and the positions, apart (layer 0's X is their sum). */
static attn_status split_embedding(model_result *r, const model *m, attn_err *err) {
    int n = r->n, dm = m->cfg.d_model;
    r->embed_block_ = calloc((size_t)2 * n * dm, sizeof(double));
    if (!r->embed_block_) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to run the model.");
    double *e = r->embed_block_, *p = e + (size_t)n * dm;
    for (int i = 0; i < n; i++) {
        memcpy(e + (size_t)i * dm, m->w.e + (size_t)r->ids[i] * dm, sizeof(double) * (size_t)dm);
        if (model_pos_in_x(m->cfg.pos)) memcpy(p + (size_t)i * dm, model_pos_row(&r->ws_, i), sizeof(double) * (size_t)dm);
    }
    r->embed = e;
    r->pos = p;
    return ATTN_OK;
}

/* Targets given as rows and answers: each row in the sentence once, each
 * answer a word of the vocabulary or (pointer) a position. */
static attn_status copy_targets(model_result *r, const model *m, const model_target *t, int count, attn_err *err) {
    int limit = m->cfg.objective == MODEL_OBJ_POINTER ? r->n : m->vocab_count;
    for (int k = 0; k < count; k++) {
        if (t[k].row < 0 || t[k].row >= r->n || t[k].target < 0 || t[k].target >= limit)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_TARGET_OUTSIDE,
                                k, t[k].row, t[k].target);
        for (int q = 0; q < k; q++)
            if (t[q].row == t[k].row)
                return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_ROW_TWO_TARGETS, t[k].row);
        r->targets[k] = t[k];
    }
    r->n_targets = count;
    return ATTN_OK;
}

/* spec (named targets) or resolved (rows and answers): one of them, count entries. */
static attn_status run(model_result *r, const model *m, const char *sentence, size_t len,
                       const model_target_spec *spec, const model_target *resolved, int count, attn_err *err) {
    attn_tokens toks;
    attn_status st = model_tokenize(m, sentence, len, &toks, r->ids, err);
    if (st != ATTN_OK) return st;
    r->n = toks.n;
    attn_tokens_free(&toks); // the layers' traces keep their own
    st = resolved ? copy_targets(r, m, resolved, count, err) : resolve_targets(r, m, spec, count, err);
    if (st != ATTN_OK) return st;
    r->grad_block_ = calloc(m->n_params, sizeof(double));
    if (!r->grad_block_) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to run the model.");
    model_params_bind(&r->grad, r->grad_block_, m->tensor, m->n_tensors);
    model_ws *ws = &r->ws_;
    if ((st = model_ws_init(ws, m, r->grad_block_, err)) != ATTN_OK) return st;
    if ((st = model_forward(ws, r->ids, r->n, err)) != ATTN_OK) return st;
    model_readout(ws, 0, r->n);
    for (int i = 0; i < r->n; i++) {
        int p = model_predict_row(ws, i);
        r->predicted[i] = m->cfg.objective == MODEL_OBJ_TOKEN ? p : r->ids[p];
    }
    if (count > 0) {
        st = model_loss(ws, r->ids, r->targets, count, 1.0 / count, true, &r->loss, err);
        if (st != ATTN_OK) return st;
    }
    for (int l = 0; l < m->cfg.layers; l++) {
        if ((st = layer_trace(r, m, l, sentence, len, err)) != ATTN_OK) return st;
        r->residual[l] = ws->x[l + 1];
        r->d_x[l] = ws->dx[l];
        r->d_output[l] = ws->dx[l + 1];
    }
    r->logits = ws->logits;
    r->probs = ws->probs;
    r->avg = ws->avg;
    return split_embedding(r, m, err);
}

/* Either kind of targets, checked; *out built in place (its pointers lead
 * into its own workspace) and left freed on error. */
static attn_status run_into(model_result *out, const model *m, const char *sentence, size_t len,
                            const model_target_spec *spec, const model_target *resolved, int count, attn_err *err) {
    model_result_free(out);
    if (count < 0 || count > MODEL_MAX_LEN)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_TARGETS_MAX, MODEL_MAX_LEN);
    attn_status st = run(out, m, sentence, len, spec, resolved, count, err);
    if (st != ATTN_OK) model_result_free(out);
    return st;
}

attn_status model_run(model_result *out, const model *m, const char *sentence, size_t len,
                      const model_target_spec *targets, int count, attn_err *err) {
    return run_into(out, m, sentence, len, targets, NULL, count, err);
}

attn_status model_run_targets(model_result *out, const model *m, const char *sentence, size_t len,
                              const model_target *targets, int count, attn_err *err) {
    return run_into(out, m, sentence, len, NULL, targets, count, err);
}

int model_view_targets(const model *m, const model_result *r, int query, model_target *out, bool *labelled) {
    const task_info *t = task_find(m->task);
    task_target tt[MODEL_MAX_LEN];
    int k = t ? task_label(t, r->ids, r->n, tt) : 0;
    bool pointer = m->cfg.objective == MODEL_OBJ_POINTER;
    *labelled = k > 0;
    for (int i = 0; i < k; i++) out[i] = (model_target){tt[i].row, pointer ? tt[i].pos : tt[i].tok};
    if (k > 0) return k;
    int q = query < 0 ? 0 : query >= r->n ? r->n - 1
                                          : query;
    out[0] = (model_target){q, model_predict_row(&r->ws_, q)}; // a position (pointer) or a word (token)
    return 1;
}

attn_status model_run_view(model_result *out, const model *m, const char *sentence, size_t len, int query,
                           bool *labelled, attn_err *err) {
    model_result probe;
    memset(&probe, 0, sizeof probe);
    model_target targets[MODEL_MAX_LEN];
    attn_status rc = model_run(&probe, m, sentence, len, NULL, 0, err);
    if (rc == ATTN_OK) {
        if (query < 0) query = attn_trace_default_query(&probe.layer[0]); // the pronoun, else the first token
        int count = model_view_targets(m, &probe, query, targets, labelled);
        rc = model_run_targets(out, m, sentence, len, targets, count, err);
    }
    model_result_free(&probe);
    return rc;
}

void model_result_free(model_result *r) {
    if (!r) return;
    for (int l = 0; l < MODEL_MAX_LAYERS; l++) attn_trace_free(&r->layer[l]);
    model_ws_free(&r->ws_);
    free(r->grad_block_);
    free(r->embed_block_);
    memset(r, 0, sizeof *r);
}

const attn_head_grad *model_result_head_grad(const model_result *r, int l, int h) {
    return &r->ws_.hg[l][h];
}

/* ---- explaining a cell ---------------------------------------------------------- */

static const char *const extra_names[] = {"residual", "logits", "probs", "d_weights", "d_scaled", "avg"};

const double *model_result_stage(const model_result *r, const model *m, int stage, int layer, int head,
                                 int *rows, int *cols) {
    int n = r->n, h = model_stage_per_head(stage) ? head : 0;
    bool token = m->cfg.objective == MODEL_OBJ_TOKEN, last = layer == m->cfg.layers - 1;
    *rows = *cols = 0;
    if (layer < 0 || layer >= m->cfg.layers || h < 0 || h >= m->cfg.heads || stage < 0) return NULL;
    if (stage < ATTN_STAGE_COUNT) {
        attn_trace_shape(&r->layer[layer], (attn_stage)stage, rows, cols);
        return attn_trace_stage(&r->layer[layer], (attn_stage)stage, h);
    }
    const attn_head_grad *g = model_result_head_grad(r, layer, h);
    const double *v = NULL;
    int c = n;
    switch (stage) {
    case MODEL_ST_RESIDUAL: v = r->residual[layer], c = m->cfg.d_model; break;
    case MODEL_ST_LOGITS: v = token && last ? r->logits : NULL, c = m->vocab_count; break;
    case MODEL_ST_PROBS: v = token && last ? r->probs : NULL, c = m->vocab_count; break;
    case MODEL_ST_D_WEIGHTS: v = r->n_targets ? g->d_weights : NULL; break;
    case MODEL_ST_D_SCALED: v = r->n_targets ? g->d_scaled : NULL; break;
    case MODEL_ST_AVG: v = last ? r->avg : NULL; break;
    default: break;
    }
    if (v) *rows = n, *cols = c;
    return v;
}

bool model_stage_per_head(int stage) {
    if (stage >= 0 && stage < ATTN_STAGE_COUNT) return attn_stage_per_head((attn_stage)stage);
    return stage == MODEL_ST_D_WEIGHTS || stage == MODEL_ST_D_SCALED;
}

const char *model_stage_name(int stage) {
    if (stage >= 0 && stage < ATTN_STAGE_COUNT) return attn_stage_name((attn_stage)stage);
    return stage >= ATTN_STAGE_COUNT && stage < MODEL_STAGE_COUNT ? extra_names[stage - ATTN_STAGE_COUNT] : "?";
}

int model_stage_from_name(const char *name) {
    int s = attn_stage_from_name(name);
    for (int i = 0; s < 0 && i < MODEL_STAGE_COUNT - ATTN_STAGE_COUNT; i++)
        if (strcmp(name, extra_names[i]) == 0) s = ATTN_STAGE_COUNT + i;
    return s;
}

int model_step_grad(attn_step s) {
    if (s == ATTN_STEP_SOFTMAX) return MODEL_ST_D_WEIGHTS;
    return s == ATTN_STEP_SCALE || s == ATTN_STEP_MASK ? MODEL_ST_D_SCALED : -1;
}

static void dot_terms(attn_explanation *e, const double *a, const double *b, size_t stride, int count) {
    e->kind = ATTN_EXPLAIN_DOT;
    e->n_terms = count;
    for (int c = 0; c < count; c++) {
        attn_term *t = &e->terms[c];
        t->index = c;
        t->a = a[c];
        t->b = b[(size_t)c * stride];
        t->value = t->a * t->b;
    }
}

/* The softmax of a logits row, as attn_explain words a softmax. */
static void softmax_terms(attn_explanation *e, const double *row, int v, int col) {
    double mx = row[0], sum = 0.0;
    for (int j = 1; j < v; j++)
        if (row[j] > mx) mx = row[j];
    e->kind = ATTN_EXPLAIN_SOFTMAX;
    e->softmax.score = row[col];
    e->softmax.row_max = mx;
    e->n_terms = v;
    for (int j = 0; j < v; j++) {
        attn_term *t = &e->terms[j];
        t->index = j;
        t->a = row[j];
        t->b = mx;
        t->value = attn_exp(row[j] - mx);
        sum += t->value;
    }
    e->softmax.denom = sum;
}

static attn_status check_cell(int rows, int cols, int row, int col, const char *stage, attn_err *err) {
    if (row < 0 || row >= rows)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_ROW_OUTSIDE, row, stage, rows - 1);
    if (col < 0 || col >= cols)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_COL_OUTSIDE, col, stage, cols - 1);
    return ATTN_OK;
}

static attn_status explain_extra(model_explanation *e, const model_result *r, const model *m, attn_err *err) {
    int n = r->n, dm = m->cfg.d_model, dk = m->cfg.d_k, v = m->vocab_count, l = e->layer, i = e->row, j = e->col;
    const char *name = model_stage_name(e->stage);
    bool grad = e->stage == MODEL_ST_D_WEIGHTS || e->stage == MODEL_ST_D_SCALED;
    bool readout = e->stage == MODEL_ST_LOGITS || e->stage == MODEL_ST_PROBS;
    if (grad && r->n_targets == 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_GRADIENT, name);
    if (readout && m->cfg.objective != MODEL_OBJ_TOKEN)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_TOKEN_MODEL_ONLY,
                            name);
    if (e->stage == MODEL_ST_AVG && l != m->cfg.layers - 1)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_AVG_LAST,
                            m->cfg.layers - 1);
    attn_status st = check_cell(n, e->stage == MODEL_ST_RESIDUAL ? dm : readout ? v
                                                                                : n,
                                i, j, name, err);
    if (st != ATTN_OK) return st;
    const attn_head *hd = &r->layer[l].head[e->head];
    const attn_head_grad *g = model_result_head_grad(r, l, e->head);
    switch (e->stage) {
    case MODEL_ST_RESIDUAL:
        e->kind = MODEL_EX_RESIDUAL;
        e->a = r->layer[l].x[(size_t)i * dm + j];
        e->b = r->layer[l].output[(size_t)i * dm + j];
        e->value = r->residual[l][(size_t)i * dm + j];
        break;
    case MODEL_ST_LOGITS: // logits[i][v] = Σ_c x_L[i][c]·U[c][v] + b_U[v]
        e->kind = MODEL_EX_LOGITS;
        dot_terms(&e->core, r->residual[m->cfg.layers - 1] + (size_t)i * dm, m->w.u + j, (size_t)v, dm);
        e->core.dot.has_bias = true;
        e->core.dot.bias = m->w.b_u[j];
        e->value = r->logits[(size_t)i * v + j];
        break;
    case MODEL_ST_PROBS:
        e->kind = MODEL_EX_PROBS;
        softmax_terms(&e->core, r->logits + (size_t)i * v, v, j);
        e->value = r->probs[(size_t)i * v + j];
        break;
    case MODEL_ST_D_WEIGHTS: { // dA[i][j] = Σ_c dZ[i][c]·V[j][c] (+ the pointer loss's own term)
        e->kind = MODEL_EX_D_WEIGHTS;
        dot_terms(&e->core, g->dz + (size_t)i * dk, hd->v + (size_t)j * dk, 1, dk);
        e->value = g->d_weights[(size_t)i * n + j];
        // the pointer loss reads the last layer's A itself: −1/(H·Ā_ij) per target, over the target count
        for (int k = 0; k < r->n_targets && m->cfg.objective == MODEL_OBJ_POINTER && l == m->cfg.layers - 1; k++)
            if (r->targets[k].row == i && r->targets[k].target == j)
                e->a += -(1.0 / r->n_targets) / (m->cfg.heads * r->avg[(size_t)i * n + j]);
        break;
    }
    case MODEL_ST_AVG: // Ā[i][j] = Σ_h A_h[i][j] / H, the average the pointer loss reads
        e->kind = MODEL_EX_AVG;
        e->core.kind = ATTN_EXPLAIN_DOT;
        e->core.n_terms = m->cfg.heads;
        for (int h = 0; h < m->cfg.heads; h++)
            e->core.terms[h] = (attn_term){.index = h, .a = r->layer[l].head[h].weights[(size_t)i * n + j], .b = 1.0 / m->cfg.heads};
        for (int h = 0; h < m->cfg.heads; h++) e->core.terms[h].value = e->core.terms[h].a * e->core.terms[h].b;
        e->value = r->avg[(size_t)i * n + j];
        break;
    default:
        e->kind = MODEL_EX_D_SCALED;
        st = attn_explain_softmax_backward(&e->grad, hd->weights, g->d_weights, m->cfg.mask, n, i, j, err);
        e->value = g->d_scaled[(size_t)i * n + j];
        break;
    }
    e->core.value = e->value; // the terms' own result, as for the core's stages (the panel ends with it)
    return st;
}

attn_status model_explain(model_explanation *e, const model_result *r, const model *m, int stage, int layer,
                          int head, int row, int col, attn_err *err) {
    memset(e, 0, sizeof *e);
    if (stage < 0 || stage >= MODEL_STAGE_COUNT) return attn_fail(err, ATTN_ERR_RANGE, "Unknown stage %d.", stage);
    if (layer < 0 || layer >= m->cfg.layers)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_LAYER_MISSING, layer, m->cfg.layers - 1);
    bool per_head = model_stage_per_head(stage);
    if (per_head && (head < 0 || head >= m->cfg.heads))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_MR_HEAD_MISSING, head, m->cfg.heads - 1);
    *e = (model_explanation){.stage = stage, .layer = layer, .head = per_head ? head : 0, .row = row, .col = col};
    if (stage >= ATTN_STAGE_COUNT) return explain_extra(e, r, m, err);
    attn_status st = attn_explain(&e->core, &r->layer[layer], (attn_stage)stage, e->head, row, col, err);
    if (st != ATTN_OK) return st;
    e->kind = MODEL_EX_CORE;
    e->value = e->core.value;
    if (stage == ATTN_ST_X) { // X is given to the trace: say where it came from
        int dm = m->cfg.d_model;
        e->kind = layer == 0 ? MODEL_EX_EMBED : MODEL_EX_COPY;
        e->a = layer == 0 ? r->embed[(size_t)row * dm + col] : r->residual[layer - 1][(size_t)row * dm + col];
        e->b = layer == 0 ? r->pos[(size_t)row * dm + col] : 0.0;
    }
    return ATTN_OK;
}
