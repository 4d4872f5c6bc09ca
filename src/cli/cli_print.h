/* cli_print.h — the trace as text tables, aligned by display width. */
#ifndef CLI_PRINT_H
#define CLI_PRINT_H

#include <stdio.h>

#include "attn.h"

/* "tokens (n): 这 只 ..." with positions, and where the weights came from. */
void cli_print_tokens(FILE *out, const attn_trace *t, const char *weights_name);

/* One stage as a labelled table (one table per head for per-head stages). */
void cli_print_stage(FILE *out, const attn_trace *t, attn_stage s);

/* Formats one cell as the tables show it ("0.1234", "-inf", "1.23e+20"). */
void cli_format_cell(char *buf, size_t cap, double v);

#endif
