/* export_svg.c — replays a display list as SVG: rects, lines, real <text>
 * (selectable, searchable), one <rect> per grid cell, clipPaths. Numbers have
 * at most 2 decimals and a '.', so the same list gives the same bytes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "export_internal.h"
#include "utf8.h"

/* WenQuanYi Micro Hei's ascent and line height in em, as SDL_ttf reports
 * them. The SDL backend puts a line's baseline at the ascent below the line's
 * top; the SVG computes the same baseline, because dominant-baseline (middle,
 * hanging) is ignored by rsvg 2.54 and would drift in Inkscape. */
#define ASCENT_EM 0.94f
#define LINE_EM 1.18f

typedef ex_svg svg_out;

static void num(svg_out *o, double v) { ex_num(o->b, v); }

/* Appends text with XML's five entities escaped and characters XML forbids
 * (controls, U+FFFE/FFFF, malformed bytes) replaced by U+FFFD. */
void ex_xml_text(attn_strbuf *b, const char *s) {
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        bool ok = k > 0 && (cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp != 0xFFFE && cp != 0xFFFF));
        if (!ok) attn_sb_puts(b, "\xEF\xBF\xBD");
        else if (cp == '&') attn_sb_puts(b, "&amp;");
        else if (cp == '<') attn_sb_puts(b, "&lt;");
        else if (cp == '>') attn_sb_puts(b, "&gt;");
        else if (cp == '"') attn_sb_puts(b, "&quot;");
        else if (cp == '\'') attn_sb_puts(b, "&apos;");
        else attn_sb_append(b, s + i, (size_t)k);
        i += k > 0 ? (size_t)k : 1;
    }
}

