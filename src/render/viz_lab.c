/* viz_lab.c — the complexity lab overlay: time per head against n on log–log
 * axes, one line per method, with the fitted slopes, and beside it the
 * multiply-adds the core counted for the same runs. Every point is measured on
 * the learner's machine by the core (complexity.h), none drawn from a formula. */
#include <math.h>
#include <stdio.h>

#include "viz_internal.h"

static const viz_rgba lab_colors[ATTN_CX_METHOD_COUNT] = { // Okabe–Ito
    {0xd5, 0x5e, 0x00, 255},
    {0xcc, 0x79, 0xa7, 255},
    {0x00, 0x72, 0xb2, 255},
    {0x00, 0x9e, 0x73, 255},
    {0xe6, 0x9f, 0x00, 255}}; // tiled

/* Plot box and the data range it maps: x = log2 n, y = log10 of the value. */
typedef struct {
    viz_box b;
    bool macs; /* plots multiply-adds (or, with mem, bytes); else milliseconds */
    bool mem;  /* plots the peak memory in bytes (macs is set too: counted, in decades) */
    double x0, x1, y0, y1;
} lab_axes;

static double value(const lab_axes *a, const attn_cx_point *p) {
    double v = a->mem ? (double)p->bytes : a->macs ? (double)p->macs
                                                   : p->seconds * 1000.0;
    return v > 1e-6 ? v : 1e-6;
}

static float px_x(const lab_axes *a, double n) {
    return a->b.x + (float)((log2(n) - a->x0) / (a->x1 - a->x0)) * a->b.w;
}

static float px_y(const lab_axes *a, double v) {
    return a->b.y + a->b.h - (float)((log10(v) - a->y0) / (a->y1 - a->y0)) * a->b.h;
}

static void lab_range(const attn_cx_result *r, lab_axes *a) {
    a->x0 = 1e9, a->x1 = -1e9, a->y0 = 1e9, a->y1 = -1e9;
    for (int s = 0; s < r->n_series; s++)
        for (int i = 0; i < r->series[s].count; i++) {
            const attn_cx_point *p = &r->series[s].points[i];
            double x = log2((double)p->n), y = log10(value(a, p));
            a->x0 = fmin(a->x0, x), a->x1 = fmax(a->x1, x), a->y0 = fmin(a->y0, y), a->y1 = fmax(a->y1, y);
        }
    a->y0 = floor(a->y0), a->y1 = ceil(a->y1);
    if (a->x1 <= a->x0) a->x1 = a->x0 + 1;
    if (a->y1 <= a->y0) a->y1 = a->y0 + 1;
}

