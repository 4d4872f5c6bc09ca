/* app_hf.c — floor 1 of src/app, the real model's part (declared in app.h):
 * a GPT-2 from a Hugging Face folder in the walkthrough (--hf DIR, issue 26).
 *
 * The run is src/hf's hf_forward; the layer shown is handed to everything
 * that draws, explains and exports a trace as st->src.trace, made by
 * hf_trace_layer (src/hf/hf_trace.h). A new sentence is tokenized at once
 * (a refusal is said at once, as for any sentence) and computed on a worker
 * thread; the trace shown stays the last finished run's, with a notice,
 * until app_hf_poll publishes the new one between frames. The browser has
 * no threads here: there the same job runs as slices of the frames
 * (platform.h's jobs), one transformer block per slice, so the page stays
 * responsive while GPT-2 small computes. The first run of a model opened by
 * --hf at start is computed at once; one opened by the browser's picker or
 * a lesson page is computed as a sentence edited is. */
#include "app.h"

#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_heads.h"
#include "hf_model.h"
#include "hf_trace.h"
#include "platform.h"
#include "strbuf.h"
#include "utf8.h"

struct app_hf {
    hf_model m;
    hf_tokens toks;        /* the run's tokens */
    char *text;            /* the sentence they were made from (their bytes index it) */
    hf_run r;              /* the last finished run */
    hf_head_score *scores; /* its heads' scores (n_layer·n_head), or NULL */
    double *score_v[3];    /* each score by head, for the view */
    int *order[3];         /* the heads by each score */
    double *grid;          /* the model view's rows (viz_hf.grid), computed for grid_query, grid_hide */
    int grid_query;
    bool grid_hide, grid_valid;
    viz_hf view;           /* what the scene shows */
    int open_field;        /* an @hf page: once its run is published, open the best head by this score (hf_heads.h), or -1 */
    double open_min;       /* when its score reaches this */
    bool first_run;        /* the model's first run, not yet published: its query is then the last token, as --hf's */
    struct app_hf *prev;   /* until then, the model before whose run the trace shown borrows (then freed), or NULL */
    char *sentence_before; /* until then, the sentence shown before this model came */
    /* the worker */
    plat_job *job; /* the computation: a thread on the desktop, slices of the frames in the browser */
    /* the browser's slices: where the job is (0 begin, 1 the sentence's blocks, 2 begin and 3 the blocks of
     * the head finder's sequence), its forward in pieces, and that sequence's run and half length */
    int phase;
    hf_forward_job fj;
    hf_run rep;
    int rep_t;
    SDL_atomic_t done;
    SDL_atomic_t stop; /* set when the sentence is replaced: the thread stops after the block it is in */
    bool pending;      /* a job started on the thread is not yet published */
    hf_tokens job_toks;
    char *job_text; /* job_toks' sentence */
    hf_run job_r;
    hf_head_score *job_scores;
    attn_status job_st;
    attn_err job_err;
};

/* Frees what h holds (its job was waited for) and h; not the trace shown. NULL is a no-op. */
static void drop(app_hf *h) {
    if (!h) return;
    hf_run_free(&h->job_r);
    hf_tokens_free(&h->job_toks);
    free(h->job_text);
    free(h->text);
    free(h->job_scores);
    free(h->scores);
    free(h->grid);
    for (int k = 0; k < 3; k++) {
        free(h->score_v[k]);
        free(h->order[k]);
    }
    hf_run_free(&h->r);
    hf_tokens_free(&h->toks);
    hf_model_free(&h->m);
    free(h->sentence_before);
    free(h);
}

/* The next tokens' labels and probabilities, for the scene. */
/* The runs of tokens that are pieces of the same characters (hf_token's
 * char_start/char_end), and those characters, for the chips (viz_hf). */
