/* viz_damage.c — signatures of display lists and the damage between two. */
#include "viz_damage.h"

#include "hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOOKAHEAD 64   /* how far the matcher looks for a moved command */
#define MERGE_GAP 8    /* rectangles this close are redrawn as one */
#define FULL_SHARE 0.5 /* beyond this share of the canvas, redraw all of it */

int viz_iround(float v) {
    if (!(v > -VIZ_COORD_LIMIT)) return (int)-VIZ_COORD_LIMIT; // also catches NaN
    if (v > VIZ_COORD_LIMIT) return (int)VIZ_COORD_LIMIT;
    return (int)lroundf(v);
}

viz_irect viz_box_pixels(float x, float y, float w, float h) {
    int x0 = viz_iround(x), y0 = viz_iround(y), x1 = viz_iround(x + w), y1 = viz_iround(y + h);
    viz_irect r = {x0, y0, x1 - x0, y1 - y0};
    if (r.w < 0) r.w = 0;
    if (r.h < 0) r.h = 0;
    return r;
}

viz_irect viz_irect_clip(viz_irect a, viz_irect b) {
    int x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
    int x1 = a.x + a.w < b.x + b.w ? a.x + a.w : b.x + b.w;
    int y1 = a.y + a.h < b.y + b.h ? a.y + a.h : b.y + b.h;
    viz_irect r = {x0, y0, x1 - x0, y1 - y0};
    if (r.w <= 0 || r.h <= 0) r.w = r.h = 0;
    return r;
}

static bool empty(viz_irect r) {
    return r.w <= 0 || r.h <= 0;
}

viz_irect viz_cmd_box(const viz_cmd *c) {
    viz_irect none = {0, 0, 0, 0};
    switch (c->kind) {
    case VIZ_FILL:
    case VIZ_GRID: return viz_box_pixels(c->x, c->y, c->w, c->h);
    case VIZ_STROKE: return c->thick > 0 ? viz_box_pixels(c->x, c->y, c->w, c->h) : none;
    case VIZ_LINE: {
        if (!(c->thick > 0)) return none;
        float pad = (c->thick > 1 ? c->thick : 1) / 2 + 2; // lines are at least a pixel wide
        float x0 = fminf(c->x, c->x2), x1 = fmaxf(c->x, c->x2), y0 = fminf(c->y, c->y2), y1 = fmaxf(c->y, c->y2);
        return viz_box_pixels(x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad);
    }
    default: return none;
    }
}

/* ---- hashing: FNV-1a over the fields that decide a command's pixels ---- */

static uint64_t mix(uint64_t h, const void *p, size_t n) {
    return attn_fnv1a(h, p, n);
}

static uint64_t mix_f(uint64_t h, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return mix(h, &bits, sizeof bits);
}

static uint64_t cmd_hash(const viz_list *l, const viz_cmd *c, viz_irect clip) {
    uint64_t h = ATTN_FNV_OFFSET;
    int ints[7] = {(int)c->kind, c->align, clip.x, clip.y, clip.w, clip.h, c->kind == VIZ_TEXT ? (int)c->font : 0};
    h = mix(h, ints, sizeof ints);
    const float fs[8] = {c->x, c->y, c->w, c->h, c->x2, c->y2, c->thick, c->size};
    for (int i = 0; i < 8; i++) h = mix_f(h, fs[i]);
    h = mix(h, &c->color, sizeof c->color);
    if (c->kind == VIZ_TEXT) {
        const char *s = viz_cmd_text(l, c);
        h = mix(h, s, strlen(s) + 1);
    } else if (c->kind == VIZ_GRID && c->rows > 0 && c->cols > 0) {
        int shape[2] = {c->rows, c->cols};
        h = mix(h, shape, sizeof shape);
        h = mix(h, viz_cmd_cells(l, c), sizeof(viz_rgba) * (size_t)c->rows * (size_t)c->cols);
    }
    return h;
}

/* ---- signatures ---- */

static int find(const viz_sig *s, int from, uint64_t h);

static bool push(viz_sig *s, uint64_t hash, viz_irect box) {
    if (s->count == s->cap) {
        int cap = s->cap ? s->cap * 2 : 256;
        viz_sig_item *p = realloc(s->items, sizeof *p * (size_t)cap);
        if (!p) return false;
        s->items = p;
        s->cap = cap;
    }
    s->items[s->count++] = (viz_sig_item){hash, box};
    return true;
}

/* The index of hash h in prev from *at on (within LOOKAHEAD), moving *at past
 * it; -1 when it is not there. Frames mostly keep their commands in order. */
static int seen_before(const viz_sig *prev, int *at, uint64_t h) {
    if (!prev) return -1;
    int k = find(prev, *at, h);
    if (k >= 0) *at = k + 1;
    return k;
}

