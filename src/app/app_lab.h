/* app_lab.h — the complexity lab's measurement (F2), run as background work
 * (platform.h: a thread of its own, or slices in the browser's frames) so
 * the window stays live while it times attention. */
#ifndef APP_LAB_H
#define APP_LAB_H

#include <SDL.h>
#include <stdbool.h>

#include "complexity.h"
#include "platform.h"

typedef struct {
    plat_job *job;          /* the measurement, while it runs */
    SDL_atomic_t done;      /* set by the job when result is complete */
    int slice_n;            /* sliced: the largest n of the run the last slice made */
    attn_cx_result *result; /* what it measured (owned) */
    atomic_int stop;        /* set to make the thread stop at its next check */
    Uint32 started;         /* SDL_GetTicks() when it started */
} app_lab;

/* Starts the measurement unless it runs or has run. Returns false when it
 * cannot start (no memory, no thread). */
bool app_lab_start(app_lab *lab);

/* The result once the measurement is done, else NULL; *elapsed_s gets the
 * seconds it has been running. */
const attn_cx_result *app_lab_poll(app_lab *lab, float *elapsed_s);

/* true while the measurement runs. */
bool app_lab_running(const app_lab *lab);

/* Stops the measurement (within about 0.1 s: one stage of a full head at
 * n = 2048), waits for it and frees the result. A zeroed lab is a no-op. */
void app_lab_free(app_lab *lab);

#endif
