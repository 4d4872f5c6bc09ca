/* fuzz_hf_tokenizers.c — GPT-2's BPE and BERT's WordPiece (src/hf) on
 * arbitrary bytes. The first byte picks what the rest is: a sentence for
 * each tokenizer (with small fixed vocabularies), a vocab.txt, or a
 * merges.txt. A refused input leaves no tokens; accepted tokens have ids
 * of the vocabulary, labels of valid UTF-8 and offsets inside the sentence
 * (BPE's tiling it exactly). */
#include <string.h>

#include "bpe.h"
#include "fuzz_common.h"
#include "strbuf.h"
#include "utf8.h"
#include "wordpiece.h"

static const char wp_vocab[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nhello\nworld\n,\n!\na\n##a\n你\n";

/* vocab.json with the 256 bytes (ids 0-255, in GPT-2's alphabet), then
 * "he" 256, "hel" 257, "ĠĠ" 258, "<|endoftext|>" 259. */
static char *bpe_vocab(void) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "{");
    for (int i = 0, next = 256; i < 256; i++) {
        bool printable = (i >= 33 && i <= 126) || (i >= 161 && i <= 172) || i >= 174;
        char enc[4];
        int n = utf8_encode(printable ? (uint32_t)i : (uint32_t)next++, enc);
        attn_sb_puts(&b, "\"");
        if (i == '"' || i == '\\') attn_sb_puts(&b, "\\");
        attn_sb_append(&b, enc, (size_t)n);
        attn_sb_printf(&b, "\": %d, ", i);
    }
    attn_sb_puts(&b, "\"he\": 256, \"hel\": 257, \"\xc4\xa0\xc4\xa0\": 258, \"<|endoftext|>\": 259}");
    return attn_sb_take(&b);
}

static void check_tokens(const hf_tokens *t, const char *text, size_t len, int n_ids, bool tiles) {
    size_t at = 0;
    for (int i = 0; i < t->count; i++) {
        const hf_token *k = &t->v[i];
        FUZZ_CHECK(k->id >= 0 && k->id < n_ids);
        FUZZ_CHECK(utf8_find_invalid(k->label, strlen(k->label)) == (size_t)-1);
        FUZZ_CHECK(k->start <= k->end && k->end <= len);
        FUZZ_CHECK(k->char_start <= k->start && k->char_end >= k->end && k->char_end <= len);
        if (tiles && k->end > k->start) {
            FUZZ_CHECK(k->start == at);
            at = k->end;
        }
    }
    FUZZ_CHECK(!tiles || at == len);
    (void)text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    char *vocab = bpe_vocab();
    FUZZ_CHECK(vocab != NULL);
    const char *merges = "#version: 0.2\nh e\nhe l\n\xc4\xa0 \xc4\xa0\n";
    hf_bpe *b = NULL;
    hf_wordpiece *w = NULL;
    hf_tokens t = {0};
    attn_err err;
    attn_status st;
    switch (data[0] % 4) {
    case 0:
        FUZZ_CHECK(hf_bpe_load_text(&b, vocab, strlen(vocab), "v", merges, strlen(merges), "m", &err) == ATTN_OK);
        st = hf_bpe_encode(b, text, len, data[0] & 4, &t, &err);
        if (st == ATTN_OK) check_tokens(&t, text, len, 260, true);
        else FUZZ_CHECK(st == ATTN_ERR_INPUT && t.count == 0 && t.v == NULL);
        break;
    case 1:
        FUZZ_CHECK(hf_wordpiece_load_text(&w, wp_vocab, strlen(wp_vocab), "v", &err) == ATTN_OK);
        hf_wordpiece_set_lower(w, !(data[0] & 4));
        st = hf_wordpiece_encode(w, text, len, &t, &err);
        if (st == ATTN_OK) check_tokens(&t, text, len, 14, false);
        else FUZZ_CHECK(st == ATTN_ERR_INPUT && t.count == 0);
        break;
    case 2: // the input as vocab.txt
        st = hf_wordpiece_load_text(&w, text, len, "v", &err);
        FUZZ_CHECK(st == ATTN_OK || (st == ATTN_ERR_PARSE && w == NULL));
        if (st == ATTN_OK && hf_wordpiece_encode(w, "Hello, WORLD! 你好 unaffable", 30, &t, &err) == ATTN_OK)
            check_tokens(&t, "", 30, 1 << 30, false);
        break;
    default: // the input as merges.txt
        st = hf_bpe_load_text(&b, vocab, strlen(vocab), "v", text, len, "m", &err);
        FUZZ_CHECK(st == ATTN_OK || (st == ATTN_ERR_PARSE && b == NULL));
        if (st == ATTN_OK && hf_bpe_encode(b, "hello  hel\xe4\xbd\xa0", 13, true, &t, &err) == ATTN_OK)
            check_tokens(&t, "", 13, 260, true);
        break;
    }
    hf_tokens_free(&t);
    hf_bpe_free(b);
    hf_wordpiece_free(w);
    free(vocab);
    return 0;
}
