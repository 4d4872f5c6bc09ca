/* viz_window.c — the whole window: sentence bar, step rail with controls,
 * canvas, narrative and detail panels, status line, help overlay. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_settings.h"
#include "lesson.h"
#include "attn_steps.h"
#include "viz_explain.h"
#include "viz_internal.h"
#include "viz_strings.h"

/* The smallest size the window's light, dark and high-contrast themes write
 * values at (at UI scale 1), when the layout can make room for it. */
#define LAPTOP_VALUE_PX 11.0f

static void ctx_init(viz_ctx *c, viz_list *l, const viz_scene *s, viz_measure m) {
    c->l = l;
    c->s = s;
    c->m = m;
    c->th = viz_theme_get(s->theme);
    c->u = (s->scale > 0 ? s->scale : 1.0f) * c->th->body_px / 15.0f;
    // the layout needs about 1024×578 units: a big theme or zoom in a small
    // window shrinks to fit rather than overlap (presenter: 28 px at 1920×1080)
    float fit = fminf((float)s->width / 1024.0f, (float)s->height / 578.0f);
    if (fit < 1.0f) fit = 1.0f;
    if (c->u > fit) c->u = fit;
    c->body = 15.0f * c->u;
    c->small = 13.0f * c->u;
    c->big = 20.0f * c->u;
    // the theme's value size grows and shrinks with the UI, but never below what reads at all
    c->value_min = c->th->value_px > 0 ? fmaxf(9.0f, c->th->value_px * c->u * 15.0f / c->th->body_px) : 0;
    c->figure = s->figure_only && !s->train;
    c->inert = false;
}

/* ---- top bar ---- */

static void sentence_bar(const viz_ctx *c, viz_box b) {
    const viz_theme *th = c->th;
    float pad = 10 * c->u, bw = 0; // its background: viz_build_window's
    viz_fill(c->l, b.x, b.y + b.h - 1, b.w, 1, th->line);
    float nw = viz_text_w(c, viz_s(c, VIZ_S_APP_NAME), c->big) + 2 * pad;
    viz_text(c->l, b.x + pad, b.y, nw, b.h, viz_s(c, VIZ_S_APP_NAME), c->big, VIZ_LEFT | VIZ_MIDDLE, th->accent);
    // the weights badge, right-aligned: always says where the weights come from
    if (c->s->badge) {
        bw = viz_text_w(c, c->s->badge, c->small) + 2 * pad;
        if (bw > b.w * 0.3f) bw = b.w * 0.3f;
        float bx = b.x + b.w - bw - pad, bh = c->small * 1.9f;
        viz_fill(c->l, bx, b.y + (b.h - bh) / 2, bw, bh, th->panel2);
        viz_stroke(c->l, bx, b.y + (b.h - bh) / 2, bw, bh, 1, th->line);
        viz_label(c, bx + pad, b.y, bw - 2 * pad, b.h, c->s->badge, c->small, VIZ_CENTER | VIZ_MIDDLE, th->text);
        bw += pad;
    }
    viz_box f = {b.x + nw + pad, b.y + 8 * c->u, b.w - nw - bw - 3 * pad, b.h - 16 * c->u};
    viz_fill(c->l, f.x, f.y, f.w, f.h, c->s->editing ? th->panel : th->panel2);
    viz_stroke(c->l, f.x, f.y, f.w, f.h, c->s->editing ? 2 * c->u : 1, c->s->editing ? th->accent : th->line);
    viz_hit_region(c->l, f.x, f.y, f.w, f.h, (viz_hit){.kind = VIZ_HIT_SENTENCE});
    const char *hint = c->s->edit_error ? c->s->edit_error
                                        : viz_s(c, c->s->editing ? VIZ_S_EDITING_HINT : VIZ_S_SENTENCE_HINT);
    float hw = viz_text_w(c, hint, c->small) + pad;
    if (hw > f.w * 0.45f) hw = f.w * 0.45f;
    viz_label(c, f.x + f.w - hw - pad / 2, f.y, hw, f.h, hint, c->small, VIZ_RIGHT | VIZ_MIDDLE,
              c->s->edit_error ? th->error : th->muted);
    // the text, with the IME composition inline at the cursor and a caret
    float tx = f.x + pad, avail = f.w - hw - 2 * pad;
    viz_clip(c->l, f.x, f.y, f.w - hw - pad, f.h);
    const char *s = c->s->sentence ? c->s->sentence : "";
    size_t cur = c->s->editing ? (size_t)c->s->cursor : strlen(s);
    float before = c->m.width(c->m.ctx, s, cur, c->body);
    const char *comp = c->s->composition ? c->s->composition : "";
    float cw = viz_text_w(c, comp, c->body);
    // while editing keep the caret visible; otherwise show the sentence's start
    float shift = c->s->editing && before + cw > avail ? before + cw - avail + 4 * c->u : 0;
    if (c->s->editing && c->s->sel_anchor >= 0 && (size_t)c->s->sel_anchor != cur) { // the selection, behind the text
        size_t a = (size_t)c->s->sel_anchor < cur ? (size_t)c->s->sel_anchor : cur;
        size_t z = (size_t)c->s->sel_anchor < cur ? cur : (size_t)c->s->sel_anchor;
        float xa = c->m.width(c->m.ctx, s, a, c->body), xz = c->m.width(c->m.ctx, s, z, c->body);
        viz_fill(c->l, tx - shift + xa, f.y + 5 * c->u, xz - xa, f.h - 10 * c->u, viz_alpha(th->highlight, 70));
    }
    char head[ATTN_MAX_SENTENCE_BYTES > 4096 ? 4096 : ATTN_MAX_SENTENCE_BYTES];
    size_t hl = cur < sizeof head - 1 ? cur : sizeof head - 1;
    memcpy(head, s, hl);
    head[hl] = '\0';
    viz_text(c->l, tx - shift, f.y, before + 1, f.h, head, c->body, VIZ_LEFT | VIZ_MIDDLE, th->text);
    float cx = tx - shift + before;
    if (*comp) {
        viz_text(c->l, cx, f.y, cw + 1, f.h, comp, c->body, VIZ_LEFT | VIZ_MIDDLE, th->accent);
        viz_fill(c->l, cx, f.y + f.h * 0.78f, cw, 1.5f * c->u, th->accent);
    }
    viz_text(c->l, cx + cw, f.y, avail + shift, f.h, s + cur, c->body, VIZ_LEFT | VIZ_MIDDLE, th->text);
    if (c->s->editing) viz_fill(c->l, cx + cw, f.y + 6 * c->u, 2 * c->u, f.h - 12 * c->u, th->accent);
    viz_clip(c->l, 0, 0, 0, 0);
}

/* ---- rail: steps and controls ---- */

/* The rail's controls that show a number of the settings' table, as it writes them. */
static const struct {
    viz_widget widget;
    attn_setting_id setting;
} numeric_settings[] = {
    {VIZ_W_HEADS, ATTN_SET_HEADS},
    {VIZ_W_DK, ATTN_SET_D_K},
    {VIZ_W_DMODEL, ATTN_SET_D_MODEL},
    {VIZ_W_SEED, ATTN_SET_SEED},
};

