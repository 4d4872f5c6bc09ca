/* app.c — floor 1 of src/app: the state and its compute pipeline (traces,
 * the model's run, the notice, the hovered cell's explanation). Nothing here
 * calls a higher floor: what a higher floor derives from a new trace (the
 * lesson's narrative) is marked stale and rebuilt when the scene is built. */
#include "app.h"
#include "attn_steps.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "strbuf.h"
#include "utf8.h"

#define SEED_SENTENCE "这只动物没看见那只鸟，因为它飞得太快了。"

const char *app_str(const app_state *st, viz_str id) {
    const char *s = st->look.strings ? st->look.strings->s[st->look.lang][id] : NULL;
    return s ? s : viz_str_key(id);
}

void app_status(app_state *st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->look.status, sizeof st->look.status, fmt, ap);
    va_end(ap);
    utf8_trim_partial(st->look.status); // a long path or sentence is cut between characters
    st->dirty = true;
}

viz_origin app_origin(const app_state *st) {
    if (st->hf) return (viz_origin){.kind = VIZ_FROM_FILE, .name = app_hf_name(st)}; // the folder's weights
    const model *m = st->model.m;
    if (m) // trained here, or read from a file
        return (viz_origin){VIZ_FROM_MODEL, st->model.source == APP_MODEL_FILE ? st->model.name : NULL, 0,
                            m->task, m->training.steps, m->training.seed};
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    if (st->src.weights == APP_WEIGHTS_DESIGN && pg)
        return (viz_origin){.kind = VIZ_FROM_LESSON, .name = app_lesson_path(st), .gain = pg->random_weights ? pg->gain : 0};
    if (st->src.weights == APP_WEIGHTS_FILE) return (viz_origin){.kind = VIZ_FROM_FILE, .name = st->src.weights_name};
    return (viz_origin){.kind = VIZ_FROM_NONE};
}

void app_badge(const app_state *st, char *out, size_t cap) {
    viz_badge(out, cap, st->look.strings ? st->look.strings->s[st->look.lang] : NULL, app_trace(st), app_origin(st));
    utf8_trim_partial(out); // a long file name is cut between characters
}

/* The weights for text under cfg: the lesson page's designs that fit cfg, the
 * file's matrices (an error when they do not fit), or none (*out NULL). */
static attn_status weights_for(app_state *st, const char *text, const attn_config *cfg, attn_weights *storage,
                               const attn_weights **out, attn_err *err) {
    *out = NULL;
    const lesson *l = app_lesson(st);
    if (st->src.weights == APP_WEIGHTS_DESIGN && l) {
        lesson_page_weights(l, st->lesson.page, cfg, storage);
        *out = storage;
        return ATTN_OK;
    }
    if (st->src.weights != APP_WEIGHTS_FILE) return ATTN_OK;
    attn_tokens toks = {0};
    attn_wordlist words = attn_vocab_words(st->src.vocab);
    attn_status rc = attn_tokenize(&toks, text, strlen(text), st->src.vocab ? &words : NULL, err);
    int n = toks.n;
    attn_tokens_free(&toks);
    if (rc == ATTN_OK) rc = attn_weights_file_bind(storage, &st->src.wfile, cfg, n, st->src.weights_name, err);
    int h, first, m;
    if (rc == ATTN_ERR_SHAPE && attn_weights_group_conflict(storage, cfg, &h, &first, &m)) { // said in the UI's language
        const char *key = attn_matrix_name((attn_matrix)m);
        int g = attn_kv_heads(cfg);
        attn_fail(err, rc, app_str(st, VIZ_S_WEIGHTS_GROUP), st->src.weights_name, h, key, first, key, g, first,
                  first + cfg->heads / g - 1);
    }
    if (rc == ATTN_OK) *out = storage;
    return rc;
}

/* text under cfg into *out, with the weights of the current source. */
static attn_status run(app_state *st, attn_trace *out, const char *text, const attn_config *cfg, attn_err *err) {
    attn_weights storage;
    const attn_weights *w;
    attn_status rc = weights_for(st, text, cfg, &storage, &w, err);
    return rc == ATTN_OK ? attn_trace_run(out, text, strlen(text), cfg, st->src.vocab, w, err) : rc;
}

/* The configuration the second view of a comparison shows, or NULL. */
static bool compare_config(const app_state *st, const attn_config *cfg, attn_config *out) {
    *out = *cfg;
    if (st->view.compare == VIZ_COMPARE_SCALE) out->scale = !cfg->scale;
    else if (st->view.compare == VIZ_COMPARE_CONFIG) attn_config_apply_changes(out, &st->src.compare_base, &st->src.compare_cfg);
    else return false;
    return true;
}

