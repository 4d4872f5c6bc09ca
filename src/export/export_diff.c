/* export_diff.c — which commands two display lists share. Two commands are
 * equal when they draw (or, for HIT, mean) the same: same kind, geometry,
 * colour, text and cell colours, wherever their text or cells sit in the
 * pools. The match is a longest common subsequence by Myers' O(ND)
 * algorithm: views of one figure differ in a few commands (a query's row
 * outline, its labels, its lines), so D stays small. */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_internal.h"
#include "hash.h"

#define MAX_EDITS 3000 /* beyond this the lists are too unlike to be worth matching */

uint64_t ex_cmd_hash(const viz_list *l, const viz_cmd *c) {
    float f[8] = {c->x, c->y, c->w, c->h, c->x2, c->y2, c->thick, c->size};
    int n[5] = {(int)c->kind, c->align, c->rows, c->cols, 0};
    uint64_t h = attn_fnv1a(ATTN_FNV_OFFSET, f, sizeof f);
    h = attn_fnv1a(h, n, sizeof n);
    h = attn_fnv1a(h, &c->color, sizeof c->color);
    if (c->kind == VIZ_TEXT) {
        const char *s = viz_cmd_text(l, c);
        h = attn_fnv1a(h, s, strlen(s));
    } else if (c->kind == VIZ_GRID) { // at most 64 cells, evenly spread: equal grids still hash alike,
        // and a 64×64 grid is not read whole for every view (ex_cmd_equal compares all of them)
        const viz_rgba *cells = viz_cmd_cells(l, c);
        size_t n = (size_t)c->rows * (size_t)c->cols, stride = n > 64 ? n / 64 : 1;
        for (size_t i = 0; i < n; i += stride) h = attn_fnv1a(h, &cells[i], sizeof *cells);
    } else if (c->kind == VIZ_HIT) {
        h = attn_fnv1a(h, &c->hit, sizeof c->hit); // viz_hit's unused fields are 0: it hashes as it compares
    }
    return h;
}

bool ex_cmd_equal(const viz_list *la, const viz_cmd *a, const viz_list *lb, const viz_cmd *b) {
    if (a->kind != b->kind || a->x != b->x || a->y != b->y || a->w != b->w || a->h != b->h || a->x2 != b->x2 ||
        a->y2 != b->y2 || a->thick != b->thick || a->size != b->size || a->align != b->align ||
        a->rows != b->rows || a->cols != b->cols || memcmp(&a->color, &b->color, sizeof a->color) != 0)
        return false;
    if (a->kind == VIZ_TEXT) return strcmp(viz_cmd_text(la, a), viz_cmd_text(lb, b)) == 0;
    if (a->kind == VIZ_GRID)
        return memcmp(viz_cmd_cells(la, a), viz_cmd_cells(lb, b), sizeof(viz_rgba) * (size_t)a->rows * (size_t)a->cols) == 0;
    if (a->kind == VIZ_HIT) return memcmp(&a->hit, &b->hit, sizeof a->hit) == 0;
    return true;
}

/* The two lists and their commands' hashes. */
typedef struct {
    const viz_list *a, *b;
    uint64_t *ha, *hb;
} pair;

static bool same(const pair *p, int i, int j) {
    return p->ha[i] == p->hb[j] && ex_cmd_equal(p->a, &p->a->cmds[i], p->b, &p->b->cmds[j]);
}

#define NONE (-1) /* a diagonal no path reaches yet */

/* Round d's start on diagonal k from round d - 1 (prev): one step down (an
 * insertion from b) or right (a deletion from a), whichever reaches further
 * and stays inside the n×m grid. Sets *down; returns x, or NONE. */
static int step(const int *prev, int d, int k, int n, int m, bool *down) {
    int dx = k + 1 <= d - 1 && prev[k + 1] != NONE && prev[k + 1] - k <= m ? prev[k + 1] : NONE;
    int rx = k - 1 >= -(d - 1) && prev[k - 1] != NONE && prev[k - 1] + 1 <= n ? prev[k - 1] + 1 : NONE;
    *down = dx != NONE && dx >= rx;
    return *down ? dx : rx;
}

