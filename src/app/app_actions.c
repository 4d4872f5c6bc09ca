/* app_actions.c — floor 4 of src/app: what input asks for (steps, the
 * selection, the controls, the sentence editor, the window), carried out
 * through the lesson, the model and the compute pipeline below. */
#include "app_actions.h"
#include "attn_steps.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "model_file.h"

/* ---- a dropped file ---- */

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
    bool yes = model_file_says_model(text, len);
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
    if (rc != ATTN_OK) app_status_err(st, &err);
    st->dirty = true;
}

attn_status app_open_hf_folder(app_state *st, const char *dir, const char *sentence, const char *bpe_default,
                               const char *wordpiece_default, attn_err *err) {
    app_model_close(st); // as a lesson page's own view does before another
    attn_status rc = app_hf_open(st, dir, sentence, bpe_default, wordpiece_default, false, err);
    if (rc != ATTN_OK) return rc;              // the model or the view before stays (app_hf_open)
    for (int i = 0; i < VIZ_LANG_COUNT; i++) { // the lesson's pages would recompute the sentence through GPT-2
        lesson_free(st->lesson.files[i]);
        free(st->lesson.paths[i]);
        free(st->lesson.kept[i]);
    }
    free(st->lesson.narrative);
    memset(&st->lesson, 0, sizeof st->lesson);
    st->lesson.guess = -1;
    st->lesson.narrative_stale = true;
    st->src.vocab = NULL; // the lesson's (borrowed)
    st->src.weights = APP_WEIGHTS_RANDOM;
    st->view.compare = VIZ_COMPARE_OFF;
    st->dirty = true;
    return ATTN_OK;
}

/* ---- steps, selection, hover ---- */

/* With a model, the previous/next step across layers (step 8 of a layer
 * leads to step 1 of the next, the last layer's to the readout). Returns
 * false when the move stays inside the layer (the caller does it). */
/* The layer shown changed: its trace (a real model's run has every layer). */
static void layer_changed(app_state *st) {
    attn_err err;
    if (!st->hf) app_recompute(st);
    else if (app_hf_show_layer(st, &err) != ATTN_OK) app_status_err(st, &err);
}

static bool model_step(app_state *st, int delta) {
    if (!st->model.m && !st->hf) return false;
    int layers = st->hf ? app_hf_layers(st) : st->model.m->cfg.layers, last = ATTN_STEP_COUNT - 1;
    if (delta > 0 && !st->model.readout && (int)st->view.step == last) { // on to the next layer, then the readout
        if (st->model.layer + 1 < layers) {
            st->model.layer++;
            layer_changed(st);
            app_goto_step(st, 0);
        } else {
            app_model_readout(st);
        }
        return true;
    }
    if (delta < 0 && st->model.readout) {
        st->model.readout = false;
        app_goto_step(st, last);
        return true;
    }
    if (delta < 0 && (int)st->view.step == 0 && st->model.layer > 0) {
        st->model.layer--;
        layer_changed(st);
        app_goto_step(st, last);
        return true;
    }
    return false;
}

void app_goto_step(app_state *st, int step) {
    if (step < 0) step = 0;
    if (step >= ATTN_STEP_COUNT) step = ATTN_STEP_COUNT - 1;
    if (!attn_step_shown((attn_step)step, &app_trace(st)->cfg)) step = attn_step_next((attn_step)step, -1, NULL); // 2b without RoPE: 2
    if (st->model.readout) {                                                                                      // a step again, of the last layer
        st->model.readout = false;
        st->view.pan_x = st->view.pan_y = 0;
        if (st->view.hover.kind == VIZ_HIT_CELL) app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    }
    if ((int)st->view.step != step) {
        st->view.step = (attn_step)step;
        st->view.pan_x = st->view.pan_y = 0;
        st->view.narrative_scroll = 0;
        if (st->view.hover.kind == VIZ_HIT_CELL) app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    }
    st->dirty = true;
}