static void control_value(const viz_ctx *c, viz_widget w, char *buf, size_t cap) {
    const attn_config *cfg = &c->s->trace->cfg;
    if (w == VIZ_W_SEED && c->s->hf) { // trained weights: no seed
        snprintf(buf, cap, "—");
        return;
    }
    for (size_t i = 0; i < sizeof numeric_settings / sizeof *numeric_settings; i++)
        if (numeric_settings[i].widget == w) {
            attn_setting_format(numeric_settings[i].setting, cfg, buf, cap);
            if (w == VIZ_W_HEADS && attn_kv_heads(cfg) != cfg->heads) // grouped-query: "4 / 2 kv" (J changes it)
                snprintf(buf, cap, viz_s(c, VIZ_S_HEADS_KV), cfg->heads, attn_kv_heads(cfg));
            return;
        }
    static const viz_str masks[] = {VIZ_S_MASK_NONE, VIZ_S_MASK_CAUSAL, VIZ_S_MASK_WINDOW, VIZ_S_MASK_CAUSAL_WINDOW};
    static const viz_str cmp[VIZ_COMPARE_COUNT] = {VIZ_S_COMPARE_OFF, VIZ_S_COMPARE_SCALE, VIZ_S_COMPARE_HEADS,
                                                   VIZ_S_COMPARE_PAGE, VIZ_S_COMPARE_SENTENCE};
    static const viz_str themes[] = {VIZ_S_THEME_LIGHT, VIZ_S_THEME_DARK, VIZ_S_THEME_PRESENTER, VIZ_S_THEME_CONTRAST};
    switch (w) {
    case VIZ_W_SCALE: snprintf(buf, cap, "%s", viz_s(c, cfg->scale ? VIZ_S_ON : VIZ_S_OFF)); break;
    case VIZ_W_MASK: snprintf(buf, cap, "%s", viz_s(c, masks[cfg->mask.kind])); break;
    case VIZ_W_WINDOW:
        if (cfg->mask.kind == ATTN_MASK_WINDOW || cfg->mask.kind == ATTN_MASK_CAUSAL_WINDOW)
            snprintf(buf, cap, "%d", cfg->mask.window);
        else
            snprintf(buf, cap, "—");
        break;
    case VIZ_W_POSENC:                                                       // a model's positions are its own: sinusoidal, learned or none
        if (c->s->hf) snprintf(buf, cap, "%s", viz_s(c, VIZ_S_POS_LEARNED)); // GPT-2's wpe
        else if (c->s->model && c->s->model->cfg.pos_offset)                 // --pos-offset K: where the model's sentence starts
            snprintf(buf, cap, "%s +%d", viz_s(c, (viz_str)(VIZ_S_POS_SINUSOIDAL + c->s->model->cfg.pos)),
                     c->s->model->cfg.pos_offset);
        else if (c->s->model) snprintf(buf, cap, "%s", viz_s(c, (viz_str)(VIZ_S_POS_SINUSOIDAL + c->s->model->cfg.pos)));
        else if (cfg->pos_offset) // the scheme, and where the sentence starts
            snprintf(buf, cap, "%s +%d", viz_s(c, cfg->rope ? VIZ_S_POS_ROPE : cfg->pos_enc ? VIZ_S_POS_SINUSOIDAL
                                                                                            : VIZ_S_POS_NONE),
                     cfg->pos_offset);
        else snprintf(buf, cap, "%s", viz_s(c, cfg->rope ? VIZ_S_POS_ROPE : cfg->pos_enc ? VIZ_S_POS_SINUSOIDAL
                                                                                         : VIZ_S_POS_NONE));
        break;
    case VIZ_W_SHOW_HEAD: snprintf(buf, cap, "%d / %d", c->s->head + 1, cfg->heads); break;
    case VIZ_W_COMPARE: snprintf(buf, cap, "%s", viz_s(c, cmp[c->s->compare])); break;
    case VIZ_W_THEME: snprintf(buf, cap, "%s", viz_s(c, themes[c->s->theme])); break;
    case VIZ_W_VIEW: // what the canvas shows: the steps, the tiles view at its B, or the decode view
        if (c->s->tiles) snprintf(buf, cap, viz_s(c, VIZ_S_VIEW_TILES), c->s->tiles->b);
        else snprintf(buf, cap, "%s", viz_s(c, c->s->show_decode ? VIZ_S_VIEW_DECODE : VIZ_S_VIEW_STEPS));
        break;
    case VIZ_W_LAYER:
        snprintf(buf, cap, "%d / %d", c->s->layer + 1, c->s->model ? c->s->model->cfg.layers : c->s->hf ? c->s->hf->layers
                                                                                                        : 1);
        break;
    case VIZ_W_BACKWARD: snprintf(buf, cap, "%s", viz_s(c, c->s->backward ? VIZ_S_ON : VIZ_S_OFF)); break;
    case VIZ_W_READOUT:
    case VIZ_W_MODEL_CLOSE: buf[0] = '\0'; break;
    default: snprintf(buf, cap, "%s", viz_s(c, VIZ_S_LANG_NAME)); break;
    }
}

static const viz_str control_names[VIZ_W_COUNT] = {
    VIZ_S_CTRL_HEADS, VIZ_S_CTRL_DK, VIZ_S_CTRL_DMODEL, VIZ_S_CTRL_SEED, VIZ_S_CTRL_SCALE,
    VIZ_S_CTRL_MASK, VIZ_S_CTRL_WINDOW, VIZ_S_CTRL_POSENC, VIZ_S_CTRL_SHOW_HEAD,
    VIZ_S_CTRL_COMPARE, VIZ_S_CTRL_THEME, VIZ_S_CTRL_LANG, VIZ_S_CTRL_VIEW, VIZ_S_CTRL_LAYER, VIZ_S_CTRL_BACKWARD,
    VIZ_S_STEP_READOUT, VIZ_S_CTRL_MODEL_CLOSE};

/* One control: its name in the first lw pixels, then − value + (or ‹ value ›). */
static void control_row(const viz_ctx *c, viz_box r, viz_widget w, float px, float lw) {
    const viz_str *names = control_names;
    if (w == VIZ_W_MODEL_CLOSE) { // one button, the whole row
        viz_fill(c->l, r.x, r.y + 2, r.w, r.h - 4, c->th->panel2);
        viz_label(c, r.x, r.y, r.w, r.h, viz_s(c, names[w]), px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
        viz_hit_region(c->l, r.x, r.y, r.w, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = 0});
        return;
    }
    bool numeric = w <= VIZ_W_SEED || w == VIZ_W_WINDOW || w == VIZ_W_LAYER;
    bool fixed = (c->s->model || c->s->hf) && viz_widget_model_fixed(w); // its training chose it: shown, not offered
    char val[64];
    control_value(c, w, val, sizeof val);
    float bw = r.h;
    viz_label(c, r.x, r.y, lw - 4 * c->u, r.h, viz_s(c, names[w]), px, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    if (fixed) {
        viz_label(c, r.x + lw, r.y, r.w - lw, r.h, val, px, VIZ_CENTER | VIZ_MIDDLE, c->th->muted);
        viz_hit_region(c->l, r.x + lw, r.y, r.w - lw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = 0});
        return;
    }
    float bx = r.x + lw, vw = r.w - lw - 2 * bw - 4 * c->u;
    viz_fill(c->l, bx, r.y + 2, bw, r.h - 4, c->th->panel2);
    viz_text(c->l, bx, r.y, bw, r.h, numeric ? "−" : "‹", px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
    viz_hit_region(c->l, bx, r.y, bw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = -1});
    viz_label(c, bx + bw, r.y, vw, r.h, val, px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
    viz_hit_region(c->l, bx + bw, r.y, vw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = 0});
    float px2 = bx + bw + vw;
    viz_fill(c->l, px2, r.y + 2, bw, r.h - 4, c->th->panel2);
    viz_text(c->l, px2, r.y, bw, r.h, numeric ? "+" : "›", px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
    viz_hit_region(c->l, px2, r.y, bw, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = w, .delta = +1});
}

/* The largest size up to px, down to 80% of it, at which every one of n
 * texts is at most w wide: a column of labels keeps one size. */
static float column_px(const viz_ctx *c, const char *const *texts, int n, float w, float px) {
    float widest = 0;
    for (int i = 0; i < n; i++) widest = fmaxf(widest, viz_text_w(c, texts[i], px));
    return widest <= w ? px : fmaxf(px * 0.8f, px * w / widest);
}

/* The rail's steps ("3  Scores QKᵀ") into buf[i]. */
static void step_labels(const viz_ctx *c, char buf[][96], const char **texts) {
    for (int i = 0; i < ATTN_STEP_COUNT; i++) {
        viz_str name = c->s->hf && i == ATTN_STEP_EMBED ? VIZ_S_HF_STEP_1 : (viz_str)(VIZ_S_STEP_1 + i); // X = LN₁(x)
        snprintf(buf[i], sizeof buf[i], "%s  %s", attn_step_key((attn_step)i), viz_s(c, name));
        texts[i] = buf[i];
    }
}

