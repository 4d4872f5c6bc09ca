/* viz_tiles.c — the tiles view (F4, issue 24 part 4): FlashAttention's
 * online softmax of the shown head, one step at a time. On the left the
 * blocks (done, this one, skipped, to come), the bytes held and the check
 * against Z; on the right this step's block of scores, m, ℓ and O before and
 * after it; below, the hovered cell's rescaling with its numbers. Every
 * number is the core's record (attn_tiles.h); the arithmetic shown recomputes
 * the terms with the core's exp. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_math.h"
#include "viz_internal.h"
#include "viz_strings.h"

/* A number of the arithmetic: −∞, or 4 significant digits. */
static void num(char *buf, size_t cap, double v) {
    if (v == -INFINITY) snprintf(buf, cap, "−∞");
    else snprintf(buf, cap, "%.4g", v);
}

/* The block map: blocks × blocks squares in b, this step's outlined. */
static void block_map(const viz_ctx *c, viz_box b, const attn_tiles *tl, int at) {
    float cs = fminf(b.w, b.h) / tl->blocks;
    for (int i = 0; i < tl->count; i++) {
        const attn_tile_step *st = &tl->steps[i];
        float x = b.x + st->kb * cs, y = b.y + st->qb * cs;
        viz_rgba col = st->skipped ? c->th->masked : i < at ? viz_mix(c->th->panel2, c->th->accent, 0.35f)
                                                 : i == at  ? c->th->accent
                                                            : c->th->panel2;
        viz_fill(c->l, x + 1, y + 1, cs - 2, cs - 2, col);
        if (st->skipped && cs >= 6) viz_line(c->l, x + 2, y + cs - 2, x + cs - 2, y + 2, 1.0f, c->th->masked_hatch);
    }
    const attn_tile_step *cur = &tl->steps[at];
    viz_stroke(c->l, b.x + cur->kb * cs, b.y + cur->qb * cs, cs, cs, 3 * c->u, c->th->highlight);
    viz_stroke(c->l, b.x, b.y, cs * tl->blocks, cs * tl->blocks, 1, c->th->line);
}

/* One matrix of the step at (x, y), cells cs; returns its width. */
#define VEC_W 1.6f /* a column of m or ℓ is this many cells wide: room for "10.81" */

static float step_mat(const viz_ctx *c, float x, float y, float cs, const double *v, int rows, int cols, int stage,
                      viz_str title) {
    float cw = cols == 1 ? cs * VEC_W : cs;
    viz_mat m = {.v = v, .rows = rows, .cols = cols, .stage = stage, .title = viz_s(c, title), .map = VIZ_MAP_SIGNED, .range = viz_abs_max(v, (size_t)rows * cols), .own_range = true, .weight_of = -1, .cw = cw, .ch = cs, .title_up = c->small * 1.8f};
    viz_mat_draw(c, &m, x, y, cs);
    return fmaxf(cw * cols, viz_text_w(c, m.title, c->small) + 4 * c->u);
}

/* Σ_j e^(s_j − m) of row r of the step, and Σ_j e^(s_j − m)·v_j[col] (col ≥ 0). */
static double block_sum(const attn_tile_step *st, const attn_trace *t, int head, int r, int col, double m) {
    int cols = st->c1 - st->c0, d = t->cfg.d_k;
    double sum = 0.0;
    for (int j = 0; j < cols; j++) {
        double s = st->s[(size_t)r * cols + j];
        if (s == -INFINITY) continue;
        double p = attn_exp(s - m);
        sum += col < 0 ? p : p * t->head[head].v[(size_t)(st->c0 + j) * d + col];
    }
    return sum;
}

/* The arithmetic of cell (row r, column col) of the step's matrix `stage`
 * into out (cap bytes). */