void app_step(app_state *st, int delta) {
    if (model_step(st, delta)) return; // across layers and on to the readout
    attn_step next = st->view.step;
    for (int k = 0; k < (delta < 0 ? -delta : delta); k++) next = attn_step_next(next, delta, &app_trace(st)->cfg);
    if (next == st->view.step) next = (attn_step)((int)st->view.step + delta); // at an end: app_goto_step clamps
    app_goto_step(st, (int)next);
}

void app_select_query(app_state *st, int token) {
    if (st->lesson.predict_pending) { // a click answers the question; the query stays
        app_lesson_guess(st, token);
        return;
    }
    const attn_trace *t = app_trace(st);
    if (token >= 0 && token < t->n && token != st->view.query) {
        st->view.query = token;
        if (st->model.m && !st->model.target_labelled) app_recompute(st); // the prediction's target follows the query
    }
    st->dirty = true;
}

void app_move_cursor(app_state *st, int drow, int dcol) {
    if (st->model.readout) return; // the readout's cells are hovered with the mouse
    attn_stage s = attn_step_result(st->view.step);
    int rows, cols;
    attn_trace_shape(app_trace(st), s, &rows, &cols);
    viz_hit h = st->view.hover;
    if (h.kind != VIZ_HIT_CELL || h.stage != (int)s) h = (viz_hit){.kind = VIZ_HIT_CELL, .stage = s, .row = st->view.query};
    else {
        h.row += drow;
        h.col += dcol;
    }
    h.head = attn_stage_per_head(s) ? st->view.head : 0;
    h.row = h.row < 0 ? 0 : h.row >= rows ? rows - 1
                                          : h.row;
    h.col = h.col < 0 ? 0 : h.col >= cols ? cols - 1
                                          : h.col;
    app_hover(st, h);
}

void app_toggle_focus(app_state *st) {
    st->view.focus = st->view.focus == VIZ_FOCUS_RAIL ? VIZ_FOCUS_CANVAS : VIZ_FOCUS_RAIL;
    if (st->view.focus == VIZ_FOCUS_CANVAS && st->view.hover.kind != VIZ_HIT_CELL) app_move_cursor(st, 0, 0);
    st->dirty = true;
}

void app_toggle_help(app_state *st) {
    st->view.show_help = !st->view.show_help;
    st->dirty = true;
}

void app_toggle_figure(app_state *st) {
    st->view.figure_only = !st->view.figure_only;
    st->dirty = true;
}

void app_page_control(app_state *st, int widget, int delta) {
    if (!app_lesson(st)) return;
    if (widget == VIZ_PW_TURN) app_lesson_turn(st, delta);
    else if (widget == VIZ_PW_LIST) st->view.show_pages = !st->view.show_pages;
    else if (widget == VIZ_PW_PAGE) {
        st->view.show_pages = false;
        if (delta != st->lesson.page) app_lesson_goto(st, delta);
    }
    st->dirty = true;
}

void app_click_step(app_state *st, int step) {
    app_goto_step(st, step);
    st->view.focus = VIZ_FOCUS_RAIL;
}

void app_click_cell(app_state *st, viz_hit cell) {
    st->view.focus = VIZ_FOCUS_CANVAS;
    app_hover(st, cell);
}

void app_clicker(app_state *st, int delta) {
    bool at_end = delta > 0 ? (int)st->view.step == ATTN_STEP_COUNT - 1 : st->view.step == 0;
    if (!app_lesson(st) || !at_end) {
        app_step(st, delta);
        return;
    }
    int before = st->lesson.page;
    app_lesson_turn(st, delta);
    if (delta < 0 && st->lesson.page != before) app_goto_step(st, ATTN_STEP_COUNT - 1); // back: arrive at its last step
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
    return p < lo ? lo : p > hi ? hi
                                : p;
}

