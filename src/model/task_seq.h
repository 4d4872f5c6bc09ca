/* task_seq.h — reverse, sort and induction (task_seq.c): their table
 * entries and labelling. */
#ifndef TASK_SEQ_H
#define TASK_SEQ_H

#include "task_info.h"

extern const task_info task_reverse, task_sort, task_induction;

int task_seq_label(const task_info *t, const int *ids, int n, task_target *out);

#endif
