/* cli_complexity.h — `attnviz --headless --complexity [--max-n N]`: the
 * complexity lab as a table. */
#ifndef CLI_COMPLEXITY_H
#define CLI_COMPLEXITY_H

#include <stdio.h>

/* Times full attention (reference stages and the fast path), sparse window
 * attention (W = 16) and linear attention for n = 16, 32, … ≤ max_n at
 * d = 16 and 64 (see complexity.h), then prints to out a table — n, d,
 * method, ms per run, multiply-adds, ns per multiply-add, peak memory — and the fitted
 * log–log slopes. max_n ≤ 0 means the default, 4096. The whole run keeps to a
 * 15 s budget (a series whose next size would not fit stops and says so).
 * Returns the exit code: 0 on success, 2 when max_n is out of range (16 to
 * 65536), 1 when memory runs out; the error goes to errf as one line
 * prefixed "attnviz: ". */
int cli_run_complexity(int max_n, FILE *out, FILE *errf);

/* The same with the tiled method's block size B (--complexity --tiles B;
 * tile ≤ 0: the default, 64). */
int cli_run_complexity_tiles(int max_n, int tile, FILE *out, FILE *errf);

#endif
