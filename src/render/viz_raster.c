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

/* w pixels of v: a few one by one, then copies of what is written, which
 * memcpy stores many at a time (a 4K window is mostly fills). */
static void fill_row(Uint32 *row, int w, Uint32 v) {
#ifdef __EMSCRIPTEN__
    // in wasm a memcpy of 512 bytes or more leaves for JavaScript
    // (emscripten_memcpy_big) and back: a loop the compiler turns into vector
    // stores (-msimd128) is several times faster there (chromium's profiler)
    for (int x = 0; x < w; x++) row[x] = v;
#else
    int n = w < 64 ? w : 16; // short rows (cells, separators): copies would cost more than they save
    for (int x = 0; x < n; x++) row[x] = v;
    for (int done = n; done < w;) {
        int k = done < w - done ? done : w - done;
        memcpy(row + done, row, (size_t)k * sizeof *row);
        done += k;
    }
#endif
}

/* Fills r ∩ clip with c, copying when opaque, blending once per pixel when not. */
static void fill_rect(const canvas *cv, viz_irect r, viz_rgba c) {
    r = viz_irect_clip(r, cv->clip);
    if (r.w <= 0 || c.a == 0) return;
    for (int y = r.y; y < r.y + r.h; y++) {
        Uint32 *row = cv->px + (size_t)y * (size_t)cv->pitch + r.x;
        if (c.a == 255) {
            fill_row(row, r.w, pack(c));
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
    return v < 0 ? 0 : v > 1 ? 1
                             : v;
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
            unsigned a = (unsigned)(cover * c->color.a + 0.5); // cover >= 0: rounds as lround, without a call
            if (a == 255) row[x] = pack(c->color);
            else if (a > 0) blend(&row[x], c->color, a);
        }
    }
}

