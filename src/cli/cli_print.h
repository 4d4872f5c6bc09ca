/* cli_print.h — the trace as text tables, aligned by display width. */
#ifndef CLI_PRINT_H
#define CLI_PRINT_H

#include <stdio.h>

#include "attn.h"

/* "tokens (n): 这 只 ..." with positions, and where the weights came from. */
void cli_print_tokens(FILE *out, const attn_trace *t, const char *weights_name);

/* One stage as a labelled table (one table per head for per-head stages). */
void cli_print_stage(FILE *out, const attn_trace *t, attn_stage s);

/* A (rows, cols) matrix as a table: row i labelled with token i of toks,
 * column c with what label writes for it (ctx passed through). */
void cli_print_matrix(FILE *out, const attn_tokens *toks, const double *m, int rows, int cols,
                      void (*label)(const void *ctx, int c, char *buf, size_t cap), const void *ctx);

/* Formats one cell as the tables show it ("0.1234", "-inf", "1.23e+20"). */
void cli_format_cell(char *buf, size_t cap, double v);

#endif