static void fill_pieces(viz_hf *v, const hf_tokens *toks, const char *text) {
    v->has_pieces = false;
    for (int i = 0; i < toks->count && i < ATTN_TRACE_MAX_TOKENS; i++) {
        const hf_token *t = &toks->v[i];
        v->piece_first[i] = -1;
        v->piece_text[i][0] = '\0';
        if (!text || (t->char_start == t->start && t->char_end == t->end)) continue;
        const hf_token *prev = i > 0 ? &toks->v[i - 1] : NULL;
        if (prev && v->piece_first[i - 1] >= 0 && prev->char_start == t->char_start && prev->char_end == t->char_end) {
            v->piece_first[i] = v->piece_first[i - 1]; // one more piece of the same characters
            continue;
        }
        v->piece_first[i] = (short)i;
        size_t len = t->char_end - t->char_start;
        if (len >= sizeof v->piece_text[i]) len = 0; // too many characters to write over the chips
        memcpy(v->piece_text[i], text + t->char_start, len);
        v->piece_text[i][len] = '\0';
        v->has_pieces = true;
    }
}

static void fill_view(app_hf *h) {
    h->view.layers = h->m.cfg.n_layer;
    h->view.vocab = h->m.cfg.vocab_size;
    h->view.next_count = h->r.next_count < VIZ_HF_NEXT ? h->r.next_count : VIZ_HF_NEXT;
    for (int i = 0; i < h->view.next_count; i++) {
        char *lab = hf_model_piece_label(&h->m, h->r.next_id[i]);
        snprintf(h->view.next_label[i], sizeof h->view.next_label[i], "%s", lab ? lab : "?");
        utf8_trim_partial(h->view.next_label[i]);
        free(lab);
        h->view.next_p[i] = h->r.next_p[i];
    }
    fill_pieces(&h->view, &h->toks, h->text);
}

/* Makes layer st->model.layer of the run the trace shown (the settings follow it). */
static attn_status show_layer(app_state *st, attn_err *err) {
    app_hf *h = st->hf;
    attn_trace t = {0};
    if (st->model.layer >= h->m.cfg.n_layer) st->model.layer = h->m.cfg.n_layer - 1;
    if (h->r.n == 0) return ATTN_OK; // no run yet: the layer chosen is shown when the first is published
    attn_status rc = hf_trace_layer(&t, &h->m, &h->r, &h->toks, st->model.layer, err);
    if (rc != ATTN_OK) return rc;
    attn_trace_free(&st->src.trace);
    attn_trace_free(&st->src.alt);
    st->src.trace = t;
    st->src.cfg = t.cfg;                                                           // the model's own: shown, not offered
    if (st->view.compare != VIZ_COMPARE_HEADS) st->view.compare = VIZ_COMPARE_OFF; // one model, one sentence
    app_hover(st, st->view.hover);
    st->lesson.narrative_stale = true;
    st->dirty = true;
    return ATTN_OK;
}

/* An @hf page's first view: the head its first {heads …} names first, when one reaches the threshold. */
static void open_best(app_state *st) {
    app_hf *h = st->hf;
    int count = h->m.cfg.n_layer * h->m.cfg.n_head, *order = malloc(sizeof *order * (size_t)count);
    int field = h->open_field;
    h->open_field = -1; // once: the learner's own choice of layer and head stays after that
    if (!order) return;
    hf_head_rank(h->scores, count, field, order);
    if (hf_head_score_get(&h->scores[order[0]], field) >= h->open_min) {
        app_hf_open_head(st, order[0]);
        app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE}); // a cell hovered before was of the page's layer and head
    }
    free(order);
}

/* The end of the browser's job: the run and, if they could be had, the scores. */
static plat_slice slice_done(app_hf *h) {
    hf_forward_job_free(&h->fj);
    hf_run_free(&h->rep);
    SDL_AtomicSet(&h->done, 1);
    return PLAT_SLICE_DONE;
}

/* One piece of work's job for a frame of the browser, which has no threads:
 * one block of a forward at most (GPT-2 small: about a twelfth of it). */