static int wrap(int v, int n) {
    return ((v % n) + n) % n;
}

/* A new shape or seed: the page's designs that still fit stay (the notice
 * says what could not), a file that no longer fits gives way to random weights. */
static void apply_shape_change(app_state *st, attn_config cfg) {
    attn_err err;
    if (app_compute(st, st->src.sentence, &cfg, &err) != ATTN_OK) {
        if (st->src.weights != APP_WEIGHTS_FILE) {
            app_status_err(st, &err);
            return;
        }
        st->src.weights = APP_WEIGHTS_RANDOM;
        if (!app_recompute_with(st, &cfg)) {
            st->src.weights = APP_WEIGHTS_FILE;
            return;
        }
        snprintf(st->src.notice, sizeof st->src.notice, app_str(st, VIZ_S_NOTICE_FILE_DROPPED), st->src.weights_name, cfg.d_model,
                 cfg.d_k, cfg.heads, (unsigned)cfg.seed);
    }
    if (st->src.notice[0]) app_status(st, "%s", st->src.notice); // said where the eye is, and in the status line
    else st->look.status[0] = '\0';
}

/* The next split view the controls offer: heads only with two of them, the
 * page's own comparison only on a page that has one. */
static viz_compare next_compare(const app_state *st, int dir) {
    viz_compare c = st->view.compare;
    for (int k = 0; k < VIZ_COMPARE_COUNT; k++) {
        c = (viz_compare)wrap((int)c + dir, VIZ_COMPARE_COUNT);
        if (c == VIZ_COMPARE_HEADS && st->src.cfg.heads < 2) continue;
        if (st->hf && c != VIZ_COMPARE_HEADS) continue; // a real model: its heads side by side, nothing else
        if (c == VIZ_COMPARE_CONFIG && (!app_page_compares_config(st) || st->model.m)) continue;
        if (c == VIZ_COMPARE_SENTENCE && (!st->model.m || !st->src.pair)) continue;
        return c;
    }
    return VIZ_COMPARE_OFF;
}

static void widget_config(app_state *st, viz_widget w, int delta) {
    attn_config c = st->src.cfg;
    int dir = delta ? delta : 1;
    switch (w) {
    case VIZ_W_HEADS:
        c.heads = c.heads + dir < 1 ? 1 : c.heads + dir > ATTN_MAX_HEADS ? ATTN_MAX_HEADS
                                                                         : c.heads + dir;
        if (c.kv_heads && c.heads % c.kv_heads) c.kv_heads = 0; // groups that no longer divide: one K, V per head
        break;
    case VIZ_W_DK: c.d_k = pow2_step(c.d_k, dir, 1, ATTN_MAX_D_K); break;
    case VIZ_W_DMODEL: c.d_model = pow2_step(c.d_model, dir, 1, ATTN_MAX_D_MODEL); break;
    case VIZ_W_SEED:
        c.seed = delta ? c.seed + (uint32_t)delta : (uint32_t)(c.seed * 2654435761u + 12345u); // 0: re-roll
        break;
    default: break;
    }
    bool seed_only = c.seed != st->src.cfg.seed && c.heads == st->src.cfg.heads && c.d_k == st->src.cfg.d_k &&
                     c.d_model == st->src.cfg.d_model;
    if (c.heads != st->src.cfg.heads || c.d_k != st->src.cfg.d_k || c.d_model != st->src.cfg.d_model || c.seed != st->src.cfg.seed)
        apply_shape_change(st, c);
    if (seed_only && every_matrix_given(&st->src.trace) && !st->src.notice[0])
        app_status(st, app_str(st, VIZ_S_STATUS_SEED_UNUSED), (unsigned)c.seed); // nothing here is seeded
}

