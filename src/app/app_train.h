/* app_train.h — the training view (F3): its options, the training thread and
 * what the window shows of it.
 *
 * One background SDL thread runs the model_trainer loop (model_train.h) and
 * owns the trainer while it runs; nothing else touches it. After each step
 * it publishes, under a mutex, a copy of the model (tens of KB: a memcpy),
 * the step, its evaluations and its snapshots, so the main thread never
 * waits for a step and never draws from memory the thread writes: at up to
 * 20 Hz while training it copies the published model and runs the probe
 * through it (model_run) for the heatmaps. Pausing is the thread waiting on
 * a condition between steps; a step and its order of examples do not depend
 * on when it runs, so the bytes saved equal `attnviz --train TASK --save F`
 * with the same options, whatever the pauses.
 *
 * The thread evaluates held-out examples (forward only, on a copy of the
 * model, with a workspace of its own) at log-spaced steps and every K steps,
 * K chosen so that the evaluations cost at most APP_TRAIN_EVAL_BUDGET of the
 * steps' time, into a preallocated array; it copies
 * the model into preallocated snapshots at log-spaced steps. */
#ifndef APP_TRAIN_H
#define APP_TRAIN_H

#include <SDL.h>
#include <stdbool.h>

#include "app.h"
#include "model_run.h"
#include "model_train.h"
#include "platform.h"
#include "viz_train.h"

#define APP_TRAIN_SNAP_RATIO 1.25  /* each snapshot's step about 1.25 times the one before */
#define APP_TRAIN_EVAL_RATIO 2.0   /* evaluations: at steps about twice apart, and every K steps … */
#define APP_TRAIN_EVAL_BUDGET 0.12 /* … K such that they cost at most this share of the steps' time (estimated) */
#define APP_TRAIN_EVAL_SAMPLE 128  /* held-out examples an evaluation before the last reads (the last: all of them) */
#define APP_TRAIN_MAX_SCHEDULE 256 /* snapshots or evaluations in one training, at most */
#define APP_TRAIN_REFRESH_MS 50    /* the heatmaps follow the training at 20 Hz */

/* What the view lets a learner choose (the rest is the task's default, as
 * for --train). */
typedef struct {
    int task; /* index of task_at */
    int layers, heads, d_model, steps;
    double lr;
    uint32_t seed;
} app_train_opts;

/* ---- pure logic (tests/test_train_view.c) ---- */

/* The task's defaults, as `attnviz --train TASK` takes them. */
void app_train_defaults(app_train_opts *o, int task);

/* The configuration and training of o: the task's defaults with o's choices,
 * as cli_train_settings makes them from the same flags. */
void app_train_settings(const app_train_opts *o, model_config *cfg, task_train_opts *train);

/* Changes option i (0 task … 6 seed, the view's order) by delta steps of
 * its scale (layers 1–4, heads 1–8, d_model 4–64 in powers of two, lr and
 * steps along fixed lists, seed by one). A new task takes its defaults. */
void app_train_option_step(app_train_opts *o, int option, int delta);

/* The snapshot steps of a training of total steps: 0, then each about ratio
 * times the one before (at least one more), and total. Returns the count. */
int app_train_snapshot_steps(int total, double ratio, int *out, int cap);

/* What one evaluation costs in steps of a training: its examples' forward
 * passes, each about half an example's forward and backward in a step. */
double app_train_eval_cost(int heldout, int batch);

/* How often the thread evaluates besides its log-spaced steps: every K
 * steps, K the smallest that keeps the evaluations of a training of total
 * steps, each costing cost steps, within APP_TRAIN_EVAL_BUDGET of them
 * and to at most 100 besides the log-spaced ones (total + 1 when those use
 * the budget up). */
int app_train_eval_every(int total, double cost);

/* The evaluation steps: app_train_snapshot_steps with APP_TRAIN_EVAL_RATIO
 * and every app_train_eval_every steps, ascending, without repeats (always 0
 * and total). Returns the count. */
int app_train_eval_steps(int total, double cost, int *out, int cap);

/* The file name a saved model gets: TASK-seedS-Nsteps.json, and for k > 1
 * TASK-seedS-Nsteps-k.json. */
void app_train_file_name(char *out, size_t cap, const char *task, uint32_t seed, int steps, int k);

/* ---- the view ---- */

