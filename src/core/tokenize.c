/* tokenize.c — splits a UTF-8 sentence into attnviz tokens (rules in tokenize.h). */
#include "tokenize.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unicode_tables.h"
#include "utf8.h"

typedef uint32_t range[2];

static int in_list(const range *r, size_t n, uint32_t cp) {
    for (size_t i = 0; i < n; i++)
        if (cp >= r[i][0] && cp <= r[i][1]) return 1;
    return 0;
}
#define IN_LIST(table, cp) in_list((table), sizeof(table) / sizeof((table)[0]), (cp))

/* Unicode White_Space (PropList.txt); unicodedata has no such property. */
static const range space_ranges[] = {
    {0x0009, 0x000D},
    {0x0020, 0x0020},
    {0x0085, 0x0085},
    {0x00A0, 0x00A0},
    {0x1680, 0x1680},
    {0x2000, 0x200A},
    {0x2028, 0x2029},
    {0x202F, 0x202F},
    {0x205F, 0x205F},
    {0x3000, 0x3000},
};

/* CJK ideographs: URO, extensions A to H, compatibility ideographs and their
 * supplement. Chinese has no spaces, so each one is a token of its own. */
static const range ideograph_ranges[] = {
    {0x3400, 0x4DBF},
    {0x4E00, 0x9FFF},
    {0xF900, 0xFAFF},
    {0x20000, 0x2A6DF},
    {0x2A700, 0x2EBEF},
    {0x2F800, 0x2FA1F},
    {0x30000, 0x323AF},
};

/* Roughly Unicode's Extended_Pictographic (emoji-data.txt, also missing from
 * unicodedata): the code points that can start or join an emoji sequence.
 * Regional indicators U+1F1E6..1F1FF are in here but are checked first. */
static const range pictograph_ranges[] = {
    {0x00A9, 0x00A9},
    {0x00AE, 0x00AE},
    {0x203C, 0x203C},
    {0x2049, 0x2049},
    {0x2122, 0x2122},
    {0x2139, 0x2139},
    {0x2194, 0x2199},
    {0x21A9, 0x21AA},
    {0x231A, 0x231B},
    {0x2328, 0x2328},
    {0x2388, 0x2388},
    {0x23CF, 0x23CF},
    {0x23E9, 0x23F3},
    {0x23F8, 0x23FA},
    {0x24C2, 0x24C2},
    {0x25AA, 0x25AB},
    {0x25B6, 0x25B6},
    {0x25C0, 0x25C0},
    {0x25FB, 0x25FE},
    {0x2600, 0x27BF},
    {0x2934, 0x2935},
    {0x2B05, 0x2B07},
    {0x2B1B, 0x2B1C},
    {0x2B50, 0x2B50},
    {0x2B55, 0x2B55},
    {0x3030, 0x3030},
    {0x303D, 0x303D},
    {0x3297, 0x3297},
    {0x3299, 0x3299},
    {0x1F000, 0x1FAFF},
    {0x1FC00, 0x1FFFD},
};

#define ZWJ 0x200Du

static int is_space(uint32_t cp) {
    return IN_LIST(space_ranges, cp);
}

static int is_ideograph(uint32_t cp) {
    return cp >= 0x3400 && IN_LIST(ideograph_ranges, cp);
}

static int is_pictograph(uint32_t cp) {
    return cp >= 0xA9 && IN_LIST(pictograph_ranges, cp);
}

