/* viz_list.c — building display lists. */
#include "viz.h"

#include <stdlib.h>
#include <string.h>

void viz_clear(viz_list *l) {
    l->count = 0;
    l->str_len = 0;
    l->cell_len = 0;
    l->failed = false;
}

void viz_free(viz_list *l) {
    if (!l) return;
    free(l->cmds);
    free(l->strings);
    free(l->cells);
    memset(l, 0, sizeof *l);
}

/* Grows a pool to hold need items of size sz; false (and l->failed) on failure. */
static bool grow(viz_list *l, void **pool, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *p = realloc(*pool, nc * sz);
    if (!p) {
        l->failed = true;
        return false;
    }
    *pool = p;
    *cap = nc;
    return true;
}

static viz_cmd *push(viz_list *l, viz_kind kind, float x, float y, float w, float h) {
    size_t cap = (size_t)l->cap;
    if (!grow(l, (void **)&l->cmds, &cap, (size_t)l->count + 1, sizeof(viz_cmd))) return NULL;
    l->cap = (int)cap;
    viz_cmd *c = &l->cmds[l->count++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->x = x;
    c->y = y;
    c->w = w;
    c->h = h;
    return c;
}

void viz_fill(viz_list *l, float x, float y, float w, float h, viz_rgba col) {
    viz_cmd *c = push(l, VIZ_FILL, x, y, w, h);
    if (c) c->color = col;
}

void viz_stroke(viz_list *l, float x, float y, float w, float h, float thick, viz_rgba col) {
    viz_cmd *c = push(l, VIZ_STROKE, x, y, w, h);
    if (c) {
        c->color = col;
        c->thick = thick;
    }
}

void viz_line(viz_list *l, float x, float y, float x2, float y2, float thick, viz_rgba col) {
    viz_cmd *c = push(l, VIZ_LINE, x, y, 0, 0);
    if (c) {
        c->x2 = x2;
        c->y2 = y2;
        c->thick = thick;
        c->color = col;
    }
}

void viz_text(viz_list *l, float x, float y, float w, float h, const char *text, float size,
              int align, viz_rgba col) {
    viz_text_font(l, x, y, w, h, text, size, align, col, VIZ_FONT_SANS);
}

void viz_text_font(viz_list *l, float x, float y, float w, float h, const char *text, float size,
                   int align, viz_rgba col, viz_font font) {
    size_t len = strlen(text);
    if (!grow(l, (void **)&l->strings, &l->str_cap, l->str_len + len + 1, 1)) return;
    viz_cmd *c = push(l, VIZ_TEXT, x, y, w, h);
    if (!c) return;
    c->str = (uint32_t)l->str_len;
    memcpy(l->strings + l->str_len, text, len + 1);
    l->str_len += len + 1;
    c->size = size;
    c->align = align;
    c->color = col;
    c->font = font;
}

viz_rgba *viz_grid(viz_list *l, float x, float y, float w, float h, int rows, int cols) {
    size_t count = (size_t)rows * (size_t)cols;
    if (!grow(l, (void **)&l->cells, &l->cell_cap, l->cell_len + count, sizeof(viz_rgba))) return NULL;
    viz_cmd *c = push(l, VIZ_GRID, x, y, w, h);
    if (!c) return NULL;
    c->cells = (uint32_t)l->cell_len;
    c->rows = rows;
    c->cols = cols;
    l->cell_len += count;
    return l->cells + c->cells;
}

void viz_clip(viz_list *l, float x, float y, float w, float h) {
    push(l, VIZ_CLIP, x, y, w, h);
}

void viz_hit_region(viz_list *l, float x, float y, float w, float h, viz_hit hit) {
    viz_cmd *c = push(l, VIZ_HIT, x, y, w, h);
    if (c) c->hit = hit;
}

const char *viz_cmd_text(const viz_list *l, const viz_cmd *c) {
    return l->strings + c->str;
}

const viz_rgba *viz_cmd_cells(const viz_list *l, const viz_cmd *c) {
    return l->cells + c->cells;
}

viz_hit viz_hit_test(const viz_list *l, float x, float y) {
    for (int i = l->count - 1; i >= 0; i--) {
        const viz_cmd *c = &l->cmds[i];
        if (c->kind == VIZ_HIT && x >= c->x && x < c->x + c->w && y >= c->y && y < c->y + c->h)
            return c->hit;
    }
    viz_hit none = {.kind = VIZ_HIT_NONE};
    return none;
}
