/* bpe.h — GPT-2's byte-level BPE tokenizer, read from a Hugging Face
 * folder's vocab.json and merges.txt.
 *
 * Encoding: the sentence (valid UTF-8) is cut into pre-tokens by GPT-2's
 * pattern  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * (\p{L}, \p{N} and \s from the Unicode tables); each pre-token's bytes are
 * merged pair by pair, the lowest-ranked merge of merges.txt first (the
 * leftmost when it occurs twice). Text is text: "<|endoftext|>" in the
 * sentence is not the special token. No start token unless asked.
 *
 * Layer 3 of the README's Layout (src/hf): uses src/util and src/core. */
#ifndef ATTN_HF_BPE_H
#define ATTN_HF_BPE_H

#include <stdbool.h>
#include <stddef.h>

#include "attn_err.h"
#include "hf_tokens.h"

/* A pre-token longer than this many bytes is refused before merging (naive
 * BPE is quadratic in it): 1,024 bytes hold 341 Chinese characters with no
 * punctuation between them. */
#define HF_BPE_MAX_PRETOKEN 1024

#define HF_BPE_EOT "<|endoftext|>" /* GPT-2's only special token: the start of a text */

typedef struct hf_bpe hf_bpe;

/* Reads vocab.json (an object of byte-level token → id) and merges.txt (an
 * optional "#version" line, then one "left right" pair a line) from the
 * given files. *out gets a tokenizer the caller frees with hf_bpe_free.
 * Refused, naming the file (and the line of merges.txt): unreadable; not
 * JSON; an id that is not a whole number from 0 to 2^24 - 1 or repeats; a key
 * with a character outside GPT-2's byte alphabet; one of the 256 bytes
 * missing; a merge line that is not two tokens of the vocabulary whose
 * concatenation is one too. */
attn_status hf_bpe_load(hf_bpe **out, const char *vocab_path, const char *merges_path, attn_err *err);

/* The same from text already in memory; the names are for messages. */
attn_status hf_bpe_load_text(hf_bpe **out, const char *vocab, size_t vocab_len, const char *vocab_name,
                             const char *merges, size_t merges_len, const char *merges_name, attn_err *err);

/* Frees b. NULL is a no-op. */
void hf_bpe_free(hf_bpe *b);

/* Tokens of text (len bytes) into out (emptied first; hf_tokens_free it):
 * with bos, <|endoftext|> first (offsets 0, 0). Refused (ATTN_ERR_INPUT,
 * out left empty): text that is not valid UTF-8, a pre-token over
 * HF_BPE_MAX_PRETOKEN bytes, bos without <|endoftext|> in the vocabulary. */
attn_status hf_bpe_encode(const hf_bpe *b, const char *text, size_t len, bool bos, hf_tokens *out,
                          attn_err *err);

/* End of the pre-token that starts at byte at of text (valid UTF-8, len
 * bytes, at < len): GPT-2's pattern above. */
size_t hf_bpe_pretoken_end(const char *text, size_t len, size_t at);

/* How many ids the vocabulary spans (the largest id + 1). */
int hf_bpe_vocab_size(const hf_bpe *b);

/* The bytes id stands for (*n of them, not NUL-terminated), or NULL for an
 * id the vocabulary does not have. */
const char *hf_bpe_piece(const hf_bpe *b, int id, size_t *n);

#endif