/* attr="#rrggbb" plus attr-opacity when translucent. */
static void paint(svg_out *o, const char *attr, viz_rgba c) {
    attn_sb_printf(o->b, " %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
    if (c.a < 255) {
        attn_sb_printf(o->b, " %s-opacity=\"", attr);
        num(o, c.a / 255.0);
        attn_sb_puts(o->b, "\"");
    }
}

static void rect(svg_out *o, double x, double y, double w, double h) {
    attn_sb_puts(o->b, "<rect x=\"");
    num(o, x);
    attn_sb_puts(o->b, "\" y=\"");
    num(o, y);
    attn_sb_puts(o->b, "\" width=\"");
    num(o, w);
    attn_sb_puts(o->b, "\" height=\"");
    num(o, h);
    attn_sb_puts(o->b, "\"");
}

static void svg_fill(svg_out *o, const viz_cmd *c) {
    if (!(c->w > 0 && c->h > 0) || c->color.a == 0) return;
    rect(o, c->x, c->y, c->w, c->h);
    paint(o, "fill", c->color);
    attn_sb_puts(o->b, "/>\n");
}

/* Drawn inside the box like the SDL backend: a stroke of width t centred
 * t/2 inside the edge; a box too small for that is filled. */
static void svg_stroke(svg_out *o, const viz_cmd *c) {
    if (!(c->thick > 0 && c->w > 0 && c->h > 0)) return;
    double t = lroundf(c->thick) > 1 ? (double)lroundf(c->thick) : 1.0;
    if (2 * t >= c->w || 2 * t >= c->h) {
        svg_fill(o, c);
        return;
    }
    rect(o, c->x + t / 2, c->y + t / 2, c->w - t, c->h - t);
    attn_sb_puts(o->b, " fill=\"none\"");
    paint(o, "stroke", c->color);
    attn_sb_puts(o->b, " stroke-width=\"");
    num(o, t);
    attn_sb_puts(o->b, "\"/>\n");
}

static void svg_line(svg_out *o, const viz_cmd *c) {
    if (!(c->thick > 0)) return;
    attn_sb_puts(o->b, "<line x1=\"");
    num(o, c->x);
    attn_sb_puts(o->b, "\" y1=\"");
    num(o, c->y);
    attn_sb_puts(o->b, "\" x2=\"");
    num(o, c->x2);
    attn_sb_puts(o->b, "\" y2=\"");
    num(o, c->y2);
    attn_sb_puts(o->b, "\"");
    paint(o, "stroke", c->color);
    attn_sb_puts(o->b, " stroke-width=\"");
    num(o, c->thick);
    attn_sb_puts(o->b, "\"/>\n");
}

/* Anchored at the box's left, centre or right; baseline as the SDL backend. */
static void svg_text(svg_out *o, const viz_list *l, const viz_cmd *c) {
    const char *s = viz_cmd_text(l, c);
    if (!*s) return;
    int h = c->align & (VIZ_CENTER | VIZ_RIGHT), v = c->align & (VIZ_MIDDLE | VIZ_BOTTOM), px, base;
    double x = h == VIZ_RIGHT ? c->x + c->w : h == VIZ_CENTER ? c->x + c->w / 2
                                                              : c->x;
    double top = v == VIZ_BOTTOM   ? c->y + c->h - LINE_EM * c->size
                 : v == VIZ_MIDDLE ? c->y + (c->h - LINE_EM * c->size) / 2
                                   : c->y,
           y = top + ASCENT_EM * c->size;
    if (o->fonts && viz_sdl_text_origin(o->fonts, l, c, &px, &base) == 0) {
        x = px;
        y = base;
        h = 0; // placed from its start
    }
    attn_sb_puts(o->b, "<text x=\"");
    num(o, x);
    attn_sb_puts(o->b, "\" y=\"");
    num(o, y);
    attn_sb_puts(o->b, "\" font-size=\"");
    num(o, c->size);
    attn_sb_puts(o->b, "\"");
    if (h) attn_sb_puts(o->b, h == VIZ_RIGHT ? " text-anchor=\"end\"" : " text-anchor=\"middle\"");
    if (c->font == VIZ_FONT_MONO) attn_sb_printf(o->b, " font-family=\"%s\"", EX_SVG_MONO_FONTS);
    paint(o, "fill", c->color);
    attn_sb_puts(o->b, ">");
    ex_xml_text(o->b, s);
    attn_sb_puts(o->b, "</text>\n");
}

/* One rect per cell, edges at exact fractions of the box so cells tile it. */
static void svg_grid(svg_out *o, const viz_list *l, const viz_cmd *c) {
    if (c->rows <= 0 || c->cols <= 0 || !(c->w > 0 && c->h > 0)) return;
    const viz_rgba *cells = viz_cmd_cells(l, c);
    attn_sb_puts(o->b, "<g shape-rendering=\"crispEdges\">\n");
    for (int i = 0; i < c->rows; i++) {
        double y0 = c->y + (double)c->h * i / c->rows, y1 = c->y + (double)c->h * (i + 1) / c->rows;
        for (int j = 0; j < c->cols; j++) {
            double x0 = c->x + (double)c->w * j / c->cols, x1 = c->x + (double)c->w * (j + 1) / c->cols;
            rect(o, x0, y0, x1 - x0, y1 - y0);
            paint(o, "fill", cells[(size_t)i * c->cols + j]);
            attn_sb_puts(o->b, "/>\n");
        }
    }
    attn_sb_puts(o->b, "</g>\n");
}

/* A clip lasts until the next one: each opens a group under its clipPath. */
static void svg_clip(svg_out *o, const viz_cmd *c) {
    if (o->clipped) attn_sb_puts(o->b, "</g>\n");
    o->clipped = c->w > 0;
    if (!o->clipped) return;
    int id = ++o->clips;
    const char *p = o->ids ? o->ids : "";
    attn_sb_printf(o->b, "<clipPath id=\"%sclip%d\">", p, id);
    rect(o, c->x, c->y, c->w, c->h > 0 ? c->h : 0);
    attn_sb_printf(o->b, "/></clipPath>\n<g clip-path=\"url(#%sclip%d)\">\n", p, id);
}

void ex_svg_open(attn_strbuf *b, int w, int h, const char *attrs) {
    attn_sb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
                      "viewBox=\"0 0 %d %d\" font-family=\"%s\" dominant-baseline=\"alphabetic\" "
                      "xml:space=\"preserve\"%s%s>\n",
                   w, h, w, h, EX_SVG_FONTS, attrs ? " " : "", attrs ? attrs : "");
}

void ex_svg_cmd(ex_svg *o, const viz_list *l, const viz_cmd *c) {
    switch (c->kind) {
    case VIZ_FILL: svg_fill(o, c); break;
    case VIZ_STROKE: svg_stroke(o, c); break;
    case VIZ_LINE: svg_line(o, c); break;
    case VIZ_TEXT: svg_text(o, l, c); break;
    case VIZ_GRID: svg_grid(o, l, c); break;
    case VIZ_CLIP: svg_clip(o, c); break;
    case VIZ_HIT: // regions for the mouse, not drawn; a page may give them a meaning
        if (o->hit) o->hit(o, c);
        break;
    }
}

void ex_svg_close(ex_svg *o) {
    if (o->clipped) attn_sb_puts(o->b, "</g>\n");
    o->clipped = false;
}

char *export_svg(const viz_list *l, int w, int h) {
    attn_strbuf b;
    attn_sb_init(&b);
    ex_svg o = {.b = &b};
    attn_sb_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- attnviz %s -->\n", ATTN_VERSION);
    ex_svg_open(&b, w, h, NULL);
    // chromium ignores xml:space and its own style makes text nowrap: without this rule "20×20   · 800"
    // shows as "20×20 · 800" (a page's figure has the same rule in export_html.css)
    attn_sb_puts(&b, "<style>text { white-space: pre; }</style>\n");
    for (int i = 0; i < l->count; i++) ex_svg_cmd(&o, l, &l->cmds[i]);
    ex_svg_close(&o);
    attn_sb_puts(&b, "</svg>\n");
    return attn_sb_take(&b);
}
