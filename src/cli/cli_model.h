/* cli_model.h — attnviz --headless --model FILE.json [--sentence S]
 * [--target POS:TOKEN …] --print [STAGE] | --dump-json F | --explain S:L:H:R:C. */
#ifndef CLI_MODEL_H
#define CLI_MODEL_H

#include <stdio.h>

#include "cli_args.h"
#include "model_run.h"
#include "strbuf.h"

/* The dump of r (a run of m): {"tokens", "config", "layers": [{"X", "heads":
 * [{"W_Q" … "Z"}], "concat", "W_O", "b_O", "output", "residual"}], "logits",
 * "probs" (token objective), "predicted", and with targets "loss" and
 * "grads"}. Returns a string the caller free()s, or NULL without memory. */
char *cli_model_dump(const model_result *r, const model *m);

/* One key of a dump: `indent"key": ` then m as a JSON matrix (rows, cols),
 * or a vector of cols when rows is 0, then "," unless last; into b. */
void cli_json_key_matrix(attn_strbuf *b, const char *indent, const char *key, const double *m, int rows, int cols,
                         bool last);

/* A head's stages as --model and --hf dumps write them, "Q" … "Z" (n tokens,
 * d_k wide; "q_rot", "k_rot" after "V" when rope): the dumps share one order. */
void cli_json_head_stages(attn_strbuf *b, const char *indent, const attn_head *hd, int n, int dk, bool rope);

/* A model, its sentence and its run, as the command line names them. */
typedef struct {
    model m;            /* --model's file */
    model_result r;     /* the sentence (--sentence, --sentence-file, else the model's probe) through m */
    bool labelled;      /* r's targets are the task's own answers (view targets only) */
    char *sentence_buf; /* --sentence-file's text (owned) */
} cli_model_state;

/* Loads --model, reads the sentence and runs it with --target's targets, or
 * without any --target and with view_targets, with the targets the window
 * would show (model_run_view: the task's answers, else the prediction at the
 * pronoun). On error *s is left freed. */
attn_status cli_model_compute(cli_model_state *s, const cli_opts *o, bool view_targets, attn_err *err);
void cli_model_state_free(cli_model_state *s); /* NULL is a no-op */

/* Runs o's headless actions with o->model.model_path. Results go to out,
 * errors to errf (one line, "attnviz: "). Returns 0, or 1 when the model
 * file, the sentence, a target or the computation failed; nothing is written
 * to --dump-json's file then. view_targets: without --target, the targets
 * the window shows (a lesson's model page), so its gradients are there too. */
int cli_model_run(const cli_opts *o, bool view_targets, FILE *out, FILE *errf);

#endif
