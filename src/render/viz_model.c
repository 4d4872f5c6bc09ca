/* viz_model.c — what only a trained model has: the readout after its last
 * layer, and the backward pass's caption and gradients. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viz_internal.h"

#define TOP_WORDS 8

static bool pointer(const viz_ctx *c) { return c->s->model->cfg.objective == MODEL_OBJ_POINTER; }

static int query(const viz_ctx *c) {
    int q = c->s->query, n = c->s->run->n;
    return q < 0 ? 0 : q >= n ? n - 1
                              : q;
}

/* The readout's matrix: p over the vocabulary, or Ā over the tokens. */
static const double *answers(const viz_ctx *c, int *cols) {
    int rows;
    return model_result_stage(c->s->run, c->s->model, pointer(c) ? MODEL_ST_AVG : MODEL_ST_PROBS,
                              c->s->model->cfg.layers - 1, 0, &rows, cols);
}

/* The name of answer j: a word, or a token of the sentence. */
static void answer_name(const viz_ctx *c, int j, char *buf, size_t cap) {
    if (pointer(c)) attn_token_label(&c->s->trace->tokens, j, 14, buf, cap);
    else snprintf(buf, cap, "%s", c->s->model->vocab[j]);
}

/* The target's answer at row q, or -1 when q has none. */
static int target_at(const viz_ctx *c, int q) {
    const model_result *r = c->s->run;
    for (int k = 0; k < r->n_targets; k++)
        if (r->targets[k].row == q) return r->targets[k].target;
    return -1;
}

void viz_readout_equation(const viz_ctx *c, char *out, size_t cap) {
    if (c->s->hf) { // a real model: the last position's next token
        int dm = c->s->trace->cfg.d_model;
        snprintf(out, cap, viz_s(c, VIZ_S_HF_READOUT_EQ), dm, dm, c->s->hf->vocab);
        return;
    }
    const model *m = c->s->model;
    int n = c->s->run->n, dm = m->cfg.d_model, v = m->vocab_count;
    if (pointer(c))
        snprintf(out, cap, "Ā = (A₁ + … + A_H) / H   (%d×%d), H = %d", n, n, m->cfg.heads);
    else
        snprintf(out, cap, "p = softmax(x·U + b_U)   (%d×%d)·(%d×%d) → %d×%d", n, dm, dm, v, n, v);
}