static int is_regional(uint32_t cp) {
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

/* Skin tones and tag characters extend the emoji before them. */
static int is_emoji_modifier(uint32_t cp) {
    return (cp >= 0x1F3FB && cp <= 0x1F3FF) || (cp >= 0xE0020 && cp <= 0xE007F);
}

/* CJK symbols and punctuation (U+3000..303F, even the letter-like 々 and 〇)
 * and full-width punctuation: one token each, never part of a word run. */
static int is_cjk_punct(uint32_t cp) {
    if (cp >= 0x3000 && cp <= 0x303F) return 1;
    return cp >= 0xFF00 && cp <= 0xFF65 && !uni_is_word(cp);
}

/* May this code point be part of a run of letters, digits and marks? */
static int is_run_char(uint32_t cp) {
    return uni_is_word(cp) && !is_ideograph(cp) && !is_cjk_punct(cp) && !is_pictograph(cp);
}

static int is_apostrophe(uint32_t cp) {
    return cp == '\'' || cp == 0x2019;
}

/* Code point at s[i] (input already validated) and its byte length; 0 at end. */
static size_t peek(const char *s, size_t len, size_t i, uint32_t *cp) {
    if (i >= len) {
        *cp = 0;
        return 0;
    }
    return (size_t)utf8_decode(s + i, len - i, cp);
}

/* Skips the combining marks starting at i. */
static size_t skip_marks(const char *s, size_t len, size_t i) {
    uint32_t cp;
    size_t n;
    while ((n = peek(s, len, i, &cp)) > 0 && uni_is_mark(cp)) i += n;
    return i;
}

/* One emoji element: a pictograph followed by marks (variation selectors,
 * keycap), skin tones and tags. i is just past the pictograph. */
static size_t skip_emoji_tail(const char *s, size_t len, size_t i) {
    uint32_t cp;
    size_t n;
    while ((n = peek(s, len, i, &cp)) > 0 && (uni_is_mark(cp) || is_emoji_modifier(cp)))
        i += n;
    return i;
}

/* End of the emoji sequence whose first pictograph ends at i: further
 * elements are kept only when a ZWJ joins them to a following pictograph. */
static size_t scan_emoji(const char *s, size_t len, size_t i) {
    uint32_t cp, next;
    size_t n, m;
    i = skip_emoji_tail(s, len, i);
    while ((n = peek(s, len, i, &cp)) > 0 && cp == ZWJ &&
           (m = peek(s, len, i + n, &next)) > 0 && is_pictograph(next) && !is_regional(next))
        i = skip_emoji_tail(s, len, i + n + m);
    return i;
}

/* End of a run of letters, digits and marks starting at i; an apostrophe
 * stays inside when run characters stand on both sides of it. */
static size_t scan_run(const char *s, size_t len, size_t i) {
    uint32_t cp, next;
    size_t n;
    while ((n = peek(s, len, i, &cp)) > 0) {
        if (is_run_char(cp)) {
            i += n;
        } else if (is_apostrophe(cp) && peek(s, len, i + n, &next) > 0 && is_run_char(next)) {
            i += n;
        } else {
            break;
        }
    }
    return i;
}

/* Is w usable for longest match: at least two code points, no whitespace? */
static int vocab_word_ok(const char *w, size_t wlen) {
    uint32_t cp;
    size_t i = 0, n;
    int count = 0;
    if (utf8_find_invalid(w, wlen) != (size_t)-1) return 0;
    while ((n = peek(w, wlen, i, &cp)) > 0) {
        if (is_space(cp)) return 0;
        count++;
        i += n;
    }
    return count >= 2;
}

/* ---- the sorted index of a word list ---- */

static int fold(unsigned char c) {
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* a[0..an) against b[0..bn) with ASCII folded: <0, 0, >0. */
static int fold_cmp(const char *a, size_t an, const char *b, size_t bn) {
    size_t n = an < bn ? an : bn;
    for (size_t i = 0; i < n; i++) {
        int d = fold((unsigned char)a[i]) - fold((unsigned char)b[i]);
        if (d) return d;
    }
    return an < bn ? -1 : an > bn;
}

typedef struct {
    const char *w;
    int i;
} word_ref;

static const char *word_at(const char *const *words, int i) {
    return words[i] ? words[i] : ""; // an unusable entry: never matches
}

static int ref_cmp(const void *pa, const void *pb) {
    const word_ref *a = pa, *b = pb;
    int d = fold_cmp(a->w, strlen(a->w), b->w, strlen(b->w));
    return d ? d : (a->i > b->i) - (a->i < b->i);
}

void attn_words_sort(int *order, const char *const *words, int count) {
    word_ref *refs = malloc(sizeof *refs * (size_t)(count > 0 ? count : 1));
    if (!refs) { // no room for the sort: in list order, searched in full by the callers' fallback
        for (int i = 0; i < count; i++) order[i] = i;
        return;
    }
    for (int i = 0; i < count; i++) refs[i] = (word_ref){word_at(words, i), i};
    qsort(refs, (size_t)count, sizeof *refs, ref_cmp);
    for (int i = 0; i < count; i++) order[i] = refs[i].i;
    free(refs);
}

void attn_words_find(const char *const *words, const int *order, int count, const char *s, size_t n,
                     int *first, int *last) {
    int lo = 0, hi = count; // the first word not below s
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const char *w = word_at(words, order[mid]);
        if (fold_cmp(w, strlen(w), s, n) < 0) lo = mid + 1;
        else hi = mid;
    }
    *first = lo;
    for (const char *w; hi < count && (w = word_at(words, order[hi]), fold_cmp(w, strlen(w), s, n) == 0);) hi++;
    *last = hi > lo ? hi : lo;
}

/* Looks s[0..n) up in v's sorted index: false when no word starts with it
 * (case folded), so no longer word can match either; *exact when a word is
 * s[0..n) byte for byte. */
static bool look_up(const attn_wordlist *v, const char *s, size_t n, bool *exact) {
    int first, last;
    attn_words_find(v->words, v->order, v->count, s, n, &first, &last);
    *exact = false;
    for (int k = first; k < last && !*exact; k++) {
        const char *w = word_at(v->words, v->order[k]);
        *exact = strlen(w) == n && memcmp(w, s, n) == 0;
    }
    if (first == last && first < v->count) { // words equal to s come first: is the next one longer?
        const char *w = word_at(v->words, v->order[first]);
        return strlen(w) > n && fold_cmp(w, n, s, n) == 0;
    }
    return first < last;
}

/* The longest listed word of two or more code points at s[i], trying each
 * end in turn while some word still starts that way: a word never holds
 * whitespace, and s is valid UTF-8 here. */
static size_t match_sorted(const char *s, size_t len, size_t i, const attn_wordlist *v) {
    size_t best = 0, j = i, n;
    int cps = 0;
    uint32_t cp;
    bool exact;
    while ((n = peek(s, len, j, &cp)) > 0 && !is_space(cp)) {
        j += n;
        if (!look_up(v, s + i, j - i, &exact)) break;
        if (++cps >= 2 && exact) best = j - i;
    }
    return best;
}

/* Byte length of the longest vocabulary word that starts at s[i], or 0. */
static size_t match_vocab(const char *s, size_t len, size_t i, const attn_wordlist *v) {
    size_t best = 0;
    if (!v || !v->words) return 0;
    if (v->order) return match_sorted(s, len, i, v);
    for (int k = 0; k < v->count; k++) {
        const char *w = v->words[k];
        if (!w) continue;
        size_t wlen = strlen(w);
        if (wlen <= best || wlen > len - i || memcmp(s + i, w, wlen) != 0) continue;
        if (vocab_word_ok(w, wlen)) best = wlen;
    }
    return best;
}

/* End of the token that starts with code point cp (n bytes) at s[i]. */
static size_t scan_token(const char *s, size_t len, size_t i, uint32_t cp, size_t n,
                         const attn_wordlist *vocab) {
    uint32_t next;
    size_t m;
    if (is_regional(cp)) {
        /* Two regional indicators make a flag. */
        if ((m = peek(s, len, i + n, &next)) > 0 && is_regional(next)) n += m;
        return skip_marks(s, len, i + n);
    }
    if (is_pictograph(cp)) return scan_emoji(s, len, i + n);
    if (is_ideograph(cp)) {
        size_t w = match_vocab(s, len, i, vocab);
        return skip_marks(s, len, i + (w > n ? w : n));
    }
    if (is_cjk_punct(cp)) return skip_marks(s, len, i + n);
    if (uni_is_word(cp)) return scan_run(s, len, i);
    return skip_marks(s, len, i + n);
}

/* Control characters (other than whitespace) are refused: they are invisible
 * on screen and a terminal may act on them (ESC starts a sequence). */
static attn_status check_controls(const char *s, size_t len, attn_err *err) {
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = utf8_decode(s + i, len - i, &cp);
        bool control = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
        if (control && !is_space(cp)) {
            char u[16], at[24];
            snprintf(u, sizeof u, "%04X", (unsigned)cp);
            snprintf(at, sizeof at, "%zu", i);
            return attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_CONTROL, u, at, NULL);
        }
        i += n > 0 ? (size_t)n : 1;
    }
    return ATTN_OK;
}