static void widget_mask(app_state *st, viz_widget w, int delta) {
    attn_config c = st->src.cfg;
    if (w == VIZ_W_SCALE) c.scale = !c.scale;
    else if (w == VIZ_W_POSENC && delta == ATTN_MAX_POS_OFFSET) c.pos_offset = c.pos_offset ? 0 : 1000; // Shift+O
    else if (w == VIZ_W_POSENC) {                                                                       // O: none → sinusoidal → RoPE (an even d_k only) → none
        bool rope = c.pos_enc && c.d_k % 2 == 0;
        c.rope = rope;
        c.pos_enc = !c.pos_enc && !st->src.cfg.rope;
        if (st->src.cfg.rope) c.rope = c.pos_enc = false;
        if (c.rope) c.pos_first = c.pos_count = 0; // the sinusoids' columns mean nothing to RoPE
    } else if (w == VIZ_W_MASK) c.mask.kind = (attn_mask_kind)wrap((int)c.mask.kind + (delta ? delta : 1), 4);
    else if (w == VIZ_W_WINDOW) {
        if (c.mask.kind != ATTN_MASK_WINDOW && c.mask.kind != ATTN_MASK_CAUSAL_WINDOW) c.mask.kind = ATTN_MASK_WINDOW;
        else c.mask.window += delta ? delta : 1;
        if (c.mask.window < 1) c.mask.window = 1;
        if (c.mask.window > ATTN_MAX_WINDOW) c.mask.window = ATTN_MAX_WINDOW;
    }
    app_recompute_with(st, &c);
}

void app_widget(app_state *st, viz_widget w, int delta) {
    if ((int)w == VIZ_W_TRY) { // a lesson's suggestion, not a setting
        app_lesson_try(st, delta);
        return;
    }
    if ((int)w == VIZ_W_WORD_PAGE) { // ‹ › of the palette: the words from delta on
        st->view.words_first = delta >= 0 ? delta : 0;
        st->dirty = true;
        return;
    }
    if ((int)w == VIZ_W_WORD) { // a word of the model's palette, typed at the cursor
        app_edit_word(st, delta);
        return;
    }
    if ((int)w == VIZ_W_HF_HEAD || (int)w == VIZ_W_HF_HIDE) { // the model view (F6) of a real model
        if ((int)w == VIZ_W_HF_HEAD) app_hf_open_head(st, delta);
        else app_hf_toggle_hide(st);
        return;
    }
    if (st->model.m && viz_widget_model_fixed(w)) { // its training chose them
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_MODEL_FIXED));
        return;
    }
    if (st->hf && (viz_widget_model_fixed(w) || w == VIZ_W_BACKWARD)) { // a real model's settings are its own
        app_status(st, "%s", app_str(st, VIZ_S_HF_FIXED));
        return;
    }
    switch (w) {
    case VIZ_W_HEADS:
    case VIZ_W_DK:
    case VIZ_W_DMODEL:
    case VIZ_W_SEED:
        widget_config(st, w, delta);
        break;
    case VIZ_W_SCALE:
    case VIZ_W_MASK:
    case VIZ_W_WINDOW:
    case VIZ_W_POSENC:
        widget_mask(st, w, delta);
        break;
    case VIZ_W_SHOW_HEAD:
        st->view.head = wrap(st->view.head + (delta ? delta : 1), st->src.cfg.heads);
        if (st->view.compare == VIZ_COMPARE_HEADS && st->view.head_b == st->view.head) st->view.head_b = wrap(st->view.head + 1, st->src.cfg.heads);
        app_hover(st, st->view.hover);
        break;
    case VIZ_W_COMPARE:
        st->view.compare = next_compare(st, delta ? delta : 1);
        if (st->view.compare == VIZ_COMPARE_HEADS && st->view.head_b == st->view.head) st->view.head_b = wrap(st->view.head + 1, st->src.cfg.heads);
        app_recompute_with(st, &st->src.cfg); // the scale and config comparisons need their second trace
        break;
    case VIZ_W_THEME:
        st->look.theme = (viz_theme_id)wrap((int)st->look.theme + (delta ? delta : 1), VIZ_THEME_COUNT);
        break;
    case VIZ_W_LANG:
        app_switch_lang(st);
        break;
    case VIZ_W_VIEW: { // the rail's View: steps → tiles (F4) → decode (F5) → steps, or back with ‹
        int now = 0;   // 0 the steps, 1 the tiles view, 2 decoding
        if (st->view.show_tiles) now = 1;
        else if (st->view.show_decode) now = 2;
        int next = wrap(now + (delta ? delta : 1), 3);
        if (st->view.show_tiles) app_toggle_tiles(st);
        st->view.show_decode = next == 2;
        if (next == 1) app_toggle_tiles(st);
        break;
    }
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
    if (st->hf) { // a real model's first view: its layer and sentence stay
        st->view.compare = VIZ_COMPARE_OFF;
        st->view.head = 0;
        st->view.canvas_zoom = 1.0f;
        st->view.pan_x = st->view.pan_y = 0;
        st->model.readout = false;
        st->dirty = true;
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
        return;
    }
    if (st->model.m && !app_lesson(st)) { // the model's first view: its layers stay
        st->view.compare = VIZ_COMPARE_OFF;
        st->view.head = 0;
        st->view.canvas_zoom = 1.0f;
        st->view.pan_x = st->view.pan_y = 0;
        st->model.readout = st->model.backward = false;
        app_recompute(st);
        st->view.query = attn_trace_default_query(app_trace(st));
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
        return;
    }
    if (app_lesson(st)) { // the lesson's page as designed
        app_lesson_goto(st, st->lesson.page);
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
        return;
    }
    st->src.weights = st->src.weights_name[0] ? APP_WEIGHTS_FILE : APP_WEIGHTS_RANDOM;
    st->src.notice[0] = '\0';
    st->view.compare = VIZ_COMPARE_OFF;
    st->view.head = 0;
    st->view.canvas_zoom = 1.0f;
    st->view.pan_x = st->view.pan_y = 0;
    if (app_recompute_with(st, &st->src.design_cfg)) {
        st->view.query = attn_trace_default_query(&st->src.trace);
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_READY));
    }
    st->dirty = true;
}

