/* app_lab.h — the complexity lab's measurement (F2), run on a thread of its
 * own so the window stays live while it times attention. */
#ifndef APP_LAB_H
#define APP_LAB_H

#include <SDL.h>
#include <stdbool.h>

#include "complexity.h"

typedef struct {
    SDL_Thread *thread;     /* the measurement, while it runs */
    SDL_atomic_t done;      /* set by the thread when result is complete */
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

/* true while the thread runs. */
bool app_lab_running(const app_lab *lab);

/* Stops the thread (within about 0.1 s: one stage of a full head at
 * n = 2048), waits for it and frees the result. A zeroed lab is a no-op. */
void app_lab_free(app_lab *lab);

#endif
