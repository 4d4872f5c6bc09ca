#include "wordpiece.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "unicode_tables.h"
#include "utf8.h"

#define FILE_MAX ((size_t)64 << 20)
#define NAME_SHOWN 160

struct hf_wordpiece {
    char *text;   /* the vocabulary's lines, each NUL-terminated (owned) */
    char **token; /* token[id] points into text */
    int count;
    int *slot; /* open addressing: ids, -1 empty */
    size_t cap;
    int unk_id, cls_id;
    bool lower;
};

static size_t find_slot(const hf_wordpiece *w, const char *s, size_t n) {
    size_t i = (size_t)attn_fnv1a(ATTN_FNV_OFFSET, s, n) & (w->cap - 1);
    while (w->slot[i] >= 0) {
        const char *t = w->token[w->slot[i]];
        if (strlen(t) == n && memcmp(t, s, n) == 0) break;
        i = (i + 1) & (w->cap - 1);
    }
    return i;
}

/* The id of the n bytes at s, or -1. */
static int lookup(const hf_wordpiece *w, const char *s, size_t n) {
    return w->slot[find_slot(w, s, n)];
}

void hf_wordpiece_free(hf_wordpiece *w) {
    if (!w) return;
    free(w->text);
    free(w->token);
    free(w->slot);
    free(w);
}

void hf_wordpiece_set_lower(hf_wordpiece *w, bool lower) {
    if (w) w->lower = lower;
}

attn_status hf_wordpiece_load_text(hf_wordpiece **out, const char *text, size_t len, const char *name,
                                   attn_err *err) {
    char shown[NAME_SHOWN];
    utf8_visible(shown, sizeof shown, name, strlen(name));
    *out = NULL;
    hf_wordpiece *w = calloc(1, sizeof *w);
    attn_status st = ATTN_OK;
    if (!w || !(w->text = malloc(len + 1))) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory reading %s.", shown);
        goto done;
    }
    size_t skip = utf8_bom_len(text, len);
    memcpy(w->text, text + skip, len - skip);
    len -= skip;
    w->text[len] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += w->text[i] == '\n';
    if (len > 0 && w->text[len - 1] == '\n') lines--; // the last line's newline ends no new line
    w->token = malloc(lines * sizeof *w->token);
    w->cap = 64;
    while (w->cap < lines * 2) w->cap *= 2;
    w->slot = malloc(w->cap * sizeof *w->slot);
    if (!w->token || !w->slot) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory reading %s.", shown);
        goto done;
    }
    memset(w->slot, 0xFF, w->cap * sizeof *w->slot);
    for (size_t at = 0; at < len;) {
        char *nl = memchr(w->text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - w->text) : len;
        size_t n = end - at;
        if (n > 0 && w->text[at + n - 1] == '\r') n--;
        w->text[at + n] = '\0';
        if (utf8_find_invalid(w->text + at, n) != (size_t)-1 || memchr(w->text + at, '\0', n)) {
            st = attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_WP_NOT_UTF8, shown, w->count + 1);
            goto done;
        }
        int id = w->count++;
        w->token[id] = w->text + at;
        w->slot[find_slot(w, w->text + at, n)] = id; // a repeated token: the later id, as BERT's loader
        at = end + 1;
    }
    w->unk_id = lookup(w, "[UNK]", 5);
    w->cls_id = lookup(w, "[CLS]", 5);
    if (w->unk_id < 0 || w->cls_id < 0) {
        st = attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_WP_NO_LINE, shown,
                          w->unk_id < 0 ? "[UNK]" : "[CLS]");
        goto done;
    }
    w->lower = true;
done:
    if (st != ATTN_OK) hf_wordpiece_free(w);
    else *out = w;
    return st;
}

attn_status hf_wordpiece_load(hf_wordpiece **out, const char *vocab_path, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    attn_status st = attn_read_regular_file(vocab_path, FILE_MAX, &text, &len, err);
    if (st == ATTN_OK) st = hf_wordpiece_load_text(out, text, len, vocab_path, err);
    free(text);
    return st;
}

/* ---- BERT's character classes ---------------------------------------------- */

static bool is_bert_space(uint32_t cp) {
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || uni_is_space_separator(cp);
}

static bool is_bert_control(uint32_t cp) {
    return cp != '\t' && cp != '\n' && cp != '\r' && uni_is_other(cp);
}

static bool is_bert_punct(uint32_t cp) {
    return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
           (cp >= 123 && cp <= 126) || uni_is_punct(cp);
}

/* BERT's "Chinese character" blocks (CJK Unified Ideographs and their
 * extensions and compatibility blocks; not kana or hangul). */
