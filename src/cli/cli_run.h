/* cli_run.h — the headless front end: compute a trace and print, dump or explain. */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include <stdio.h>

#include "cli_args.h"

#define CLI_MAX_SENTENCE_FILE (16u << 20) /* bytes read from --sentence-file */
#define CLI_MAX_WEIGHTS_FILE (64u << 20)  /* bytes read from --weights */

/* Runs the headless actions in o. Results go to out, errors to errf (one line,
 * prefixed "attnviz: "). Returns the process exit code: 0 on success, 1 when
 * the input, a file or the computation failed. Writes nothing to --dump-json's
 * file unless everything succeeded. */
int cli_run_headless(const cli_opts *o, FILE *out, FILE *errf);

#endif