/* Where a w-wide line of height lh placed in the command's box starts. */
static void align_text(const viz_cmd *c, int w, int lh, float *left, float *top) {
    int h = c->align & (VIZ_CENTER | VIZ_RIGHT), v = c->align & (VIZ_MIDDLE | VIZ_BOTTOM);
    *left = h == VIZ_RIGHT ? c->x + c->w - (float)w : h == VIZ_CENTER ? c->x + (c->w - (float)w) / 2
                                                                      : c->x;
    *top = v == VIZ_BOTTOM ? c->y + c->h - (float)lh : v == VIZ_MIDDLE ? c->y + (c->h - (float)lh) / 2
                                                                       : c->y;
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

/* A TEXT command's coverage and pixel box, placed before drawing (the fonts
 * are used by one thread only; the coverage is then only read). */
typedef struct {
    int cmd;          /* index of the command in the list */
    viz_text_img img; /* img.cov NULL: nothing to draw here */
    viz_irect box;
} placed_text;

static void draw_text(const canvas *cv, const viz_cmd *c, const placed_text *p) {
    const viz_text_img *t = &p->img;
    viz_irect box = p->box, r = viz_irect_clip(box, cv->clip);
    for (int y = r.y; y < r.y + r.h; y++) {
        const uint8_t *cov = t->cov + (size_t)(y - box.y) * (size_t)t->w + (r.x - box.x);
        Uint32 *row = cv->px + (size_t)y * (size_t)cv->pitch + r.x;
        for (int x = 0; x < r.w; x++) {
            uint64_t eight;
            if (x + 8 <= r.w && (memcpy(&eight, cov + x, 8), eight == 0)) { // most of a line's box is empty
                x += 7;
                continue;
            }
            unsigned a = cov[x];
            if (a == 0) continue;
            if (c->color.a != 255) a = div255(a * c->color.a);
            if (a == 255) row[x] = pack(c->color);
            else blend(&row[x], c->color, a);
        }
    }
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

/* Whether a command (its box: viz_cmd_box) may touch the clip at all: most
 * of a list lies outside a small damaged area. */
static bool may_touch(const canvas *cv, const viz_cmd *c, viz_irect box) {
    if (c->kind == VIZ_CLIP) return true;
    return viz_irect_clip(box, cv->clip).w > 0;
}

static void draw_cmd(canvas *cv, const viz_list *l, const viz_cmd *c, viz_irect box) {
    if (!may_touch(cv, c, box)) return;
    switch (c->kind) {
    case VIZ_FILL: draw_fill(cv, c); return;
    case VIZ_STROKE: draw_stroke(cv, c); return;
    case VIZ_LINE: draw_line(cv, c); return;
    case VIZ_GRID: draw_grid(cv, l, c); return;
    case VIZ_CLIP: set_clip(cv, c); return;
    case VIZ_TEXT:
    case VIZ_HIT: return; // text: draw_text, from its placement
    }
}

static bool format_ok(const SDL_Surface *s) {
    Uint32 f = s->format->format;
    return f == SDL_PIXELFORMAT_ARGB8888 || f == SDL_PIXELFORMAT_RGB888;
}

/* What one thread draws: the list over the areas, as far as they lie in band. */
typedef struct {
    Uint32 *px; /* the surface's top-left pixel */
    int pitch;  /* pixels per row */
    const viz_list *l;
    const viz_irect *boxes;   /* each command's viz_cmd_box, worked out once for every area */
    const placed_text *texts; /* the list's visible texts, in command order */
    int n_texts;
    const viz_irect *areas; /* what to draw (clipped to the surface) */
    int n_areas;
    viz_irect band; /* the rows this thread owns */
    viz_rgba bg;
} raster_job;

/* Whether the opaque fills that open l cover r: then nothing shows the
 * background and it need not be painted first (a window's panels do). */
static bool opened_by_fills(const viz_list *l, viz_irect r) {
    enum { MAX_OPEN = 8 };
    viz_irect f[MAX_OPEN];
    int n = 0;
    for (int i = 0; i < l->count && n < MAX_OPEN; i++) {
        const viz_cmd *c = &l->cmds[i];
        if (c->kind == VIZ_HIT) continue;
        if (c->kind != VIZ_FILL || c->color.a != 255) break;
        f[n++] = viz_box_pixels(c->x, c->y, c->w, c->h);
    }
    // r is covered when every cell of the grid the fills' edges cut it into is inside one of them
    int xs[2 * MAX_OPEN + 2], ys[2 * MAX_OPEN + 2], nx = 0, ny = 0;
    xs[nx++] = r.x, xs[nx++] = r.x + r.w, ys[ny++] = r.y, ys[ny++] = r.y + r.h;
    for (int k = 0; k < n; k++) {
        if (f[k].x > r.x && f[k].x < r.x + r.w) xs[nx++] = f[k].x;
        if (f[k].x + f[k].w > r.x && f[k].x + f[k].w < r.x + r.w) xs[nx++] = f[k].x + f[k].w;
        if (f[k].y > r.y && f[k].y < r.y + r.h) ys[ny++] = f[k].y;
        if (f[k].y + f[k].h > r.y && f[k].y + f[k].h < r.y + r.h) ys[ny++] = f[k].y + f[k].h;
    }
    for (int a = 0; a < nx; a++)
        for (int b = 0; b < ny; b++) {
            int x = xs[a], y = ys[b]; // a cell's corner: test the pixel just inside it, if r has it
            if (x >= r.x + r.w || y >= r.y + r.h) continue;
            bool in = false;
            for (int k = 0; k < n && !in; k++)
                in = x >= f[k].x && x < f[k].x + f[k].w && y >= f[k].y && y < f[k].y + f[k].h;
            if (!in) return false;
        }
    return true;
}

static void draw_job(const raster_job *j) {
    for (int k = 0; k < j->n_areas; k++) {
        viz_irect a = viz_irect_clip(j->areas[k], j->band);
        if (a.w <= 0 || a.h <= 0) continue;
        canvas cv = {j->px, j->pitch, a, a};
        if (!opened_by_fills(j->l, a)) fill_rect(&cv, a, j->bg);
        for (int i = 0, t = 0; i < j->l->count; i++) {
            const viz_cmd *c = &j->l->cmds[i];
            if (c->kind != VIZ_TEXT) {
                draw_cmd(&cv, j->l, c, j->boxes[i]);
                continue;
            }
            while (t < j->n_texts && j->texts[t].cmd < i) t++;
            if (t < j->n_texts && j->texts[t].cmd == i) draw_text(&cv, c, &j->texts[t]);
        }
    }
}

static int job_thread(void *job) {
    draw_job(job);
    return 0;
}

/* Places every visible text of l that may touch bounds (the areas' box) into
 * out (cap entries); returns how many. A text the fonts fail on is left out
 * and its error kept in first (when it is the first). */
static int place_texts(viz_fonts *f, const viz_list *l, viz_irect bounds, placed_text *out, int cap, char *first,
                       size_t first_cap) {
    int n = 0;
    viz_fonts_hold(f); // what is placed now stays in the cache until the next placing
    for (int i = 0; i < l->count && n < cap; i++) {
        const viz_cmd *c = &l->cmds[i];
        if (c->kind != VIZ_TEXT || c->color.a == 0) continue;
        placed_text p = {.cmd = i};
        if (place_text(f, l, c, &p.img, &p.box) != 0) {
            if (!first[0]) snprintf(first, first_cap, "%s", SDL_GetError());
            continue;
        }
        if (p.img.cov && viz_irect_clip(p.box, bounds).w > 0) out[n++] = p;
    }
    return n;
}

/* The row that splits the areas' pixels in two halves. */
static int split_row(const viz_irect *areas, int n, int y0, int y1) {
    long total = 0;
    for (int k = 0; k < n; k++) total += (long)areas[k].w * areas[k].h;
    while (y1 - y0 > 1) {
        int mid = y0 + (y1 - y0) / 2;
        long above = 0;
        for (int k = 0; k < n; k++) {
            int h = mid - areas[k].y;
            above += (long)areas[k].w * (h < 0 ? 0 : h > areas[k].h ? areas[k].h
                                                                    : h);
        }
        if (2 * above < total) y0 = mid;
        else y1 = mid;
    }
    return y1;
}

#define PARALLEL_PX 200000 /* pixels below which a second thread costs more than it saves */

int viz_sdl_draw_areas(SDL_Surface *dst, viz_fonts *f, const viz_list *l, const SDL_Rect *areas, int n,
                       viz_rgba bg) {
    if (!dst || !l) return SDL_InvalidParamError(!dst ? "dst" : "l");
    if (!format_ok(dst)) return SDL_SetError("attnviz draws into ARGB8888 or RGB888 surfaces only");
    if (areas && n > VIZ_DAMAGE_MAX) { // in batches: the damage never gives more
        int a = viz_sdl_draw_areas(dst, f, l, areas, VIZ_DAMAGE_MAX, bg);
        int b = viz_sdl_draw_areas(dst, f, l, areas + VIZ_DAMAGE_MAX, n - VIZ_DAMAGE_MAX, bg);
        return a ? a : b;
    }
    viz_irect all = {0, 0, dst->w, dst->h}, clipped[VIZ_DAMAGE_MAX];
    viz_irect bounds = {0, 0, 0, 0};
    long pixels = 0;
    int m = 0;
    for (int k = 0; k < (areas ? n : 1); k++) {
        viz_irect a = areas ? viz_irect_clip((viz_irect){areas[k].x, areas[k].y, areas[k].w, areas[k].h}, all) : all;
        if (a.w <= 0 || a.h <= 0) continue;
        bounds = m ? viz_irect_union(bounds, a) : a;
        pixels += (long)a.w * a.h;
        clipped[m++] = a;
    }
    if (m == 0) return 0;
    int cap = 0;
    for (int i = 0; i < l->count; i++) cap += l->cmds[i].kind == VIZ_TEXT;
    placed_text *texts = cap ? malloc(sizeof *texts * (size_t)cap) : NULL;
    viz_irect *boxes = malloc(sizeof *boxes * (size_t)(l->count > 0 ? l->count : 1));
    if ((cap && !texts) || !boxes) {
        free(texts);
        free(boxes);
        return SDL_OutOfMemory();
    }
    for (int i = 0; i < l->count; i++) boxes[i] = viz_cmd_box(&l->cmds[i]);
    char first[256] = ""; // a partial frame beats none: the texts that fail are left out
    int n_texts = f ? place_texts(f, l, bounds, texts, cap, first, sizeof first) : 0;
    if (SDL_MUSTLOCK(dst) && SDL_LockSurface(dst) != 0) {
        free(texts);
        free(boxes);
        return -1;
    }
    bg.a = 255;
    raster_job jobs[2] = {{dst->pixels, dst->pitch / 4, l, boxes, texts, n_texts, clipped, m, all, bg}};
    SDL_Thread *helper = NULL;
    if (pixels >= PARALLEL_PX && SDL_GetCPUCount() > 1) { // two bands of rows at once: any split gives the same pixels
        int y = split_row(clipped, m, bounds.y, bounds.y + bounds.h);
        jobs[1] = jobs[0];
        jobs[0].band = (viz_irect){0, 0, all.w, y};
        jobs[1].band = (viz_irect){0, y, all.w, all.h - y};
        helper = SDL_CreateThread(job_thread, "attnviz-draw", &jobs[1]);
        if (!helper) jobs[0].band = all; // no thread: this one draws it all
    }
    draw_job(&jobs[0]);
    if (helper) SDL_WaitThread(helper, NULL);
    if (SDL_MUSTLOCK(dst)) SDL_UnlockSurface(dst);
    free(texts);
    free(boxes);
    return first[0] ? SDL_SetError("%s", first) : 0;
}

int viz_sdl_draw(SDL_Surface *dst, viz_fonts *f, const viz_list *l, const SDL_Rect *area, viz_rgba bg) {
    return viz_sdl_draw_areas(dst, f, l, area, area ? 1 : 0, bg);
}

/* ---- signatures: text boxes come from the fonts ---- */

static bool text_box(void *ctx, const viz_list *l, const viz_cmd *c, viz_irect *box) {
    viz_text_img t;
    if (place_text(ctx, l, c, &t, box) != 0) return false;
    if (!t.cov) *box = (viz_irect){0, 0, 0, 0};
    return true;
}

bool viz_sdl_signature(viz_sig *out, const viz_sig *prev, viz_fonts *f, const viz_list *l, int w, int h) {
    return viz_sig_build_after(out, prev, l, w, h, text_box, f);
}
