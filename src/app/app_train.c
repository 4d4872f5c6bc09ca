/* app_train.c — the training view (F3): options, the training thread, the
 * heatmaps of the probe, snapshots, saving and walking through the model. */
#include "app_train.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_actions.h"
#include "app_paths.h"
#include "clock.h"
#include "fileio.h"
#include "model_file.h"
#include "strbuf.h"
#include "utf8.h"

/* ---- pure logic ---- */

static const double lr_scale[] = {1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0};
static const int steps_scale[] = {10, 20, 50, 100, 200, 300, 400, 500, 600, 800, 1000, 2000, 3000, 5000, 10000};
#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

void app_train_defaults(app_train_opts *o, int task) {
    const task_info *t = task_at(task);
    const task_train_opts *tr = task_default_training(t, t->cfg.objective);
    *o = (app_train_opts){task, t->cfg.layers, t->cfg.heads, t->cfg.d_model, tr->steps, tr->lr, tr->seed};
}

void app_train_settings(const app_train_opts *o, model_config *cfg, task_train_opts *train) {
    const task_info *t = task_at(o->task);
    *cfg = t->cfg; // as cli_train_settings: the task's configuration and the objective's training, then the flags
    *train = *task_default_training(t, cfg->objective);
    cfg->layers = o->layers;
    cfg->heads = o->heads;
    cfg->d_model = o->d_model;
    train->steps = o->steps;
    train->lr = o->lr;
    train->seed = o->seed;
}

static int clampi(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi
                                : v;
}

/* The index of the entry of a sorted list nearest v, moved by delta. */
static int along_d(const double *list, int n, double v, int delta) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(log(list[i] / v)) < fabs(log(list[best] / v))) best = i;
    return clampi(best + delta, 0, n - 1);
}

static int along_i(const int *list, int n, int v, int delta) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (abs(list[i] - v) < abs(list[best] - v)) best = i;
    return clampi(best + delta, 0, n - 1);
}

void app_train_option_step(app_train_opts *o, int option, int delta) {
    switch (option) {
    case 0: {
        int n = task_count(), task = ((o->task + delta) % n + n) % n;
        app_train_defaults(o, task);
        break;
    }
    case 1: o->layers = clampi(o->layers + delta, 1, MODEL_MAX_LAYERS); break;
    case 2: o->heads = clampi(o->heads + delta, 1, ATTN_MAX_HEADS); break;
    case 3: {
        int d = o->d_model;
        for (int k = 0; k < abs(delta); k++) d = delta > 0 ? d * 2 : d / 2;
        o->d_model = clampi(d, 4, 64);
        break;
    }
    case 4: o->lr = lr_scale[along_d(lr_scale, COUNT(lr_scale), o->lr, delta)]; break;
    case 5: o->steps = steps_scale[along_i(steps_scale, COUNT(steps_scale), o->steps, delta)]; break;
    default: o->seed += (uint32_t)delta; break;
    }
}

int app_train_snapshot_steps(int total, double ratio, int *out, int cap) {
    int n = 0;
    if (cap < 2) return 0;
    out[n++] = 0;
    for (int s = 0;;) {
        int next = (int)floor(s * ratio);
        if (next <= s) next = s + 1;
        if (next >= total || n >= cap - 1) break;
        out[n++] = s = next;
    }
    if (total > 0) out[n++] = total; // the last, always
    return n;
}

double app_train_eval_cost(int heldout, int batch) {
    int n = heldout < APP_TRAIN_EVAL_SAMPLE ? heldout : APP_TRAIN_EVAL_SAMPLE;
    return batch > 0 ? n / (2.0 * batch) : n;
}

int app_train_eval_every(int total, double cost) {
    int log[APP_TRAIN_MAX_SCHEDULE];
    int nl = app_train_snapshot_steps(total, APP_TRAIN_EVAL_RATIO, log, APP_TRAIN_MAX_SCHEDULE);
    double room = APP_TRAIN_EVAL_BUDGET * total / (cost > 0 ? cost : 1) - nl; // evaluations left for the regular ones
    if (room > 100) room = 100;                                               // a curve needs no more
    if (room < 1) return total + 1;
    int k = (int)ceil(total / room);
    return k < 1 ? 1 : k;
}

int app_train_eval_steps(int total, double cost, int *out, int cap) {
    int snaps[APP_TRAIN_MAX_SCHEDULE];
    int ns = app_train_snapshot_steps(total, APP_TRAIN_EVAL_RATIO, snaps, APP_TRAIN_MAX_SCHEDULE);
    int k = app_train_eval_every(total, cost), n = 0, i = 0;
    for (int s = 0; s <= total && n < cap;) { // merge: the log-spaced steps and the multiples of k
        long next_k = ((long)s + k - 1) / k * k;
        while (i < ns && snaps[i] < s) i++;
        long next = i < ns && snaps[i] < next_k ? snaps[i] : next_k;
        if (next > total) next = total;
        out[n++] = (int)next;
        if (next == total) break;
        s = (int)next + 1;
    }
    return n;
}

void app_train_file_name(char *out, size_t cap, const char *task, uint32_t seed, int steps, int k) {
    if (k > 1) snprintf(out, cap, "%s-seed%lu-%dsteps-%d.json", task, (unsigned long)seed, steps, k);
    else snprintf(out, cap, "%s-seed%lu-%dsteps.json", task, (unsigned long)seed, steps);
}

/* ---- the thread ---- */

