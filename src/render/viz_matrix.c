/* viz_matrix.c — a matrix as a labelled heatmap with hit regions, and legends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "viz_internal.h"

double viz_abs_max(const double *v, size_t count) {
    double m = 1e-9;
    for (size_t i = 0; i < count; i++)
        if (isfinite(v[i]) && fabs(v[i]) > m) m = fabs(v[i]);
    return m;
}

/* Label text size for cell size cs: readable, never taller than the cell allows. */
static float label_px(const viz_ctx *c, float cs) {
    float px = cs * (c->value_min > 0 ? 0.8f : 0.7f); // where values are read from afar, labels are too
    if (px > c->small) px = c->small;
    if (px < 10.0f) px = cs / 1.15f >= 9.0f ? fminf(10.0f, cs / 1.15f) : 10.0f; // one per cell if 9 px allow, else thinned
    return px;
}

/* m's cells: their width (along a row) and height, drawn at cs unless m sets its own. */
static float cell_w(const viz_mat *m, float cs) { return m->cw > 0 ? m->cw : cs; }
static float cell_h(const viz_mat *m, float cs) { return m->ch > 0 ? m->ch : cs; }

/* The size of m's column labels: as large as its cells allow, their width
 * counting up to twice their height (so wide cells do not get labels larger
 * than their rows'). */
static float col_label_px(const viz_ctx *c, const viz_mat *m, float cs);

#define MAX_LABELS (ATTN_MAX_HEADS * ATTN_MAX_D_K) /* the widest matrix: concat and W_O's rows */

static void row_label(const viz_ctx *c, const viz_mat *m, int i, char *buf, size_t cap, bool is_col) {
    viz_labels kind = is_col ? m->col_labels : m->row_labels;
    const char *const *names = is_col ? m->col_names : m->row_names;
    const attn_trace *t = c->s->trace;
    if (kind == VIZ_LABEL_TOKENS) attn_token_label(&t->tokens, i, 0, buf, cap);
    else if (kind == VIZ_LABEL_FEATURES && c->s->feature_names) {
        snprintf(buf, cap, "%s", c->s->feature_names[i]);
        utf8_trim_partial(buf); // a long feature name is cut between characters
    } else if (kind == VIZ_LABEL_CONCAT) snprintf(buf, cap, "h%d.%d", i / t->cfg.d_k + 1, i % t->cfg.d_k);
    else if (kind == VIZ_LABEL_WORDS && c->s->model) snprintf(buf, cap, "%s", c->s->model->vocab[i]);
    else if (kind == VIZ_LABEL_DIMS && names) snprintf(buf, cap, "%s", names[i]);
    else snprintf(buf, cap, "%d", i);
}

float viz_mat_left(const viz_ctx *c, const viz_mat *m, float cs) {
    if (m->row_labels == VIZ_LABEL_NONE) return 0;
    float px = label_px(c, cell_h(m, cs)), w = 0;
    char buf[128];
    for (int i = 0; i < m->rows; i++) {
        row_label(c, m, i, buf, sizeof buf, false);
        float tw = viz_text_w(c, buf, px);
        if (tw > w) w = tw;
    }
    float cap = 110.0f * c->u;
    return (w < cap ? w : cap) + 6.0f * c->u;
}

/* The widths of m's column labels at px (at most cap) into width; returns the widest. */
static float col_widths(const viz_ctx *c, const viz_mat *m, float px, float cap, float *width) {
    int n = m->cols < MAX_LABELS ? m->cols : MAX_LABELS;
    char buf[128];
    float widest = 0;
    for (int j = 0; j < n; j++) {
        row_label(c, m, j, buf, sizeof buf, true);
        width[j] = fminf(viz_text_w(c, buf, px), cap);
        widest = fmaxf(widest, width[j]);
    }
    return widest;
}

/* Whether every label fits when they take turns over lanes lines. */
static bool alternate_fits(const float *width, int n, float cw, int lanes, float sep) {
    for (int j = 0; j + lanes < n; j++)
        if (lanes * cw < (width[j] + width[j + lanes]) / 2 + sep) return false;
    return true;
}