/* Checks length, NUL bytes and UTF-8; reports the first problem by offset. */
static attn_status check_input(const char *s, size_t len, attn_err *err) {
    char a[24], b[24];
    if (!s || len == 0) return attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_EMPTY, NULL, NULL, NULL);
    if (len > ATTN_MAX_SENTENCE_BYTES) {
        snprintf(a, sizeof a, "%zu", len);
        snprintf(b, sizeof b, "%d", ATTN_MAX_SENTENCE_BYTES);
        return attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_BYTES, a, b, NULL);
    }
    size_t bad = utf8_find_invalid(s, len);
    const char *nul = memchr(s, '\0', len);
    if (nul && (size_t)(nul - s) < bad) {
        snprintf(a, sizeof a, "%zu", (size_t)(nul - s));
        return attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_NUL, a, NULL, NULL);
    }
    if (bad != (size_t)-1)
        return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_UTF8, bad, (int)attn_utf8_problem_msg(s, len, bad));
    return check_controls(s, len, err);
}

/* Marks every token whose text also occurs at another position. */
static void mark_repeated(attn_tokens *t) {
    for (int a = 0; a < t->n; a++) {
        for (int b = a + 1; b < t->n; b++) {
            if (t->len[a] == t->len[b] &&
                memcmp(t->text + t->off[a], t->text + t->off[b], (size_t)t->len[a]) == 0)
                t->repeated[a] = t->repeated[b] = 1;
        }
    }
}