/* Evaluation k of the model as it is now: the held-out loss and accuracy (of
 * the first APP_TRAIN_EVAL_SAMPLE held-out examples, or of all of them at the
 * last step), and the mean batch loss since the last one. The thread's own copy of the
 * model and workspace: the trainer is not touched. */
static attn_status eval_point(app_train *t, int k, double *loss_sum, int *loss_n, attn_err *err) {
    model_trainer *tr = &t->trainer;
    memcpy(t->eval_model.block, tr->model.block, sizeof(double) * tr->model.n_params);
    model_eval e;
    int n = tr->data.n_heldout; // the last reads all of them: --train's figure; the ones before, a sample
    if (tr->step < t->opts.steps && n > APP_TRAIN_EVAL_SAMPLE) n = APP_TRAIN_EVAL_SAMPLE;
    attn_status st = model_evaluate(&e, &t->eval_ws, &tr->data, tr->data.n_train, n, err);
    if (st != ATTN_OK) return st;
    double kind[2];
    for (int j = 0; j < 2; j++) kind[j] = e.kind_rows[j] ? (double)e.kind_right[j] / e.kind_rows[j] : NAN;
    t->points[k] = (viz_train_point){tr->step, *loss_n ? *loss_sum / *loss_n : NAN, e.loss, e.accuracy, {kind[0], kind[1]}};
    *loss_sum = 0;
    *loss_n = 0;
    return ATTN_OK;
}

/* The worker's first piece: how the untrained model does (evaluation 0). */
static void work_begin(app_train *t) {
    attn_err err;
    attn_status st = ATTN_OK;
    t->next_eval = 0;
    t->next_snap = 1;
    t->loss_n = 0;
    t->loss_sum = 0;
    double t0 = attn_clock_s();
    if (t->n_evals > 0 && t->eval_steps[0] == 0) {
        st = eval_point(t, 0, &t->loss_sum, &t->loss_n, &err);
        t->next_eval = st == ATTN_OK;
    }
    double eval0 = attn_clock_s() - t0;
    SDL_LockMutex(t->lock);
    t->pub_points = t->next_eval;
    t->eval_s += eval0;
    if (st != ATTN_OK) {
        t->failed = true;
        snprintf(t->error, sizeof t->error, "%s", err.msg);
    }
    SDL_UnlockMutex(t->lock);
}

/* Under the lock: whether a step is wanted now (running, or single steps
 * asked for); if so it is taken off what was asked and marked under way. */
static bool work_wanted(app_train *t) {
    if (t->done || t->failed || (!t->running && t->pending == 0)) return false; // paused, done or stopped
    if (t->pending > 0) t->pending--;
    t->stepping = true; // a step under way: still training, even with nothing more asked for
    return true;
}

/* One training step, with the evaluation and snapshot due at it, then
 * published under the lock. Called without the lock. */
static void work_step(app_train *t) {
    model_trainer *tr = &t->trainer;
    attn_err err;
    int total = t->opts.steps;
    double a = attn_clock_s();
    attn_status st = model_trainer_step(tr, &err);
    double b = attn_clock_s();
    if (st == ATTN_OK) {
        t->loss_sum += tr->last_loss;
        t->loss_n++;
    }
    if (st == ATTN_OK && t->next_eval < t->n_evals && t->eval_steps[t->next_eval] == tr->step)
        if ((st = eval_point(t, t->next_eval, &t->loss_sum, &t->loss_n, &err)) == ATTN_OK) t->next_eval++;
    if (st == ATTN_OK && t->next_snap < t->n_snaps && t->snap_steps[t->next_snap] == tr->step) {
        model *s = &t->snaps[t->next_snap++];
        memcpy(s->block, tr->model.block, sizeof(double) * tr->model.n_params);
        s->training = tr->model.training;
    }
    bool last = st == ATTN_OK && tr->step >= total;
    double c = attn_clock_s();
    if (last) st = model_trainer_finish(tr, &err); // the training record, as --train writes it
    double d = attn_clock_s();
    SDL_LockMutex(t->lock);
    memcpy(t->pub.block, tr->model.block, sizeof(double) * tr->model.n_params);
    t->pub.training = tr->model.training;
    t->pub_step = tr->step;
    t->pub_points = t->next_eval;
    t->pub_snaps = t->next_snap;
    t->stepping = false;
    t->step_s += b - a;
    t->eval_s += c - b;
    t->finish_s += d - c;
    if (st != ATTN_OK) {
        t->failed = true;
        snprintf(t->error, sizeof t->error, "%s", err.msg);
    } else if (last) {
        t->done = true;
    }
    if (t->failed || t->done) t->running = false, t->pending = 0;
    SDL_UnlockMutex(t->lock);
}

/* The worker on a thread of its own: waits while paused, done or stopped. */
static int worker(void *arg) {
    app_train *t = arg;
    work_begin(t);
    SDL_LockMutex(t->lock);
    while (!t->quit) {
        if (!work_wanted(t)) {
            SDL_CondWait(t->wake, t->lock);
            continue;
        }
        SDL_UnlockMutex(t->lock);
        work_step(t);
        SDL_LockMutex(t->lock);
    }
    SDL_UnlockMutex(t->lock);
    return 0;
}

