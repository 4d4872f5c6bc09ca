/* app_lab.c — the complexity lab's measurement thread. */
#include "app_lab.h"

#include <stdlib.h>
#include <string.h>

static int lab_worker(void *arg) {
    app_lab *lab = arg;
    attn_cx_options o;
    attn_cx_default_options(&o);
    o.max_n = 2048; // a classroom-sized run: a few seconds, slopes already clear
    o.dims[0] = 64;
    o.n_dims = 1;
    o.budget_s = 8.0;
    o.stop = &lab->stop; // quitting must not wait for the rest of the run
    attn_err err;
    if (attn_cx_run(lab->result, &o, &err) != ATTN_OK) lab->result->n_series = 0;
    SDL_AtomicSet(&lab->done, 1);
    return 0;
}

bool app_lab_start(app_lab *lab) {
    if (lab->thread || lab->result) return true;
    lab->result = calloc(1, sizeof *lab->result);
    if (!lab->result) return false;
    SDL_AtomicSet(&lab->done, 0);
    atomic_store(&lab->stop, 0);
    lab->started = SDL_GetTicks();
    lab->thread = SDL_CreateThread(lab_worker, "attnviz-lab", lab);
    if (lab->thread) return true;
    free(lab->result);
    lab->result = NULL;
    return false;
}

const attn_cx_result *app_lab_poll(app_lab *lab, float *elapsed_s) {
    if (lab->thread && SDL_AtomicGet(&lab->done)) {
        SDL_WaitThread(lab->thread, NULL);
        lab->thread = NULL;
    }
    if (lab->thread) *elapsed_s = (float)(SDL_GetTicks() - lab->started) / 1000.0f;
    return lab->thread ? NULL : lab->result;
}

bool app_lab_running(const app_lab *lab) {
    return lab->thread != NULL;
}

void app_lab_free(app_lab *lab) {
    if (!lab) return;
    atomic_store(&lab->stop, 1); // the run ends at its next check: within one stage's time
    if (lab->thread) SDL_WaitThread(lab->thread, NULL);
    free(lab->result);
    memset(lab, 0, sizeof *lab);
}