static plat_slice work_slice(void *arg) {
    app_hf *h = arg;
    bool done = false;
    attn_err ignore;
    switch (h->phase) {
    case 0: { // the sentence's forward begins
        int n = h->job_toks.count, *ids = malloc(sizeof *ids * (size_t)(n > 0 ? n : 1));
        if (!ids) {
            h->job_st = attn_fail(&h->job_err, ATTN_ERR_NOMEM, "Not enough memory for the sentence's ids.");
            return slice_done(h);
        }
        for (int i = 0; i < n; i++) ids[i] = h->job_toks.v[i].id;
        h->job_st = hf_forward_begin(&h->fj, &h->job_r, &h->m, ids, n, &h->job_err);
        free(ids);
        h->phase = 1;
        return h->job_st == ATTN_OK ? PLAT_SLICE_MORE : slice_done(h);
    }
    case 1: // one block of it
        h->job_st = hf_forward_step(&h->fj, &done, &h->job_err);
        if (h->job_st != ATTN_OK) return slice_done(h);
        if (done) h->phase = 2;
        return PLAT_SLICE_MORE;
    case 2: { // the head finder's sequence r r begins (the finder waits if it cannot: the run stands)
        free(h->job_scores);
        h->job_scores = NULL;
        h->rep_t = hf_induction_len(&h->m, HF_INDUCTION_LEN);
        int *ids = h->rep_t >= 1 ? malloc(sizeof *ids * (size_t)(2 * h->rep_t)) : NULL;
        if (!ids) return slice_done(h);
        hf_induction_ids(ids, h->rep_t, h->m.cfg.vocab_size, HF_INDUCTION_SEED);
        memcpy(ids + h->rep_t, ids, sizeof *ids * (size_t)h->rep_t);
        attn_status st = hf_forward_begin(&h->fj, &h->rep, &h->m, ids, 2 * h->rep_t, &ignore);
        free(ids);
        h->phase = 3;
        return st == ATTN_OK ? PLAT_SLICE_MORE : slice_done(h);
    }
    default: // one block of it, then the scores
        if (hf_forward_step(&h->fj, &done, &ignore) != ATTN_OK) return slice_done(h);
        if (!done) return PLAT_SLICE_MORE;
        h->job_scores = malloc(sizeof *h->job_scores * (size_t)h->m.cfg.n_layer * (size_t)h->m.cfg.n_head);
        if (h->job_scores) hf_head_scores_from(&h->job_r, &h->rep, h->rep_t, h->job_scores);
        return slice_done(h);
    }
}

/* The worker thread (or the call itself, when at once): work_slice's pieces
 * one after another, so a sentence replaced while it runs (stop) is given up
 * after the block in progress instead of holding the window until its end. */
static int work(void *arg) {
    app_hf *h = arg;
    while (work_slice(h) == PLAT_SLICE_MORE)
        if (SDL_AtomicGet(&h->stop)) { // given up: its pieces go in stop_job
            h->job_st = ATTN_ERR_INPUT;
            SDL_AtomicSet(&h->done, 1);
            break;
        }
    return 0;
}

/* Takes a finished job's run as the one shown (the trace first: it borrows the run). */
static attn_status publish(app_state *st, attn_err *err) {
    app_hf *h = st->hf;
    hf_run old_r = h->r;
    hf_tokens old_t = h->toks;
    h->r = h->job_r;
    h->toks = h->job_toks;
    memset(&h->job_r, 0, sizeof h->job_r);
    memset(&h->job_toks, 0, sizeof h->job_toks);
    attn_status rc = show_layer(st, err);
    if (rc != ATTN_OK) { // the run before stays shown
        hf_run_free(&h->r);
        hf_tokens_free(&h->toks);
        h->r = old_r;
        h->toks = old_t;
        free(h->job_text);
        h->job_text = NULL;
        return rc;
    }
    free(h->text);
    h->text = h->job_text;
    h->job_text = NULL;
    drop(h->prev); // the trace no longer borrows its run
    h->prev = NULL;
    free(h->sentence_before);
    h->sentence_before = NULL;
    hf_run_free(&old_r);
    hf_tokens_free(&old_t);
    free(h->scores);
    h->scores = h->job_scores;
    h->job_scores = NULL;
    h->grid_valid = false;
    fill_view(h);
    app_hf_notice(st, st->src.notice, sizeof st->src.notice); // how GPT-2 read it (character pieces)
    if (st->view.query >= st->src.trace.n) st->view.query = st->src.trace.n - 1;
    if (h->first_run) { // the query shown was found in the tokens before, not the model's
        h->first_run = false;
        st->view.query = st->src.trace.n - 1;
    }
    if (h->open_field >= 0 && h->scores) open_best(st);
    return ATTN_OK;
}