/* ---- editing ---- */

/* The query after an edit: the word it was on when editing began (the
 * occurrence nearest its place), else the pronoun, else where it is. */
static void follow_query(app_state *st) {
    const attn_trace *t = app_trace(st);
    int best = -1, q = st->edit.query_at;
    size_t n = strlen(st->edit.query_word);
    for (int i = 0; i < t->n && n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        if ((size_t)len == n && memcmp(tok, st->edit.query_word, n) == 0 && (best < 0 || abs(i - q) < abs(best - q))) best = i;
    }
    if (best < 0) best = attn_trace_pronoun(t);
    if (best >= 0 && best != st->view.query) {
        st->view.query = best;
        if (st->model.m) app_recompute(st); // the model's target follows the query
    }
}

/* Tries the edited text as the sentence: a valid one is computed at once;
 * an invalid one leaves the last valid result on screen and says why. */
static void edit_apply(app_state *st) {
    app_editor *e = &st->edit.ed;
    attn_err err;
    e->error[0] = '\0';
    if (st->edit.check) { // another text than the sentence: its owner takes it or says why not
        st->edit.check(st->edit.ctx, e->text, e->error, sizeof e->error);
        st->dirty = true;
        return;
    }
    if (app_compute(st, e->text, &st->src.cfg, &err) != ATTN_OK) {
        app_err_text(st, &err, e->error, sizeof e->error); // in the window's language
    } else {
        char *copy = strdup(e->text);
        if (copy) {
            free(st->src.sentence);
            st->src.sentence = copy;
        }
        follow_query(st);
    }
    st->dirty = true;
}