/* The worker in slices (no threads): one step per call, nothing while paused. */
static plat_slice worker_slice(void *arg) {
    app_train *t = arg;
    if (!t->begun) {
        t->begun = true;
        work_begin(t);
        return PLAT_SLICE_MORE;
    }
    SDL_LockMutex(t->lock);
    bool quit = t->quit, step = !quit && work_wanted(t);
    SDL_UnlockMutex(t->lock);
    if (quit) return PLAT_SLICE_DONE;
    if (!step) return PLAT_SLICE_IDLE;
    work_step(t);
    return PLAT_SLICE_MORE;
}

static void stop_thread(app_train *t) {
    if (!t->job) return;
    SDL_LockMutex(t->lock);
    t->quit = true;
    if (t->wake) SDL_CondSignal(t->wake);
    SDL_UnlockMutex(t->lock);
    plat_job_wait(t->job); // it stops after the step under way
    t->job = NULL;
}

/* ---- the probe and the model shown ---- */

static const char *str(const app_train *t, viz_str id) {
    return app_str(t->st, id);
}

static const model *shown_model(const app_train *t) {
    return t->scrub >= 0 ? &t->snaps[t->scrub] : &t->live;
}

/* The row a referent task reads its answer at (the pronoun), or -1. */
static int query_row(const app_train *t, const model_result *r) {
    task_target tg[MODEL_MAX_LEN];
    if (!t->task->referent || task_label(t->task, r->ids, r->n, tg) < 1) return -1;
    return tg[0].row;
}

/* The probe's flipped pair (the task's other lesson sentence, when the probe
 * is one of them) through the model shown, beside the probe. */
static void run_pair(app_train *t, const char *probe) {
    const task_lesson_sentence *ls;
    int n = task_lesson_sentences(t->task, &ls);
    t->pair = n == 2 && strcmp(probe, ls[0].sentence) == 0 ? ls[1].sentence : n == 2 && strcmp(probe, ls[1].sentence) == 0 ? ls[0].sentence
                                                                                                                           : NULL;
    model_result_free(&t->pair_run);
    attn_err err;
    t->pair_ok = t->pair && model_run(&t->pair_run, shown_model(t), t->pair, strlen(t->pair), NULL, 0, &err) == ATTN_OK;
}

/* Where the pronoun of r looks most in the last layer (heads averaged, as the
 * answer is read): its key's label and weight; false without a pronoun. */
static bool strongest(const app_train *t, const model_result *r, char *key, size_t cap, double *w) {
    int q = query_row(t, r);
    const attn_trace *last = &r->layer[t->opts.layers - 1];
    if (q < 0 || !last->n) return false;
    int best = 0;
    double row[MODEL_MAX_LEN] = {0};
    for (int h = 0; h < last->cfg.heads; h++)
        for (int j = 0; j < last->n; j++) row[j] += last->head[h].weights[(size_t)q * last->n + j] / last->cfg.heads;
    for (int j = 1; j < last->n; j++)
        if (row[j] > row[best]) best = j;
    attn_token_label(&last->tokens, best, 0, key, cap);
    *w = row[best];
    return true;
}

/* The view's lines about its data, the accuracy by kind of predicate and the pair. */
static void fill_notes(app_train *t, viz_train_view *v) {
    v->n_notes = 0;
    if (!t->made) return;
    const task_dataset *d = &t->trainer.data;
    snprintf(t->notes[0], sizeof t->notes[0], str(t, VIZ_S_TRAIN_DATA), d->n_train + d->n_heldout, d->n_heldout);
    v->notes[v->n_notes++] = t->notes[0];
    const viz_train_point *p = NULL; // the evaluation of the step shown (a snapshot's, or the live one)
    for (int i = 0; i < t->n_seen; i++)
        if (t->seen[i].step <= v->shown_step) p = &t->seen[i];
    if (p && t->task->referent && !isnan(p->kind_acc[0]) && !isnan(p->kind_acc[1])) {
        snprintf(t->notes[1], sizeof t->notes[1], str(t, VIZ_S_TRAIN_KINDS), 100.0 * p->kind_acc[0], 100.0 * p->kind_acc[1]);
        v->notes[v->n_notes++] = t->notes[1];
    }
    char a[96], b[96];
    double wa, wb;
    if (t->run_ok && t->pair_ok && strongest(t, &t->run, a, sizeof a, &wa) && strongest(t, &t->pair_run, b, sizeof b, &wb)) {
        snprintf(t->notes[2], sizeof t->notes[2], str(t, VIZ_S_TRAIN_PAIR), a, wa, t->pair, b, wb);
        utf8_trim_partial(t->notes[2]);
        v->notes[v->n_notes++] = t->notes[2];
    }
}

/* Runs text through the model shown; on success it is the probe shown. */
static attn_status run_probe(app_train *t, const char *text, attn_err *err) {
    model_result r = {0};
    attn_status st = model_run(&r, shown_model(t), text, strlen(text), NULL, 0, err);
    if (st != ATTN_OK) return st;
    model_result_free(&t->run);
    t->run = r;
    t->run_ok = true;
    t->query = query_row(t, &t->run);
    run_pair(t, text);
    if (t->probe != text) {
        char *copy = strdup(text);
        if (copy) {
            free(t->probe);
            t->probe = copy;
        }
    }
    t->updates++;
    return ATTN_OK;
}

/* The heatmaps again, for the model shown now. */
static void refresh_run(app_train *t) {
    attn_err err;
    if (!t->probe || run_probe(t, t->probe, &err) != ATTN_OK) {
        model_result_free(&t->run);
        model_result_free(&t->pair_run);
        t->run_ok = t->pair_ok = false;
    }
}

