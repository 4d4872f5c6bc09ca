#include "bpe.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attn_json.h"
#include "fileio.h"
#include "hash.h"
#include "unicode_tables.h"
#include "utf8.h"

#define MAX_ID ((1 << 24) - 1)
#define FILE_MAX ((size_t)64 << 20) /* GPT-2's vocab.json is 1 MB, merges.txt 0.5 MB */
#define NAME_SHOWN 160

struct hf_bpe {
    int n_ids;    /* the largest id + 1 */
    char **piece; /* piece[id]: its bytes (owned; NULL where no token has the id) */
    size_t *piece_len;
    int byte_id[256]; /* the token of each single byte */
    int eot_id;       /* <|endoftext|>, or -1 */
    /* merges: (left id, right id) → rank and merged id; open addressing */
    uint64_t *mkey; /* left << 32 | right, UINT64_MAX for an empty slot */
    int32_t *mrank, *mresult;
    size_t mcap; /* a power of two */
};

/* ---- GPT-2's byte alphabet: each byte is one printable character -------- */

static bool printable_byte(int b) {
    return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
}

/* The character byte b is written as in vocab.json and merges.txt: the
 * printable bytes as themselves, the others from U+0100 on, in order. */
static uint32_t byte_char(int b) {
    if (printable_byte(b)) return (uint32_t)b;
    uint32_t c = 256;
    for (int i = 0; i < b; i++) c += !printable_byte(i);
    return c;
}

/* The byte that character cp stands for, or -1. */
static int char_byte(uint32_t cp) {
    if (cp < 256) return printable_byte((int)cp) ? (int)cp : -1;
    for (int b = 0; b < 256; b++)
        if (!printable_byte(b) && byte_char(b) == cp) return b;
    return -1;
}

/* s (UTF-8 in GPT-2's byte alphabet) back to bytes in out (room for strlen(s));
 * returns how many, or -1 on a character outside the alphabet. */
static long decode_alphabet(const char *s, char *out) {
    size_t len = strlen(s), n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        int k = utf8_decode(s + i, len - i, &cp);
        int b = k > 0 ? char_byte(cp) : -1;
        if (b < 0) return -1;
        out[n++] = (char)b;
        i += (size_t)k;
    }
    return (long)n;
}

/* ---- a byte string → id table, for loading ------------------------------ */

typedef struct {
    int *slot; /* ids, -1 empty */
    size_t cap;
} piece_index;

static size_t piece_slot(const hf_bpe *b, const piece_index *ix, const char *s, size_t n) {
    size_t i = (size_t)attn_fnv1a(ATTN_FNV_OFFSET, s, n) & (ix->cap - 1);
    while (ix->slot[i] >= 0) {
        int id = ix->slot[i];
        if (b->piece_len[id] == n && memcmp(b->piece[id], s, n) == 0) break;
        i = (i + 1) & (ix->cap - 1);
    }
    return i;
}

static int piece_id(const hf_bpe *b, const piece_index *ix, const char *s, size_t n) {
    return ix->slot[piece_slot(b, ix, s, n)];
}

/* ---- the merge table ------------------------------------------------------ */

static size_t merge_slot(const hf_bpe *b, uint64_t key) {
    size_t i = (size_t)attn_fnv1a(ATTN_FNV_OFFSET, &key, sizeof key) & (b->mcap - 1);
    while (b->mkey[i] != UINT64_MAX && b->mkey[i] != key) i = (i + 1) & (b->mcap - 1);
    return i;
}

/* The rank of merging left and right (and the merged id), or -1. */
static int32_t merge_rank(const hf_bpe *b, int left, int right, int *result) {
    if (b->mcap == 0) return -1;
    size_t i = merge_slot(b, (uint64_t)left << 32 | (uint32_t)right);
    if (b->mkey[i] == UINT64_MAX) return -1;
    *result = b->mresult[i];
    return b->mrank[i];
}

void hf_bpe_free(hf_bpe *b) {
    if (!b) return;
    for (int i = 0; i < b->n_ids; i++) free(b->piece[i]);
    free(b->piece);
    free(b->piece_len);
    free(b->mkey);
    free(b->mrank);
    free(b->mresult);
    free(b);
}

/* ---- loading --------------------------------------------------------------- */

static const char *shown_name(char *out, size_t cap, const char *name) {
    utf8_visible(out, cap, name, strlen(name));
    return out;
}