/* Bars of the query's most likely answers: name, bar, value; the target marked. */
static void answer_bars(const viz_ctx *c, viz_box b, const double *row, int count) {
    int order[MODEL_MAX_VOCAB > ATTN_TRACE_MAX_TOKENS ? MODEL_MAX_VOCAB : ATTN_TRACE_MAX_TOKENS], q = query(c);
    for (int j = 0; j < count; j++) order[j] = j;
    for (int i = 0; i < count && i < TOP_WORDS; i++) // a partial selection sort: the first few, largest first
        for (int j = i + 1; j < count; j++)
            if (row[order[j]] > row[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    int shown = count < TOP_WORDS ? count : TOP_WORDS, target = target_at(c, q);
    bool listed = target < 0;
    for (int i = 0; i < shown && !listed; i++) listed = order[i] == target;
    if (!listed) order[shown - 1] = target; // the legend marks the target: it is always among the bars
    float rh = fminf(b.h / (shown + 1), c->body * 2.0f), px = fminf(c->body, rh * 0.62f);
    char name[96], val[32];
    float nw = 0; // the widest name, up to half the room: names are not cut where they fit
    for (int i = 0; i < shown; i++) {
        answer_name(c, order[i], name, sizeof name);
        nw = fmaxf(nw, viz_text_w(c, name, px) + 10 * c->u);
    }
    nw = fminf(nw, b.w * 0.5f);
    float vw = viz_text_w(c, "0.000", px) + 8 * c->u, bw = b.w - nw - vw - 12 * c->u;
    for (int i = 0; i < shown; i++) {
        int j = order[i];
        float y = b.y + i * rh;
        answer_name(c, j, name, sizeof name);
        bool is_target = j == target;
        viz_label(c, b.x, y, nw - 6 * c->u, rh, name, px, VIZ_RIGHT | VIZ_MIDDLE, is_target ? c->th->accent : c->th->text);
        viz_fill(c->l, b.x + nw, y + rh * 0.18f, bw, rh * 0.64f, c->th->panel2);
        viz_fill(c->l, b.x + nw, y + rh * 0.18f, (float)(bw * fmax(0.0, fmin(1.0, row[j]))), rh * 0.64f,
                 viz_sequential(0.35 + 0.65 * row[j]));
        if (is_target) viz_stroke(c->l, b.x + nw, y + rh * 0.18f, bw, rh * 0.64f, 2 * c->u, c->th->accent);
        snprintf(val, sizeof val, "%.3f", row[j]);
        viz_text(c->l, b.x + nw + bw + 6 * c->u, y, vw, rh, val, px, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
        viz_hit_region(c->l, b.x, y, b.w, rh, (viz_hit){.kind = VIZ_HIT_CELL, .stage = pointer(c) ? MODEL_ST_AVG : MODEL_ST_PROBS, .row = q, .col = j});
    }
    if (target >= 0) {
        char t[96];
        snprintf(t, sizeof t, "□ %s", viz_s(c, VIZ_S_READOUT_TARGET));
        viz_label(c, b.x + nw, b.y + shown * rh, bw, rh, t, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->accent);
    }
}

/* A real model's readout (--hf): the ten most likely next tokens after the
 * last one, as bars with p. */
static void hf_readout(const viz_ctx *c, viz_box b) {
    const viz_hf *hf = c->s->hf;
    const attn_trace *t = c->s->trace;
    char last[96], line[320], val[32];
    attn_token_label(&t->tokens, t->n - 1, 14, last, sizeof last);
    snprintf(line, sizeof line, viz_s(c, VIZ_S_HF_NEXT_TITLE), last);
    float h = viz_wrap_ex(c, (viz_box){b.x, b.y, b.w, c->big * 3.2f}, line, c->body, 0, 0, c->th->text, true);
    b.y += h + 8 * c->u;
    b.h -= h + 8 * c->u;
    int shown = hf->next_count;
    if (shown < 1) return;
    float rh = fminf(b.h / (shown + 1), c->body * 2.2f), px = fminf(c->body, rh * 0.62f), nw = 0;
    for (int i = 0; i < shown; i++) nw = fmaxf(nw, viz_text_w(c, hf->next_label[i], px) + 10 * c->u);
    nw = fminf(nw, b.w * 0.4f);
    float vw = viz_text_w(c, "0.0000", px) + 8 * c->u, bw = fminf(b.w - nw - vw - 12 * c->u, b.w * 0.5f);
    for (int i = 0; i < shown; i++) {
        float y = b.y + i * rh;
        double p = hf->next_p[i];
        viz_label(c, b.x, y, nw - 6 * c->u, rh, hf->next_label[i], px, VIZ_RIGHT | VIZ_MIDDLE, i ? c->th->text : c->th->accent);
        viz_fill(c->l, b.x + nw, y + rh * 0.18f, bw, rh * 0.64f, c->th->panel2);
        viz_fill(c->l, b.x + nw, y + rh * 0.18f, (float)(bw * fmax(0.0, fmin(1.0, p))), rh * 0.64f,
                 viz_sequential(0.35 + 0.65 * p));
        snprintf(val, sizeof val, "%.4f", p);
        viz_text(c->l, b.x + nw + bw + 6 * c->u, y, vw, rh, val, px, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    }
}

void viz_draw_readout(const viz_ctx *c, viz_box b) {
    const viz_scene *s = c->s;
    if (s->hf) {
        hf_readout(c, b);
        return;
    }
    int cols, q = query(c), n = s->run->n;
    const double *v = answers(c, &cols);
    if (!v) return;
    const double *row = v + (size_t)q * cols;
    int best = 0;
    for (int j = 1; j < cols; j++)
        if (row[j] > row[best]) best = j;
    char qn[96], an[96], val[32], line[320];
    attn_token_label(&s->trace->tokens, q, 14, qn, sizeof qn);
    answer_name(c, best, an, sizeof an);
    snprintf(val, sizeof val, "%.3f", row[best]);
    snprintf(line, sizeof line, viz_s(c, pointer(c) ? VIZ_S_READOUT_POINTS : VIZ_S_READOUT_PREDICTS), qn, an, val);
    bool hide = s->hide_weights;
    if (!hide) {
        float h = viz_wrap_ex(c, (viz_box){b.x, b.y, b.w, c->big * 3.2f}, line, c->big, 0, 0, c->th->highlight, true);
        b.y += h + 8 * c->u;
        b.h -= h + 8 * c->u;
    }
    float mw = b.w * 0.6f;
    viz_mat m;
    memset(&m, 0, sizeof m);
    m.v = v;
    m.rows = n;
    m.cols = cols;
    m.stage = pointer(c) ? MODEL_ST_AVG : MODEL_ST_PROBS;
    m.title = pointer(c) ? "Ā" : "p";
    m.map = VIZ_MAP_WEIGHTS;
    m.range = 1.0;
    m.row_labels = VIZ_LABEL_TOKENS;
    m.col_labels = pointer(c) ? VIZ_LABEL_TOKENS : VIZ_LABEL_WORDS;
    m.weight_of = -1;
    m.hidden = hide;
    m.mask = pointer(c) ? &s->trace->cfg.mask : NULL;
    viz_draw_single(c, (viz_box){b.x, b.y, mw, b.h}, &m);
    if (hide) return;
    float bx = b.x + mw + 20 * c->u, bwid = b.w - mw - 20 * c->u;
    snprintf(line, sizeof line, viz_s(c, pointer(c) ? VIZ_S_READOUT_ROW : VIZ_S_READOUT_TOP), qn);
    float th = viz_wrap_ex(c, (viz_box){bx, b.y, bwid, c->body * 3.2f}, line, c->body, 0, 0, c->th->text, true);
    th = fminf(th, c->body * 3.2f) + 6 * c->u;
    answer_bars(c, (viz_box){bx, b.y + th, bwid, fminf(b.h - th, c->body * 2.0f * (TOP_WORDS + 1))}, row, cols);
}

/* ---- the backward pass ---- */

const double *viz_step_grad(const viz_ctx *c, const attn_trace *t, int head, int *stage, double *range) {
    int rows, cols;
    *stage = model_step_grad(c->s->step);
    const double *g = model_result_stage(c->s->run, c->s->model, *stage, c->s->layer, head, &rows, &cols);
    *range = g ? viz_abs_max(g, (size_t)rows * cols) : 1.0;
    (void)t;
    return g;
}

/* Where the pointer loss reads its weight (the last layer, the target's
 * cell): " · ∂L/∂A[ROW, KEY] = V" as the cell writes it, so the value a
 * lesson quotes is on screen even where the cells are too small for it.
 * Returns the bytes written (0 for other layers and for token models). */
static size_t target_cell(const viz_ctx *c, char *out, size_t cap, const char *row, const char *key) {
    const viz_scene *s = c->s;
    if (s->model->cfg.objective != MODEL_OBJ_POINTER || s->layer != s->model->cfg.layers - 1 || cap == 0) return 0;
    int stage, rows, cols;
    double range;
    const double *g = viz_step_grad(c, s->trace, s->head, &stage, &range);
    (void)model_result_stage(s->run, s->model, stage, s->layer, s->head, &rows, &cols);
    int i = s->run->targets[0].row, j = s->run->targets[0].target;
    if (!g || i >= rows || j >= cols) return 0;
    char v[32];
    viz_format_value(v, sizeof v, g[(size_t)i * cols + j]);
    int n = snprintf(out, cap, " · %s[%s, %s] = %s", stage == MODEL_ST_D_WEIGHTS ? "∂L/∂A" : "∂L/∂T", row, key, v);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n
                                       : cap - 1;
}

void viz_backward_caption(const viz_ctx *c, char *out, size_t cap) {
    const model_result *r = c->s->run;
    const model *m = c->s->model;
    size_t n;
    if (r->n_targets == 1) {
        char row[96], ans[96];
        attn_token_label(&c->s->trace->tokens, r->targets[0].row, 14, row, sizeof row);
        if (m->cfg.objective == MODEL_OBJ_POINTER) attn_token_label(&c->s->trace->tokens, r->targets[0].target, 14, ans, sizeof ans);
        else snprintf(ans, sizeof ans, "%s", m->vocab[r->targets[0].target]);
        n = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_BACKWARD_ONE), row, ans);
        n += target_cell(c, out + n, n < cap ? cap - n : 0, row, ans);
    } else {
        n = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_BACKWARD_ROWS), r->n_targets);
    }
    if (n < cap)
        snprintf(out + n, cap - n, " %s · %s", viz_s(c, c->s->target == VIZ_TARGET_TASK ? VIZ_S_BACKWARD_LABELLED : c->s->target == VIZ_TARGET_GIVEN ? VIZ_S_BACKWARD_GIVEN
                                                                                                                                                     : VIZ_S_BACKWARD_PREDICTED),
                 viz_s(c, VIZ_S_BACKWARD_SIGNS));
}