/* Matrices of t that were supplied (not seeded). */
static int given_count(const attn_trace *t) {
    int n = 0;
    for (int m = 0; m < ATTN_MAT_COUNT; m++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++) n += t->given[m][h];
    return n;
}

/* The second view of a comparison with a model: the layer shown, its X and
 * weights, with the scaling toggled. */
static attn_status compare_layer(app_state *st, const char *text, attn_trace *out, attn_err *err) {
    const model *m = st->model.m;
    const attn_trace *t = &st->model.run.layer[st->model.layer];
    attn_weights w;
    memset(&w, 0, sizeof w);
    w.x = t->x;
    for (int mt = 0; mt < ATTN_MAT_COUNT; mt++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++) w.mat[mt][h] = m->w.layer[st->model.layer].mat[mt][h];
    attn_config c = t->cfg;
    c.scale = !c.scale;
    attn_vocab v;
    model_vocab_view(m, &v);
    return attn_trace_run(out, text, strlen(text), &c, &v, &w, err);
}

/* With a model: runs text through it (with the backward pass's target) and,
 * on success, makes the run current; on error nothing changes. */
static attn_status model_compute(app_state *st, const char *text, attn_err *err) {
    const model *m = st->model.m;
    model_result r;
    memset(&r, 0, sizeof r);
    bool labelled = false;
    attn_status rc = model_run_view(&r, m, text, strlen(text), st->view.query, &labelled, err);
    if (rc != ATTN_OK) return rc;
    model_result_free(&st->model.run);
    st->model.run = r;
    st->model.target_labelled = labelled;
    if (st->model.layer >= m->cfg.layers) st->model.layer = m->cfg.layers - 1;
    attn_trace_free(&st->src.alt);
    if (st->view.compare == VIZ_COMPARE_SCALE && compare_layer(st, text, &st->src.alt, err) != ATTN_OK)
        st->view.compare = VIZ_COMPARE_OFF; // the main view stands; only the comparison is dropped
    model_result_free(&st->model.pair_run);
    memset(&st->model.pair_run, 0, sizeof st->model.pair_run);
    if (st->view.compare == VIZ_COMPARE_SENTENCE) { // the other sentence through the same model
        attn_err ignored;
        bool pair_labelled = false;
        if (!st->src.pair || model_run_view(&st->model.pair_run, m, st->src.pair, strlen(st->src.pair), -1,
                                            &pair_labelled, &ignored) != ATTN_OK) {
            model_result_free(&st->model.pair_run);
            memset(&st->model.pair_run, 0, sizeof st->model.pair_run);
            st->view.compare = VIZ_COMPARE_OFF; // a sentence the model cannot read: the main view stands
        }
    }
    model_attn_config(&st->src.cfg, &m->cfg);
    st->src.cfg.seed = m->training.seed;
    return ATTN_OK;
}

/* The canvas notice: the page's design no longer fits the settings. */
static void update_notice(app_state *st) {
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    if (st->hf) { // computing, or how GPT-2 reads the sentence
        app_hf_notice(st, st->src.notice, sizeof st->src.notice);
        return;
    }
    if (st->src.weights == APP_WEIGHTS_FILE || st->model.m) st->src.notice[0] = '\0';
    if (st->src.weights != APP_WEIGHTS_DESIGN || !pg || st->model.m) return;
    st->src.notice[0] = '\0';
    if (pg->random_weights) return; // seeded weights × a gain: nothing designed to lose
    attn_weights w;
    int designed = lesson_page_weights(l, st->lesson.page, &pg->cfg, &w), used = given_count(&st->src.trace);
    if (used < designed)
        snprintf(st->src.notice, sizeof st->src.notice, app_str(st, VIZ_S_NOTICE_DESIGN_DROPPED), pg->cfg.d_model, pg->cfg.d_k,
                 pg->cfg.heads, designed - used, designed, (unsigned)st->src.cfg.seed);
}

/* After a new trace: the selection, heads and texts that depend on it. */
static void computed(app_state *st) {
    const attn_trace *t = app_trace(st);
    const attn_config *cfg = &st->src.cfg;
    st->look.status[0] = '\0'; // what it said was about the state before (an action may say something new)
    if (st->view.query >= t->n) st->view.query = t->n - 1;
    if (!attn_step_shown(st->view.step, &t->cfg)) st->view.step = attn_step_next(st->view.step, -1, &t->cfg); // 2b, RoPE off
    if (st->view.head >= cfg->heads) st->view.head = cfg->heads - 1;
    if (st->view.head_b >= cfg->heads) st->view.head_b = cfg->heads - 1;
    if (st->view.compare == VIZ_COMPARE_HEADS && cfg->heads < 2) st->view.compare = VIZ_COMPARE_OFF; // one head: nothing to compare
    update_notice(st);
    st->lesson.narrative_stale = true; // its numbers are the new trace's: rebuilt with the scene
    app_hover(st, st->view.hover);     // the hovered cell may have moved or vanished
    st->dirty = true;
}

