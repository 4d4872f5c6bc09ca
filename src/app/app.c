/* app.c — app state: computing traces, steps, selection, controls, editing. */
#include "app.h"
#include "app_internal.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "model_file.h"
#include "strbuf.h"
#include "utf8.h"
#include "viz_lesson.h"

#define SEED_SENTENCE "这只动物没看见那只鸟，因为它飞得太快了。"

const char *app_str(const app_state *st, viz_str id) {
    const char *s = st->strings ? st->strings->s[st->lang][id] : NULL;
    return s ? s : viz_str_key(id);
}

void app_status(app_state *st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->status, sizeof st->status, fmt, ap);
    va_end(ap);
    utf8_trim_partial(st->status); // a long path or sentence is cut between characters
    st->dirty = true;
}

viz_origin app_origin(const app_state *st) {
    const model *m = st->model.m;
    if (m) // trained here, or read from a file
        return (viz_origin){VIZ_FROM_MODEL, st->model.source == APP_MODEL_FILE ? st->model.name : NULL, 0,
                            m->task, m->training.steps, m->training.seed};
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    if (st->weights == APP_WEIGHTS_DESIGN && pg)
        return (viz_origin){.kind = VIZ_FROM_LESSON, .name = app_lesson_path(st), .gain = pg->random_weights ? pg->gain : 0};
    if (st->weights == APP_WEIGHTS_FILE) return (viz_origin){.kind = VIZ_FROM_FILE, .name = st->weights_name};
    return (viz_origin){.kind = VIZ_FROM_NONE};
}

void app_badge(const app_state *st, char *out, size_t cap) {
    viz_badge(out, cap, st->strings ? st->strings->s[st->lang] : NULL, app_trace(st), app_origin(st));
    utf8_trim_partial(out); // a long file name is cut between characters
}

/* The weights for text under cfg: the lesson page's designs that fit cfg, the
 * file's matrices (an error when they do not fit), or none (*out NULL). */
static attn_status weights_for(app_state *st, const char *text, const attn_config *cfg, attn_weights *storage,
                               const attn_weights **out, attn_err *err) {
    *out = NULL;
    const lesson *l = app_lesson(st);
    if (st->weights == APP_WEIGHTS_DESIGN && l) {
        lesson_page_weights(l, st->lesson.page, cfg, storage);
        *out = storage;
        return ATTN_OK;
    }
    if (st->weights != APP_WEIGHTS_FILE) return ATTN_OK;
    attn_tokens toks = {0};
    attn_wordlist words = attn_vocab_words(st->vocab);
    attn_status rc = attn_tokenize(&toks, text, strlen(text), st->vocab ? &words : NULL, err);
    int n = toks.n;
    attn_tokens_free(&toks);
    if (rc == ATTN_OK) rc = attn_weights_file_bind(storage, &st->wfile, cfg, n, st->weights_name, err);
    if (rc == ATTN_OK) *out = storage;
    return rc;
}

/* text under cfg into *out, with the weights of the current source. */
static attn_status run(app_state *st, attn_trace *out, const char *text, const attn_config *cfg, attn_err *err) {
    attn_weights storage;
    const attn_weights *w;
    attn_status rc = weights_for(st, text, cfg, &storage, &w, err);
    return rc == ATTN_OK ? attn_trace_run(out, text, strlen(text), cfg, st->vocab, w, err) : rc;
}