/* "10⁶" for a decade of multiply-adds. */
static void decade(char *buf, size_t cap, int e) {
    static const char *const sup[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    char digits[16];
    snprintf(digits, sizeof digits, "%d", e < 0 ? -e : e);
    size_t used = (size_t)snprintf(buf, cap, "10%s", e < 0 ? "⁻" : "");
    for (const char *d = digits; *d && used < cap; d++) used += (size_t)snprintf(buf + used, cap - used, "%s", sup[*d - '0']);
}

static void lab_grid(const viz_ctx *c, const lab_axes *a) {
    char buf[32];
    int every = a->macs && a->y1 - a->y0 > 6 ? 2 : 1;   // a narrow plot labels every other decade
    for (double y = a->y0; y <= a->y1 + 1e-9; y += 1) { // decades
        float py = px_y(a, pow(10, y));
        viz_line(c->l, a->b.x, py, a->b.x + a->b.w, py, 1, c->th->line);
        if ((int)(y - a->y0) % every) continue;
        if (a->macs) decade(buf, sizeof buf, (int)y);
        else snprintf(buf, sizeof buf, y >= 0 ? "%.0f ms" : "%g ms", pow(10, y));
        viz_text(c->l, a->b.x - 70 * c->u, py - c->small, 64 * c->u, 2 * c->small, buf, c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
    }
    int xevery = a->b.w < 400 * c->u ? 2 : 1;
    for (double x = ceil(a->x0); x <= a->x1 + 1e-9; x += 1) { // powers of two of n
        float pxx = px_x(a, pow(2, x));
        viz_line(c->l, pxx, a->b.y, pxx, a->b.y + a->b.h, 1, c->th->line);
        if ((int)(x - ceil(a->x0)) % xevery) continue;
        snprintf(buf, sizeof buf, "%.0f", pow(2, x));
        viz_text(c->l, pxx - 30 * c->u, a->b.y + a->b.h + 4 * c->u, 60 * c->u, 1.5f * c->small, buf, c->small, VIZ_CENTER | VIZ_TOP, c->th->muted);
    }
}

/* One line per method; full-fast does the same multiply-adds as full (and
 * holds as much), so the counted plots leave it out. */
static void lab_lines(const viz_ctx *c, const lab_axes *a, const attn_cx_result *r) {
    for (int s = 0; s < r->n_series; s++) {
        const attn_cx_series *sr = &r->series[s];
        if (a->macs && sr->method == ATTN_CX_FULL_FAST) continue;
        for (int i = 0; i + 1 < sr->count; i++) {
            const attn_cx_point *p = &sr->points[i], *q = &sr->points[i + 1];
            viz_line(c->l, px_x(a, p->n), px_y(a, value(a, p)), px_x(a, q->n), px_y(a, value(a, q)),
                     (a->macs ? 2 : 3) * c->u, lab_colors[sr->method]);
        }
    }
}

/* The legend: a swatch and the two fitted slopes per method. Returns its height. */
static float lab_legend(const viz_ctx *c, const attn_cx_result *r, float lx, float ly, float w) {
    char buf[160];
    float rh = c->small * 1.7f;
    for (int s = 0; s < r->n_series; s++) {
        const attn_cx_series *sr = &r->series[s];
        float y = ly + s * rh;
        viz_fill(c->l, lx, y + rh / 2 - 2 * c->u, 18 * c->u, 4 * c->u, lab_colors[sr->method]);
        snprintf(buf, sizeof buf, viz_s(c, VIZ_S_LAB_SERIES), attn_cx_method_name(sr->method), sr->d, sr->slope,
                 sr->mac_slope, sr->mem_slope);
        viz_label(c, lx + 26 * c->u, y, w - 26 * c->u, rh, buf, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    }
    return r->n_series * rh;
}

/* A plot with its title above and the n axis below. */
static void lab_plot(const viz_ctx *c, lab_axes *a, const attn_cx_result *r, viz_str title) {
    lab_range(r, a);
    lab_grid(c, a);
    lab_lines(c, a, r);
    viz_label(c, a->b.x, a->b.y - c->small * 1.9f, a->b.w, c->small * 1.6f, viz_s(c, title), c->small,
              VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    viz_text(c->l, a->b.x, a->b.y + a->b.h + 26 * c->u, a->b.w, 1.5f * c->small, viz_s(c, VIZ_S_LAB_XAXIS), c->small,
             VIZ_CENTER | VIZ_TOP, c->th->text);
}

void viz_lab_overlay(const viz_ctx *c) {
    const viz_scene *s = c->s;
    viz_fill(c->l, 0, 0, (float)s->width, (float)s->height, viz_alpha(c->th->bg, 230));
    float w = s->width * 0.86f, h = s->height * 0.86f, x = (s->width - w) / 2, y = (s->height - h) / 2, pad = 20 * c->u;
    viz_fill(c->l, x, y, w, h, c->th->panel);
    viz_stroke(c->l, x, y, w, h, 2 * c->u, c->th->accent);
    viz_label(c, x + pad, y + pad, w - 2 * pad, c->big * 1.5f, viz_s(c, VIZ_S_LAB_TITLE), c->big, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    char buf[256];
    if (!s->lab) {
        snprintf(buf, sizeof buf, viz_s(c, VIZ_S_LAB_RUNNING), s->lab_elapsed);
        viz_wrap(c, (viz_box){x + pad, y + pad + c->big * 2, w - 2 * pad, h / 2}, buf, c->body, 0, c->th->muted);
        return;
    }
    viz_wrap(c, (viz_box){x + pad, y + pad + c->big * 1.7f, w - 2 * pad, c->body * 3}, viz_s(c, VIZ_S_LAB_EXPLAIN), c->small, 0,
             c->th->muted);
    // time on the left; the legend, then the counted multiply-adds, on the right
    float top = y + pad + c->big * 4 + c->small * 2, bottom = y + h - pad - c->small * 1.6f - 46 * c->u;
    lab_axes t = {.b = {x + pad + 80 * c->u, top, w * 0.52f, bottom - top}};
    lab_plot(c, &t, s->lab, VIZ_S_LAB_TIME);
    float rx = t.b.x + t.b.w + 30 * c->u, rw = x + w - pad - rx;
    float lh = lab_legend(c, s->lab, rx, top - c->small * 1.9f, rw);
    // the counted multiply-adds above the peak memory (issue 24: tiled beside full), each with its n axis
    float mtop = top + lh + c->small * 2.5f, gap = c->small * 2.5f + 46 * c->u, ph = (bottom - mtop - gap) / 2;
    lab_axes m = {.b = {rx + 50 * c->u, mtop, rw - 50 * c->u, ph}, .macs = true};
    lab_axes mem = {.b = {rx + 50 * c->u, mtop + ph + gap, rw - 50 * c->u, ph}, .macs = true, .mem = true};
    if (m.b.h > 60 * c->u && m.b.w > 120 * c->u) {
        lab_plot(c, &m, s->lab, VIZ_S_LAB_MACS);
        lab_plot(c, &mem, s->lab, VIZ_S_LAB_MEMORY);
    } else {
        m.b.h = bottom - mtop;
        if (m.b.h > 80 * c->u && m.b.w > 120 * c->u) lab_plot(c, &m, s->lab, VIZ_S_LAB_MACS);
    }
    viz_text(c->l, x + pad, y + h - pad - c->small * 1.4f, w - 2 * pad, c->small * 1.4f, viz_s(c, VIZ_S_LAB_CLOSE), c->small,
             VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
}
