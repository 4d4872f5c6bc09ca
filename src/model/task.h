/* task.h — the tasks a model is trained on: their vocabularies, generators,
 * held-out splits and defaults.
 *
 *   referent-zh, referent-en  Winograd-style sentences: which noun does 它 / "it"
 *                             refer to? The predicate decides (太累了 → the
 *                             subject, 飞得太快了 → the other).
 *   reverse                   8 digits; row i answers the digit at 7 − i
 *   sort                      a shuffled row of 1…8; row i answers where i + 1 is
 *   induction                 4-8 distinct letters, then the same again; in the
 *                             second copy each row answers the next letter
 *
 * A dataset is made once and pre-tokenized to vocabulary indices; the same
 * task always makes the same dataset (the seed of a training only shuffles
 * the order and draws the initial weights). */
#ifndef TASK_H
#define TASK_H

#include <stdbool.h>

#include "task_info.h"

/* The tasks, in --tasks order; NULL when i is out of range. */
int task_count(void);
const task_info *task_at(int i);

/* The task named name, or NULL. */
const task_info *task_find(const char *name);

/* The default training of t with objective o: t->train for its own
 * objective, else t->train_other when it has one. */
const task_train_opts *task_default_training(const task_info *t, model_objective o);

/* Index of word in t's vocabulary (exact, then ASCII case-insensitive: "The"
 * is "the"), or -1. */
int task_word_id(const task_info *t, const char *word);

/* "referent-zh, referent-en, reverse, sort, induction": the table's names in
 * its order, for messages (static; made from the table). */
const char *task_names(void);

/* Makes t's dataset into *d (free with task_dataset_free). Errors: memory,
 * or a sentence the tokenizer or the vocabulary does not take (a bug in the
 * task's tables, named). On error *d is left empty. */
attn_status task_dataset_build(task_dataset *d, const task_info *t, attn_err *err);

/* Frees what d owns and zeroes it. NULL is a no-op. */
void task_dataset_free(task_dataset *d);

/* Example i's sentence and vocabulary indices. */
const char *task_example_text(const task_dataset *d, int i);
const int *task_example_ids(const task_dataset *d, int i);
const task_target *task_example_targets(const task_dataset *d, int i);

/* Whether the options suit the task; ATTN_ERR_RANGE with the reason when not
 * (a causal mask with a referent task: the predicate comes after the pronoun;
 * induction without the causal mask: the next letter would be in view). */
attn_status task_check_config(const task_info *t, const model_config *c, attn_err *err);

/* The lesson sentences of t (0 for tasks that have none). */
int task_lesson_sentences(const task_info *t, const task_lesson_sentence **out);

/* The target rows of a sentence the task can label (ids: n vocabulary
 * indices of a model of t): for referent-*, the pronoun's row when the
 * sentence follows a template with a known predicate; for reverse, sort and
 * induction, when it has their form. Returns the count (0: the task cannot
 * label it), at most MODEL_MAX_LEN. */
int task_label(const task_info *t, const int *ids, int n, task_target *out);

/* Where a referent task's sentence has its parts (ids as for task_label):
 * the subject A, the other noun B, the pronoun and the predicate's word (the
 * one that decides: tired, 累, 飞). false when t is no referent task or the
 * sentence follows none of its templates. */
bool task_roles(const task_info *t, const int *ids, int n, task_roles_at *out);

#endif