/* The configuration the second view of a comparison shows, or NULL. */
static bool compare_config(const app_state *st, const attn_config *cfg, attn_config *out) {
    *out = *cfg;
    if (st->compare == VIZ_COMPARE_SCALE) out->scale = !cfg->scale;
    else if (st->compare == VIZ_COMPARE_CONFIG) attn_config_apply_changes(out, &st->compare_base, &st->compare_cfg);
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

/* true when t seeded nothing: every weight (and bias, when on) was supplied. */
static bool every_matrix_given(const attn_trace *t) {
    for (int m = 0; m < ATTN_MAT_COUNT; m++) {
        if (attn_matrix_is_bias((attn_matrix)m) && !t->cfg.bias) continue;
        int nh = attn_matrix_per_head((attn_matrix)m) ? t->cfg.heads : 1;
        for (int h = 0; h < nh; h++)
            if (!t->given[m][h]) return false;
    }
    return true;
}

/* The canvas notice: the page's design no longer fits the settings. */
static void update_notice(app_state *st) {
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    if (st->weights == APP_WEIGHTS_FILE || st->model.m) st->notice[0] = '\0';
    if (st->weights != APP_WEIGHTS_DESIGN || !pg || st->model.m) return;
    st->notice[0] = '\0';
    if (pg->random_weights) return; // seeded weights × a gain: nothing designed to lose
    attn_weights w;
    int designed = lesson_page_weights(l, st->lesson.page, &pg->cfg, &w), used = given_count(&st->trace);
    if (used < designed)
        snprintf(st->notice, sizeof st->notice, app_str(st, VIZ_S_NOTICE_DESIGN_DROPPED), pg->cfg.d_model, pg->cfg.d_k,
                 pg->cfg.heads, designed - used, designed, (unsigned)st->cfg.seed);
}

/* After a new trace: the selection, heads and texts that depend on it. */
static void computed(app_state *st) {
    const attn_trace *t = app_trace(st);
    const attn_config *cfg = &st->cfg;
    st->status[0] = '\0'; // what it said was about the state before (an action may say something new)
    if (st->query >= t->n) st->query = t->n - 1;
    if (st->head >= cfg->heads) st->head = cfg->heads - 1;
    if (st->head_b >= cfg->heads) st->head_b = cfg->heads - 1;
    if (st->compare == VIZ_COMPARE_HEADS && cfg->heads < 2) st->compare = VIZ_COMPARE_OFF; // one head: nothing to compare
    update_notice(st);
    app_lesson_refresh_narrative(st); // its numbers are the new trace's
    app_hover(st, st->hover); // the hovered cell may have moved or vanished
    st->dirty = true;
}

/* Computes text under cfg (with a model: through the model, whose settings
 * are its own); on success replaces the traces, else keeps them. */
static attn_status compute(app_state *st, const char *text, const attn_config *cfg, attn_err *err) {
    if (st->model.m) {
        attn_status rc = app_model_compute(st, text, err);
        if (rc == ATTN_OK) computed(st);
        return rc;
    }
    attn_trace t = {0}, alt = {0};
    attn_config c2;
    attn_status rc = run(st, &t, text, cfg, err);
    if (rc == ATTN_OK && compare_config(st, cfg, &c2)) {
        rc = run(st, &alt, text, &c2, err);
        attn_config_diff_text(st->compare_labels[0], sizeof st->compare_labels[0], &c2, cfg); // what each view sets
        attn_config_diff_text(st->compare_labels[1], sizeof st->compare_labels[1], cfg, &c2);
    }
    if (rc != ATTN_OK) {
        attn_trace_free(&t);
        attn_trace_free(&alt);
        return rc;
    }
    attn_trace_free(&st->trace);
    attn_trace_free(&st->alt);
    st->trace = t;
    st->alt = alt;
    st->cfg = *cfg;
    computed(st);
    return ATTN_OK;
}

/* Recomputes the current sentence under cfg, reporting failure in the status line. */
static bool recompute(app_state *st, const attn_config *cfg) {
    attn_err err;
    if (compute(st, st->sentence, cfg, &err) == ATTN_OK) return true;
    app_status(st, "%s", err.msg);
    return false;
}

void app_recompute(app_state *st) {
    recompute(st, &st->cfg);
}

void app_refresh_texts(app_state *st) {
    update_notice(st); // in the new language
    app_lesson_refresh_narrative(st);
    st->dirty = true;
}

attn_status app_set_sentence(app_state *st, const char *sentence, const attn_config *cfg, attn_err *err) {
    char *copy = strdup(sentence);
    if (!copy) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the sentence.");
    attn_status rc = compute(st, copy, cfg, err);
    if (rc != ATTN_OK) {
        free(copy);
        return rc;
    }
    free(st->sentence);
    st->sentence = copy;
    return ATTN_OK;
}

attn_status app_init(app_state *st, const char *sentence, const attn_config *cfg,
                     const viz_strings *strings, attn_err *err) {
    memset(st, 0, sizeof *st);
    st->strings = strings;
    st->cfg = st->design_cfg = *cfg;
    st->canvas_zoom = 1.0f;
    st->dpi_scale = st->zoom = 1.0f;
    st->width = 1280;
    st->height = 800;
    st->hover.kind = VIZ_HIT_NONE;
    st->step = ATTN_STEP_SOFTMAX;
    st->head_b = cfg->heads > 1 ? 1 : 0;
    st->explain = malloc(sizeof *st->explain);
    st->sentence = strdup(sentence ? sentence : SEED_SENTENCE);
    if (!st->explain || !st->sentence) {
        app_free(st);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to start.");
    }
    attn_status rc = compute(st, st->sentence, cfg, err);
    if (rc != ATTN_OK) {
        app_free(st);
        return rc;
    }
    st->query = attn_trace_default_query(&st->trace);
    st->dirty = true;
    return ATTN_OK;
}

void app_free(app_state *st) {
    if (!st) return;
    for (int i = 0; i < VIZ_LANG_COUNT; i++) {
        lesson_free(st->lesson.files[i]);
        free(st->lesson.paths[i]);
    }
    free(st->lesson.narrative);
    app_model_close_silently(st);
    attn_trace_free(&st->trace);
    attn_trace_free(&st->alt);
    attn_weights_file_free(&st->wfile);
    free(st->explain);
    free(st->sentence);
    free(st->edit);
    free(st->edit_backup);
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
    attn_weights_file_free(&st->wfile);
    st->wfile = f;
    snprintf(st->weights_name, sizeof st->weights_name, "%s", path);
    utf8_trim_partial(st->weights_name);
    attn_config cfg = st->cfg;
    int dm, dk, heads;
    attn_weights_file_dims(&f, &dm, &dk, &heads);
    if (dm) cfg.d_model = dm;
    if (dk) cfg.d_k = dk;
    if (heads) cfg.heads = heads;
    app_weights_mode old = st->weights;
    st->weights = APP_WEIGHTS_FILE;
    rc = compute(st, st->sentence, &cfg, err);
    if (rc != ATTN_OK) st->weights = old;
    return rc;
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* true when the file at path says it is a model file (its format key). */
static bool is_model_file(const char *path) {
    char *text = NULL;
    size_t len = 0;
    attn_err err;
    if (attn_read_file(path, MODEL_FILE_MAX_BYTES, &text, &len, &err) != ATTN_OK) return false;
    bool yes = strstr(text, "\"attnviz-model\"") != NULL;
    free(text);
    return yes;
}

/* ATTN_OK when path reads as a weights file (nothing kept). */
static attn_status weights_file_check(const char *path, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    attn_weights_file f;
    attn_status rc = attn_read_file(path, 64u << 20, &text, &len, err);
    if (rc == ATTN_OK) rc = attn_weights_file_parse(&f, text, len, path, err);
    if (rc == ATTN_OK) attn_weights_file_free(&f);
    free(text);
    return rc;
}

void app_open_dropped(app_state *st, const char *path) {
    attn_err err;
    attn_status rc;
    if (ends_with(path, ".lesson")) rc = app_lesson_open(st, path, NULL, NULL, &err);
    else if (is_model_file(path)) rc = app_model_open(st, path, &err);
    else if (st->model.m && (rc = weights_file_check(path, &err)) != ATTN_OK) {
        // not a weights file either: the model stays
    } else {
        app_model_close(st); // weights are for the one-layer walkthrough
        rc = app_use_weights_file(st, path, &err);
    }
    if (rc != ATTN_OK) app_status(st, "%s", err.msg);
    st->dirty = true;
}

/* ---- steps, selection, hover ---- */

void app_goto_step(app_state *st, int step) {
    if (step < 0) step = 0;
    if (step >= ATTN_STEP_COUNT) step = ATTN_STEP_COUNT - 1;
    if (st->model.readout) { // a step again, of the last layer
        st->model.readout = false;
        st->pan_x = st->pan_y = 0;
        if (st->hover.kind == VIZ_HIT_CELL) app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    }
    if ((int)st->step != step) {
        st->step = (attn_step)step;
        st->pan_x = st->pan_y = 0;
        st->narrative_scroll = 0;
        if (st->hover.kind == VIZ_HIT_CELL) app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    }
    st->dirty = true;
}

void app_step(app_state *st, int delta) {
    if (app_model_step(st, delta)) return; // across layers and on to the readout
    app_goto_step(st, (int)st->step + delta);
}

void app_select_query(app_state *st, int token) {
    if (st->lesson.predict_pending) { // a click answers the question; the query stays
        app_lesson_guess(st, token);
        return;
    }
    const attn_trace *t = app_trace(st);
    if (token >= 0 && token < t->n && token != st->query) {
        st->query = token;
        if (st->model.m && !st->model.target_labelled) app_recompute(st); // the prediction's target follows the query
    }
    st->dirty = true;
}

void app_hover(app_state *st, viz_hit hit) {
    if (memcmp(&hit, &st->hover, sizeof hit) != 0) st->detail_scroll = 0; // a new cell starts at its own term
    st->hover = hit;
    st->explain_valid = false;
    if (hit.kind == VIZ_HIT_CELL && st->model.m)
        st->explain_valid = model_explain(st->model.explain, &st->model.run, st->model.m, hit.stage, st->model.layer,
                                          hit.head, hit.row, hit.col, NULL) == ATTN_OK;
    else if (hit.kind == VIZ_HIT_CELL && hit.stage < ATTN_STAGE_COUNT)
        st->explain_valid = attn_explain(st->explain, &st->trace, (attn_stage)hit.stage, hit.head, hit.row, hit.col, NULL) == ATTN_OK;
    if (hit.kind == VIZ_HIT_CELL && !st->explain_valid) st->hover.kind = VIZ_HIT_NONE;
    st->dirty = true;
}

void app_move_cursor(app_state *st, int drow, int dcol) {
    if (st->model.readout) return; // the readout's cells are hovered with the mouse
    attn_stage s = attn_step_result(st->step);
    int rows, cols;
    attn_trace_shape(app_trace(st), s, &rows, &cols);
    viz_hit h = st->hover;
    if (h.kind != VIZ_HIT_CELL || h.stage != (int)s) h = (viz_hit){.kind = VIZ_HIT_CELL, .stage = s, .row = st->query};
    else {
        h.row += drow;
        h.col += dcol;
    }
    h.head = attn_stage_per_head(s) ? st->head : 0;
    h.row = h.row < 0 ? 0 : h.row >= rows ? rows - 1 : h.row;
    h.col = h.col < 0 ? 0 : h.col >= cols ? cols - 1 : h.col;
    app_hover(st, h);
}

void app_toggle_focus(app_state *st) {
    st->focus = st->focus == VIZ_FOCUS_RAIL ? VIZ_FOCUS_CANVAS : VIZ_FOCUS_RAIL;
    if (st->focus == VIZ_FOCUS_CANVAS && st->hover.kind != VIZ_HIT_CELL) app_move_cursor(st, 0, 0);
    st->dirty = true;
}

void app_toggle_help(app_state *st) {
    st->show_help = !st->show_help;
    st->dirty = true;
}

/* ---- controls ---- */

/* Next power of two up or down from v within [lo, hi]. */
static int pow2_step(int v, int delta, int lo, int hi) {
    int p = 1;
    if (delta > 0) {
        while (p <= v) p *= 2;
    } else {
        while (p * 2 < v) p *= 2;
        if (p >= v) p = v / 2;
    }
    return p < lo ? lo : p > hi ? hi : p;
}

static int wrap(int v, int n) {
    return ((v % n) + n) % n;
}

/* A new shape or seed: the page's designs that still fit stay (the notice
 * says what could not), a file that no longer fits gives way to random weights. */
static void apply_shape_change(app_state *st, attn_config cfg) {
    attn_err err;
    if (compute(st, st->sentence, &cfg, &err) != ATTN_OK) {
        if (st->weights != APP_WEIGHTS_FILE) {
            app_status(st, "%s", err.msg);
            return;
        }
        st->weights = APP_WEIGHTS_RANDOM;
        if (!recompute(st, &cfg)) {
            st->weights = APP_WEIGHTS_FILE;
            return;
        }
        snprintf(st->notice, sizeof st->notice, app_str(st, VIZ_S_NOTICE_FILE_DROPPED), st->weights_name, cfg.d_model,
                 cfg.d_k, cfg.heads, (unsigned)cfg.seed);
    }
    if (st->notice[0]) app_status(st, "%s", st->notice); // said where the eye is, and in the status line
    else st->status[0] = '\0';
}

/* The next split view the controls offer: heads only with two of them, the
 * page's own comparison only on a page that has one. */
static viz_compare next_compare(const app_state *st, int dir) {
    viz_compare c = st->compare;
    for (int k = 0; k < VIZ_COMPARE_COUNT; k++) {
        c = (viz_compare)wrap((int)c + dir, VIZ_COMPARE_COUNT);
        if (c == VIZ_COMPARE_HEADS && st->cfg.heads < 2) continue;
        if (c == VIZ_COMPARE_CONFIG && (!app_page_compares_config(st) || st->model.m)) continue;
        return c;
    }
    return VIZ_COMPARE_OFF;
}

static void widget_config(app_state *st, viz_widget w, int delta) {
    attn_config c = st->cfg;
    int dir = delta ? delta : 1;
    switch (w) {
    case VIZ_W_HEADS: c.heads = c.heads + dir < 1 ? 1 : c.heads + dir > ATTN_MAX_HEADS ? ATTN_MAX_HEADS : c.heads + dir; break;
    case VIZ_W_DK: c.d_k = pow2_step(c.d_k, dir, 1, ATTN_MAX_D_K); break;
    case VIZ_W_DMODEL: c.d_model = pow2_step(c.d_model, dir, 1, ATTN_MAX_D_MODEL); break;
    case VIZ_W_SEED:
        c.seed = delta ? c.seed + (uint32_t)delta : (uint32_t)(c.seed * 2654435761u + 12345u); // 0: re-roll
        break;
    default: break;
    }
    bool seed_only = c.seed != st->cfg.seed && c.heads == st->cfg.heads && c.d_k == st->cfg.d_k &&
                     c.d_model == st->cfg.d_model;
    if (c.heads != st->cfg.heads || c.d_k != st->cfg.d_k || c.d_model != st->cfg.d_model || c.seed != st->cfg.seed)
        apply_shape_change(st, c);
    if (seed_only && every_matrix_given(&st->trace) && !st->notice[0])
        app_status(st, app_str(st, VIZ_S_STATUS_SEED_UNUSED), (unsigned)c.seed); // nothing here is seeded
}

static void widget_mask(app_state *st, viz_widget w, int delta) {
    attn_config c = st->cfg;
    if (w == VIZ_W_SCALE) c.scale = !c.scale;
    else if (w == VIZ_W_POSENC) c.pos_enc = !c.pos_enc;
    else if (w == VIZ_W_MASK) c.mask.kind = (attn_mask_kind)wrap((int)c.mask.kind + (delta ? delta : 1), 4);
    else if (w == VIZ_W_WINDOW) {
        if (c.mask.kind != ATTN_MASK_WINDOW && c.mask.kind != ATTN_MASK_CAUSAL_WINDOW) c.mask.kind = ATTN_MASK_WINDOW;
        else c.mask.window += delta ? delta : 1;
        if (c.mask.window < 1) c.mask.window = 1;
        if (c.mask.window > ATTN_MAX_WINDOW) c.mask.window = ATTN_MAX_WINDOW;
    }
    recompute(st, &c);
}

void app_widget(app_state *st, viz_widget w, int delta) {
    if (st->model.m && viz_widget_model_fixed(w)) { // its training chose them
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_MODEL_FIXED));
        return;
    }
    switch (w) {
    case VIZ_W_HEADS: case VIZ_W_DK: case VIZ_W_DMODEL: case VIZ_W_SEED:
        widget_config(st, w, delta);
        break;
    case VIZ_W_SCALE: case VIZ_W_MASK: case VIZ_W_WINDOW: case VIZ_W_POSENC:
        widget_mask(st, w, delta);
        break;
    case VIZ_W_SHOW_HEAD:
        st->head = wrap(st->head + (delta ? delta : 1), st->cfg.heads);
        if (st->compare == VIZ_COMPARE_HEADS && st->head_b == st->head) st->head_b = wrap(st->head + 1, st->cfg.heads);
        app_hover(st, st->hover);
        break;
    case VIZ_W_COMPARE:
        st->compare = next_compare(st, delta ? delta : 1);
        if (st->compare == VIZ_COMPARE_HEADS && st->head_b == st->head) st->head_b = wrap(st->head + 1, st->cfg.heads);
        recompute(st, &st->cfg); // the scale and config comparisons need their second trace
        break;
    case VIZ_W_THEME:
        st->theme = (viz_theme_id)wrap((int)st->theme + (delta ? delta : 1), VIZ_THEME_COUNT);
        break;
    case VIZ_W_LANG:
        app_switch_lang(st);
        break;
    case VIZ_W_LAYER: app_model_layer(st, delta ? delta : 1); break;
    case VIZ_W_BACKWARD: app_model_toggle_backward(st); break;
    case VIZ_W_READOUT: app_model_readout(st); break;
    case VIZ_W_MODEL_CLOSE: app_model_close(st); break;
    default:
        break;
    }
    st->dirty = true;
}

