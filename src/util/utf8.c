/* utf8.c — strict UTF-8 decoding and terminal display width. */
#include "utf8.h"

#include <stdio.h>
#include <string.h>

#include "unicode_tables.h"

typedef enum {
    U8_OK,
    U8_OVERLONG,
    U8_SURROGATE,
    U8_TRUNCATED,
    U8_STRAY,
    U8_NEVER,
    U8_ABOVE
} u8_problem;

static int is_cont(unsigned char b) {
    return (b & 0xC0) == 0x80;
}

/* Sequence length announced by lead byte b, and the allowed range of the
 * second byte (narrower after E0, ED, F0, F4 to rule out overlong forms,
 * surrogates and code points above U+10FFFF). Returns a problem for bytes
 * that cannot start a sequence. */
static u8_problem lead_info(unsigned char b, int *need, unsigned char *lo, unsigned char *hi) {
    *lo = 0x80;
    *hi = 0xBF;
    if (b < 0x80) {
        *need = 0;
        return U8_OK;
    }
    if (b < 0xC0) return U8_STRAY;
    if (b < 0xC2) return U8_OVERLONG; /* C0, C1 only ever encode ASCII twice */
    if (b < 0xE0) {
        *need = 1;
        return U8_OK;
    }
    if (b < 0xF0) {
        *need = 2;
        if (b == 0xE0) *lo = 0xA0;
        if (b == 0xED) *hi = 0x9F;
        return U8_OK;
    }
    if (b < 0xF5) {
        *need = 3;
        if (b == 0xF0) *lo = 0x90;
        if (b == 0xF4) *hi = 0x8F;
        return U8_OK;
    }
    return U8_NEVER;
}

/* What is wrong with the second byte c of a sequence led by b (c is a
 * continuation byte outside the range lead_info allows). */
static u8_problem second_byte_problem(unsigned char b) {
    if (b == 0xED) return U8_SURROGATE;
    if (b == 0xF4) return U8_ABOVE;
    return U8_OVERLONG; /* E0 or F0 */
}

/* Classifies the sequence at s[0..len), len >= 1. On U8_OK stores the code
 * point and the byte count. */
static u8_problem classify(const unsigned char *s, size_t len, uint32_t *cp, int *nbytes) {
    int need;
    unsigned char lo, hi;
    u8_problem p = lead_info(s[0], &need, &lo, &hi);
    if (p != U8_OK) return p;
    static const unsigned char lead_mask[4] = {0x7F, 0x1F, 0x0F, 0x07};
    uint32_t v = s[0] & lead_mask[need];
    for (int k = 1; k <= need; k++) {
        if ((size_t)k >= len || !is_cont(s[k])) return U8_TRUNCATED;
        if (k == 1 && (s[1] < lo || s[1] > hi)) return second_byte_problem(s[0]);
        v = (v << 6) | (s[k] & 0x3Fu);
    }
    *cp = v;
    *nbytes = need + 1;
    return U8_OK;
}

int utf8_decode(const char *s, size_t len, uint32_t *cp) {
    int n = 0;
    uint32_t v = 0;
    if (!s || len == 0) return 0;
    if (classify((const unsigned char *)s, len, &v, &n) != U8_OK) return 0;
    if (cp) *cp = v;
    return n;
}

int utf8_encode(uint32_t cp, char *out) {
    unsigned char *o = (unsigned char *)out;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t utf8_find_invalid(const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        int n;
        if (u[i] < 0x80) { /* fast path for ASCII, NUL included */
            i++;
            continue;
        }
        if (classify(u + i, len - i, &cp, &n) != U8_OK) return i;
        i += (size_t)n;
    }
    return (size_t)-1;
}

int utf8_problem_kind(const char *s, size_t len, size_t off) {
    uint32_t cp;
    int n;
    if (!s || off >= len) return -1;
    return (int)classify((const unsigned char *)s + off, len - off, &cp, &n);
}

const char *utf8_problem(const char *s, size_t len, size_t off) {
    uint32_t cp;
    int n;
    if (!s || off >= len) return "the end of the text";
    switch (classify((const unsigned char *)s + off, len - off, &cp, &n)) {
    case U8_OK: return "a well-formed character";
    case U8_OVERLONG: return "an overlong encoding";
    case U8_SURROGATE: return "a UTF-16 surrogate";
    case U8_TRUNCATED: return "a truncated sequence";
    case U8_STRAY: return "a stray continuation byte";
    case U8_NEVER: return "a byte that never appears in UTF-8";
    case U8_ABOVE: return "a code point above U+10FFFF";
    }
    return "an invalid sequence";
}