static void rail(const viz_ctx *c, viz_box b) {
    const viz_theme *th = c->th; // its background: viz_build_window's
    viz_fill(c->l, b.x + b.w - 1, b.y, 1, b.h, th->line);
    float pad = 10 * c->u;
    bool model = c->s->model != NULL || c->s->hf != NULL;
    // with a model: its layer above the steps, the readout after them, the backward toggle and closing below
    int shown = 0; // the steps the settings show (2b only with RoPE)
    for (int i = 0; i < ATTN_STEP_COUNT; i++) shown += attn_step_shown((attn_step)i, &c->s->trace->cfg);
    int rows = shown + (VIZ_W_LAYER) + 2 + (model ? 4 : 0);
    float rh = (b.h - 2 * pad) / rows;
    if (rh > 30 * c->u) rh = 30 * c->u;
    float px = rh * 0.58f < c->body ? rh * 0.58f : c->body;
    float x = b.x + pad, w = b.w - 2 * pad, y = b.y + pad;
    char steps[ATTN_STEP_COUNT][96];
    const char *texts[(int)VIZ_W_COUNT > (int)ATTN_STEP_COUNT ? (int)VIZ_W_COUNT : (int)ATTN_STEP_COUNT];
    step_labels(c, steps, texts);
    float step_px = column_px(c, texts, ATTN_STEP_COUNT, w, px);
    // the controls' names and values share what the buttons leave, at one size that fits both
    char vals[VIZ_W_COUNT][64];
    float ctrl_px = px * 0.92f, names = 0, values = 0, avail = w - 2 * rh - 10 * c->u;
    for (int i = 0; i < VIZ_W_COUNT; i++) {
        if ((viz_widget_model_only((viz_widget)i) && !model) || i == VIZ_W_MODEL_CLOSE || i == VIZ_W_READOUT) continue;
        control_value(c, (viz_widget)i, vals[i], sizeof vals[i]);
        names = fmaxf(names, viz_text_w(c, viz_s(c, control_names[i]), ctrl_px));
        values = fmaxf(values, viz_text_w(c, vals[i], ctrl_px));
    }
    if (names + values > avail) ctrl_px *= fmaxf(0.8f, avail / (names + values));
    float k = ctrl_px / (px * 0.92f), lw = fmaxf(names * k + 6 * c->u, w * 0.3f);
    if (lw + values * k + 4 * c->u > avail + 6 * c->u) lw = names * k + 6 * c->u; // tidy columns only if room
    viz_label(c, x, y, w, rh, viz_s(c, VIZ_S_STEPS), px * 0.9f, VIZ_LEFT | VIZ_MIDDLE, th->muted);
    y += rh;
    if (model) {
        control_row(c, (viz_box){x, y, w, rh}, VIZ_W_LAYER, ctrl_px, lw);
        y += rh;
    }
    float steps_y = y;
    for (int i = 0; i < ATTN_STEP_COUNT; i++, y += rh) {
        if (!attn_step_shown((attn_step)i, &c->s->trace->cfg)) {
            y -= rh; // no row for a step the settings leave out
            continue;
        }
        bool cur = (int)c->s->step == i && !c->s->readout;
        if (cur) viz_fill(c->l, b.x + 4 * c->u, y + 1, b.w - 8 * c->u, rh - 2, th->accent);
        viz_label(c, x, y, w, rh, steps[i], step_px, VIZ_LEFT | VIZ_MIDDLE, cur ? th->accent_text : th->text);
        viz_hit_region(c->l, b.x, y, b.w, rh, (viz_hit){.kind = VIZ_HIT_STEP, .step = i});
    }
    if (model) { // 9: the model's answer after its last layer
        if (c->s->readout) viz_fill(c->l, b.x + 4 * c->u, y + 1, b.w - 8 * c->u, rh - 2, th->accent);
        char buf[96];
        snprintf(buf, sizeof buf, "9  %s", viz_s(c, VIZ_S_STEP_READOUT));
        viz_label(c, x, y, w, rh, buf, step_px, VIZ_LEFT | VIZ_MIDDLE, c->s->readout ? th->accent_text : th->text);
        viz_hit_region(c->l, b.x, y, b.w, rh, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_W_READOUT});
        y += rh;
    }
    if (c->s->focus == VIZ_FOCUS_RAIL)
        viz_stroke(c->l, b.x + 2 * c->u, steps_y - 2 * c->u, b.w - 4 * c->u, y - steps_y + 4 * c->u, 2 * c->u,
                   th->highlight);
    viz_label(c, x, y, w, rh, viz_s(c, VIZ_S_CONTROLS), px * 0.9f, VIZ_LEFT | VIZ_MIDDLE, th->muted);
    y += rh;
    for (int wdg = 0; wdg < VIZ_W_COUNT; wdg++) {
        if (wdg == VIZ_W_LAYER || wdg == VIZ_W_READOUT || (viz_widget_model_only((viz_widget)wdg) && !model)) continue;
        if (wdg == VIZ_W_MODEL_CLOSE && c->s->page_model) continue;                    // the page's: N and P leave it
        if (c->s->hf && (wdg == VIZ_W_BACKWARD || wdg == VIZ_W_MODEL_CLOSE)) continue; // --hf: no backward; the window is its
        control_row(c, (viz_box){x, y, w, rh}, (viz_widget)wdg, ctrl_px, lw);
        y += rh;
    }
}

/* ---- canvas ---- */

/* A real model's pieces of one character, written over them (viz_hf), or NULL. */
static const viz_hf *chip_pieces(const viz_ctx *c) { return c->s->hf && c->s->hf->has_pieces ? c->s->hf : NULL; }

/* The height of one row of chips at text size px: with GPT-2's pieces, a
 * band above the chips where their characters are written once. */
static float chips_row_h(const viz_ctx *c, float px) { return px * 1.8f + 4 * c->u + (chip_pieces(c) ? px * 1.3f : 0); }

/* Lays out (draw = false) or draws token chips at text size px in width w;
 * returns the number of rows they need. The pieces of one character sit
 * side by side, never split between rows, under that character. */
static int chips_pass(const viz_ctx *c, viz_box b, float px, bool draw) {
    const attn_trace *t = c->s->trace;
    const viz_hf *hf = chip_pieces(c);
    float band = hf ? px * 1.3f : 0, h = px * 1.8f, pad = px * 0.45f, x = b.x, y = b.y + band;
    int rows = 1;
    char lab[96];
    float w[ATTN_TRACE_MAX_TOKENS];
    for (int i = 0; i < t->n; i++) {
        attn_token_label(&t->tokens, i, 14, lab, sizeof lab);
        w[i] = viz_text_w(c, lab, px) + 2 * pad;
    }
    for (int i = 0; i < t->n; i++) {
        bool first = hf && hf->piece_first[i] == i, further = hf && hf->piece_first[i] >= 0 && !first;
        float run = w[i]; // a run of pieces moves to the next row whole
        for (int j = i + 1; first && j < t->n && hf->piece_first[j] == i; j++) run += c->u + w[j];
        if (!further && x + run > b.x + b.w && x > b.x) {
            x = b.x;
            y += h + 4 * c->u + band;
            rows++;
        }
        if (draw && first && hf->piece_text[i][0])
            viz_text(c->l, x, y - band, run, band, hf->piece_text[i], px, VIZ_CENTER | VIZ_MIDDLE, c->th->text);
        if (draw) {
            attn_token_label(&t->tokens, i, 14, lab, sizeof lab);
            bool q = i == c->s->query;
            viz_fill(c->l, x, y, w[i], h, q ? c->th->highlight : c->th->panel2);
            if (t->vocab_used && t->vocab_index[i] < 0) // not in the lesson's vocabulary: the narrative says what it is
                viz_stroke(c->l, x, y, w[i], h, 2 * c->u, c->th->error);
            viz_text(c->l, x, y, w[i], h, lab, px, VIZ_CENTER | VIZ_MIDDLE, q ? c->th->accent_text : c->th->text);
            viz_hit_region(c->l, x, y, w[i], h, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = i});
        }
        bool next_joined = hf && i + 1 < t->n && hf->piece_first[i + 1] >= 0 && hf->piece_first[i + 1] != i + 1;
        x += w[i] + (next_joined ? c->u : 4 * c->u);
    }
    return rows;
}

/* Token chips (click one to make it the query) in at most two rows: the text
 * shrinks for long sentences, and when even that does not fit the chips give
 * their room to the matrices, whose token labels are clickable too. Returns
 * the height used. */
static float token_chips(const viz_ctx *c, viz_box b) {
    // one row where the canvas wants its room, if slightly smaller text allows it
    for (float px = c->small; c->value_min > 0 && px >= fmaxf(10.0f, c->small * 0.8f); px *= 0.95f)
        if (chips_pass(c, b, px, false) == 1) return chips_pass(c, b, px, true) * chips_row_h(c, px);
    for (float px = c->small; px >= 10.0f; px *= 0.85f)
        if (chips_pass(c, b, px, false) <= 2) {
            int rows = chips_pass(c, b, px, true);
            return rows * chips_row_h(c, px);
        }
    return 0;
}

static bool step_has_masked(const viz_ctx *c) {
    return c->s->trace->cfg.mask.kind != ATTN_MASK_NONE &&
           (c->s->step == ATTN_STEP_MASK || c->s->step == ATTN_STEP_SOFTMAX || c->s->step == ATTN_STEP_WEIGHTED);
}

/* The step's equation with its shapes, and what the core counted for it. */
static void equation_line(const viz_ctx *c, const attn_trace *t, char *out, size_t cap) {
    const viz_scene *s = c->s;
    if (s->hf && s->step == ATTN_STEP_EMBED) { // a real model's X: LayerNorm of the layer's input
        size_t n = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_HF_X), s->layer + 1);
        if (n < cap) snprintf(out + n, cap - n, "   %d×%d", t->n, t->cfg.d_model);
        return;
    }
    if (s->model && s->step == ATTN_STEP_EMBED) { // what X is in a model
        if (s->layer == 0)
            snprintf(out, cap, "X = E[token]%s   %d×%d", model_pos_in_x(s->model->cfg.pos) ? " + P" : "", t->n,
                     t->cfg.d_model);
        else {
            size_t n = (size_t)snprintf(out, cap, viz_s(c, VIZ_S_X_FROM_RESIDUAL), s->layer);
            if (n < cap) snprintf(out + n, cap - n, "   %d×%d", t->n, t->cfg.d_model);
        }
        return;
    }
    size_t n = attn_stage_equation(t, attn_step_result(c->s->step), out, cap);
    if (s->model && s->step == ATTN_STEP_MULTIHEAD && n < cap) // the residual stream
        n += (size_t)snprintf(out + n, cap - n, ";  X + out → %d×%d", t->n, t->cfg.d_model);
    long long macs = attn_step_macs(t, c->s->step);
    if (macs <= 0 || n >= cap) return;
    char count[32], words[64];
    snprintf(count, sizeof count, "%lld", macs);
    snprintf(words, sizeof words, viz_s(c, VIZ_S_MACS), count);
    snprintf(out + n, cap - n, "   · %s", words);
}

/* What one view of a comparison shows: its scaling, its head, or its
 * settings; on the softmax step also how peaked its rows are. */
static void view_label(const viz_ctx *c, char *out, size_t cap, const attn_trace *t, int head, int which) {
    const viz_scene *s = c->s;
    size_t n;
    if (s->compare == VIZ_COMPARE_SCALE)
        n = (size_t)snprintf(out, cap, "%s", viz_s(c, t->cfg.scale ? VIZ_S_SCALE_ON_LABEL : VIZ_S_SCALE_OFF_LABEL));
    else if ((s->compare == VIZ_COMPARE_CONFIG || s->compare == VIZ_COMPARE_SENTENCE) && s->compare_labels[which])
        n = (size_t)snprintf(out, cap, "%s", s->compare_labels[which]);
    else n = (size_t)snprintf(out, cap, "%s %d", viz_s(c, VIZ_S_HEAD), head + 1);
    if (s->step == ATTN_STEP_SOFTMAX && s->compare != VIZ_COMPARE_HEADS && s->compare != VIZ_COMPARE_SENTENCE &&
        n + 4 < cap && !s->hide_weights) { // (two sentences: the sentences say it, and they are long)
        snprintf(out + n, cap - n, " · ");
        n += strlen(out + n);
        snprintf(out + n, cap - n, viz_s(c, VIZ_S_MEAN_ROW_MAX), attn_mean_row_max(t, head));
    }
}