void app_reset(app_state *st) {
    if (st->model.m && !app_lesson(st)) { // the model's first view: its layers stay
        st->compare = VIZ_COMPARE_OFF;
        st->head = 0;
        st->canvas_zoom = 1.0f;
        st->pan_x = st->pan_y = 0;
        st->model.readout = st->model.backward = false;
        app_recompute(st);
        st->query = attn_trace_default_query(app_trace(st));
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
        return;
    }
    if (app_lesson(st)) { // the lesson's page as designed
        app_lesson_goto(st, st->lesson.page);
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
        return;
    }
    st->weights = st->weights_name[0] ? APP_WEIGHTS_FILE : APP_WEIGHTS_RANDOM;
    st->notice[0] = '\0';
    st->compare = VIZ_COMPARE_OFF;
    st->head = 0;
    st->canvas_zoom = 1.0f;
    st->pan_x = st->pan_y = 0;
    if (recompute(st, &st->design_cfg)) {
        st->query = attn_trace_default_query(&st->trace);
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
    }
    st->dirty = true;
}

/* ---- editing ---- */

static bool edit_reserve(app_state *st, size_t extra) {
    if (st->edit_len + extra + 1 <= st->edit_cap) return true;
    size_t cap = st->edit_cap ? st->edit_cap : 256;
    while (cap < st->edit_len + extra + 1) cap *= 2;
    char *p = realloc(st->edit, cap);
    if (!p) return false;
    st->edit = p;
    st->edit_cap = cap;
    return true;
}