/* The edit check of the probe: a word outside the task's vocabulary is
 * refused naming it; the last valid probe stays. */
static bool probe_check(void *ctx, const char *text, char *why, size_t cap) {
    app_train *t = ctx;
    attn_err err;
    attn_tokens toks = {0};
    attn_wordlist words = {t->task->vocab_count, t->task->vocab, NULL}; // a few dozen words: no index
    if (attn_tokenize(&toks, text, strlen(text), &words, &err) != ATTN_OK) {
        snprintf(why, cap, "%s", err.msg);
        return false;
    }
    for (int i = 0; i < toks.n; i++) {
        int len;
        const char *tok = attn_token_text(&toks, i, &len);
        char word[MODEL_MAX_WORD * 2];
        snprintf(word, sizeof word, "%.*s", len, tok);
        if (task_word_id(t->task, word) < 0) {
            snprintf(why, cap, str(t, VIZ_S_TRAIN_PROBE_UNKNOWN), word, t->task->name);
            attn_tokens_free(&toks);
            return false;
        }
    }
    attn_tokens_free(&toks);
    if (run_probe(t, text, &err) != ATTN_OK) { // too long, or a stage that overflowed
        snprintf(why, cap, "%s", err.msg);
        return false;
    }
    t->st->dirty = true;
    return true;
}

/* ---- making, resetting and freeing a training ---- */

static void free_training(app_train *t) {
    stop_thread(t);
    model_result_free(&t->run);
    model_result_free(&t->pair_run);
    t->run_ok = t->pair_ok = false;
    for (int i = 0; t->snaps && i < t->n_snaps; i++) model_free(&t->snaps[i]);
    free(t->snaps);
    free(t->points);
    free(t->seen);
    t->snaps = NULL;
    t->points = t->seen = NULL;
    model_ws_free(&t->eval_ws);
    model_free(&t->eval_model);
    model_free(&t->pub);
    model_free(&t->live);
    model_trainer_free(&t->trainer);
}

/* A new training of the chosen options at step 0, paused; the thread waits to be started. */
static attn_status reset(app_train *t, attn_err *err) {
    free_training(t);
    bool new_task = !t->made || t->opts.task != t->chosen.task;
    t->opts = t->chosen;
    t->task = task_at(t->opts.task);
    model_config cfg;
    task_train_opts tro;
    app_train_settings(&t->opts, &cfg, &tro);
    t->running = t->quit = t->done = t->failed = t->stepping = false;
    t->pending = t->pub_step = t->pub_points = t->n_seen = t->live_step = t->step_seen = 0;
    t->step_s = t->eval_s = t->finish_s = 0;
    t->error[0] = '\0';
    t->scrub = -1;
    t->state = VIZ_TRAIN_IDLE;
    t->n_snaps = app_train_snapshot_steps(tro.steps, APP_TRAIN_SNAP_RATIO, t->snap_steps, APP_TRAIN_MAX_SCHEDULE);
    attn_status st = model_trainer_init(&t->trainer, t->task, &cfg, &tro, err);
    if (st != ATTN_OK) return st;
    t->n_evals = app_train_eval_steps(tro.steps, app_train_eval_cost(t->trainer.data.n_heldout, tro.batch),
                                      t->eval_steps, APP_TRAIN_MAX_SCHEDULE);
    t->snaps = calloc((size_t)t->n_snaps, sizeof *t->snaps);
    t->points = calloc((size_t)t->n_evals, sizeof *t->points);
    t->seen = calloc((size_t)t->n_evals, sizeof *t->seen);
    if (!t->snaps || !t->points || !t->seen) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to train.");
    for (int i = 0; i < t->n_snaps && st == ATTN_OK; i++) st = model_trainer_snapshot(&t->trainer, &t->snaps[i], err);
    if (st == ATTN_OK) st = model_trainer_snapshot(&t->trainer, &t->pub, err);
    if (st == ATTN_OK) st = model_trainer_snapshot(&t->trainer, &t->live, err);
    if (st == ATTN_OK) st = model_trainer_snapshot(&t->trainer, &t->eval_model, err);
    if (st == ATTN_OK) st = model_ws_init(&t->eval_ws, &t->eval_model, NULL, err);
    if (st != ATTN_OK) return st;
    t->pub_snaps = t->snaps_seen = 1; // snapshot 0 is the untrained model
    if (!t->lock) t->lock = SDL_CreateMutex();
    if (!t->wake) t->wake = SDL_CreateCond(); // a thread's wait; slices need none
    plat_job_def job = {"attnviz-train", t->wake ? worker : NULL, worker_slice, t};
    t->begun = false;
    if (t->lock) t->job = plat_job_start(&job);
    if (!t->job) return attn_fail(err, ATTN_ERR_NOMEM, "Cannot start the training thread: %s", SDL_GetError());
    if (new_task || !t->probe) {
        free(t->probe);
        t->probe = strdup(t->task->probe);
    }
    refresh_run(t);
    return ATTN_OK;
}

static void do_reset(app_train *t) {
    attn_err err;
    if (reset(t, &err) != ATTN_OK) {
        free_training(t);
        t->failed = true;
        t->state = VIZ_TRAIN_FAILED;
        snprintf(t->error, sizeof t->error, "%s", err.msg);
        app_status(t->st, str(t, VIZ_S_TRAIN_STOPPED), err.msg);
    }
    t->made = true;
    t->st->dirty = true;
}