void app_edit_begin(app_state *st) {
    const attn_trace *t = app_trace(st);
    int len = 0;
    const char *tok = st->view.query < t->n ? attn_token_text(&t->tokens, st->view.query, &len) : "";
    snprintf(st->edit.query_word, sizeof st->edit.query_word, "%.*s", len < 63 ? len : 0, tok);
    st->edit.query_at = st->view.query;
    app_edit_begin_other(st, st->src.sentence, NULL, NULL);
}

void app_edit_begin_other(app_state *st, const char *text, app_edit_check check, void *ctx) {
    if (!app_editor_begin(&st->edit.ed, text, ATTN_MAX_SENTENCE_BYTES)) return;
    st->edit.check = check;
    st->edit.ctx = ctx;
    st->dirty = true;
}

/* The compared sentence as the learner types it: one the model reads
 * becomes the second side at once (pair and its run); one it cannot read
 * leaves the last valid one on screen and says why. */
static bool pair_check(void *ctx, const char *text, char *why, size_t cap) {
    app_state *st = ctx;
    model_result r;
    memset(&r, 0, sizeof r);
    bool labelled = false;
    attn_err err;
    if (model_run_view(&r, st->model.m, text, strlen(text), -1, &labelled, &err) != ATTN_OK) {
        app_err_text(st, &err, why, cap);
        return false;
    }
    char *copy = strdup(text);
    if (!copy) {
        model_result_free(&r);
        return false;
    }
    free(st->src.pair);
    st->src.pair = copy;
    model_result_free(&st->model.pair_run);
    st->model.pair_run = r;
    st->dirty = true;
    return true;
}

bool app_edit_pair(app_state *st) {
    if (!st->model.m || st->view.compare != VIZ_COMPARE_SENTENCE || !st->src.pair || st->edit.ed.active) return false;
    app_edit_begin_other(st, st->src.pair, pair_check, st);
    if (!st->edit.ed.active) return false;
    app_status(st, "%s", app_str(st, VIZ_S_STATUS_EDIT_PAIR));
    return true;
}

void app_edit_drop(app_state *st, void *ctx) {
    if (!st->edit.ed.active || st->edit.ctx != ctx) return;
    st->edit.check = NULL;
    st->edit.ed.active = false;
}

void app_edit_select_all(app_state *st) {
    if (!st->edit.ed.active) return;
    app_editor_select_all(&st->edit.ed);
    st->dirty = true;
}

void app_edit_insert(app_state *st, const char *utf8) {
    app_editor *e = &st->edit.ed;
    app_editor_result r = app_editor_insert(e, utf8);
    if (r == APP_EDITOR_FULL) {
        snprintf(e->error, sizeof e->error, app_str(st, VIZ_S_EDIT_FULL), ATTN_MAX_SENTENCE_BYTES);
        st->dirty = true;
    } else if (r == APP_EDITOR_CHANGED) {
        edit_apply(st);
    }
}

void app_edit_word(app_state *st, int i) {
    const model *m = st->model.m;
    if (!m || i < 0 || i >= m->vocab_count) return;
    if (!st->edit.ed.active) app_edit_begin(st);
    app_editor *e = &st->edit.ed;
    if (!e->active) return;
    const char *w = m->vocab[i];
    bool spaced = strchr(e->text, ' ') != NULL, punct = !((w[0] | 0x20) >= 'a' && (w[0] | 0x20) <= 'z') && (unsigned char)w[0] < 0x80 && !(w[0] >= '0' && w[0] <= '9');
    bool after_space = e->cursor == 0 || e->text[e->cursor - 1] == ' ';
    char buf[160];
    snprintf(buf, sizeof buf, "%s%s", spaced && !after_space && !punct ? " " : "", w);
    app_edit_insert(st, buf);
}

void app_edit_compose(app_state *st, const char *preedit) {
    if (!st->edit.ed.active) return;
    app_editor_compose(&st->edit.ed, preedit);
    st->dirty = true;
}