/* Tries the edit buffer as the sentence: valid ones are computed at once;
 * an invalid one leaves the last valid result on screen and says why. */
static void edit_apply(app_state *st) {
    attn_err err;
    st->edit_error[0] = '\0';
    if (st->edit_check) { // another text than the sentence: its owner takes it or says why not
        st->edit_check(st->edit_ctx, st->edit, st->edit_error, sizeof st->edit_error);
        st->dirty = true;
        return;
    }
    if (compute(st, st->edit, &st->cfg, &err) != ATTN_OK) {
        snprintf(st->edit_error, sizeof st->edit_error, "%s", err.msg);
    } else {
        char *copy = strdup(st->edit);
        if (copy) {
            free(st->sentence);
            st->sentence = copy;
        }
    }
    st->dirty = true;
}

void app_edit_begin(app_state *st) {
    app_edit_begin_other(st, st->sentence, NULL, NULL);
}

void app_edit_begin_other(app_state *st, const char *text, app_edit_check check, void *ctx) {
    if (st->editing) return;
    size_t len = strlen(text);
    st->edit_len = 0;
    if (!edit_reserve(st, len)) return;
    memmove(st->edit, text, len + 1);
    st->edit_len = len;
    st->cursor = (int)len;
    st->sel_anchor = -1;
    free(st->edit_backup);
    st->edit_backup = strdup(st->edit);
    st->edit_check = check;
    st->edit_ctx = ctx;
    st->composition[0] = '\0';
    st->edit_error[0] = '\0';
    st->editing = true;
    st->dirty = true;
}