typedef struct {
    bool open;             /* the view is shown */
    bool made;             /* a training exists (since the view was first opened) */
    app_state *st;         /* the window's state (borrowed): strings, status, the edit buffer */
    app_train_opts chosen; /* the controls' values */
    app_train_opts opts;   /* what the training shown was made with */
    int focus;             /* the option the keyboard changes */
    /* made by a reset; fixed while the thread runs */
    const task_info *task;
    model_trainer trainer; /* the thread's alone while it runs */
    int snap_steps[APP_TRAIN_MAX_SCHEDULE], n_snaps;
    int eval_steps[APP_TRAIN_MAX_SCHEDULE], n_evals;
    model *snaps;            /* n_snaps copies; the thread fills snapshot i before it publishes i + 1 taken */
    viz_train_point *points; /* n_evals; the thread fills point i before it publishes i + 1 */
    /* the thread and what it publishes (under lock) */
    plat_job *job; /* the worker (platform.h: a thread, or slices in the browser) */
    SDL_mutex *lock;
    SDL_cond *wake;
    bool running, quit, done, failed;
    bool stepping; /* the thread is taking a step */
    int pending;   /* single steps asked for (.) */
    model pub;     /* the model after pub_step steps, with its training record */
    int pub_step, pub_points, pub_snaps;
    char error[512];
    double step_s, eval_s; /* the thread's seconds stepping and evaluating (the curves' points) */
    double finish_s;       /* and evaluating the trained model for its record (as --train does) */
    /* the thread's own */
    bool begun;               /* evaluation 0 is done (a sliced worker's first slice) */
    int next_eval, next_snap; /* the evaluation and snapshot due next */
    double loss_sum;          /* batch losses since the last evaluation */
    int loss_n;
    model eval_model; /* the model being evaluated (a copy) */
    model_ws eval_ws; /* forward only, bound to eval_model */
    /* the main thread's */
    model live; /* a copy of pub, taken at most every APP_TRAIN_REFRESH_MS while training */
    int live_step;
    viz_train_point *seen; /* the points copied from the thread */
    int n_seen, snaps_seen;
    viz_train_state state;
    int step_seen;
    int scrub;        /* the snapshot shown, or -1: live */
    char *probe;      /* the last valid probe (owned) */
    model_result run; /* the probe through the model shown */
    bool run_ok;
    model_result pair_run; /* the probe's flipped pair (a referent task's other lesson sentence) through it */
    bool pair_ok;
    const char *pair;   /* that sentence (the task's), or NULL */
    char notes[3][512]; /* the view's lines about its data, its accuracy by kind and the pair */
    int query;          /* the row outlined, or -1 */
    Uint32 last_refresh, last_poll;
    long updates;          /* heatmap refreshes */
    long updates_training; /* of them while the thread was training */
    double training_ms;    /* wall time seen training with the view open and live */
    char saved[1400];      /* the last model saved, or "" */
    viz_train_view view;   /* what viz_train draws */
} app_train;

/* A closed view of st's window (nothing is made until it opens). */
void app_train_init(app_train *t, app_state *st);

/* Stops the thread and frees everything. */
void app_train_free(app_train *t);

/* F3: opens (the first time with the first task's defaults) or closes.
 * Closing leaves the training running. */
void app_train_toggle(app_train *t);

/* A key while the view is open (F3 also when closed); true when the view
 * used it. Space, '.', arrows, Home, End, −/+, R, S, W, E, F3, Esc. */
bool app_train_key(app_train *t, SDL_Keycode sym, Uint16 mod);

/* A click on one of the view's hit regions (VIZ_TW_* with its delta). */
void app_train_widget(app_train *t, int widget, int delta);

/* Takes what the thread published (every loop turn; cheap); refreshes the
 * heatmaps when the shown model changed, at most every
 * APP_TRAIN_REFRESH_MS while training. Marks the state dirty when the view
 * changed. */
void app_train_poll(app_train *t);

/* true while the thread trains (the loop then wakes often enough to follow). */
bool app_train_busy(const app_train *t);

/* Points s at the view when it is open. */
void app_train_scene(app_train *t, viz_scene *s);

/* The value of a script's `expect train_… VALUE` or `save train_… PATH`
 * (see app_script.h), as a string the caller frees; NULL for an unknown name. */
char *app_train_value(const app_train *t, const char *name);

#endif