/* The step's number and name, and its equation: on one line where the
 * canvas wants its room and both fit, else on two. Returns the height used. */
static float canvas_title(const viz_ctx *c, viz_box in) {
    const viz_scene *s = c->s;
    char buf[256], eq[320], layer[64] = "";
    if (s->model || s->hf) { // which layer of the model this is
        snprintf(layer, sizeof layer, viz_s(c, VIZ_S_LAYER_OF), s->layer + 1, s->model ? s->model->cfg.layers : s->hf->layers);
        strncat(layer, " · ", sizeof layer - strlen(layer) - 1);
    }
    if (s->readout) snprintf(buf, sizeof buf, "9 · %s", viz_s(c, VIZ_S_STEP_READOUT));
    else if (s->hf && s->step == ATTN_STEP_EMBED) // a real model's X: LN₁ of the layer's input, not an embedding
        snprintf(buf, sizeof buf, "%s%s · %s", layer, attn_step_key(s->step), viz_s(c, VIZ_S_HF_STEP_1));
    else snprintf(buf, sizeof buf, "%s%s · %s", layer, attn_step_key(s->step), viz_s(c, (viz_str)(VIZ_S_STEP_1 + s->step)));
    if (s->readout) viz_readout_equation(c, eq, sizeof eq);
    else equation_line(c, s->trace, eq, sizeof eq);
    float tw = viz_text_w(c, buf, c->big), sep = 1.5f * c->big;
    for (float px = c->body; c->value_min > 0 && px >= c->small - 0.01f; px = c->small) { // the equation may shrink a little
        float ew = viz_text_w(c, eq, px);
        if (tw + sep + ew > in.w && px > c->small) continue;
        if (tw + sep + ew > in.w) break;
        viz_text(c->l, in.x, in.y, tw + 1, c->big * 1.4f, buf, c->big, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
        viz_text(c->l, in.x + tw + sep, in.y, ew + 1, c->big * 1.4f, eq, px, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
        return c->big * 1.6f;
    }
    viz_label(c, in.x, in.y, in.w, c->big * 1.4f, buf, c->big, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    viz_label(c, in.x, in.y + c->big * 1.5f, in.w, c->body * 1.5f, eq, c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    return c->big * 1.5f + c->body * 1.8f;
}

/* The notice at the foot of the canvas, in b beside the legend, when it fits
 * there (a little smaller than the canvas's text); true when drawn. */
static bool notice_at_foot(const viz_ctx *c, viz_box b, const char *notice, bool error) {
    float px = c->small * 0.85f;
    if (b.w < 120 * c->u || viz_wrap_ex(c, b, notice, px, 0, 0, c->th->muted, false) > b.h) return false;
    viz_wrap_ex(c, b, notice, px, 0, 0, error ? c->th->error : c->th->muted, true);
    return true;
}

/* The step's legends in lg: A's and V, Z's on the weighted sum, else one. */
static void legends(const viz_ctx *c, viz_box lg, double range) {
    const viz_scene *s = c->s;
    if (viz_step_has_grad(c)) { // the gradient on a scale of its own: two true legends
        bool weights_step = s->step == ATTN_STEP_SOFTMAX;
        int gs;
        double gr;
        viz_step_grad(c, s->trace, s->head, &gs, &gr);
        viz_box lg2 = {lg.x + lg.w / 2, lg.y, lg.w / 2, lg.h};
        lg.w = lg.w / 2 - 10 * c->u;
        viz_legend(c, lg, weights_step ? VIZ_MAP_WEIGHTS : VIZ_MAP_SIGNED, range, step_has_masked(c),
                   weights_step ? "A" : NULL);
        viz_legend(c, lg2, VIZ_MAP_SIGNED, gr, false, gs == MODEL_ST_D_WEIGHTS ? "∂L/∂A" : "∂L/∂T");
    } else if (s->step == ATTN_STEP_WEIGHTED) { // A on the weights scale, V and Z signed: two true legends
        viz_box lg2 = {lg.x + lg.w / 2, lg.y, lg.w / 2, lg.h};
        lg.w = lg.w / 2 - 10 * c->u;
        viz_legend(c, lg, VIZ_MAP_WEIGHTS, 1.0, step_has_masked(c), "A");
        viz_legend(c, lg2, VIZ_MAP_SIGNED, range, false, "V, Z");
    } else {
        viz_legend(c, lg, s->step == ATTN_STEP_SOFTMAX ? VIZ_MAP_WEIGHTS : VIZ_MAP_SIGNED, range, step_has_masked(c),
                   NULL);
    }
}

/* The second sentence's view of a two-sentence comparison: the scene with
 * its trace, run and query, nothing hovered or marked, and no hit regions. */
static void second_sentence(const viz_ctx *c, viz_scene *s2, viz_ctx *c2) {
    *s2 = *c->s;
    s2->trace = c->s->alt_trace;
    s2->run = c->s->alt_run;
    s2->query = c->s->alt_query;
    s2->hover = (viz_hit){.kind = VIZ_HIT_NONE};
    s2->explain = NULL;
    s2->model_explain = NULL;
    s2->mark = (viz_mark){VIZ_MARK_NONE, -1, -1};
    *c2 = *c;
    c2->s = s2;
    c2->inert = true;
}

/* The step in in: one view, or two side by side or one above the other. */
static void canvas_views(const viz_ctx *c, viz_box in, double range) {
    const viz_scene *s = c->s;
    const attn_trace *t = s->trace;
    bool second_trace = s->compare == VIZ_COMPARE_SCALE || s->compare == VIZ_COMPARE_CONFIG ||
                        (s->compare == VIZ_COMPARE_SENTENCE && s->alt_run);
    if (s->compare == VIZ_COMPARE_OFF || (s->compare == VIZ_COMPARE_SENTENCE && !s->alt_run) ||
        (second_trace && !s->alt_trace)) {
        viz_draw_step(c, in, t, s->head, NULL, range);
        return;
    }
    const attn_trace *t2 = second_trace ? s->alt_trace : t;
    int h2 = second_trace ? s->head : s->head_b;
    // side by side or one above the other: whichever gives larger cells
    bool stacked = viz_step_fit(c, (viz_box){0, 0, in.w, (in.h - 20 * c->u) / 2}, t, s->head) >
                   viz_step_fit(c, (viz_box){0, 0, (in.w - 20 * c->u) / 2, in.h}, t, s->head);
    float half = (in.w - 20 * c->u) / 2, halfh = (in.h - 20 * c->u) / 2;
    char s1[192], s2[192];
    view_label(c, s1, sizeof s1, t, s->head, 0);
    view_label(c, s2, sizeof s2, t2, h2, 1);
    float vw = stacked ? in.w : half; // both settings lines take the room the longer needs
    int lines = viz_subtitle_lines(c, s1, vw) > viz_subtitle_lines(c, s2, vw) ? viz_subtitle_lines(c, s1, vw)
                                                                              : viz_subtitle_lines(c, s2, vw);
    viz_scene sc2;
    viz_ctx cx2 = *c;
    if (s->compare == VIZ_COMPARE_SENTENCE) second_sentence(c, &sc2, &cx2);
    if (stacked) {
        viz_draw_view(c, (viz_box){in.x, in.y, in.w, halfh}, t, s->head, s1, lines, range);
        viz_fill(c->l, in.x, in.y + halfh + 10 * c->u, in.w, 1, c->th->line);
        viz_draw_view(&cx2, (viz_box){in.x, in.y + halfh + 20 * c->u, in.w, halfh}, t2, h2, s2, lines, range);
    } else {
        viz_draw_view(c, (viz_box){in.x, in.y, half, in.h}, t, s->head, s1, lines, range);
        viz_fill(c->l, in.x + half + 10 * c->u, in.y, 1, in.h, c->th->line);
        viz_draw_view(&cx2, (viz_box){in.x + half + 20 * c->u, in.y, half, in.h}, t2, h2, s2, lines, range);
    }
}

/* The scale every signed matrix of the view(s) shares. */
static double canvas_range(const viz_ctx *c) {
    const viz_scene *s = c->s;
    double range = viz_step_range(c, s->trace, s->head);
    bool second_trace = s->compare == VIZ_COMPARE_SCALE || s->compare == VIZ_COMPARE_CONFIG ||
                        (s->compare == VIZ_COMPARE_SENTENCE && s->alt_run);
    if (s->compare == VIZ_COMPARE_SENTENCE && !s->alt_run) return range;
    if (s->compare != VIZ_COMPARE_OFF && (!second_trace || s->alt_trace)) {
        viz_scene sc2;
        viz_ctx cx2 = *c;
        if (s->compare == VIZ_COMPARE_SENTENCE) second_sentence(c, &sc2, &cx2);
        double r2 = viz_step_range(&cx2, second_trace ? s->alt_trace : s->trace, second_trace ? s->head : s->head_b);
        if (r2 > range) range = r2;
    }
    return range;
}

/* Title, equation, notice, token chips, the question, the step, legend. */
static void canvas(const viz_ctx *c, viz_box b, bool chips) {
    const viz_scene *s = c->s;
    const attn_trace *t = s->trace;
    float pad = 14 * c->u, legend_h = c->small * 3.2f;
    viz_box in = {b.x + pad, b.y + pad, b.w - 2 * pad, b.h - 2 * pad};
    in.y += canvas_title(c, in);
    if (viz_step_has_grad(c)) { // what the gradients are of, and how to read their colours
        char cap[320];
        viz_backward_caption(c, cap, sizeof cap);
        float nh = viz_wrap_ex(c, (viz_box){in.x, in.y, in.w, c->small * 4.4f}, cap, c->small, 0, 0, c->th->accent, true);
        in.y += fminf(nh, c->small * 4.4f) + 4 * c->u;
    }
    const char *notice = s->notice ? s->notice : viz_weights_random(t, s->origin) ? viz_s(c, VIZ_S_NOTICE_RANDOM)
                                                                                  : NULL;
    // where the canvas wants its room, the notice goes beside the legend if it fits there
    float share = c->value_min > 0 && notice ? (s->step == ATTN_STEP_WEIGHTED ? 0.5f : 0.36f) : 1.0f;
    viz_box foot = {in.x, b.y + b.h - pad - legend_h + 6 * c->u, in.w, legend_h};
    viz_box beside = {foot.x + foot.w * share + 20 * c->u, foot.y - 6 * c->u, foot.w * (1 - share) - 20 * c->u,
                      legend_h + pad * 0.8f};
    if (share < 1 && !notice_at_foot(c, beside, notice, s->notice != NULL)) share = 1;
    if (notice && share == 1) { // once, plainly: where the weights stand
        float nh = viz_wrap_ex(c, (viz_box){in.x, in.y, in.w, c->small * 4.4f}, notice, c->small, 0, 0,
                               s->notice ? c->th->error : c->th->muted, true);
        in.y += fminf(nh, c->small * 4.4f) + 4 * c->u;
    }
    if (chips) in.y += token_chips(c, (viz_box){in.x, in.y, in.w, 0}) + 10 * c->u;
    in.h = b.y + b.h - pad - legend_h - in.y;
    if (s->question && s->step >= ATTN_STEP_SOFTMAX && (!s->readout || s->hide_weights)) { // stays once answered: the layout does not jump
        char q[96], msg[384], step[128];
        attn_token_label(&t->tokens, s->query >= 0 ? s->query : 0, 12, q, sizeof q);
        snprintf(step, sizeof step, "%s · %s", attn_step_key(ATTN_STEP_SOFTMAX),
                 viz_s(c, (viz_str)(VIZ_S_STEP_1 + ATTN_STEP_SOFTMAX)));
        snprintf(msg, sizeof msg, viz_s(c, s->hide_weights ? VIZ_S_HIDDEN_PREDICT : VIZ_S_ANSWERED_PREDICT), q, step);
        viz_label(c, in.x, in.y, in.w, c->body * 1.6f, msg, c->body, VIZ_LEFT | VIZ_MIDDLE,
                  s->hide_weights ? c->th->highlight : c->th->muted);
        in.y += c->body * 1.8f;
        in.h -= c->body * 1.8f;
    }
    if (s->readout) { // the model's answer: no step, no comparison
        viz_clip(c->l, b.x, in.y, b.w, in.h);
        viz_hit_region(c->l, in.x, in.y, in.w, in.h, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_CANVAS});
        viz_draw_readout(c, in);
        viz_clip(c->l, 0, 0, 0, 0);
        viz_legend(c, foot, VIZ_MAP_WEIGHTS, 1.0, false, NULL);
        return;
    }
    double range = canvas_range(c);
    viz_clip(c->l, b.x, in.y, b.w, in.h);
    viz_hit_region(c->l, in.x, in.y, in.w, in.h, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_CANVAS});
    canvas_views(c, in, range);
    viz_clip(c->l, 0, 0, 0, 0);
    if (c->s->focus == VIZ_FOCUS_CANVAS && c->s->hover.kind == VIZ_HIT_CELL)
        viz_stroke(c->l, b.x + 2, in.y - 2, b.w - 4, in.h + 4, 1, viz_alpha(c->th->highlight, 90));
    foot.w *= share;
    legends(c, foot, range);
}

/* ---- a lesson page's code, where the figure would be ---- */

/* Splits a narrative into its prose and its code lines (VIZ_CODE_MARK), each
 * malloc'd; blocks of code stay apart by a blank line. false (nothing
 * allocated) when it holds no code or memory runs out. */
static bool split_code(const char *text, char **prose, char **code) {
    size_t len = strlen(text);
    char *p = malloc(len + 1), *k = malloc(len + 2);
    if (!p || !k) {
        free(p);
        free(k);
        return false;
    }
    size_t np = 0, nk = 0;
    bool in_code = false;
    for (const char *at = text; *at;) {
        const char *nl = strchr(at, '\n');
        size_t n = nl ? (size_t)(nl - at) + 1 : strlen(at);
        if (*at == VIZ_CODE_MARK[0]) {
            if (!in_code && nk) k[nk++] = '\n'; // a new block
            memcpy(k + nk, at, n);
            nk += n;
            if (!nl) k[nk++] = '\n';
            in_code = true;
        } else if (!(n == 1 && *at == '\n' && (np == 0 || (np >= 2 && p[np - 1] == '\n' && p[np - 2] == '\n')))) {
            memcpy(p + np, at, n); // prose, without the blank lines a removed block leaves twice
            np += n;
            in_code = false;
        } else {
            in_code = false;
        }
        at += n;
    }
    p[np] = k[nk] = '\0';
    if (!nk) {
        free(p);
        free(k);
        return false;
    }
    *prose = p;
    *code = k;
    return true;
}

/* The page's code in the canvas: the largest size (up to the body text's)
 * at which no line wraps, scrolled with the canvas. */
static void code_canvas(const viz_ctx *c, viz_box b, const char *code) {
    const viz_scene *s = c->s;
    float pad = 14 * c->u;
    viz_box in = {b.x + pad, b.y + pad, b.w - 2 * pad, b.h - 2 * pad};
    if (s->narrative_title) {
        float th = viz_wrap(c, (viz_box){in.x, in.y, in.w, c->big * 3}, s->narrative_title, c->big, 0, c->th->text);
        in.y += th + 8 * c->u;
        in.h -= th + 8 * c->u;
    }
    viz_box wide = {in.x + c->small, in.y, 1e5f, in.h}, box = {in.x + c->small, in.y, in.w - c->small, in.h};
    float px = c->body * 1.15f, best = 0;
    for (; px >= c->small * 0.75f; px *= 0.95f) { // code is set at 0.87 of the text size it is given
        float flat = viz_wrap_ex(c, wide, code, px, 0, 0, c->th->text, false);
        if (viz_wrap_ex(c, box, code, px, 0, 0, c->th->text, false) > flat + 0.5f) continue; // a line wraps
        if (!best) best = px;
        if (flat <= in.h) break;
    }
    px = px >= c->small * 0.75f ? px : best ? best
                                            : c->small * 0.75f;
    viz_clip(c->l, b.x, in.y, b.w, in.h);
    viz_hit_region(c->l, b.x, in.y, b.w, in.h, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_CANVAS});
    viz_wrap(c, box, code, px, s->canvas_pan_y, c->th->text);
    viz_clip(c->l, 0, 0, 0, 0);
}

/* ---- right side: narrative and cell arithmetic ---- */

/* One chip of text at x, y (w wide, ch high; wraps: its text on lines inside it). */
static void chip(const viz_ctx *c, float x, float y, float w, float ch, const char *text, bool wraps, bool enabled) {
    float px = c->small, pad = 7 * c->u;
    viz_rgba ink = enabled ? c->th->accent : c->th->muted;
    viz_fill(c->l, x, y, w, ch, c->th->panel2);
    viz_stroke(c->l, x, y, w, ch, 1.5f * c->u, ink);
    if (wraps) viz_wrap_ex(c, (viz_box){x + pad, y + 0.45f * px, w - 2 * pad, ch}, text, px, 0, 0, ink, true);
    else viz_label(c, x + pad, y, w - 2 * pad, px * 1.9f, text, px, VIZ_LEFT | VIZ_MIDDLE, ink);
}

/* Lays items[first..n) out in rows from (x, y) within in, later rows
 * starting at in.x + lw: how many fit above in's bottom. mode 0 only
 * measures, 1 draws, 2 adds the hit regions (widget, the index in delta).
 * *bottom: the end of the last row placed. */
static int chip_rows(const viz_ctx *c, viz_box in, float lw, float x, float y, const char *const *items, int first,
                     int n, int widget, int mode, float *bottom) {
    float px = c->small, h = px * 1.9f, gap = 6 * c->u, pad = 7 * c->u, row_h = h;
    int i = first;
    for (; i < n; i++) {
        float tw = viz_text_w(c, items[i], px) + 2 * pad, w = fminf(tw, in.w - lw), ch = h;
        bool wraps = tw > in.w - lw; // a long sentence takes lines inside its chip, never cut to …
        if (wraps) ch = viz_wrap_ex(c, (viz_box){0, 0, w - 2 * pad, 1e6f}, items[i], px, 0, 0, c->th->accent, false) + 0.9f * px;
        if (x + w > in.x + in.w + 0.5f && x > in.x + lw) x = in.x + lw, y += row_h + gap, row_h = h; // the next line
        if (y + ch > in.y + in.h) {                                                                  // no room left in the panel
            y -= row_h + gap;                                                                        // the rows placed end above
            break;
        }
        if (ch > row_h) row_h = ch;
        if (mode == 2) viz_hit_region(c->l, x, y, w, ch, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = widget, .delta = i});
        else if (mode == 1) chip(c, x, y, w, ch, items[i], wraps, true);
        x += w + gap;
    }
    *bottom = y + row_h;
    return i - first;
}