static void hover_text(const viz_ctx *c, char *out, size_t cap, const attn_tiles *tl, int at, int stage, int r, int col) {
    const viz_scene *s = c->s;
    const attn_tile_step *st = &tl->steps[at];
    const attn_trace *t = s->trace;
    int d = tl->d, head = s->head < t->cfg.heads ? s->head : 0;
    int rows = st->r1 - st->r0;
    char a[32], b[32], e[32], f[32], g[32], h[32], k[32], tok[64], key[64];
    out[0] = '\0';
    if (r < 0 || r >= rows) return;
    if (st->skipped) {
        snprintf(out, cap, "%s", viz_s(c, VIZ_S_TILES_XP_SKIP));
        return;
    }
    double m_old = st->m_old[r], m = st->m[r], alpha = m_old == -INFINITY ? 0.0 : attn_exp(m_old - m);
    size_t used = 0;
    if (m == -INFINITY && stage != VIZ_TILE_S) {
        snprintf(out, cap, "%s", viz_s(c, VIZ_S_TILES_XP_NONE));
        return;
    }
    switch (stage) {
    case VIZ_TILE_S:
        attn_token_label(&t->tokens, st->r0 + r, 12, tok, sizeof tok);
        attn_token_label(&t->tokens, st->c0 + col, 12, key, sizeof key);
        num(a, sizeof a, st->s[(size_t)r * (st->c1 - st->c0) + col]);
        used = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_TILES_XP_S), tok, key, a);
        break;
    case VIZ_TILE_M:
    case VIZ_TILE_M_OLD: {
        double mx = -INFINITY;
        for (int j = 0; j < st->c1 - st->c0; j++) mx = fmax(mx, st->s[(size_t)r * (st->c1 - st->c0) + j]);
        num(a, sizeof a, m_old), num(b, sizeof b, mx), num(e, sizeof e, m);
        used = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_TILES_XP_M), a, b, e);
        break;
    }
    case VIZ_TILE_L:
    case VIZ_TILE_L_OLD:
        num(a, sizeof a, m_old), num(b, sizeof b, m), num(e, sizeof e, st->l_old[r]);
        num(f, sizeof f, block_sum(st, t, head, r, -1, m)), num(g, sizeof g, alpha), num(h, sizeof h, st->l[r]);
        used = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_TILES_XP_L), a, b, e, f, g, e, f, h);
        break;
    default: // O before or after, column col
        if (col < 0 || col >= d) return;
        num(a, sizeof a, alpha), num(b, sizeof b, st->o_old[(size_t)r * d + col]);
        num(e, sizeof e, block_sum(st, t, head, r, col, m)), num(f, sizeof f, st->o[(size_t)r * d + col]);
        used = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_TILES_XP_O), a, b, e, f);
        if (st->kb == tl->blocks - 1 && used < cap) { // the last key block: O/ℓ is z
            num(a, sizeof a, st->o[(size_t)r * d + col]), num(b, sizeof b, st->l[r]);
            num(e, sizeof e, tl->z[(size_t)(st->r0 + r) * d + col]);
            num(k, sizeof k, t->head[head].z[(size_t)(st->r0 + r) * d + col]);
            used += (size_t)snprintf(out + used, cap - used, "\n");
            used += (size_t)snprintf(out + used, cap - used, viz_s(c, VIZ_S_TILES_XP_Z), a, b, e, k);
        }
        break;
    }
    if (m_old == -INFINITY && stage != VIZ_TILE_S && used < cap)
        snprintf(out + used, cap - used, "\n%s", viz_s(c, VIZ_S_TILES_XP_FIRST));
}

/* This step's matrices in a row: S, m before and after, ℓ before and after,
 * O before and after, with the rows' tokens on the left. */
