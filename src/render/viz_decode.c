/* viz_decode.c — the decode view (F5, issue 24): the sentence generated one
 * token at a time with a KV cache. For the token shown it draws the K and V
 * caches of the head's kv-head (the new row outlined, the rows read from the
 * cache filled, the tokens not yet generated blank), the one row of scores,
 * weights and z computed for it, and which query heads share which K and V;
 * the narrative panel beside it says what it costs (app_view.c). Every cell is a hit
 * region named as the core names it, so the cell arithmetic explains it. */
#include <math.h>
#include <stdio.h>

#include "viz_internal.h"
#include "viz_strings.h"

void viz_decode_narrative(char *out, size_t cap, const char *const *ui, const attn_decode *d, int t) {
    int H = d->heads, G = d->kv_heads;
    const attn_decode_step *k = &d->step[t];
    size_t used = 0;
    long long real = attn_kv_cache_bytes(ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                                         ATTN_DECODE_REAL_TOKENS, ATTN_DECODE_REAL_BYTES);
    out[0] = '\0';
#define WORD(id) (ui && ui[id] ? ui[id] : viz_str_key(id))
#define PARA(id, ...) \
    do { \
        int r_ = used < cap ? snprintf(out + used, cap - used, "%s", used ? "\n\n" : "") : 0; \
        used += r_ > 0 ? (size_t)r_ : 0; \
        r_ = used < cap ? snprintf(out + used, cap - used, WORD(id), __VA_ARGS__) : 0; \
        used += r_ > 0 ? (size_t)r_ : 0; \
    } while (0)
    PARA(VIZ_S_DECODE_EXPLAIN, t + 1, k->cells);
    PARA(VIZ_S_DECODE_CELLS, k->cells, k->cells_read);
    PARA(VIZ_S_DECODE_MACS, k->macs, k->macs_total, k->full_macs, k->full_total);
    PARA(VIZ_S_DECODE_BYTES, d->layers, G, d->d_k, k->cache_len, k->cache_bytes);
    if (d->window > 0) // causal-window:W: what the sliding cache keeps and has evicted
        PARA(VIZ_S_DECODE_WINDOW, d->window, d->window + 1, k->cache_len, k->evicted + 1, t + 1, k->evicted, d->window);
    PARA(VIZ_S_DECODE_REAL, ATTN_DECODE_REAL_NAME, ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS,
         ATTN_DECODE_REAL_D_K, ATTN_DECODE_REAL_TOKENS, real >> 20);
    if (H > 1) PARA(VIZ_S_DECODE_GROUPS, H, G, H / G, H / G);
#undef PARA
#undef WORD
}

/* One row of cells at (x, y): count values v[0..count) of stage `stage`, head h,
 * row `row`, columns from col0; weights on the sequential map, the rest on
 * the diverging one over range. Returns the row's width. */
static float strip(const viz_ctx *c, float x, float y, float cw, float ch, const double *v, int count, int stage,
                   int h, int row, int col0, double range) {
    char buf[32];
    bool weights = stage == ATTN_ST_WEIGHTS, hide = c->s->hide_weights && stage >= ATTN_ST_SCORES; // a question open: the scores rank the keys as A does
    float px = fminf(ch / 1.6f, c->small);
    for (int j = 0; j < count; j++) {
        viz_rgba col = hide ? c->th->panel : weights ? viz_sequential(v[j])
                                                     : viz_diverging(range > 0 ? v[j] / range : 0);
        viz_fill(c->l, x + j * cw, y, cw, ch, col);
        viz_fill(c->l, x + j * cw + cw - 0.5f, y, 1, ch, viz_mix(c->th->panel, c->th->line, 0.35f));
        if (hide) continue;
        viz_format_value(buf, sizeof buf, v[j]);
        float fit = px;
        while (fit > 9 && viz_text_w(c, buf, fit) > cw - 2) fit -= 1; // a longer value a little smaller
        if (fit >= 9 && viz_text_w(c, buf, fit) <= cw - 2)
            viz_text(c->l, x + j * cw, y, cw, ch, buf, fit, VIZ_CENTER | VIZ_MIDDLE, viz_text_on(col));
        viz_hit_region(c->l, x + j * cw, y, cw, ch,
                       (viz_hit){.kind = VIZ_HIT_CELL, .stage = stage, .head = h, .row = row, .col = col0 + j});
    }
    return count * cw;
}