/* Chips that flow under the narrative's title after a label (the page's
 * @try suggestions, the model's words): their height; drawn, or (hits)
 * only their hit regions, which go over the panel's. What does not fit is
 * counted as +N; with page_widget, ‹ › chips after the label page through
 * all of them instead (page_widget's delta: the first item to show), from
 * item first. */
static float chips(const viz_ctx *c, viz_box in, const char *label, const char *const *items, int n, int widget,
                   int first, int page_widget, bool hits) {
    if (n <= 0 || in.h <= 0) return 0;
    float px = c->small, h = px * 1.9f, gap = 6 * c->u, pad = 7 * c->u, bottom = in.y;
    float lw = viz_text_w(c, label, px) + gap, y = in.y;
    if (lw > 0.5f * in.w) lw = 0, y += h; // a long label on a line of its own, cut to the panel
    if (!hits) viz_label(c, in.x, in.y, in.w, h, label, px, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
    if (first < 0 || first >= n || !page_widget) first = 0;
    int fit = chip_rows(c, in, lw, in.x + lw, y, items, first, n, widget, 0, &bottom);
    float nav = 0;
    if (page_widget && (first > 0 || first + fit < n)) { // paged: ‹ and › first, then the words they page through
        float aw = viz_text_w(c, "‹", px) + 2 * pad;
        nav = 2 * (aw + gap);
        if (y + h > in.y + in.h) return 0;
        fit = chip_rows(c, in, lw, in.x + lw + nav, y, items, first, n, widget, 0, &bottom);
        int back = first - (fit > 0 ? fit : 1), next = first + (fit > 0 ? fit : 1);
        bool can_back = first > 0, can_next = next < n;
        float ax = in.x + lw;
        if (hits) {
            if (can_back) viz_hit_region(c->l, ax, y, aw, h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = page_widget, .delta = back < 0 ? 0 : back});
            if (can_next) viz_hit_region(c->l, ax + aw + gap, y, aw, h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = page_widget, .delta = next});
        } else {
            chip(c, ax, y, aw, h, "‹", false, can_back);
            chip(c, ax + aw + gap, y, aw, h, "›", false, can_next);
        }
        if (bottom < y + h) bottom = y + h;
    } else if (first + fit < n && !hits) { // no room for the rest: say how many more rather than draw over the text
        char more[48];
        snprintf(more, sizeof more, "+%d", n - first - fit);
        float mw = viz_text_w(c, more, px) + 2 * pad;
        if (bottom - h >= in.y) viz_label(c, in.x + in.w - mw, bottom - h, mw, h, more, px, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
    }
    if (fit > 0 || nav > 0) chip_rows(c, in, lw, in.x + lw + nav, y, items, first, n, widget, hits ? 2 : 1, &bottom);
    return bottom + 6 * c->u - in.y;
}

