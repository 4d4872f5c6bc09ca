/* export_figure.c — the display list of one exported figure (or window), the
 * way the GUI builds it, plus the optional caption band. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "attn_steps.h"
#include "export_internal.h"
#include "utf8.h"

/* Caption: three lines of small text in a band under the figure. */
#define CAPTION_LINES 3
#define CAPTION_PX 13.0f  /* at UI unit 1, like the UI's small text */
#define CAPTION_LINE 1.5f /* line height in text sizes */
#define CAPTION_PAD 8.0f

/* The scene's UI scale for a pixel scale. */
static float scene_scale(const export_opts *o, int pixel_scale) {
    return (o->ui_scale > 0 ? o->ui_scale : 1.0f) * (float)pixel_scale;
}

static float unit(const export_opts *o, int pixel_scale) {
    return scene_scale(o, pixel_scale) * viz_theme_get(o->theme)->body_px / 15.0f; // as the UI computes its unit
}

/* Height in pixels of the caption band at scale (0 without a caption). */
static int caption_px(const export_opts *o, int scale) {
    if (!o->caption) return 0;
    float u = unit(o, scale);
    return (int)lroundf(CAPTION_LINES * CAPTION_LINE * CAPTION_PX * u + 2 * CAPTION_PAD * u);
}

/* The scene the GUI would build for this item (app_scene on a fresh state). */
static void item_scene(viz_scene *s, const export_opts *o, const export_item *it, const viz_strings *ui,
                       const char *badge, float scale, int w, int h) {
    const attn_trace *t = it->trace;
    memset(s, 0, sizeof *s);
    s->trace = t;
    s->feature_names = it->feature_names;
    s->names = it->names;
    s->question = it->page && it->page->predict.on;
    s->step = it->step;
    s->head = it->head >= 0 && it->head < t->cfg.heads ? it->head : 0;
    s->head_b = t->cfg.heads > 1 ? 1 : 0;
    s->query = it->query >= 0 && it->query < t->n ? it->query : attn_trace_default_query(t);
    s->mark = it->mark;
    s->hover.kind = VIZ_HIT_NONE;
    bool second = it->compare == VIZ_COMPARE_SCALE || it->compare == VIZ_COMPARE_CONFIG;
    s->compare = second && !it->alt ? VIZ_COMPARE_OFF : it->compare; // the split view shown, as the window shows it
    s->alt_trace = second ? it->alt : NULL;
    if (s->compare == VIZ_COMPARE_HEADS && it->head_b >= 0 && it->head_b < t->cfg.heads) s->head_b = it->head_b;
    s->compare_labels[0] = it->compare_labels[0];
    s->compare_labels[1] = it->compare_labels[1];
    s->focus = VIZ_FOCUS_CANVAS;
    s->canvas_zoom = 1.0f;
    s->sentence = t->tokens.text;
    s->composition = "";
    s->ui = ui ? ui->s[o->lang] : NULL;
    s->badge = badge;
    s->narrative_title = it->title;
    s->narrative = it->narrative ? it->narrative : it->text;
    s->theme = o->theme;
    s->scale = scale;
    s->width = w;
    s->height = h;
    s->model = it->model;
    s->run = it->model ? it->run : NULL;
    s->layer = it->layer;
    s->readout = it->model && it->readout;
    s->backward = it->model && it->backward;
    s->target = it->target;
    s->show_decode = it->decode != NULL;
    s->decode = it->decode;
    s->tiles = it->tiles;
    s->tiles_step = it->tiles_step;
}

/* Longest prefix of s (bytes) whose width plus an ellipsis fits in w. */
static size_t fit_prefix(viz_measure m, const char *s, float w, float px) {
    float ell = m.width(m.ctx, "…", strlen("…"), px);
    size_t len = strlen(s), best = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        i += k > 0 ? (size_t)k : 1;
        if (m.width(m.ctx, s, i, px) + ell > w) break;
        best = i;
    }
    return best;
}

