/* viz_fonts_internal.h — private to src/render: what the rasteriser
 * (viz_raster.c) needs from viz_fonts.c: lines of text as coverage masks and
 * line metrics. */
#ifndef VIZ_FONTS_INTERNAL_H
#define VIZ_FONTS_INTERNAL_H

#include <stdint.h>

#include "viz_sdl.h"

/* One line of text ready to blend 1:1: w×h coverage bytes (0 transparent …
 * 255 fully covered) whose baseline lies asc pixels below the top. cov is
 * NULL when there is nothing to draw. */
typedef struct {
    const uint8_t *cov;
    int w, h, asc;
} viz_text_img;

/* Height and ascent of style's first font at size px (rounded like drawing).
 * Returns 0, or -1 with SDL_GetError set. */
int viz_fonts_line(viz_fonts *f, float px, viz_font style, int *height, int *ascent);

/* The coverage of text in style at size px, rendered on first use and cached
 * (the colour is applied when blending, so one entry serves every colour).
 * *out stays valid until the next call on f. Returns 0, or -1 with
 * SDL_GetError set. */
int viz_fonts_text(viz_fonts *f, const char *text, float px, viz_font style, viz_text_img *out);

/* From now on, every line viz_fonts_text returns stays cached (and its
 * coverage valid) until the next hold, however many there are: the
 * rasteriser places a frame's texts first, then reads them from two threads. */
void viz_fonts_hold(viz_fonts *f);

#endif
