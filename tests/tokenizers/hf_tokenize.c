/* hf_tokenize — the C tokenizers of src/hf on standard input, for the
 * comparisons with independent tokenizers (compare_gpt2.mjs, wordpiece_ref.py).
 *   hf_tokenize bpe VOCAB_JSON MERGES_TXT [--bos] < texts
 *   hf_tokenize wordpiece VOCAB_TXT < texts
 * Standard input holds one text, or several each ended by a NUL byte (the
 * vocabulary is read once for a whole corpus). For each text it prints a
 * line {"ids": [...], "offsets": [[start, end], ...], "labels": [...]} and
 * exits 0, or prints the message to standard error and exits 1. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpe.h"
#include "strbuf.h"
#include "wordpiece.h"

static char *read_stdin(size_t *len) {
    size_t cap = 4096;
    char *buf = malloc(cap);
    *len = 0;
    for (size_t n; buf && (n = fread(buf + *len, 1, cap - *len, stdin)) > 0;) {
        *len += n;
        if (*len == cap) buf = realloc(buf, cap *= 2);
    }
    return buf;
}

static void print_tokens(const hf_tokens *t) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "{\"ids\": [");
    for (int i = 0; i < t->count; i++) attn_sb_printf(&b, "%s%d", i ? ", " : "", t->v[i].id);
    attn_sb_puts(&b, "], \"offsets\": [");
    for (int i = 0; i < t->count; i++)
        attn_sb_printf(&b, "%s[%zu, %zu]", i ? ", " : "", t->v[i].start, t->v[i].end);
    attn_sb_puts(&b, "], \"labels\": [");
    for (int i = 0; i < t->count; i++) {
        if (i) attn_sb_puts(&b, ", ");
        attn_sb_json_string(&b, t->v[i].label, strlen(t->v[i].label));
    }
    attn_sb_puts(&b, "]}\n");
    char *s = attn_sb_take(&b);
    if (s) fputs(s, stdout);
    free(s);
}

/* Tokens of one text by whichever tokenizer is loaded. */
static attn_status encode(const hf_bpe *b, bool bos, const hf_wordpiece *w, const char *text, size_t len,
                          hf_tokens *toks, attn_err *err) {
    return b ? hf_bpe_encode(b, text, len, bos, toks, err) : hf_wordpiece_encode(w, text, len, toks, err);
}

int main(int argc, char **argv) {
    attn_err err;
    attn_err_clear(&err);
    size_t len = 0;
    char *text = NULL;
    hf_bpe *b = NULL;
    hf_wordpiece *w = NULL;
    bool bos = false;
    attn_status st;
    if (argc >= 4 && strcmp(argv[1], "bpe") == 0) {
        st = hf_bpe_load(&b, argv[2], argv[3], &err);
        bos = argc > 4 && strcmp(argv[4], "--bos") == 0;
    } else if (argc >= 3 && strcmp(argv[1], "wordpiece") == 0) {
        st = hf_wordpiece_load(&w, argv[2], &err);
    } else {
        fprintf(stderr, "usage: hf_tokenize bpe VOCAB_JSON MERGES_TXT [--bos] | wordpiece VOCAB_TXT  < texts\n");
        return 2;
    }
    if (st == ATTN_OK && (text = read_stdin(&len)) == NULL) st = attn_fail(&err, ATTN_ERR_NOMEM, "Out of memory.");
    for (size_t at = 0; st == ATTN_OK && (at < len || len == 0);) {
        const char *nul = memchr(text + at, '\0', len - at);
        size_t end = nul ? (size_t)(nul - text) : len;
        hf_tokens toks = {0};
        st = encode(b, bos, w, text + at, end - at, &toks, &err);
        if (st == ATTN_OK) print_tokens(&toks);
        hf_tokens_free(&toks);
        if (!nul) break;
        at = end + 1;
    }
    if (st != ATTN_OK) fprintf(stderr, "%s\n", err.msg);
    hf_bpe_free(b);
    hf_wordpiece_free(w);
    free(text);
    return st == ATTN_OK ? 0 : 1;
}