/* Gives up the sentence being computed: a thread stops after its block (and
 * is waited for), the browser's job is dropped; their pieces go. */
static void stop_job(app_state *st) {
    app_hf *h = st->hf;
    if (!h || !h->job) return;
    SDL_AtomicSet(&h->stop, 1); // a thread stops after its block; the browser's job, unfinished, is given up
    plat_job_wait(h->job);
    h->job = NULL;
    hf_forward_job_free(&h->fj);
    hf_run_free(&h->rep);
}

bool app_hf_busy(const app_state *st) { return st->hf && st->hf->pending; }

void app_hf_finish(app_state *st) {
    app_hf *h = st->hf;
    if (!h || !h->pending) return;
    while (!SDL_AtomicGet(&h->done) && plat_jobs_advance(50.0)) { // the browser's slices, here
    }
    while (!SDL_AtomicGet(&h->done)) SDL_Delay(1); // a thread's, by themselves
    app_hf_poll(st);
}

/* A model's first run failed (or could not be shown): the model before comes
 * back as it was, its run still shown; or, when there was none, the model
 * goes and the sentence before is computed again on its own. */
static void first_run_failed(app_state *st) {
    app_hf *h = st->hf, *prev = h->prev;
    char *sentence = h->sentence_before;
    h->sentence_before = NULL;
    stop_job(st);
    if (prev) {
        h->prev = NULL;
        drop(h);
        st->hf = prev;
    } else app_hf_free(st);
    if (sentence) {
        free(st->src.sentence);
        st->src.sentence = sentence;
    }
    attn_err err;
    if (!prev) app_recompute(st); // with its own notice
    else {
        if (show_layer(st, &err) != ATTN_OK) app_status_err(st, &err); // the layer the rail names, not the last shown
        app_hf_notice(st, st->src.notice, sizeof st->src.notice);
    }
    st->dirty = true;
}

bool app_hf_poll(app_state *st) {
    app_hf *h = st->hf;
    if (!h || !h->pending || !SDL_AtomicGet(&h->done)) return false;
    stop_job(st);
    h->pending = false;
    h->view.computing = false;
    app_hf_notice(st, st->src.notice, sizeof st->src.notice); // no longer computing; how GPT-2 read it
    attn_err err = h->job_err;
    attn_status rc = h->job_st;
    if (rc != ATTN_OK) {
        hf_run_free(&h->job_r);
        hf_tokens_free(&h->job_toks);
    } else rc = publish(st, &err);
    if (rc != ATTN_OK) {
        app_status_err(st, &err);
        if (h->first_run) first_run_failed(st);
    }
    st->dirty = true;
    return true;
}

/* Starts computing toks (taken), made from text; synchronous where there are no threads, or when sync. */
static attn_status start(app_state *st, hf_tokens *toks, const char *text, bool sync, attn_err *err) {
    app_hf *h = st->hf;
    stop_job(st); // a sentence still computing is replaced: its result would be stale at once
    h->pending = false;
    hf_run_free(&h->job_r);
    hf_tokens_free(&h->job_toks);
    free(h->job_text);
    h->job_text = strdup(text); // NULL when memory runs out: the chips then show pieces without their characters
    h->job_toks = *toks;
    memset(toks, 0, sizeof *toks);
    SDL_AtomicSet(&h->done, 0);
    SDL_AtomicSet(&h->stop, 0);
    h->phase = 0;
    if (!sync) { // a thread on the desktop; in the browser, a block per frame (work_slice)
        plat_job_def def = {"attnviz-hf", work, work_slice, h};
        h->job = plat_job_start(&def);
        if (h->job) {
            h->pending = true;
            h->view.computing = true;
            st->dirty = true;
            return ATTN_OK;
        }
    }
    work(h);
    if (h->job_st != ATTN_OK) {
        *err = h->job_err;
        hf_run_free(&h->job_r);
        hf_tokens_free(&h->job_toks);
        return h->job_st;
    }
    return publish(st, err);
}