/* Every value of the vocabulary (the object root) is a whole number from 0
 * to MAX_ID; *max_id gets the largest. */
static attn_status check_ids(const cJSON *root, const char *shown, int *max_id, attn_err *err) {
    char key[NAME_SHOWN];
    for (const cJSON *it = root->child; it; it = it->next) {
        double v = cJSON_IsNumber(it) ? it->valuedouble : -1;
        if (!(v >= 0 && v <= MAX_ID && v == floor(v)))
            return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_ID,
                                shown, shown_name(key, sizeof key, it->string),
                                cJSON_IsNumber(it) ? "out of range" : "missing", MAX_ID);
        if ((int)v > *max_id) *max_id = (int)v;
    }
    return ATTN_OK;
}

/* vocab.json into b->piece and the index. */
static attn_status load_vocab(hf_bpe *b, piece_index *ix, const char *text, size_t len, const char *name,
                              attn_err *err) {
    char shown[NAME_SHOWN], key[NAME_SHOWN];
    shown_name(shown, sizeof shown, name);
    size_t stop = 0;
    bool more = false;
    cJSON *root = attn_json_parse_one(text, len, &stop, &more);
    attn_status st = ATTN_OK;
    if (!cJSON_IsObject(root)) {
        int line = 1, col = 1;
        attn_json_position(text, stop, &line, &col);
        st = attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_NOT_VOCAB,
                          shown,
                          root ? "not an object" : "not JSON", line, col);
        goto done;
    }
    int count = cJSON_GetArraySize(root), max_id = -1;
    st = check_ids(root, shown, &max_id, err);
    if (st != ATTN_OK) goto done;
    b->n_ids = max_id + 1;
    b->piece = calloc((size_t)(b->n_ids ? b->n_ids : 1), sizeof *b->piece);
    b->piece_len = calloc((size_t)(b->n_ids ? b->n_ids : 1), sizeof *b->piece_len);
    ix->cap = 64;
    while (ix->cap < (size_t)count * 2) ix->cap *= 2;
    ix->slot = malloc(ix->cap * sizeof *ix->slot);
    if (!b->piece || !b->piece_len || !ix->slot) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory reading %s.", shown);
        goto done;
    }
    memset(ix->slot, 0xFF, ix->cap * sizeof *ix->slot);
    for (int i = 0; i < 256; i++) b->byte_id[i] = -1;
    b->eot_id = -1;
    for (cJSON *it = root->child; it; it = it->next) {
        int id = (int)it->valuedouble;
        char *bytes = malloc(strlen(it->string) + 1);
        long n = bytes ? decode_alphabet(it->string, bytes) : -1;
        if (!bytes || n <= 0 || b->piece[id]) {
            free(bytes);
            shown_name(key, sizeof key, it->string);
            st = !bytes   ? attn_fail(err, ATTN_ERR_NOMEM, "Out of memory reading %s.", shown)
                 : n <= 0 ? attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_ALPHABET,
                                         shown, key)
                          : attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_ID_TWICE,
                                         shown, id, key);
            goto done;
        }
        size_t slot = piece_slot(b, ix, bytes, (size_t)n);
        b->piece[id] = bytes;
        b->piece_len[id] = (size_t)n;
        if (ix->slot[slot] >= 0) { // the same bytes twice (two spellings of one key): keep the first
            continue;
        }
        ix->slot[slot] = id;
        if (n == 1) b->byte_id[(unsigned char)bytes[0]] = id;
        if (strcmp(it->string, HF_BPE_EOT) == 0) b->eot_id = id;
    }
    for (int i = 0; i < 256; i++)
        if (b->byte_id[i] < 0) {
            st = attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_NO_BYTE,
                              shown, i);
            goto done;
        }
done:
    cJSON_Delete(root);
    return st;
}