static float col_label_px(const viz_ctx *c, const viz_mat *m, float cs) {
    float cw = cell_w(m, cs), ch = cell_h(m, cs);
    float px = label_px(c, fminf(cw, fmaxf(ch, cw * 0.5f)));
    // where values are written at a size, names over the columns read at 11 px when two staggered lines hold them all
    if (c->value_min > 0 && px < 11.0f && c->small >= 11.0f && m->col_labels != VIZ_LABEL_TOKENS) {
        float width[MAX_LABELS];
        int n = m->cols < MAX_LABELS ? m->cols : MAX_LABELS;
        col_widths(c, m, 11.0f, 110.0f * c->u, width);
        if (alternate_fits(width, n, cw, 2, 4 * c->u)) px = 11.0f;
    }
    return px;
}

/* How many lines m's column labels take: one when each fits its cell, two
 * staggered ones, or three when only three label every column. */
static int col_lanes(const viz_ctx *c, const viz_mat *m, float cs) {
    float px = col_label_px(c, m, cs), cw = cell_w(m, cs), width[MAX_LABELS];
    int n = m->cols < MAX_LABELS ? m->cols : MAX_LABELS;
    if (col_widths(c, m, px, 110.0f * c->u, width) <= cw - 2) return 1;
    float sep = 4 * c->u;
    return !alternate_fits(width, n, cw, 2, sep) && alternate_fits(width, n, cw, 3, sep) ? 3 : 2;
}

float viz_mat_top(const viz_ctx *c, const viz_mat *m, float cs) {
    float h = c->small * 1.6f;
    if (m->col_labels != VIZ_LABEL_NONE) {
        float lh = col_label_px(c, m, cs) * 1.3f;
        h += col_lanes(c, m, cs) * lh;
    }
    return h;
}

float viz_col_label_need(const viz_ctx *c, const viz_mat *m, float cw) {
    if (m->col_labels != VIZ_LABEL_FEATURES && !(m->col_labels == VIZ_LABEL_DIMS && m->col_names)) return 0;
    float px = col_label_px(c, m, cw), widest = 0;
    char buf[128];
    for (int j = 0; j < m->cols; j++) {
        row_label(c, m, j, buf, sizeof buf, true);
        widest = fmaxf(widest, viz_text_w(c, buf, px));
    }
    return (fminf(widest, 110.0f * c->u) + 4 * c->u) / 2; // two staggered lines: each label has two cells
}

/* The rank of label s among the labels the page keeps, or -1. */
static int keep_rank(const viz_ctx *c, const char *s) {
    for (int k = 0; k < c->s->names.n_keep; k++)
        if (strcmp(c->s->names.keep[k], s) == 0) return k;
    return -1;
}

/* The order in which n labels claim room: the query's, the token the page
 * points at (its @highlight: a token, a column, a cell's key), the ones the
 * page keeps (in its order), every step-th, then the rest. */
static int label_order(const viz_ctx *c, const viz_mat *m, bool is_col, int n, int step, int *order) {
    viz_labels kind = is_col ? m->col_labels : m->row_labels;
    const viz_mark *mk = &c->s->mark;
    int q = c->s->query, k = 0;
    int marked = mk->kind == VIZ_MARK_TOKEN ? mk->row : mk->kind == VIZ_MARK_NONE ? -1
                                                    : is_col                      ? mk->col
                                                                                  : mk->row;
    char buf[128];
    bool taken[MAX_LABELS];
    memset(taken, 0, sizeof(bool) * (size_t)n);
    if (kind == VIZ_LABEL_TOKENS && q >= 0 && q < n) order[k++] = q, taken[q] = true;
    if (kind == VIZ_LABEL_TOKENS && marked >= 0 && marked < n && !taken[marked])
        order[k++] = marked, taken[marked] = true;
    for (int r = 0; r < c->s->names.n_keep; r++)
        for (int i = 0; i < n; i++) {
            if (taken[i]) continue;
            row_label(c, m, i, buf, sizeof buf, is_col);
            if (keep_rank(c, buf) == r) order[k++] = i, taken[i] = true;
        }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (!taken[i] && (pass == 1 || i % step == 0)) order[k++] = i, taken[i] = true;
    return k;
}

/* Which rows get a label of size px in cells of height ch: greedily in
 * label_order, each at least px·1.15 from the ones already placed. */