/* A cache (K or V of kv-head g, n rows of d_k) with rows [first, t] filled, row
 * t outlined, rows before first (outside a causal window: evicted from the
 * sliding cache) empty and struck out. */
static void cache(const viz_ctx *c, float x, float y, float cw, float ch, const double *m, int n, int dk, int t,
                  int first, int stage, int h, double range, const char *title) {
    viz_label(c, x, y - c->small * 1.7f, dk * cw + 20 * c->u, c->small * 1.5f, title, c->small, VIZ_LEFT | VIZ_MIDDLE,
              c->th->text);
    for (int r = 0; r < n; r++) {
        if (r > t) { // not generated yet: an empty row
            viz_stroke(c->l, x, y + r * ch, dk * cw, ch, 1, c->th->line);
            continue;
        }
        if (r < first) { // evicted: a real cache no longer holds it
            viz_stroke(c->l, x, y + r * ch, dk * cw, ch, 1, c->th->line);
            viz_line(c->l, x + 2 * c->u, y + r * ch + ch / 2, x + dk * cw - 2 * c->u, y + r * ch + ch / 2, 1.5f * c->u,
                     c->th->masked_hatch);
            continue;
        }
        strip(c, x, y + r * ch, cw, ch, m + (size_t)r * dk, dk, stage, h, r, 0, range);
    }
    viz_stroke(c->l, x - 1.5f * c->u, y + t * ch - 1.5f * c->u, dk * cw + 3 * c->u, ch + 3 * c->u, 2.5f * c->u, c->th->accent);
}

/* Which query heads read which kv-head: a box per query head above a box per
 * kv-head, joined; the head shown and its kv-head in the accent. Returns its
 * height (huge when w is too narrow); draws only when draw. */
