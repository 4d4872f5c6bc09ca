/* export_html.c — --format html: one self-contained page per item and a
 * handout with every page in order. A page is the item's heading and text,
 * the figure as inline SVG (the SVG writer's, from the same display list),
 * its cell-arithmetic panel, and one small script; nothing is fetched. The
 * data the script needs sits in a block inside each figure, JSON compressed
 * with zlib and written in base64 (the browser's DecompressionStream reads
 * it; a seed-sentence page's data shrinks from ~220 KB to ~40 KB): the slots'
 * fragments per query, each cell's hover overlay and panel lines, and for a
 * question still open the revealed figure. Ids carry the figure's prefix;
 * the script defines no globals, so figures can share a document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export.h"
#include "attn_steps.h"
#include "export_internal.h"
#include "viz_lesson.h"
#include "hash.h"

/* ---- small pieces ---- */

/* The style attribute with the theme's --av-* colours and fonts; more (NULL:
 * none) adds declarations. */
static void theme_vars(attn_strbuf *b, viz_theme_id id, const char *more) {
    const viz_theme *th = viz_theme_get(id);
    const struct {
        const char *name;
        viz_rgba c;
    } v[] = {
        {"bg", th->bg}, {"panel", th->panel}, {"text", th->text}, {"muted", th->muted}, {"accent", th->accent}, {"hl", th->highlight}, {"line", th->line}};
    attn_sb_puts(b, " style=\"");
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        attn_sb_printf(b, "--av-%s:#%02x%02x%02x;", v[i].name, v[i].c.r, v[i].c.g, v[i].c.b);
    attn_sb_printf(b, "--av-font:%s%s\"", EX_SVG_FONTS, more ? more : "");
}

/* A lesson paragraph's text with its spans as <em> and <code>, and its
 * {references} computed on the page's traces. */
static void para_spans(attn_strbuf *b, const export_item *it, const char *const *ui, const lesson_para *p) {
    int at = 0, len = (int)strlen(p->text);
    char *copy = strdup(p->text), val[128];
    if (!copy) return;
    for (int k = 0; k <= p->n_spans; k++) {
        const lesson_span *sp = k < p->n_spans ? &p->spans[k] : NULL;
        int end = sp ? sp->start : len;
        char keep = copy[end];
        copy[end] = '\0';
        ex_xml_text(b, copy + at);
        copy[end] = keep;
        if (!sp) break;
        keep = copy[sp->start + sp->len];
        copy[sp->start + sp->len] = '\0';
        if (sp->kind == LESSON_SPAN_REF && sp->ref >= 0) {
            viz_ref_ctx x;
            export_item_refs(&x, it, ui);
            viz_lesson_ref(val, sizeof val, &it->page->refs[sp->ref], &x);
            ex_xml_text(b, val);
        } else {
            const char *tag = sp->kind == LESSON_SPAN_CODE ? "code" : "em";
            attn_sb_printf(b, "<%s>", tag);
            ex_xml_text(b, copy + sp->start);
            attn_sb_printf(b, "</%s>", tag);
        }
        copy[sp->start + sp->len] = keep;
        at = sp->start + sp->len;
    }
    free(copy);
}

/* The page's text: a lesson page's paragraphs, items and code (those before
 * its @reveal, or with after_reveal those after it, hidden until the reader
 * answers), else plain paragraphs split at blank lines (a step's hint). */