static void pick_rows(const viz_ctx *c, const viz_mat *m, float ch, float px, bool *show) {
    int order[MAX_LABELS], placed[MAX_LABELS];
    int n = m->rows < MAX_LABELS ? m->rows : MAX_LABELS, np = 0;
    int step = (int)ceilf(px * 1.15f / ch);
    if (step < 1) step = 1;
    int k = label_order(c, m, false, n, step, order);
    memset(show, 0, sizeof(bool) * (size_t)n);
    for (int a = 0; a < k; a++) {
        int i = order[a];
        bool room = true;
        for (int b = 0; b < np && room; b++) room = abs(placed[b] - i) * ch >= px * 1.15f - 0.01f;
        if (room) show[i] = true, placed[np++] = i;
    }
}

/* Which columns get a label, and in which of lanes staggered lines
 * (lane[j]: 0 the upper): all of them taking turns when they fit so, else
 * greedily in label_order, each where it overlaps no label placed before in
 * its line. */
static void pick_cols(const viz_ctx *c, const viz_mat *m, float cw, float px, float cap, int lanes, bool *show,
                      int *lane) {
    int order[MAX_LABELS];
    float width[MAX_LABELS];
    int n = m->cols < MAX_LABELS ? m->cols : MAX_LABELS;
    float widest = col_widths(c, m, px, cap, width), sep = 4 * c->u;
    if (alternate_fits(width, n, cw, lanes, sep)) {
        for (int j = 0; j < n; j++) show[j] = true, lane[j] = j % lanes;
        return;
    }
    int step = (int)ceilf((widest + sep) / (lanes * cw)); // as many as fit when all are the widest
    if (step < 1) step = 1;
    int k = label_order(c, m, true, n, step, order);
    memset(show, 0, sizeof(bool) * (size_t)n);
    for (int a = 0; a < k; a++) {
        int j = order[a], want = (j / step) % lanes;
        for (int t = 0; t < lanes && !show[j]; t++) {
            int ln = (want + t) % lanes;
            bool room = true;
            for (int i = 0; i < n && room; i++)
                if (show[i] && lane[i] == ln) room = fabsf((float)(i - j)) * cw >= (width[i] + width[j]) / 2 + sep;
            if (room) show[j] = true, lane[j] = ln;
        }
    }
}

/* Which cell, row or column of m feeds the hovered cell (-1 where none). */
static void operand_of(const viz_ctx *c, const viz_mat *m, int *row, int *col) {
    viz_hit h = c->s->hover;
    *row = *col = -1;
    if (h.kind != VIZ_HIT_CELL) return;
    int st = h.stage, hd = h.head, i = h.row, j = h.col, dk = c->s->trace->cfg.d_k;
    bool same_head = m->head == hd || !model_stage_per_head(m->stage) || !model_stage_per_head(st);
    if (m->weight_of >= 0) { // W_Q/W_K/W_V or W_O: the column of the hovered output
        if (m->weight_of == st && (st == ATTN_ST_OUTPUT || m->head == hd)) *col = j;
        return;
    }
    if (!same_head) return;
    switch (st) {
    case ATTN_ST_Q:
    case ATTN_ST_K:
    case ATTN_ST_V:
        if (m->stage == ATTN_ST_X) *row = i;
        break;
    case ATTN_ST_SCORES:
        if (m->stage == ATTN_ST_Q) *row = i;
        if (m->stage == ATTN_ST_K) *row = j; // shown as Kᵀ: its column j
        break;
    case ATTN_ST_SCALED:
        if (m->stage == ATTN_ST_SCORES) {
            *row = i;
            *col = j;
        }
        break;
    case ATTN_ST_MASKED:
        if (m->stage == ATTN_ST_SCALED) {
            *row = i;
            *col = j;
        }
        break;
    case ATTN_ST_WEIGHTS:
        if (m->stage == ATTN_ST_MASKED || m->stage == ATTN_ST_SCALED) *row = i;
        break;
    case ATTN_ST_Z:
        if (m->stage == ATTN_ST_WEIGHTS) *row = i;
        if (m->stage == ATTN_ST_V) *col = j;
        break;
    case ATTN_ST_CONCAT:
        if (m->stage == ATTN_ST_Z && m->head == j / dk) {
            *row = i;
            *col = j % dk;
        }
        break;
    case ATTN_ST_OUTPUT:
        if (m->stage == ATTN_ST_CONCAT) *row = i;
        break;
    case MODEL_ST_RESIDUAL:
        if (m->stage == ATTN_ST_OUTPUT || m->stage == ATTN_ST_X) {
            *row = i;
            *col = j;
        }
        break;
    case MODEL_ST_D_SCALED:
        if (m->stage == ATTN_ST_WEIGHTS || m->stage == MODEL_ST_D_WEIGHTS) *row = i;
        break;
    case MODEL_ST_PROBS:
        if (m->stage == MODEL_ST_LOGITS) *row = i;
        break;
    default: break;
    }
}

