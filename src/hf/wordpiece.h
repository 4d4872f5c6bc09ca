/* wordpiece.h — BERT's WordPiece tokenizer for vocab.txt models (the Chinese
 * GPT-2 models such as uer/gpt2-chinese-cluecorpussmall were trained with it),
 * as BERT's BasicTokenizer + WordpieceTokenizer do it:
 *  1. control characters, U+0000 and U+FFFD dropped; white space (space, tab,
 *     newline, carriage return, Zs) read as a space;
 *  2. a space put around each CJK ideograph (BERT's blocks);
 *  3. split on white space; with lower-casing (the default) each word lower-
 *     cased and its accents stripped (NFD, nonspacing marks dropped);
 *  4. split on punctuation (ASCII symbols and P*), each mark a word;
 *  5. each word greedily into the longest pieces of the vocabulary, the
 *     pieces after the first written "##…"; a word of more than
 *     HF_WORDPIECE_MAX_CHARS characters, or one with no way into pieces, is
 *     [UNK].
 * [CLS] comes first; [SEP] is never appended (the readout would otherwise
 * predict a new document). Each token keeps the bytes of the sentence its
 * characters came from; its label is the vocabulary's piece.
 *
 * Layer 3 of the README's Layout (src/hf): uses src/util and src/core. */
#ifndef ATTN_HF_WORDPIECE_H
#define ATTN_HF_WORDPIECE_H

#include <stdbool.h>
#include <stddef.h>

#include "attn_err.h"
#include "hf_tokens.h"

#define HF_WORDPIECE_MAX_CHARS 100

typedef struct hf_wordpiece hf_wordpiece;

/* Reads vocab.txt: one token a line, its id the line's number from 0 (a
 * token on two lines keeps the later id, as BERT's loader does). Refused,
 * naming the file and line: unreadable, not UTF-8, no [UNK] or [CLS].
 * *out gets a tokenizer (lower-casing on) the caller frees. */
attn_status hf_wordpiece_load(hf_wordpiece **out, const char *vocab_path, attn_err *err);

/* The same from text in memory; name is for messages. */
attn_status hf_wordpiece_load_text(hf_wordpiece **out, const char *text, size_t len, const char *name,
                                   attn_err *err);

/* Lower-casing and accent stripping on (the default) or off (a cased model:
 * do_lower_case false in tokenizer_config.json). */
void hf_wordpiece_set_lower(hf_wordpiece *w, bool lower);

/* Frees w. NULL is a no-op. */
void hf_wordpiece_free(hf_wordpiece *w);

/* Tokens of text (len bytes) into out (emptied first; hf_tokens_free it),
 * [CLS] first (offsets 0, 0). Refused (ATTN_ERR_INPUT, out left empty):
 * text that is not valid UTF-8. */
attn_status hf_wordpiece_encode(const hf_wordpiece *w, const char *text, size_t len, hf_tokens *out,
                                attn_err *err);

/* The piece id stands for ("##s", "[CLS]"), or NULL for an id the
 * vocabulary does not have. Borrowed from w. */
const char *hf_wordpiece_piece(const hf_wordpiece *w, int id);

/* How many ids the vocabulary spans (its lines). */
int hf_wordpiece_vocab_size(const hf_wordpiece *w);

#endif