static void text_html(attn_strbuf *b, const export_item *it, const char *text, const char *const *ui, bool after_reveal) {
    const lesson_page *pg = it->page;
    if (after_reveal && !(pg && pg->has_reveal)) return;
    attn_sb_puts(b, after_reveal ? "<div class=\"attnviz-text\" data-reveal=\"\" hidden>\n" : "<div class=\"attnviz-text\">\n");
    viz_ref_ctx x;
    if (pg) export_item_refs(&x, it, ui);
    bool said = false; // the @edited text, once, in place of what does not hold for the sentence shown
    for (int i = 0; pg && i < pg->n_paras; i++) {
        const lesson_para *p = &pg->paras[i];
        if (pg->has_reveal && p->after_reveal != after_reveal) continue;
        if (p->edited) continue;
        if (!export_para_holds(pg, p, &x)) {
            for (int e = 0; e < pg->n_paras && !said; e++) {
                if (!pg->paras[e].edited || !export_para_holds(pg, &pg->paras[e], &x)) continue;
                attn_sb_puts(b, "<p>");
                para_spans(b, it, ui, &pg->paras[e]);
                attn_sb_puts(b, "</p>\n");
            }
            said = true;
            continue;
        }
        bool prev_item = i > 0 && pg->paras[i - 1].kind == LESSON_PARA_ITEM && pg->paras[i - 1].after_reveal == p->after_reveal;
        bool next_item = i + 1 < pg->n_paras && pg->paras[i + 1].kind == LESSON_PARA_ITEM &&
                         pg->paras[i + 1].after_reveal == p->after_reveal;
        if (p->kind == LESSON_PARA_CODE) {
            attn_sb_puts(b, "<pre><code>");
            ex_xml_text(b, p->text);
            attn_sb_puts(b, "</code></pre>\n");
            continue;
        }
        attn_sb_puts(b, p->kind == LESSON_PARA_ITEM ? (prev_item ? "<li>" : "<ul>\n<li>") : "<p>");
        para_spans(b, it, ui, p);
        attn_sb_puts(b, p->kind == LESSON_PARA_ITEM ? (next_item ? "</li>\n" : "</li>\n</ul>\n") : "</p>\n");
    }
    for (const char *s = pg ? "" : text; *s;) { // blank lines part paragraphs
        const char *end = strstr(s, "\n\n");
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *para = strndup(s, len);
        if (para && *para) {
            attn_sb_puts(b, "<p>");
            ex_xml_text(b, para);
            attn_sb_puts(b, "</p>\n");
        }
        free(para);
        s += len;
        while (*s == '\n') s++;
    }
    attn_sb_puts(b, "</div>\n");
}

/* Appends json compressed with zlib, in base64: text a <script> block holds
 * as it is. False when memory ran out. */
static bool script_data(attn_strbuf *b, const attn_strbuf *json) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uLongf len = compressBound((uLong)json->len);
    unsigned char *z = malloc(len + 2);
    bool ok = z && compress2(z, &len, (const Bytef *)json->data, (uLong)json->len, 9) == Z_OK;
    for (uLongf i = 0; ok && i < len; i += 3) {
        unsigned v = (unsigned)z[i] << 16 | (i + 1 < len ? z[i + 1] : 0) << 8 | (i + 2 < len ? z[i + 2] : 0);
        char q[4] = {digits[v >> 18], digits[v >> 12 & 63], i + 1 < len ? digits[v >> 6 & 63] : '=',
                     i + 2 < len ? digits[v & 63] : '='};
        attn_sb_append(b, q, 4);
        if (i % 57 == 54) attn_sb_puts(b, "\n"); // 76 characters a line
    }
    free(z);
    return ok;
}

static void json_str(attn_strbuf *b, const char *s) { attn_sb_json_string(b, s, strlen(s)); }

/* ---- the figure ---- */

/* "av-06-softmax-1a2b3c4d-": the stem and a hash of what the figure shows, so
 * figures of two exports on one page do not share ids. */
static void id_prefix(char *out, size_t cap, const export_item *it, const export_opts *o, const char *stem) {
    uint64_t h = attn_fnv1a(ATTN_FNV_OFFSET, it->trace->tokens.text, strlen(it->trace->tokens.text));
    int extra[4] = {(int)it->step, it->head, (int)o->lang, (int)o->theme};
    h = attn_fnv1a(h, &it->trace->cfg, sizeof it->trace->cfg);
    h = attn_fnv1a(h, extra, sizeof extra);
    snprintf(out, cap, "av-%s-%08x-", stem, (unsigned)(h ^ (h >> 32)));
}