bool viz_sig_build_after(viz_sig *s, const viz_sig *prev, const viz_list *l, int w, int h, viz_text_box_fn text_box,
                         void *ctx) {
    viz_irect canvas = {0, 0, w > 0 ? w : 0, h > 0 ? h : 0}, clip = canvas;
    s->count = 0;
    s->w = canvas.w;
    s->h = canvas.h;
    for (int i = 0, at = 0; l && i < l->count; i++) {
        const viz_cmd *c = &l->cmds[i];
        if (c->kind == VIZ_HIT) continue; // draws nothing
        if (c->kind == VIZ_CLIP) {
            clip = c->w <= 0 ? canvas : viz_irect_clip(viz_box_pixels(c->x, c->y, c->w, c->h), canvas);
            continue;
        }
        uint64_t hash = cmd_hash(l, c, clip);
        int k = seen_before(prev, &at, hash);
        viz_irect box;
        if (k >= 0 && c->kind == VIZ_TEXT) {
            box = prev->items[k].box; // the same text in the same place and clip: its box again, not measured
        } else {
            box = viz_cmd_box(c);
            if (c->kind == VIZ_TEXT && !(text_box && text_box(ctx, l, c, &box))) box = canvas;
            box = viz_irect_clip(box, clip);
        }
        if (empty(box)) continue; // touches no pixel: cannot make a difference
        if (!push(s, hash, box)) {
            s->count = 0;
            return false;
        }
    }
    return !(l && l->failed);
}

bool viz_sig_build(viz_sig *s, const viz_list *l, int w, int h, viz_text_box_fn text_box, void *ctx) {
    return viz_sig_build_after(s, NULL, l, w, h, text_box, ctx);
}

void viz_sig_free(viz_sig *s) {
    if (!s) return;
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* ---- damage: rectangles merged as they come ---- */

typedef struct {
    viz_irect *r;
    int n, cap;
} rects;

viz_irect viz_irect_union(viz_irect a, viz_irect b) {
    int x0 = a.x < b.x ? a.x : b.x, y0 = a.y < b.y ? a.y : b.y;
    int x1 = a.x + a.w > b.x + b.w ? a.x + a.w : b.x + b.w;
    int y1 = a.y + a.h > b.y + b.h ? a.y + a.h : b.y + b.h;
    return (viz_irect){x0, y0, x1 - x0, y1 - y0};
}

static bool near(viz_irect a, viz_irect b) {
    return a.x <= b.x + b.w + MERGE_GAP && b.x <= a.x + a.w + MERGE_GAP && a.y <= b.y + b.h + MERGE_GAP &&
           b.y <= a.y + a.h + MERGE_GAP;
}

static double area(viz_irect r) {
    return (double)r.w * (double)r.h;
}

static void take(rects *d, int i) {
    d->r[i] = d->r[--d->n];
}

/* Adds r, merging it with every rectangle near it; when the list is full, with
 * the one whose union grows least. */
static void add(rects *d, viz_irect r) {
    if (empty(r)) return;
    for (;;) {
        int hit = -1;
        for (int i = 0; i < d->n && hit < 0; i++)
            if (near(d->r[i], r)) hit = i;
        if (hit < 0 && d->n < d->cap) break;
        if (hit < 0) {
            double best = 0;
            for (int i = 0; i < d->n; i++) {
                double grow = area(viz_irect_union(d->r[i], r)) - area(d->r[i]);
                if (hit < 0 || grow < best) hit = i, best = grow;
            }
        }
        r = viz_irect_union(r, d->r[hit]);
        take(d, hit);
    }
    d->r[d->n++] = r;
}

/* The first index in [from, from + LOOKAHEAD) of s whose hash is h, or -1. */
static int find(const viz_sig *s, int from, uint64_t h) {
    int end = from + LOOKAHEAD < s->count ? from + LOOKAHEAD : s->count;
    for (int i = from; i < end; i++)
        if (s->items[i].hash == h) return i;
    return -1;
}

/* Greedy in-order matching: a command found a little further on in the other
 * list is matched, and the ones skipped over are damage. */
static void match(const viz_sig *b, const viz_sig *a, rects *d) {
    int i = 0, j = 0; // i in after, j in before
    while (i < a->count && j < b->count) {
        if (a->items[i].hash == b->items[j].hash) {
            i++, j++;
            continue;
        }
        int p = find(b, j + 1, a->items[i].hash), q = find(a, i + 1, b->items[j].hash);
        if (p >= 0 && (q < 0 || p - j <= q - i)) {
            for (; j < p; j++) add(d, b->items[j].box); // gone
        } else if (q >= 0) {
            for (; i < q; i++) add(d, a->items[i].box); // new
        } else {
            add(d, b->items[j++].box); // replaced
            add(d, a->items[i++].box);
        }
    }
    for (; j < b->count; j++) add(d, b->items[j].box);
    for (; i < a->count; i++) add(d, a->items[i].box);
}

int viz_damage(const viz_sig *before, const viz_sig *after, viz_irect *out, int cap) {
    viz_irect canvas = {0, 0, after->w, after->h};
    if (empty(canvas) || cap < 1) return 0; // nothing to draw, or nowhere to say so
    if (cap < VIZ_DAMAGE_MAX) cap = 1;
    bool full = cap == 1 || !before || before->w != after->w || before->h != after->h || before->count == 0;
    rects d = {out, 0, cap < VIZ_DAMAGE_MAX ? cap : VIZ_DAMAGE_MAX};
    if (!full) {
        match(before, after, &d);
        double sum = 0;
        for (int i = 0; i < d.n; i++) {
            d.r[i] = viz_irect_clip(d.r[i], canvas);
            sum += area(d.r[i]);
        }
        full = sum > FULL_SHARE * area(canvas);
    }
    if (!full) {
        int n = 0; // merged rectangles may be empty after clipping
        for (int i = 0; i < d.n; i++)
            if (!empty(d.r[i])) out[n++] = d.r[i];
        return n;
    }
    out[0] = canvas;
    return 1;
}