/* One line of merges.txt ("left right", line_no from 1) into the table. */
static attn_status add_merge(hf_bpe *b, const piece_index *ix, const char *line, size_t n, int line_no,
                             int32_t rank, const char *shown, attn_err *err) {
    char *copy = malloc(n + 1), *bytes = malloc(2 * n + 2);
    attn_status st = ATTN_OK;
    if (!copy || !bytes) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory reading %s.", shown);
        goto done;
    }
    memcpy(copy, line, n);
    copy[n] = '\0';
    char *space = strchr(copy, ' ');
    if (!space || space == copy || space[1] == '\0' || strchr(space + 1, ' ')) {
        st = attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_MERGE_LINE,
                          shown, line_no);
        goto done;
    }
    *space = '\0';
    long nl = decode_alphabet(copy, bytes), nr = nl > 0 ? decode_alphabet(space + 1, bytes + nl) : -1;
    int left = nl > 0 ? piece_id(b, ix, bytes, (size_t)nl) : -1;
    int right = nr > 0 ? piece_id(b, ix, bytes + nl, (size_t)nr) : -1;
    int merged = nr > 0 ? piece_id(b, ix, bytes, (size_t)(nl + nr)) : -1;
    if (left < 0 || right < 0 || merged < 0) {
        char what[NAME_SHOWN];
        const char *missing = left < 0 ? copy : right < 0 ? space + 1
                                                          : NULL;
        if (missing) utf8_visible(what, sizeof what, missing, strlen(missing));
        st = missing ? attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_MERGE_TOKEN,
                                    shown, line_no, what)
                     : attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_MERGE_RESULT,
                                    shown, line_no);
        goto done;
    }
    size_t slot = merge_slot(b, (uint64_t)left << 32 | (uint32_t)right);
    if (b->mkey[slot] == UINT64_MAX) { // a repeated merge keeps its first (lowest) rank
        b->mkey[slot] = (uint64_t)left << 32 | (uint32_t)right;
        b->mrank[slot] = rank;
        b->mresult[slot] = merged;
    }
done:
    free(copy);
    free(bytes);
    return st;
}

static attn_status load_merges(hf_bpe *b, const piece_index *ix, const char *text, size_t len,
                               const char *name, attn_err *err) {
    char shown[NAME_SHOWN];
    shown_name(shown, sizeof shown, name);
    if (utf8_find_invalid(text, len) != (size_t)-1 || memchr(text, '\0', len))
        return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_BPE_NOT_UTF8, shown);
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    b->mcap = 64;
    while (b->mcap < lines * 2) b->mcap *= 2;
    b->mkey = malloc(b->mcap * sizeof *b->mkey);
    b->mrank = malloc(b->mcap * sizeof *b->mrank);
    b->mresult = malloc(b->mcap * sizeof *b->mresult);
    if (!b->mkey || !b->mrank || !b->mresult) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory reading %s.", shown);
    memset(b->mkey, 0xFF, b->mcap * sizeof *b->mkey);
    size_t skip = utf8_bom_len(text, len);
    int32_t rank = 0;
    int line_no = 0;
    for (size_t at = skip; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - at;
        line_no++;
        if (n > 0 && text[at + n - 1] == '\r') n--;
        bool header = line_no == 1 && n >= 8 && memcmp(text + at, "#version", 8) == 0;
        if (n > 0 && !header) {
            attn_status st = add_merge(b, ix, text + at, n, line_no, rank++, shown, err);
            if (st != ATTN_OK) return st;
        }
        at = end + 1;
    }
    return ATTN_OK;
}

attn_status hf_bpe_load_text(hf_bpe **out, const char *vocab, size_t vocab_len, const char *vocab_name,
                             const char *merges, size_t merges_len, const char *merges_name, attn_err *err) {
    *out = NULL;
    hf_bpe *b = calloc(1, sizeof *b);
    piece_index ix = {NULL, 0};
    if (!b) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory for GPT-2's tokenizer.");
    attn_status st = load_vocab(b, &ix, vocab, vocab_len, vocab_name, err);
    if (st == ATTN_OK) st = load_merges(b, &ix, merges, merges_len, merges_name, err);
    free(ix.slot);
    if (st != ATTN_OK) {
        hf_bpe_free(b);
        return st;
    }
    *out = b;
    return ATTN_OK;
}

attn_status hf_bpe_load(hf_bpe **out, const char *vocab_path, const char *merges_path, attn_err *err) {
    char *vocab = NULL, *merges = NULL;
    size_t vlen = 0, mlen = 0;
    *out = NULL;
    attn_status st = attn_read_regular_file(vocab_path, FILE_MAX, &vocab, &vlen, err);
    if (st == ATTN_OK) st = attn_read_regular_file(merges_path, FILE_MAX, &merges, &mlen, err);
    if (st == ATTN_OK) st = hf_bpe_load_text(out, vocab, vlen, vocab_path, merges, mlen, merges_path, err);
    free(vocab);
    free(merges);
    return st;
}

