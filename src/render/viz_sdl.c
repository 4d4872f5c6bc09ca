/* viz_sdl.c — replays display lists into an SDL_Renderer, renders them
 * offscreen, and saves screenshots. Fonts and text textures: viz_fonts.c. */
#include "viz_fonts_internal.h"

#include <SDL_image.h>
#include <png.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// grids upload the cell pool as is: RGBA32 is bytes r, g, b, a on every endianness
_Static_assert(sizeof(viz_rgba) == 4, "viz_rgba must be 4 packed bytes");

#define COORD_LIMIT 1e7f /* keeps rounding of wild coordinates defined */

static int iround(float v) {
    if (!(v > -COORD_LIMIT)) return (int)-COORD_LIMIT; // also catches NaN
    if (v > COORD_LIMIT) return (int)COORD_LIMIT;
    return (int)lroundf(v);
}

/* The pixels covered by a box: edges rounded separately, so boxes that share an
 * edge neither overlap nor leave a gap. false when empty. */
static bool box_rect(float x, float y, float w, float h, SDL_Rect *out) {
    int x0 = iround(x), y0 = iround(y), x1 = iround(x + w), y1 = iround(y + h);
    *out = (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
    return out->w > 0 && out->h > 0;
}

/* Opaque colours are copied, translucent ones blended. */
static void set_color(SDL_Renderer *r, viz_rgba c) {
    SDL_SetRenderDrawBlendMode(r, c.a < 255 ? SDL_BLENDMODE_BLEND : SDL_BLENDMODE_NONE);
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
}

static int draw_fill(SDL_Renderer *r, const viz_cmd *c) {
    SDL_Rect b;
    if (!box_rect(c->x, c->y, c->w, c->h, &b)) return 0;
    set_color(r, c->color);
    return SDL_RenderFillRect(r, &b);
}

/* Four non-overlapping bands inside the box, so translucent corners are not
 * blended twice. */
static int draw_stroke(SDL_Renderer *r, const viz_cmd *c) {
    SDL_Rect b;
    if (!(c->thick > 0) || !box_rect(c->x, c->y, c->w, c->h, &b)) return 0;
    int t = iround(c->thick) > 1 ? iround(c->thick) : 1; // hairlines stay visible
    set_color(r, c->color);
    if (2 * t >= b.w || 2 * t >= b.h) return SDL_RenderFillRect(r, &b);
    SDL_Rect band[4] = {
        {b.x, b.y, b.w, t},
        {b.x, b.y + b.h - t, b.w, t},
        {b.x, b.y + t, t, b.h - 2 * t},
        {b.x + b.w - t, b.y + t, t, b.h - 2 * t},
    };
    return SDL_RenderFillRects(r, band, 4);
}

/* Translucent thick lines: a quad of width thick, blended once per pixel. */
static int draw_quad_line(SDL_Renderer *r, const viz_cmd *c, float nx, float ny) {
    nx *= c->thick / 2;
    ny *= c->thick / 2;
    SDL_Color col = {c->color.r, c->color.g, c->color.b, c->color.a};
    SDL_Vertex v[4] = {
        {{c->x + nx, c->y + ny}, col, {0, 0}},
        {{c->x2 + nx, c->y2 + ny}, col, {0, 0}},
        {{c->x2 - nx, c->y2 - ny}, col, {0, 0}},
        {{c->x - nx, c->y - ny}, col, {0, 0}},
    };
    static const int idx[6] = {0, 1, 2, 0, 2, 3};
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND); // geometry without texture uses it
    return SDL_RenderGeometry(r, NULL, v, 4, idx, 6);
}

/* Opaque thick lines as parallel one-pixel lines half a pixel apart along the
 * normal: SDL's software renderer draws lines fast but fills triangles slowly,
 * and overdrawing an opaque colour changes nothing. */