attn_status app_hf_compute(app_state *st, const char *text, attn_err *err) {
    app_hf *h = st->hf;
    hf_tokens toks = {0};
    attn_status rc = hf_model_tokenize(&h->m, text, strlen(text), false, &toks, err);
    if (rc == ATTN_OK) rc = start(st, &toks, text, false, err);
    hf_tokens_free(&toks);
    return rc;
}

/* The model st->hf before another is opened, taken out of st: the one whose
 * run the trace shown borrows (its job given up), or NULL; any other goes. */
static app_hf *take_shown(app_state *st) {
    app_hf *h = st->hf;
    if (!h) return NULL;
    stop_job(st);
    st->hf = NULL;
    app_hf *keep = h->r.n > 0 ? h : h->prev;
    if (keep != h) {
        h->prev = NULL;
        drop(h);
    }
    if (keep) { // its unfinished sentence is given up; it is shown as it was until the new run comes
        keep->pending = keep->view.computing = false;
        hf_run_free(&keep->job_r);
        hf_tokens_free(&keep->job_toks);
    }
    return keep;
}

/* app_hf_open's and app_hf_open_page's: the forward on the worker unless
 * sync. The folder and the sentence's tokens are checked before anything
 * changes, so a refusal leaves the model or view before as it was. */
static attn_status open_model(app_state *st, const char *dir, const char *sentence, const char *bpe_default,
                              const char *wordpiece_default, bool sync, int open_field, double open_min,
                              attn_err *err) {
    app_hf *h = calloc(1, sizeof *h);
    if (!h) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the model.");
    attn_status rc = hf_model_open(&h->m, dir, err);
    if (rc != ATTN_OK) {
        free(h);
        return rc;
    }
    if (!sentence) sentence = h->m.bpe ? bpe_default : wordpiece_default;
    hf_tokens toks = {0};
    char *copy = NULL;
    rc = hf_model_tokenize(&h->m, sentence, strlen(sentence), false, &toks, err);
    if (rc == ATTN_OK && (!(copy = strdup(sentence)) ||
                          !(h->sentence_before = strdup(st->src.sentence ? st->src.sentence : ""))))
        rc = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the sentence.");
    if (rc != ATTN_OK) {
        hf_tokens_free(&toks);
        free(copy);
        drop(h);
        return rc;
    }
    h->prev = take_shown(st);
    st->hf = h;
    h->open_field = open_field, h->open_min = open_min, h->first_run = true;
    st->model.layer = 0; // before the run is published: a page's best head (open_best) may change them
    st->model.readout = false;
    st->view.head = 0;
    rc = start(st, &toks, sentence, sync, err);
    hf_tokens_free(&toks);
    if (rc != ATTN_OK) {
        free(copy);
        first_run_failed(st);
        return rc;
    }
    free(st->src.sentence);
    st->src.sentence = copy;
    st->view.query = st->src.trace.n - 1;                     // the next token is read at the last: start there
    app_hf_notice(st, st->src.notice, sizeof st->src.notice); // computing, or how GPT-2 read it
    return ATTN_OK;
}

attn_status app_hf_open(app_state *st, const char *dir, const char *sentence, const char *bpe_default,
                        const char *wordpiece_default, bool wait, attn_err *err) {
    attn_status rc = open_model(st, dir, sentence, bpe_default, wordpiece_default, wait, -1, 0.0, err);
    if (rc == ATTN_OK)
        app_status(st, app_str(st, VIZ_S_HF_OPENED), dir, st->hf->m.cfg.n_layer, st->hf->m.cfg.n_head, st->hf->m.cfg.n_embd);
    return rc;
}