void app_train_init(app_train *t, app_state *st) {
    memset(t, 0, sizeof *t);
    t->st = st;
    t->scrub = -1;
    t->query = -1;
    app_train_defaults(&t->chosen, 0);
}

void app_train_free(app_train *t) {
    if (!t) return;
    if (t->st) app_edit_drop(t->st, t); // the probe being edited goes with the view
    free_training(t);
    if (t->lock) SDL_DestroyMutex(t->lock);
    if (t->wake) SDL_DestroyCond(t->wake);
    free(t->probe);
    memset(t, 0, sizeof *t);
}

/* The task the lesson page offers to train (@train, or its model's), or -1. */
static int page_task(const app_train *t) {
    const lesson *l = app_lesson(t->st);
    const lesson_page *pg = l ? lesson_page_at(l, t->st->lesson.page) : NULL;
    const task_info *task = pg && pg->train_task ? task_find(pg->train_task) : NULL;
    for (int i = 0; task && i < task_count(); i++)
        if (task_at(i) == task) return i;
    return -1;
}

void app_train_toggle(app_train *t) {
    t->open = !t->open;
    int offered = t->open ? page_task(t) : -1;
    bool untouched = !t->made || (t->state == VIZ_TRAIN_IDLE && t->step_seen == 0);
    if (offered >= 0 && untouched && offered != t->chosen.task) { // a page that names a model to train: its task
        app_train_defaults(&t->chosen, offered);
        if (t->made) do_reset(t);
    }
    if (t->open && !t->made) do_reset(t);
    t->last_poll = SDL_GetTicks();
    t->st->dirty = true;
    if (t->open) app_train_poll(t);
}

/* ---- what the thread published ---- */

static bool same_opts(const app_train_opts *a, const app_train_opts *b) {
    return a->task == b->task && a->layers == b->layers && a->heads == b->heads && a->d_model == b->d_model &&
           a->steps == b->steps && a->lr == b->lr && a->seed == b->seed;
}

static void fill_view(app_train *t) {
    viz_train_view *v = &t->view;
    const app_train_opts *o = &t->chosen;
    *v = (viz_train_view){0};
    v->task = task_at(o->task)->name;
    v->layers = o->layers;
    v->heads = o->heads;
    v->d_model = o->d_model;
    v->steps = o->steps;
    v->lr = o->lr;
    v->seed = o->seed;
    v->focus = t->focus;
    v->options_pending = !same_opts(&t->chosen, &t->opts);
    v->state = t->state;
    v->error = t->error[0] ? t->error : NULL;
    v->step = t->step_seen;
    v->total = t->opts.steps;
    v->points = t->seen;
    v->n_points = t->n_seen;
    v->snap_steps = t->snap_steps;
    v->n_snaps = t->n_snaps;
    v->snaps_taken = t->snaps_seen;
    v->scrub = t->scrub;
    v->shown_step = t->scrub >= 0 ? t->snap_steps[t->scrub] : t->live_step;
    v->n_layers = t->run_ok ? t->opts.layers : 0;
    for (int l = 0; l < v->n_layers && l < VIZ_TRAIN_MAX_LAYERS; l++) v->layer[l] = &t->run.layer[l];
    v->query = t->run_ok ? t->query : -1;
    v->pair = t->pair;
    v->n_pair_layers = t->run_ok && t->pair_ok ? t->opts.layers : 0;
    for (int l = 0; l < v->n_pair_layers && l < VIZ_TRAIN_MAX_LAYERS; l++) v->pair_layer[l] = &t->pair_run.layer[l];
    v->pair_query = t->pair_ok ? query_row(t, &t->pair_run) : -1;
    v->probe = t->probe;
    fill_notes(t, v);
}

void app_train_poll(app_train *t) {
    if (!t->made || !t->job) return;
    Uint32 now = SDL_GetTicks();
    bool copy_live = false, changed = false;
    SDL_LockMutex(t->lock);
    viz_train_state state = t->failed ? VIZ_TRAIN_FAILED : t->done                               ? VIZ_TRAIN_DONE
                                                       : t->running || t->pending || t->stepping ? VIZ_TRAIN_RUNNING
                                                       : t->pub_step > 0                         ? VIZ_TRAIN_PAUSED
                                                                                                 : VIZ_TRAIN_IDLE;
    bool training = state == VIZ_TRAIN_RUNNING;
    if (t->open && t->scrub < 0 && training && t->state == VIZ_TRAIN_RUNNING) // seen training since the last look
        t->training_ms += (double)(now - t->last_poll);
    t->last_poll = now;
    if (t->pub_step != t->live_step && t->open &&
        (!training || (Uint32)(now - t->last_refresh) >= APP_TRAIN_REFRESH_MS)) {
        memcpy(t->live.block, t->pub.block, sizeof(double) * t->pub.n_params);
        t->live.training = t->pub.training;
        t->live_step = t->pub_step;
        copy_live = true;
    }
    if (t->pub_points > t->n_seen) { // points are written once, before they are published
        memcpy(t->seen + t->n_seen, t->points + t->n_seen, sizeof *t->seen * (size_t)(t->pub_points - t->n_seen));
        t->n_seen = t->pub_points;
        changed = true;
    }
    if (state == VIZ_TRAIN_FAILED && t->state != state) app_status(t->st, str(t, VIZ_S_TRAIN_STOPPED), t->error);
    changed |= state != t->state || t->pub_snaps != t->snaps_seen || t->pub_step != t->step_seen;
    t->state = state;
    t->snaps_seen = t->pub_snaps;
    t->step_seen = t->pub_step;
    SDL_UnlockMutex(t->lock);
    if (copy_live) {
        t->last_refresh = now;
        if (t->scrub < 0) {
            refresh_run(t);
            if (training) t->updates_training++;
        }
        changed = true;
    }
    if (changed && t->open) {
        fill_view(t);
        t->st->dirty = true;
    }
}