void app_edit_backspace(app_state *st) {
    if (app_editor_backspace(&st->edit.ed)) edit_apply(st);
}

void app_edit_delete(app_state *st) {
    if (app_editor_delete(&st->edit.ed)) edit_apply(st);
}

void app_edit_move(app_state *st, int delta) {
    if (!st->edit.ed.active) return;
    app_editor_move(&st->edit.ed, delta);
    st->dirty = true;
}

void app_edit_commit(app_state *st) {
    app_editor *e = &st->edit.ed;
    if (!e->active) return;
    if (e->error[0]) { // what is typed is no sentence: the one from before editing comes back, not a fragment
        char why[sizeof e->error];
        snprintf(why, sizeof why, "%s", e->error);
        app_edit_cancel(st);
        app_status(st, app_str(st, VIZ_S_STATUS_EDIT_REVERTED), why);
        return;
    }
    bool other = st->edit.check != NULL;
    if (!other && st->model.m && e->backup && strcmp(e->backup, st->src.sentence) != 0) { // two sentences to compare
        char *pair = strdup(e->backup);
        if (pair) {
            free(st->src.pair);
            st->src.pair = pair;
        }
    }
    app_editor_end(e);
    st->edit.check = NULL;
    if (!other && st->view.compare == VIZ_COMPARE_SENTENCE) app_recompute(st); // beside the sentence before it
    st->dirty = true;
}

void app_edit_cancel(app_state *st) {
    app_editor *e = &st->edit.ed;
    if (!e->active) return;
    app_editor_end(e);
    e->error[0] = '\0';
    if (st->edit.check) { // the text from before editing goes back to its owner
        app_edit_check check = st->edit.check;
        st->edit.check = NULL;
        if (e->backup) check(st->edit.ctx, e->backup, e->error, sizeof e->error);
        e->error[0] = '\0';
        st->dirty = true;
        return;
    }
    if (e->backup && strcmp(e->backup, st->src.sentence) != 0) {
        attn_err err;
        if (app_compute(st, e->backup, &st->src.cfg, &err) == ATTN_OK) {
            free(st->src.sentence);
            st->src.sentence = app_editor_take_backup(e);
        }
    }
    st->dirty = true;
}

/* ---- the window ---- */

void app_toggle_lines_all(app_state *st) {
    st->view.lines_all = !st->view.lines_all;
    st->dirty = true;
}

/* ---- the tiles view (issue 24 part 4) ---- */

void app_toggle_tiles(app_state *st) {
    st->view.show_tiles = !st->view.show_tiles;
    if (st->view.tiles_b <= 0) st->view.tiles_b = 4;
    st->view.tiles_step = 0;
    st->dirty = true;
}

void app_tiles_step(app_state *st, int delta) {
    int n = app_trace(st)->n, b = st->view.tiles_b < n ? st->view.tiles_b : n;
    int blocks = b > 0 ? (n + b - 1) / b : 1, last = blocks * blocks - 1;
    long long at = delta == INT_MIN ? 0 : delta == INT_MAX ? last
                                                           : (long long)st->view.tiles_step + delta;
    st->view.tiles_step = at < 0 ? 0 : at > last ? last
                                                 : (int)at;
    st->dirty = true;
}

void app_tiles_block(app_state *st, int delta) {
    int n = app_trace(st)->n, b = st->view.tiles_b + delta, hi = n < ATTN_MAX_TILE ? n : ATTN_MAX_TILE;
    st->view.tiles_b = b < 1 ? 1 : b > hi ? hi
                                          : b;
    st->view.tiles_step = 0;
    st->dirty = true;
}

bool app_toggle_lab(app_state *st) {
    st->view.show_lab = !st->view.show_lab;
    st->dirty = true;
    return st->view.show_lab;
}