attn_status app_hf_open_page(app_state *st, const char *dir, const char *sentence, int open_field, double open_min,
                             attn_err *err) {
    return open_model(st, dir, sentence, sentence, sentence, false, open_field, open_min, err);
}

void app_hf_page_heads(const app_state *st, page_hf *out) {
    memset(out, 0, sizeof *out);
    const app_hf *h = st->hf;
    if (!h || (!h->pending && h->r.n == 0)) return; // none, or its run refused (said in the status line)
    out->n_head = h->m.cfg.n_head;
    out->count = h->m.cfg.n_layer * h->m.cfg.n_head;
    out->scores = h->pending ? NULL : h->scores; // the run shown is the last sentence's while computing
}

attn_status app_hf_show_layer(app_state *st, attn_err *err) { return st->hf ? show_layer(st, err) : ATTN_OK; }

bool app_hf_toggle_models(app_state *st) {
    if (!st->hf) {
        app_status(st, "%s", app_str(st, VIZ_S_HF_NO_MODELS));
        return false;
    }
    st->hf->view.show_models = !st->hf->view.show_models;
    if (st->view.hover.kind == VIZ_HIT_CELL) app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    st->dirty = true;
    return st->hf->view.show_models;
}

bool app_hf_models_shown(const app_state *st) { return st->hf && st->hf->view.show_models; }

void app_hf_toggle_hide(app_state *st) {
    if (!st->hf) return;
    st->hf->view.hide_first = !st->hf->view.hide_first;
    st->dirty = true;
}

void app_hf_open_head(app_state *st, int id) {
    app_hf *h = st->hf;
    if (!h || id < 0 || id >= h->m.cfg.n_layer * h->m.cfg.n_head) return;
    int l = id / h->m.cfg.n_head, old = st->model.layer;
    st->model.layer = l;
    st->model.readout = false;
    attn_err err;
    if (l != old && show_layer(st, &err) != ATTN_OK) {
        st->model.layer = old;
        app_status_err(st, &err);
        return;
    }
    st->view.head = id % h->m.cfg.n_head;
    st->view.step = ATTN_STEP_SOFTMAX;
    h->view.show_models = false;
    st->dirty = true;
}

/* The model view's rows and the finder's columns, for the query and toggle shown. */
static void refresh_grid(app_state *st) {
    app_hf *h = st->hf;
    int L = h->r.n_layer, H = h->r.n_head, n = h->r.n, q = st->view.query;
    if (q < 0 || q >= n) q = n - 1;
    size_t count = (size_t)L * H;
    if (!h->grid_valid || h->grid_query != q || h->grid_hide != h->view.hide_first) {
        free(h->grid);
        h->grid = malloc(sizeof(double) * count * (size_t)n);
        double *scratch = h->view.hide_first ? malloc(sizeof(double) * (size_t)n * (size_t)n) : NULL;
        for (int l = 0; h->grid && l < L; l++)
            for (int k = 0; k < H; k++) {
                const double *a = h->r.layer[l].head[k].weights;
                double *row = h->grid + ((size_t)l * H + k) * (size_t)n;
                if (scratch) { // hf_hide_first: the one definition of the renormalised view
                    hf_hide_first(a, n, scratch);
                    a = scratch;
                }
                memcpy(row, a + (size_t)q * n, sizeof(double) * (size_t)n);
            }
        free(scratch);
        h->grid_query = q, h->grid_hide = h->view.hide_first, h->grid_valid = h->grid != NULL;
        for (int k = 0; k < 3; k++) { // the finder's columns
            free(h->score_v[k]);
            free(h->order[k]);
            h->score_v[k] = h->scores ? malloc(sizeof(double) * count) : NULL;
            h->order[k] = h->scores ? malloc(sizeof(int) * count) : NULL;
            if (!h->score_v[k] || !h->order[k]) continue;
            for (size_t i = 0; i < count; i++) h->score_v[k][i] = hf_head_score_get(&h->scores[i], k);
            hf_head_rank(h->scores, (int)count, k, h->order[k]);
        }
    }
    h->view.heads = H;
    h->view.grid = h->grid_valid ? h->grid : NULL;
    h->view.induction_len = hf_induction_len(&h->m, HF_INDUCTION_LEN);
    for (int k = 0; k < 3; k++) {
        h->view.scores[k] = h->score_v[k];
        h->view.order[k] = h->order[k];
    }
}

