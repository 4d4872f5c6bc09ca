/* export_md.c — Markdown for the handout (and the index): each page's title,
 * text and figure, with user text fenced so it cannot break the layout. */
#include <string.h>

#include "export.h"
#include "export_internal.h"

/* Longest run of backticks in s. */
static int longest_ticks(const char *s) {
    int best = 0, run = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best) best = run;
    }
    return best;
}

static void ticks(attn_strbuf *b, int n) {
    for (int i = 0; i < n; i++) attn_sb_puts(b, "`");
}

void ex_md_code(attn_strbuf *b, const char *s) {
    int n = longest_ticks(s) + 1;
    size_t len = strlen(s);
    // CommonMark strips one space at each end when both are there
    bool pad = len > 0 && (s[0] == '`' || s[len - 1] == '`' || s[0] == ' ' || s[len - 1] == ' ');
    ticks(b, n);
    if (pad) attn_sb_puts(b, " ");
    for (; *s; s++) attn_sb_append(b, *s == '\n' || *s == '\r' ? " " : s, 1); // a span is one line
    if (pad) attn_sb_puts(b, " ");
    ticks(b, n);
}

void ex_md_block(attn_strbuf *b, const char *lang, const char *s) {
    int n = longest_ticks(s) + 1; // a fence longer than any run inside
    if (n < 3) n = 3;
    ticks(b, n);
    attn_sb_printf(b, "%s\n", lang);
    attn_sb_puts(b, s);
    attn_sb_puts(b, "\n");
    ticks(b, n);
    attn_sb_puts(b, "\n");
}

/* Where a line starts, digits then '.' or ')' open an ordered list: the
 * length of the digits, or 0. */
static size_t list_number(const char *s, size_t len) {
    size_t k = 0;
    while (k < len && k < 9 && s[k] >= '0' && s[k] <= '9') k++;
    return k > 0 && k < len && (s[k] == '.' || s[k] == ')') ? k : 0;
}

void ex_md_text(attn_strbuf *b, const char *s, size_t len, bool line_start) {
    size_t number = line_start ? list_number(s, len) : 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '<') attn_sb_puts(b, "&lt;"); // an entity: Python-Markdown (MkDocs) keeps "\<" as raw HTML
        else if (c == '>') attn_sb_puts(b, "&gt;");
        else if (c == '&') attn_sb_puts(b, "&amp;");
        else if (c == '$') attn_sb_puts(b, "&#36;");           // pandoc reads $…$ as TeX math, raw in its PDF ("$^^5cinput{…}$")
        else if (c == '\n' || c == '\r') attn_sb_puts(b, " "); // one line: a heading, an item, a paragraph
        else {
            // the punctuation every Markdown (CommonMark, pandoc, Python-Markdown) takes back from "\c";
            // a line's first '-', '+' or "1." would start a list
            bool at_start = line_start && i == 0 && (c == '-' || c == '+');
            if (strchr("\\`*_[]#!", c) || at_start || (number && i == number)) attn_sb_puts(b, "\\");
            attn_sb_append(b, &s[i], 1);
        }
    }
}

void ex_md_line(attn_strbuf *b, const char *s) { ex_md_text(b, s, strlen(s), false); }

/* The page's text up to its last line break, then a blank line. */
static void md_text(attn_strbuf *b, const char *text) {
    size_t tl = text ? strlen(text) : 0;
    while (tl > 0 && text[tl - 1] == '\n') tl--; // exactly one blank line follows
    if (tl) {
        attn_sb_append(b, text, tl);
        attn_sb_puts(b, "\n\n");
    }
}

void ex_md_page(attn_strbuf *b, const export_item *it, int number, const char *title, const char *text,
                const char *image, const char *page_word) {
    attn_strbuf cfg;
    attn_sb_init(&cfg);
    ex_item_config_text(&cfg, it);
    attn_sb_puts(b, "## ");
    if (page_word) attn_sb_printf(b, page_word, number); // a lesson's page: not to be read as a step number
    else attn_sb_printf(b, "%d", number);
    attn_sb_puts(b, " · ");
    ex_md_line(b, title);
    attn_sb_puts(b, "\n\n");
    ex_md_code(b, it->trace->tokens.text);
    attn_sb_puts(b, " — ");
    ex_md_code(b, cfg.data ? cfg.data : "");
    attn_sb_puts(b, "\n\n");
    md_text(b, text); // the question comes before the figure that answers it
    if (image) {
        attn_sb_puts(b, "![");
        ex_md_line(b, title);
        attn_sb_printf(b, "](%s)\n\n", image);
    }
    md_text(b, it->text_after);
    attn_sb_free(&cfg);
}