void app_msg_text(const app_state *st, int lang, attn_msg id, const char (*args)[128], char *out, size_t cap) {
    const char *t = st->look.strings && id > ATTN_MSG_NONE && id < ATTN_MSG_COUNT ? st->look.strings->s[lang][viz_msg_str(id)] : NULL;
    attn_msg_format(out, cap, t ? t : attn_msg_english(id), args, ATTN_MSG_ARGS);
}

void app_err_text(const app_state *st, const attn_err *err, char *out, size_t cap) {
    viz_err_text(out, cap, st->look.strings, st->look.lang, err);
}

void app_status_err(app_state *st, const attn_err *err) {
    char why[640];
    app_err_text(st, err, why, sizeof why);
    app_status(st, "%s", why);
}

attn_status app_compute(app_state *st, const char *text, const attn_config *cfg, attn_err *err) {
    if (st->hf) { // a real model: its own tokenizer and settings; computed off the UI thread
        attn_status rc = app_hf_compute(st, text, err);
        if (rc == ATTN_OK) computed(st);
        return rc;
    }
    if (st->model.m) {
        attn_status rc = model_compute(st, text, err);
        if (rc == ATTN_OK) computed(st);
        return rc;
    }
    attn_trace t = {0}, alt = {0};
    attn_config c2;
    attn_status rc = run(st, &t, text, cfg, err);
    if (rc == ATTN_OK && compare_config(st, cfg, &c2)) {
        rc = run(st, &alt, text, &c2, err);
        viz_config_words(st->src.compare_labels[0], sizeof st->src.compare_labels[0], st->look.strings ? st->look.strings->s[st->look.lang] : NULL, st->look.lang, &c2, cfg); // what each view sets
        viz_config_words(st->src.compare_labels[1], sizeof st->src.compare_labels[1], st->look.strings ? st->look.strings->s[st->look.lang] : NULL, st->look.lang, cfg, &c2);
    }
    if (rc != ATTN_OK) {
        attn_trace_free(&t);
        attn_trace_free(&alt);
        return rc;
    }
    attn_trace_free(&st->src.trace);
    attn_trace_free(&st->src.alt);
    st->src.trace = t;
    st->src.alt = alt;
    st->src.cfg = *cfg;
    computed(st);
    return ATTN_OK;
}

bool app_recompute_with(app_state *st, const attn_config *cfg) {
    attn_err err;
    if (app_compute(st, st->src.sentence, cfg, &err) == ATTN_OK) return true;
    app_status_err(st, &err);
    return false;
}

void app_recompute(app_state *st) {
    app_recompute_with(st, &st->src.cfg);
}

void app_refresh_texts(app_state *st) {
    update_notice(st); // in the new language
    st->lesson.narrative_stale = true;
    st->dirty = true;
}

attn_status app_set_sentence(app_state *st, const char *sentence, const attn_config *cfg, attn_err *err) {
    char *copy = strdup(sentence);
    if (!copy) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the sentence.");
    attn_status rc = app_compute(st, copy, cfg, err);
    if (rc != ATTN_OK) {
        free(copy);
        return rc;
    }
    free(st->src.sentence);
    st->src.sentence = copy;
    return ATTN_OK;
}

attn_status app_init(app_state *st, const char *sentence, const attn_config *cfg,
                     const viz_strings *strings, attn_err *err) {
    memset(st, 0, sizeof *st);
    st->look.strings = strings;
    st->src.cfg = st->src.design_cfg = *cfg;
    st->view.canvas_zoom = 1.0f;
    st->look.dpi_scale = st->look.zoom = 1.0f;
    st->look.width = 1280;
    st->look.height = 800;
    st->view.hover.kind = VIZ_HIT_NONE;
    st->view.step = ATTN_STEP_SOFTMAX;
    st->view.head_b = cfg->heads > 1 ? 1 : 0;
    st->src.explain = malloc(sizeof *st->src.explain);
    st->src.sentence = strdup(sentence ? sentence : SEED_SENTENCE);
    if (!st->src.explain || !st->src.sentence) {
        app_free(st);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to start.");
    }
    attn_status rc = app_compute(st, st->src.sentence, cfg, err);
    if (rc != ATTN_OK) {
        app_free(st);
        return rc;
    }
    st->view.query = attn_trace_default_query(&st->src.trace);
    st->dirty = true;
    return ATTN_OK;
}

