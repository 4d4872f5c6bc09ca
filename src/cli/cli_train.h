/* cli_train.h — attnviz --train TASK --save FILE.json and attnviz --tasks. */
#ifndef CLI_TRAIN_H
#define CLI_TRAIN_H

#include <stdio.h>

#include "cli_args.h"
#include "model_train.h"

/* The task's defaults with o's flags on top (for --train). */
void cli_train_settings(const cli_opts *o, const task_info *task, model_config *cfg, task_train_opts *train);

/* Trains o->model.train_task and saves it to o->model.save_path. Before the
 * first step it refuses a save path that holds a file other than an attnviz
 * model, one the writer cannot open (a missing folder, a folder, no write
 * permission) and settings whose file --model could not read (too large);
 * the temporary the writer opens then is removed on failure or by a signal.
 * After training, a diverged model (values beyond ±1e18) is not saved.
 * Progress goes to out (errf when the model goes to standard output: "-", or
 * the file standard output already is): a bar on a terminal, plain lines
 * otherwise; then the held-out accuracy, the
 * time and, for referent tasks, the referent attention and the lesson
 * sentences. Returns the exit code: 0, or 1 after printing the error to errf
 * (nothing is written then). */
int cli_run_train(const cli_opts *o, FILE *out, FILE *errf);

/* --tasks: per task its vocabulary, lengths, example format and targets, the
 * default configuration and the accuracy its test asserts. Returns 0. */
int cli_run_tasks(FILE *out);

#endif
