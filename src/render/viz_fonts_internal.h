/* viz_fonts_internal.h — private to src/render: what viz_sdl.c needs from
 * viz_fonts.c (text textures, line metrics), and the grid texture pool that
 * viz_fonts keeps for viz_sdl.c so that viz_fonts_forget_renderer and
 * viz_fonts_close can drop every texture of a renderer in one place. */
#ifndef VIZ_FONTS_INTERNAL_H
#define VIZ_FONTS_INTERNAL_H

#include "viz_sdl.h"

/* One line of text ready to copy 1:1: w×h pixels whose baseline lies asc
 * pixels below the top. tex is NULL when there is nothing to draw. */
typedef struct {
    SDL_Texture *tex;
    int w, h, asc;
} viz_text_tex;

/* Height and ascent of the primary font at size px (rounded like drawing).
 * Returns 0, or -1 with SDL_GetError set. */
int viz_fonts_line(viz_fonts *f, float px, int *height, int *ascent);

/* The texture of text at size px in colour c for renderer r, rendered on first
 * use and cached. Valid until the next call on f. Returns 0, or -1 with
 * SDL_GetError set. */
int viz_fonts_text_texture(viz_fonts *f, SDL_Renderer *r, const char *text, float px,
                           viz_rgba c, viz_text_tex *out);

/* Grid textures (one texel per cell), kept across frames and reused when a grid
 * of the same shape is drawn again. */
#define VIZ_GRID_POOL_MAX 32

typedef struct {
    SDL_Renderer *r;     /* owner; NULL marks a free slot */
    SDL_Texture *tex;    /* cols × rows, streaming, RGBA32 */
    int cols, rows;
    unsigned long frame; /* last frame that used it */
} viz_grid_slot;

typedef struct {
    viz_grid_slot slot[VIZ_GRID_POOL_MAX];
    unsigned long frame; /* bumped by every viz_sdl_draw */
} viz_grid_pool;

/* The pool kept in f. */
viz_grid_pool *viz_fonts_grid_pool(viz_fonts *f);

/* Destroys the pooled textures of r (all of them when r is NULL). In viz_sdl.c. */
void viz_grid_pool_forget(viz_grid_pool *p, SDL_Renderer *r);

#endif