static int draw_line(SDL_Renderer *r, const viz_cmd *c) {
    if (!(c->thick > 0)) return 0;
    set_color(r, c->color);
    int n = iround(c->thick) > 1 ? iround(c->thick) : 1;
    if (n == 1 && c->color.a == 255) return SDL_RenderDrawLine(r, iround(c->x), iround(c->y), iround(c->x2), iround(c->y2));
    float dx = c->x2 - c->x, dy = c->y2 - c->y, len = sqrtf(dx * dx + dy * dy);
    if (!(len > 0)) return 0;
    float nx = -dy / len, ny = dx / len;
    if (c->color.a != 255) return draw_quad_line(r, c, nx, ny);
    int rc = 0;
    for (int i = 0; i < 2 * n - 1 && rc == 0; i++) {
        float o = 0.5f * (float)i - (float)(n - 1) / 2.0f;
        // whole pixels: the window and offscreen renderers then draw the very same pixels
        rc = SDL_RenderDrawLine(r, iround(c->x + nx * o), iround(c->y + ny * o), iround(c->x2 + nx * o),
                                iround(c->y2 + ny * o));
    }
    return rc;
}

/* Left and top of a w-wide line of height lh placed in the command's box. */
static void align_text(const viz_cmd *c, int w, int lh, float *left, float *top) {
    int h = c->align & (VIZ_CENTER | VIZ_RIGHT), v = c->align & (VIZ_MIDDLE | VIZ_BOTTOM);
    *left = h == VIZ_RIGHT ? c->x + c->w - (float)w : h == VIZ_CENTER ? c->x + (c->w - (float)w) / 2 : c->x;
    *top = v == VIZ_BOTTOM ? c->y + c->h - (float)lh : v == VIZ_MIDDLE ? c->y + (c->h - (float)lh) / 2 : c->y;
}

/* Copies the cached text texture 1:1 at whole pixels: scaled text is blurry. */
static int draw_text(SDL_Renderer *r, viz_fonts *f, const viz_list *l, const viz_cmd *c) {
    const char *s = viz_cmd_text(l, c);
    int lh, asc;
    viz_text_tex t;
    if (!f || !*s) return 0;
    if (viz_fonts_line(f, c->size, &lh, &asc) != 0) return -1;
    if (viz_fonts_text_texture(f, r, s, c->size, c->color, &t) != 0) return -1;
    if (!t.tex) return 0;
    float left, top;
    align_text(c, t.w, lh, &left, &top);
    // the line's baseline sits at the primary font's ascent below its top
    SDL_Rect dst = {iround(left), iround(top) + asc - t.asc, t.w, t.h};
    return SDL_RenderCopy(r, t.tex, NULL, &dst);
}

static SDL_Texture *new_grid_texture(SDL_Renderer *r, int cols, int rows) {
    SDL_Texture *tex = SDL_CreateTexture(r, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, cols, rows);
    if (!tex) return NULL;
    SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND);
    SDL_SetTextureScaleMode(tex, SDL_ScaleModeNearest); // each cell a crisp block
    return tex;
}

/* A cols × rows texture of r that this frame has not used yet: a pooled one when
 * possible, otherwise a new one replacing a free or the least recent slot. */
static SDL_Texture *grid_texture(viz_grid_pool *p, SDL_Renderer *r, int cols, int rows) {
    viz_grid_slot *victim = NULL;
    for (int i = 0; i < VIZ_GRID_POOL_MAX; i++) {
        viz_grid_slot *s = &p->slot[i];
        if (s->r == r && s->cols == cols && s->rows == rows && s->frame != p->frame) {
            s->frame = p->frame;
            return s->tex;
        }
        if (!victim || (victim->r && (!s->r || s->frame < victim->frame))) victim = s;
    }
    SDL_Texture *tex = new_grid_texture(r, cols, rows);
    if (!tex) return NULL;
    if (victim->r) SDL_DestroyTexture(victim->tex);
    *victim = (viz_grid_slot){r, tex, cols, rows, p->frame};
    return tex;
}

void viz_grid_pool_forget(viz_grid_pool *p, SDL_Renderer *r) {
    for (int i = 0; i < VIZ_GRID_POOL_MAX; i++) {
        viz_grid_slot *s = &p->slot[i];
        if (s->r && (!r || s->r == r)) {
            SDL_DestroyTexture(s->tex);
            memset(s, 0, sizeof *s);
        }
    }
}