/* Invisible code points that are not marks: zero-width space/joiners and
 * direction marks, word joiner and friends, the byte order mark, tag
 * characters (used in subdivision flags), and Hangul vowel/final jamo, which
 * a terminal draws inside the preceding syllable block. */
static const uint32_t invisible_ranges[][2] = {
    {0x1160, 0x11FF},
    {0x200B, 0x200F},
    {0x2060, 0x2064},
    {0xD7B0, 0xD7FF},
    {0xFEFF, 0xFEFF},
    {0xE0001, 0xE0001},
    {0xE0020, 0xE007F},
};

static int is_invisible(uint32_t cp) {
    size_t n = sizeof invisible_ranges / sizeof invisible_ranges[0];
    for (size_t i = 0; i < n; i++)
        if (cp >= invisible_ranges[i][0] && cp <= invisible_ranges[i][1]) return 1;
    return 0;
}

int utf8_cp_width(uint32_t cp) {
    if (cp < 0x300) return 1; /* Latin-1 and friends: no marks, nothing wide */
    if (uni_is_zero_width(cp) || is_invisible(cp)) return 0;
    if (uni_is_wide(cp)) return 2;
    return 1;
}

/* Decodes at s[i]; a malformed byte counts as one column-1 code point so the
 * width functions stay total even on bad input. */
static size_t step(const char *s, size_t len, size_t i, int *width) {
    uint32_t cp;
    int n = utf8_decode(s + i, len - i, &cp);
    if (n == 0) {
        *width = 1;
        return 1;
    }
    *width = utf8_cp_width(cp);
    return (size_t)n;
}

int utf8_width(const char *s, size_t len) {
    int cols = 0;
    size_t i = 0;
    if (!s) return 0;
    while (i < len) {
        int w;
        i += step(s, len, i, &w);
        cols += w;
    }
    return cols;
}

size_t utf8_prefix_fitting(const char *s, size_t len, int max_cols) {
    int cols = 0;
    size_t i = 0;
    if (!s) return 0;
    while (i < len) {
        int w;
        size_t n = step(s, len, i, &w);
        if (cols + w > max_cols) break;
        cols += w;
        i += n;
    }
    return i;
}

size_t utf8_cut(const char *s, size_t len, size_t max) {
    if (len <= max) return len;
    size_t i = max;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--; // s[max] is where the next character would start
    return i;
}

size_t utf8_drop_partial(const char *s, size_t len) {
    size_t lead = len;
    for (int back = 0; back < 4 && lead > 0; back++) { // a code point has at most 3 continuation bytes
        lead--;
        if (((unsigned char)s[lead] & 0xC0) != 0x80) break;
    }
    if (lead >= len || ((unsigned char)s[lead] & 0xC0) == 0x80) return len; // nothing to judge
    uint32_t cp;
    return utf8_decode(s + lead, len - lead, &cp) == (int)(len - lead) ? len : lead;
}

void utf8_trim_partial(char *s) {
    s[utf8_drop_partial(s, strlen(s))] = '\0';
}

size_t utf8_bom_len(const char *s, size_t len) {
    return len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

size_t utf8_visible(char *out, size_t cap, const char *s, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        char piece[8];
        uint32_t cp = 0;
        int n = utf8_decode(s + i, len - i, &cp);
        size_t k;
        if (n == 0 || cp < 0x20 || cp == 0x7F) { // not UTF-8 here, or a C0 control: one byte at a time
            k = (size_t)snprintf(piece, sizeof piece, "\\x%02x", (unsigned char)s[i]);
            n = 1;
        } else if (cp >= 0x80 && cp <= 0x9F) {
            k = (size_t)snprintf(piece, sizeof piece, "\\u%04x", (unsigned)cp);
        } else {
            k = (size_t)n;
            memcpy(piece, s + i, k);
        }
        if (o + k >= cap) break;
        memcpy(out + o, piece, k);
        o += k;
        i += (size_t)n;
    }
    if (cap) out[o] = '\0';
    return o;
}
