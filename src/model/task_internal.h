/* task_internal.h — what the task generators share (task.c): collecting
 * examples into a dataset and drawing reproducible random numbers. */
#ifndef TASK_INTERNAL_H
#define TASK_INTERNAL_H

#include "task.h"

#define TASK_DATA_SEED 20260101u /* the datasets' own seed: independent of --seed */

/* One half of a dataset being collected (train or held-out). */
typedef struct {
    task_example *ex; /* examples, growing */
    int count, cap;
    int *ids;         /* their token ids */
    int n_ids, cap_ids;
    task_target *tg;  /* their targets */
    int n_tg, cap_tg;
    char *text;       /* their sentences, NUL-separated */
    size_t text_len, text_cap;
} task_part;

/* Adds one example: its sentence (tokenized here with t's vocabulary as the
 * lexicon; the ids must equal want: n words of the generator), and its
 * targets. Errors name the sentence (a bug in a task's tables) or memory. */
attn_status task_part_add(task_part *p, const task_info *t, const char *text, const int *want, int n,
                          const task_target *tg, int n_tg, attn_err *err);

void task_part_free(task_part *p);

/* A whole number in [0, range) from the dataset's PRNG stream; *counter advances. */
int task_draw(uint32_t stream, uint64_t *counter, int range);

/* The referent tasks' generator (task_referent.c). */
attn_status task_referent_generate(task_dataset *d, const task_info *t, attn_err *err);

/* Joins the train and held-out parts into d (taking their storage). */
attn_status task_parts_join(task_dataset *d, task_part *train, task_part *heldout, attn_err *err);

/* The referent tasks' labelling and lesson sentences (task_referent.c). */
int task_referent_label(const task_info *t, const int *ids, int n, task_target *out);
int task_referent_lessons(const task_info *t, const task_lesson_sentence **out);

/* The sequence tasks' labelling (task_seq.c). */
int task_seq_label(const task_info *t, const int *ids, int n, task_target *out);

#endif
