/* viz_hfmodel.c — the model view of a real model (F6, --hf; issue 26): every
 * layer × head as a strip of the query's weights, and beside it the head
 * finder, the heads ranked by each score. Click a strip or a line to open
 * that head in the walkthrough; Z (or the toggle) hides the first token and
 * renormalises, since real models pour most weight onto it (an attention
 * sink) and a shared scale then shows little else. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viz_internal.h"

#define FINDER_ROWS 8 /* heads listed per score */

/* One head's strip: n cells of the query's row, each strip scaled to its own
 * largest weight (written after it) so that a strip with small weights stays
 * readable; hidden first token drawn hatched. */
static void strip(const viz_ctx *c, float x, float y, float w, float h, const double *row, int n, bool hide) {
    double mx = 0;
    for (int j = 0; j < n; j++) mx = fmax(mx, row[j]);
    float cw = w / (float)n;
    viz_fill(c->l, x, y, w, h, c->th->panel2);
    for (int j = 0; j < n; j++) {
        if (hide && j == 0) {
            viz_fill(c->l, x, y, cw, h, c->th->masked);
            continue;
        }
        double t = mx > 0 ? row[j] / mx : 0;
        if (t > 0.02) viz_fill(c->l, x + j * cw, y, fmaxf(cw, 1.0f), h, viz_sequential(t));
    }
}

static void finder(const viz_ctx *c, viz_box b) {
    const viz_hf *hf = c->s->hf;
    static const viz_str names[3] = {VIZ_S_HF_SCORE_PREV, VIZ_S_HF_SCORE_INDUCTION, VIZ_S_HF_SCORE_FIRST};
    float y = b.y, lh = c->small * 1.5f;
    char buf[256];
    // the title wraps in a narrow column rather than being cut to "…"
    y += viz_wrap_ex(c, (viz_box){b.x, y, b.w, 1e4f}, viz_s(c, VIZ_S_HF_FINDER), c->body, 0, 0, c->th->text, true) +
         c->body * 0.3f;
    // as many heads per score as the room left by the three descriptions allows, up to FINDER_ROWS
    char desc[3][256];
    float desc_h = 0, dpx = c->small * 0.85f;
    for (int k = 0; k < 3; k++) {
        if (k == 1) snprintf(desc[k], sizeof desc[k], viz_s(c, names[k]), 2 * hf->induction_len);
        else snprintf(desc[k], sizeof desc[k], "%s", viz_s(c, names[k]));
        desc_h += viz_wrap_ex(c, (viz_box){b.x, 0, b.w, 1e4f}, desc[k], dpx, 0, 0, c->th->muted, false) + 2 * c->u + lh * 0.5f;
    }
    int count = hf->layers * hf->heads, fit = (int)((b.y + b.h - y - desc_h) / (3 * lh));
    int rows = count < FINDER_ROWS ? count : FINDER_ROWS;
    if (fit < rows) rows = fit < 1 ? 1 : fit;
    float bottom = b.y + b.h; // nothing is drawn below the canvas, whatever the measures said
    for (int k = 0; k < 3; k++) {
        if (!hf->scores[k] || !hf->order[k]) continue;
        float dh = viz_wrap_ex(c, (viz_box){b.x, y, b.w, 1e4f}, desc[k], dpx, 0, 0, c->th->muted, false);
        if (y + dh + 2 * c->u + lh > bottom) break; // no room for this score's description and one head
        viz_wrap_ex(c, (viz_box){b.x, y, b.w, 1e4f}, desc[k], dpx, 0, 0, c->th->muted, true);
        y += dh + 2 * c->u;
        for (int i = 0; i < rows && y + lh <= bottom; i++) {
            int id = hf->order[k][i];
            double v = hf->scores[k][id];
            snprintf(buf, sizeof buf, viz_s(c, VIZ_S_HF_FINDER_ROW), id / hf->heads + 1, id % hf->heads + 1);
            float nw = viz_text_w(c, "L00 H00", c->small) + 6 * c->u, bx = b.x + nw;
            float bw = fmaxf(b.w - nw - viz_text_w(c, "0.000", c->small) - 10 * c->u, 10 * c->u);
            viz_label(c, b.x, y, nw - 4 * c->u, lh, buf, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->text);
            viz_fill(c->l, bx, y + lh * 0.2f, bw, lh * 0.6f, c->th->panel2);
            viz_fill(c->l, bx, y + lh * 0.2f, (float)(bw * fmax(0.0, fmin(1.0, v))), lh * 0.6f, viz_sequential(0.35 + 0.65 * v));
            snprintf(buf, sizeof buf, "%.3f", v);
            viz_text(c->l, bx + bw + 4 * c->u, y, b.w - (bx + bw + 4 * c->u - b.x), lh, buf, c->small, VIZ_LEFT | VIZ_MIDDLE,
                     c->th->text);
            viz_hit_region(c->l, b.x, y, b.w, lh, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_W_HF_HEAD, .delta = id});
            y += lh;
        }
        y += lh * 0.5f;
    }
}