static void step_row(const viz_ctx *c, viz_box b, const attn_tiles *tl, int at) {
    const attn_tile_step *st = &tl->steps[at];
    const attn_trace *t = c->s->trace;
    int rows = st->r1 - st->r0, cols = st->c1 - st->c0, d = tl->d;
    float label_w = 70 * c->u, gap = 18 * c->u, top = c->small * 2.2f;
    // the largest cells (at most 64 units) at which the seven matrices and their titles fit across
    static const viz_str titles[7] = {VIZ_S_TILES_MAT_S, VIZ_S_TILES_MAT_M_OLD, VIZ_S_TILES_MAT_M, VIZ_S_TILES_MAT_L_OLD,
                                      VIZ_S_TILES_MAT_L, VIZ_S_TILES_MAT_O_OLD, VIZ_S_TILES_MAT_O};
    const float across[7] = {(float)cols, VEC_W, VEC_W, VEC_W, VEC_W, (float)d, (float)d};
    float cs = fminf((b.h - top) / rows, 64 * c->u);
    for (int tries = 0; tries < 60; tries++, cs *= 0.95f) {
        float need = label_w + 6 * gap;
        for (int i = 0; i < 7; i++) need += fmaxf(cs * across[i], viz_text_w(c, viz_s(c, titles[i]), c->small) + 4 * c->u);
        if (need <= b.w) break;
    }
    if (cs < 4) return;
    float x = b.x + label_w, y = b.y + top;
    for (int r = 0; r < rows; r++) { // the query rows' tokens
        char tok[64];
        attn_token_label(&t->tokens, st->r0 + r, 8, tok, sizeof tok);
        viz_label(c, b.x, y + r * cs, label_w - 6 * c->u, cs, tok, fminf(c->small, cs * 0.8f), VIZ_RIGHT | VIZ_MIDDLE,
                  c->th->text);
    }
    if (st->s) x += step_mat(c, x, y, cs, st->s, rows, cols, VIZ_TILE_S, VIZ_S_TILES_MAT_S) + gap;
    else { // skipped: nothing computed, nothing held
        viz_fill(c->l, x, y, cs * cols, cs * rows, c->th->masked);
        viz_line(c->l, x, y + cs * rows, x + cs * cols, y, 1.5f, c->th->masked_hatch);
        viz_label(c, x, y - c->small * 1.8f, cs * cols + gap, c->small * 1.4f, viz_s(c, VIZ_S_TILES_MAT_S), c->small,
                  VIZ_LEFT | VIZ_MIDDLE, c->th->text);
        x += cs * cols + gap;
    }
    x += step_mat(c, x, y, cs, st->m_old, rows, 1, VIZ_TILE_M_OLD, VIZ_S_TILES_MAT_M_OLD) + gap;
    x += step_mat(c, x, y, cs, st->m, rows, 1, VIZ_TILE_M, VIZ_S_TILES_MAT_M) + gap;
    x += step_mat(c, x, y, cs, st->l_old, rows, 1, VIZ_TILE_L_OLD, VIZ_S_TILES_MAT_L_OLD) + gap;
    x += step_mat(c, x, y, cs, st->l, rows, 1, VIZ_TILE_L, VIZ_S_TILES_MAT_L) + gap;
    x += step_mat(c, x, y, cs, st->o_old, rows, d, VIZ_TILE_O_OLD, VIZ_S_TILES_MAT_O_OLD) + gap;
    step_mat(c, x, y, cs, st->o, rows, d, VIZ_TILE_O, VIZ_S_TILES_MAT_O);
}