/* Removes the selected text, if any, leaving the cursor where it was. */
static void edit_erase_selection(app_state *st) {
    if (st->sel_anchor < 0) return;
    int a = st->sel_anchor < st->cursor ? st->sel_anchor : st->cursor;
    int b = st->sel_anchor < st->cursor ? st->cursor : st->sel_anchor;
    st->sel_anchor = -1;
    memmove(st->edit + a, st->edit + b, st->edit_len - (size_t)b + 1);
    st->edit_len -= (size_t)(b - a);
    st->cursor = a;
}

void app_edit_select_all(app_state *st) {
    if (!st->editing) return;
    st->sel_anchor = 0;
    st->cursor = (int)st->edit_len;
    st->dirty = true;
}

void app_edit_insert(app_state *st, const char *utf8) {
    size_t n = strlen(utf8);
    st->composition[0] = '\0';
    if (!st->editing || n == 0 || utf8_find_invalid(utf8, n) != (size_t)-1) return;
    edit_erase_selection(st); // typing over a selection replaces it
    if (st->edit_len + n > ATTN_MAX_SENTENCE_BYTES) {
        snprintf(st->edit_error, sizeof st->edit_error, "The sentence is full (%d bytes at most).", ATTN_MAX_SENTENCE_BYTES);
        st->dirty = true;
        return;
    }
    if (!edit_reserve(st, n)) return;
    memmove(st->edit + st->cursor + n, st->edit + st->cursor, st->edit_len - (size_t)st->cursor + 1);
    memcpy(st->edit + st->cursor, utf8, n);
    st->edit_len += n;
    st->cursor += (int)n;
    edit_apply(st);
}

