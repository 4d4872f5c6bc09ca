/* viz_damage.h — which pixels changed between two frames.
 *
 * A signature lists, for each drawn command of a display list, a hash of
 * everything that decides its pixels (kind, geometry, colour, text, cells and
 * the clip in force) and the box of pixels it may touch. viz_damage matches
 * two signatures in order; every command without a partner marks its box as
 * changed. Outside those boxes both frames draw the same commands in the same
 * order over every pixel, so the pixels are equal: redrawing only the damage
 * gives exactly the whole new frame. Pure: no SDL, no fonts. */
#ifndef VIZ_DAMAGE_H
#define VIZ_DAMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "viz.h"

typedef struct {
    int x, y, w, h;
} viz_irect;

/* Coordinates are clamped to ±this before rounding, so wild values stay defined. */
#define VIZ_COORD_LIMIT 1e7f

typedef struct {
    uint64_t hash; /* what the command draws, including the clip in force */
    viz_irect box; /* the pixels it may touch, inside the clip and the canvas; w 0: none */
} viz_sig_item;

typedef struct {
    viz_sig_item *items; /* one per drawn command, in drawing order (owned) */
    int count, cap;      /* used and allocated items */
    int w, h;            /* canvas size the boxes were clipped to */
} viz_sig;

/* The box of pixels a TEXT command may touch (the backend knows its fonts).
 * Returns false when it cannot tell; the whole canvas is then assumed. */
typedef bool (*viz_text_box_fn)(void *ctx, const viz_list *l, const viz_cmd *c, viz_irect *box);

/* Fills s with the signature of l on a w×h canvas, reusing s's memory.
 * Returns false when out of memory (s is then empty). */
bool viz_sig_build(viz_sig *s, const viz_list *l, int w, int h, viz_text_box_fn text_box, void *ctx);

/* viz_sig_build, taking the boxes of texts from prev (the last frame's
 * signature, or NULL) where the same command was there: same hash, same box,
 * without measuring it again. */
bool viz_sig_build_after(viz_sig *s, const viz_sig *prev, const viz_list *l, int w, int h, viz_text_box_fn text_box,
                         void *ctx);

/* Frees what s owns and zeroes it. NULL is a no-op. */
void viz_sig_free(viz_sig *s);

/* At most this many rectangles come out of viz_damage. */
#define VIZ_DAMAGE_MAX 16

/* The pixels that differ between the frames of before (NULL: nothing drawn
 * yet) and after, as at most VIZ_DAMAGE_MAX rectangles, possibly overlapping,
 * inside after's canvas, written to out. Returns their count: 0 when nothing
 * changed; one rectangle covering the whole canvas when the canvas size
 * changed, before is empty, most of it changed anyway, or cap is below
 * VIZ_DAMAGE_MAX (0 when cap < 1: there is nowhere to put it). */
int viz_damage(const viz_sig *before, const viz_sig *after, viz_irect *out, int cap);

/* The pixel box of a FILL, STROKE, GRID or LINE command (LINE: its ends and
 * width, with a pixel to spare): the same rounding as drawing. */
viz_irect viz_cmd_box(const viz_cmd *c);

/* The pixels a box covers: each edge rounded on its own, so boxes that share
 * an edge neither overlap nor leave a gap. Coordinates are clamped to
 * ±VIZ_COORD_LIMIT and NaN counts as the lower bound. */
viz_irect viz_box_pixels(float x, float y, float w, float h);

/* Rounds v to the nearest integer like viz_box_pixels. */
int viz_iround(float v);

/* The intersection of a and b (w or h 0 when they do not meet). */
viz_irect viz_irect_clip(viz_irect a, viz_irect b);

/* The smallest rectangle holding a and b. */
viz_irect viz_irect_union(viz_irect a, viz_irect b);

#endif