float viz_kv_groups(const viz_ctx *c, float x, float y, float w, const attn_config *cfg, int shown, bool draw) {
    int H = cfg->heads, G = attn_kv_heads(cfg);
    float bw = fminf(60 * c->u, (w - 8 * c->u * H) / H), bh = c->small * 1.6f, gap = 34 * c->u;
    float height = c->small * 1.8f + 2 * bh + gap + c->small;
    if (bw < 18 * c->u) return 1e9f; // no room at this width
    if (!draw) return height;
    char buf[32];
    viz_label(c, x, y, w, c->small * 1.5f, viz_s(c, VIZ_S_DECODE_SHARE), c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    y += c->small * 1.8f;
    float step = bw + 8 * c->u, gstep = H * step / G;
    for (int g = 0; g < G; g++) { // the kv-heads, each centred under its group
        float gx = x + g * gstep + (gstep - bw) / 2 - 4 * c->u;
        bool on = attn_kv_head_of(cfg, shown) == g;
        for (int h = g * (H / G); h < (g + 1) * (H / G); h++)
            viz_line(c->l, x + h * step + bw / 2, y + bh, gx + bw / 2, y + bh + gap, (h == shown ? 2.5f : 1.2f) * c->u,
                     h == shown ? c->th->accent : c->th->muted);
        viz_fill(c->l, gx, y + bh + gap, bw, bh, on ? c->th->accent : c->th->panel2);
        snprintf(buf, sizeof buf, viz_s(c, VIZ_S_DECODE_KVHEAD), g + 1);
        viz_label(c, gx, y + bh + gap, bw, bh, buf, c->small * 0.85f, VIZ_CENTER | VIZ_MIDDLE,
                  on ? viz_text_on(c->th->accent) : c->th->text);
    }
    for (int h = 0; h < H; h++) {
        float hx = x + h * step;
        viz_fill(c->l, hx, y, bw, bh, h == shown ? c->th->accent : c->th->panel2);
        snprintf(buf, sizeof buf, viz_s(c, VIZ_S_DECODE_QHEAD), h + 1);
        viz_label(c, hx, y, bw, bh, buf, c->small * 0.85f, VIZ_CENTER | VIZ_MIDDLE,
                  h == shown ? viz_text_on(c->th->accent) : c->th->text);
    }
    return height;
}

void viz_decode_view(const viz_ctx *c, viz_box b, bool keys) {
    const viz_scene *s = c->s;
    const attn_trace *tr = s->trace;
    const attn_decode *d = s->decode;
    float pad = 16 * c->u, x = b.x + pad, y = b.y + pad, w = b.w - 2 * pad;
    char buf[512];
    int n = tr->n, t = s->query >= 0 && s->query < n ? s->query : n - 1, h = s->head < tr->cfg.heads ? s->head : 0;
    int len;
    const char *tok = attn_token_text(&tr->tokens, t, &len);
    char word[96];
    snprintf(word, sizeof word, "%.*s", len < 90 ? len : 90, tok);
    snprintf(buf, sizeof buf, viz_s(c, VIZ_S_DECODE_TITLE), t + 1, n, word);
    viz_label(c, x, y, w, c->big * 1.4f, buf, c->big, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    y += c->big * 1.6f;
    if (!d) {
        viz_wrap(c, (viz_box){x, y, w, b.h / 2}, viz_s(c, VIZ_S_DECODE_NEEDS_CAUSAL), c->body, 0, c->th->accent);
        return;
    }
    // the tokens: generated (in the cache), this one, not yet
    float chip = fminf(90 * c->u, w / n), chh = c->small * 1.7f;
    for (int i = 0; i < n; i++) {
        tok = attn_token_text(&tr->tokens, i, &len);
        snprintf(word, sizeof word, "%.*s", len < 90 ? len : 90, tok);
        viz_rgba bg = i == t ? c->th->accent : i < t ? c->th->panel2
                                                     : c->th->bg;
        viz_fill(c->l, x + i * chip + 1, y, chip - 2, chh, bg);
        if (i > t) viz_stroke(c->l, x + i * chip + 1, y, chip - 2, chh, 1, c->th->line);
        viz_label(c, x + i * chip + 2, y, chip - 4, chh, word, c->small, VIZ_CENTER | VIZ_MIDDLE,
                  i == t ? viz_text_on(c->th->accent) : i < t ? c->th->text
                                                              : c->th->muted);
        viz_hit_region(c->l, x + i * chip, y, chip, chh, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = i});
    }
    y += chh + c->small * 4.0f;
    int dk = d->d_k, g = attn_kv_head_of(&tr->cfg, h);
    viz_str legend = d->window > 0 ? VIZ_S_DECODE_LEGEND_WINDOW : VIZ_S_DECODE_LEGEND; // struck-out rows: only a sliding cache
    float legend_h = viz_wrap_ex(c, (viz_box){x, 0, w, 1e6f}, viz_s(c, legend), c->small, 0, 0, c->th->muted,
                                 false),
          keys_h = keys ? c->small * 1.5f : 0;
    float bottom = b.y + b.h - pad - legend_h - keys_h - c->small * 0.4f, label_w = 70 * c->u, top_bottom = bottom;
    float sh = fminf(c->small * 2.2f, 30 * c->u);
    // the caches on the left, the token's row on the right
    float ch = fminf(fminf(34 * c->u, (top_bottom - y) / n), c->small * 2.0f);
    float left_w = w * 0.46f, cw = fminf(fminf(60 * c->u, (left_w - label_w - 24 * c->u) / (2 * dk)), 3.2f * ch);
    double range = fmax(viz_abs_max(d->k_cache[g], (size_t)n * dk), viz_abs_max(d->v_cache[g], (size_t)n * dk));
    for (int r = 0; r < n; r++) { // the rows' tokens
        tok = attn_token_text(&tr->tokens, r, &len);
        snprintf(word, sizeof word, "%.*s", len < 90 ? len : 90, tok);
        viz_label(c, x, y + r * ch, label_w - 6 * c->u, ch, word, fminf(c->small, ch * 0.8f), VIZ_RIGHT | VIZ_MIDDLE,
                  r <= t && r >= d->step[t].first ? c->th->text : c->th->muted);
    }
    char title[160];
    snprintf(title, sizeof title, viz_s(c, VIZ_S_DECODE_KV_CAPTION), g + 1, d->kv_heads);
    viz_label(c, x + label_w, y - c->small * 3.4f, left_w - label_w, c->small * 1.5f, title, c->small,
              VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    cache(c, x + label_w, y, cw, ch, d->k_cache[g], n, dk, t, d->step[t].first, ATTN_ST_K, h, range,
          viz_s(c, VIZ_S_DECODE_K));
    cache(c, x + label_w + dk * cw + 24 * c->u, y, cw, ch, d->v_cache[g], n, dk, t, d->step[t].first, ATTN_ST_V, h, range,
          viz_s(c, VIZ_S_DECODE_V));
    // the token's one row of scores, weights and z
    float rx = x + left_w + 20 * c->u, rw = x + w - rx, ry = y;
    const attn_decode_step *st = &d->step[t];
    float sw = fminf(70 * c->u, rw / st->cells);
    const double *srow = tr->head[h].scores + (size_t)t * n + st->first;
    struct {
        viz_str title;
        int count, stage, col0;
        const double *v;
    } rows[] = {
        {VIZ_S_DECODE_SCORES, st->cells, ATTN_ST_SCORES, st->first, srow},
        {VIZ_S_DECODE_WEIGHTS, st->cells, ATTN_ST_WEIGHTS, st->first, d->weights[h] + (size_t)t * n + st->first},
        {VIZ_S_DECODE_Z, dk, ATTN_ST_Z, 0, d->z[h] + (size_t)t * dk},
    };
    for (int k = 0; k < 3; k++) {
        if (k == 0) snprintf(title, sizeof title, viz_s(c, rows[k].title), h + 1, rows[k].count);
        else snprintf(title, sizeof title, viz_s(c, rows[k].title), rows[k].count);
        viz_label(c, rx, ry - c->small * 1.7f, rw, c->small * 1.5f, title, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
        float cwk = k == 2 ? fminf(70 * c->u, rw / dk) : sw;
        strip(c, rx, ry, cwk, sh, rows[k].v, rows[k].count, rows[k].stage, h, t, rows[k].col0,
              viz_abs_max(rows[k].v, (size_t)rows[k].count));
        ry += sh + c->small * 2.6f;
    }
    // which query heads share which K and V: beside the rows when they leave room, else under the caches
    if (tr->cfg.heads > 1) {
        float below = y + n * ch + c->small * 1.2f;
        if (bottom - ry >= viz_kv_groups(c, 0, 0, rw, &tr->cfg, h, false)) viz_kv_groups(c, rx, ry, rw, &tr->cfg, h, true);
        else if (bottom - below >= viz_kv_groups(c, 0, 0, left_w - label_w, &tr->cfg, h, false))
            viz_kv_groups(c, x + label_w, below, left_w - label_w, &tr->cfg, h, true);
    }
    viz_wrap(c, (viz_box){x, bottom + c->small * 0.3f, w, legend_h}, viz_s(c, legend), c->small, 0,
             c->th->muted);
    if (keys) // the window's: an exported figure has no keys
        viz_wrap(c, (viz_box){x, bottom + c->small * 0.3f + legend_h, w, keys_h}, viz_s(c, VIZ_S_DECODE_KEYS), c->small, 0,
                 c->th->muted);
}