/* One caption line: shrunk to at most 30% smaller, then cut with "…". */
static void caption_line(viz_list *l, viz_measure m, const char *s, float x, float y, float w, float h, float px,
                         viz_rgba col) {
    float tw = m.width(m.ctx, s, strlen(s), px);
    if (tw > w && tw * 0.7f <= w) px *= w / tw;
    else if (tw > w) px *= 0.7f;
    if (m.width(m.ctx, s, strlen(s), px) <= w) {
        viz_text(l, x, y, w, h, s, px, VIZ_LEFT | VIZ_MIDDLE, col);
        return;
    }
    char buf[1024];
    size_t keep = fit_prefix(m, s, w, px);
    if (keep > sizeof buf - 4) keep = sizeof buf - 4;
    memcpy(buf, s, keep);
    memcpy(buf + keep, "…", strlen("…") + 1);
    viz_text(l, x, y, w, h, buf, px, VIZ_LEFT | VIZ_MIDDLE, col);
}

/* The band: step and equation; sentence; configuration, weights, version. */
static void caption(viz_list *l, viz_measure m, const export_opts *o, const export_item *it, const viz_strings *ui,
                    const char *badge, int scale, float top, float w) {
    const viz_theme *th = viz_theme_get(o->theme);
    const attn_trace *t = it->trace;
    float u = unit(o, scale), px = CAPTION_PX * u, lh = CAPTION_LINE * px, pad = CAPTION_PAD * u;
    char eq[256], line[1024]; // a longer sentence is cut (then shortened with "…" anyway)
    attn_strbuf cfg;
    attn_sb_init(&cfg);
    viz_fill(l, 0, top, w, (float)caption_px(o, scale), th->panel);
    viz_fill(l, 0, top, w, fmaxf(1.0f, roundf(u)), th->line);
    attn_stage_equation(t, attn_step_result(it->step), eq, sizeof eq);
    if (it->readout) snprintf(line, sizeof line, "%d · %s", ATTN_STEP_NUMBERED + 1, ex_str(ui, o->lang, VIZ_S_STEP_READOUT));
    else snprintf(line, sizeof line, "%s · %s   %s", attn_step_key(it->step), ex_str(ui, o->lang, (viz_str)(VIZ_S_STEP_1 + it->step)), eq);
    caption_line(l, m, line, pad * 2, top + pad, w - 4 * pad, lh, px, th->text);
    snprintf(line, sizeof line, o->lang == VIZ_LANG_ZH ? "%s：%s" : "%s: %s", ex_str(ui, o->lang, VIZ_S_SENTENCE),
             t->tokens.text);
    ex_utf8_trim(line);
    caption_line(l, m, line, pad * 2, top + pad + lh, w - 4 * pad, lh, px, th->text);
    ex_item_config_text(&cfg, it);
    snprintf(line, sizeof line, "%s · %s · attnviz %s", cfg.data ? cfg.data : "", badge, ATTN_VERSION);
    ex_utf8_trim(line);
    caption_line(l, m, line, pad * 2, top + pad + 2 * lh, w - 4 * pad, lh, px, th->muted);
    attn_sb_free(&cfg);
}

bool export_build_list(viz_list *l, const export_opts *o, const export_item *it, const viz_strings *ui,
                       viz_fonts *fonts, int pixel_scale) {
    return ex_build_view(l, o, it, ui, fonts, pixel_scale, NULL);
}

bool ex_build_view(viz_list *l, const export_opts *o, const export_item *it, const viz_strings *ui, viz_fonts *fonts,
                   int pixel_scale, const ex_view *v) {
    char badge[320];
    viz_scene s;
    viz_measure m = viz_fonts_measure(fonts);
    int w = o->width * pixel_scale, h = o->height * pixel_scale, body_h = h - caption_px(o, pixel_scale);
    ex_badge(badge, sizeof badge, o, ui, it);
    item_scene(&s, o, it, ui, badge, scene_scale(o, pixel_scale), w, body_h);
    if (v) { // what a reader of a page has chosen
        s.hover = v->hover;
        s.hide_weights = v->hide_weights;
    }
    if (o->view == EXPORT_VIEW_WINDOW) viz_build_window(l, &s, m);
    else viz_build_figure(l, &s, m, w, body_h);
    if (o->caption) caption(l, m, o, it, ui, badge, pixel_scale, (float)body_h, (float)w);
    return !l->failed;
}