void app_edit_compose(app_state *st, const char *preedit) {
    if (!st->editing) return;
    snprintf(st->composition, sizeof st->composition, "%s", preedit);
    utf8_trim_partial(st->composition); // a long input-method pre-edit is cut between characters
    st->dirty = true;
}

/* Byte offset of the code point before / after offset i. */
static int prev_cp(const char *s, int i) {
    while (i > 0 && ((unsigned char)s[--i] & 0xC0) == 0x80) {}
    return i;
}

static int next_cp(const char *s, int len, int i) {
    if (i >= len) return len;
    i++;
    while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    return i;
}

static void edit_erase(app_state *st, int from, int to) {
    if (from >= to) return;
    memmove(st->edit + from, st->edit + to, st->edit_len - (size_t)to + 1);
    st->edit_len -= (size_t)(to - from);
    st->cursor = from;
    edit_apply(st);
}

void app_edit_backspace(app_state *st) {
    if (st->editing && st->sel_anchor >= 0) {
        edit_erase_selection(st);
        edit_apply(st);
    } else if (st->editing && st->cursor > 0) {
        edit_erase(st, prev_cp(st->edit, st->cursor), st->cursor);
    }
}

void app_edit_delete(app_state *st) {
    if (st->editing && st->sel_anchor >= 0) app_edit_backspace(st); // the selection, either way
    else if (st->editing) edit_erase(st, st->cursor, next_cp(st->edit, (int)st->edit_len, st->cursor));
}

void app_edit_move(app_state *st, int delta) {
    if (!st->editing) return;
    st->sel_anchor = -1;
    if (delta == INT_MIN) st->cursor = 0;
    else if (delta == INT_MAX) st->cursor = (int)st->edit_len;
    for (; delta < 0 && delta != INT_MIN && st->cursor > 0; delta++) st->cursor = prev_cp(st->edit, st->cursor);
    for (; delta > 0 && delta != INT_MAX; delta--) st->cursor = next_cp(st->edit, (int)st->edit_len, st->cursor);
    st->dirty = true;
}

void app_edit_commit(app_state *st) {
    if (!st->editing) return;
    if (st->edit_error[0]) { // what is typed is no sentence: the one from before editing comes back, not a fragment
        char why[sizeof st->edit_error];
        snprintf(why, sizeof why, "%s", st->edit_error);
        app_edit_cancel(st);
        app_status(st, app_str(st, VIZ_S_STATUS_EDIT_REVERTED), why);
        return;
    }
    st->editing = false;
    st->sel_anchor = -1;
    st->composition[0] = '\0';
    st->edit_check = NULL;
    st->dirty = true;
}

void app_edit_cancel(app_state *st) {
    if (!st->editing) return;
    st->editing = false;
    st->sel_anchor = -1;
    st->composition[0] = '\0';
    st->edit_error[0] = '\0';
    if (st->edit_check) { // the text from before editing goes back to its owner
        app_edit_check check = st->edit_check;
        st->edit_check = NULL;
        if (st->edit_backup) check(st->edit_ctx, st->edit_backup, st->edit_error, sizeof st->edit_error);
        st->edit_error[0] = '\0';
        st->dirty = true;
        return;
    }
    if (st->edit_backup && strcmp(st->edit_backup, st->sentence) != 0) {
        attn_err err;
        if (compute(st, st->edit_backup, &st->cfg, &err) == ATTN_OK) {
            free(st->sentence);
            st->sentence = st->edit_backup;
            st->edit_backup = NULL;
        }
    }
    st->dirty = true;
}