bool app_train_busy(const app_train *t) {
    return t->made && t->state == VIZ_TRAIN_RUNNING;
}

/* ---- actions ---- */

static void start_pause(app_train *t) {
    if (!t->job) return;
    SDL_LockMutex(t->lock);
    bool done = t->done, failed = t->failed;
    if (!done && !failed) {
        t->running = !t->running;
        t->pending = 0;
        SDL_CondSignal(t->wake);
    }
    SDL_UnlockMutex(t->lock);
    if (done) app_status(t->st, "%s", str(t, VIZ_S_TRAIN_IS_DONE));
    if (failed) app_status(t->st, str(t, VIZ_S_TRAIN_STOPPED), t->error);
}

static void one_step(app_train *t) {
    if (!t->job) return;
    SDL_LockMutex(t->lock);
    bool done = t->done;
    if (!done && !t->failed) {
        t->running = false; // a step pauses: the learner goes on one step at a time
        t->pending++;
        SDL_CondSignal(t->wake);
    }
    SDL_UnlockMutex(t->lock);
    if (done) app_status(t->st, "%s", str(t, VIZ_S_TRAIN_IS_DONE));
}

/* Shows snapshot i (clamped to those taken), or the live model for -1. */
static void scrub_to(app_train *t, int i) {
    if (i >= t->snaps_seen) i = -1;
    if (i < -1) i = 0;
    t->scrub = i;
    if (i < 0) { // back to live: the latest published model at once
        SDL_LockMutex(t->lock);
        memcpy(t->live.block, t->pub.block, sizeof(double) * t->pub.n_params);
        t->live.training = t->pub.training;
        t->live_step = t->pub_step;
        SDL_UnlockMutex(t->lock);
    }
    refresh_run(t);
    fill_view(t);
    t->st->dirty = true;
}

/* ← →: the snapshot before or after the one shown (from live, the last one before the live step). */
static void scrub_by(app_train *t, int delta) {
    int cur = t->scrub;
    if (cur < 0) {
        if (delta > 0) return;
        cur = t->snaps_seen - 1;
        if (cur > 0 && t->snap_steps[cur] >= t->live_step) cur--;
        scrub_to(t, cur);
        return;
    }
    scrub_to(t, cur + delta >= t->snaps_seen ? -1 : cur + delta < 0 ? 0
                                                                    : cur + delta);
}

static void option(app_train *t, int i, int delta) {
    t->focus = i;
    if (delta) app_train_option_step(&t->chosen, i, delta);
    bool untouched = t->state == VIZ_TRAIN_IDLE && t->step_seen == 0;
    if (!same_opts(&t->chosen, &t->opts) && (untouched || !t->job)) do_reset(t); // nothing trained yet: at once
    fill_view(t);
    t->st->dirty = true;
}

/* A copy of the model shown with its training record (evaluated here when
 * the training did not finish it): what Save and Walk through take. */
static attn_status shown_copy(app_train *t, model *out, attn_err *err) {
    bool finished = false;
    attn_status st;
    if (t->scrub >= 0) {
        st = model_copy(out, &t->snaps[t->scrub], err);
    } else { // the latest model, not the one last drawn
        SDL_LockMutex(t->lock);
        st = model_copy(out, &t->pub, err);
        finished = t->done;
        SDL_UnlockMutex(t->lock);
    }
    if (st != ATTN_OK || finished) return st;
    // as model_trainer_finish: the loss over the training set, the held-out accuracy and referent attention
    const task_dataset *d = &t->trainer.data; // never written after the trainer was made
    model_ws ws;
    model_eval train, held;
    st = model_ws_init(&ws, out, NULL, err);
    if (st == ATTN_OK) st = model_evaluate(&train, &ws, d, 0, d->n_train, err);
    if (st == ATTN_OK) st = model_evaluate(&held, &ws, d, d->n_train, d->n_heldout, err);
    model_ws_free(&ws);
    if (st != ATTN_OK) {
        model_free(out);
        return st;
    }
    out->training.loss = train.loss;
    out->training.heldout_accuracy = held.accuracy;
    out->training.referent_attention = held.referent_attention;
    return ATTN_OK;
}

/* Writes json to a new file in dir named after m, never over an existing
 * one: the name is claimed with O_EXCL, then written by the one writer. */
static attn_status save_new(const char *dir, const model *m, const char *json, char *path, size_t cap,
                            attn_err *err) {
    char name[256];
    for (int k = 1; k < 1000; k++) {
        app_train_file_name(name, sizeof name, m->task, m->training.seed, m->training.steps, k);
        snprintf(path, cap, "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_TRAIN_WRITE, path, errno);
        close(fd);
        attn_status st = attn_write_file(path, json, strlen(json), NULL, err);
        if (st != ATTN_OK) unlink(path); // the empty file that claimed the name
        return st;
    }
    return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_TRAIN_NO_NAME, dir);
}