/* The page's suggestions, then the model's words while its sentence is
 * edited: their height. They take at most what leaves the text a few
 * lines; the words page with ‹ › when they do not all fit. */
static float try_chips(const viz_ctx *c, viz_box in, bool hits) {
    const viz_scene *s = c->s;
    in.h -= 4 * c->body * 1.45f + c->small * 3.5f; // the text's first lines, "more below" and the hint stay readable
    float h = chips(c, in, viz_s(c, VIZ_S_LESSON_TRY), s->tries, s->n_tries, VIZ_W_TRY, 0, 0, hits);
    in.y += h;
    in.h -= h;
    return h + chips(c, in, viz_s(c, VIZ_S_MODEL_WORDS), s->words, s->n_words, VIZ_W_WORD, s->words_first, VIZ_W_WORD_PAGE, hits);
}

/* One button of the page controls: its text centred, a hit region when enabled. */
static void page_button(const viz_ctx *c, viz_box r, const char *text, int widget, int delta, bool enabled, float px) {
    viz_fill(c->l, r.x, r.y, r.w, r.h, enabled ? c->th->panel2 : c->th->panel);
    viz_stroke(c->l, r.x, r.y, r.w, r.h, 1, c->th->line);
    viz_label(c, r.x + 2 * c->u, r.y, r.w - 4 * c->u, r.h, text, px, VIZ_CENTER | VIZ_MIDDLE,
              enabled ? c->th->text : c->th->muted);
    if (enabled) viz_hit_region(c->l, r.x, r.y, r.w, r.h, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = widget, .delta = delta});
}

/* The lesson's page controls in b: ‹ Previous, the page list's button, Next ›. */
static void page_controls(const viz_ctx *c, viz_box b) {
    const viz_scene *s = c->s;
    int n = lesson_page_count(s->pages);
    char mid[96];
    snprintf(mid, sizeof mid, viz_s(c, VIZ_S_PAGE_LIST), s->page + 1, n);
    float px = c->small, gap = 6 * c->u, pad = 16 * c->u;
    const char *prev = viz_s(c, VIZ_S_PAGE_PREV), *next = viz_s(c, VIZ_S_PAGE_NEXT);
    float side = fmaxf(viz_text_w(c, prev, px), viz_text_w(c, next, px)) + pad;
    if (2 * side + 2 * gap + viz_text_w(c, mid, px) + pad > b.w) { // narrow: the arrows and the numbers say it
        prev = "‹", next = "›";
        side = viz_text_w(c, "‹", px) + 2 * pad;
        if (2 * side + 2 * gap + viz_text_w(c, mid, px) + pad > b.w) snprintf(mid, sizeof mid, "%d / %d ▾", s->page + 1, n);
    }
    float mw = b.w - 2 * side - 2 * gap;
    page_button(c, (viz_box){b.x, b.y, side, b.h}, prev, VIZ_PW_TURN, -1, s->page > 0, px);
    page_button(c, (viz_box){b.x + side + gap, b.y, mw, b.h}, mid, VIZ_PW_LIST, 0, true, px);
    page_button(c, (viz_box){b.x + b.w - side, b.y, side, b.h}, next, VIZ_PW_TURN, +1, s->page + 1 < n, px);
}

/* The page list over the window: every page's number and title, the one
 * shown marked; a click goes there. */
static void pages_overlay(const viz_ctx *c) {
    const viz_scene *s = c->s;
    int n = lesson_page_count(s->pages);
    viz_fill(c->l, 0, 0, (float)s->width, (float)s->height, viz_alpha(c->th->bg, 215));
    float w = s->width * 0.8f, h = s->height * 0.86f, x = (s->width - w) / 2, y = (s->height - h) / 2;
    viz_fill(c->l, x, y, w, h, c->th->panel);
    viz_stroke(c->l, x, y, w, h, 2 * c->u, c->th->accent);
    viz_hit_region(c->l, x, y, w, h, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_PAGES});
    float pad = 20 * c->u;
    viz_label(c, x + pad, y + pad, w - 2 * pad, c->big * 1.5f, viz_s(c, VIZ_S_PAGE_LIST_TITLE), c->big,
              VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    float top = y + pad + c->big * 1.9f, avail = y + h - pad - top;
    // one column while the rows stay readable, else two
    int cols = n > 0 && avail / n < c->body * 1.6f ? 2 : 1, per = (n + cols - 1) / cols;
    float rh = per > 0 ? fminf(c->body * 2.0f, avail / per) : 0, px = fminf(c->body, rh / 1.45f);
    float cw = (w - 2 * pad - (cols - 1) * pad) / cols;
    for (int i = 0; i < n; i++) {
        const lesson_page *pg = lesson_page_at(s->pages, i);
        float rx = x + pad + (i / per) * (cw + pad), ry = top + (i % per) * rh;
        char line[256];
        snprintf(line, sizeof line, "%d  %s", i + 1, pg && pg->title ? pg->title : "");
        bool cur = i == s->page;
        if (cur) viz_fill(c->l, rx, ry + 1, cw, rh - 2, c->th->accent);
        viz_label(c, rx + 8 * c->u, ry, cw - 16 * c->u, rh, line, px, VIZ_LEFT | VIZ_MIDDLE,
                  cur ? c->th->accent_text : c->th->text);
        viz_hit_region(c->l, rx, ry, cw, rh, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_PW_PAGE, .delta = i});
    }
}

