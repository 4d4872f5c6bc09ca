/* app_bench.h — `attnviz --bench`: the real app loop, offscreen, replaying a
 * fixed classroom session, timed. A benchmark that prints figures, not a test. */
#ifndef APP_BENCH_H
#define APP_BENCH_H

#include "viz_sdl.h"
#include "viz_strings.h"

/* What the session runs on: --bench --size WxH --theme NAME. */
typedef struct {
    int width, height;  /* the window, 1280×800 when 0 */
    viz_theme_id theme; /* its theme */
} app_bench_opts;

/* Runs the session (SDL video must be initialised, ideally with the offscreen
 * driver and the software renderer) on o (NULL: 1280×800, light) and prints
 * the figures to stdout, ending with one "bench: key=value ..." line. start_s
 * is the process start on the SDL performance clock (for the first-frame
 * time). Returns the exit code. */
int app_bench_run(const viz_strings *ui, viz_fonts *fonts, double start_s, const app_bench_opts *o);

#endif
