/* task_part.c — what the task generators share (task_part.h). */
#include "task_part.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int task_part_word_id(const task_info *t, const char *word) {
    attn_vocab v = {.dim = 0, .count = t->vocab_count, .words = t->vocab};
    return attn_vocab_find(&v, word, strlen(word));
}

int task_draw(uint32_t stream, uint64_t *counter, int range) {
    double u = attn_prng_uniform(TASK_DATA_SEED, stream, (*counter)++, 1.0); // [-1, 1)
    int k = (int)((u + 1.0) * 0.5 * range);
    return k < range ? k : range - 1;
}

/* Grows *p (count elements of size bytes, capacity *cap) to hold need. */
static bool grow(void **p, int *cap, int need, size_t size) {
    if (need <= *cap) return true;
    int c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

attn_status task_part_add(task_part *p, const task_info *t, const char *text, const int *want, int n,
                          const task_target *tg, int n_tg, attn_err *err) {
    attn_wordlist words = {t->vocab_count, t->vocab, NULL};
    attn_tokens toks;
    attn_status st = attn_tokenize(&toks, text, strlen(text), &words, err);
    if (st != ATTN_OK) return st;
    bool same = toks.n == n;
    for (int i = 0; i < toks.n && same; i++) {
        int len;
        const char *tok = attn_token_text(&toks, i, &len);
        attn_vocab v = {.count = t->vocab_count, .words = t->vocab};
        same = attn_vocab_find(&v, tok, (size_t)len) == want[i];
    }
    attn_tokens_free(&toks);
    if (!same)
        return attn_fail(err, ATTN_ERR_INPUT, "The task %s made \"%s\", which does not tokenize into its words.",
                         t->name, text);
    size_t len = strlen(text) + 1;
    if (p->text_len + len > p->text_cap) {
        size_t cap = p->text_cap ? p->text_cap : 4096;
        while (cap < p->text_len + len) cap *= 2;
        char *q = realloc(p->text, cap);
        if (!q) goto nomem;
        p->text = q;
        p->text_cap = cap;
    }
    if (!grow((void **)&p->ex, &p->cap, p->count + 1, sizeof *p->ex) ||
        !grow((void **)&p->ids, &p->cap_ids, p->n_ids + n, sizeof *p->ids) ||
        !grow((void **)&p->tg, &p->cap_tg, p->n_tg + n_tg, sizeof *p->tg))
        goto nomem;
    p->ex[p->count++] = (task_example){n, p->n_ids, p->n_tg, n_tg, (int)p->text_len};
    memcpy(p->ids + p->n_ids, want, sizeof(int) * (size_t)n);
    memcpy(p->tg + p->n_tg, tg, sizeof *tg * (size_t)n_tg);
    memcpy(p->text + p->text_len, text, len);
    p->n_ids += n;
    p->n_tg += n_tg;
    p->text_len += len;
    return ATTN_OK;
nomem:
    return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the %s dataset.", t->name);
}

void task_part_free(task_part *p) {
    if (!p) return;
    free(p->ex);
    free(p->ids);
    free(p->tg);
    free(p->text);
    memset(p, 0, sizeof *p);
}

attn_status task_parts_join(task_dataset *d, task_part *train, task_part *heldout, attn_err *err) {
    task_part *a = train, *b = heldout;
    // the held-out examples go after the training ones
    for (int i = 0; i < b->count; i++) {
        const task_example *e = &b->ex[i];
        attn_status st = task_part_add(a, d->task, b->text + e->text, b->ids + e->first_id, e->n,
                                       b->tg + e->first_target, e->n_targets, err);
        if (st != ATTN_OK) return st;
    }
    d->n_train = a->count - b->count;
    d->n_heldout = b->count;
    d->ex = a->ex;
    d->ids = a->ids;
    d->targets = a->tg;
    d->text = a->text;
    d->max_len = 0;
    for (int i = 0; i < a->count; i++)
        if (a->ex[i].n > d->max_len) d->max_len = a->ex[i].n;
    memset(a, 0, sizeof *a); // d owns the storage now
    task_part_free(b);
    return ATTN_OK;
}
