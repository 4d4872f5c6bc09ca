/* viz_text.c — measuring, shortening and wrapping text for the layout. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"
#include "viz_internal.h"

float viz_text_w(const viz_ctx *c, const char *s, float px) {
    return c->m.width(c->m.ctx, s, strlen(s), px);
}

const char *viz_s(const viz_ctx *c, viz_str id) {
    const char *s = c->s->ui ? c->s->ui[id] : NULL;
    return s ? s : viz_str_key(id);
}

static bool continuation(unsigned char b) {
    return (b & 0xC0) == 0x80;
}

/* The code point boundary at or before i (never below lo). */
static size_t boundary_before(const char *s, size_t lo, size_t i) {
    while (i > lo && continuation((unsigned char)s[i])) i--;
    return i;
}

/* Byte length of the longest prefix of s that, followed by "…", fits in w.
 * Widths grow with the prefix, so a binary search over code point boundaries
 * measures a handful of prefixes instead of every one. */
static size_t fitting_prefix(const viz_ctx *c, const char *s, size_t len, float w, float px) {
    float ell = c->m.width(c->m.ctx, "…", strlen("…"), px);
    size_t lo = 0, hi = len; // the prefix of lo bytes fits; none longer than hi does
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        while (mid < hi && continuation((unsigned char)s[mid])) mid++; // a whole code point
        if (c->m.width(c->m.ctx, s, mid, px) + ell <= w) lo = mid;
        else hi = boundary_before(s, lo, mid - 1);
    }
    return lo;
}

static size_t next_line(const viz_ctx *c, const char *s, size_t len, float w, float px);

/* The largest whole size from px down to 85% of it (never below 9 px) at
 * which s is at most w wide, or 0: a slightly smaller label reads better
 * than a cut one. */
static float shrunk_px(const viz_ctx *c, const char *s, float px, float w) {
    for (float p = floorf(px); p >= fmaxf(9.0f, ceilf(px * 0.85f)); p -= 1.0f)
        if (viz_text_w(c, s, p) <= w) return p;
    return 0;
}

float viz_line_px(const viz_ctx *c, const char *s, float px, float w) {
    return viz_text_w(c, s, px) <= w ? px : shrunk_px(c, s, px, w);
}

/* s on two lines of the box when it is tall enough for them and both fit
 * (at px or a little smaller). Returns the width drawn, 0 when not. */
static float two_lines(const viz_ctx *c, float x, float y, float w, float h, const char *s, float px, int align,
                       viz_rgba col) {
    size_t len = strlen(s);
    char line[512];
    for (float p = floorf(px); p >= fmaxf(9.0f, ceilf(px * 0.85f)); p -= 1.0f) {
        float lh = p * 1.25f;
        if (2 * lh > h) continue;
        size_t n = next_line(c, s, len, w, p), rest = n;
        while (rest < len && s[rest] == ' ') rest++;
        if (n == 0 || n >= sizeof line || rest >= len || viz_text_w(c, s + rest, p) > w) continue;
        memcpy(line, s, n);
        while (n > 0 && line[n - 1] == ' ') n--;
        line[n] = '\0';
        float top = y + (h - 2 * lh) / 2, a = (float)(align & (VIZ_CENTER | VIZ_RIGHT));
        viz_text(c->l, x, top, w, lh, line, p, (int)a | VIZ_MIDDLE, col);
        viz_text(c->l, x, top + lh, w, lh, s + rest, p, (int)a | VIZ_MIDDLE, col);
        return fmaxf(viz_text_w(c, line, p), viz_text_w(c, s + rest, p));
    }
    return 0;
}

float viz_label(const viz_ctx *c, float x, float y, float w, float h, const char *s, float px,
                int align, viz_rgba col) {
    float tw = viz_text_w(c, s, px);
    if (tw <= w) {
        viz_text(c->l, x, y, w, h, s, px, align, col);
        return tw;
    }
    float p = shrunk_px(c, s, px, w), drawn;
    if (p > 0) {
        viz_text(c->l, x, y, w, h, s, p, align, col);
        return viz_text_w(c, s, p);
    }
    if ((drawn = two_lines(c, x, y, w, h, s, px, align, col)) > 0) return drawn;
    char buf[512];
    size_t keep = fitting_prefix(c, s, strlen(s), w, px);
    if (keep > sizeof buf - 4) keep = sizeof buf - 4;
    memcpy(buf, s, keep);
    memcpy(buf + keep, "…", strlen("…") + 1);
    if (keep == 0 && viz_text_w(c, buf, px) > w) return 0; // not even the ellipsis fits
    viz_text(c->l, x, y, w, h, buf, px, align, col);
    return viz_text_w(c, buf, px);
}

/* A line may break before a wide (CJK) character, after one, or after a space. */
static bool break_before(const char *s, size_t i, size_t len) {
    uint32_t cp, prev = 0;
    if (i == 0 || i >= len) return i >= len;
    if (utf8_decode(s + i, len - i, &cp) <= 0) return false;
    size_t j = i - 1;
    while (j > 0 && ((unsigned char)s[j] & 0xC0) == 0x80) j--;
    utf8_decode(s + j, i - j, &prev);
    if (prev == ' ') return true;
    // no break before closing punctuation (，。、：；！？）」”’》』】) so it never starts a line,
    // nor after opening punctuation (“‘（「《『【) so it never ends one
    if (cp == 0xFF0C || cp == 0x3002 || cp == 0x3001 || cp == 0xFF1A || cp == 0xFF1B || cp == 0xFF01 ||
        cp == 0xFF1F || cp == 0xFF09 || cp == 0x300D || cp == 0x201D || cp == 0x2019 || cp == 0x300B ||
        cp == 0x300F || cp == 0x3011)
        return false;
    if (prev == 0x201C || prev == 0x2018 || prev == 0xFF08 || prev == 0x300C || prev == 0x300A ||
        prev == 0x300E || prev == 0x3010)
        return false;
    return utf8_cp_width(cp) == 2 || utf8_cp_width(prev) == 2;
}

