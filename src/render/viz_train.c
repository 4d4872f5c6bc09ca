/* viz_train.c — the training view (F3): the options and buttons on the left;
 * on the right the loss and held-out accuracy against the step on a log
 * axis, the timeline of snapshots, the probe and the attention of the probe
 * in every layer and head. Drawn from a viz_train_view alone. */
#include "viz_train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viz_internal.h"

static const viz_rgba col_train = {0xd5, 0x5e, 0x00, 255};                              // Okabe–Ito vermillion
static const viz_rgba col_held = {0x00, 0x72, 0xb2, 255};                               // Okabe–Ito blue
static const viz_rgba col_acc = {0x00, 0x9e, 0x73, 255};                                // Okabe–Ito bluish green
static const viz_rgba col_kind[2] = {{0xcc, 0x79, 0xa7, 255}, {0xe6, 0x9f, 0x00, 255}}; // reddish purple, orange

#define TV_POINTS_CAP 512 /* points a plot reads, at most (the app makes at most 256) */

static const char *const widget_names[VIZ_TW_END - VIZ_TW_FIRST] = {
    "train_task", "train_layers", "train_heads", "train_d_model", "train_lr", "train_steps", "train_seed",
    "train_start", "train_step", "train_reset", "train_save", "train_walk",
    "train_snapshot", "train_live", "train_probe"};

const char *viz_train_widget_name(int widget) {
    return widget >= VIZ_TW_FIRST && widget < VIZ_TW_END ? widget_names[widget - VIZ_TW_FIRST] : NULL;
}

int viz_train_widget_from_name(const char *name) {
    for (int w = VIZ_TW_FIRST; w < VIZ_TW_END; w++)
        if (!strcmp(widget_names[w - VIZ_TW_FIRST], name)) return w;
    return -1;
}

/* ---- pure helpers ---- */

double viz_train_axis_pos(int step, int total) {
    if (total < 1) total = 1;
    if (step < 0) step = 0;
    return log1p((double)step) / log1p((double)total);
}

int viz_train_step_ticks(int total, int *out, int cap) {
    int n = 0;
    if (n < cap) out[n++] = 0;
    bool fine = total < 1000; // under three decades the powers of ten alone are too few
    for (long p = 1; p <= total && n < cap; p *= 10) {
        out[n++] = (int)p;
        if (fine && 2 * p <= total && n < cap) out[n++] = (int)(2 * p);
        if (fine && 5 * p <= total && n < cap) out[n++] = (int)(5 * p);
    }
    return n;
}

void viz_train_log_range(const double *v, int count, int *lo, int *hi) {
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < count; i++) {
        if (!isfinite(v[i])) continue;
        double x = v[i] < 1e-6 ? 1e-6 : v[i];
        mn = fmin(mn, x);
        mx = fmax(mx, x);
    }
    if (!(mn <= mx)) mn = 0.01, mx = 10;
    *lo = (int)floor(log10(mn) + 1e-9);
    *hi = (int)ceil(log10(mx) - 1e-9);
    if (*hi <= *lo) *hi = *lo + 1;
}

void viz_train_format_loss(char *out, size_t cap, double v) {
    if (!isfinite(v)) snprintf(out, cap, "—");
    else snprintf(out, cap, "%.2g", v);
}

/* ---- the options and buttons ---- */

static void option_value(const viz_ctx *c, const viz_train_view *v, int i, char *buf, size_t cap) {
    switch (i) {
    case 0: snprintf(buf, cap, "%s", v->task); break;
    case 1: snprintf(buf, cap, "%d", v->layers); break;
    case 2: snprintf(buf, cap, "%d", v->heads); break;
    case 3: snprintf(buf, cap, "%d", v->d_model); break;
    case 4: snprintf(buf, cap, "%g", v->lr); break;
    case 5: snprintf(buf, cap, "%d", v->steps); break;
    default: snprintf(buf, cap, "%lu", (unsigned long)v->seed); break;
    }
    (void)c;
}