static bool cell_masked(const viz_mat *m, int r, int col, double v) {
    return v == -INFINITY || (m->mask && !attn_mask_allows(*m->mask, r, col));
}

#define UNTRAINED_FADE 0.6f /* how far an untrained row's colours go toward the background */

static viz_rgba cell_color(const viz_ctx *c, const viz_mat *m, double v, bool masked) {
    if (m->hidden) return c->th->panel2;
    if (masked) return c->th->masked;
    if (m->map == VIZ_MAP_WEIGHTS) return viz_sequential(v);
    if (!isfinite(v)) return c->th->masked; // never a colour of the scale
    return viz_diverging(v / m->range);
}

/* Whether row r of m is one the pointer objective leaves free: in the last
 * layer of a pointer model, the attention rows (scores to A, and the readout
 * Ā) of every token but the targets' (the pronoun's). The loss reads only
 * those rows, so the others are faded and the trained row reads first; rows
 * stay in sentence order, so the matrix still reads as query × key. */
bool viz_row_untrained(const viz_ctx *c, const viz_mat *m, int r) {
    const viz_scene *s = c->s;
    if (!s->model || !s->run || s->model->cfg.objective != MODEL_OBJ_POINTER || s->run->n_targets < 1 ||
        m->weight_of >= 0 || m->transposed || m->hidden)
        return false;
    bool attention = m->stage == ATTN_ST_SCORES || m->stage == ATTN_ST_SCALED || m->stage == ATTN_ST_MASKED ||
                     m->stage == ATTN_ST_WEIGHTS;
    if (!(m->stage == MODEL_ST_AVG || (attention && s->layer == s->model->cfg.layers - 1))) return false;
    for (int k = 0; k < s->run->n_targets; k++)
        if (s->run->targets[k].row == r) return false;
    return r >= 0 && r < m->rows;
}

static double cell_value(const viz_mat *m, int r, int col) {
    return m->transposed ? m->v[(size_t)col * m->rows + r] : m->v[(size_t)r * m->cols + col];
}

/* Characters of v as viz_format_value writes it (digits share one width). */
static int value_chars(double v) {
    if (v == -INFINITY) return 2;
    double a = fabs(v);
    if (a >= 999.995) return (v < 0) + (a >= 1e100 ? 6 : 5); // "1e+03"
    if (a < 0.005) return 4;                                 // "0.00"
    return (v < 0) + (a < 9.995 ? 1 : a < 99.995 ? 2
                                                 : 3) +
           3;
}

/* The value of m that is written widest, formatted into buf. */
static void widest_value(const viz_mat *m, char *buf, size_t cap) {
    double best = 0;
    int most = -1;
    for (int r = 0; r < m->rows; r++)
        for (int k = 0; k < m->cols; k++) {
            double v = cell_value(m, r, k);
            int n = value_chars(v) * 2 + (v >= 0); // a digit is wider than a minus sign
            if (n > most) most = n, best = v;
        }
    viz_format_value(buf, cap, best);
}

float viz_value_px(const viz_ctx *c, const viz_mat *m, float cw, float ch) {
    char widest[32];
    widest_value(m, widest, sizeof widest);
    if (c->value_min <= 0) { // the airy rule: a third of a square cell
        float cs = fminf(cw, ch), px = fminf(cs * 0.34f, c->small);
        return px >= 9.0f && viz_text_w(c, widest, px) <= cw - 2 ? px : 0;
    }
    // as large as the cell holds, in whole pixels as the fonts draw them; smaller than the
    // theme's size they would not read from afar, only clutter the heatmap: none then
    float px = floorf(fminf(ch / 1.25f + 0.01f, c->small)), least = floorf(c->value_min);
    while (px >= least && viz_text_w(c, widest, px) + px * 0.25f > cw + 0.01f) px -= 1.0f;
    return px >= least ? px : 0;
}