static bool is_bert_cjk(uint32_t cp) {
    static const uint32_t blocks[][2] = {
        {0x3400, 0x4DBF},
        {0x4E00, 0x9FFF},
        {0xF900, 0xFAFF},
        {0x20000, 0x2A6DF},
        {0x2A700, 0x2B73F},
        {0x2B740, 0x2B81F},
        {0x2B820, 0x2CEAF},
        {0x2F800, 0x2FA1F},
    };
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
        if (cp >= blocks[i][0] && cp <= blocks[i][1]) return true;
    return false;
}

/* ---- encoding -------------------------------------------------------------- */

/* One character of a word: what it became and the bytes of the sentence it
 * came from. */
typedef struct {
    uint32_t cp;
    size_t start, end;
} wchar;

/* Word c[0..n) into pieces (or [UNK]), appended to out. */
static attn_status encode_word(const hf_wordpiece *w, const wchar *c, size_t n, const char *text, size_t len,
                               hf_tokens *out, attn_err *err) {
    if (n == 0) return ATTN_OK;
    int first = out->count;
    char buf[2 + 4 * HF_WORDPIECE_MAX_CHARS], piece[2 + 4 * HF_WORDPIECE_MAX_CHARS] = "##";
    size_t at[HF_WORDPIECE_MAX_CHARS + 1]; // byte offset of each character in buf
    bool unknown = n > HF_WORDPIECE_MAX_CHARS;
    if (!unknown) {
        at[0] = 0;
        for (size_t i = 0; i < n; i++) at[i + 1] = at[i] + (size_t)utf8_encode(c[i].cp, buf + at[i]);
    }
    for (size_t from = 0; !unknown && from < n;) {
        size_t to = n;
        int id = -1;
        for (; to > from; to--) {
            if (from == 0) {
                id = lookup(w, buf + at[0], at[to] - at[0]);
            } else { // a piece after the first is looked up as "##" + its characters
                memcpy(piece + 2, buf + at[from], at[to] - at[from]);
                id = lookup(w, piece, 2 + at[to] - at[from]);
            }
            if (id >= 0) break;
        }
        if (id < 0) {
            unknown = true;
            break;
        }
        attn_status st = hf_tokens_push(out, id, text, len, c[from].start, c[to - 1].end, w->token[id], err);
        if (st != ATTN_OK) return st;
        from = to;
    }
    if (!unknown) return ATTN_OK;
    while (out->count > first) free(out->v[--out->count].label); // the pieces found before failing
    return hf_tokens_push(out, w->unk_id, text, len, c[0].start, c[n - 1].end, "[UNK]", err);
}

/* Steps 1-3 for the sentence: its words' characters into c, a word ending
 * where is_end is set. Returns how many characters. */
static size_t normalise(const hf_wordpiece *w, const char *text, size_t len, wchar *c, bool *is_end) {
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        int k = utf8_decode(text + i, len - i, &cp);
        size_t start = i;
        i += (size_t)(k > 0 ? k : 1);
        if (cp == 0 || cp == 0xFFFD || is_bert_control(cp)) continue;
        bool cjk = is_bert_cjk(cp);
        if ((is_bert_space(cp) || cjk) && n > 0) is_end[n - 1] = true; // ends the word before it
        if (is_bert_space(cp)) continue;
        uint32_t to[3] = {cp};
        int m = w->lower ? uni_lower_strip(cp, to) : 1;
        for (int j = 0; j < m; j++) { // a punctuation mark (once lower-cased) is a word of its own
            bool punct = is_bert_punct(to[j]);
            if (punct && n > 0) is_end[n - 1] = true;
            c[n] = (wchar){to[j], start, i};
            is_end[n++] = punct;
        }
        if (cjk && n > 0) is_end[n - 1] = true; // an ideograph is a word of its own
    }
    if (n > 0) is_end[n - 1] = true;
    return n;
}

attn_status hf_wordpiece_encode(const hf_wordpiece *w, const char *text, size_t len, hf_tokens *out,
                                attn_err *err) {
    attn_status st = hf_tokens_begin(out, text, len, err);
    if (st != ATTN_OK) return st;
    wchar *c = malloc((3 * len + 1) * sizeof *c); // a character becomes at most 3
    bool *is_end = malloc(3 * len + 1);
    if (!c || !is_end) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory for the tokens.");
        goto done;
    }
    st = hf_tokens_push(out, w->cls_id, text, len, 0, 0, "[CLS]", err);
    size_t n = normalise(w, text, len, c, is_end);
    for (size_t from = 0, i = 0; i < n && st == ATTN_OK; i++)
        if (is_end[i]) {
            st = encode_word(w, c + from, i + 1 - from, text, len, out, err);
            from = i + 1;
        }
done:
    if (st != ATTN_OK) hf_tokens_free(out);
    free(c);
    free(is_end);
    return st;
}

const char *hf_wordpiece_piece(const hf_wordpiece *w, int id) {
    return w && id >= 0 && id < w->count ? w->token[id] : NULL;
}

int hf_wordpiece_vocab_size(const hf_wordpiece *w) {
    return w ? w->count : 0;
}