/* Forward pass: V of every round d into hist (round d at hist[d*d], k from -d).
 * Returns the number of rounds D, or -1 (out of memory, or over MAX_EDITS). */
static int forward(const pair *p, int **hist_out) {
    int n = p->a->count, m = p->b->count, *hist = NULL;
    for (int d = 0; d <= n + m && d <= MAX_EDITS; d++) {
        int *h = realloc(hist, sizeof *h * (size_t)(d + 1) * (size_t)(d + 1));
        if (!h) break;
        hist = h;
        int *v = hist + (size_t)d * d + d, *prev = d ? hist + (size_t)(d - 1) * (d - 1) + (d - 1) : NULL;
        for (int k = -d; k <= d; k += 2) {
            bool down;
            int x = d == 0 ? 0 : step(prev, d, k, n, m, &down), y = x - k;
            if (x != NONE)
                while (x < n && y < m && same(p, x, y)) x++, y++;
            v[k] = x;
            if (x >= n && y >= m) {
                *hist_out = hist;
                return d;
            }
        }
    }
    free(hist);
    return -1;
}

/* Walks back from (n, m) over the rounds, recording the diagonal moves. */
static void backtrack(const pair *p, const int *hist, int rounds, int *match) {
    int x = p->a->count, y = p->b->count;
    for (int d = rounds; d >= 0; d--) {
        int k = x - y, px = 0, py = 0, mx = 0, my = 0;
        if (d > 0) {
            bool down;
            mx = step(hist + (size_t)(d - 1) * (d - 1) + (d - 1), d, k, p->a->count, p->b->count, &down);
            my = mx - k; // where this round's snake starts, one step from (px, py)
            px = down ? mx : mx - 1;
            py = down ? my - 1 : my;
        }
        while (x > mx && y > my) match[--x] = --y;
        x = px;
        y = py;
    }
}

/* l's commands [from, to) as a list of their own (the pools are l's). */
static viz_list slice(const viz_list *l, int from, int to) {
    viz_list s = *l;
    s.cmds = l->cmds + from;
    s.count = to - from;
    return s;
}

bool ex_diff(const viz_list *a, const viz_list *b, int *match) {
    // the views of a figure share long runs at both ends (a hovered cell adds a few commands near the
    // end): those are matched by comparing, and only the middle is hashed and searched
    int head = 0, ta = a->count, tb = b->count;
    while (head < ta && head < tb && ex_cmd_equal(a, &a->cmds[head], b, &b->cmds[head])) head++;
    while (ta > head && tb > head && ex_cmd_equal(a, &a->cmds[ta - 1], b, &b->cmds[tb - 1])) ta--, tb--;
    viz_list ma = slice(a, head, ta), mb = slice(b, head, tb);
    pair p = {&ma, &mb, malloc(sizeof(uint64_t) * (size_t)(ma.count + 1)), malloc(sizeof(uint64_t) * (size_t)(mb.count + 1))};
    int *hist = NULL, rounds = -1;
    for (int i = 0; i < a->count; i++) match[i] = i < head ? i : i >= ta ? i - ta + tb
                                                                         : -1;
    if (p.ha && p.hb) {
        for (int i = 0; i < ma.count; i++) p.ha[i] = ex_cmd_hash(&ma, &ma.cmds[i]);
        for (int j = 0; j < mb.count; j++) p.hb[j] = ex_cmd_hash(&mb, &mb.cmds[j]);
        rounds = forward(&p, &hist);
    }
    if (rounds >= 0) {
        backtrack(&p, hist, rounds, match + head);
        for (int i = head; i < ta; i++)
            if (match[i] >= 0) match[i] += head; // the middle's indices are b's
    }
    free(hist);
    free(p.ha);
    free(p.hb);
    if (rounds < 0)
        for (int i = 0; i < a->count; i++) match[i] = -1; // as promised: every match -1
    return rounds >= 0;
}
