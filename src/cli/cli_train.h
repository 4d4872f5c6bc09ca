/* cli_train.h — attnviz --train TASK --save FILE.json and attnviz --tasks. */
#ifndef CLI_TRAIN_H
#define CLI_TRAIN_H

#include <stdio.h>

#include "cli_args.h"
#include "model_train.h"

/* The task's defaults with o's flags on top (for --train). */
void cli_train_settings(const cli_opts *o, const task_info *task, model_config *cfg, task_train_opts *train);

/* Trains o->model.train_task and saves it to o->model.save_path. Progress goes
 * to out (a bar on a terminal, plain lines otherwise), then the held-out
 * accuracy, the time and, for referent tasks, the referent attention and the
 * lesson sentences. Returns the exit code: 0, or 1 after printing the error to
 * errf (nothing is written then). */
int cli_run_train(const cli_opts *o, FILE *out, FILE *errf);

/* --tasks: per task its vocabulary, lengths, example format and targets, the
 * default configuration and the accuracy its test asserts. Returns 0. */
int cli_run_tasks(FILE *out);

#endif
