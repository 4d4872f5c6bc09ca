/* viz_raster.c — attnviz's own software rasteriser: display lists drawn into
 * 32-bit surfaces. SDL's renderer is not used for drawing: its fills go
 * through streaming stores whose per-row cost dominated a frame, and its
 * clipping of lines and scaled copies moves pixels, so a partial redraw would
 * not equal a whole one. Here every primitive computes its pixels from the
 * command alone and only then intersects them with the clip, so any clip gives
 * the same pixels inside it. */
#include "viz_fonts_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Where drawing goes: the pixels, and the rectangle it may touch. */
typedef struct {
    Uint32 *px;     /* top-left pixel */
    int pitch;      /* pixels per row */
    viz_irect area; /* the caller's area inside the surface */
    viz_irect clip; /* area ∩ the list's current clip */
} canvas;

#define OPAQUE 0xFF000000u

static Uint32 pack(viz_rgba c) {
    return OPAQUE | (Uint32)c.r << 16 | (Uint32)c.g << 8 | (Uint32)c.b;
}

/* (x + 127) / 255 rounded, exactly, for x in 0 … 255·255. */
static unsigned div255(unsigned x) {
    x += 128;
    return (x + (x >> 8)) >> 8;
}

/* Blends c over *p with weight a (0 … 255): p + (c − p)·a/255 per channel. */
static void blend(Uint32 *p, viz_rgba c, unsigned a) {
    Uint32 d = *p;
    unsigned r = div255(c.r * a + ((d >> 16) & 255) * (255 - a));
    unsigned g = div255(c.g * a + ((d >> 8) & 255) * (255 - a));
    unsigned b = div255(c.b * a + (d & 255) * (255 - a));
    *p = OPAQUE | r << 16 | g << 8 | b;
}

/* Fills r ∩ clip with c, copying when opaque, blending once per pixel when not. */
static void fill_rect(const canvas *cv, viz_irect r, viz_rgba c) {
    r = viz_irect_clip(r, cv->clip);
    if (r.w <= 0 || c.a == 0) return;
    for (int y = r.y; y < r.y + r.h; y++) {
        Uint32 *row = cv->px + (size_t)y * (size_t)cv->pitch + r.x;
        if (c.a == 255) {
            Uint32 v = pack(c);
            for (int x = 0; x < r.w; x++) row[x] = v;
        } else {
            for (int x = 0; x < r.w; x++) blend(&row[x], c, c.a);
        }
    }
}

static void draw_fill(const canvas *cv, const viz_cmd *c) {
    fill_rect(cv, viz_box_pixels(c->x, c->y, c->w, c->h), c->color);
}

/* Four non-overlapping bands inside the box, so translucent corners are not
 * blended twice. */
static void draw_stroke(const canvas *cv, const viz_cmd *c) {
    viz_irect b = viz_box_pixels(c->x, c->y, c->w, c->h);
    if (!(c->thick > 0) || b.w <= 0 || b.h <= 0) return;
    int t = viz_iround(c->thick) > 1 ? viz_iround(c->thick) : 1; // hairlines stay visible
    if (2 * t >= b.w || 2 * t >= b.h) {
        fill_rect(cv, b, c->color);
        return;
    }
    fill_rect(cv, (viz_irect){b.x, b.y, b.w, t}, c->color);
    fill_rect(cv, (viz_irect){b.x, b.y + b.h - t, b.w, t}, c->color);
    fill_rect(cv, (viz_irect){b.x, b.y + t, t, b.h - 2 * t}, c->color);
    fill_rect(cv, (viz_irect){b.x + b.w - t, b.y + t, t, b.h - 2 * t}, c->color);
}