static void narrative(const viz_ctx *c, viz_box b) {
    const viz_scene *s = c->s;
    float pad = 14 * c->u;
    if (s->pages && lesson_page_count(s->pages) > 0) { // where am I, and the way on: visible, not only in the help
        float nh = c->small * 2.2f;
        page_controls(c, (viz_box){b.x + pad, b.y + pad * 0.7f, b.w - 2 * pad, nh});
        b.y += nh + pad * 0.4f;
        b.h -= nh + pad * 0.4f;
    }
    const char *title = s->narrative_title                    ? s->narrative_title
                        : s->readout                          ? viz_s(c, VIZ_S_STEP_READOUT)
                        : s->hf && s->step == ATTN_STEP_EMBED ? viz_s(c, VIZ_S_HF_STEP_1)
                                                              : viz_s(c, (viz_str)(VIZ_S_STEP_1 + s->step));
    viz_box in = {b.x + pad, b.y + pad, b.w - 2 * pad, b.h - 2 * pad};
    float th = viz_wrap(c, (viz_box){in.x, in.y, in.w, c->big * 4.5f}, title, c->big, 0, c->th->text); // long titles wrap
    in.y += th + 4 * c->u;
    in.h -= th + 4 * c->u;
    viz_box chips = in;
    float tries_h = try_chips(c, chips, false);
    in.y += tries_h;
    in.h -= tries_h;
    viz_str backward = model_step_grad(s->step) == MODEL_ST_D_WEIGHTS ? VIZ_S_HINT_BACKWARD_SOFTMAX // ∂L/∂A
                                                                      : VIZ_S_HINT_BACKWARD;        // ∂L/∂S′
    char hint[2048];
    const char *text = s->narrative           ? s->narrative
                       : s->readout           ? viz_s(c, s->hf ? VIZ_S_HF_HINT_READOUT : VIZ_S_HINT_READOUT) // GPT-2's: LN_f, W_teᵀ
                       : viz_step_has_grad(c) ? viz_s(c, backward)
                                              : viz_step_hint(hint, sizeof hint, s->ui, s->step, s->trace ? &s->trace->cfg : NULL);
    char noted[4096];
    if (!s->narrative && s->narrative_note) { // where the lesson's text went, then the step's
        snprintf(noted, sizeof noted, "%s\n\n%s", s->narrative_note, text);
        text = noted;
    }
    float more_h = c->small * 1.5f;
    viz_box tb = {in.x, in.y, in.w, in.h - more_h};
    float total = viz_wrap_ex(c, tb, text, c->body, 0, 0, c->th->text, false);
    int scroll_max = total > tb.h ? (int)ceilf(total - tb.h) : 0;
    float scroll = s->narrative_scroll;
    if (scroll < 0) { // just answered: the verdict at the top of the panel, the revealed text below it
        const char *v = strstr(text, VIZ_VERDICT_MARK);
        char before[8192];
        size_t n = v ? (size_t)(v - text) : 0;
        if (n >= sizeof before) n = 0;
        memcpy(before, text, n);
        before[n] = '\0';
        scroll = n ? viz_wrap_ex(c, tb, before, c->body, 0, 0, c->th->text, false) - c->body * 1.45f * 0.5f : 0;
        scroll = fminf(fmaxf(scroll, 0), (float)scroll_max);
    }
    viz_wrap(c, tb, text, c->body, scroll, c->th->text);
    if (total - scroll > tb.h) // say there is more rather than cutting silently
        viz_text(c->l, in.x, in.y + in.h - more_h, in.w, more_h, viz_s(c, VIZ_S_MORE_BELOW), c->small,
                 VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
    viz_hit_region(c->l, b.x, b.y, b.w, b.h,
                   (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_NARRATIVE, .scroll_max = scroll_max, .scroll = (int)scroll});
    try_chips(c, chips, true);
}

/* A line of the cell arithmetic, wrapped with a hanging indent: its height,
 * drawn when draw. */
static float xline(const viz_ctx *c, const viz_xline *l, float x, float y, float w, float px, bool draw) {
    const viz_theme *th = c->th;
    viz_rgba col = l->kind == VIZ_XL_TITLE ? th->accent : l->focus                                          ? th->highlight
                                                      : l->kind == VIZ_XL_FORMULA || l->kind == VIZ_XL_NOTE ? th->muted
                                                                                                            : th->text;
    return viz_wrap_ex(c, (viz_box){x, y, w, 1e6f}, l->text, px, 0, 1.5f * px, col, draw);
}

/* Which terms of x fit in h pixels (with a line for each "more" marker):
 * [*from, *to), grown around the focus term, then moved by the scene's
 * detail_scroll (terms scrolled past that window). */
static void term_window(const viz_ctx *c, const viz_xtext *x, float w, float px, float h, int *from, int *to) {
    int n = x->n_terms, first = x->first_term;
    float used = 0;
#define TERM_H(k) xline(c, &x->lines[first + (k)], 0, 0, w, px, false)
    for (int k = 0; k < n; k++) used += TERM_H(k);
    *from = 0;
    *to = n;
    if (used <= h || n == 0) return; // all of them
    float room = h - 2 * px * 1.45f;
    int a = x->focus < n ? x->focus : 0, b = a + 1;
    room -= TERM_H(a);
    for (bool grew = true; grew;) { // one after, one before, while they fit
        grew = false;
        if (b < n && TERM_H(b) <= room) room -= TERM_H(b++), grew = true;
        if (a > 0 && TERM_H(a - 1) <= room) room -= TERM_H(--a), grew = true;
    }
    if (c->s->detail_scroll) { // the learner scrolled: the window starts elsewhere and fills down
        a += c->s->detail_scroll;
        a = a < 0 ? 0 : a >= n ? n - 1
                               : a;
        room = h - 2 * px * 1.45f - TERM_H(a);
        for (b = a + 1; b < n && TERM_H(b) <= room; b++) room -= TERM_H(b);
        while (a > 0 && TERM_H(a - 1) <= room) room -= TERM_H(--a); // at the end: show the last ones whole
    }
#undef TERM_H
    *from = a;
    *to = b;
}

static void detail(const viz_ctx *c, viz_box b) {
    float pad = 14 * c->u, px = c->small;
    viz_fill(c->l, b.x, b.y, b.w, 1, c->th->line);
    viz_hit_region(c->l, b.x, b.y, b.w, b.h, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_DETAIL});
    viz_box in = {b.x + pad, b.y + pad, b.w - 2 * pad, b.h - 2 * pad};
    viz_label(c, in.x, in.y, in.w, c->body * 1.5f, viz_s(c, VIZ_S_DETAIL), c->body, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    in.y += c->body * 1.7f;
    in.h -= c->body * 1.7f;
    viz_xtext x;
    bool ln = c->s->hf && c->s->hf->ln_valid && c->s->explain && c->s->explain->stage == ATTN_ST_X; // LayerNorm's
    bool ok = ln                    ? viz_explain_ln_text(&x, c->s->explain, c->s->trace, c->s->hf, c->s->ui)
              : c->s->model_explain ? viz_explain_model_text(&x, c->s->model_explain, c->s->run, c->s->model, c->s->ui)
              : c->s->explain       ? viz_explain_text(&x, c->s->explain, c->s->trace, c->s->ui, c->s->feature_names)
                                    : false;
    if (!ok) {
        viz_wrap(c, in, viz_s(c, VIZ_S_DETAIL_EMPTY), c->small, 0, c->th->muted);
        return;
    }
    // everything but the terms always shows; the terms get the room left, around the one in focus
    float fixed = 0, y = in.y;
    for (int i = 0; i < x.n; i++)
        if (i < x.first_term || i >= x.first_term + x.n_terms) fixed += xline(c, &x.lines[i], 0, 0, in.w, px, false);
    int from, to;
    term_window(c, &x, in.w, px, in.h - fixed, &from, &to);
    char more[96];
    for (int i = 0; i < x.n; i++) {
        bool term = i >= x.first_term && i < x.first_term + x.n_terms;
        int k = i - x.first_term;
        if (term && k == from && from > 0) {
            snprintf(more, sizeof more, viz_s(c, VIZ_S_XP_MORE_ABOVE), from);
            y += viz_wrap(c, (viz_box){in.x, y, in.w, px * 1.45f}, more, px, 0, c->th->muted);
        }
        if (!term || (k >= from && k < to)) y += xline(c, &x.lines[i], in.x, y, in.w, px, true);
        if (term && k == to - 1 && to < x.n_terms) {
            snprintf(more, sizeof more, viz_s(c, VIZ_S_XP_MORE_BELOW), x.n_terms - to);
            y += viz_wrap(c, (viz_box){in.x, y, in.w, px * 1.45f}, more, px, 0, c->th->muted);
        }
    }
    viz_xtext_free(&x);
}

static void status_line(const viz_ctx *c, viz_box b) {
    float pad = 10 * c->u; // its background: viz_build_window's
    viz_fill(c->l, b.x, b.y, b.w, 1, c->th->line);
    float rw = 0;
    if (c->s->page_label) {
        rw = viz_text_w(c, c->s->page_label, c->small) + 2 * pad;
        if (rw > 0.45f * b.w) rw = 0.45f * b.w; // a long title gives way to the status message (cut with …)
        viz_label(c, b.x + b.w - rw, b.y, rw - pad, b.h, c->s->page_label, c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
    }
    const char *st = c->s->status ? c->s->status : viz_s(c, VIZ_S_STATUS_READY);
    viz_label(c, b.x + pad, b.y, b.w - rw - 2 * pad, b.h, st, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
}

static void help_overlay(const viz_ctx *c) {
    const viz_scene *s = c->s;
    viz_fill(c->l, 0, 0, (float)s->width, (float)s->height, viz_alpha(c->th->bg, 215));
    float w = s->width * 0.8f, h = s->height * 0.84f, x = (s->width - w) / 2, y = (s->height - h) / 2;
    viz_fill(c->l, x, y, w, h, c->th->panel);
    viz_stroke(c->l, x, y, w, h, 2 * c->u, c->th->accent);
    float pad = 20 * c->u;
    viz_label(c, x + pad, y + pad, w - 2 * pad, c->big * 1.5f, viz_s(c, VIZ_S_HELP_TITLE), c->big, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
    // the largest text size at which every key line fits
    const char *keys = viz_s(c, VIZ_S_HELP_KEYS);
    int lines = 1;
    for (const char *p = keys; *p; p++) lines += *p == '\n';
    float avail = h - 2 * pad - c->big * 2.6f, px = c->body;
    if (avail / lines < px * 1.45f) px = avail / lines / 1.45f;
    viz_box tb = {x + pad, y + pad + c->big * 1.8f, w - 2 * pad, avail};
    float keys_h = 0, note_h = 0;
    for (int k = 0; s->help_note && k < 24; k++, px *= 0.95f) { // the platform's lines below, wrapped: smaller until both fit
        keys_h = viz_wrap_ex(c, tb, keys, px, 0, 0, c->th->text, false);
        note_h = viz_wrap_ex(c, tb, s->help_note, px, 0, 0, c->th->accent, false);
        if (keys_h + px * 0.75f + note_h <= avail) break;
    }
    if (s->help_note) tb.h = keys_h;
    viz_wrap(c, tb, keys, px, 0, c->th->text);
    if (s->help_note)
        viz_wrap(c, (viz_box){tb.x, tb.y + keys_h + px * 0.75f, tb.w, note_h}, s->help_note, px, 0, c->th->accent);
    viz_text(c->l, x + pad, y + h - pad - c->small * 1.4f, w - 2 * pad, c->small * 1.4f, viz_s(c, VIZ_S_HELP_CLOSE),
             c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
}

/* The figure view (F): the step's figure on the whole window, its badge at
 * the top right, and how to leave it at the bottom right. */
static void figure_only(const viz_ctx *c) {
    const viz_scene *s = c->s;
    float W = (float)s->width, H = (float)s->height;
    viz_fill(c->l, 0, 0, W, H, c->th->bg);
    float pad = 14 * c->u, hint_h = c->small * 1.5f;
    if (s->badge) { // figures carry where their weights came from
        float bw = viz_text_w(c, s->badge, c->small) + 20 * c->u;
        viz_text(c->l, W - bw - pad, pad, bw, c->big * 1.4f, s->badge, c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
    }
    canvas(c, (viz_box){0, 0, W, H - hint_h}, false);
    const char *hint = viz_s(c, VIZ_S_FIGURE_HINT);
    float hw = fminf(viz_text_w(c, hint, c->small) + 4 * c->u, W - 2 * pad);
    if (s->status) // what a key just did (saved, copied) still shows, on the left
        viz_label(c, pad, H - hint_h, fmaxf(0, W - hw - 4 * pad), hint_h, s->status, c->small, VIZ_LEFT | VIZ_MIDDLE,
                  c->th->muted);
    viz_text(c->l, W - pad - hw, H - hint_h, hw, hint_h, hint, c->small, VIZ_RIGHT | VIZ_MIDDLE, c->th->muted);
}

void viz_build_window(viz_list *l, const viz_scene *s, viz_measure m) {
    viz_ctx c;
    ctx_init(&c, l, s, m);
    viz_clear(l);
    float W = (float)s->width, H = (float)s->height, u = c.u;
    // a theme that wants readable values (presenter) gives the canvas the room the chrome would take
    bool roomy = c.value_min > 0;
    // the other themes write values at 11 px or more where the layout can make room (a laptop's window)
    if (c.value_min <= 0) c.value_min = LAPTOP_VALUE_PX * c.u;
    float top = (roomy ? 42 : 54) * u, status = (roomy ? 22 : 28) * u;
    if (s->train) { // the training view covers all but the status line: nothing under it is laid out or drawn
        viz_fill(l, 0, 0, W, H - status, c.th->bg);
        viz_fill(l, 0, H - status, W, status, c.th->panel);
        status_line(&c, (viz_box){0, H - status, W, status});
        viz_train_overlay(&c, status);
        if (s->show_lab) viz_lab_overlay(&c);
        if (s->show_help) help_overlay(&c);
        return;
    }
    if (s->figure_only) { // F: the figure alone, as the figure export draws it, on the whole window
        figure_only(&c);
        if (s->show_lab) viz_lab_overlay(&c);
        if (s->show_help) help_overlay(&c);
        return;
    }
    float rail_w = roomy ? fmaxf(fmaxf(160 * u, 200.0f), fminf(W * 0.16f, 240 * u)) : fmaxf(200 * u, fminf(W * 0.19f, 270 * u));
    float side_w = roomy ? fmaxf(230 * u, fminf(W * 0.23f, 400 * u)) : fmaxf(250 * u, fminf(W * 0.27f, 440 * u));
    if (rail_w + side_w > W * 0.62f) { // narrow windows: shrink the side panels first
        float k = W * 0.62f / (rail_w + side_w);
        rail_w *= k;
        side_w *= k;
    }
    float body_h = H - top - status;
    char *prose = NULL, *code = NULL; // a lesson page's code goes where the figure would be, its prose stays
    viz_scene split;
    if (s->narrative_title && s->narrative && !s->model && strchr(s->narrative, VIZ_CODE_MARK[0]) &&
        split_code(s->narrative, &prose, &code)) {
        split = *s;
        split.narrative = prose;
        c.s = &split;
    }
    // every pixel is covered once, first, by the panels' opaque backgrounds (so the rasteriser
    // need not clear what they cover), then drawn over
    viz_fill(l, 0, 0, W, top, c.th->panel);
    viz_fill(l, 0, top, rail_w, body_h, c.th->panel);
    viz_fill(l, rail_w, top, W - rail_w - side_w, body_h, c.th->bg);
    viz_fill(l, W - side_w, top, side_w, body_h, c.th->panel);
    viz_fill(l, 0, H - status, W, status, c.th->panel);
    sentence_bar(&c, (viz_box){0, 0, W, top});
    rail(&c, (viz_box){0, top, rail_w, body_h});
    if (s->show_decode) viz_decode_view(&c, (viz_box){rail_w, top, W - rail_w - side_w, body_h}, true);
    else if (s->hf && s->hf->show_models) viz_draw_hf_models(&c, (viz_box){rail_w, top, W - rail_w - side_w, body_h});
    else if (code) code_canvas(&c, (viz_box){rail_w, top, W - rail_w - side_w, body_h}, code);
    else canvas(&c, (viz_box){rail_w, top, W - rail_w - side_w, body_h}, true);
    viz_fill(l, W - side_w, top, 1, body_h, c.th->line);
    if (s->explain || s->model_explain) { // a cell hovered: its arithmetic below the text
        float nar_h = body_h * 0.52f;
        narrative(&c, (viz_box){W - side_w, top, side_w, nar_h});
        detail(&c, (viz_box){W - side_w, top + nar_h, side_w, body_h - nar_h});
    } else { // nothing to explain: the text takes the room, one line says how to see a cell's arithmetic
        float pad = 14 * c.u, hint_w = side_w - 2 * pad;
        float hint_h = fminf(viz_wrap_ex(&c, (viz_box){0, 0, hint_w, 1e6f}, viz_s(&c, VIZ_S_DETAIL_EMPTY), c.small * 0.92f,
                                         0, 0, c.th->muted, false),
                             c.small * 4.5f) +
                       pad;
        narrative(&c, (viz_box){W - side_w, top, side_w, body_h - hint_h});
        viz_fill(l, W - side_w + pad, top + body_h - hint_h, side_w - 2 * pad, 1, c.th->line);
        viz_wrap(&c, (viz_box){W - side_w + pad, top + body_h - hint_h + pad * 0.4f, hint_w, hint_h - pad * 0.4f},
                 viz_s(&c, VIZ_S_DETAIL_EMPTY), c.small * 0.92f, 0, c.th->muted);
        viz_hit_region(l, W - side_w, top + body_h - hint_h, side_w, hint_h,
                       (viz_hit){.kind = VIZ_HIT_PANEL, .panel = VIZ_PANEL_DETAIL});
    }
    status_line(&c, (viz_box){0, H - status, W, status});
    if (s->tiles) viz_tiles_overlay(&c);
    if (s->show_lab) viz_lab_overlay(&c);
    if (s->show_pages && s->pages) pages_overlay(&c);
    if (s->show_help) help_overlay(&c);
    free(prose);
    free(code);
}

void viz_build_figure(viz_list *l, const viz_scene *s, viz_measure m, int w, int h) {
    viz_ctx c;
    ctx_init(&c, l, s, m);
    c.figure = true;
    viz_clear(l);
    viz_fill(l, 0, 0, (float)w, (float)h, c.th->bg);
    if (s->tiles) { // issue 24: a step of the tiles view is the figure
        viz_tiles_overlay(&c);
        return;
    }
    if (s->badge) { // figures carry where their weights came from
        float bw = viz_text_w(&c, s->badge, c.small) + 20 * c.u;
        viz_text(l, w - bw - 14 * c.u, 14 * c.u, bw, c.big * 1.4f, s->badge, c.small, VIZ_RIGHT | VIZ_MIDDLE, c.th->muted);
    }
    if (s->show_decode) viz_decode_view(&c, (viz_box){0, 0, (float)w, (float)h}, false);
    else canvas(&c, (viz_box){0, 0, (float)w, (float)h}, false);
}
