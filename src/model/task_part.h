/* task_part.h — what the task generators share: collecting examples into a
 * dataset, drawing reproducible random numbers, a word's index. */
#ifndef TASK_PART_H
#define TASK_PART_H

#include "task_info.h"

#define TASK_DATA_SEED 20260101u /* the datasets' own seed: independent of --seed */

/* One half of a dataset being collected (train or held-out). */
typedef struct {
    task_example *ex; /* examples, growing */
    int count, cap;
    int *ids; /* their token ids */
    int n_ids, cap_ids;
    task_target *tg; /* their targets */
    int n_tg, cap_tg;
    char *text; /* their sentences, NUL-separated */
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

/* Joins the train and held-out parts into d (taking their storage). */
attn_status task_parts_join(task_dataset *d, task_part *train, task_part *heldout, attn_err *err);

/* Index of word in t's vocabulary (exact, then ASCII case-insensitive), or -1. */
int task_part_word_id(const task_info *t, const char *word);

#endif