int hf_bpe_vocab_size(const hf_bpe *b) {
    return b ? b->n_ids : 0;
}

const char *hf_bpe_piece(const hf_bpe *b, int id, size_t *n) {
    if (!b || id < 0 || id >= b->n_ids || !b->piece[id]) return NULL;
    *n = b->piece_len[id];
    return b->piece[id];
}

/* ---- the pre-tokenizer ------------------------------------------------------ */

enum { C_LETTER,
       C_NUMBER,
       C_SPACE,
       C_OTHER };

static int char_class(const char *text, size_t len, size_t at, size_t *next) {
    uint32_t cp = 0;
    int k = utf8_decode(text + at, len - at, &cp);
    if (k <= 0) k = 1; // not expected: the text is validated first
    *next = at + (size_t)k;
    return uni_is_letter(cp) ? C_LETTER : uni_is_number(cp)    ? C_NUMBER
                                      : uni_is_white_space(cp) ? C_SPACE
                                                               : C_OTHER;
}

size_t hf_bpe_pretoken_end(const char *text, size_t len, size_t at) {
    static const char *const contractions[] = {"s", "t", "re", "ve", "m", "ll", "d"};
    if (text[at] == '\'')
        for (size_t i = 0; i < sizeof contractions / sizeof *contractions; i++) {
            size_t n = strlen(contractions[i]);
            if (len - at - 1 >= n && memcmp(text + at + 1, contractions[i], n) == 0) return at + 1 + n;
        }
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class
    size_t from = at + (text[at] == ' ' && at + 1 < len), next;
    int cls = char_class(text, len, from, &next);
    if (cls != C_SPACE) {
        size_t end = next;
        while (end < len && char_class(text, len, end, &next) == cls) end = next;
        return end;
    }
    // `\s+(?!\S)|\s+`: white space, less its last character when something else follows
    size_t end = at, last = at;
    while (end < len && char_class(text, len, end, &next) == C_SPACE) last = end, end = next;
    return end < len && last > at ? last : end;
}

/* ---- encoding --------------------------------------------------------------- */

/* The merges of one pre-token (n bytes at s, n ≤ HF_BPE_MAX_PRETOKEN): ids
 * (room for n) get its tokens; returns how many. */
static int merge_piece(const hf_bpe *b, const char *s, size_t n, int *ids) {
    int m = (int)n;
    for (int i = 0; i < m; i++) ids[i] = b->byte_id[(unsigned char)s[i]];
    for (;;) {
        int best = -1, best_result = -1;
        int32_t best_rank = INT32_MAX;
        for (int i = 0; i + 1 < m; i++) {
            int result;
            int32_t r = merge_rank(b, ids[i], ids[i + 1], &result);
            if (r >= 0 && r < best_rank) best_rank = r, best = i, best_result = result;
        }
        if (best < 0) return m;
        ids[best] = best_result;
        memmove(ids + best + 1, ids + best + 2, (size_t)(m - best - 2) * sizeof *ids);
        m--;
    }
}

attn_status hf_bpe_encode(const hf_bpe *b, const char *text, size_t len, bool bos, hf_tokens *out,
                          attn_err *err) {
    attn_status st = hf_tokens_begin(out, text, len, err);
    if (st != ATTN_OK) return st;
    if (bos) {
        if (b->eot_id < 0)
            return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_BPE_NO_BOS,
                                HF_BPE_EOT);
        st = hf_tokens_push(out, b->eot_id, text, len, 0, 0, HF_BPE_EOT, err);
    }
    int ids[HF_BPE_MAX_PRETOKEN];
    for (size_t at = 0; at < len && st == ATTN_OK;) {
        size_t end = hf_bpe_pretoken_end(text, len, at);
        if (end - at > HF_BPE_MAX_PRETOKEN) {
            st = attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_BPE_RUN,
                              end - at, at, HF_BPE_MAX_PRETOKEN);
            break;
        }
        int m = merge_piece(b, text + at, end - at, ids);
        for (int i = 0; i < m && st == ATTN_OK; i++) {
            size_t n = b->piece_len[ids[i]];
            st = hf_tokens_push(out, ids[i], text, len, at, at + n, NULL, err);
            at += n;
        }
    }
    if (st != ATTN_OK) hf_tokens_free(out);
    return st;
}