void viz_value_cell(const viz_ctx *c, const viz_mat *m, float px, float *cw, float *ch) {
    char widest[32];
    widest_value(m, widest, sizeof widest);
    *ch = ceilf(px * 1.25f);
    *cw = fmaxf(*ch, ceilf(viz_text_w(c, widest, px) + px * 0.25f));
}

static void draw_cells(const viz_ctx *c, const viz_mat *m, float x, float y, float cs) {
    float cw = cell_w(m, cs), ch = cell_h(m, cs);
    viz_rgba *px = viz_grid(c->l, x, y, cw * m->cols, ch * m->rows, m->rows, m->cols);
    for (int r = 0; r < m->rows && px; r++)
        for (int k = 0; k < m->cols; k++) {
            double v = cell_value(m, r, k);
            px[r * m->cols + k] = cell_color(c, m, v, cell_masked(m, r, k, v));
            if (viz_row_untrained(c, m, r)) px[r * m->cols + k] = viz_mix(px[r * m->cols + k], c->th->bg, UNTRAINED_FADE);
        }
    // thin separators keep neighbouring cells of similar colour apart
    if (fminf(cw, ch) >= 10) { // opaque: blending a few thousand separators costs a frame
        viz_rgba sep = viz_mix(c->th->panel, c->th->line, 0.35f);
        for (int k = 1; k < m->cols; k++) viz_fill(c->l, x + k * cw - 0.5f, y, 1, ch * m->rows, sep);
        for (int r = 1; r < m->rows; r++) viz_fill(c->l, x, y + r * ch - 0.5f, cw * m->cols, 1, sep);
    }
    float vpx = m->hidden ? 0 : viz_value_px(c, m, cw, ch);
    bool values = vpx > 0;
    char buf[32];
    for (int r = 0; r < m->rows; r++)
        for (int k = 0; k < m->cols; k++) {
            double v = cell_value(m, r, k);
            bool masked = cell_masked(m, r, k, v);
            float cx = x + k * cw, cy = y + r * ch;
            if (masked && !m->hidden && fminf(cw, ch) >= 6 && !values) // hatch (or "−∞"): masked is never a colour of the scale
                viz_line(c->l, cx + 1, cy + ch - 1, cx + cw - 1, cy + 1, 1.0f, c->th->masked_hatch);
            if (!values) continue;
            viz_format_value(buf, sizeof buf, v);
            viz_rgba bg = cell_color(c, m, v, masked);
            if (viz_row_untrained(c, m, r)) bg = viz_mix(bg, c->th->bg, UNTRAINED_FADE);
            viz_text(c->l, cx, cy, cw, ch, buf, vpx, VIZ_CENTER | VIZ_MIDDLE, viz_text_on(bg));
        }
}

static void draw_labels(const viz_ctx *c, const viz_mat *m, float x, float y, float cs) {
    float cw = cell_w(m, cs), ch = cell_h(m, cs), left = viz_mat_left(c, m, cs), cap = 110.0f * c->u;
    int q = c->s->query;
    char buf[128];
    bool show[MAX_LABELS];
    int lane[MAX_LABELS];
    if (m->row_labels != VIZ_LABEL_NONE) {
        float px = label_px(c, ch);
        pick_rows(c, m, ch, px, show);
        for (int i = 0; i < m->rows && i < MAX_LABELS; i++) {
            if (!show[i]) continue;
            bool sel = m->row_labels == VIZ_LABEL_TOKENS && i == q;
            row_label(c, m, i, buf, sizeof buf, false);
            viz_label(c, x - left, y + i * ch, left - 5 * c->u, ch, buf, px, VIZ_RIGHT | VIZ_MIDDLE,
                      sel ? c->th->highlight : c->th->muted);
            if (m->row_labels == VIZ_LABEL_TOKENS && !c->inert)
                viz_hit_region(c->l, x - left, y + i * ch, left, ch, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = i});
        }
    }
    if (m->col_labels == VIZ_LABEL_NONE) return;
    float px = col_label_px(c, m, cs), lh = px * 1.3f;
    int lanes = col_lanes(c, m, cs);
    bool stagger = lanes > 1;
    if (stagger) pick_cols(c, m, cw, px, cap, lanes, show, lane);
    for (int j = 0; j < m->cols && j < MAX_LABELS; j++) {
        if (stagger && !show[j]) continue;
        bool sel = m->col_labels == VIZ_LABEL_TOKENS && j == q;
        row_label(c, m, j, buf, sizeof buf, true);
        float w = stagger ? fminf(viz_text_w(c, buf, px), cap) + 2 : cw;
        float ly = y - lh * (stagger ? lanes - lane[j] : 1);
        viz_label(c, x + j * cw + cw / 2 - w / 2, ly, w, lh, buf, px, VIZ_CENTER | VIZ_MIDDLE,
                  sel ? c->th->highlight : c->th->muted);
    }
}