static double clamp01(double v) {
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* v clamped like box edges (NaN to the lower bound), so wild lines stay defined. */
static double coord(float v) {
    if (!(v > -VIZ_COORD_LIMIT)) return -VIZ_COORD_LIMIT;
    return v > VIZ_COORD_LIMIT ? VIZ_COORD_LIMIT : v;
}

/* A line of width max(thick, 1) with square-cut ends, antialiased: each
 * pixel is blended once with the share of it the line covers (its distance
 * from the centre line against the half width, and from the ends), so thin
 * and fractional widths read as such and translucent lines never darken where
 * they overlap themselves. Every pixel's value depends on its position alone,
 * so any clip gives the same pixels. */
static void draw_line(const canvas *cv, const viz_cmd *c) {
    if (!(c->thick > 0) || c->color.a == 0) return;
    double x0 = coord(c->x), y0 = coord(c->y), x1 = coord(c->x2), y1 = coord(c->y2);
    double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
    if (!(len > 0)) return;
    double ux = dx / len, uy = dy / len, half = (c->thick > 1 ? c->thick : 1) / 2.0;
    double reach = half + 1; // beyond this distance from the centre line no pixel is touched
    viz_irect box = viz_irect_clip(viz_box_pixels((float)(fmin(x0, x1) - reach), (float)(fmin(y0, y1) - reach),
                                                  (float)(fabs(dx) + 2 * reach), (float)(fabs(dy) + 2 * reach)),
                                   cv->clip);
    for (int y = box.y; y < box.y + box.h; y++) {
        double py = y + 0.5 - y0;
        Uint32 *row = cv->px + (size_t)y * (size_t)cv->pitch;
        int xa = box.x, xb = box.x + box.w;
        if (fabs(uy) > 1e-9) { // only the strip within reach of the centre line, not the whole box
            double a = (py * ux - reach) / uy + x0 - 0.5, b = (py * ux + reach) / uy + x0 - 0.5;
            double lo = fmax(fmin(a, b) - 1, box.x), hi = fmin(fmax(a, b) + 2, xb);
            xa = (int)floor(lo);
            xb = (int)ceil(hi);
        }
        for (int x = xa; x < xb; x++) {
            double px = x + 0.5 - x0;
            double across = fabs(px * uy - py * ux), along = px * ux + py * uy;
            double cover = clamp01(half + 0.5 - across) * clamp01(fmin(along, len - along) + 0.5);
            unsigned a = (unsigned)lround(cover * c->color.a);
            if (a == 255) row[x] = pack(c->color);
            else if (a > 0) blend(&row[x], c->color, a);
        }
    }
}

/* Where a w-wide line of height lh placed in the command's box starts. */
static void align_text(const viz_cmd *c, int w, int lh, float *left, float *top) {
    int h = c->align & (VIZ_CENTER | VIZ_RIGHT), v = c->align & (VIZ_MIDDLE | VIZ_BOTTOM);
    *left = h == VIZ_RIGHT ? c->x + c->w - (float)w : h == VIZ_CENTER ? c->x + (c->w - (float)w) / 2 : c->x;
    *top = v == VIZ_BOTTOM ? c->y + c->h - (float)lh : v == VIZ_MIDDLE ? c->y + (c->h - (float)lh) / 2 : c->y;
}

/* The coverage of a TEXT command and the pixel box it lands in: 1:1 at whole
 * pixels (scaled text is blurry), the baseline at the primary font's ascent
 * below the line's top. Returns 0 (img->cov NULL: nothing to draw) or -1. */
static int place_text(viz_fonts *f, const viz_list *l, const viz_cmd *c, viz_text_img *img, viz_irect *box) {
    const char *s = viz_cmd_text(l, c);
    int lh, asc;
    img->cov = NULL;
    if (!f || !*s) return 0;
    if (viz_fonts_line(f, c->size, c->font, &lh, &asc) != 0 || viz_fonts_text(f, s, c->size, c->font, img) != 0)
        return -1;
    float left, top;
    align_text(c, img->w, lh, &left, &top);
    *box = (viz_irect){viz_iround(left), viz_iround(top) + asc - img->asc, img->w, img->h};
    return 0;
}

int viz_sdl_text_origin(viz_fonts *f, const viz_list *l, const viz_cmd *c, int *x, int *baseline) {
    viz_text_img t;
    viz_irect box;
    if (c->kind != VIZ_TEXT || place_text(f, l, c, &t, &box) != 0 || !t.cov) return -1;
    *x = box.x;
    *baseline = box.y + t.asc;
    return 0;
}

static int draw_text(const canvas *cv, viz_fonts *f, const viz_list *l, const viz_cmd *c) {
    viz_text_img t;
    viz_irect box;
    if (c->color.a == 0) return 0;
    if (place_text(f, l, c, &t, &box) != 0) return -1;
    if (!t.cov) return 0;
    viz_irect r = viz_irect_clip(box, cv->clip);
    for (int y = r.y; y < r.y + r.h; y++) {
        const uint8_t *cov = t.cov + (size_t)(y - box.y) * (size_t)t.w + (r.x - box.x);
        Uint32 *row = cv->px + (size_t)y * (size_t)cv->pitch + r.x;
        for (int x = 0; x < r.w; x++) {
            unsigned a = cov[x];
            if (a == 0) continue; // most of a line's box is empty
            if (c->color.a != 255) a = div255(a * c->color.a);
            if (a == 255) row[x] = pack(c->color);
            else blend(&row[x], c->color, a);
        }
    }
    return 0;
}

/* rows × cols cells, each filled on its own with edges rounded like boxes, so
 * cells line up with the separators drawn between them. */
static void draw_grid(const canvas *cv, const viz_list *l, const viz_cmd *c) {
    if (c->rows <= 0 || c->cols <= 0) return;
    viz_irect box = viz_box_pixels(c->x, c->y, c->w, c->h), b = viz_irect_clip(box, cv->clip);
    if (b.w <= 0) return;
    const viz_rgba *cells = viz_cmd_cells(l, c);
    float ch = c->h / (float)c->rows, cw = c->w / (float)c->cols;
    for (int r = 0; r < c->rows; r++) {
        int y0 = viz_iround(c->y + ch * (float)r), y1 = viz_iround(c->y + ch * (float)(r + 1));
        if (y1 <= b.y || y0 >= b.y + b.h) continue;
        for (int k = 0; k < c->cols; k++) {
            int x0 = viz_iround(c->x + cw * (float)k), x1 = viz_iround(c->x + cw * (float)(k + 1));
            if (x1 <= b.x || x0 >= b.x + b.w) continue;
            // never past the box (rounding of the last edge), which is what the damage knows
            viz_irect cell = viz_irect_clip((viz_irect){x0, y0, x1 - x0, y1 - y0}, box);
            fill_rect(cv, cell, cells[(size_t)r * (size_t)c->cols + (size_t)k]);
        }
    }
}

static void set_clip(canvas *cv, const viz_cmd *c) {
    cv->clip = c->w <= 0 ? cv->area : viz_irect_clip(viz_box_pixels(c->x, c->y, c->w, c->h), cv->area);
}

/* Whether a command may touch the clip at all: most of a list lies outside a
 * small damaged area. Text is placed (and cached) only when drawn. */
static bool may_touch(const canvas *cv, const viz_cmd *c) {
    if (c->kind == VIZ_TEXT || c->kind == VIZ_CLIP) return true;
    viz_irect b = viz_irect_clip(viz_cmd_box(c), cv->clip);
    return b.w > 0;
}

static int draw_cmd(canvas *cv, viz_fonts *f, const viz_list *l, const viz_cmd *c) {
    if (!may_touch(cv, c)) return 0;
    switch (c->kind) {
    case VIZ_FILL: draw_fill(cv, c); return 0;
    case VIZ_STROKE: draw_stroke(cv, c); return 0;
    case VIZ_LINE: draw_line(cv, c); return 0;
    case VIZ_TEXT: return draw_text(cv, f, l, c);
    case VIZ_GRID: draw_grid(cv, l, c); return 0;
    case VIZ_CLIP: set_clip(cv, c); return 0;
    case VIZ_HIT: return 0;
    }
    return 0;
}

static bool format_ok(const SDL_Surface *s) {
    Uint32 f = s->format->format;
    return f == SDL_PIXELFORMAT_ARGB8888 || f == SDL_PIXELFORMAT_RGB888;
}

int viz_sdl_draw(SDL_Surface *dst, viz_fonts *f, const viz_list *l, const SDL_Rect *area, viz_rgba bg) {
    if (!dst || !l) return SDL_InvalidParamError(!dst ? "dst" : "l");
    if (!format_ok(dst)) return SDL_SetError("attnviz draws into ARGB8888 or RGB888 surfaces only");
    viz_irect all = {0, 0, dst->w, dst->h};
    viz_irect a = area ? viz_irect_clip((viz_irect){area->x, area->y, area->w, area->h}, all) : all;
    if (a.w <= 0) return 0;
    if (SDL_MUSTLOCK(dst) && SDL_LockSurface(dst) != 0) return -1;
    canvas cv = {dst->pixels, dst->pitch / 4, a, a};
    bg.a = 255;
    fill_rect(&cv, a, bg);
    char first[256] = "";
    bool failed = false;
    for (int i = 0; i < l->count; i++) {
        if (draw_cmd(&cv, f, l, &l->cmds[i]) != 0 && !failed) {
            failed = true;
            snprintf(first, sizeof first, "%s", SDL_GetError());
        }
    }
    if (SDL_MUSTLOCK(dst)) SDL_UnlockSurface(dst);
    if (!failed) return 0;
    return SDL_SetError("%s", first);
}

/* ---- signatures: text boxes come from the fonts ---- */

static bool text_box(void *ctx, const viz_list *l, const viz_cmd *c, viz_irect *box) {
    viz_text_img t;
    if (place_text(ctx, l, c, &t, box) != 0) return false;
    if (!t.cov) *box = (viz_irect){0, 0, 0, 0};
    return true;
}

bool viz_sdl_signature(viz_sig *out, viz_fonts *f, const viz_list *l, int w, int h) {
    return viz_sig_build(out, l, w, h, text_box, f);
}