void app_free(app_state *st) {
    if (!st) return;
    for (int i = 0; i < VIZ_LANG_COUNT; i++) {
        lesson_free(st->lesson.files[i]);
        free(st->lesson.paths[i]);
        free(st->lesson.kept[i]);
    }
    free(st->lesson.narrative);
    app_hf_free(st); // before the trace, which borrows its run
    app_model_state_free(&st->model);
    attn_trace_free(&st->src.trace);
    attn_trace_free(&st->src.alt);
    attn_decode_free(&st->src.decode);
    attn_tiles_free(&st->view.tiles);
    attn_weights_file_free(&st->src.wfile);
    free(st->src.explain);
    free(st->src.sentence);
    free(st->src.pair);
    app_editor_free(&st->edit.ed);
    memset(st, 0, sizeof *st);
}

attn_status app_use_weights_file(app_state *st, const char *path, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    attn_weights_file f;
    attn_status rc = attn_read_file(path, 64u << 20, &text, &len, err);
    if (rc == ATTN_OK) rc = attn_weights_file_parse(&f, text, len, path, err);
    free(text);
    if (rc != ATTN_OK) return rc;
    attn_weights_file_free(&st->src.wfile);
    st->src.wfile = f;
    snprintf(st->src.weights_name, sizeof st->src.weights_name, "%s", path);
    utf8_trim_partial(st->src.weights_name);
    attn_config cfg = st->src.cfg;
    int dm, dk, heads;
    attn_weights_file_dims(&f, &dm, &dk, &heads);
    if (dm) cfg.d_model = dm;
    if (dk) cfg.d_k = dk;
    if (heads) cfg.heads = heads;
    app_weights_mode old = st->src.weights;
    st->src.weights = APP_WEIGHTS_FILE;
    rc = app_compute(st, st->src.sentence, &cfg, err);
    if (rc != ATTN_OK) st->src.weights = old;
    return rc;
}

/* ---- what is shown, derived from the state ---- */

/* A cell of what the question hides (the weights and what follows them) while it is open. */
static bool hidden_cell(const app_state *st, viz_hit hit) {
    return st->lesson.predict_pending && hit.kind == VIZ_HIT_CELL && hit.stage >= ATTN_ST_WEIGHTS;
}

void app_hover(app_state *st, viz_hit hit) {
    if (hidden_cell(st, hit)) hit = (viz_hit){.kind = VIZ_HIT_NONE};                // no cursor, no arithmetic: the answer waits
    if (memcmp(&hit, &st->view.hover, sizeof hit) != 0) st->view.detail_scroll = 0; // a new cell starts at its own term
    st->view.hover = hit;
    st->src.explain_valid = false;
    if (hit.kind == VIZ_HIT_CELL && viz_tile_stage(hit.stage)) { // the tiles view words its own arithmetic
        st->dirty = true;
        return;
    }
    if (st->hf) app_hf_hover(st, hit); // X's LayerNorm arithmetic
    if (hit.kind == VIZ_HIT_CELL && st->model.m)
        st->src.explain_valid = model_explain(st->model.explain, &st->model.run, st->model.m, hit.stage, st->model.layer,
                                              hit.head, hit.row, hit.col, NULL) == ATTN_OK;
    else if (hit.kind == VIZ_HIT_CELL && hit.stage < ATTN_STAGE_COUNT)
        st->src.explain_valid = attn_explain(st->src.explain, &st->src.trace, (attn_stage)hit.stage, hit.head, hit.row, hit.col, NULL) == ATTN_OK;
    if (hit.kind == VIZ_HIT_CELL && !st->src.explain_valid) st->view.hover.kind = VIZ_HIT_NONE;
    st->dirty = true;
}

const attn_trace *app_trace(const app_state *st) {
    return st->model.m ? &st->model.run.layer[st->model.layer] : &st->src.trace;
}

void app_model_state_free(app_model_state *ms) {
    if (!ms) return;
    model_result_free(&ms->run);
    model_result_free(&ms->pair_run);
    model_free(ms->m);
    free(ms->m);
    free(ms->explain);
    memset(ms, 0, sizeof *ms);
}

/* The slot of the lesson shown: the current language's, else the other. */
static int lesson_slot(const app_state *st) {
    return st->lesson.files[st->look.lang] ? (int)st->look.lang : !st->look.lang;
}

const lesson *app_lesson(const app_state *st) {
    return st->lesson.files[lesson_slot(st)];
}

const char *app_lesson_path(const app_state *st) {
    return st->lesson.paths[lesson_slot(st)];
}

const lesson_page *app_lesson_page_shown(const app_state *st) {
    const lesson *l = app_lesson(st);
    if (!l || (st->model.m && !st->model.from_page)) return NULL; // a model of the learner's own is shown
    return lesson_page_at(l, st->lesson.page);
}
