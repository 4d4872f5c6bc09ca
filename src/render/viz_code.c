/* viz_code.c — lines of code in the narrative: set in the monospace face on
 * a grid of columns (a wide character takes two, as in an editor, so comments
 * after Chinese text stay aligned), long lines wrapped with a hanging indent
 * and a continuation mark. */
#include <math.h>
#include <string.h>

#include "utf8.h"
#include "viz_internal.h"

#define CONT_MARK "↪" /* starts a wrapped line's continuation */
#define MAX_COLS 1024 /* characters of one code line that are laid out */

/* One character of a code line: where its bytes are and how many columns it takes. */
typedef struct {
    int at, len; /* bytes in the line */
    int cols;    /* 0 (combining), 1, or 2 (wide) */
} code_char;

/* A width in the code face (the UI's when the backend has none). */
static float mono_w(const viz_ctx *c, const char *s, size_t n, float px) {
    return c->m.mono ? c->m.mono(c->m.ctx, s, n, px) : c->m.width(c->m.ctx, s, n, px);
}

/* The line's characters into out (at most MAX_COLS); returns their count. */
static int split_chars(const char *s, size_t len, code_char *out) {
    int n = 0;
    for (size_t i = 0; i < len && n < MAX_COLS;) {
        uint32_t cp = 0xFFFD;
        int k = utf8_decode(s + i, len - i, &cp);
        if (k <= 0) k = 1;
        int w = utf8_cp_width(cp);
        out[n++] = (code_char){(int)i, k, cp == '\t' ? 4 : w < 0 ? 1
                                                                 : w};
        i += (size_t)k;
    }
    return n;
}

/* Where the visual line that starts at character from ends (exclusive) when
 * cols columns fit: after the last space that fits if the line is then at
 * least half full, else at the last character that fits (at least one). */
static int line_end(const code_char *ch, const char *s, int n, int from, int cols) {
    int used = 0, end = from, space = -1, space_cols = 0;
    for (int i = from; i < n; i++) {
        if (used + ch[i].cols > cols && i > from) break;
        used += ch[i].cols;
        end = i + 1;
        if (s[ch[i].at] == ' ' && i > from) space = i + 1, space_cols = used;
    }
    return end < n && space > from && 2 * space_cols >= cols ? space : end;
}

/* Draws characters [from, to) of the line at column col of the grid: runs of
 * narrow characters as one text each, a wide character centred in its two
 * columns. */
static void draw_cells(const viz_ctx *c, const code_char *ch, const char *s, int from, int to, float x, float y,
                       float cell, float lh, float px, int col, viz_rgba color) {
    char run[512];
    for (int i = from; i < to;) {
        if (ch[i].cols == 2) {
            memcpy(run, s + ch[i].at, (size_t)ch[i].len);
            run[ch[i].len] = '\0';
            float gw = mono_w(c, run, (size_t)ch[i].len, px);
            viz_text_font(c->l, x + col * cell + (2 * cell - gw) / 2, y, gw + 1, lh, run, px, VIZ_LEFT | VIZ_MIDDLE,
                          color, VIZ_FONT_MONO);
            col += 2;
            i++;
            continue;
        }
        int j = i, cols = 0;
        size_t n = 0;
        while (j < to && ch[j].cols != 2 && n + (size_t)ch[j].len < sizeof run) {
            memcpy(run + n, s + ch[j].at, (size_t)ch[j].len);
            n += (size_t)ch[j].len;
            cols += ch[j].cols;
            j++;
        }
        run[n] = '\0';
        size_t lead = strspn(run, " "); // spaces only move the pen
        if (lead < n)
            viz_text_font(c->l, x + (col + (int)lead) * cell, y, (cols - (int)lead) * cell + cell, lh, run + lead, px,
                          VIZ_LEFT | VIZ_MIDDLE, color, VIZ_FONT_MONO);
        col += cols;
        i = j;
    }
}

float viz_code_line(const viz_ctx *c, viz_box b, const char *s, size_t len, float px, float y, viz_rgba col,
                    bool draw) {
    code_char ch[MAX_COLS];
    int n = split_chars(s, len, ch);
    float cell = mono_w(c, "0", 1, px), lh = px * 1.35f;
    int cols = cell > 0 ? (int)floorf(b.w / cell) : 1, lead = 0;
    while (lead < n && s[ch[lead].at] == ' ') lead++;
    int hang = lead + 2 + 2 <= cols / 2 ? lead + 2 : 0; // the mark's column; the text after it and a space
    float y0 = y;
    for (int from = 0, first = 1; first || from < n; first = 0) {
        int at = first ? 0 : hang + 2, end = line_end(ch, s, n, from, cols - at);
        if (draw && y >= b.y - 0.5f && y + lh <= b.y + b.h + 0.5f) { // only whole lines
            viz_fill(c->l, b.x - cell / 2, y, b.w + cell / 2, lh, c->th->panel2);
            if (!first)
                viz_text_font(c->l, b.x + hang * cell, y, 2 * cell, lh, CONT_MARK, px, VIZ_LEFT | VIZ_MIDDLE,
                              c->th->muted, VIZ_FONT_MONO);
            draw_cells(c, ch, s, from, end, b.x, y, cell, lh, px, at, col);
        }
        y += lh;
        if (end <= from) break;
        for (from = end; from < n && s[ch[from].at] == ' ';) from++; // a continuation starts at a word
    }
    return y - y0;
}
