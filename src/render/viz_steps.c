/* viz_steps.c — the canvas of each step: operands and result laid out as a
 * matrix product (A left of the result, B above it), or side by side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz_internal.h"

#define MAX_BLOCKS 3

#define MAX_MATS 8 /* E, P and X; or concat, W_O, out, X and the residual: at most 7 */

/* A product layout: left · top[k] = res[k]; left may be NULL (a plain row).
 * It holds its matrices and their texts, so a product on the stack is whole. */
typedef struct {
    viz_mat *left;
    viz_mat *top[MAX_BLOCKS];  /* may be NULL per block */
    viz_mat *res[MAX_BLOCKS];
    const char *op[MAX_BLOCKS];/* text drawn before block k when there is no left, e.g. "÷ √dₖ" */
    int blocks;
    viz_mat mats[MAX_MATS];    /* what left, top and res point at */
    char titles[MAX_MATS][96]; /* mats[i].title when it names a head */
    char op_text[64];          /* an op that holds numbers */
} product;

/* A matrix the trace does not hold (E, the positions, a model's stage):
 * values and shape given, named stage for hits. */
static viz_mat raw(const double *v, int rows, int cols, int stage, int head, const char *title, viz_map map,
                   viz_labels row_labels, viz_labels col_labels) {
    viz_mat m;
    memset(&m, 0, sizeof m);
    m.v = v;
    m.rows = v ? rows : 0;
    m.cols = v ? cols : 0;
    m.stage = stage;
    m.head = head;
    m.title = title;
    m.map = map;
    m.range = 1.0;
    m.row_labels = row_labels;
    m.col_labels = col_labels;
    m.weight_of = -1;
    return m;
}

/* A stage of the trace, for head. */
static viz_mat mat(const attn_trace *t, attn_stage st, int head, const char *title, viz_map map,
                   viz_labels rows, viz_labels cols) {
    int r, k;
    attn_trace_shape(t, st, &r, &k);
    return raw(attn_trace_stage(t, st, head), r, k, st, head, title, map, rows, cols);
}

static viz_mat weight(const double *v, int rows, int cols, int feeds, int head, const char *title) {
    viz_mat m;
    memset(&m, 0, sizeof m);
    m.v = v;
    m.rows = rows;
    m.cols = cols;
    m.stage = ATTN_ST_X;
    m.head = head;
    m.title = title;
    m.map = VIZ_MAP_SIGNED;
    m.row_labels = VIZ_LABEL_NONE;
    m.col_labels = VIZ_LABEL_DIMS;
    m.weight_of = feeds;
    return m;
}

/* A stage of the model's run (residual, a gradient, the readout), for layer shown. */
static viz_mat run_mat(const viz_ctx *c, int stage, int head, const char *title, viz_map map, viz_labels rows,
                       viz_labels cols) {
    int r, k;
    const double *v = model_result_stage(c->s->run, c->s->model, stage, c->s->layer, head, &r, &k);
    return raw(v, r, k, stage, head, title, map, rows, cols);
}

static float gap(const viz_ctx *c) { return 22 * c->u; }

/* Width a matrix takes right of its row labels: its cells, or its title if wider. */
static float mat_w(const viz_ctx *c, const viz_mat *m, float cs) {
    float cells = m->cols * cs, title = viz_text_w(c, m->title, c->small) + 6 * c->u - viz_mat_left(c, m, cs);
    return cells > title ? cells : title;
}

static float op_w(const viz_ctx *c, const char *op) {
    return op ? viz_text_w(c, op, c->body) + 2 * gap(c) : gap(c);
}

/* Width and height the product needs at cell size cs. */
static void product_size(const viz_ctx *c, const product *p, float cs, float *w, float *h) {
    float x = 0, top_h = 0, res_top = 0, rows = 0;
    if (p->left) {
        x += viz_mat_left(c, p->left, cs) + mat_w(c, p->left, cs) + gap(c);
        rows = p->left->rows;
        res_top = viz_mat_top(c, p->left, cs);
    }
    for (int k = 0; k < p->blocks; k++) {
        const viz_mat *r = p->res[k], *t = p->top[k];
        if (!p->left) x += (k ? op_w(c, p->op[k]) : 0) + viz_mat_left(c, r, cs);
        else if (k && p->op[k]) x += op_w(c, p->op[k]) - gap(c) + viz_mat_left(c, r, cs); // "+ X = residual"
        float bw = mat_w(c, r, cs);
        if (t && mat_w(c, t, cs) > bw) bw = mat_w(c, t, cs);
        x += bw + (k + 1 < p->blocks && p->left ? gap(c) : 0);
        if (t) {
            float th = viz_mat_top(c, t, cs) + t->rows * cs + 8 * c->u;
            if (th > top_h) top_h = th;
        }
        if (viz_mat_top(c, r, cs) > res_top) res_top = viz_mat_top(c, r, cs);
        if (r->rows > rows) rows = r->rows;
    }
    *w = x;
    *h = top_h + res_top + rows * cs;
}