static size_t line_within(const viz_ctx *c, const char *s, size_t len, size_t all, float w, float px);

/* Length of the next line of s[0..len) that fits in w (at least one code point):
 * the last break whose line fits, found by a binary search over the breaks
 * (a longer line is never narrower). */
static size_t next_line(const viz_ctx *c, const char *s, size_t len, float w, float px) {
    // hardly a line of width w holds more bytes than this (a byte per 1/6 em, and some): searching
    // beyond it would only measure long prefixes, which the width cache does not keep
    size_t cap = (size_t)(6.0f * w / fmaxf(px, 1.0f)) + 32;
    return line_within(c, s, cap < len ? cap : len, len, w, px);
}

/* next_line over the first len of all bytes; when every break in them fits,
 * over all of them. */
static size_t line_within(const viz_ctx *c, const char *s, size_t len, size_t all, float w, float px) {
    size_t breaks[1024], nb = 0; // positions after which the line may end
    for (size_t i = 0; i < len && nb < sizeof breaks / sizeof *breaks;) {
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        i += k > 0 ? (size_t)k : 1;
        if (break_before(s, i, len)) breaks[nb++] = i;
    }
    size_t lo = 0, hi = nb; // breaks[0 .. lo) fit; breaks[hi ..) do not
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, end = breaks[mid];
        while (end > 0 && s[end - 1] == ' ') end--; // trailing spaces do not count against the width
        if (c->m.width(c->m.ctx, s, end, px) <= w) lo = mid + 1;
        else hi = mid;
    }
    if (len < all && lo == nb) return line_within(c, s, all, all, w, px); // every break fitted: look further
    if (lo > 0) return breaks[lo - 1];
    // one word wider than the box: cut it at the last code point that fits
    size_t first = 0;
    while (first < len) { // at least one code point, even if it alone is too wide
        first++;
        if (!continuation((unsigned char)s[first])) break;
    }
    size_t a = first, b = nb ? breaks[0] : len; // prefix a fits (by fiat); b does not
    while (a < b) {
        size_t mid = a + (b - a + 1) / 2;
        while (mid < b && continuation((unsigned char)s[mid])) mid++;
        if (c->m.width(c->m.ctx, s, mid, px) <= w) a = mid;
        else b = boundary_before(s, a, mid - 1);
    }
    return a;
}

float viz_wrap_ex(const viz_ctx *c, viz_box b, const char *text, float px, float scroll, float indent, viz_rgba col,
                  bool draw) {
    float lh = px * 1.45f, y = b.y - scroll;
    const char *p = text;
    char line[1024];
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t plen = nl ? (size_t)(nl - p) : strlen(p);
        if (plen == 0) y += lh * 0.5f; // a blank line separates paragraphs
        viz_rgba pc = col;
        if (plen > 0 && *p == VIZ_VERDICT_MARK[0]) { // the verdict of a guess: in the highlight colour
            p++, plen--;
            pc = c->th->highlight;
        }
        if (plen > 0 && *p == VIZ_CODE_MARK[0]) { // code: its own face, grid and wrapping
            y += viz_code_line(c, b, p + 1, plen - 1, px * 0.87f, y, col, draw);
            p += nl ? plen + 1 : plen;
            continue;
        }
        for (bool first = true; plen > 0; first = false) {
            float x = first ? b.x : b.x + indent, w = first ? b.w : b.w - indent; // continuation lines hang
            size_t n = next_line(c, p, plen, w, px);
            size_t shown = n;
            while (shown > 0 && p[shown - 1] == ' ') shown--;
            if (shown > sizeof line - 1) shown = sizeof line - 1;
            memcpy(line, p, shown);
            line[shown] = '\0';
            // only whole lines: a line cut by the panel's edge would cut its glyphs
            if (draw && y >= b.y - 0.5f && y + lh <= b.y + b.h + 0.5f)
                viz_text(c->l, x, y, w, lh, line, px, VIZ_LEFT | VIZ_MIDDLE, pc);
            y += lh;
            p += n;
            plen -= n;
            while (plen > 0 && *p == ' ') {
                p++;
                plen--;
            }
        }
        p = nl ? nl + 1 : p + plen;
    }
    return y + scroll - b.y;
}

float viz_wrap(const viz_ctx *c, viz_box b, const char *text, float px, float scroll, viz_rgba col) {
    return viz_wrap_ex(c, b, text, px, scroll, 0, col, true);
}

void viz_format_value(char *buf, size_t cap, double v) {
    if (v == -INFINITY) snprintf(buf, cap, "−∞");
    else if (fabs(v) >= 999.995) snprintf(buf, cap, "%.0e", v);
    else if (fabs(v) < 0.005) snprintf(buf, cap, "%.2f", 0.0); // no "-0.00"
    else snprintf(buf, cap, "%.2f", v);
}