void viz_draw_hf_models(const viz_ctx *c, viz_box b) {
    const viz_scene *s = c->s;
    const viz_hf *hf = s->hf;
    const attn_trace *t = s->trace;
    float pad = 16 * c->u, x = b.x + pad, y = b.y + pad, w = b.w - 2 * pad;
    char buf[320], q[96];
    int n = t->n, query = s->query >= 0 && s->query < n ? s->query : n - 1;
    attn_token_label(&t->tokens, query, 14, q, sizeof q);
    snprintf(buf, sizeof buf, viz_s(c, VIZ_S_HF_MODELS_TITLE), hf->layers, hf->heads, q);
    float th = viz_wrap_ex(c, (viz_box){x, y, w, 1e4f}, buf, c->body, 0, 0, c->th->text, true);
    y += th + 4 * c->u;
    // the toggle: hide the first token and renormalise
    snprintf(buf, sizeof buf, "%s %s", hf->hide_first ? "☑" : "☐", viz_s(c, VIZ_S_HF_HIDE_FIRST));
    float tw = fminf(viz_text_w(c, buf, c->small) + 12 * c->u, w);
    viz_fill(c->l, x, y, tw, c->small * 1.8f, hf->hide_first ? c->th->accent : c->th->panel2);
    viz_label(c, x, y, tw, c->small * 1.8f, buf, c->small, VIZ_CENTER | VIZ_MIDDLE, hf->hide_first ? c->th->accent_text : c->th->text);
    viz_hit_region(c->l, x, y, tw, c->small * 1.8f, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_W_HF_HIDE});
    y += c->small * 2.2f;
    th = viz_wrap_ex(c, (viz_box){x, y, w, 1e4f}, viz_s(c, VIZ_S_HF_MODELS_SCALE), c->small * 0.9f, 0, 0, c->th->muted, true);
    y += th + 6 * c->u;
    if (!hf->grid) return;
    // the grid: layers down, heads across; the finder on the right
    float fw = w * 0.3f, gw = w - fw - pad, gh = b.y + b.h - pad - y;
    float lab = viz_text_w(c, "L00", c->small) + 6 * c->u, hdr = c->small * 1.4f;
    float cw = (gw - lab) / (float)hf->heads, ch = fminf((gh - hdr) / (float)hf->layers, cw * 0.8f);
    for (int h = 0; h < hf->heads; h++) {
        snprintf(buf, sizeof buf, "%d", h + 1);
        viz_label(c, x + lab + h * cw, y, cw, hdr, buf, c->small, VIZ_CENTER | VIZ_MIDDLE, c->th->muted);
    }
    for (int l = 0; l < hf->layers; l++) {
        float ry = y + hdr + l * ch;
        snprintf(buf, sizeof buf, "L%d", l + 1);
        viz_label(c, x, ry, lab, ch, buf, c->small, VIZ_LEFT | VIZ_MIDDLE, c->th->muted);
        for (int h = 0; h < hf->heads; h++) {
            int id = l * hf->heads + h;
            float sx = x + lab + h * cw + 2 * c->u, sy = ry + 2 * c->u, sw = cw - 4 * c->u, sh = ch - 4 * c->u;
            strip(c, sx, sy, sw, sh, hf->grid + (size_t)id * n, n, hf->hide_first);
            if (l == s->layer && h == s->head) viz_stroke(c->l, sx - 1, sy - 1, sw + 2, sh + 2, 2 * c->u, c->th->highlight);
            viz_hit_region(c->l, sx, sy, sw, sh, (viz_hit){.kind = VIZ_HIT_WIDGET, .widget = VIZ_W_HF_HEAD, .delta = id});
        }
    }
    finder(c, (viz_box){x + gw + pad, y, fw, gh});
}