static void option_row(const viz_ctx *c, const viz_train_view *v, viz_box r, int i, float px) {
    static const viz_str names[VIZ_TW_OPTIONS] = {VIZ_S_TRAIN_TASK, VIZ_S_TRAIN_LAYERS, VIZ_S_TRAIN_HEADS,
                                                  VIZ_S_TRAIN_DMODEL, VIZ_S_TRAIN_LR, VIZ_S_TRAIN_STEPS,
                                                  VIZ_S_TRAIN_SEED};
    int w = VIZ_TW_FIRST + i;
    char val[64];
    option_value(c, v, i, val, sizeof val);
    float bw = r.h * 0.85f, lw = r.w * 0.4f;
    if (v->focus == i) viz_stroke(c->l, r.x - 4 * c->u, r.y, r.w + 8 * c->u, r.h, 2 * c->u, c->th->highlight);
    viz_label(c, r.x, r.y, lw - 4 * c->u, r.h, viz_s(c, names[i]), px, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    float bx = r.x + lw, vw = r.w - lw - 2 * bw;
    bool numeric = i != 0;
    viz_fill(c->l, bx, r.y + 2, bw, r.h - 4, c->th->panel2);
    viz_text(c->l, bx, r.y, bw, r.h, numeric ? "−" : "‹", px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
    viz_hit_region(c->l, bx, r.y, bw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = -1});
    viz_label(c, bx + bw, r.y, vw, r.h, val, px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
    viz_hit_region(c->l, bx + bw, r.y, vw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = 0});
    viz_fill(c->l, bx + bw + vw, r.y + 2, bw, r.h - 4, c->th->panel2);
    viz_text(c->l, bx + bw + vw, r.y, bw, r.h, numeric ? "+" : "›", px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
    viz_hit_region(c->l, bx + bw + vw, r.y, bw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = +1});
}

static void button(const viz_ctx *c, viz_box r, int widget, const char *label, bool primary, bool enabled, float px) {
    viz_rgba bg = primary && enabled ? c->th->accent : c->th->panel2;
    viz_rgba fg = !enabled ? c->th->muted : primary ? c->th->accent_text
                                                    : c->th->text;
    viz_fill(c->l, r.x, r.y, r.w, r.h, bg);
    viz_stroke(c->l, r.x, r.y, r.w, r.h, 1, c->th->line);
    viz_label(c, r.x + 6 * c->u, r.y, r.w - 12 * c->u, r.h, label, px, VIZ_CENTER | VIZ_MIDDLE, fg);
    viz_hit_region(c->l, r.x, r.y, r.w, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = widget});
}