/* Splits s into *out's offset arrays; counts past the limit to report the total. */
static attn_status split(attn_tokens *out, const char *s, size_t len, const attn_wordlist *vocab,
                         attn_err *err) {
    size_t i = 0;
    long count = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = peek(s, len, i, &cp);
        if (is_space(cp)) {
            i += n;
            continue;
        }
        size_t end = scan_token(s, len, i, cp, n, vocab);
        if (count < ATTN_MAX_TOKENS) {
            out->off[count] = (int)i;
            out->len[count] = (int)(end - i);
        }
        count++;
        i = end;
    }
    if (count == 0) return attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_BLANK, NULL, NULL, NULL);
    if (count > ATTN_MAX_TOKENS) {
        char a[24], b[24];
        snprintf(a, sizeof a, "%ld", count);
        snprintf(b, sizeof b, "%d", ATTN_MAX_TOKENS);
        return attn_fail_msg(err, ATTN_ERR_INPUT, ATTN_MSG_SENTENCE_TOKENS, a, b, NULL);
    }
    out->n = (int)count;
    return ATTN_OK;
}

attn_status attn_tokenize(attn_tokens *out, const char *s, size_t len,
                          const attn_wordlist *vocab, attn_err *err) {
    attn_tokens t;
    memset(&t, 0, sizeof t);
    if (out) memset(out, 0, sizeof *out);
    attn_status st = check_input(s, len, err);
    if (st == ATTN_OK) st = split(&t, s, len, vocab, err);
    if (st != ATTN_OK) return st;
    if (!out) return ATTN_OK;
    t.text = malloc(len + 1);
    if (!t.text)
        return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory while copying the sentence.");
    memcpy(t.text, s, len);
    t.text[len] = '\0';
    t.text_len = len;
    mark_repeated(&t);
    *out = t;
    return ATTN_OK;
}

void attn_tokens_free(attn_tokens *t) {
    if (!t) return;
    free(t->text);
    memset(t, 0, sizeof *t);
}

attn_status attn_tokens_copy(attn_tokens *dst, const attn_tokens *src, attn_err *err) {
    if (!dst) return ATTN_OK;
    memset(dst, 0, sizeof *dst);
    if (!src || !src->text) return ATTN_OK;
    char *text = malloc(src->text_len + 1);
    if (!text) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory while copying the tokens.");
    memcpy(text, src->text, src->text_len + 1);
    *dst = *src;
    dst->text = text;
    return ATTN_OK;
}

const char *attn_token_text(const attn_tokens *t, int i, int *len) {
    if (!t || !t->text || i < 0 || i >= t->n) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = t->len[i];
    return t->text + t->off[i];
}

/* Appends whole code points of s[0..n) to out while the NUL still fits in cap. */
static void append(char *out, size_t cap, size_t *pos, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        int k = utf8_decode(s + i, n - i, &cp);
        size_t step = k > 0 ? (size_t)k : 1;
        if (*pos + step >= cap) return;
        memcpy(out + *pos, s + i, step);
        *pos += step;
        i += step;
    }
}

size_t attn_token_label(const attn_tokens *t, int i, int max_cols, char *out, size_t cap) {
    static const char ellipsis[] = "\xE2\x80\xA6"; /* U+2026, one column */
    char pre[16] = "";
    int tlen;
    size_t pos = 0;
    const char *text = attn_token_text(t, i, &tlen);
    if (!out || cap == 0) return 0;
    out[0] = '\0';
    if (!text) return 0;
    if (t->repeated[i]) snprintf(pre, sizeof pre, "%d:", i + 1); /* 1-based, as a learner counts */
    size_t plen = strlen(pre), keep_pre = plen, keep_text = (size_t)tlen;
    int cut = max_cols > 0 && utf8_width(pre, plen) + utf8_width(text, keep_text) > max_cols;
    if (cut) {
        /* Leave one column for the ellipsis; the position prefix goes first. */
        int room = max_cols - 1;
        keep_pre = utf8_prefix_fitting(pre, plen, room);
        room -= utf8_width(pre, keep_pre);
        keep_text = keep_pre == plen ? utf8_prefix_fitting(text, keep_text, room) : 0;
    }
    size_t body_cap = cut && cap > sizeof ellipsis ? cap - (sizeof ellipsis - 1) : cap;
    append(out, body_cap, &pos, pre, keep_pre);
    append(out, body_cap, &pos, text, keep_text);
    if (cut) append(out, cap, &pos, ellipsis, sizeof ellipsis - 1);
    out[pos] = '\0';
    return pos;
}