/* The largest cell size (at most max_cs) at which the product fits w × h. */
static float fit_cell(const viz_ctx *c, const product *p, float w, float h, float max_cs) {
    float cs = max_cs;
    for (int i = 0; i < 60 && cs > 2.0f; i++) {
        float pw, ph;
        product_size(c, p, cs, &pw, &ph);
        if (pw <= w && ph <= h) return cs;
        cs *= 0.92f;
    }
    return cs < 2.0f ? 2.0f : cs;
}

static void product_draw(const viz_ctx *c, const product *p, float x0, float y0, float cs) {
    float top_h = 0, res_top = 0;
    for (int k = 0; k < p->blocks; k++) {
        if (p->top[k]) {
            float th = viz_mat_top(c, p->top[k], cs) + p->top[k]->rows * cs + 8 * c->u;
            if (th > top_h) top_h = th;
        }
        if (viz_mat_top(c, p->res[k], cs) > res_top) res_top = viz_mat_top(c, p->res[k], cs);
    }
    if (p->left && viz_mat_top(c, p->left, cs) > res_top) res_top = viz_mat_top(c, p->left, cs);
    float x = x0, y = y0 + top_h + res_top;
    if (p->left) {
        x += viz_mat_left(c, p->left, cs);
        viz_mat_draw(c, p->left, x, y, cs);
        x += mat_w(c, p->left, cs) + gap(c);
    }
    for (int k = 0; k < p->blocks; k++) {
        const viz_mat *r = p->res[k], *t = p->top[k];
        if (!p->left) {
            if (k && p->op[k]) {
                viz_text(c->l, x, y, op_w(c, p->op[k]), r->rows * cs, p->op[k], c->body,
                         VIZ_CENTER | VIZ_MIDDLE, c->th->muted);
            }
            x += (k ? op_w(c, p->op[k]) : 0) + viz_mat_left(c, r, cs);
        } else if (k && p->op[k]) { // a sum after the product: the gap before it holds the operator
            float ow = op_w(c, p->op[k]) - gap(c);
            viz_text(c->l, x - gap(c), y, ow + gap(c), r->rows * cs, p->op[k], c->body, VIZ_CENTER | VIZ_MIDDLE,
                     c->th->muted);
            x += ow + viz_mat_left(c, r, cs);
        }
        if (t) viz_mat_draw(c, t, x, y - res_top - 8 * c->u - t->rows * cs, cs);
        viz_mat_draw(c, r, x, y, cs);
        float bw = mat_w(c, r, cs);
        if (t && mat_w(c, t, cs) > bw) bw = mat_w(c, t, cs);
        x += bw + (p->left ? gap(c) : 0);
    }
}

/* One line of the lines view: query to key, in a head's colour. */
typedef struct {
    double weight;
    int head, key;
} line_item;

static int by_weight(const void *pa, const void *pb) {
    const line_item *a = pa, *b = pb;
    if (a->weight != b->weight) return a->weight < b->weight ? -1 : 1;
    return a->head != b->head ? a->head - b->head : a->key - b->key; // a stable, total order
}

/* The colour of each head under the lines of every head: "head ■1 ■2 …",
 * wrapped onto as many rows as the width needs. Draws only when draw is set;
 * returns its height either way, so the rows above can make room for it. */