/* One texel per cell, stretched over the box: one draw call per grid. */
static int draw_grid(SDL_Renderer *r, viz_grid_pool *pool, const viz_list *l, const viz_cmd *c) {
    SDL_Rect dst;
    if (c->rows <= 0 || c->cols <= 0 || !box_rect(c->x, c->y, c->w, c->h, &dst)) return 0;
    SDL_Texture *tex = pool ? grid_texture(pool, r, c->cols, c->rows) : new_grid_texture(r, c->cols, c->rows);
    if (!tex) return -1;
    int rc = SDL_UpdateTexture(tex, NULL, viz_cmd_cells(l, c), c->cols * (int)sizeof(viz_rgba));
    if (rc == 0) rc = SDL_RenderCopy(r, tex, NULL, &dst);
    if (!pool) SDL_DestroyTexture(tex); // SDL flushes pending copies first
    return rc;
}

static int set_clip(SDL_Renderer *r, const viz_cmd *c) {
    if (c->w <= 0) return SDL_RenderSetClipRect(r, NULL);
    SDL_Rect b;
    box_rect(c->x, c->y, c->w, c->h, &b);
    if (b.w < 0) b.w = 0;
    if (b.h < 0) b.h = 0;
    return SDL_RenderSetClipRect(r, &b);
}

static int draw_cmd(SDL_Renderer *r, viz_fonts *f, viz_grid_pool *pool, const viz_list *l,
                    const viz_cmd *c) {
    switch (c->kind) {
    case VIZ_FILL: return draw_fill(r, c);
    case VIZ_STROKE: return draw_stroke(r, c);
    case VIZ_LINE: return draw_line(r, c);
    case VIZ_TEXT: return draw_text(r, f, l, c);
    case VIZ_GRID: return draw_grid(r, pool, l, c);
    case VIZ_CLIP: return set_clip(r, c);
    case VIZ_HIT: return 0;
    }
    return 0;
}

/* Draws every command even after a failure (a partial frame beats a blank one)
 * and reports the first error. The list starts and ends unclipped. */
int viz_sdl_draw(SDL_Renderer *r, viz_fonts *f, const viz_list *l) {
    if (!r || !l) return SDL_InvalidParamError(!r ? "r" : "l");
    viz_grid_pool *pool = f ? viz_fonts_grid_pool(f) : NULL;
    char first[256] = "";
    bool failed = false;
    if (pool) pool->frame++;
    SDL_RenderSetClipRect(r, NULL);
    for (int i = 0; i < l->count; i++) {
        if (draw_cmd(r, f, pool, l, &l->cmds[i]) != 0 && !failed) {
            failed = true;
            snprintf(first, sizeof first, "%s", SDL_GetError());
        }
    }
    SDL_RenderSetClipRect(r, NULL);
    if (!failed) return 0;
    return SDL_SetError("%s", first);
}

/* Sets every alpha to 255. SDL's software triangles lose a little alpha when
 * blending (a translucent line over opaque white came out at 253), but anything
 * composited over an opaque background is opaque. */
static void force_opaque(SDL_Surface *s) {
    for (int y = 0; y < s->h; y++) {
        Uint32 *row = (Uint32 *)((Uint8 *)s->pixels + (size_t)y * (size_t)s->pitch);
        for (int x = 0; x < s->w; x++) row[x] |= s->format->Amask;
    }
}

SDL_Surface *viz_sdl_render_surface(viz_fonts *f, const viz_list *l, int w, int h, viz_rgba bg) {
    SDL_Renderer *r = NULL;
    bool ok = false;
    if (w <= 0 || h <= 0) {
        SDL_SetError("Cannot render a %d×%d image.", w, h);
        return NULL;
    }
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) goto cleanup;
    SDL_FillRect(s, NULL, SDL_MapRGBA(s->format, bg.r, bg.g, bg.b, bg.a));
    r = SDL_CreateSoftwareRenderer(s);
    if (!r || viz_sdl_draw(r, f, l) != 0) goto cleanup;
    // the software renderer batches commands: flush them into s before returning
    ok = SDL_RenderFlush(r) == 0;
    if (ok && bg.a == 255) force_opaque(s);