/* The guesses' answers of a question: what the window's status line says. */
static void guesses(attn_strbuf *b, const ex_html_fig *f) {
    const attn_trace *t = f->it->trace;
    int h = f->it->head >= 0 && f->it->head < t->cfg.heads ? f->it->head : 0, best = 0;
    const double *row = t->head[h].weights + (size_t)f->q0 * t->n;
    for (int j = 1; j < t->n; j++)
        if (row[j] > row[best]) best = j;
    char guess[96], answer[96], msg[512];
    attn_token_label(&t->tokens, best, 16, answer, sizeof answer);
    attn_sb_puts(b, ",\"g\":[");
    for (int j = 0; j < t->n; j++) {
        attn_token_label(&t->tokens, j, 16, guess, sizeof guess);
        if (j == best) snprintf(msg, sizeof msg, ex_str(f->ui, f->o->lang, VIZ_S_PREDICT_RIGHT), guess, row[best]);
        else snprintf(msg, sizeof msg, ex_str(f->ui, f->o->lang, VIZ_S_PREDICT_WRONG), guess, answer, row[best]);
        ex_utf8_trim(msg);
        attn_sb_puts(b, j ? "," : "");
        json_str(b, msg);
    }
    attn_sb_puts(b, "]");
}

/* The figure's data block (see export_html.js for how it is read). */
static void data_json(attn_strbuf *b, const ex_html_fig *f, bool question) {
    const attn_trace *t = f->it->trace;
    char lab[96], name[256];
    attn_sb_printf(b, "{\"q\":%d,\"n\":%d,\"empty\":", f->q0, f->n);
    json_str(b, ex_str(f->ui, f->o->lang, VIZ_S_DETAIL_EMPTY));
    attn_sb_puts(b, ",\"tl\":[");
    for (int i = 0; i < t->n; i++) {
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        snprintf(name, sizeof name, ex_str(f->ui, f->o->lang, VIZ_S_HTML_TOKEN), i + 1, lab); // people count from 1
        ex_utf8_trim(name);
        attn_sb_puts(b, i ? "," : "");
        json_str(b, name);
    }
    attn_sb_puts(b, "],\n\"f\":[");
    for (int i = 0; i < f->frags.n; i++) {
        attn_sb_puts(b, i ? ",\n" : "");
        json_str(b, f->frags.s[i]);
    }
    attn_sb_printf(b, "],\n\"b\":%s,\n\"v\":%s,\n\"l\":[", f->base_frags.data ? f->base_frags.data : "[]",
                   f->views.data ? f->views.data : "[]");
    for (int i = 0; i < f->lines.n; i++) attn_sb_printf(b, "%s%s", i ? ",\n" : "", f->lines.s[i]);
    attn_sb_printf(b, "],\n\"c\":{%s}", f->cells.data ? f->cells.data : "");
    if (question) {
        guesses(b, f);
        attn_sb_puts(b, ",\n\"r\":");
        json_str(b, f->svg.data ? f->svg.data : "");
    }
    attn_sb_puts(b, "}");
}

/* The figure's drawing: the revealed figure with its slots, or for an open
 * question the figure with the answer hidden (the revealed one waits in the
 * data). */
static bool drawing(attn_strbuf *b, ex_html_fig *f, bool question, const char *label) {
    attn_strbuf attrs;
    attn_sb_init(&attrs);
    attn_sb_puts(&attrs, "class=\"attnviz-svg\" role=\"group\" tabindex=\"-1\" aria-label=\""); // a tab stop only at its cells and tokens
    ex_xml_text(&attrs, label);
    attn_sb_puts(&attrs, "\"");
    ex_svg_open(b, f->o->width, f->o->height, attrs.data);
    attn_sb_free(&attrs);
    if (question) {
        ex_view v = {.hover.kind = VIZ_HIT_NONE, .hide_weights = true};
        char ids[96];
        snprintf(ids, sizeof ids, "%sh-", f->ids);
        if (!ex_build_view(&f->list, f->o, f->it, f->ui, f->fonts, 1, &v)) return false;
        ex_svg o = {.b = b, .ids = ids, .hit = ex_html_hit, .fonts = f->fonts, .ctx = f};
        for (int i = 0; i < f->list.count; i++) ex_svg_cmd(&o, &f->list, &f->list.cmds[i]);
        ex_svg_close(&o);
    } else {
        attn_sb_puts(b, f->svg.data ? f->svg.data : "");
    }
    attn_sb_puts(b, "<g data-hover=\"\"></g>\n</svg>\n");
    return true;
}