static float lines_legend(const viz_ctx *c, float x, float y, float w, const viz_rgba *palette, int heads,
                          bool draw) {
    float sw = c->small * 0.9f, gapw = c->small * 0.5f, lh = c->small * 1.6f, x0 = x, y0 = y, end = x + w;
    const char *name = viz_s(c, VIZ_S_HEAD);
    float nw = viz_text_w(c, name, c->small);
    if (draw) viz_text(c->l, x, y, nw, lh, name, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    x += nw + gapw;
    for (int h = 0; h < heads; h++) {
        char lab[16];
        snprintf(lab, sizeof lab, "%d", h + 1);
        float tw = viz_text_w(c, lab, c->small), item = sw + gapw * 0.5f + tw;
        if (x + item > end && x > x0 + nw + gapw) { // a new row, aligned under the first swatch
            x = x0 + nw + gapw;
            y += lh;
        }
        if (draw) {
            viz_fill(c->l, x, y + (lh - sw) / 2, sw, sw, palette[h]);
            viz_text(c->l, x + sw + gapw * 0.5f, y, tw, lh, lab, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
        }
        x += item + gapw * 1.5f;
    }
    return y + lh - y0;
}

/* Token rows on the left, keys on the right, a line from the query to each key:
 * thickness and opacity follow the weight. */
static void lines_view(const viz_ctx *c, viz_box b, const attn_trace *t, int head) {
    static const viz_rgba palette[ATTN_MAX_HEADS] = { // Okabe–Ito: safe for colour-blind viewers
        {0x00, 0x72, 0xb2, 255}, {0xd5, 0x5e, 0x00, 255}, {0x00, 0x9e, 0x73, 255}, {0xcc, 0x79, 0xa7, 255},
        {0xe6, 0x9f, 0x00, 255}, {0x56, 0xb4, 0xe9, 255}, {0x7a, 0x5c, 0x00, 255}, {0x55, 0x55, 0x55, 255}};
    int n = t->n, q = c->s->query;
    char buf[160], lab[96];
    if (q < 0 || q >= n) q = 0;
    attn_token_label(&t->tokens, q, 12, lab, sizeof lab);
    snprintf(buf, sizeof buf, viz_s(c, VIZ_S_LINES_TITLE), lab);
    if (c->s->compare == VIZ_COMPARE_OFF && c->s->lines_all_heads) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof buf - used, " · %s", viz_s(c, VIZ_S_LINES_ALL_HEADS));
    }
    viz_label(c, b.x, b.y, b.w, c->small * 1.6f, buf, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    bool all = c->s->compare == VIZ_COMPARE_OFF && c->s->lines_all_heads;
    int h0 = all ? 0 : head, h1 = all ? t->cfg.heads : head + 1;
    float lw = b.w * 0.28f, lx = b.x + lw, rx = b.x + b.w - lw;
    bool legend = all && h1 > 1 && !c->s->hide_weights;
    float leg_h = legend ? lines_legend(c, lx, 0, b.w - lw, NULL, h1, false) + 6 * c->u : 0;
    float top = b.y + c->small * 2.0f, rh = (b.h - (top - b.y) - leg_h) / n; // the legend has its own room
    if (rh > 30 * c->u) rh = 30 * c->u;
    float px = rh * 0.7f < c->small ? rh * 0.7f : c->small;
    if (px < 9) px = 9;
    int step = (int)ceilf(px * 1.1f / rh);
    for (int i = 0; i < n; i++) {
        float y = top + i * rh;
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        viz_rgba col = i == q ? c->th->highlight : c->th->muted;
        if (i % step == 0 || i == q) {
            viz_label(c, b.x, y, lw - 6 * c->u, rh, lab, px, VIZ_RIGHT | VIZ_MIDDLE, col);
            viz_label(c, rx + 6 * c->u, y, lw - 6 * c->u, rh, lab, px, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
        }
        viz_hit_region(c->l, b.x, y, lw, rh, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = i});
    }
    if (c->s->hide_weights) return;
    int count = 0;
    line_item items[ATTN_MAX_HEADS * ATTN_MAX_TOKENS];
    for (int h = h0; h < h1; h++)
        for (int j = 0; j < n; j++) {
            double a = t->head[h].weights[(size_t)q * n + j];
            if (a >= 0.005) items[count++] = (line_item){a, h, j};
        }
    // the strongest lines on top, whichever head they belong to
    qsort(items, (size_t)count, sizeof *items, by_weight);
    // with every head, each head's lines end side by side next to the key
    float spread = all && h1 > 1 ? fminf(rh * 0.7f / (float)(h1 - 1), 4 * c->u) : 0;
    for (int i = 0; i < count; i++) {
        const line_item *it = &items[i];
        float dy = spread * ((float)it->head - (float)(h1 - 1) / 2.0f);
        // opaque, pre-mixed with the background: fast to draw, and crossing lines stay legible
        viz_rgba col = viz_mix(c->th->bg, all ? palette[it->head] : c->th->accent, (float)(0.4 + 0.6 * it->weight));
        viz_line(c->l, lx, top + (q + 0.5f) * rh, rx, top + (it->key + 0.5f) * rh + dy,
                 1.0f + 9.0f * (float)it->weight * c->u, col);
    }
    if (legend) lines_legend(c, lx, top + n * rh + 6 * c->u, b.w - lw, palette, h1, true); // under the last token
}

/* "Q (head 2)" into buf when the trace has several heads, else the name. */
static const char *title(const viz_ctx *c, char *buf, size_t cap, const char *name, int head) {
    if (head >= 0 && c->s->trace->cfg.heads > 1)
        snprintf(buf, cap, "%s (%s %d)", name, viz_s(c, VIZ_S_HEAD), head + 1);
    else
        snprintf(buf, cap, "%s", name);
    return buf;
}

/* Fills p with the matrices of step s for head h of t (mats is storage). */
static void build_product(const viz_ctx *c, product *p, const attn_trace *t, int h) {
    const attn_head *hd = &t->head[h];
    int dm = t->cfg.d_model, dk = t->cfg.d_k, hk = t->cfg.heads * dk;
    viz_labels xcols = c->s->feature_names && dm <= 64 ? VIZ_LABEL_FEATURES : VIZ_LABEL_DIMS;
    bool hide = c->s->hide_weights;
    memset(p, 0, sizeof *p);
    viz_mat *mats = p->mats;
    char (*tt)[96] = p->titles;
    const viz_scene *sc = c->s;
    bool grad = viz_step_has_grad(c);
    switch (c->s->step) {
    case ATTN_STEP_EMBED:
        mats[0] = mat(t, ATTN_ST_X, 0, "X", VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, xcols);
        p->res[0] = &mats[0];
        p->blocks = 1;
        if (sc->model && sc->layer > 0) { // a later layer reads the residual stream
            snprintf(tt[0], sizeof tt[0], viz_s(c, VIZ_S_X_FROM_RESIDUAL), sc->layer);
            mats[0].title = tt[0];
        } else if (sc->model) { // X = E[token] + P: the learned embedding and the positions
            int n = t->n;
            bool pos = sc->model->cfg.pos != MODEL_POS_NONE;
            mats[1] = raw(sc->run->embed, n, dm, ATTN_ST_X, 0, "E[token]", VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_DIMS);
            mats[2] = raw(sc->run->pos, n, dm, ATTN_ST_X, 0, "P", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_DIMS);
            mats[0].row_labels = VIZ_LABEL_NONE;
            mats[0].col_labels = VIZ_LABEL_DIMS;
            mats[0].title = pos ? "X = E + P" : "X = E";
            p->res[0] = &mats[1];
            p->res[1] = pos ? &mats[2] : &mats[0];
            p->op[1] = pos ? "+" : "=";
            if (pos) p->res[2] = &mats[0], p->op[2] = "=";
            p->blocks = pos ? 3 : 2;
        }
        break;
    case ATTN_STEP_QKV: {
        static const char *const wn[3] = {"W_Q", "W_K", "W_V"}, *const rn[3] = {"Q", "K", "V"};
        const double *w[3] = {hd->w_q, hd->w_k, hd->w_v};
        mats[0] = mat(t, ATTN_ST_X, 0, "X", VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_NONE);
        p->left = &mats[0];
        for (int k = 0; k < 3; k++) {
            mats[1 + k] = weight(w[k], dm, dk, ATTN_ST_Q + k, h, title(c, tt[1 + k], sizeof tt[0], wn[k], h));
            mats[4 + k] = mat(t, ATTN_ST_Q + k, h, title(c, tt[4 + k], sizeof tt[0], rn[k], h), VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
            p->top[k] = &mats[1 + k];
            p->res[k] = &mats[4 + k];
        }
        p->blocks = 3;
        break;
    }
    case ATTN_STEP_SCORES:
        mats[0] = mat(t, ATTN_ST_Q, h, title(c, tt[0], sizeof tt[0], "Q", h), VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_DIMS);
        mats[1] = mat(t, ATTN_ST_K, h, title(c, tt[1], sizeof tt[0], "Kᵀ", h), VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_TOKENS);
        mats[1].transposed = true;
        mats[1].rows = dk;
        mats[1].cols = t->n;
        mats[2] = mat(t, ATTN_ST_SCORES, h, title(c, tt[2], sizeof tt[0], "S = QKᵀ", h), VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
        p->left = &mats[0];
        p->top[0] = &mats[1];
        p->res[0] = &mats[2];
        p->blocks = 1;
        break;
    case ATTN_STEP_SCALE:
    case ATTN_STEP_MASK: {
        bool scale = c->s->step == ATTN_STEP_SCALE;
        mats[0] = mat(t, scale ? ATTN_ST_SCORES : ATTN_ST_SCALED, h, title(c, tt[0], sizeof tt[0], scale ? "S" : (t->cfg.scale ? "S/√dₖ" : "S"), h),
                      VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
        mats[1] = mat(t, scale ? ATTN_ST_SCALED : ATTN_ST_MASKED, h,
                      title(c, tt[1], sizeof tt[0], scale ? (t->cfg.scale ? "S/√dₖ" : "S") : "mask(S)", h),
                      VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
        char *opbuf = p->op_text;
        if (scale && t->cfg.scale) snprintf(opbuf, sizeof p->op_text, "÷ √%d = %.3g", dk, sqrt((double)dk));
        else if (scale) snprintf(opbuf, sizeof p->op_text, "= (%s)", viz_s(c, VIZ_S_SCALE_OFF_LABEL));
        else snprintf(opbuf, sizeof p->op_text, "→");
        p->res[0] = &mats[0];
        p->res[1] = &mats[1];
        p->op[1] = opbuf;
        p->blocks = 2;
        if (grad) { // the step's result and beside it how the loss changes with it: two large matrices
            mats[2] = run_mat(c, MODEL_ST_D_SCALED, h, title(c, tt[2], sizeof tt[0], "∂L/∂T", h), VIZ_MAP_SIGNED,
                              VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
            mats[2].own_range = true;
            mats[2].hidden = hide;
            p->res[0] = &mats[1];
            p->res[1] = &mats[2];
            p->op[1] = "";
        }
        break;
    }
    case ATTN_STEP_SOFTMAX:
        mats[0] = mat(t, ATTN_ST_WEIGHTS, h, title(c, tt[0], sizeof tt[0], "A = softmax", h), VIZ_MAP_WEIGHTS, VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
        mats[0].mask = &t->cfg.mask;
        mats[0].hidden = hide;
        p->res[0] = &mats[0];
        p->blocks = 1;
        if (grad) { // the backward pass takes the lines view's room
            mats[1] = run_mat(c, MODEL_ST_D_WEIGHTS, h, title(c, tt[1], sizeof tt[0], "∂L/∂A", h), VIZ_MAP_SIGNED,
                              VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
            mats[1].own_range = true;
            mats[1].hidden = hide;
            p->res[1] = &mats[1];
            p->op[1] = "";
            p->blocks = 2;
        }
        break;
    case ATTN_STEP_WEIGHTED: // side by side: V is as tall as A, so stacking it would halve every cell
        mats[0] = mat(t, ATTN_ST_WEIGHTS, h, title(c, tt[0], sizeof tt[0], "A", h), VIZ_MAP_WEIGHTS, VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
        mats[0].mask = &t->cfg.mask;
        mats[0].hidden = hide;
        mats[1] = mat(t, ATTN_ST_V, h, title(c, tt[1], sizeof tt[0], "V", h), VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_DIMS);
        mats[2] = mat(t, ATTN_ST_Z, h, title(c, tt[2], sizeof tt[0], "Z = A·V", h), VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_DIMS);
        mats[2].hidden = hide;
        for (int k = 0; k < 3; k++) p->res[k] = &mats[k];
        p->op[1] = "·";
        p->op[2] = "=";
        p->blocks = 3;
        break;
    case ATTN_STEP_MULTIHEAD:
        mats[0] = mat(t, ATTN_ST_CONCAT, 0, "concat(Z)", VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_CONCAT);
        mats[0].hidden = hide;
        mats[1] = weight(t->w_o, hk, dm, ATTN_ST_OUTPUT, 0, "W_O");
        mats[2] = mat(t, ATTN_ST_OUTPUT, 0, "out = concat·W_O", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
        mats[2].hidden = hide;
        p->left = &mats[0];
        p->top[0] = &mats[1];
        p->res[0] = &mats[2];
        p->blocks = 1;
        if (sc->model) { // the residual stream: the layer adds its output to its input
            mats[3] = mat(t, ATTN_ST_X, 0, "X", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
            mats[4] = run_mat(c, MODEL_ST_RESIDUAL, 0, "X + out", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
            mats[4].hidden = hide;
            p->res[1] = &mats[3];
            p->op[1] = "+";
            p->res[2] = &mats[4];
            p->op[2] = "=";
            p->blocks = 3;
        }
        break;
    case ATTN_STEP_COUNT:
        break;
    }
}

/* Shared range of every signed matrix of the product, so one legend is true for all. */
static double product_range(const product *p) {
    double r = 1e-9;
    const viz_mat *all[1 + 2 * MAX_BLOCKS] = {p->left};
    for (int k = 0; k < p->blocks; k++) {
        all[1 + 2 * k] = p->top[k];
        all[2 + 2 * k] = p->res[k];
    }
    for (int i = 0; i < 1 + 2 * MAX_BLOCKS; i++) {
        const viz_mat *m = all[i];
        if (!m || m->map != VIZ_MAP_SIGNED || m->own_range) continue;
        double v = viz_abs_max(m->v, (size_t)m->rows * m->cols);
        if (v > r) r = v;
    }
    return r;
}

static void set_range(product *p, double r) {
    if (p->left) p->left->range = r;
    for (int k = 0; k < p->blocks; k++) {
        if (p->top[k]) p->top[k]->range = r;
        viz_mat *m = p->res[k];
        m->range = m->own_range ? viz_abs_max(m->v, (size_t)m->rows * m->cols) : r; // its legend says this range
    }
}

double viz_step_range(const viz_ctx *c, const attn_trace *t, int head) {
    product p;
    build_product(c, &p, t, head);
    return product_range(&p);
}

void viz_draw_step(const viz_ctx *c, viz_box b, const attn_trace *t, int head, const char *subtitle, double range) {
    product p;
    build_product(c, &p, t, head);
    set_range(&p, range);
    if (subtitle) {
        viz_label(c, b.x, b.y, b.w, c->body * 1.5f, subtitle, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->accent);
        b.y += c->body * 1.7f;
        b.h -= c->body * 1.7f;
    }
    viz_box mb = b;
    bool lines = c->s->step == ATTN_STEP_SOFTMAX && !viz_step_has_grad(c);
    if (lines) mb.w = b.w * 0.58f;
    float cs = fit_cell(c, &p, mb.w, mb.h, 46 * c->u) * c->s->canvas_zoom;
    float pw, ph;
    product_size(c, &p, cs, &pw, &ph);
    float x = mb.x + (pw < mb.w ? (mb.w - pw) / 2 : 0) - c->s->canvas_pan_x;
    float y = mb.y + (ph < mb.h ? (mb.h - ph) / 2 : 0) - c->s->canvas_pan_y;
    product_draw(c, &p, x, y, cs);
    if (lines) {
        viz_box lb = {b.x + mb.w + gap(c), b.y, b.w - mb.w - gap(c), b.h};
        lines_view(c, lb, t, head);
    }
}

float viz_step_fit(const viz_ctx *c, viz_box b, const attn_trace *t, int head) {
    product p;
    build_product(c, &p, t, head);
    float w = c->s->step == ATTN_STEP_SOFTMAX && !viz_step_has_grad(c) ? b.w * 0.58f : b.w; // the lines view takes the rest
    return fit_cell(c, &p, w, b.h - c->body * 1.7f, 46 * c->u);
}

void viz_draw_single(const viz_ctx *c, viz_box b, viz_mat *m) {
    product p;
    memset(&p, 0, sizeof p);
    p.mats[0] = *m;
    p.res[0] = &p.mats[0];
    p.blocks = 1;
    float cs = fit_cell(c, &p, b.w, b.h, 46 * c->u) * c->s->canvas_zoom, pw, ph;
    product_size(c, &p, cs, &pw, &ph);
    float x = b.x + (pw < b.w ? (b.w - pw) / 2 : 0) - c->s->canvas_pan_x;
    float y = b.y + (ph < b.h ? (b.h - ph) / 2 : 0) - c->s->canvas_pan_y;
    product_draw(c, &p, x, y, cs);
}