/* The lesson page's mark in m: a token's rows (and its column where columns
 * are tokens), a key's column, or one cell, in the accent colour. */
static void lesson_mark(const viz_ctx *c, const viz_mat *m, float x, float y, float cw, float ch) {
    const viz_mark *mk = &c->s->mark;
    float t = 2.0f * c->u, w = cw * m->cols, h = ch * m->rows;
    bool token_rows = m->weight_of < 0 && !m->transposed; // every matrix but W's rows a token's
    bool token_cols = m->col_labels == VIZ_LABEL_TOKENS;
    viz_rgba col = c->th->accent;
    if (mk->kind == VIZ_MARK_TOKEN && token_rows && mk->row >= 0 && mk->row < m->rows)
        viz_stroke(c->l, x - t, y + mk->row * ch - t, w + 2 * t, ch + 2 * t, t, col);
    if ((mk->kind == VIZ_MARK_TOKEN || mk->kind == VIZ_MARK_COLUMN) && token_cols) {
        int k = mk->kind == VIZ_MARK_TOKEN ? mk->row : mk->col;
        if (k >= 0 && k < m->cols) viz_stroke(c->l, x + k * cw - t, y - t, cw + 2 * t, h + 2 * t, t, col);
    }
    if (mk->kind == VIZ_MARK_CELL && token_cols && m->rows == m->cols && mk->row >= 0 && mk->row < m->rows &&
        mk->col >= 0 && mk->col < m->cols)
        viz_stroke(c->l, x + mk->col * cw - 0.75f * t, y + mk->row * ch - 0.75f * t, cw + 1.5f * t, ch + 1.5f * t,
                   1.5f * t, col); // across the cell's edge: the neighbours' digits stay clear
}

static void draw_marks(const viz_ctx *c, const viz_mat *m, float x, float y, float cw, float ch) {
    float t = 2.0f * c->u, w = cw * m->cols, h = ch * m->rows;
    int q = c->s->query;
    // the query's row, wherever rows are queries (K and V rows are keys)
    // (in every matrix whose rows are the queries, labelled or not)
    bool query_rows = m->stage != ATTN_ST_K && m->stage != ATTN_ST_V && m->weight_of < 0 && !m->transposed;
    if (q >= 0 && q < m->rows && query_rows)
        viz_stroke(c->l, x - t, y + q * ch - t, w + 2 * t, ch + 2 * t, t, c->th->highlight);
    lesson_mark(c, m, x, y, cw, ch);
    int orow, ocol;
    operand_of(c, m, &orow, &ocol);
    if (m->transposed) {
        int tmp = orow;
        orow = ocol;
        ocol = tmp;
    }
    viz_rgba op = c->th->operand;
    if (orow >= 0 && ocol >= 0) viz_stroke(c->l, x + ocol * cw - t, y + orow * ch - t, cw + 2 * t, ch + 2 * t, t, op);
    else if (orow >= 0) viz_stroke(c->l, x - t / 2, y + orow * ch - t / 2, w + t, ch + t, t, viz_alpha(op, 200));
    else if (ocol >= 0) viz_stroke(c->l, x + ocol * cw - t / 2, y - t / 2, cw + t, h + t, t, viz_alpha(op, 200));
    viz_hit hv = c->s->hover;
    if (hv.kind == VIZ_HIT_CELL && hv.stage == (int)m->stage && m->weight_of < 0 &&
        (hv.head == m->head || !model_stage_per_head(m->stage))) {
        int r = m->transposed ? hv.col : hv.row, k = m->transposed ? hv.row : hv.col;
        if (r < m->rows && k < m->cols)
            viz_stroke(c->l, x + k * cw - t, y + r * ch - t, cw + 2 * t, ch + 2 * t, t, c->th->hover);
    }
}