cleanup:
    if (r) {
        viz_fonts_forget_renderer(f, r); // r's address may be reused by the next renderer
        SDL_DestroyRenderer(r);
    }
    if (!ok) {
        SDL_FreeSurface(s);
        s = NULL;
    }
    return s;
}

/* "Cannot save the screenshot to PATH: reason." with reason's own final period dropped. */
static void save_error(char *err, size_t cap, const char *path, const char *reason) {
    if (!err || cap == 0) return;
    size_t n = strlen(reason);
    while (n > 0 && (reason[n - 1] == '.' || reason[n - 1] == '\n')) n--;
    snprintf(err, cap, "Cannot save the screenshot to %s: %.*s.", path, (int)n, reason);
}

/* Writes beside the target, then renames: path holds the old file or the whole
 * new one, and a failure leaves nothing behind. */
/* libpng reports errors by longjmp; the message goes here first. */
static void png_error_fn(png_structp png, png_const_charp msg) {
    char *buf = png_get_error_ptr(png);
    int e = errno; // libpng's "Write Error" follows a failed fwrite, whose errno says why (a full disk)
    snprintf(buf, 256, "%s", strcmp(msg, "Write Error") == 0 && e ? strerror(e) : msg);
    png_longjmp(png, 1);
}

/* Writes s (opaque, 32-bit) as an 8-bit RGB PNG to fp. Fast settings: figures
 * are flat colour and text, which compress well at level 1 with the Sub
 * filter, ten times faster than the defaults that IMG_SavePNG uses. */
static int write_png_rgb(FILE *fp, SDL_Surface *s, char *why) {
    SDL_Surface *rgb = SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_RGB24, 0);
    if (!rgb) {
        snprintf(why, 256, "%s", SDL_GetError());
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, why, png_error_fn, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int rc = -1;
    if (!png || !info) {
        snprintf(why, 256, "not enough memory");
        goto cleanup;
    }
    if (setjmp(png_jmpbuf(png))) goto cleanup;
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)rgb->w, (png_uint_32)rgb->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_write_info(png, info);
    for (int y = 0; y < rgb->h; y++) png_write_row(png, (png_const_bytep)rgb->pixels + (size_t)y * rgb->pitch);
    png_write_end(png, NULL);
    rc = 0;
cleanup:
    png_destroy_write_struct(&png, &info);
    SDL_FreeSurface(rgb);
    return rc;
}

int viz_save_png(SDL_Surface *s, const char *path, char *err, size_t cap) {
    if (!s || !path) {
        save_error(err, cap, path ? path : "(no path)", "nothing to save");
        return -1;
    }
    size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
    char *tmp = malloc(n);
    bool made = false;
    int rc = -1;
    if (!tmp) {
        save_error(err, cap, path, "not enough memory");
        goto cleanup;
    }
    snprintf(tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        save_error(err, cap, path, strerror(errno));
        goto cleanup;
    }
    made = true;
    fchmod(fd, 0644); // mkstemp's 0600 would make screenshots private
    FILE *fp = fdopen(fd, "wb");
    char why[256] = "";
    if (!fp) {
        close(fd);
        save_error(err, cap, path, strerror(errno));
        goto cleanup;
    }
    int wrc = write_png_rgb(fp, s, why);
    if (fclose(fp) != 0 && wrc == 0) {
        wrc = -1;
        snprintf(why, sizeof why, "%s", strerror(errno));
    }
    if (wrc != 0) {
        save_error(err, cap, path, why);
        goto cleanup;
    }
    if (rename(tmp, path) != 0) {
        save_error(err, cap, path, strerror(errno));
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc != 0 && made) unlink(tmp);
    free(tmp);
    return rc;
}
