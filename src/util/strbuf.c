#include "strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void attn_sb_init(attn_strbuf *b) {
    memset(b, 0, sizeof *b);
}

void attn_sb_free(attn_strbuf *b) {
    if (!b) return;
    free(b->data);
    memset(b, 0, sizeof *b);
}

bool attn_sb_ok(const attn_strbuf *b) {
    return !b->failed;
}

static bool reserve(attn_strbuf *b, size_t extra) {
    if (b->failed) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void attn_sb_append(attn_strbuf *b, const char *s, size_t len) {
    if (!reserve(b, len)) return;
    memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void attn_sb_puts(attn_strbuf *b, const char *s) {
    attn_sb_append(b, s, strlen(s));
}

void attn_sb_printf(attn_strbuf *b, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need >= 0 && reserve(b, (size_t)need)) {
        vsnprintf(b->data + b->len, (size_t)need + 1, fmt, ap2);
        b->len += (size_t)need;
    }
    va_end(ap2);
}

char *attn_format_double(char buf[ATTN_DOUBLE_CHARS], double v) {
    if (!isfinite(v)) {
        snprintf(buf, ATTN_DOUBLE_CHARS, "%s", isnan(v) ? "nan" : v < 0 ? "-inf"
                                                                        : "inf");
        return buf;
    }
    // the shortest of %.15g .. %.17g that reads back to the same double
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, ATTN_DOUBLE_CHARS, "%.*g", prec, v);
        for (char *p = buf; *p; p++) // a locale may print ',' for the decimal point
            if (*p == ',') *p = '.';
        if (strtod(buf, NULL) == v || prec == 17) break;
    }
    return buf;
}

void attn_sb_number(attn_strbuf *b, double v) {
    char tmp[ATTN_DOUBLE_CHARS];
    attn_sb_puts(b, isfinite(v) ? attn_format_double(tmp, v) : "null");
}

void attn_sb_json_string(attn_strbuf *b, const char *s, size_t len) {
    attn_sb_append(b, "\"", 1);
    size_t run = 0; // copy plain bytes in runs
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        attn_sb_append(b, s + run, i - run);
        run = i + 1;
        if (c == '"') attn_sb_puts(b, "\\\"");
        else if (c == '\\') attn_sb_puts(b, "\\\\");
        else if (c == '\n') attn_sb_puts(b, "\\n");
        else if (c == '\t') attn_sb_puts(b, "\\t");
        else attn_sb_printf(b, "\\u%04x", c);
    }
    attn_sb_append(b, s + run, len - run);
    attn_sb_append(b, "\"", 1);
}

void attn_sb_shell_word(attn_strbuf *b, const char *s) {
    bool plain = *s != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_./-=,:+@%", *p);
    if (plain) {
        attn_sb_puts(b, s);
        return;
    }
    attn_sb_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'') attn_sb_puts(b, "'\\''");
        else attn_sb_append(b, s, 1);
    }
    attn_sb_puts(b, "'");
}

char *attn_sb_take(attn_strbuf *b) {
    if (b->failed) {
        attn_sb_free(b);
        return NULL;
    }
    if (!b->data) return calloc(1, 1);
    char *p = b->data;
    memset(b, 0, sizeof *b);
    return p;
}