/* The options, the buttons, then (at the bottom) the heatmaps' legend and the keys. */
static void controls(const viz_ctx *c, const viz_train_view *v, viz_box b, bool masked) {
    const char *keys = viz_s(c, VIZ_S_TRAIN_KEYS), *pending = viz_s(c, VIZ_S_TRAIN_PENDING);
    float kh = viz_wrap_ex(c, (viz_box){b.x, 0, b.w, 1e6f}, keys, c->small, 0, 0, c->th->muted, false);
    float nh = v->options_pending ? viz_wrap_ex(c, (viz_box){b.x, 0, b.w, 1e6f}, pending, c->small, 0, 0, c->th->error, false) : 0;
    float legend_h = c->small * 3.6f;
    // the rows (options and buttons take 13.35 of them) get what the legend, the keys and the notice leave
    float rh = fminf(26 * c->u, (b.h - kh - legend_h - nh - 16 * c->u) / 13.35f), px = fminf(c->body, rh * 0.62f), y = b.y;
    for (int i = 0; i < VIZ_TW_OPTIONS; i++, y += rh)
        option_row(c, v, (viz_box){b.x, y, b.w, rh}, i, px);
    y += rh * 0.5f;
    float bh = rh * 1.15f, gap = rh * 0.25f;
    viz_str start = v->state == VIZ_TRAIN_RUNNING  ? VIZ_S_TRAIN_PAUSE
                    : v->state == VIZ_TRAIN_PAUSED ? VIZ_S_TRAIN_CONTINUE
                                                   : VIZ_S_TRAIN_START;
    bool can_train = v->state != VIZ_TRAIN_DONE && v->state != VIZ_TRAIN_FAILED;
    button(c, (viz_box){b.x, y, b.w, bh}, VIZ_TW_START, viz_s(c, start), true, can_train, px);
    y += bh + gap;
    float half = (b.w - gap) / 2;
    button(c, (viz_box){b.x, y, half, bh}, VIZ_TW_STEP, viz_s(c, VIZ_S_TRAIN_STEP), false, can_train, px);
    button(c, (viz_box){b.x + half + gap, y, half, bh}, VIZ_TW_RESET, viz_s(c, VIZ_S_TRAIN_RESET), false, true, px);
    y += bh + gap;
    button(c, (viz_box){b.x, y, b.w, bh}, VIZ_TW_SAVE, viz_s(c, VIZ_S_TRAIN_SAVE), false, true, px);
    y += bh + gap;
    button(c, (viz_box){b.x, y, b.w, bh}, VIZ_TW_WALK, viz_s(c, VIZ_S_TRAIN_WALK), false, true, px);
    y += bh + rh * 0.5f;
    float ky = b.y + b.h - kh, ly = ky - legend_h - 6 * c->u;
    if (v->options_pending) viz_wrap(c, (viz_box){b.x, y, b.w, nh}, pending, c->small, 0, c->th->error);
    viz_wrap(c, (viz_box){b.x, ky, b.w, kh}, keys, c->small, 0, c->th->muted);
    // the heatmaps' scale: its caption above the bar, the bar as wide as the column
    viz_text(c->l, b.x, ly, b.w, c->small * 1.4f, viz_s(c, VIZ_S_TRAIN_LEGEND), c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    viz_legend(c, (viz_box){b.x, ly + c->small * 1.6f, b.w, legend_h - c->small * 1.6f}, VIZ_MAP_WEIGHTS, 1.0, masked, NULL);
}

/* ---- the curves ---- */

typedef struct {
    viz_box b; /* the plot area */
    int total; /* the step axis ends here */
    bool logy; /* y is log10 from 10^y0 to 10^y1; else y0..y1 */
    double y0, y1;
} tv_axes;

static float ax_x(const tv_axes *a, int step) {
    return a->b.x + (float)viz_train_axis_pos(step, a->total) * a->b.w;
}

static float ax_y(const tv_axes *a, double v) {
    double t = a->logy ? (log10(v < 1e-6 ? 1e-6 : v) - a->y0) / (a->y1 - a->y0) : (v - a->y0) / (a->y1 - a->y0);
    t = t < 0 ? 0 : t > 1 ? 1
                          : t;
    return a->b.y + a->b.h - (float)t * a->b.h;
}

/* The step ticks under a plot, each label where it does not touch the last one. */
static void step_ticks(const viz_ctx *c, const tv_axes *a) {
    int ticks[32], n = viz_train_step_ticks(a->total, ticks, 32);
    float last = -1e9f;
    char buf[24];
    for (int i = 0; i < n; i++) {
        float x = ax_x(a, ticks[i]);
        viz_line(c->l, x, a->b.y, x, a->b.y + a->b.h, 1, viz_alpha(c->th->line, 140));
        snprintf(buf, sizeof buf, "%d", ticks[i]);
        float tw = viz_text_w(c, buf, c->small);
        if (x - tw / 2 < last + 4 * c->u || x + tw / 2 > a->b.x + a->b.w + 12 * c->u) continue;
        viz_text(c->l, x - tw / 2 - 2, a->b.y + a->b.h + 2 * c->u, tw + 4, c->small * 1.4f, buf, c->small,
                 VIZ_CENTER | VIZ_TOP, c->th->muted);
        last = x + tw / 2;
    }
}

typedef double (*point_value)(const viz_train_point *p);
static double pv_train(const viz_train_point *p) { return p->train_loss; }
static double pv_held(const viz_train_point *p) { return p->heldout_loss; }
static double pv_acc(const viz_train_point *p) { return p->accuracy; }
static double pv_kind0(const viz_train_point *p) { return p->kind_acc[0]; }
static double pv_kind1(const viz_train_point *p) { return p->kind_acc[1]; }

static void series(const viz_ctx *c, const tv_axes *a, const viz_train_view *v, point_value f, viz_rgba col) {
    for (int i = 0; i + 1 < v->n_points; i++) {
        const viz_train_point *p = &v->points[i], *q = &v->points[i + 1];
        if (!isfinite(f(p)) || !isfinite(f(q))) continue;
        viz_line(c->l, ax_x(a, p->step), ax_y(a, f(p)), ax_x(a, q->step), ax_y(a, f(q)), 2.5f * c->u, col);
    }
    if (v->n_points > 0) { // the latest value as a dot
        const viz_train_point *p = &v->points[v->n_points - 1];
        float r = 3.5f * c->u;
        if (isfinite(f(p))) viz_fill(c->l, ax_x(a, p->step) - r, ax_y(a, f(p)) - r, 2 * r, 2 * r, col);
    }
}

/* Right-aligned legend entries "▬ text" in the title row ending at right; returns where they start. */
static float legend_entry(const viz_ctx *c, float right, float y, float h, const char *text, viz_rgba col) {
    float tw = viz_text_w(c, text, c->small), sw = 14 * c->u;
    float x = right - tw;
    viz_text(c->l, x, y, tw + 2, h, text, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    viz_fill(c->l, x - sw - 4 * c->u, y + h / 2 - 1.5f * c->u, sw, 3 * c->u, col);
    return x - sw - 12 * c->u;
}

/* One plot: its title on top (in the room the values left it, up to title_w), y labels on the left, step ticks below. */
static tv_axes plot_frame(const viz_ctx *c, viz_box b, const viz_train_view *v, const char *title, float title_w) {
    float th = c->small * 1.6f, yl = 46 * c->u, xl = c->small * 1.6f;
    viz_label(c, b.x, b.y, title_w, th, title, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    tv_axes a = {.b = {b.x + yl, b.y + th + 6 * c->u, b.w - yl - 10 * c->u, b.h - th - 6 * c->u - xl}, .total = v->total};
    viz_fill(c->l, a.b.x, a.b.y, a.b.w, a.b.h, c->th->bg);
    viz_stroke(c->l, a.b.x, a.b.y, a.b.w, a.b.h, 1, c->th->line);
    return a;
}

static void scrub_mark(const viz_ctx *c, const tv_axes *a, const viz_train_view *v) {
    if (v->scrub < 0) return;
    float x = ax_x(a, v->shown_step);
    viz_line(c->l, x, a->b.y, x, a->b.y + a->b.h, 2 * c->u, c->th->highlight);
}

/* The current values as the plot's legend, right-aligned in its title row; returns where they start. */
static float plot_values(const viz_ctx *c, viz_box b, const viz_train_view *v, bool loss) {
    float th = c->small * 1.6f, right = b.x + b.w - 10 * c->u;
    char val[32], txt[96];
    if (v->n_points == 0) {
        const char *none = viz_s(c, VIZ_S_TRAIN_NO_POINTS);
        float w = viz_text_w(c, none, c->small);
        viz_text(c->l, right - w, b.y, w + 2, th, none, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
        return right - w;
    }
    const viz_train_point *p = &v->points[v->n_points - 1];
    if (!loss) {
        snprintf(txt, sizeof txt, viz_s(c, VIZ_S_TRAIN_ACC_NOW), 100.0 * p->accuracy, p->step);
        return legend_entry(c, right, b.y, th, txt, col_acc);
    }
    viz_train_format_loss(val, sizeof val, p->heldout_loss);
    snprintf(txt, sizeof txt, viz_s(c, VIZ_S_TRAIN_LOSS_HELDOUT), val);
    right = legend_entry(c, right, b.y, th, txt, col_held);
    viz_train_format_loss(val, sizeof val, p->train_loss);
    snprintf(txt, sizeof txt, viz_s(c, VIZ_S_TRAIN_LOSS_TRAIN), val);
    return legend_entry(c, right, b.y, th, txt, col_train);
}

static void loss_plot(const viz_ctx *c, viz_box b, const viz_train_view *v) {
    float start = plot_values(c, b, v, true);
    tv_axes a = plot_frame(c, b, v, viz_s(c, VIZ_S_TRAIN_LOSS), start - b.x - 4 * c->u);
    double vals[2 * TV_POINTS_CAP];
    int n = 0;
    for (int i = 0; i < v->n_points && n + 2 <= (int)(sizeof vals / sizeof *vals); i++) {
        vals[n++] = v->points[i].train_loss;
        vals[n++] = v->points[i].heldout_loss;
    }
    int lo, hi;
    viz_train_log_range(vals, n, &lo, &hi);
    a.logy = true;
    a.y0 = lo;
    a.y1 = hi;
    int every = hi - lo > 4 ? 2 : 1;
    char buf[32];
    for (int e = lo; e <= hi; e++) {
        float y = ax_y(&a, pow(10, e));
        viz_line(c->l, a.b.x, y, a.b.x + a.b.w, y, 1, viz_alpha(c->th->line, 140));
        if ((e - lo) % every) continue;
        snprintf(buf, sizeof buf, "%g", pow(10, e));
        viz_text(c->l, a.b.x - 44 * c->u, y - c->small, 40 * c->u, 2 * c->small, buf, c->small, VIZ_RIGHT | VIZ_MIDDLE,
                 c->th->muted);
    }
    step_ticks(c, &a);
    series(c, &a, v, pv_train, col_train);
    series(c, &a, v, pv_held, col_held);
    scrub_mark(c, &a, v);
}

/* A referent task's held-out accuracy by kind of predicate (the pronoun
 * means the subject, or the other noun) as two thinner curves under the
 * accuracy, with their legend in the plot's lower right: a shortcut phase
 * (one kind right, the other wrong, the accuracy near 50%) shows as two
 * curves apart. Nothing when the points have no kinds. */
static void kind_series(const viz_ctx *c, const tv_axes *a, const viz_train_view *v) {
    bool kinds = false;
    for (int i = 0; i < v->n_points && !kinds; i++) kinds = isfinite(v->points[i].kind_acc[0]) || isfinite(v->points[i].kind_acc[1]);
    if (!kinds) return;
    series(c, a, v, pv_kind0, col_kind[0]);
    series(c, a, v, pv_kind1, col_kind[1]);
    static const viz_str names[2] = {VIZ_S_TRAIN_KIND_SUBJECT, VIZ_S_TRAIN_KIND_OTHER};
    float lh = c->small * 1.4f, sw = 14 * c->u, tw[2], w = 4 * c->u;
    for (int k = 0; k < 2; k++) tw[k] = viz_text_w(c, viz_s(c, names[k]), c->small), w += sw + 6 * c->u + tw[k] + 10 * c->u;
    if (w > a->b.w * 0.9f || lh + 4 * c->u > a->b.h * 0.4f) return;                // no room: the note under the timeline says it
    float x = a->b.x + a->b.w - w - 2 * c->u, y = a->b.y + a->b.h - lh - 6 * c->u; // one line in the lower right
    viz_fill(c->l, x, y, w, lh + 4 * c->u, viz_alpha(c->th->bg, 230));
    x += 4 * c->u;
    for (int k = 0; k < 2; k++) {
        viz_fill(c->l, x, y + 2 * c->u + lh / 2 - 1.5f * c->u, sw, 3 * c->u, col_kind[k]);
        viz_text(c->l, x + sw + 6 * c->u, y + 2 * c->u, tw[k] + 2, lh, viz_s(c, names[k]), c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
        x += sw + 6 * c->u + tw[k] + 10 * c->u;
    }
}

static void accuracy_plot(const viz_ctx *c, viz_box b, const viz_train_view *v) {
    float start = plot_values(c, b, v, false);
    tv_axes a = plot_frame(c, b, v, viz_s(c, VIZ_S_TRAIN_ACC), start - b.x - 4 * c->u);
    a.y0 = 0;
    a.y1 = 1;
    char buf[32];
    for (int k = 0; k <= 4; k++) {
        float y = ax_y(&a, k / 4.0);
        viz_line(c->l, a.b.x, y, a.b.x + a.b.w, y, 1, viz_alpha(c->th->line, 140));
        snprintf(buf, sizeof buf, "%d%%", 25 * k);
        viz_text(c->l, a.b.x - 44 * c->u, y - c->small, 40 * c->u, 2 * c->small, buf, c->small, VIZ_RIGHT | VIZ_MIDDLE,
                 c->th->muted);
    }
    step_ticks(c, &a);
    kind_series(c, &a, v);
    series(c, &a, v, pv_acc, col_acc);
    scrub_mark(c, &a, v);
}

/* ---- the timeline ---- */

static void timeline(const viz_ctx *c, const viz_train_view *v, viz_box b) {
    float lh = c->small * 1.6f;
    char buf[128];
    snprintf(buf, sizeof buf, viz_s(c, v->scrub >= 0 ? VIZ_S_TRAIN_SHOWING : VIZ_S_TRAIN_SHOWING_LIVE), v->shown_step);
    float sw = viz_text_w(c, buf, c->small) + 8 * c->u;
    viz_text(c->l, b.x + b.w - sw, b.y, sw, lh, buf, c->small, VIZ_RIGHT | VIZ_MIDDLE,
             v->scrub >= 0 ? c->th->highlight : c->th->text);
    viz_label(c, b.x, b.y, b.w - sw - 10 * c->u, lh, viz_s(c, VIZ_S_TRAIN_TIMELINE), c->small, VIZ_LEFT | VIZ_MIDDLE,
              c->th->muted);
    const char *live = viz_s(c, VIZ_S_TRAIN_LIVE);
    float sh = b.h - lh, y = b.y + lh, lw = viz_text_w(c, live, c->small) + 24 * c->u;
    viz_box live_b = {b.x + b.w - lw, y + 2 * c->u, lw, sh - 4 * c->u};
    viz_fill(c->l, live_b.x, live_b.y, live_b.w, live_b.h, v->scrub < 0 ? c->th->accent : c->th->panel2);
    viz_stroke(c->l, live_b.x, live_b.y, live_b.w, live_b.h, 1, c->th->line);
    viz_text(c->l, live_b.x, live_b.y, live_b.w, live_b.h, live, c->small, VIZ_CENTER | VIZ_MIDDLE,
             v->scrub < 0 ? c->th->accent_text : c->th->text);
    viz_hit_region(c->l, live_b.x, live_b.y, live_b.w, live_b.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_TW_LIVE});
    tv_axes a = {.b = {b.x + 8 * c->u, y, b.w - lw - 24 * c->u, sh}, .total = v->total};
    float mid = y + sh / 2;
    viz_fill(c->l, a.b.x, mid - 1 * c->u, a.b.w, 2 * c->u, c->th->line);
    if (v->total > 0) { // how far the training is
        float xs = ax_x(&a, v->step);
        viz_fill(c->l, a.b.x, mid - 2 * c->u, xs - a.b.x, 4 * c->u, viz_alpha(c->th->accent, 160));
    }
    for (int i = 0; i < v->n_snaps; i++) {
        float x = ax_x(&a, v->snap_steps[i]);
        bool taken = i < v->snaps_taken, shown = i == v->scrub;
        float h = shown ? sh - 2 * c->u : taken ? sh * 0.6f
                                                : sh * 0.3f,
              w = shown ? 4 * c->u : 2 * c->u;
        viz_fill(c->l, x - w / 2, mid - h / 2, w, h, shown ? c->th->highlight : taken ? c->th->text
                                                                                      : c->th->muted);
        if (!taken) continue;
        // the region between the midpoints to the neighbours: click or drag anywhere near a snapshot
        float left = i == 0 ? a.b.x - 6 * c->u : (x + ax_x(&a, v->snap_steps[i - 1])) / 2;
        float right = i + 1 < v->snaps_taken ? (x + ax_x(&a, v->snap_steps[i + 1])) / 2 : x + 6 * c->u;
        viz_hit_region(c->l, left, y, fmaxf(right - left, 1), sh,
                       (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_TW_SNAPSHOT, .delta = i});
    }
}

/* ---- the probe ---- */

static void probe_field(const viz_ctx *c, const viz_train_view *v, viz_box b) {
    const char *label = viz_s(c, VIZ_S_TRAIN_PROBE);
    float lw = viz_text_w(c, label, c->body) + 12 * c->u, pad = 8 * c->u;
    viz_text(c->l, b.x, b.y, lw, b.h, label, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    viz_box f = {b.x + lw, b.y + 2 * c->u, b.w - lw, b.h - 4 * c->u};
    viz_fill(c->l, f.x, f.y, f.w, f.h, v->editing ? c->th->panel : c->th->panel2);
    viz_stroke(c->l, f.x, f.y, f.w, f.h, v->editing ? 2 * c->u : 1, v->editing ? c->th->accent : c->th->line);
    viz_hit_region(c->l, f.x, f.y, f.w, f.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_TW_PROBE});
    const char *hint = v->probe_error ? v->probe_error : viz_s(c, v->editing ? VIZ_S_EDITING_HINT : VIZ_S_TRAIN_PROBE_HINT);
    float hw = fminf(viz_text_w(c, hint, c->small) + pad, f.w * 0.6f);
    viz_label(c, f.x + f.w - hw - pad / 2, f.y, hw, f.h, hint, c->small, VIZ_RIGHT | VIZ_MIDDLE,
              v->probe_error ? c->th->error : c->th->muted);
    const char *s = v->probe ? v->probe : "";
    const char *comp = v->editing && v->composition ? v->composition : "";
    size_t cur = v->editing ? (size_t)v->cursor : strlen(s);
    if (cur > strlen(s)) cur = strlen(s);
    float tx = f.x + pad, avail = f.w - hw - 2 * pad;
    float before = c->m.width(c->m.ctx, s, cur, c->body), cw = viz_text_w(c, comp, c->body);
    float shift = v->editing && before + cw > avail ? before + cw - avail + 4 * c->u : 0;
    viz_clip(c->l, f.x, f.y, f.w - hw - pad, f.h);
    char head[1024];
    size_t hl = cur < sizeof head - 1 ? cur : sizeof head - 1;
    memcpy(head, s, hl);
    head[hl] = '\0';
    viz_text(c->l, tx - shift, f.y, before + 1, f.h, head, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    float cx = tx - shift + before;
    if (*comp) {
        viz_text(c->l, cx, f.y, cw + 1, f.h, comp, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->accent);
        viz_fill(c->l, cx, f.y + f.h * 0.78f, cw, 1.5f * c->u, c->th->accent);
    }
    viz_text(c->l, cx + cw, f.y, avail + shift, f.h, s + cur, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    if (v->editing) viz_fill(c->l, cx + cw, f.y + 5 * c->u, 2 * c->u, f.h - 10 * c->u, c->th->accent);
    viz_clip(c->l, 0, 0, 0, 0);
}

/* ---- the heatmaps ---- */

/* The cell size at which cols × rows matrices like m fit in aw × ah, each
 * with its labels and title. */
static float heat_cell(const viz_ctx *c, const viz_mat *m, float aw, float ah, int cols, int rows) {
    float gap = 16 * c->u, cs = fminf(aw / cols, ah / rows) / m->rows;
    for (int it = 0; it < 4; it++) { // the labels' room depends on the cell size: settle it
        float left = viz_mat_left(c, m, cs), top = viz_mat_top(c, m, cs);
        cs = fminf((aw / cols - gap - left) / m->cols, (ah / rows - gap - top) / m->rows);
        if (cs < 2) return cs;
    }
    return fminf(cs, 40 * c->u);
}

/* The strongest weight of row q of w (n × n): its column. */
static int row_argmax(const double *w, int n, int q) {
    int best = 0;
    for (int j = 1; j < n; j++)
        if (w[(size_t)q * n + j] > w[(size_t)q * n + best]) best = j;
    return best;
}

/* One sentence's attention, every layer and head, in b: the probe's, or its
 * pair's. The cells are sized for the sentence of sized (the longer of two
 * drawn side by side, so both get the same cells and the same labels).
 * Returns true when the cells were too small for token labels. */
static bool heatmap_set(const viz_ctx *c, const attn_trace *const *layers, int n_layers, int query,
                        const attn_trace *sized, viz_box b) {
    const attn_trace *t0 = n_layers > 0 ? layers[0] : NULL;
    if (!t0) return false;
    if (!sized) sized = t0;
    int heads = t0->cfg.heads, count = n_layers * heads, n = sized->n;
    viz_box area = b;
    viz_mat probe = {.v = sized->head[0].weights, .rows = n, .cols = n, .stage = ATTN_ST_WEIGHTS, .title = "", .map = VIZ_MAP_WEIGHTS, .row_labels = VIZ_LABEL_TOKENS, .col_labels = VIZ_LABEL_TOKENS, .weight_of = -1};
    viz_scene ls = *c->s; // the matrices label their rows and columns with the probe's tokens
    ls.trace = sized;
    ls.query = query;
    ls.hover = (viz_hit){.kind = VIZ_HIT_NONE};
    ls.mark = (viz_mark){VIZ_MARK_NONE, -1, -1};
    ls.feature_names = NULL;
    viz_ctx lc = *c;
    lc.s = &ls;
    int best_cols = 1;
    float best = -1;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { // many small matrices: their labels would take more room than their cells
            if (best >= 7 * c->u) break;
            probe.row_labels = probe.col_labels = VIZ_LABEL_NONE;
            ls.query = -1;
            best = -1;
        }
        for (int k = 1; k <= count; k++) { // the arrangement with the largest cells (ties: wider)
            float cs = heat_cell(&lc, &probe, area.w, area.h, k, (count + k - 1) / k);
            if (cs >= best - 0.01f) best = cs, best_cols = k;
        }
        // one row per layer, its heads side by side, unless that costs more than a sixth of the cells' size
        float by_layer = heat_cell(&lc, &probe, area.w, area.h, heads, n_layers);
        if (heads > 1 && by_layer >= best * 0.85f) best = by_layer, best_cols = heads;
    }
    float cs = best;
    bool unlabelled = probe.row_labels == VIZ_LABEL_NONE;
    if (cs < 1) return unlabelled;
    int cols = best_cols, rows = (count + cols - 1) / cols;
    float left = viz_mat_left(&lc, &probe, cs), top = viz_mat_top(&lc, &probe, cs), gap = 16 * c->u;
    float cw = left + n * cs + gap, ch = top + n * cs + gap;
    float x0 = area.x + (area.w - cols * cw) / 2, y0 = area.y + fmaxf(0, (area.h - rows * ch) / 2);
    int first_cmd = c->l->count;
    char title[256], looks[160], qa[64], qb[64];
    bool masked = t0->cfg.mask.kind != ATTN_MASK_NONE;
    for (int i = 0; i < count; i++) {
        int l = i / heads, h = i % heads;
        const attn_trace *t = layers[l];
        if (!t) continue;
        ls.trace = t;
        viz_mat m = probe;
        m.v = t->head[h].weights;
        m.rows = m.cols = t->n;
        m.head = h;
        m.mask = masked ? &t->cfg.mask : NULL;
        // the layer and head, and where the query row looks most, as far as the matrix is wide
        float room = left + n * cs + gap * 0.5f;
        int tl = snprintf(title, sizeof title, viz_s(c, VIZ_S_TRAIN_HEATMAP), l + 1, h + 1);
        if (viz_text_w(c, title, c->small) > room)
            tl = snprintf(title, sizeof title, viz_s(c, VIZ_S_TRAIN_HEATMAP_SHORT), l + 1, h + 1);
        int q = ls.query;
        if (q >= 0 && q < t->n && tl > 0 && tl < (int)sizeof title - 8) {
            int j = row_argmax(m.v, t->n, q);
            attn_token_label(&t->tokens, q, 12, qa, sizeof qa);
            attn_token_label(&t->tokens, j, 12, qb, sizeof qb);
            snprintf(looks, sizeof looks, viz_s(c, VIZ_S_TRAIN_LOOKS), qa, qb, m.v[(size_t)q * t->n + j]);
            snprintf(title + tl, sizeof title - (size_t)tl, " · %s", looks);
            if (viz_text_w(c, title, c->small) > room) title[tl] = '\0';
        }
        m.title = title;
        float x = x0 + (i % cols) * cw + left, y = y0 + (i / cols) * ch + top;
        viz_mat_draw(&lc, &m, x, y, cs);
    }
    // the matrices' own hit regions (cells, token labels) belong to the walkthrough: here they are the view's background
    for (int i = first_cmd; i < c->l->count; i++)
        if (c->l->cmds[i].kind == VIZ_HIT) c->l->cmds[i].hit = (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_TRAIN};
    return unlabelled;
}

/* The probe's heatmaps in b; with its flipped pair, the two side by side,
 * each under a line naming its sentence, so the pair is read as a figure
 * (where each pronoun looks), not only as the line of text above. */
static void heatmaps(const viz_ctx *c, const viz_train_view *v, viz_box b) {
    float hint_h = c->s->figure_only ? 0 : c->small * 1.6f; // the figure view is already where F leads
    viz_box hint = {b.x, b.y + b.h - hint_h, b.w, hint_h};
    bool small;
    b.h -= hint_h; // the line below says where the labels are when the cells have none
    if (v->n_pair_layers <= 0 || v->n_layers <= 0 || !v->pair || !v->probe) {
        small = heatmap_set(c, v->layer, v->n_layers, v->query, NULL, b);
        if (small && hint_h > 0) viz_label(c, hint.x, hint.y, hint.w, hint.h, viz_s(c, VIZ_S_TRAIN_HEATMAP_FULL), c->small, VIZ_CENTER | VIZ_MIDDLE, c->th->muted);
        return;
    }
    float gap = 20 * c->u, half = (b.w - gap) / 2, lh = 0;
    char line[2][512];
    const char *sentence[2] = {v->probe, v->pair};
    static const viz_str side[2] = {VIZ_S_TRAIN_PROBE_SIDE, VIZ_S_TRAIN_PAIR_SIDE};
    for (int k = 0; k < 2; k++) { // both captions take the room the longer needs: the matrices stay level
        snprintf(line[k], sizeof line[k], viz_s(c, side[k]), sentence[k]);
        lh = fmaxf(lh, viz_wrap_ex(c, (viz_box){0, 0, half, 1e6f}, line[k], c->small, 0, 0, c->th->text, false));
    }
    lh += 4 * c->u;
    const attn_trace *sized = v->layer[0] && v->pair_layer[0] && v->pair_layer[0]->n > v->layer[0]->n ? v->pair_layer[0] : v->layer[0];
    for (int k = 0; k < 2; k++) {
        float x = b.x + k * (half + gap);
        viz_wrap(c, (viz_box){x, b.y, half, lh}, line[k], c->small, 0, c->th->text);
        viz_box hb = {x, b.y + lh, half, b.h - lh};
        if (k == 0) small = heatmap_set(c, v->layer, v->n_layers, v->query, sized, hb);
        else heatmap_set(c, v->pair_layer, v->n_pair_layers, v->pair_query, sized, hb);
    }
    viz_fill(c->l, b.x + half + gap / 2, b.y, 1, b.h, c->th->line);
    if (small && hint_h > 0) viz_label(c, hint.x, hint.y, hint.w, hint.h, viz_s(c, VIZ_S_TRAIN_HEATMAP_FULL), c->small, VIZ_CENTER | VIZ_MIDDLE, c->th->muted);
}

/* ---- the whole view ---- */

void viz_train_overlay(const viz_ctx *c, float status_h) {
    const viz_scene *s = c->s;
    const viz_train_view *v = s->train;
    // everything but the status line, which names what was saved or why something failed (nothing is drawn under it)
    float W = (float)s->width, H = (float)s->height - status_h, m = 8 * c->u, pad = 14 * c->u;
    viz_hit_region(c->l, 0, 0, W, H, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_TRAIN});
    viz_box box = {m, m, W - 2 * m, H - 1.5f * m};
    viz_fill(c->l, box.x, box.y, box.w, box.h, c->th->panel);
    viz_stroke(c->l, box.x, box.y, box.w, box.h, 2 * c->u, c->th->accent);
    // title, and on the right how far the training is
    static const viz_str states[] = {VIZ_S_TRAIN_IDLE, VIZ_S_TRAIN_RUNNING, VIZ_S_TRAIN_PAUSED, VIZ_S_TRAIN_DONE,
                                     VIZ_S_TRAIN_FAILED};
    char prog[160];
    snprintf(prog, sizeof prog, viz_s(c, VIZ_S_TRAIN_PROGRESS), v->step, v->total, viz_s(c, states[v->state]));
    float th = c->big * 1.5f, pw = viz_text_w(c, prog, c->body) + 4 * c->u;
    viz_text(c->l, box.x + box.w - pad - pw, box.y + pad, pw, th, prog, c->body, VIZ_RIGHT | VIZ_MIDDLE,
             v->state == VIZ_TRAIN_FAILED ? c->th->error : c->th->text);
    viz_label(c, box.x + pad, box.y + pad, box.w - 3 * pad - pw, th, viz_s(c, VIZ_S_TRAIN_TITLE), c->big,
              VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    // the options, buttons, legend and keys on the left; the curves, timeline, probe and heatmaps on the right
    float top = box.y + pad + th + 6 * c->u, bottom = box.y + box.h - pad, h = bottom - top;
    if (s->figure_only) { // F: the probe's attention alone, every layer and head, on the whole view
        float hint_h = c->small * 1.5f;
        heatmaps(c, v, (viz_box){box.x + pad, top, box.w - 2 * pad, h - hint_h});
        const char *hint = viz_s(c, VIZ_S_FIGURE_HINT);
        float hw = fminf(viz_text_w(c, hint, c->small) + 4 * c->u, box.w - 2 * pad);
        viz_text(c->l, box.x + box.w - pad - hw, bottom - hint_h, hw, hint_h, hint, c->small, VIZ_RIGHT | VIZ_MIDDLE,
                 c->th->muted);
        return;
    }
    float cw = fmaxf(236 * c->u, fminf(box.w * 0.23f, 320 * c->u));
    const attn_trace *t0 = v->n_layers > 0 ? v->layer[0] : NULL;
    controls(c, v, (viz_box){box.x + pad, top, cw, h}, t0 && t0->cfg.mask.kind != ATTN_MASK_NONE);
    float rx = box.x + pad + cw + 2 * pad, rw = box.x + box.w - pad - rx;
    viz_fill(c->l, rx - pad, top, 1, h, c->th->line);
    float gap = 6 * c->u, xcap = c->small * 1.4f;
    float curves_h = fmaxf(118 * c->u, fminf(h * 0.27f, 300 * c->u));
    float half = (rw - 16 * c->u) / 2;
    loss_plot(c, (viz_box){rx, top, half, curves_h - xcap}, v);
    accuracy_plot(c, (viz_box){rx + half + 16 * c->u, top, half, curves_h - xcap}, v);
    viz_text(c->l, rx, top + curves_h - xcap, rw, xcap, viz_s(c, VIZ_S_TRAIN_XAXIS), c->small, VIZ_CENTER | VIZ_MIDDLE,
             c->th->muted);
    float y = top + curves_h + gap, tl_h = c->small * 1.5f + 22 * c->u;
    timeline(c, v, (viz_box){rx, y, rw, tl_h});
    y += tl_h + gap;
    for (int i = 0; i < v->n_notes; i++) // what the data are, "held out", the accuracy by kind, the probe's pair
        y += viz_wrap(c, (viz_box){rx, y, rw, 3 * c->small * 1.5f}, v->notes[i], c->small, 0, i ? c->th->text : c->th->muted) + 2 * c->u;
    float ph = c->body * 2.0f;
    probe_field(c, v, (viz_box){rx, y, rw, ph});
    y += ph + gap;
    heatmaps(c, v, (viz_box){rx, y, rw, bottom - y});
}
