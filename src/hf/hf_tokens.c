#include "hf_tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "unicode_tables.h"
#include "utf8.h"

void hf_tokens_free(hf_tokens *t) {
    if (!t) return;
    for (int i = 0; i < t->count; i++) free(t->v[i].label);
    free(t->v);
    memset(t, 0, sizeof *t);
}

static bool is_continuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

/* How one whole character (cp, its n bytes at s) is shown. */
static void show_char(attn_strbuf *b, uint32_t cp, const char *s, int n) {
    if (cp == ' ') attn_sb_puts(b, "␣");
    else if (cp == '\n') attn_sb_puts(b, "↵");
    else if (cp == '\t') attn_sb_puts(b, "⇥");
    else if (uni_is_white_space(cp) || uni_is_other(cp)) attn_sb_printf(b, "‹U+%04X›", (unsigned)cp);
    else attn_sb_append(b, s, (size_t)n);
}

/* The label of the characters of s[0..n) (valid UTF-8), whole. */
static void show_text(attn_strbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        int k = utf8_decode(s + i, n - i, &cp);
        if (k <= 0) { // not expected (callers validate); shown as a byte
            attn_sb_printf(b, "‹%02x›", (unsigned char)s[i]);
            i++;
            continue;
        }
        show_char(b, cp, s + i, k);
        i += (size_t)k;
    }
}

char *hf_label_bytes(const char *text, size_t len, size_t start, size_t end) {
    attn_strbuf b;
    attn_sb_init(&b);
    size_t i = start;
    while (i > 0 && i < len && is_continuation((unsigned char)text[i])) i--; // the character start is in
    while (i < end) {
        uint32_t cp = 0;
        int k = utf8_decode(text + i, len - i, &cp);
        if (k <= 0) k = 1;
        size_t ce = i + (size_t)k;
        if (i >= start && ce <= end) {
            show_char(&b, cp, text + i, k);
        } else { // only some of its bytes are in this token
            size_t from = i < start ? start : i, to = ce < end ? ce : end;
            attn_sb_puts(&b, "‹");
            for (size_t j = from; j < to; j++) attn_sb_printf(&b, j == from ? "%02x" : " %02x", (unsigned char)text[j]);
            attn_sb_puts(&b, "›");
        }
        i = ce;
    }
    return attn_sb_take(&b);
}

attn_status hf_tokens_push(hf_tokens *t, int id, const char *text, size_t len, size_t start, size_t end,
                           const char *label, attn_err *err) {
    if (t->count == t->cap) {
        int cap = t->cap ? t->cap * 2 : 32;
        hf_token *grown = realloc(t->v, (size_t)cap * sizeof *grown);
        if (!grown) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory for the tokens.");
        t->v = grown;
        t->cap = cap;
    }
    char *shown;
    if (label) {
        attn_strbuf b;
        attn_sb_init(&b);
        show_text(&b, label, strlen(label));
        shown = attn_sb_take(&b);
    } else {
        shown = hf_label_bytes(text, len, start, end);
    }
    if (!shown) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory for the tokens.");
    hf_token *k = &t->v[t->count++];
    k->id = id;
    k->start = start;
    k->end = end;
    k->char_start = start;
    while (k->char_start > 0 && k->char_start < len && is_continuation((unsigned char)text[k->char_start]))
        k->char_start--;
    k->char_end = end;
    while (k->char_end > start && k->char_end < len && is_continuation((unsigned char)text[k->char_end]))
        k->char_end++;
    k->label = shown;
    return ATTN_OK;
}

attn_status hf_tokens_begin(hf_tokens *out, const char *text, size_t len, attn_err *err) {
    memset(out, 0, sizeof *out);
    size_t bad = utf8_find_invalid(text, len);
    if (bad != (size_t)-1)
        return attn_fail(err, ATTN_ERR_INPUT, "The sentence is not valid UTF-8: %s at byte %zu.",
                         utf8_problem(text, len, bad), bad);
    return ATTN_OK;
}