static void caption(attn_strbuf *b, const ex_html_fig *f, const char *badge) {
    attn_strbuf cfg;
    attn_sb_init(&cfg);
    ex_item_config_text(&cfg, f->it);
    attn_sb_puts(b, "<figcaption>");
    ex_xml_text(b, f->it->trace->tokens.text);
    attn_sb_puts(b, " — <code>");
    ex_xml_text(b, cfg.data ? cfg.data : "");
    attn_sb_puts(b, "</code> · ");
    ex_xml_text(b, badge);
    attn_sb_printf(b, " · attnviz %s</figcaption>\n", ATTN_VERSION);
    attn_sb_free(&cfg);
}

/* The side column: the cell-arithmetic panel, the status line, the keys. */
static void side(attn_strbuf *b, const ex_html_fig *f) {
    attn_sb_printf(b, "<div class=\"attnviz-side\">\n<section class=\"attnviz-panel\" data-panel=\"explain\" "
                      "aria-labelledby=\"%sph\">\n<h3 id=\"%sph\">",
                   f->ids, f->ids);
    ex_xml_text(b, ex_str(f->ui, f->o->lang, VIZ_S_DETAIL));
    attn_sb_puts(b, "</h3>\n<div class=\"attnviz-lines\"><p class=\"attnviz-empty\">");
    ex_xml_text(b, ex_str(f->ui, f->o->lang, VIZ_S_DETAIL_EMPTY));
    attn_sb_puts(b, "</p></div>\n</section>\n<p class=\"attnviz-status\" data-status=\"\" role=\"status\"></p>\n"
                    "<p class=\"attnviz-keys\">");
    ex_xml_text(b, ex_str(f->ui, f->o->lang, VIZ_S_HTML_KEYS));
    attn_sb_puts(b, "</p>\n</div>\n");
}

/* The item as a page shows it: a question is about the weights, so it is
 * asked on the softmax step, in its head, as the window asks it. */
static export_item page_item(const export_item *it, bool *question) {
    export_item p = *it;
    *question = it->page && it->page->predict.on;
    if (*question) p.step = ATTN_STEP_SOFTMAX;
    return p;
}

/* Appends the <figure> of it to b. */
static attn_status figure(attn_strbuf *b, const export_opts *o, const export_item *item, const char *stem,
                          const viz_strings *ui, viz_fonts *fonts, attn_err *err) {
    bool question;
    export_item it = page_item(item, &question);
    ex_html_fig f;
    memset(&f, 0, sizeof f);
    f.o = o;
    f.it = &it;
    f.ui = ui;
    f.fonts = fonts;
    f.n = it.trace->n;
    f.q0 = it.query >= 0 && it.query < f.n ? it.query : attn_trace_default_query(it.trace);
    id_prefix(f.ids, sizeof f.ids, &it, o, stem);
    char badge[320], label[256];
    ex_badge(badge, sizeof badge, o, ui, &it);
    if (it.decode) snprintf(label, sizeof label, "%s", ex_str(ui, o->lang, VIZ_S_DECODE_NARRATIVE)); // not step 6's
    else snprintf(label, sizeof label, "%s · %s", attn_step_key(it.step), ex_str(ui, o->lang, (viz_str)(VIZ_S_STEP_1 + it.step)));
    attn_strbuf json;
    attn_sb_init(&json);
    bool ok = ex_html_views(&f);
    attn_sb_printf(b, "<figure class=\"attnviz\" id=\"%sfig\" data-attnviz=\"\" data-query=\"%d\" data-step=\"%s\" "
                      "lang=\"%s\"",
                   f.ids, f.q0, it.decode ? "decode" : attn_step_slug(it.step), o->lang == VIZ_LANG_ZH ? "zh-Hans" : "en");
    char size[64]; // a page scales its figure to fit its frame, never beyond the drawing's own size
    snprintf(size, sizeof size, ";--av-w:%dpx;--av-h:%dpx", o->width, o->height);
    theme_vars(b, o->theme, size);
    attn_sb_puts(b, ">\n<div class=\"attnviz-fig\">\n");
    ok = ok && drawing(b, &f, question, label);
    attn_sb_puts(b, "</div>\n");
    side(b, &f);
    caption(b, &f, badge);
    if (ok) data_json(&json, &f, question);
    ok = ok && attn_sb_ok(&json);
    attn_sb_puts(b, "<script type=\"application/octet-stream\" class=\"attnviz-data\" data-encoding=\"zlib+base64\">\n");
    ok = ok && script_data(b, &json);
    attn_sb_puts(b, "\n</script>\n</figure>\n");
    ok = ok && attn_sb_ok(b);
    attn_sb_free(&json);
    ex_html_fig_free(&f);
    return ok ? ATTN_OK : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to make the page %s.html.", stem);
}

