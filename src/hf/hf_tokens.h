/* hf_tokens.h — what the Hugging Face tokenizers (bpe.h, wordpiece.h) give:
 * each token's id, the bytes of the sentence it stands for, and a label that
 * is always valid UTF-8 and shows what is invisible.
 *
 * Labels: a character wholly inside the token is shown as itself, except
 * that a space is "␣", a newline "↵", a tab "⇥", and any other white space,
 * control or format character "‹U+00A0›"; bytes that are only part of a
 * character (GPT-2 splits Chinese and emoji into byte pieces) are shown as
 * their hex values, "‹e4 bd›". Such a character's whole extent is in
 * char_start/char_end, so a view can write it once over its pieces. */
#ifndef ATTN_HF_TOKENS_H
#define ATTN_HF_TOKENS_H

#include <stddef.h>

#include "attn_err.h"

typedef struct {
    int id;                      /* the vocabulary's id */
    size_t start, end;           /* bytes [start, end) of the sentence; start == end for an
                                    added token ([CLS], <|endoftext|>) */
    size_t char_start, char_end; /* the same widened to whole characters */
    char *label;                 /* valid UTF-8 (owned) */
} hf_token;

typedef struct {
    hf_token *v; /* count tokens (owned) */
    int count, cap;
} hf_tokens;

/* Releases what t owns and empties it. NULL is a no-op. */
void hf_tokens_free(hf_tokens *t);

/* Starts an encoding: out empty, and text (len bytes) checked to be UTF-8.
 * Returns ATTN_OK, or ATTN_ERR_INPUT naming the first bad byte. */
attn_status hf_tokens_begin(hf_tokens *out, const char *text, size_t len, attn_err *err);

/* Appends a token: id, bytes [start, end) of text (len bytes, valid UTF-8)
 * and a label. label NULL: made from those bytes (see above); otherwise
 * label (UTF-8) is shown with its invisible characters made visible.
 * Returns ATTN_OK or ATTN_ERR_NOMEM (t unchanged). */
attn_status hf_tokens_push(hf_tokens *t, int id, const char *text, size_t len, size_t start, size_t end,
                           const char *label, attn_err *err);

/* The label of bytes [start, end) of text (len bytes, valid UTF-8), as
 * above, malloc'd; NULL when memory runs out. */
char *hf_label_bytes(const char *text, size_t len, size_t start, size_t end);

#endif