void viz_tiles_overlay(const viz_ctx *c) {
    const viz_scene *s = c->s;
    const attn_tiles *tl = s->tiles;
    const attn_trace *t = s->trace;
    int at = s->tiles_step < 0 ? 0 : s->tiles_step >= tl->count ? tl->count - 1
                                                                : s->tiles_step;
    const attn_tile_step *st = &tl->steps[at];
    viz_hit_region(c->l, 0, 0, (float)s->width, (float)s->height, (viz_hit){.kind = VIZ_HIT_NONE}); // nothing under it
    viz_fill(c->l, 0, 0, (float)s->width, (float)s->height, viz_alpha(c->th->bg, 230));
    float w = s->width * 0.9f, h = s->height * 0.88f, x = (s->width - w) / 2, y = (s->height - h) / 2, pad = 20 * c->u;
    viz_fill(c->l, x, y, w, h, c->th->panel);
    viz_stroke(c->l, x, y, w, h, 2 * c->u, c->th->accent);
    char buf[1024], a[32], b[32], e[32];
    int head = s->head < t->cfg.heads ? s->head : 0;
    snprintf(buf, sizeof buf, viz_s(c, VIZ_S_TILES_TITLE), head + 1, tl->b < tl->n ? tl->b : tl->n);
    viz_label(c, x + pad, y + pad, w - 2 * pad, c->big * 1.5f, buf, c->big, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    snprintf(buf, sizeof buf, viz_s(c, st->skipped ? VIZ_S_TILES_STEP_SKIPPED : VIZ_S_TILES_STEP), at + 1, tl->count,
             st->r0 + 1, st->r1, st->c0 + 1, st->c1);
    float ly = y + pad + c->big * 1.7f;
    viz_label(c, x + pad, ly, w - 2 * pad, c->body * 1.5f, buf, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    // the hover's arithmetic (or the keys) at the bottom, above the close line
    float foot = c->small * 1.6f, arith_h = c->body * 4.6f;
    float bottom = y + h - pad - foot - arith_h - 10 * c->u, top = ly + c->body * 2.2f;
    // left: the blocks, then the bytes and the check
    float lw = fminf(w * 0.24f, (bottom - top) * 0.5f), lab_w = lw + 40 * c->u; // the caption wraps, never cut
    float lab_h = viz_wrap_ex(c, (viz_box){x + pad, 0, lab_w, 1e6f}, viz_s(c, VIZ_S_TILES_BLOCKS), c->small, 0, 0,
                              c->th->muted, false);
    viz_wrap(c, (viz_box){x + pad, top, lab_w, lab_h}, viz_s(c, VIZ_S_TILES_BLOCKS), c->small, 0, c->th->muted);
    float map_y = top + lab_h + c->small * 0.4f;
    block_map(c, (viz_box){x + pad, map_y, lw, lw}, tl, at);
    viz_thousands(a, sizeof a, st->bytes), viz_thousands(b, sizeof b, tl->max_bytes), viz_thousands(e, sizeof e, tl->full_bytes);
    size_t used = (size_t)snprintf(buf, sizeof buf, viz_s(c, VIZ_S_TILES_BYTES), a, b, e);
    double diff = attn_tiles_rel_diff(tl->z, t->head[head].z, (size_t)tl->n * tl->d);
    if (used + 1 < sizeof buf) buf[used++] = '\n', buf[used] = '\0';
    snprintf(buf + used, sizeof buf - used, viz_s(c, VIZ_S_TILES_CHECK), diff);
    float my = map_y + lw + 12 * c->u;
    viz_wrap(c, (viz_box){x + pad, my, fmaxf(lw + 30 * c->u, w * 0.26f), bottom - my}, buf, c->small, 0, c->th->text);
    // right: the step
    float rx = x + pad + lw + 50 * c->u;
    step_row(c, (viz_box){rx, top, x + w - pad - rx, bottom - top}, tl, at);
    // bottom: the hovered cell's rescaling, or what the keys do
    viz_box ab = {x + pad, bottom + 10 * c->u, w - 2 * pad, arith_h};
    viz_fill(c->l, ab.x - 6 * c->u, ab.y - 4 * c->u, ab.w + 12 * c->u, ab.h + 4 * c->u, c->th->panel2);
    buf[0] = '\0';
    if (s->hover.kind == VIZ_HIT_CELL && viz_tile_stage(s->hover.stage))
        hover_text(c, buf, sizeof buf, tl, at, s->hover.stage, s->hover.row, s->hover.col);
    else if (c->figure && !st->skipped) // an exported figure has no mouse: the first row that sees a key, worked out
        for (int r = 0; r < st->r1 - st->r0 && !buf[0]; r++)
            if (st->m[r] != -INFINITY) hover_text(c, buf, sizeof buf, tl, at, VIZ_TILE_L, r, 0);
    if (!buf[0]) snprintf(buf, sizeof buf, "%s", viz_s(c, c->figure ? VIZ_S_TILES_XP_SKIP : VIZ_S_TILES_HINT));
    viz_wrap(c, ab, buf, c->body, 0, c->th->text);
    if (!c->figure) // the window's keys
        viz_text(c->l, x + pad, y + h - pad - foot * 0.9f, w - 2 * pad, foot * 0.9f, viz_s(c, VIZ_S_TILES_CLOSE),
                 c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
}
