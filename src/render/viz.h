/* viz.h — the display list: what to draw, independent of where.
 *
 * src/render/ turns a trace and a scene description into a viz_list of
 * primitives (filled and outlined rects, lines, text, cell grids) plus
 * invisible hit regions. Backends replay the list into an SDL window, an
 * offscreen surface or an SVG file, so the window, screenshots and exports
 * cannot disagree. Coordinates are pixels, origin top-left, y down.
 *
 * Layer 5 (src/render): includes src/util … src/lesson; no input, no app state. */
#ifndef VIZ_H
#define VIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t r, g, b, a;
} viz_rgba;

typedef enum {
    VIZ_FILL,   /* filled rect (x, y, w, h) */
    VIZ_STROKE, /* rect outline (x, y, w, h), line width thick, drawn inside the rect */
    VIZ_LINE,   /* segment (x, y) -> (x2, y2), width thick */
    VIZ_TEXT,   /* one line of text placed in the box (x, y, w, h) by align */
    VIZ_GRID,   /* rows × cols equal cells filling (x, y, w, h), colours in the cell pool */
    VIZ_CLIP,   /* from here on, clip to (x, y, w, h); w <= 0 removes the clip */
    VIZ_HIT     /* not drawn: a region the app can hover or click (see viz_hit) */
} viz_kind;

/* Text alignment inside its box: one horizontal flag | one vertical flag. */
enum {
    VIZ_LEFT = 0,
    VIZ_CENTER = 1,
    VIZ_RIGHT = 2, /* horizontal */
    VIZ_TOP = 0,
    VIZ_MIDDLE = 4,
    VIZ_BOTTOM = 8 /* vertical */
};

/* The face a TEXT command is set in. */
typedef enum {
    VIZ_FONT_SANS, /* the UI's text: WenQuanYi Micro Hei, then DejaVu Sans, then Symbola per glyph */
    VIZ_FONT_MONO, /* code: WenQuanYi Micro Hei Mono, then DejaVu Sans Mono, then the above */
    VIZ_FONT_COUNT
} viz_font;

/* What a hit region stands for. */
typedef enum {
    VIZ_HIT_NONE,
    VIZ_HIT_CELL,     /* a matrix cell */
    VIZ_HIT_TOKEN,    /* a token chip or label */
    VIZ_HIT_STEP,     /* a rail step */
    VIZ_HIT_WIDGET,   /* a control's button or value */
    VIZ_HIT_SENTENCE, /* the sentence field */
    VIZ_HIT_PANEL     /* a scrollable panel */
} viz_hit_kind;

/* A hit region's meaning; only the fields of its kind are used (the others
 * stay 0, so two hits compare equal with memcmp). */
typedef struct {
    viz_hit_kind kind;         /* what it is */
    int stage, head, row, col; /* CELL: the cell as attn_explain names it (attn_stage, head, row, col) */
    int token;                 /* TOKEN: the token's index */
    int step;                  /* STEP: the step (attn_step) */
    int widget, delta;         /* WIDGET: which control (viz_widget); -1 decrease, +1 increase, 0 toggle */
    int panel;                 /* PANEL: which panel (VIZ_PANEL_*) */
    int scroll_max;            /* PANEL: how far its text scrolls, in pixels, as drawn (0: it all shows) */
    int scroll;                /* PANEL: how far its text is scrolled as drawn (it may scroll itself to a verdict) */
} viz_hit;

typedef struct {
    viz_kind kind;    /* which primitive */
    float x, y, w, h; /* box (FILL, STROKE, TEXT, GRID, CLIP, HIT) or start point (LINE) */
    float x2, y2;     /* LINE end point */
    float thick;      /* STROKE and LINE width in pixels */
    viz_rgba color;   /* FILL, STROKE, LINE, TEXT colour */
    float size;       /* TEXT: font size in pixels (em height) */
    int align;        /* TEXT: VIZ_LEFT|VIZ_TOP etc. */
    viz_font font;    /* TEXT: its face */
    uint32_t str;     /* TEXT: offset of its NUL-terminated UTF-8 in the string pool */
    uint32_t cells;   /* GRID: offset of rows*cols colours in the cell pool */
    int rows, cols;   /* GRID: cell counts */
    viz_hit hit;      /* HIT: what the region stands for */
} viz_cmd;

typedef struct {
    viz_cmd *cmds;  /* commands in drawing order, owned */
    int count, cap; /* used and allocated commands */
    char *strings;  /* string pool, owned */
    size_t str_len, str_cap;
    viz_rgba *cells; /* grid colour pool, owned */
    size_t cell_len, cell_cap;
    bool failed; /* an allocation failed; the list is incomplete */
} viz_list;

/* Empties the list, keeping its memory for the next frame. */
void viz_clear(viz_list *l);

/* Frees everything l owns and zeroes it. NULL is a no-op. */
void viz_free(viz_list *l);

void viz_fill(viz_list *l, float x, float y, float w, float h, viz_rgba c);
void viz_stroke(viz_list *l, float x, float y, float w, float h, float thick, viz_rgba c);
void viz_line(viz_list *l, float x, float y, float x2, float y2, float thick, viz_rgba c);
/* Copies text (NUL-terminated UTF-8) into the pool. */
void viz_text(viz_list *l, float x, float y, float w, float h, const char *text, float size,
              int align, viz_rgba c);
/* The same in face font (viz_text: VIZ_FONT_SANS). */
void viz_text_font(viz_list *l, float x, float y, float w, float h, const char *text, float size,
                   int align, viz_rgba c, viz_font font);
/* Reserves rows*cols colours for a grid and returns them to fill in row-major
 * order (NULL on allocation failure). Valid until the next viz_* call. */
viz_rgba *viz_grid(viz_list *l, float x, float y, float w, float h, int rows, int cols);
void viz_clip(viz_list *l, float x, float y, float w, float h);
void viz_hit_region(viz_list *l, float x, float y, float w, float h, viz_hit hit);

/* The text of a TEXT command. */
const char *viz_cmd_text(const viz_list *l, const viz_cmd *c);
/* The colours of a GRID command. */
const viz_rgba *viz_cmd_cells(const viz_list *l, const viz_cmd *c);

/* The topmost hit region containing (x, y), or a VIZ_HIT_NONE hit. Later
 * regions win, as they are drawn on top. */
viz_hit viz_hit_test(const viz_list *l, float x, float y);

/* Text measurement, supplied by the backend that owns the fonts: the width in
 * pixels of len bytes of UTF-8 at font size px, in the UI's face (width) and
 * in the code face (mono; NULL: as width). */
typedef struct {
    float (*width)(void *ctx, const char *text, size_t len, float px);
    void *ctx;
    float (*mono)(void *ctx, const char *text, size_t len, float px);
} viz_measure;

#endif
