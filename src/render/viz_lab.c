/* viz_lab.c — the complexity lab overlay: time per head against n on log–log
 * axes, one line per method, with the fitted slopes. Every point is measured
 * on the learner's machine by the core (complexity.h), none drawn from a formula. */
#include <math.h>
#include <stdio.h>

#include "viz_internal.h"

static const viz_rgba lab_colors[ATTN_CX_METHOD_COUNT] = { // Okabe–Ito
    {0xd5, 0x5e, 0x00, 255}, {0xcc, 0x79, 0xa7, 255}, {0x00, 0x72, 0xb2, 255}, {0x00, 0x9e, 0x73, 255}};

/* Plot box and the data range it maps: x = log2 n, y = log10 ms. */
typedef struct {
    viz_box b;
    double x0, x1, y0, y1;
} lab_axes;

static float px_x(const lab_axes *a, double n) {
    return a->b.x + (float)((log2(n) - a->x0) / (a->x1 - a->x0)) * a->b.w;
}

static float px_y(const lab_axes *a, double ms) {
    return a->b.y + a->b.h - (float)((log10(ms) - a->y0) / (a->y1 - a->y0)) * a->b.h;
}

static void lab_range(const attn_cx_result *r, lab_axes *a) {
    a->x0 = 1e9, a->x1 = -1e9, a->y0 = 1e9, a->y1 = -1e9;
    for (int s = 0; s < r->n_series; s++)
        for (int i = 0; i < r->series[s].count; i++) {
            const attn_cx_point *p = &r->series[s].points[i];
            double x = log2((double)p->n), y = log10(p->seconds * 1000.0 > 1e-6 ? p->seconds * 1000.0 : 1e-6);
            a->x0 = fmin(a->x0, x), a->x1 = fmax(a->x1, x), a->y0 = fmin(a->y0, y), a->y1 = fmax(a->y1, y);
        }
    a->y0 = floor(a->y0), a->y1 = ceil(a->y1);
    if (a->x1 <= a->x0) a->x1 = a->x0 + 1;
    if (a->y1 <= a->y0) a->y1 = a->y0 + 1;
}

static void lab_grid(const viz_ctx *c, const lab_axes *a) {
    char buf[32];
    for (double y = a->y0; y <= a->y1 + 1e-9; y += 1) { // decades of milliseconds
        float py = px_y(a, pow(10, y));
        viz_line(c->l, a->b.x, py, a->b.x + a->b.w, py, 1, c->th->line);
        snprintf(buf, sizeof buf, y >= 0 ? "%.0f ms" : "%g ms", pow(10, y));
        viz_text(c->l, a->b.x - 70 * c->u, py - c->small, 64 * c->u, 2 * c->small, buf, c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
    }
    for (double x = ceil(a->x0); x <= a->x1 + 1e-9; x += 1) { // powers of two of n
        float pxx = px_x(a, pow(2, x));
        viz_line(c->l, pxx, a->b.y, pxx, a->b.y + a->b.h, 1, c->th->line);
        snprintf(buf, sizeof buf, "%.0f", pow(2, x));
        viz_text(c->l, pxx - 30 * c->u, a->b.y + a->b.h + 4 * c->u, 60 * c->u, 1.5f * c->small, buf, c->small, VIZ_CENTER | VIZ_TOP, c->th->muted);
    }
}

static void lab_series(const viz_ctx *c, const lab_axes *a, const attn_cx_result *r, float lx, float ly) {
    char buf[160];
    for (int s = 0; s < r->n_series; s++) {
        const attn_cx_series *sr = &r->series[s];
        viz_rgba col = lab_colors[sr->method];
        for (int i = 0; i + 1 < sr->count; i++) {
            const attn_cx_point *p = &sr->points[i], *q = &sr->points[i + 1];
            viz_line(c->l, px_x(a, p->n), px_y(a, p->seconds * 1000), px_x(a, q->n), px_y(a, q->seconds * 1000), 3 * c->u, col);
        }
        float y = ly + s * c->body * 1.6f;
        viz_fill(c->l, lx, y + c->body * 0.5f, 18 * c->u, 4 * c->u, col);
        snprintf(buf, sizeof buf, viz_s(c, VIZ_S_LAB_SERIES), attn_cx_method_name(sr->method), sr->d, sr->slope);
        viz_label(c, lx + 26 * c->u, y, 300 * c->u, c->body * 1.4f, buf, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    }
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
    lab_axes a;
    a.b = (viz_box){x + pad + 80 * c->u, y + pad + c->big * 4, w * 0.58f, h - pad * 2 - c->big * 4 - 50 * c->u};
    lab_range(s->lab, &a);
    lab_grid(c, &a);
    viz_text(c->l, a.b.x, a.b.y + a.b.h + 26 * c->u, a.b.w, 1.5f * c->small, viz_s(c, VIZ_S_LAB_XAXIS), c->small, VIZ_CENTER | VIZ_TOP, c->th->text);
    lab_series(c, &a, s->lab, a.b.x + a.b.w + 30 * c->u, a.b.y);
    viz_text(c->l, x + pad, y + h - pad - c->small * 1.4f, w - 2 * pad, c->small * 1.4f, viz_s(c, VIZ_S_LAB_CLOSE), c->small,
             VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
}
