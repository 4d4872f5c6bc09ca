/* app_lab.c — the complexity lab's measurement, as background work. */
#include "app_lab.h"

#include <stdlib.h>
#include <string.h>

#define LAB_MAX_N 2048 /* a classroom-sized run: a few seconds, slopes already clear */
#define LAB_BUDGET_S 8.0
#define LAB_SLICE_MAX_MS 250 /* sliced: a run that took longer is the last once the fit has 2 sizes */

static void lab_options(app_lab *lab, attn_cx_options *o) {
    attn_cx_default_options(o);
    o->max_n = LAB_MAX_N;
    o->dims[0] = 64;
    o->n_dims = 1;
    o->budget_s = LAB_BUDGET_S;
    o->stop = &lab->stop; // quitting must not wait for the rest of the run
}

/* The whole run at once (a thread). */
static int lab_run(void *arg) {
    app_lab *lab = arg;
    attn_cx_options o;
    lab_options(lab, &o);
    attn_err err;
    if (attn_cx_run(lab->result, &o, &err) != ATTN_OK) lab->result->n_series = 0;
    SDL_AtomicSet(&lab->done, 1);
    return 0;
}

/* Whether run measured anything (a run starved by the budget has no point). */
static bool measured(const attn_cx_result *run) {
    for (int i = 0; i < run->n_series; i++)
        if (run->series[i].count > 0) return true;
    return false;
}

/* One slice (no threads): the run again up to twice the last one's largest
 * n, so that each slice's time is about that of its largest point; the
 * result is the last run that measured something, fitted by the core as on
 * the desktop (the smaller sizes measured again cost about as much as the
 * largest). It ends at LAB_MAX_N, when the budget is spent, or once a
 * slice takes longer than LAB_SLICE_MAX_MS with two sizes for the fit
 * (n ≥ fit_min_n): the window stops for a slice, so the sizes stay those
 * that fit a few frames (a browser tab). */
static plat_slice lab_slice(void *arg) {
    app_lab *lab = arg;
    attn_cx_options o;
    lab_options(lab, &o);
    double left = LAB_BUDGET_S - (double)(SDL_GetTicks() - lab->started) / 1000.0;
    bool last = left <= 0.5 || atomic_load(&lab->stop) || lab->slice_n >= o.max_n;
    if (!last) {
        lab->slice_n = lab->slice_n ? lab->slice_n * 2 : o.min_n;
        o.max_n = lab->slice_n;
        o.budget_s = left;
        attn_cx_result run;
        attn_err err;
        Uint32 t0 = SDL_GetTicks();
        if (attn_cx_run(&run, &o, &err) == ATTN_OK && measured(&run)) *lab->result = run;
        else last = true; // out of memory, or out of time: the last run's result stands
        if (SDL_GetTicks() - t0 > LAB_SLICE_MAX_MS && lab->slice_n >= 2 * o.fit_min_n) last = true;
    }
    if (!last) return PLAT_SLICE_MORE;
    SDL_AtomicSet(&lab->done, 1);
    return PLAT_SLICE_DONE;
}

bool app_lab_start(app_lab *lab) {
    if (lab->job || lab->result) return true;
    lab->result = calloc(1, sizeof *lab->result);
    if (!lab->result) return false;
    SDL_AtomicSet(&lab->done, 0);
    atomic_store(&lab->stop, 0);
    lab->slice_n = 0;
    lab->started = SDL_GetTicks();
    plat_job_def def = {"attnviz-lab", lab_run, lab_slice, lab};
    lab->job = plat_job_start(&def);
    if (lab->job) return true;
    free(lab->result);
    lab->result = NULL;
    return false;
}

const attn_cx_result *app_lab_poll(app_lab *lab, float *elapsed_s) {
    if (lab->job && SDL_AtomicGet(&lab->done)) {
        plat_job_wait(lab->job);
        lab->job = NULL;
    }
    if (lab->job) *elapsed_s = (float)(SDL_GetTicks() - lab->started) / 1000.0f;
    return lab->job ? NULL : lab->result;
}

bool app_lab_running(const app_lab *lab) {
    return lab->job != NULL;
}

void app_lab_free(app_lab *lab) {
    if (!lab) return;
    atomic_store(&lab->stop, 1); // the run ends at its next check: within one stage's time
    plat_job_wait(lab->job);
    free(lab->result);
    memset(lab, 0, sizeof *lab);
}