/* ---- derived views ---- */

void app_scene(const app_state *st, viz_scene *s, char *badge, size_t cap) {
    memset(s, 0, sizeof *s);
    s->trace = app_trace(st);
    s->alt_trace = st->alt.n ? &st->alt : NULL;
    s->compare_labels[0] = st->compare_labels[0];
    s->compare_labels[1] = st->compare_labels[1];
    s->notice = st->notice[0] ? st->notice : NULL;
    s->origin = app_origin(st);
    s->feature_names = !st->model.m && st->vocab && st->vocab->dim == st->cfg.d_model && st->trace.vocab_rows
                       ? st->vocab->features : NULL;
    s->model = st->model.m;
    s->run = st->model.m ? &st->model.run : NULL;
    s->layer = st->model.layer;
    s->readout = st->model.m && st->model.readout;
    s->backward = st->model.m && st->model.backward;
    s->target = st->model.target_labelled ? VIZ_TARGET_TASK : VIZ_TARGET_PREDICTED;
    s->page_model = st->model.from_page;
    s->model_explain = st->model.m && st->explain_valid ? st->model.explain : NULL;
    s->step = st->step;
    s->head = st->head;
    s->head_b = st->head_b;
    s->query = st->query;
    s->hover = st->hover;
    s->explain = st->explain_valid && !st->model.m ? st->explain : NULL;
    s->compare = st->compare;
    s->lines_all_heads = st->lines_all;
    s->focus = st->focus;
    s->canvas_zoom = st->canvas_zoom;
    s->canvas_pan_x = st->pan_x;
    s->canvas_pan_y = st->pan_y;
    s->narrative_scroll = st->narrative_scroll;
    s->detail_scroll = st->detail_scroll;
    bool bar = st->editing && !st->edit_check; // the sentence bar edits the sentence, not another text
    s->sentence = bar ? st->edit : st->sentence;
    s->editing = bar;
    s->cursor = st->cursor;
    s->sel_anchor = bar ? st->sel_anchor : -1;
    s->composition = bar ? st->composition : "";
    s->edit_error = bar && st->edit_error[0] ? st->edit_error : NULL;
    s->ui = st->strings ? st->strings->s[st->lang] : NULL;
    app_badge(st, badge, cap);
    s->badge = badge;
    s->status = st->status[0] ? st->status : NULL;
    s->show_help = st->show_help;
    s->show_lab = st->show_lab;
    s->lab = st->lab;
    s->lab_elapsed = st->lab_elapsed;
    s->hide_weights = st->lesson.predict_pending;
    s->narrative = st->lesson.narrative;
    const lesson_page *pg = app_lesson_page_shown(st);
    s->narrative_title = pg ? pg->title : NULL;
    s->mark = pg ? viz_lesson_mark(&pg->highlight, &app_trace(st)->tokens) : (viz_mark){VIZ_MARK_NONE, -1, -1};
    if (pg) viz_lesson_names(&s->names, app_lesson(st), st->lesson.page, app_trace(st));
    s->question = pg && pg->predict.on;
    s->page_label = st->lesson.page_label[0] ? st->lesson.page_label : NULL;
    s->theme = st->theme;
    s->scale = st->dpi_scale * st->zoom;
    s->width = st->width;
    s->height = st->height;
}

/* The stage the copy command takes: the hovered cell's, else what the view
 * shows: the step's result, its gradient with the backward pass on, the
 * readout's answer. */
static void copy_target(const app_state *st, int *s, int *h) {
    *s = attn_step_result(st->step);
    *h = st->head;
    const model *m = st->model.m;
    if (m && st->model.readout) *s = m->cfg.objective == MODEL_OBJ_TOKEN ? MODEL_ST_PROBS : MODEL_ST_AVG;
    else if (m && st->model.backward && st->step == ATTN_STEP_SOFTMAX) *s = MODEL_ST_D_WEIGHTS;
    else if (m && st->model.backward && (st->step == ATTN_STEP_SCALE || st->step == ATTN_STEP_MASK)) *s = MODEL_ST_D_SCALED;
    if (st->hover.kind == VIZ_HIT_CELL) {
        *s = st->hover.stage;
        *h = st->hover.head;
    }
}

/* The matrix of stage s, head h as shown, and its shape. */
static const double *shown_matrix(const app_state *st, int s, int h, int *rows, int *cols) {
    if (st->model.m) return model_result_stage(&st->model.run, st->model.m, s, st->model.layer, h, rows, cols);
    attn_trace_shape(&st->trace, (attn_stage)s, rows, cols);
    return attn_trace_stage(&st->trace, (attn_stage)s, h);
}