static void save(app_train *t) {
    attn_err err;
    model m = {0};
    char dir[1024] = "", path[1300];
    attn_status st = ATTN_OK;
    if (!app_data_dir(dir, sizeof dir - 8)) // never a shared stand-in for a home that is not there
        st = attn_fail_id(&err, ATTN_ERR_IO, ATTN_MSG_TRAIN_NO_FOLDER);
    strcat(dir, "/models");
    if (st == ATTN_OK) st = shown_copy(t, &m, &err);
    char *json = NULL;
    if (st == ATTN_OK) st = model_file_write_checked(&m, &json, &err); // never a file --model refuses
    if (st == ATTN_OK && app_mkdirs(dir) != 0) st = attn_fail_id(&err, ATTN_ERR_IO, ATTN_MSG_TRAIN_MKDIR, dir, errno);
    if (st == ATTN_OK) st = save_new(dir, &m, json, path, sizeof path, &err);
    if (st == ATTN_OK) {
        snprintf(t->saved, sizeof t->saved, "%s", path);
        plat_file_written(path);
        app_status(t->st, str(t, VIZ_S_TRAIN_SAVED), path);
    } else {
        app_status(t->st, str(t, VIZ_S_TRAIN_SAVE_FAILED), err.msg);
    }
    free(json);
    model_free(&m);
}

static void walk(app_train *t) {
    attn_err err;
    model m = {0};
    attn_status st = shown_copy(t, &m, &err);
    if (st == ATTN_OK) st = app_model_use(t->st, &m, APP_MODEL_TRAINED, NULL, &err); // m is moved in
    model_free(&m);
    if (st != ATTN_OK) {
        app_status(t->st, str(t, VIZ_S_TRAIN_WALK_FAILED), err.msg);
        return;
    }
    t->open = false; // the walkthrough shows it now; the training stays as it is
    t->st->dirty = true;
}

static void edit_probe(app_train *t) {
    if (!t->probe || !t->task) return;
    app_edit_begin_other(t->st, t->probe, probe_check, t);
    t->st->dirty = true;
}

void app_train_widget(app_train *t, int widget, int delta) {
    if (!t->made) return;
    if (widget >= VIZ_TW_FIRST && widget < VIZ_TW_FIRST + VIZ_TW_OPTIONS) {
        option(t, widget - VIZ_TW_FIRST, delta);
        return;
    }
    switch (widget) {
    case VIZ_TW_START: start_pause(t); break;
    case VIZ_TW_STEP: one_step(t); break;
    case VIZ_TW_RESET: do_reset(t); break;
    case VIZ_TW_SAVE: save(t); break;
    case VIZ_TW_WALK: walk(t); break;
    case VIZ_TW_SNAPSHOT: scrub_to(t, delta); break;
    case VIZ_TW_LIVE: scrub_to(t, -1); break;
    case VIZ_TW_PROBE: edit_probe(t); break;
    default: break;
    }
    app_train_poll(t);
    fill_view(t);
    t->st->dirty = true;
}

bool app_train_key(app_train *t, SDL_Keycode sym, Uint16 mod) {
    if (sym == SDLK_F3) {
        app_train_toggle(t);
        return true;
    }
    if (!t->open) return false;
    (void)mod;
    switch (sym) {
    case SDLK_ESCAPE: // Esc leaves the figure view first, as everywhere
        if (t->st->view.figure_only) return false;
        app_train_toggle(t);
        return true;
    case SDLK_SPACE: app_train_widget(t, VIZ_TW_START, 0); return true;
    case SDLK_PERIOD:
    case SDLK_KP_PERIOD: app_train_widget(t, VIZ_TW_STEP, 0); return true;
    case SDLK_LEFT: scrub_by(t, -1); return true;
    case SDLK_RIGHT: scrub_by(t, +1); return true;
    case SDLK_HOME: scrub_to(t, 0); return true;
    case SDLK_END: scrub_to(t, -1); return true;
    case SDLK_UP:
    case SDLK_DOWN:
        t->focus = (t->focus + (sym == SDLK_UP ? VIZ_TW_OPTIONS - 1 : 1)) % VIZ_TW_OPTIONS;
        fill_view(t);
        t->st->dirty = true;
        return true;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: option(t, t->focus, -1); return true;
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS: option(t, t->focus, +1); return true;
    case SDLK_r: app_train_widget(t, VIZ_TW_RESET, 0); return true;
    case SDLK_s: app_train_widget(t, VIZ_TW_SAVE, 0); return true;
    case SDLK_w: app_train_widget(t, VIZ_TW_WALK, 0); return true;
    case SDLK_e: app_train_widget(t, VIZ_TW_PROBE, 0); return true;
    // the theme, the language, help, the figure view, fullscreen and zoom work as everywhere; nothing else
    // reaches the walkthrough below
    case SDLK_f:
    case SDLK_t:
    case SDLK_l:
    case SDLK_F1:
    case SDLK_F2:
    case SDLK_F11: return false;
    default: return true;
    }
}

void app_train_scene(app_train *t, viz_scene *s) {
    if (!t->open || !t->made) return;
    fill_view(t);
    app_state *st = t->st;
    viz_train_view *v = &t->view;
    const app_editor *e = &st->edit.ed;
    if (e->active && st->edit.check == probe_check && st->edit.ctx == t) {
        v->editing = true;
        v->probe = e->text;
        v->cursor = e->cursor;
        v->composition = e->composition;
        v->probe_error = e->error[0] ? e->error : NULL;
    }
    s->train = v;
}

/* ---- values for scripts ---- */

