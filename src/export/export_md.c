/* export_md.c — Markdown for the handout (and the index): each page's title,
 * text and figure, with user text fenced so it cannot break the layout. */
#include <string.h>

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

/* Image alt text: brackets and backslashes escaped, one line. */
static void alt_text(attn_strbuf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '[' || *s == ']' || *s == '\\') attn_sb_puts(b, "\\");
        attn_sb_append(b, *s == '\n' || *s == '\r' ? " " : s, 1);
    }
}

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
    for (const char *p = title; *p; p++) attn_sb_append(b, *p == '\n' ? " " : p, 1);
    attn_sb_puts(b, "\n\n");
    ex_md_code(b, it->trace->tokens.text);
    attn_sb_puts(b, " — ");
    ex_md_code(b, cfg.data ? cfg.data : "");
    attn_sb_puts(b, "\n\n");
    md_text(b, text); // the question comes before the figure that answers it
    if (image) {
        attn_sb_puts(b, "![");
        alt_text(b, title);
        attn_sb_printf(b, "](%s)\n\n", image);
    }
    md_text(b, it->text_after);
    attn_sb_free(&cfg);
}