void app_hf_hover(app_state *st, viz_hit hit) {
    app_hf *h = st->hf;
    if (!h) return;
    h->view.ln_valid = false;
    if (hit.kind != VIZ_HIT_CELL || hit.stage != ATTN_ST_X) return;
    hf_ln_explanation e;
    if (hf_explain_ln1(&e, &h->m, &h->r, st->model.layer, hit.row, hit.col, NULL) != ATTN_OK) return;
    h->view.ln_valid = true;
    h->view.ln_width = e.width;
    h->view.ln_x = e.x, h->view.ln_mean = e.mean, h->view.ln_var = e.var, h->view.ln_eps = e.eps;
    h->view.ln_w = e.w, h->view.ln_b = e.b, h->view.ln_value = e.value;
}

char *app_hf_next_tsv(const app_state *st, char *what, size_t what_cap) {
    const app_hf *h = st->hf;
    if (!h) return NULL;
    snprintf(what, what_cap, "next");
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "next\tid\tp\n");
    for (int i = 0; i < h->r.next_count; i++) {
        attn_sb_printf(&b, "%s\t%d\t", h->view.next_label[i], h->r.next_id[i]);
        attn_sb_number(&b, h->r.next_p[i]);
        attn_sb_puts(&b, "\n");
    }
    return attn_sb_take(&b);
}

const char *app_hf_dir(const app_state *st) { return st->hf ? st->hf->m.dir : NULL; }

const char *app_hf_name(const app_state *st) {
    if (!st->hf || !st->hf->m.dir) return NULL;
    const char *d = st->hf->m.dir, *slash = strrchr(d, '/');
    while (slash && slash[1] == '\0' && slash > d) { // "gpt2/": the name before the slash
        const char *p = slash - 1;
        while (p > d && *p != '/') p--;
        return *p == '/' ? p + 1 : p;
    }
    return slash ? slash + 1 : d;
}

int app_hf_layers(const app_state *st) { return st->hf ? st->hf->m.cfg.n_layer : 0; }

const viz_hf *app_hf_view(app_state *st) {
    if (!st->hf || st->hf->r.n == 0) return NULL; // no run yet: the view before, with the computing notice
    if (st->hf->view.show_models) refresh_grid(st);
    return &st->hf->view;
}

void app_hf_notice(const app_state *st, char *out, size_t cap) {
    out[0] = '\0';
    const app_hf *h = st->hf;
    if (!h) return;
    if (h->view.computing) {
        snprintf(out, cap, app_str(st, VIZ_S_HF_COMPUTING), h->m.cfg.n_layer);
        return;
    }
    // GPT-2's bytes: a character split into pieces (Chinese, emoji) is said once
    int pieces = 0;
    for (int i = 0; i < h->toks.count; i++) {
        const hf_token *t = &h->toks.v[i];
        pieces += t->char_start != t->start || t->char_end != t->end;
    }
    if (h->m.bpe && pieces * 3 >= h->toks.count && pieces > 0)
        snprintf(out, cap, app_str(st, VIZ_S_HF_PIECES), h->toks.count, pieces);
}

void app_hf_free(app_state *st) {
    app_hf *h = st->hf;
    if (!h) return;
    stop_job(st);
    if (h->r.n > 0 || h->prev) attn_trace_free(&st->src.trace); // it borrows a run of this model's or the one before
    drop(h->prev);
    drop(h);
    st->hf = NULL;
}
