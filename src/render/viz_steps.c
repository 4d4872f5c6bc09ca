/* viz_steps.c — the canvas of each step: operands and result laid out as a
 * matrix product (A left of the result, B above it), or side by side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_math.h"
#include "attn_steps.h"
#include "viz_internal.h"

#define MAX_BLOCKS 4 /* RoPE's 2b: Q, K → q_rot, k_rot */

#define MAX_MATS 8 /* E, P and X; or concat, W_O, out, X and the residual: at most 5 */

/* A product layout: left · top[k] = res[k]; left may be NULL (a plain row).
 * It holds its matrices and their texts, so a product on the stack is whole. */
typedef struct {
    viz_mat *left;
    viz_mat *top[MAX_BLOCKS]; /* may be NULL per block */
    viz_mat *res[MAX_BLOCKS];
    bool operand[MAX_BLOCKS];   /* res[k] of a plain row feeds the result rather than being one (S before ÷√dₖ) */
    const char *op[MAX_BLOCKS]; /* text drawn before block k when there is no left, e.g. "÷ √dₖ" */
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

/* A stage of the model's run (residual, a gradient, the readout), for the layer shown. */
static viz_mat run_mat(const viz_ctx *c, int stage, int head, const char *title, viz_map map, viz_labels rows,
                       viz_labels cols) {
    int r, k;
    const double *v = model_result_stage(c->s->run, c->s->model, stage, c->s->layer, head, &r, &k);
    return raw(v, r, k, stage, head, title, map, rows, cols);
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

static float gap(const viz_ctx *c) { return 22 * c->u; }

/* The cells of a product: its results' (width along a row, height), and the
 * inner dimension's (the left operand's columns, the top operands' rows, the
 * columns of a plain row's operands), which may be narrower so that the
 * results can hold their values. */
typedef struct {
    float rw, rh, kw, kh;
} cells;

static cells square(float cs) { return (cells){cs, cs, cs, cs}; }

/* Gives every matrix of p its cells by its role. */
static void assign(product *p, cells z) {
    if (p->left) p->left->cw = z.kw, p->left->ch = z.rh;
    for (int k = 0; k < p->blocks; k++) {
        if (p->top[k]) p->top[k]->cw = z.rw, p->top[k]->ch = z.kh;
        p->res[k]->cw = p->operand[k] ? z.kw : z.rw;
        p->res[k]->ch = z.rh;
    }
}

static float cells_w(const viz_mat *m) { return m->cols * m->cw; }
static float cells_h(const viz_mat *m) { return m->rows * m->ch; }

/* Width a matrix takes right of its row labels: its cells, or its title if wider. */
static float mat_w(const viz_ctx *c, const viz_mat *m) {
    float title = viz_text_w(c, m->title, c->small) + 6 * c->u - viz_mat_left(c, m, 0);
    return cells_w(m) > title ? cells_w(m) : title;
}

/* The text size of the operators between a plain row's matrices: smaller where the canvas wants its room. */
static float op_px(const viz_ctx *c) { return c->value_min > 0 ? c->small : c->body; }

static float op_w(const viz_ctx *c, const char *op) {
    return op ? viz_text_w(c, op, op_px(c)) + (c->value_min > 0 ? 1 : 2) * gap(c) : gap(c);
}

/* Where the parts of p lie at its cells: the height of the top operands'
 * band, of the titles and labels above the results, and how far the first
 * top operand's row labels reach left of the left operand. */
static void product_bands(const viz_ctx *c, const product *p, float *top_h, float *res_top, float *shift) {
    *top_h = *res_top = *shift = 0;
    for (int k = 0; k < p->blocks; k++) {
        if (p->top[k]) *top_h = fmaxf(*top_h, viz_mat_top(c, p->top[k], 0) + cells_h(p->top[k]) + 8 * c->u);
        *res_top = fmaxf(*res_top, viz_mat_top(c, p->res[k], 0));
    }
    if (!p->left) return;
    *res_top = fmaxf(*res_top, viz_mat_top(c, p->left, 0));
    float x0 = viz_mat_left(c, p->left, 0) + mat_w(c, p->left) + gap(c);
    if (p->top[0]) *shift = fmaxf(0, viz_mat_left(c, p->top[0], 0) - x0);
}

/* Width and height the product needs at the cells its matrices were given. */
static void product_size(const viz_ctx *c, const product *p, float *w, float *h) {
    float top_h, res_top, x, rows = 0;
    product_bands(c, p, &top_h, &res_top, &x);
    if (p->left) {
        x += viz_mat_left(c, p->left, 0) + mat_w(c, p->left) + gap(c);
        rows = cells_h(p->left);
    }
    for (int k = 0; k < p->blocks; k++) {
        const viz_mat *r = p->res[k], *t = p->top[k];
        if (!p->left) x += (k ? op_w(c, p->op[k]) : 0) + viz_mat_left(c, r, 0);
        else if (k && p->op[k]) x += op_w(c, p->op[k]) - gap(c) + viz_mat_left(c, r, 0); // "+ X = residual"
        float bw = mat_w(c, r);
        if (t && mat_w(c, t) > bw) bw = mat_w(c, t);
        x += bw + (k + 1 < p->blocks && p->left ? gap(c) : 0);
        rows = fmaxf(rows, cells_h(r));
    }
    *w = x;
    *h = top_h + res_top + rows;
}

static bool fits(const viz_ctx *c, product *p, cells z, float w, float h) {
    float pw, ph;
    assign(p, z);
    product_size(c, p, &pw, &ph);
    return pw <= w && ph <= h;
}

/* The largest square cells of max_cs, max_cs·0.92, max_cs·0.92² … (60 of
 * them, above 2 px) at which the product fits w × h, else the next size (at
 * least 2 px). Fitting only gets easier as cells shrink, so the size is found
 * by bisection: a long sentence's labels are measured at each try. */
static float fit_square(const viz_ctx *c, product *p, float w, float h, float max_cs) {
    float sizes[61];
    int n = 0;
    for (float cs = max_cs; n < 60 && cs > 2.0f; cs *= 0.92f) sizes[n++] = cs;
    sizes[n] = n ? sizes[n - 1] * 0.92f : max_cs; // what the last one shrinks to
    int lo = 0, hi = n;                           // sizes[hi] is the first that fits (n: none does)
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (fits(c, p, square(sizes[mid]), w, h)) hi = mid;
        else lo = mid + 1;
    }
    if (lo == n && c->s->hf) { // a real model's 768-wide matrices: smaller cells still, down to half a pixel (zoom in)
        for (float cs = sizes[n]; cs > 0.5f; cs *= 0.92f)
            if (fits(c, p, square(cs), w, h)) return cs;
        return 0.5f;
    }
    return lo < n ? sizes[lo] : fmaxf(2.0f, sizes[n]);
}

/* Whether every result of p writes its values at px in cells z. */
static bool results_read(const viz_ctx *c, const product *p, cells z, float px) {
    for (int k = 0; k < p->blocks; k++)
        if (!p->operand[k] && viz_value_px(c, p->res[k], z.rw, z.rh) < px) return false;
    return true;
}

/* How cells grow in fit_values: the results from the smallest cells that
 * hold their values (rw0 × rh0) towards squares, the inner rows and columns
 * at shares of them (at least kmin). */
typedef struct {
    float rw0, rh0, kh, kw, kmin;
} growth;

/* What a search in fit_values changes. */
typedef enum { GROW_ALL,
               GROW_INNER_ROWS,
               GROW_INNER_COLS } grow_what;

/* z with what grows set to x: the results at x times their smallest (and the
 * inner cells at their shares), or the inner rows or columns at x pixels. */
static cells grown(const growth *g, cells z, grow_what what, float x) {
    if (what == GROW_INNER_ROWS) z.kh = x;
    if (what == GROW_INNER_COLS) z.kw = x;
    if (what != GROW_ALL) return z;
    float rh = g->rh0 * x, rw = fmaxf(g->rw0, rh);
    return (cells){rw, rh, fmaxf(g->kmin, g->kw * rw), fmaxf(g->kmin, g->kh * fminf(rw, rh))};
}

/* The largest x in [lo, hi] at which grown(z, what, x) fits (fitting only
 * gets harder as x grows), by bisection; lo must fit. */
static float largest(const viz_ctx *c, product *p, float w, float h, const growth *g, cells z, grow_what what,
                     float lo, float hi) {
    for (int i = 0; i < 12 && hi - lo > 0.01f * hi; i++) {
        float x = (lo + hi) / 2;
        if (fits(c, p, grown(g, z, what, x), w, h)) lo = x;
        else hi = x;
    }
    return lo;
}

/* Cells for the theme's value size (c->value_min): the largest results that
 * hold their values and fit, with the inner cells at the largest shares of
 * theirs that let the smallest results fit (the inner columns' first: width
 * is often spare), then the inner rows and columns as large as room allows.
 * false when even the smallest results do not fit. */
static bool fit_values(const viz_ctx *c, product *p, float w, float h, float max_cs, cells *out) {
    static const float shares[][2] = {{1, 1}, {0.6f, 1}, {0.35f, 1}, {0, 1}, {0.6f, 0.6f}, {0.35f, 0.35f}, {0, 0.35f}, {0, 0}}; // inner rows', inner columns'
    growth g = {0, 0, 0, 0, fmaxf(6.0f, 3 * c->u)};
    for (int k = 0; k < p->blocks; k++) {
        if (p->operand[k]) continue;
        float cw, ch;
        viz_value_cell(c, p->res[k], c->value_min, &cw, &ch);
        g.rw0 = fmaxf(g.rw0, cw);
        g.rh0 = fmaxf(g.rh0, ch);
    }
    cells z = {0, 0, 0, 0};
    for (size_t r = 0; r < sizeof shares / sizeof *shares; r++) {
        g.kh = shares[r][0], g.kw = shares[r][1];
        if (!fits(c, p, grown(&g, z, GROW_ALL, 1), w, h)) continue;
        z = grown(&g, z, GROW_ALL, largest(c, p, w, h, &g, z, GROW_ALL, 1, fmaxf(1.0f, max_cs / g.rh0)));
        z.kh = largest(c, p, w, h, &g, z, GROW_INNER_ROWS, z.kh, fminf(z.rw, z.rh));
        z.kw = largest(c, p, w, h, &g, z, GROW_INNER_COLS, z.kw, z.rw);
        *out = z;
        return true;
    }
    return false;
}

/* How wide the results' columns would like to be: wide enough for their
 * (and their top operands') column names in two lines, and, where the theme
 * wants values, for values as large as the cells' height allows. */
static float wanted_rw(const viz_ctx *c, const product *p, cells z) {
    float want = 0;
    for (int k = 0; k < p->blocks; k++) {
        if (p->operand[k]) continue;
        want = fmaxf(want, viz_col_label_need(c, p->res[k], z.rw));
        if (p->top[k]) want = fmaxf(want, viz_col_label_need(c, p->top[k], z.rw));
        if (c->value_min > 0) {
            float cw, ch;
            viz_value_cell(c, p->res[k], fminf(c->small, floorf(z.rh / 1.25f)), &cw, &ch);
            want = fmaxf(want, cw);
        }
    }
    return want;
}

/* z with the results' columns widened towards wanted_rw while p fits. */
static cells widened(const viz_ctx *c, product *p, cells z, float w, float h) {
    float lo = z.rw, hi = wanted_rw(c, p, z);
    if (hi <= lo) return z;
    if (fits(c, p, (cells){hi, z.rh, z.kw, z.kh}, w, h)) { // all the way: labels in between may take a third line
        z.rw = hi;
        return z;
    }
    for (int i = 0; i < 10 && hi - lo > 0.25f; i++) {
        float mid = (lo + hi) / 2;
        if (fits(c, p, (cells){mid, z.rh, z.kw, z.kh}, w, h)) lo = mid;
        else hi = mid;
    }
    z.rw = lo;
    return z;
}

/* The cells at which the product fits w × h (at most max_cs): square, or,
 * when the theme wants values at a size squares cannot hold, fit_values';
 * then the results' columns as wide as their names or values want. */
static cells fit_cells_as_labelled(const viz_ctx *c, product *p, float w, float h, float max_cs) {
    cells z = square(fit_square(c, p, w, h, max_cs)), v;
    if (c->value_min > 0 && !results_read(c, p, z, c->value_min) && fit_values(c, p, w, h, max_cs, &v)) z = v;
    z = widened(c, p, z, w, h);
    assign(p, z);
    return z;
}

/* fit_cells_as_labelled; X's features over its columns (beside W, whose
 * rows carry them too) only where they cost the results little room. */
static cells fit_cells(const viz_ctx *c, product *p, float w, float h, float max_cs) {
    cells z = fit_cells_as_labelled(c, p, w, h, max_cs);
    if (!p->left || !p->top[0] || p->left->col_labels != VIZ_LABEL_FEATURES) return z;
    p->left->col_labels = VIZ_LABEL_NONE;
    cells bare = fit_cells_as_labelled(c, p, w, h, max_cs);
    bool reads = c->value_min <= 0 || results_read(c, p, z, c->value_min) || !results_read(c, p, bare, c->value_min);
    if (reads && fminf(z.rw, z.rh) >= 0.85f * fminf(bare.rw, bare.rh)) {
        p->left->col_labels = VIZ_LABEL_FEATURES;
        assign(p, z);
        return z;
    }
    return bare;
}

/* Puts the titles of each row of matrices on one line: the tops' above the
 * tallest of their label bands, the results' (and the left's) above theirs. */
static void align_titles(const viz_ctx *c, product *p, float res_top) {
    float tops = 0; // the tops stand on the results' band: their titles go above the tallest
    for (int k = 0; k < p->blocks; k++)
        if (p->top[k]) tops = fmaxf(tops, viz_mat_top(c, p->top[k], 0) + cells_h(p->top[k]));
    for (int k = 0; k < p->blocks; k++) {
        if (p->top[k]) p->top[k]->title_up = tops - cells_h(p->top[k]);
        p->res[k]->title_up = res_top;
    }
    if (p->left) p->left->title_up = res_top;
}

static void product_draw(const viz_ctx *c, product *p, float x0, float y0) {
    float top_h, res_top, shift;
    product_bands(c, p, &top_h, &res_top, &shift);
    align_titles(c, p, res_top);
    float x = x0 + shift, y = y0 + top_h + res_top;
    if (p->left) {
        x += viz_mat_left(c, p->left, 0);
        viz_mat_draw(c, p->left, x, y, 0);
        x += mat_w(c, p->left) + gap(c);
    }
    for (int k = 0; k < p->blocks; k++) {
        const viz_mat *r = p->res[k], *t = p->top[k];
        if (!p->left) {
            if (k && p->op[k]) {
                viz_text(c->l, x, y, op_w(c, p->op[k]), cells_h(r), p->op[k], op_px(c),
                         VIZ_CENTER | VIZ_MIDDLE, c->th->muted);
            }
            x += (k ? op_w(c, p->op[k]) : 0) + viz_mat_left(c, r, 0);
        } else if (k && p->op[k]) { // a sum after the product: the gap before it holds the operator
            float ow = op_w(c, p->op[k]) - gap(c);
            viz_text(c->l, x - gap(c), y, ow + gap(c), cells_h(r), p->op[k], op_px(c), VIZ_CENTER | VIZ_MIDDLE,
                     c->th->muted);
            x += ow + viz_mat_left(c, r, 0);
        }
        if (t) viz_mat_draw(c, t, x, y - res_top - 8 * c->u - cells_h(t), 0);
        viz_mat_draw(c, r, x, y, 0);
        float bw = mat_w(c, r);
        if (t && mat_w(c, t) > bw) bw = mat_w(c, t);
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

/* The rows of the lines view for n tokens under a title of title_h in a box
 * of height h: their height and the labels' text size. */
static void lines_rows(const viz_ctx *c, float h, float title_h, int n, float *rh, float *px) {
    *rh = fminf((h - title_h) / n, 30 * c->u);
    *px = fmaxf(9.0f, fminf(*rh * 0.7f, c->small));
}

/* The width one side's labels need: the widest token at px, and a gap. */
static float lines_label_w(const viz_ctx *c, const attn_trace *t, float px) {
    char lab[96];
    float w = 0;
    for (int i = 0; i < t->n; i++) {
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        w = fmaxf(w, viz_text_w(c, lab, px));
    }
    return w + 6 * c->u;
}

/* The narrowest the lines view can be in a box of height h: both labels and some room for the lines. */
static float lines_need_w(const viz_ctx *c, const attn_trace *t, float h) {
    float rh, px;
    lines_rows(c, h, c->small * 2.0f, t->n, &rh, &px);
    return 2 * lines_label_w(c, t, px * 0.85f) + 40 * c->u;
}

/* Token rows on the left, keys on the right, a line from the query to each key:
 * thickness and opacity follow the weight. */
static void lines_view(const viz_ctx *c, viz_box b, const attn_trace *t, int head) {
    static const viz_rgba palette[ATTN_TRACE_MAX_HEADS] = {// Okabe–Ito: safe for colour-blind viewers
                                                           {0x00, 0x72, 0xb2, 255},
                                                           {0xd5, 0x5e, 0x00, 255},
                                                           {0x00, 0x9e, 0x73, 255},
                                                           {0xcc, 0x79, 0xa7, 255},
                                                           {0xe6, 0x9f, 0x00, 255},
                                                           {0x56, 0xb4, 0xe9, 255},
                                                           {0x7a, 0x5c, 0x00, 255},
                                                           {0x55, 0x55, 0x55, 255},
                                                           // heads 9–16 (a real model's, --hf): Paul Tol's "muted"
                                                           {0x33, 0x22, 0x88, 255},
                                                           {0x88, 0xcc, 0xee, 255},
                                                           {0x44, 0xaa, 0x99, 255},
                                                           {0x11, 0x77, 0x33, 255},
                                                           {0x99, 0x99, 0x33, 255},
                                                           {0xdd, 0xcc, 0x77, 255},
                                                           {0xcc, 0x66, 0x77, 255},
                                                           {0x88, 0x22, 0x55, 255}};
    int n = t->n, q = c->s->query;
    char buf[160], lab[96];
    if (q < 0 || q >= n) q = 0;
    attn_token_label(&t->tokens, q, 12, lab, sizeof lab);
    snprintf(buf, sizeof buf, viz_s(c, VIZ_S_LINES_TITLE), lab);
    if (c->s->compare == VIZ_COMPARE_OFF && c->s->lines_all_heads) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof buf - used, " · %s", viz_s(c, VIZ_S_LINES_ALL_HEADS));
    }
    // the title takes a second line rather than being cut
    float title_h = viz_line_px(c, buf, c->small, b.w) > 0 ? c->small * 2.0f : c->small * 3.0f;
    viz_label(c, b.x, b.y, b.w, title_h - c->small * 0.4f, buf, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    bool all = c->s->compare == VIZ_COMPARE_OFF && c->s->lines_all_heads;
    int h0 = all ? 0 : head, h1 = all ? t->cfg.heads : head + 1;
    bool legend = all && h1 > 1 && !c->s->hide_weights;
    float top = b.y + title_h, rh, px;
    lines_rows(c, b.h, title_h, n, &rh, &px);
    float lw = fminf(fmaxf(b.w * 0.28f, lines_label_w(c, t, px)), b.w * 0.4f), lx = b.x + lw, rx = b.x + b.w - lw;
    float leg_h = legend ? lines_legend(c, lx, 0, b.w - lw, NULL, h1, false) + 6 * c->u : 0;
    if (leg_h > 0) lines_rows(c, b.h - leg_h, title_h, n, &rh, &px); // the legend has its own room
    int step = (int)ceilf(px * 1.1f / rh);
    for (int i = 0; i < n; i++) {
        float y = top + i * rh;
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        viz_rgba col = i == q ? c->th->highlight : c->th->muted;
        if (i % step == 0 || i == q) {
            viz_label(c, b.x, y, lw - 6 * c->u, rh, lab, px, VIZ_RIGHT | VIZ_MIDDLE, col);
            viz_label(c, rx + 6 * c->u, y, lw - 6 * c->u, rh, lab, px, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
        }
        if (!c->inert) viz_hit_region(c->l, b.x, y, lw, rh, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = i});
    }
    if (c->s->hide_weights) return;
    int count = 0;
    static line_item items[ATTN_TRACE_MAX_HEADS * ATTN_TRACE_MAX_TOKENS]; // 64 KB: off the (web) stack; one UI thread draws
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
    int w = -1;
    if (head >= 0 && c->s->trace->cfg.heads > 1)
        w = snprintf(buf, cap, "%s (%s %d)", name, viz_s(c, VIZ_S_HEAD), head + 1);
    if (w < 0 || (size_t)w >= cap) snprintf(buf, cap, "%s", name); // one head, or no room: the name alone
    return buf;
}

bool viz_step_has_grad(const viz_ctx *c) {
    const viz_scene *s = c->s;
    return s->model && s->backward && !s->readout && s->run->n_targets > 0 && model_step_grad(s->step) >= 0;
}

/* How the window lays each step out; what a step shows is the step table's
 * (attn_steps.c). */
static const struct {
    bool product;               /* left · top[k] = res[k]: the first operand left, the others above the results */
    bool labels_beside;         /* a row's operand has the result's rows and columns: with values, labelled beside it */
    bool bare_result_rows;      /* a row's result has its operands' rows (Z = A·V): unlabelled */
    const char *op[MAX_BLOCKS]; /* a row's operator before block k */
} layouts[ATTN_STEP_COUNT] = {
    [ATTN_STEP_QKV] = {.product = true},
    [ATTN_STEP_ROPE] = {.labels_beside = true, .op = {NULL, NULL, "→", NULL}}, // Q, K → q_rot, k_rot (dials beside)
    [ATTN_STEP_SCORES] = {.product = true},
    [ATTN_STEP_SCALE] = {.labels_beside = true}, // its operator holds numbers: scale_op
    [ATTN_STEP_MASK] = {.labels_beside = true, .op = {NULL, "→"}},
    // side by side: V is as tall as A, so stacking it would halve every cell
    [ATTN_STEP_WEIGHTED] = {.bare_result_rows = true, .op = {NULL, "·", "="}},
    [ATTN_STEP_MULTIHEAD] = {.product = true},
};

/* The scale step's operator: "÷ √4 = 2", or "= (not scaled)". */
static const char *scale_op(const viz_ctx *c, const attn_trace *t, product *p) {
    int dk = t->cfg.d_k;
    if (t->cfg.scale) snprintf(p->op_text, sizeof p->op_text, "÷ √%d = %.3g", dk, sqrt((double)dk));
    else snprintf(p->op_text, sizeof p->op_text, "= (%s)", viz_s(c, VIZ_S_SCALE_OFF_LABEL));
    return p->op_text;
}

/* The lesson's names of m's columns for head h (NULL: numbered). */
static const char *const *column_names(const viz_ctx *c, const attn_trace *t, attn_step_matrix m, int h,
                                       viz_labels xcols) {
    const viz_names *nm = &c->s->names;
    switch (m) {
    case ATTN_SM_Q:
    case ATTN_SM_W_Q: return nm->qkv[0][h];
    case ATTN_SM_K:
    case ATTN_SM_W_K: return nm->qkv[1][h];
    case ATTN_SM_V:
    case ATTN_SM_W_V:
    case ATTN_SM_Z: return nm->qkv[2][h]; // Z's columns are V's, mixed
    case ATTN_SM_W_O:                     // a design maps back to features
        return nm->out ? nm->out : t->given[ATTN_MAT_W_O][0] && xcols == VIZ_LABEL_FEATURES ? c->s->feature_names
                                                                                            : NULL;
    default: return NULL;
    }
}

static viz_labels axis_labels(attn_axis a, viz_labels dims) {
    return a == ATTN_AXIS_TOKENS ? VIZ_LABEL_TOKENS : a == ATTN_AXIS_CONCAT ? VIZ_LABEL_CONCAT
                                                                            : dims;
}

/* The matrix sh of the step table for head h of t, titled by its screen name
 * ("Kᵀ (head 2)") in title_buf, labelled by its axes. feeds: the stage a
 * weight matrix feeds. */
static viz_mat shown_mat(const viz_ctx *c, const attn_trace *t, attn_shown sh, int h, int feeds, viz_labels xcols,
                         char *title_buf, size_t cap) {
    sh.m = attn_step_matrix_under(sh.m, c->s->step, &t->cfg); // RoPE: the scores read q_rot and k_rot
    attn_step_matrix m = sh.m, named = m;
    if (m == ATTN_SM_S_SCALED && !t->cfg.scale) named = ATTN_SM_S; // the same values as S: named S
    bool per_head = attn_step_matrix_per_head(m);
    char name[96];
    snprintf(name, sizeof name, "%s%s", viz_s(c, (viz_str)((sh.show & ATTN_SHOW_DEFINED ? VIZ_S_DEF_X : VIZ_S_MAT_X) + named)),
             sh.show & ATTN_SHOW_TRANSPOSED ? "ᵀ" : "");
    title(c, title_buf, cap, name, per_head ? h : -1);
    int rows, cols, stage = attn_step_matrix_stage(m);
    const double *v = attn_step_matrix_values(t, m, h, &rows, &cols);
    attn_axis ra, ca;
    attn_step_matrix_axes(m, &ra, &ca);
    viz_mat out;
    if (stage < 0) { // a weight: its rows are the matrix it multiplies' columns, labelled there
        out = weight(v, rows, cols, feeds, per_head ? h : 0, title_buf);
    } else {
        out = raw(v, rows, cols, stage, per_head ? h : 0, title_buf,
                  stage == ATTN_ST_WEIGHTS ? VIZ_MAP_WEIGHTS : VIZ_MAP_SIGNED,
                  axis_labels(ra, m == ATTN_SM_X ? xcols : VIZ_LABEL_DIMS), axis_labels(ca, m == ATTN_SM_X ? xcols : VIZ_LABEL_DIMS));
        if (stage == ATTN_ST_WEIGHTS) out.mask = &t->cfg.mask;
        out.hidden = c->s->hide_weights && stage >= ATTN_ST_WEIGHTS; // the answer, while the learner predicts
    }
    out.col_names = column_names(c, t, m, h, xcols);
    if (sh.show & ATTN_SHOW_TRANSPOSED) {
        out.transposed = true;
        out.rows = cols, out.cols = rows;
        out.row_labels = out.col_names ? VIZ_LABEL_DIMS : VIZ_LABEL_NONE; // met by the left's columns of the same name
        out.col_labels = axis_labels(ra, VIZ_LABEL_DIMS);
        out.row_names = out.col_names;
        out.col_names = NULL;
    }
    return out;
}

/* Lays the step table's matrices of the scene's step out in p, for head h. */
static void lay_out_step(const viz_ctx *c, product *p, const attn_trace *t, int h, viz_labels xcols) {
    attn_step s = c->s->step;
    const attn_step_info *info = attn_step_get(s);
    viz_mat *mats = p->mats;
    int n = info->operands + info->results, first_result = info->operands;
    for (int i = 0; i < n; i++) {
        int feeds = layouts[s].product && i > 0 && i < first_result ? attn_step_matrix_stage(info->shown[first_result + i - 1].m) : -1;
        mats[i] = shown_mat(c, t, info->shown[i], h, feeds, xcols, p->titles[i], sizeof p->titles[i]);
    }
    if (layouts[s].product) {
        p->left = &mats[0];
        if (info->shown[0].m == ATTN_SM_X) { // W's rows are X's columns: they carry X's features, and X keeps
            // them too where a lesson names them (its text reads X's rows: "a 1 only in the pronoun dimension")
            mats[0].col_labels = xcols == VIZ_LABEL_FEATURES ? VIZ_LABEL_FEATURES : VIZ_LABEL_NONE;
            if (xcols == VIZ_LABEL_FEATURES) mats[1].row_labels = VIZ_LABEL_FEATURES;
        }
        for (int k = 0; k < info->results; k++) {
            p->top[k] = k + 1 < first_result ? &mats[k + 1] : NULL;
            p->res[k] = &mats[first_result + k];
            p->res[k]->row_labels = p->res[k]->col_labels = VIZ_LABEL_NONE; // the left's rows, the top's columns
        }
        p->blocks = info->results;
        return;
    }
    for (int k = 0; k < n; k++) {
        p->res[k] = &mats[k];
        p->operand[k] = k < first_result;
        p->op[k] = layouts[s].op[k];
        if (p->operand[k] && layouts[s].labels_beside && c->value_min > 0)
            mats[k].row_labels = mats[k].col_labels = VIZ_LABEL_NONE; // its rows and columns are the result's
        if (!p->operand[k] && layouts[s].bare_result_rows) mats[k].row_labels = VIZ_LABEL_NONE;
    }
    if (s == ATTN_STEP_SCALE) p->op[1] = scale_op(c, t, p);
    p->blocks = n;
}

/* A model's X = E[token] + P: the learned embedding and the positions before X. */
static void embed_sum(const viz_ctx *c, product *p, const attn_trace *t) {
    const viz_scene *sc = c->s;
    viz_mat *mats = p->mats;
    int n = t->n, dm = t->cfg.d_model;
    bool pos = model_pos_in_x(sc->model->cfg.pos);
    mats[1] = raw(sc->run->embed, n, dm, ATTN_ST_X, 0, "E[token]", VIZ_MAP_SIGNED, VIZ_LABEL_TOKENS, VIZ_LABEL_DIMS);
    mats[2] = raw(sc->run->pos, n, dm, ATTN_ST_X, 0, "P", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_DIMS);
    mats[0].row_labels = VIZ_LABEL_NONE;
    mats[0].col_labels = VIZ_LABEL_DIMS;
    mats[0].title = pos ? "X = E + P" : "X = E";
    p->res[0] = &mats[1];
    p->operand[0] = true;
    p->res[1] = pos ? &mats[2] : &mats[0];
    p->operand[1] = pos;
    p->op[1] = pos ? "+" : "=";
    if (pos) p->res[2] = &mats[0], p->op[2] = "=";
    p->blocks = pos ? 3 : 2;
}

/* The backward pass beside the step (scale, mask: the result and ∂L/∂T;
 * softmax: A and ∂L/∂A): two large matrices, the gradient on its own range. */
static void with_gradient(const viz_ctx *c, product *p, int h) {
    viz_mat *mats = p->mats;
    bool soft = c->s->step == ATTN_STEP_SOFTMAX;
    int g = p->blocks; // after the step's matrices
    mats[g] = run_mat(c, soft ? MODEL_ST_D_WEIGHTS : MODEL_ST_D_SCALED, h,
                      title(c, p->titles[g], sizeof p->titles[g], soft ? "∂L/∂A" : "∂L/∂T", h), VIZ_MAP_SIGNED,
                      VIZ_LABEL_TOKENS, VIZ_LABEL_TOKENS);
    mats[g].own_range = true;
    mats[g].hidden = c->s->hide_weights;
    if (!soft) { // the result alone beside it: the operand gives up its place
        mats[1].row_labels = VIZ_LABEL_TOKENS;
        p->res[0] = &mats[1];
        p->operand[0] = false;
    }
    p->res[1] = &mats[g];
    p->op[1] = "";
    p->blocks = 2;
}

/* Fills p with the matrices of the scene's step for head h of t (p->mats is
 * storage): the step table's, and a model's own around them. */
static void build_product(const viz_ctx *c, product *p, const attn_trace *t, int h) {
    const viz_scene *sc = c->s;
    viz_labels xcols = sc->feature_names && t->cfg.d_model <= 64 ? VIZ_LABEL_FEATURES : VIZ_LABEL_DIMS;
    memset(p, 0, sizeof *p);
    if (!attn_step_get(sc->step)) return;
    lay_out_step(c, p, t, h, xcols);
    if (sc->step == ATTN_STEP_EMBED && sc->model && sc->layer > 0) { // a later layer reads the residual stream
        snprintf(p->titles[0], sizeof p->titles[0], viz_s(c, VIZ_S_X_FROM_RESIDUAL), sc->layer);
        p->mats[0].title = p->titles[0];
    } else if (sc->step == ATTN_STEP_EMBED && sc->model) {
        embed_sum(c, p, t);
    }
    if (viz_step_has_grad(c)) with_gradient(c, p, h);
    if (sc->step == ATTN_STEP_MULTIHEAD && sc->model) { // the residual stream: the layer adds its output to its input
        viz_mat *mats = p->mats;
        mats[3] = mat(t, ATTN_ST_X, 0, "X", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
        mats[4] = run_mat(c, MODEL_ST_RESIDUAL, 0, "X + out", VIZ_MAP_SIGNED, VIZ_LABEL_NONE, VIZ_LABEL_NONE);
        mats[4].hidden = sc->hide_weights;
        p->res[1] = &mats[3];
        p->op[1] = "+";
        p->res[2] = &mats[4];
        p->op[2] = "=";
        p->blocks = 3;
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

/* ---- RoPE's dials (step 2b) ---- */

/* The width RoPE's dials take beside the matrices of step 2b (0 elsewhere). */
static float dials_w(const viz_ctx *c, viz_box b, const attn_trace *t) {
    if (c->s->step != ATTN_STEP_ROPE || !t->cfg.rope || c->s->query < 0 || c->s->query >= t->n) return 0;
    return fminf(fmaxf(b.w * 0.15f, 130 * c->u), b.w * 0.3f);
}

/* A dial: a circle of radius r at (cx, cy), the pair before (a thin line in
 * the muted colour) and after the rotation (thick, accent), both scaled by
 * len (the longest pair's length reaches the rim). */
static void dial(const viz_ctx *c, float cx, float cy, float r, const double *before, const double *after, double len) {
    const viz_theme *th = c->th;
    enum { SEGMENTS = 28 };
    for (int k = 0; k < SEGMENTS; k++) { // the rim, as straight pieces
        double a0 = 6.283185307179586 * k / SEGMENTS, a1 = 6.283185307179586 * (k + 1) / SEGMENTS;
        viz_line(c->l, cx + r * (float)attn_cos(a0), cy - r * (float)attn_sin(a0), cx + r * (float)attn_cos(a1),
                 cy - r * (float)attn_sin(a1), 1 * c->u, th->line);
    }
    double s = len > 0 ? r / len : 0; // y grows downwards on screen: the second component goes up
    viz_line(c->l, cx, cy, cx + (float)(before[0] * s), cy - (float)(before[1] * s), 2 * c->u, th->muted);
    viz_line(c->l, cx, cy, cx + (float)(after[0] * s), cy - (float)(after[1] * s), 3 * c->u, th->accent);
}

/* Each pair i of the query's q and k as two dials (before and after the turn
 * by m·θᵢ), as many pairs as fit in b; a dial is hovered as its q_rot or
 * k_rot cell. */
static void dials_view(const viz_ctx *c, viz_box b, const attn_trace *t, int head) {
    const viz_theme *th = c->th;
    const attn_head *hd = &t->head[head];
    int dk = t->cfg.d_k, pairs = dk / 2, i = c->s->query;
    char buf[160], tok[96];
    int len;
    const char *word = attn_token_text(&t->tokens, i, &len);
    snprintf(tok, sizeof tok, "%.*s", len, word);
    float px = c->small, title_h = px * 3.2f;
    snprintf(buf, sizeof buf, "q, k · %s · m = %d", tok, t->cfg.pos_offset + i);
    viz_label(c, b.x, b.y, b.w, px * 1.6f, buf, px, VIZ_LEFT | VIZ_MIDDLE, th->text);
    float lx = b.x, ly = b.y + px * 2.4f, seg = px * 1.2f; // the legend: a line of each kind and its word
    for (int k = 0; k < 2; k++) {
        viz_line(c->l, lx, ly, lx + seg, ly, (k ? 3 : 2) * c->u, k ? th->accent : th->muted);
        const char *w = viz_s(c, k ? VIZ_S_ROPE_AFTER : VIZ_S_ROPE_BEFORE);
        viz_label(c, lx + seg + 4 * c->u, b.y + px * 1.6f, b.w, px * 1.6f, w, px, VIZ_LEFT | VIZ_MIDDLE, th->muted);
        lx += seg + 4 * c->u + viz_text_w(c, w, px) + 12 * c->u;
    }
    float row_h = fminf((b.h - title_h) / (pairs > 0 ? pairs : 1), b.w * 0.5f);
    int shown = pairs;
    if (row_h < 44 * c->u) { // too many pairs: the first ones (the fastest turning), and how many are left
        row_h = 44 * c->u;
        shown = (int)((b.h - title_h - px * 1.6f) / row_h);
        if (shown < 1) shown = 1;
        if (shown > pairs) shown = pairs;
    }
    double qlen = 0, klen = 0;
    for (int p = 0; p < pairs; p++) {
        const double *q = hd->q + (size_t)i * dk + 2 * p, *k = hd->k + (size_t)i * dk + 2 * p;
        qlen = fmax(qlen, sqrt(q[0] * q[0] + q[1] * q[1]));
        klen = fmax(klen, sqrt(k[0] * k[0] + k[1] * k[1]));
    }
    float y = b.y + title_h, r = fminf(row_h * 0.36f, b.w * 0.18f), lab_w = b.w * 0.26f;
    for (int p = 0; p < shown; p++, y += row_h) {
        size_t at = (size_t)i * dk + 2 * p;
        double angle = attn_rope_angle(t->cfg.pos_offset + i, p, dk, t->cfg.rope_base);
        snprintf(buf, sizeof buf, "i=%d", p);
        viz_label(c, b.x, y + row_h * 0.5f - px, lab_w, px * 1.2f, buf, px, VIZ_LEFT | VIZ_MIDDLE, th->text);
        snprintf(buf, sizeof buf, "θ=%.3g", angle);
        viz_label(c, b.x, y + row_h * 0.5f + px * 0.2f, lab_w, px * 1.2f, buf, px * 0.9f, VIZ_LEFT | VIZ_MIDDLE, th->muted);
        for (int w = 0; w < 2; w++) {
            float cx = b.x + lab_w + (b.w - lab_w) * (w == 0 ? 0.25f : 0.75f), cy = y + row_h * 0.5f;
            dial(c, cx, cy, r, (w ? hd->k : hd->q) + at, (w ? hd->k_rot : hd->q_rot) + at, w ? klen : qlen);
            viz_label(c, cx - r, cy + r, 2 * r, px * 1.1f, w ? "k" : "q", px * 0.9f, VIZ_CENTER | VIZ_TOP, th->muted);
            viz_hit_region(c->l, cx - r, cy - r, 2 * r, 2 * r,
                           (viz_hit){.kind = VIZ_HIT_CELL, .stage = w ? ATTN_ST_K_ROT : ATTN_ST_Q_ROT, .head = head, .row = i, .col = 2 * p});
        }
    }
    if (shown < pairs) {
        snprintf(buf, sizeof buf, "+ %d", pairs - shown);
        viz_label(c, b.x, y, b.w, px * 1.4f, buf, px, VIZ_LEFT | VIZ_MIDDLE, th->muted);
    }
}

/* How much of b the matrices take when the lines view shares it (softmax):
 * 58%, or more where the theme wants values and the lines can do with less. */
static float matrices_w(const viz_ctx *c, viz_box b, const attn_trace *t) {
    if (c->s->step != ATTN_STEP_SOFTMAX || viz_step_has_grad(c)) return b.w; // the backward pass takes the lines' room
    float w = c->value_min > 0 ? fmaxf(b.w * 0.58f, b.w - fmaxf(b.w * 0.25f, 150 * c->u)) : b.w * 0.58f;
    return fminf(w, b.w - gap(c) - lines_need_w(c, t, b.h)); // the lines keep their labels whole
}

static cells zoomed(cells z, float zoom) {
    return (cells){z.rw * zoom, z.rh * zoom, z.kw * zoom, z.kh * zoom};
}

int viz_subtitle_lines(const viz_ctx *c, const char *s, float w) {
    return viz_line_px(c, s, c->body, w) > 0 ? 1 : 2;
}

/* The room a subtitle of lines lines takes (0: none). */
static float subtitle_h(const viz_ctx *c, int lines) {
    return lines <= 0 ? 0 : (lines == 1 ? c->body * 1.5f : c->small * 2.6f) + c->body * 0.2f;
}

void viz_draw_step(const viz_ctx *c, viz_box b, const attn_trace *t, int head, const char *subtitle, double range) {
    viz_draw_view(c, b, t, head, subtitle, subtitle ? viz_subtitle_lines(c, subtitle, b.w) : 0, range);
}

/* A comparison where the room is wanted (the figure view, the presenter
 * theme): each view keeps the step's results alone, labelled by the tokens
 * and the dimensions their operands carried; the operands and the lines
 * view, the same kind of picture in both views, give them their room. */
static bool results_only(const viz_ctx *c) {
    return c->s->compare != VIZ_COMPARE_OFF && (c->figure || c->th->value_px > 0) && !c->s->readout;
}

static void keep_results(product *p) {
    int n = 0;
    for (int k = 0; k < p->blocks; k++) {
        viz_mat *r = p->res[k];
        if (p->left) { // a product: the left's rows and the top's columns were its labels
            r->row_labels = p->left->row_labels == VIZ_LABEL_TOKENS ? VIZ_LABEL_TOKENS : VIZ_LABEL_NONE;
            r->col_labels = p->top[k] ? p->top[k]->col_labels : VIZ_LABEL_DIMS;
            if (p->top[k] && !r->col_names) r->col_names = p->top[k]->col_names;
            p->top[k] = NULL;
        } else if (p->operand[k]) {
            continue;
        } else if (r->row_labels == VIZ_LABEL_NONE && r->rows == p->res[0]->rows) {
            r->row_labels = VIZ_LABEL_TOKENS; // Z's rows were A's
        }
        p->res[n] = r;
        p->operand[n] = false;
        p->op[n] = n ? "" : NULL;
        n++;
    }
    p->left = NULL;
    p->blocks = n;
}

void viz_draw_view(const viz_ctx *c, viz_box b, const attn_trace *t, int head, const char *subtitle, int sub_lines,
                   double range) {
    product p;
    build_product(c, &p, t, head);
    set_range(&p, range);
    bool lean = subtitle && results_only(c);
    if (lean) keep_results(&p);
    if (subtitle) { // a view's settings: one line, or two of smaller text rather than cut
        float h = subtitle_h(c, sub_lines);
        viz_label(c, b.x, b.y, b.w, h - c->body * 0.2f, subtitle, sub_lines == 1 ? c->body : c->small,
                  VIZ_LEFT | VIZ_MIDDLE, c->th->accent);
        b.y += h;
        b.h -= h;
    }
    viz_box mb = b;
    bool lines = c->s->step == ATTN_STEP_SOFTMAX && !viz_step_has_grad(c) && !lean;
    float dw = lean ? 0 : dials_w(c, b, t); // RoPE's dials take the right of 2b, unless the values then would not be written
    cells with;
    if (dw > 0 && c->value_min > 0 && !fit_values(c, &p, matrices_w(c, b, t) - dw - gap(c), mb.h, 46 * c->u, &with)) dw = 0;
    mb.w = lines ? matrices_w(c, b, t) - (dw > 0 ? dw + gap(c) : 0) : b.w - (dw > 0 ? dw + gap(c) : 0);
    assign(&p, zoomed(fit_cells(c, &p, mb.w, mb.h, 46 * c->u), c->s->canvas_zoom));
    float pw, ph;
    product_size(c, &p, &pw, &ph);
    if (lines && pw < mb.w) mb.w = fmaxf(fminf(b.w * 0.58f, mb.w), pw); // the lines view gets what the matrices leave
    float x = mb.x + (pw < mb.w ? (mb.w - pw) / 2 : 0) - c->s->canvas_pan_x;
    float y = mb.y + (ph < mb.h ? (mb.h - ph) / 2 : 0) - c->s->canvas_pan_y;
    product_draw(c, &p, x, y);
    if (c->s->step == ATTN_STEP_MULTIHEAD && p.left && attn_kv_heads(&t->cfg) != t->cfg.heads) {
        // grouped-query attention: which heads share K and V, above concat(Z) when the band there holds it
        float top_h, res_top, shift, gx = x + 0, gw;
        product_bands(c, &p, &top_h, &res_top, &shift);
        gx += shift + viz_mat_left(c, p.left, 0);
        gw = mat_w(c, p.left);
        if (viz_kv_groups(c, gx, y, gw, &t->cfg, head, false) <= top_h) viz_kv_groups(c, gx, y, gw, &t->cfg, head, true);
    }
    if (lines) {
        viz_box lb = {b.x + mb.w + gap(c), b.y, b.w - mb.w - gap(c), b.h};
        lines_view(c, lb, t, head);
    }
    if (dw > 0) dials_view(c, (viz_box){b.x + b.w - dw, b.y, dw, b.h}, t, head);
}

float viz_step_fit(const viz_ctx *c, viz_box b, const attn_trace *t, int head) {
    product p;
    build_product(c, &p, t, head);
    bool lean = results_only(c);
    if (lean) keep_results(&p);
    float dw = lean ? 0 : dials_w(c, b, t);
    cells z = fit_cells(c, &p, (lean ? b.w : matrices_w(c, b, t)) - (dw > 0 ? dw + gap(c) : 0), b.h - subtitle_h(c, 1),
                        46 * c->u);
    return fminf(z.rw, z.rh); // the results' cells: what a split view compares
}

void viz_draw_single(const viz_ctx *c, viz_box b, viz_mat *m) {
    product p;
    memset(&p, 0, sizeof p);
    p.mats[0] = *m;
    p.res[0] = &p.mats[0];
    p.blocks = 1;
    cells z = fit_cells(c, &p, b.w, b.h, 46 * c->u);
    // a matrix much wider than tall (a readout's n × vocabulary) takes the height its width leaves:
    // taller rows, up to three times as tall as wide, keep their labels
    // (taller rows label themselves larger: the columns give up the width their labels take)
    assign(&p, z);
    float left0 = viz_mat_left(c, &p.mats[0], 0), lo = z.rh, hi = fminf(46 * c->u, 3 * z.rw), rw = z.rw;
    for (int i = 0; i < 12 && hi - lo > 0.25f; i++) {
        float mid = (lo + hi) / 2;
        assign(&p, (cells){z.rw, mid, z.kw, mid});
        float w = z.rw - fmaxf(0, viz_mat_left(c, &p.mats[0], 0) - left0) / (float)p.mats[0].cols;
        if (w >= 0.85f * z.rw && fits(c, &p, (cells){w, mid, z.kw, mid}, b.w, b.h)) lo = mid, rw = w;
        else hi = mid;
    }
    z.rw = rw;
    z.rh = z.kh = lo;
    assign(&p, zoomed(z, c->s->canvas_zoom));
    float pw, ph;
    product_size(c, &p, &pw, &ph);
    float x = b.x + (pw < b.w ? (b.w - pw) / 2 : 0) - c->s->canvas_pan_x;
    float y = b.y + (ph < b.h ? (b.h - ph) / 2 : 0) - c->s->canvas_pan_y;
    product_draw(c, &p, x, y);
}