void viz_mat_draw(const viz_ctx *c, const viz_mat *m, float x, float y, float cs) {
    float top = m->title_up > 0 ? m->title_up : viz_mat_top(c, m, cs), left = viz_mat_left(c, m, cs);
    float cw = cell_w(m, cs), ch = cell_h(m, cs);
    // the title may reach past the cells: the layout keeps the room for it (viz_steps.c's mat_w)
    float tw = fmaxf(left + cw * m->cols + 40 * c->u, viz_text_w(c, m->title, c->small) + 6 * c->u);
    viz_label(c, x - left, y - top, tw, c->small * 1.4f, m->title, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    draw_cells(c, m, x, y, cs);
    draw_labels(c, m, x, y, cs);
    draw_marks(c, m, x, y, cw, ch);
    if (m->hidden || m->weight_of >= 0 || c->inert) return;
    for (int r = 0; r < m->rows; r++) // one hit region per cell, named as the core names it
        for (int k = 0; k < m->cols; k++) {
            viz_hit h = {.kind = VIZ_HIT_CELL, .stage = (int)m->stage, .head = m->head, .row = m->transposed ? k : r, .col = m->transposed ? r : k};
            viz_hit_region(c->l, x + k * cw, y + r * ch, cw, ch, h);
        }
}

void viz_legend(const viz_ctx *c, viz_box b, viz_map map, double range, bool with_masked, const char *caption) {
    enum { STEPS = 64 };
    float px = c->small, bar_h = 10 * c->u, bar_w = b.w;
    // weights of masked keys are exactly 0 after softmax; before it they are −∞
    const char *masked = viz_s(c, map == VIZ_MAP_WEIGHTS ? VIZ_S_LEGEND_MASKED_ZERO : VIZ_S_LEGEND_MASKED);
    if (caption) { // which matrices this scale belongs to
        float cw = viz_text_w(c, caption, px) + 8 * c->u;
        viz_text(c->l, b.x, b.y - 2 * c->u, cw, bar_h + 4 * c->u, caption, px, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
        b.x += cw;
        b.w -= cw;
    }
    float sw = with_masked ? viz_text_w(c, masked, px) + 30 * c->u : 0;
    bar_w = b.w - sw - 16 * c->u;
    if (bar_w > 320 * c->u) bar_w = 320 * c->u;
    if (bar_w < 60 * c->u) bar_w = 60 * c->u;
    viz_rgba *cells = viz_grid(c->l, b.x, b.y, bar_w, bar_h, 1, STEPS);
    for (int i = 0; i < STEPS && cells; i++) {
        double t = (i + 0.5) / STEPS;
        cells[i] = map == VIZ_MAP_WEIGHTS ? viz_sequential(t) : viz_diverging(2 * t - 1);
    }
    viz_stroke(c->l, b.x, b.y, bar_w, bar_h, 1, c->th->line);
    char lo[40], mid[32], hi[32];
    if (map == VIZ_MAP_WEIGHTS) {
        snprintf(lo, sizeof lo, "0");
        snprintf(mid, sizeof mid, "0.5");
        snprintf(hi, sizeof hi, "1");
    } else {
        if (range < 0.005) snprintf(hi, sizeof hi, "%.2g", range); // a small gradient's scale is not "0.00"
        else viz_format_value(hi, sizeof hi, range);
        snprintf(lo, sizeof lo, "-%s", hi);
        snprintf(mid, sizeof mid, "0");
    }
    float ty = b.y + bar_h + 2 * c->u, th = px * 1.3f;
    viz_text(c->l, b.x, ty, bar_w, th, lo, px, VIZ_LEFT | VIZ_TOP, c->th->muted);
    viz_text(c->l, b.x, ty, bar_w, th, mid, px, VIZ_CENTER | VIZ_TOP, c->th->muted);
    viz_text(c->l, b.x, ty, bar_w, th, hi, px, VIZ_RIGHT | VIZ_TOP, c->th->muted);
    if (!with_masked) return;
    float sx = b.x + bar_w + 16 * c->u, s = bar_h + 4 * c->u;
    viz_fill(c->l, sx, b.y - 2 * c->u, s, s, c->th->masked);
    viz_line(c->l, sx + 1, b.y - 2 * c->u + s - 1, sx + s - 1, b.y - 2 * c->u + 1, 1.5f, c->th->masked_hatch);
    viz_text(c->l, sx + s + 6 * c->u, b.y - 2 * c->u, sw, s, masked, px,
             VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
}