/* The probe's attention in every layer and head as the view draws it, as JSON. */
static char *weights_json(const app_train *t) {
    const viz_train_view *v = &t->view;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "{\"step\": %d, \"probe\": ", v->shown_step);
    attn_sb_json_string(&b, v->probe ? v->probe : "", v->probe ? strlen(v->probe) : 0);
    attn_sb_puts(&b, ", \"layers\": [");
    for (int l = 0; l < v->n_layers && v->layer[l]; l++) {
        const attn_trace *tr = v->layer[l];
        attn_sb_puts(&b, l ? ", {\"heads\": [" : "{\"heads\": [");
        for (int h = 0; h < tr->cfg.heads; h++) {
            attn_sb_puts(&b, h ? ", {\"weights\": " : "{\"weights\": ");
            model_json_matrix(&b, "  ", tr->head[h].weights, tr->n, tr->n);
            attn_sb_puts(&b, "}");
        }
        attn_sb_puts(&b, "]}");
    }
    attn_sb_puts(&b, "]}\n");
    return attn_sb_take(&b);
}

char *app_train_value(const app_train *t, const char *name) {
    static const char *const states[] = {"idle", "running", "paused", "done", "failed"};
    static const char *const options[] = {"task", "layers", "heads", "d_model", "lr", "steps", "seed"};
    char buf[1500];
    const viz_train_point *last = t->n_seen ? &t->seen[t->n_seen - 1] : NULL;
    const app_train_opts *o = &t->chosen;
    if (!strcmp(name, "train_view")) snprintf(buf, sizeof buf, "%d", t->open);
    else if (!strcmp(name, "train_weights")) return weights_json(t);
    else if (!t->made) snprintf(buf, sizeof buf, "none");
    else if (!strcmp(name, "train_state")) snprintf(buf, sizeof buf, "%s", states[t->state]);
    else if (!strcmp(name, "train_step")) snprintf(buf, sizeof buf, "%d", t->step_seen);
    else if (!strcmp(name, "train_task")) snprintf(buf, sizeof buf, "%s", task_at(o->task)->name);
    else if (!strcmp(name, "train_layers")) snprintf(buf, sizeof buf, "%d", o->layers);
    else if (!strcmp(name, "train_heads")) snprintf(buf, sizeof buf, "%d", o->heads);
    else if (!strcmp(name, "train_d_model")) snprintf(buf, sizeof buf, "%d", o->d_model);
    else if (!strcmp(name, "train_lr")) snprintf(buf, sizeof buf, "%g", o->lr);
    else if (!strcmp(name, "train_steps")) snprintf(buf, sizeof buf, "%d", o->steps);
    else if (!strcmp(name, "train_seed")) snprintf(buf, sizeof buf, "%lu", (unsigned long)o->seed);
    else if (!strcmp(name, "train_focus")) snprintf(buf, sizeof buf, "%s", options[t->focus]);
    else if (!strcmp(name, "train_pending")) snprintf(buf, sizeof buf, "%d", !same_opts(&t->chosen, &t->opts));
    else if (!strcmp(name, "train_heldout")) { // as --train prints it
        if (last) snprintf(buf, sizeof buf, "%.1f%%", 100.0 * last->accuracy);
        else snprintf(buf, sizeof buf, "none");
    } else if (!strcmp(name, "train_heldout_exact")) {
        if (last) snprintf(buf, sizeof buf, "%.17g", last->accuracy);
        else snprintf(buf, sizeof buf, "none");
    } else if (!strcmp(name, "train_points")) snprintf(buf, sizeof buf, "%d", t->n_seen);
    else if (!strcmp(name, "train_snapshots")) snprintf(buf, sizeof buf, "%d", t->snaps_seen);
    else if (!strcmp(name, "train_scrub")) {
        if (t->scrub < 0) snprintf(buf, sizeof buf, "live");
        else snprintf(buf, sizeof buf, "%d", t->snap_steps[t->scrub]);
    } else if (!strcmp(name, "train_shown_step")) snprintf(buf, sizeof buf, "%d", t->scrub >= 0 ? t->snap_steps[t->scrub] : t->live_step);
    else if (!strcmp(name, "train_probe")) snprintf(buf, sizeof buf, "%s", t->probe ? t->probe : "");
    else if (!strcmp(name, "train_saved")) snprintf(buf, sizeof buf, "%s", t->saved[0] ? t->saved : "none");
    else if (!strcmp(name, "train_updates")) snprintf(buf, sizeof buf, "%ld", t->updates_training);
    else if (!strcmp(name, "train_update_rate")) // heatmap refreshes per second while training, with the view open and live
        snprintf(buf, sizeof buf, "%.1f", t->training_ms > 0 ? t->updates_training * 1000.0 / t->training_ms : 0.0);
    else if (!strcmp(name, "train_eval_share")) {
        SDL_LockMutex(t->lock);
        double share = t->step_s > 0 ? t->eval_s / t->step_s : 0; // the evaluations' cost against the training's
        SDL_UnlockMutex(t->lock);
        snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
    } else if (!strcmp(name, "train_finish_ms")) {
        SDL_LockMutex(t->lock);
        snprintf(buf, sizeof buf, "%.1f", 1000.0 * t->finish_s);
        SDL_UnlockMutex(t->lock);
    } else if (!strcmp(name, "train_error")) snprintf(buf, sizeof buf, "%s", t->error[0] ? t->error : "none");
    else return NULL;
    return strdup(buf);
}
