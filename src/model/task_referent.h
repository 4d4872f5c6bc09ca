/* task_referent.h — referent-zh and referent-en (task_referent.c): their
 * table entries, labelling and lesson sentences. */
#ifndef TASK_REFERENT_H
#define TASK_REFERENT_H

#include "task_info.h"

extern const task_info task_referent_zh, task_referent_en;

int task_referent_label(const task_info *t, const int *ids, int n, task_target *out);
bool task_referent_roles(const task_info *t, const int *ids, int n, task_roles_at *out);
int task_referent_lessons(const task_info *t, const task_lesson_sentence **out);

#endif
