/* cli_model.h — attnviz --headless --model FILE.json [--sentence S]
 * [--target POS:TOKEN …] --print [STAGE] | --dump-json F | --explain S:L:H:R:C. */
#ifndef CLI_MODEL_H
#define CLI_MODEL_H

#include <stdio.h>

#include "cli_args.h"
#include "model_run.h"

/* The dump of r (a run of m): {"tokens", "config", "layers": [{"X", "heads":
 * [{"W_Q" … "Z"}], "concat", "W_O", "b_O", "output", "residual"}], "logits",
 * "probs" (token objective), "predicted", and with targets "loss" and
 * "grads"}. Returns a string the caller free()s, or NULL without memory. */
char *cli_model_dump(const model_result *r, const model *m);

/* Runs o's headless actions with o->model.model_path. Results go to out,
 * errors to errf (one line, "attnviz: "). Returns 0, or 1 when the model
 * file, the sentence, a target or the computation failed; nothing is written
 * to --dump-json's file then. */
int cli_model_run(const cli_opts *o, FILE *out, FILE *errf);

#endif