char *app_matrix_tsv(const app_state *st, char *what, size_t what_cap) {
    const attn_trace *t = app_trace(st);
    int s, h, rows, cols;
    copy_target(st, &s, &h);
    const double *m = shown_matrix(st, s, h, &rows, &cols);
    if (!m) return NULL;
    bool per_head = model_stage_per_head(s);
    if (st->model.m)
        snprintf(what, what_cap, per_head ? "%s (layer %d, head %d)" : "%s (layer %d)", model_stage_name(s),
                 st->model.layer + 1, h + 1);
    else
        snprintf(what, what_cap, per_head ? "%s (head %d)" : "%s", model_stage_name(s), h + 1);
    attn_strbuf b;
    attn_sb_init(&b);
    char lab[128];
    bool token_cols = (s >= ATTN_ST_SCORES && s <= ATTN_ST_WEIGHTS) || s == MODEL_ST_D_WEIGHTS ||
                      s == MODEL_ST_D_SCALED || s == MODEL_ST_AVG;
    bool word_cols = s == MODEL_ST_LOGITS || s == MODEL_ST_PROBS;
    attn_sb_puts(&b, what); // the corner names the matrix: a table pasted anywhere says what it is
    for (int j = 0; j < cols; j++) { // header row: tokens, words or dimension numbers
        if (token_cols) attn_token_label(&t->tokens, j, 0, lab, sizeof lab);
        else if (word_cols) snprintf(lab, sizeof lab, "%s", st->model.m->vocab[j]);
        else snprintf(lab, sizeof lab, "d%d", j);
        attn_sb_printf(&b, "\t%s", lab);
    }
    attn_sb_puts(&b, "\n");
    for (int i = 0; i < rows; i++) {
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        attn_sb_puts(&b, lab);
        for (int j = 0; j < cols; j++) {
            double v = m[(size_t)i * cols + j];
            attn_sb_puts(&b, "\t");
            if (v == -INFINITY) attn_sb_puts(&b, "-inf");
            else attn_sb_number(&b, v);
        }
        attn_sb_puts(&b, "\n");
    }
    return attn_sb_take(&b);
}

/* With a model: the headless run of the same sentence, target and stage. */
static void model_command(const app_state *st, attn_strbuf *b) {
    const model *m = st->model.m;
    const model_result *r = &st->model.run;
    attn_sb_puts(b, "attnviz --headless --model ");
    attn_sb_shell_word(b, st->model.source == APP_MODEL_FILE ? st->model.name : "MODEL.json");
    attn_sb_puts(b, " --sentence ");
    attn_sb_shell_word(b, st->sentence);
    for (int k = 0; k < r->n_targets; k++) { // the backward pass's target, as --target names it
        int row = r->targets[k].row, ans = r->targets[k].target;
        const char *word = m->vocab[m->cfg.objective == MODEL_OBJ_POINTER ? r->ids[ans] : ans];
        char spec[96];
        snprintf(spec, sizeof spec, "%d:%s", row, word);
        attn_sb_puts(b, " --target ");
        attn_sb_shell_word(b, spec);
    }
    int s, h;
    copy_target(st, &s, &h);
    attn_sb_printf(b, " --print %s", model_stage_name(s));
}

char *app_command_line(const app_state *st) {
    const attn_config *c = &st->cfg;
    attn_strbuf b;
    attn_sb_init(&b);
    if (st->model.m) {
        model_command(st, &b);
        return attn_sb_take(&b);
    }
    char mask[32];
    attn_mask_format(mask, sizeof mask, c->mask);
    attn_sb_puts(&b, "attnviz --headless");
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    if (pg) { // its vocabulary and designs, with every setting of the view said explicitly
        attn_sb_puts(&b, " --lesson ");
        attn_sb_shell_word(&b, app_lesson_path(st));
        attn_sb_puts(&b, " --page ");
        attn_sb_shell_word(&b, pg->id);
    }
    attn_sb_puts(&b, " --sentence ");
    attn_sb_shell_word(&b, st->sentence);
    attn_sb_printf(&b, " --d-model %d --d-k %d --heads %d --seed %lu --mask %s %s %s %s", c->d_model, c->d_k,
                   c->heads, (unsigned long)c->seed, mask, c->scale ? "--scale" : "--no-scale",
                   c->pos_enc ? "--pos-enc" : "--no-pos-enc", c->bias ? "--bias" : "--no-bias");
    if (c->pos_count) attn_sb_printf(&b, " --pos-dims %d-%d", c->pos_first, c->pos_first + c->pos_count - 1);
    if (st->weights == APP_WEIGHTS_FILE) {
        attn_sb_puts(&b, " --weights ");
        attn_sb_shell_word(&b, st->weights_name);
    }
    int s, h;
    copy_target(st, &s, &h);
    attn_sb_printf(&b, " --print %s", attn_stage_name((attn_stage)s));
    return attn_sb_take(&b);
}