/* ---- pages ---- */

/* The document up to <main>; fit: one figure's page, laid out to fit the
 * window or iframe it is shown in (the handout scrolls instead). */
static void page_begin(attn_strbuf *b, const export_opts *o, const char *title, bool fit) {
    const viz_theme *th = viz_theme_get(o->theme);
    attn_sb_printf(b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                      "<meta name=\"generator\" content=\"attnviz %s\">\n<title>",
                   o->lang == VIZ_LANG_ZH ? "zh-Hans" : "en", ATTN_VERSION);
    ex_xml_text(b, title);
    attn_sb_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body style=\"margin:0;background:#%02x%02x%02x\">\n"
                      "<main class=\"attnviz-page%s\"",
                   (const char *)ex_html_css, th->bg.r, th->bg.g, th->bg.b,
                   fit ? " attnviz-fit" : "");
    theme_vars(b, o->theme, NULL);
    attn_sb_puts(b, ">\n");
}

static void page_end(attn_strbuf *b) {
    attn_sb_printf(b, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", (const char *)ex_html_js);
}

/* "<hN>number · title</hN>", the text and the figure; number worded by
 * page_word ("Page %d") for a lesson's page, so it does not read as a step. */
static void section(attn_strbuf *b, int level, int number, const char *page_word, const char *title,
                    const attn_strbuf *body) {
    attn_sb_printf(b, "<section class=\"attnviz-section\">\n<h%d>", level);
    if (page_word) attn_sb_printf(b, page_word, number);
    else attn_sb_printf(b, "%d", number);
    attn_sb_puts(b, " · ");
    ex_xml_text(b, title);
    attn_sb_printf(b, "</h%d>\n%s</section>\n", level, body->data ? body->data : "");
}

size_t ex_handout_budget = EX_HANDOUT_BUDGET;

void ex_handout_free(ex_handout *h) {
    if (!h) return;
    attn_sb_free(&h->full);
    attn_sb_free(&h->framed);
    h->over = false;
}

/* The handout's section of a page past the budget: the page itself, in an
 * iframe it fits (export_html.css), loaded when the reader scrolls to it. */
static void framed_section(ex_handout *h, const export_opts *o, int number, const char *page_word,
                           const char *title, const char *name) {
    attn_strbuf body;
    attn_sb_init(&body);
    attn_sb_puts(&body, "<iframe class=\"attnviz-frame\" src=\"");
    ex_xml_text(&body, name);
    attn_sb_puts(&body, "\" title=\"");
    ex_xml_text(&body, title);
    attn_sb_printf(&body, "\" loading=\"lazy\" style=\"height:%dpx\"></iframe>\n", o->height + 240);
    section(&h->framed, 2, number, page_word, title, &body);
    if (!attn_sb_ok(&body)) h->framed.failed = true;
    attn_sb_free(&body);
}

attn_status ex_html_write(ex_stage *st, ex_handout *sections, const export_opts *o, const export_item *it,
                          int number, const char *stem, const char *title, const char *text, const viz_strings *ui,
                          viz_fonts *fonts, attn_err *err) {
    attn_strbuf body, page;
    attn_sb_init(&body);
    attn_sb_init(&page);
    const char *const *words = ui ? ui->s[o->lang] : NULL;
    text_html(&body, it, text, words, false);
    attn_status rc = figure(&body, o, it, stem, ui, fonts, err);
    text_html(&body, it, text, words, true); // the answer after the figure, hidden until the reader answers
    char name[200];
    snprintf(name, sizeof name, "%s.html", stem);
    if (rc == ATTN_OK) {
        page_begin(&page, o, title, true);
        const char *page_word = it->page ? ex_str(ui, o->lang, VIZ_S_HANDOUT_PAGE) : NULL;
        section(&page, 1, number, page_word, title, &body);
        page_end(&page);
        if (!sections->over) section(&sections->full, 2, number, page_word, title, &body);
        if (!sections->over && sections->full.len > ex_handout_budget) { // from now on only the frames
            sections->over = true;
            attn_sb_free(&sections->full);
        }
        framed_section(sections, o, number, page_word, title, name);
        if (!attn_sb_ok(&page) || !attn_sb_ok(&sections->full) || !attn_sb_ok(&sections->framed))
            rc = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to make the page %s.", name);
    }
    if (rc == ATTN_OK) rc = ex_stage_write(st, name, page.data, page.len, err);
    attn_sb_free(&body);
    attn_sb_free(&page);
    return rc;
}

/* text's paragraphs (split at blank lines) as <div class="attnviz-text">. */
static void paragraphs(attn_strbuf *b, const char *text) {
    attn_sb_puts(b, "<div class=\"attnviz-text\">\n");
    for (const char *p = text; *p;) {
        const char *end = strstr(p, "\n\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *para = strndup(p, len);
        attn_sb_puts(b, "<p>");
        if (para) ex_xml_text(b, para);
        attn_sb_puts(b, "</p>\n");
        free(para);
        p += len;
        while (*p == '\n') p++;
    }
    attn_sb_puts(b, "</div>\n");
}

/* A static drawing: list as SVG in a <figure> of class cls, with its caption. */
static void static_figure(attn_strbuf *b, const export_opts *o, const export_item *it, const char *title,
                          const viz_list *list, const viz_strings *ui, viz_fonts *fonts, const char *cls,
                          const char *ids) {
    char badge[320], size[64];
    attn_sb_printf(b, "<figure class=\"attnviz %s\" lang=\"%s\"", cls, o->lang == VIZ_LANG_ZH ? "zh-Hans" : "en");
    snprintf(size, sizeof size, ";--av-w:%dpx;--av-h:%dpx", o->width, o->height);
    theme_vars(b, o->theme, size);
    attn_sb_puts(b, ">\n<div class=\"attnviz-fig\">\n");
    attn_strbuf attrs;
    attn_sb_init(&attrs);
    attn_sb_puts(&attrs, "class=\"attnviz-svg\" role=\"img\" aria-label=\"");
    ex_xml_text(&attrs, title);
    attn_sb_puts(&attrs, "\"");
    ex_svg_open(b, o->width, o->height, attrs.data);
    attn_sb_free(&attrs);
    ex_svg svg = {.b = b, .ids = ids, .fonts = fonts};
    for (int i = 0; i < list->count; i++) ex_svg_cmd(&svg, list, &list->cmds[i]);
    ex_svg_close(&svg);
    attn_sb_puts(b, "</svg>\n</div>\n");
    ex_badge(badge, sizeof badge, o, ui, it);
    attn_sb_puts(b, "<figcaption>");
    ex_xml_text(b, it->trace->tokens.text);
    attn_sb_puts(b, " · ");
    ex_xml_text(b, badge);
    attn_sb_printf(b, " · attnviz %s</figcaption>\n</figure>\n", ATTN_VERSION);
}

/* The table's header row from a UI string of columns split by '|', after lead (already markup). */
static void table_head(attn_strbuf *b, const char *cls, const char *lead, const char *cols) {
    attn_sb_printf(b, "<table class=\"%s\">\n<thead><tr>%s", cls, lead);
    while (*cols) {
        size_t len = strcspn(cols, "|");
        char *cell = strndup(cols, len);
        attn_sb_puts(b, "<th>");
        if (cell) ex_xml_text(b, cell);
        attn_sb_puts(b, "</th>");
        free(cell);
        cols += len;
        if (*cols == '|') cols++;
    }
    attn_sb_puts(b, "</tr></thead>\n<tbody>\n");
}

/* body as STEM.html and as a section of the handout. */
static attn_status own_page(ex_stage *st, ex_handout *sections, const export_opts *o, int number, const char *stem,
                            const char *title, attn_strbuf *body, attn_err *err) {
    attn_strbuf page;
    attn_sb_init(&page);
    char name[200];
    snprintf(name, sizeof name, "%s.html", stem);
    attn_status rc = ATTN_OK;
    page_begin(&page, o, title, false);
    section(&page, 1, number, NULL, title, body);
    page_end(&page);
    if (!sections->over) section(&sections->full, 2, number, NULL, title, body);
    if (!sections->over && sections->full.len > ex_handout_budget) {
        sections->over = true;
        attn_sb_free(&sections->full);
    }
    framed_section(sections, o, number, NULL, title, name);
    if (!attn_sb_ok(body) || !attn_sb_ok(&page) || !attn_sb_ok(&sections->full) || !attn_sb_ok(&sections->framed))
        rc = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to make the page %s.", name);
    if (rc == ATTN_OK) rc = ex_stage_write(st, name, page.data, page.len, err);
    attn_sb_free(&page);
    return rc;
}

/* The decode view's page (issue 24): the token's narrative, the figure (the
 * window's drawing, interactive like the steps' pages: a token chosen shows
 * its decoding step, a hovered cell its arithmetic) and the per-token record
 * as a table, the row of the token shown marked. */
attn_status ex_html_write_decode(ex_stage *st, ex_handout *sections, const export_opts *o, const export_item *it,
                                 int number, const char *stem, const char *title, const viz_list *list,
                                 const viz_strings *ui, viz_fonts *fonts, attn_err *err) {
    (void)list;
    const attn_trace *tr = it->trace;
    const attn_decode *d = it->decode;
    int t = it->query >= 0 && it->query < tr->n ? it->query : attn_trace_default_query(tr);
    char text[2048], lab[256];
    attn_strbuf body;
    attn_sb_init(&body);
    viz_decode_narrative(text, sizeof text, ui ? ui->s[o->lang] : NULL, d, t);
    paragraphs(&body, text);
    attn_status rc = figure(&body, o, it, stem, ui, fonts, err);
    table_head(&body, "attnviz-decode-table", "<th>t</th>", ex_str(ui, o->lang, VIZ_S_DECODE_TABLE));
    for (int r = 0; r < d->n; r++) {
        const attn_decode_step *k = &d->step[r];
        attn_token_label(&tr->tokens, r, 0, lab, sizeof lab);
        attn_sb_printf(&body, "<tr%s><td>%d</td><td>", r == t ? " class=\"attnviz-now\" aria-current=\"true\"" : "",
                       r + 1);
        ex_xml_text(&body, lab);
        attn_sb_printf(&body, "</td><td>%d</td><td>%d</td><td>%d</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
                              "<td>%lld</td></tr>\n",
                       k->cache_len, k->cells, k->cells_read, k->macs, k->macs_total, k->full_macs, k->full_total,
                       k->cache_bytes);
    }
    attn_sb_puts(&body, "</tbody>\n</table>\n");
    if (rc == ATTN_OK) rc = own_page(st, sections, o, number, stem, title, &body, err);
    attn_sb_free(&body);
    return rc;
}

/* "−∞" or the number to 4 significant digits, as the window's arithmetic
 * shows it (the step's CSV keeps every digit). */
static void tile_num(attn_strbuf *b, double v) {
    if (v == -INFINITY) attn_sb_puts(b, "−∞");
    else attn_sb_printf(b, "%.4g", v == 0 ? 0.0 : v); // no "-0"
}

/* A step of the tiles view's page (issue 24): the step in words, the drawing
 * and per query row of the block m, α, ℓ before and after (the rescaling the
 * window shows on hover), and O before and after. */
attn_status ex_html_write_tiles(ex_stage *st, ex_handout *sections, const export_opts *o, const export_item *it,
                                int number, const char *stem, const char *title, const viz_list *list,
                                const viz_strings *ui, viz_fonts *fonts, attn_err *err) {
    const attn_trace *tr = it->trace;
    const attn_tiles *tl = it->tiles;
    const attn_tile_step *sp = &tl->steps[it->tiles_step];
    char text[2048], lab[256], ids[64];
    attn_strbuf body;
    attn_sb_init(&body);
    ex_tiles_text(text, sizeof text, it, ui, o->lang);
    paragraphs(&body, text);
    snprintf(ids, sizeof ids, "tiles-%d-", it->tiles_step + 1);
    static_figure(&body, o, it, title, list, ui, fonts, "attnviz-tiles", ids);
    if (!sp->skipped) {
        attn_strbuf lead;
        attn_sb_init(&lead);
        attn_sb_puts(&lead, "<th>t</th><th>");
        ex_xml_text(&lead, ex_str(ui, o->lang, VIZ_S_TEX_TOKEN));
        attn_sb_puts(&lead, "</th>");
        char cols[512];
        const char *m_old = ex_str(ui, o->lang, VIZ_S_TILES_MAT_M_OLD), *m = ex_str(ui, o->lang, VIZ_S_TILES_MAT_M);
        snprintf(cols, sizeof cols, "%s|%s|α = e^(%s − %s)|%s|Σⱼ e^(sⱼ − %s)|%s|%s|%s", m_old, m, m_old, m,
                 ex_str(ui, o->lang, VIZ_S_TILES_MAT_L_OLD), m, ex_str(ui, o->lang, VIZ_S_TILES_MAT_L),
                 ex_str(ui, o->lang, VIZ_S_TILES_MAT_O_OLD), ex_str(ui, o->lang, VIZ_S_TILES_MAT_O));
        table_head(&body, "attnviz-tiles-table", lead.data ? lead.data : "", cols);
        attn_sb_free(&lead);
        for (int r = 0; r < sp->r1 - sp->r0; r++) {
            double v[6];
            ex_tiles_row(it, r, v);
            attn_token_label(&tr->tokens, sp->r0 + r, 0, lab, sizeof lab);
            attn_sb_printf(&body, "<tr><td>%d</td><td>", sp->r0 + r + 1);
            ex_xml_text(&body, lab);
            attn_sb_puts(&body, "</td>");
            for (int k = 0; k < 6; k++) attn_sb_puts(&body, "<td>"), tile_num(&body, v[k]), attn_sb_puts(&body, "</td>");
            for (int k = 0; k < 2; k++) { // O before, O after: the row's d values
                const double *row = (k ? sp->o : sp->o_old) + (size_t)r * tl->d;
                attn_sb_puts(&body, "<td>");
                for (int c = 0; c < tl->d; c++) attn_sb_puts(&body, c ? " " : ""), tile_num(&body, row[c]);
                attn_sb_puts(&body, "</td>");
            }
            attn_sb_puts(&body, "</tr>\n");
        }
        attn_sb_puts(&body, "</tbody>\n</table>\n");
    }
    attn_status rc = own_page(st, sections, o, number, stem, title, &body, err);
    attn_sb_free(&body);
    return rc;
}

attn_status ex_html_handout(ex_stage *st, const ex_handout *sections, const export_opts *o, const char *title,
                            attn_err *err) {
    attn_strbuf page;
    const attn_strbuf *body = sections->over ? &sections->framed : &sections->full;
    attn_sb_init(&page);
    page_begin(&page, o, title, false);
    attn_sb_puts(&page, "<h1>");
    ex_xml_text(&page, title);
    attn_sb_printf(&page, "</h1>\n%s", body->data ? body->data : "");
    page_end(&page);
    attn_status rc = attn_sb_ok(&page) ? ex_stage_write(st, "handout.html", page.data, page.len, err)
                                       : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to make handout.html.");
    attn_sb_free(&page);
    return rc;
}
