/* task.c — the table of tasks, building a dataset, and what all generators
 * share. The generators are in task_referent.c and task_seq.c. */
#include "task_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const task_info task_referent_zh, task_referent_en, task_reverse, task_sort, task_induction;

static const task_info *const tasks[] = {
    &task_referent_zh, &task_referent_en, &task_reverse, &task_sort, &task_induction,
};
#define TASK_COUNT ((int)(sizeof tasks / sizeof *tasks))

int task_count(void) {
    return TASK_COUNT;
}

const task_info *task_at(int i) {
    return i >= 0 && i < TASK_COUNT ? tasks[i] : NULL;
}

const task_info *task_find(const char *name) {
    for (int i = 0; i < TASK_COUNT; i++)
        if (strcmp(tasks[i]->name, name) == 0) return tasks[i];
    return NULL;
}

const char *task_names(void) {
    return "referent-zh, referent-en, reverse, sort, induction";
}

const task_train_opts *task_default_training(const task_info *t, model_objective o) {
    return o != t->cfg.objective && t->train_other.steps > 0 ? &t->train_other : &t->train;
}

int task_word_id(const task_info *t, const char *word) {
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

attn_status task_dataset_build(task_dataset *d, const task_info *t, attn_err *err) {
    memset(d, 0, sizeof *d);
    d->task = t;
    attn_status st = t->generate(d, t, err);
    if (st != ATTN_OK) task_dataset_free(d);
    return st;
}

void task_dataset_free(task_dataset *d) {
    if (!d) return;
    free(d->ex);
    free(d->ids);
    free(d->targets);
    free(d->text);
    memset(d, 0, sizeof *d);
}

const char *task_example_text(const task_dataset *d, int i) {
    return d->text + d->ex[i].text;
}

const int *task_example_ids(const task_dataset *d, int i) {
    return d->ids + d->ex[i].first_id;
}

const task_target *task_example_targets(const task_dataset *d, int i) {
    return d->targets + d->ex[i].first_target;
}

attn_status task_check_config(const task_info *t, const model_config *c, attn_err *err) {
    bool causal = c->mask.kind == ATTN_MASK_CAUSAL || c->mask.kind == ATTN_MASK_CAUSAL_WINDOW;
    if (t->referent && causal)
        return attn_fail(err, ATTN_ERR_RANGE,
                         "%s cannot use a causal mask: the predicate that decides the referent comes after "
                         "the pronoun, so the pronoun would never see it. Use --mask none.", t->name);
    if (strcmp(t->name, "induction") == 0 && c->mask.kind != ATTN_MASK_CAUSAL)
        return attn_fail(err, ATTN_ERR_RANGE,
                         "induction needs --mask causal: each row predicts the next letter, which any other "
                         "mask lets the row see.");
    return ATTN_OK;
}

int task_lesson_sentences(const task_info *t, const task_lesson_sentence **out) {
    *out = NULL;
    return t->referent ? task_referent_lessons(t, out) : 0;
}

int task_label(const task_info *t, const int *ids, int n, task_target *out) {
    return t->referent ? task_referent_label(t, ids, n, out) : task_seq_label(t, ids, n, out);
}