void app_kv_heads_step(app_state *st, int dir) {
    if (st->hf) { // a real model's heads are its own
        app_status(st, "%s", app_str(st, VIZ_S_HF_FIXED));
        return;
    }
    attn_config c = st->src.cfg;
    int g = attn_kv_heads(&c);
    do g -= dir; // the next divisor of heads: fewer kv-heads (more sharing) for dir +1
    while (g >= 1 && g <= c.heads && c.heads % g);
    if (g < 1 || g > c.heads) return;
    c.kv_heads = g == c.heads ? 0 : g;
    app_recompute_with(st, &c);
}

void app_toggle_decode(app_state *st) {
    st->view.show_decode = !st->view.show_decode;
    st->dirty = true;
}

void app_decode_token(app_state *st, int d) {
    int q = st->view.query + d, n = app_trace(st)->n;
    app_select_query(st, q < 0 ? 0 : q >= n ? n - 1
                                            : q);
}

void app_lab_progress(app_state *st, const attn_cx_result *lab, float elapsed) {
    st->view.lab = lab;
    st->view.lab_elapsed = elapsed;
    if (st->view.show_lab) st->dirty = true;
}

void app_set_zoom(app_state *st, float zoom) {
    st->look.zoom = zoom < 0.5f ? 0.5f : zoom > 3.0f ? 3.0f
                                                     : zoom;
    st->dirty = true;
}

void app_set_fullscreen(app_state *st, bool on) {
    st->look.fullscreen = on;
    st->dirty = true;
}

void app_resize(app_state *st, int width, int height) {
    st->look.width = width;
    st->look.height = height;
    st->dirty = true;
}

void app_set_dpi_scale(app_state *st, float scale) {
    st->look.dpi_scale = scale;
    st->dirty = true;
}

void app_repaint(app_state *st) {
    st->dirty = true;
}

void app_quit(app_state *st) {
    st->quit = true;
}

/* Pixels one wheel notch moves a text or the canvas by, at the UI's scale. */
static float wheel_px(const app_state *st, int notches) {
    return (float)notches * 40.0f * st->look.dpi_scale * st->look.zoom;
}

void app_wheel_narrative(app_state *st, int notches, int scroll_max, int shown) {
    if (st->view.narrative_scroll < 0) st->view.narrative_scroll = (float)shown; // from where it scrolled itself
    st->view.narrative_scroll -= wheel_px(st, notches);                          // within the text as last drawn: never past its end
    if (st->view.narrative_scroll > (float)scroll_max) st->view.narrative_scroll = (float)scroll_max;
    if (st->view.narrative_scroll < 0) st->view.narrative_scroll = 0;
    st->dirty = true;
}

void app_wheel_detail(app_state *st, int notches) {
    int n = st->src.explain_valid ? st->src.explain->n_terms : 0; // one term a notch, within the terms
    st->view.detail_scroll -= notches > 0 ? 1 : notches < 0 ? -1
                                                            : 0;
    st->view.detail_scroll = st->view.detail_scroll < -n ? -n : st->view.detail_scroll > n ? n
                                                                                           : st->view.detail_scroll;
    st->dirty = true;
}

void app_wheel_zoom(app_state *st, int notches) {
    st->view.canvas_zoom *= notches > 0 ? 1.15f : 1 / 1.15f; // big sentences need it
    if (st->view.canvas_zoom < 1.0f) st->view.canvas_zoom = 1.0f;
    if (st->view.canvas_zoom > 8.0f) st->view.canvas_zoom = 8.0f;
    if (st->view.canvas_zoom == 1.0f) st->view.pan_x = st->view.pan_y = 0; // at fit there is nothing to pan
    st->dirty = true;
}

void app_wheel_pan(app_state *st, int notches, bool sideways) {
    if (sideways) st->view.pan_x -= wheel_px(st, notches);
    else st->view.pan_y -= wheel_px(st, notches);
    if (st->view.canvas_zoom == 1.0f) st->view.pan_x = st->view.pan_y = 0; // at fit there is nothing to pan
    st->dirty = true;
}
