/* cli_run.h — the headless front end: compute a trace and print, dump or explain.
 *
 * Layer 6 (src/cli, beside src/export): includes src/util … src/lesson, never src/export. */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include <stdio.h>

#include "attn_json.h"
#include "attn_decode.h"
#include "cli_args.h"
#include "lesson.h"

#define CLI_MAX_SENTENCE_FILE (16u << 20) /* bytes read from --sentence-file */
#define CLI_MAX_WEIGHTS_FILE (64u << 20)  /* bytes read from --weights */

/* One headless computation: the sentence, weights or lesson page of o, and the trace. */
typedef struct {
    char *sentence_buf;     /* owned --sentence-file contents, or NULL */
    const char *sentence;   /* the sentence to use (borrowed or sentence_buf) */
    size_t sentence_len;    /* its length in bytes */
    attn_weights_file file; /* parsed --weights file (empty when not given) */
    attn_weights weights;   /* views into file or the lesson, bound to the final config */
    attn_config cfg;        /* o->cfg with dimensions from the weights file or the lesson page */
    attn_trace trace;       /* the computed trace */
    attn_decode decode;     /* --decode: the trace decoded token by token (empty otherwise) */
    lesson *lesson;         /* --lesson, or NULL (owned) */
    int page;               /* its page */
    char weights_name[512]; /* "the lesson FILE, page ID" for the tokens line */
} cli_state;

/* Computes o's trace into *r (zeroed first by the caller; r->lesson may then
 * be set to o's lesson already read, which r owns from then on). On error r
 * may hold partial results: free it with cli_state_free either way. */
attn_status cli_state_compute(cli_state *r, const cli_opts *o, attn_err *err);

/* Frees what r owns and zeroes it. NULL is a no-op. */
void cli_state_free(cli_state *r);

/* Runs the headless actions in o. Results go to out, errors to errf (one line,
 * prefixed "attnviz: "). Returns the process exit code: 0 on success, 1 when
 * the input, a file or the computation failed, or out could not take every
 * byte (a full disk). Writes nothing to --dump-json's file unless everything
 * succeeded. */
int cli_run_headless(const cli_opts *o, FILE *out, FILE *errf);

/* Flushes out, which the user knows as `name` ("standard output"). Returns
 * code when every byte written to it arrived, or when code already says the
 * run failed (its message was printed); else prints "attnviz: Cannot write
 * to NAME: reason." on errf and returns 1: output that cannot be written is
 * an error, never a silent success. */
int cli_finish_output(FILE *out, const char *name, FILE *errf, int code);

#endif
