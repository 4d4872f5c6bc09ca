/* tokenize.h — splits a UTF-8 sentence into attnviz tokens.
 *
 * Rules (the README documents them for learners):
 *  - whitespace (Unicode White_Space, including U+3000) separates tokens;
 *  - each CJK ideograph, and each CJK or full-width punctuation mark, is one token;
 *  - a run of letters, digits and combining marks (Unicode L*, N*, M*) of any
 *    other script is one token; an apostrophe (' or U+2019) between two such
 *    characters stays inside the run ("didn't");
 *  - an emoji sequence (pictograph + variation selector / skin tone / tags,
 *    joined by ZWJ; or a pair of regional indicators = a flag) is one token;
 *  - a combining mark directly after any token joins that token;
 *  - any other non-space code point is one token;
 *  - with a vocabulary, at a CJK ideograph the longest listed word of two or
 *    more code points that starts there is one token (动物, 因为).
 * At most ATTN_MAX_TOKENS tokens and ATTN_MAX_SENTENCE_BYTES bytes. */
#ifndef ATTN_TOKENIZE_H
#define ATTN_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "attn_err.h"

#define ATTN_MAX_TOKENS 64
/* The storage of attn_tokens and of a trace's rows: the tokenizer above stops
 * at ATTN_MAX_TOKENS, but a trace made from a real model's run (--hf, src/hf)
 * holds up to 256 tokens (issue 26). */
#define ATTN_TRACE_MAX_TOKENS 256
#define ATTN_MAX_SENTENCE_BYTES 65536

typedef struct {
    char *text;                          /* owned copy of the sentence, NUL-terminated */
    size_t text_len;                     /* bytes in text, without the NUL */
    int n;                               /* number of tokens, 1..ATTN_MAX_TOKENS (a --hf trace's: ..ATTN_TRACE_MAX_TOKENS) */
    int off[ATTN_TRACE_MAX_TOKENS];      /* byte offset of token i in text */
    int len[ATTN_TRACE_MAX_TOKENS];      /* byte length of token i */
    int repeated[ATTN_TRACE_MAX_TOKENS]; /* 1 if the same token text occurs elsewhere */
} attn_tokens;

/* Word list for longest-match (may be NULL in the calls below). */
typedef struct {
    int count;                /* number of words */
    const char *const *words; /* count NUL-terminated UTF-8 words, borrowed */
    const int *order;         /* NULL, or the index attn_words_sort makes (borrowed): then
                             lookups binary-search it instead of reading every word, so
                             a lesson of 100,000 words tokenizes in time linear in it */
} attn_wordlist;

/* Fills order (count ints) with the indices of words sorted by their bytes
 * with ASCII letters folded to lower case, ties by index: the order
 * attn_wordlist.order and attn_vocab.order expect. */
void attn_words_sort(int *order, const char *const *words, int count);

/* The range [*first, *last) of order whose words equal s[0..n) with ASCII
 * case folded (empty when none does). */
void attn_words_find(const char *const *words, const int *order, int count, const char *s, size_t n,
                     int *first, int *last);

/* Tokenizes s[0..len). On success fills *out (call attn_tokens_free later) and
 * returns ATTN_OK. Errors (ATTN_ERR_INPUT, with the byte offset where it
 * applies): empty or whitespace-only input, a NUL byte, invalid UTF-8, more
 * than ATTN_MAX_TOKENS tokens, more than ATTN_MAX_SENTENCE_BYTES bytes.
 * On error *out is left empty (n == 0, text == NULL). */
attn_status attn_tokenize(attn_tokens *out, const char *s, size_t len,
                          const attn_wordlist *vocab, attn_err *err);

/* Frees the owned text and empties *t. NULL or an empty *t is a no-op. */
void attn_tokens_free(attn_tokens *t);

/* Deep copy of src into *dst (which must not own anything). */
attn_status attn_tokens_copy(attn_tokens *dst, const attn_tokens *src, attn_err *err);

/* Writes token i's label into out (cap bytes, NUL-terminated): the token text,
 * prefixed by its 1-based position and a colon ("9:只") when the same text
 * occurs more than once,
 * shortened to at most max_cols display columns with a trailing "…" when longer
 * (max_cols <= 0: no limit). Returns the label's byte length. */
size_t attn_token_label(const attn_tokens *t, int i, int max_cols, char *out, size_t cap);

/* Token i's bytes (not NUL-terminated) and their length. */
const char *attn_token_text(const attn_tokens *t, int i, int *len);

#endif
