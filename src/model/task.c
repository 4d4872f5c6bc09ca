/* task.c — the table of tasks and what is asked of a task. The generators
 * are in task_referent.c and task_seq.c, what they share in task_part.c. */
#include "task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_part.h"
#include "task_referent.h"
#include "task_seq.h"

static const task_info *const tasks[] = {
    &task_referent_zh,
    &task_referent_en,
    &task_reverse,
    &task_sort,
    &task_induction,
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
    static char names[256]; // made once from the table (its names are static and short)
    if (!names[0])
        for (int i = 0; i < TASK_COUNT; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", tasks[i]->name);
        }
    return names;
}

const task_train_opts *task_default_training(const task_info *t, model_objective o) {
    return o != t->cfg.objective && t->train_other.steps > 0 ? &t->train_other : &t->train;
}

int task_word_id(const task_info *t, const char *word) {
    return task_part_word_id(t, word);
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
                         "the pronoun, so the pronoun would never see it. Use --mask none.",
                         t->name);
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

bool task_roles(const task_info *t, const int *ids, int n, task_roles_at *out) {
    return t->referent && task_referent_roles(t, ids, n, out);
}

int task_label(const task_info *t, const int *ids, int n, task_target *out) {
    return t->referent ? task_referent_label(t, ids, n, out) : task_seq_label(t, ids, n, out);
}
