/* app_lesson.c — floor 3 of src/app: lessons in the window: pages, their
 * settings and designed weights, the language pair, predict-before-reveal,
 * reloading on change. */
#include "app_lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "page.h"
#include "strbuf.h"
#include "utf8.h"
#include "viz_lesson.h"

/* When a regular file was last changed; -1 for anything else: a pipe or
 * FIFO the user named is read once and never watched. */
static long long mtime_ns(const char *path) {
    struct stat sb;
    if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return -1;
    return (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
}

/* The UI strings of the lesson's own language (its references are worded in it). */
static const char *const *lesson_words(const app_state *st, const lesson *l) {
    viz_lang lang = strcmp(lesson_lang(l), "zh") == 0 ? VIZ_LANG_ZH : VIZ_LANG_EN;
    return st->look.strings ? st->look.strings->s[lang] : NULL;
}

/* The tokens of the sentence the lesson's vocabulary does not list, as a
 * paragraph that says how their rows of X were made. */
static void vocab_note(attn_strbuf *b, const app_state *st) {
    const attn_trace *t = &st->src.trace;
    attn_strbuf names;
    attn_sb_init(&names);
    char lab[96];
    for (int i = 0; i < t->n && t->vocab_used; i++) {
        if (t->vocab_index[i] >= 0) continue;
        bool seen = false; // the same token again is the same vector: name it once
        for (int j = 0; j < i && !seen; j++) {
            int la, lb;
            const char *a = attn_token_text(&t->tokens, i, &la), *c = attn_token_text(&t->tokens, j, &lb);
            seen = t->vocab_index[j] < 0 && la == lb && memcmp(a, c, (size_t)la) == 0;
        }
        if (seen) continue;
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        snprintf(lab, sizeof lab, "%.*s", len, tok);
        attn_sb_printf(&names, "%s%s", names.len ? (st->look.lang == VIZ_LANG_ZH ? "”、“" : "\", \"") : "", lab);
    }
    if (names.len) {
        attn_sb_printf(b, app_str(st, VIZ_S_NOT_IN_VOCAB), names.data);
        attn_sb_puts(b, "\n\n");
    }
    attn_sb_free(&names);
}

/* The labels of words that occur more than once ("2:只", "7:只"), as a
 * paragraph that says what the number is. */
static void positions_note(attn_strbuf *b, const app_state *st) {
    const attn_trace *t = app_trace(st);
    attn_strbuf names;
    attn_sb_init(&names);
    char lab[96];
    for (int i = 0; i < t->n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        if ((int)strlen(lab) == len && memcmp(lab, tok, (size_t)len) == 0) continue; // labelled by its text alone
        attn_sb_printf(&names, "%s%s", names.len ? (st->look.lang == VIZ_LANG_ZH ? "”、“" : "\", \"") : "", lab);
    }
    if (names.len) {
        attn_sb_printf(b, app_str(st, VIZ_S_TOKEN_POSITIONS), names.data);
        attn_sb_puts(b, "\n\n");
    }
    attn_sb_free(&names);
}

/* The verdict of the learner's guess, at the top of the revealed text of b
 * (the page's narrative once answered; x as it was built with): what the
 * status line says, where the learner reads on. */
static void verdict(app_state *st, const lesson_page *pg, attn_strbuf *b, const viz_ref_ctx *x) {
    const attn_trace *t = app_trace(st);
    char label[96], guess[96], answer[96], line[512];
    int g = st->lesson.guess;
    if (st->lesson.predict_pending || !pg->predict.on || g < 0 || g >= t->n || !attn_sb_ok(b)) return;
    attn_token_label(&t->tokens, g, 0, label, sizeof label);
    if (strcmp(label, st->lesson.guess_label) != 0) return; // the sentence changed since: the guess was about another
    int h = st->lesson.predict_head < t->cfg.heads ? st->lesson.predict_head : 0, q = st->view.query;
    if (q < 0 || q >= t->n) return;
    const double *row = t->head[h].weights + (size_t)q * t->n;
    int best = 0;
    for (int j = 1; j < t->n; j++)
        if (row[j] > row[best]) best = j;
    attn_token_label(&t->tokens, g, 16, guess, sizeof guess);
    attn_token_label(&t->tokens, best, 16, answer, sizeof answer);
    if (best == g) snprintf(line, sizeof line, app_str(st, VIZ_S_PREDICT_RIGHT), guess, row[best]);
    else snprintf(line, sizeof line, app_str(st, VIZ_S_PREDICT_WRONG), guess, answer, row[best]);
    attn_strbuf asked; // the text before the answer: the revealed text starts where it ends
    attn_sb_init(&asked);
    viz_lesson_narrative(&asked, pg, true, x);
    size_t at = attn_sb_ok(&asked) && asked.len > 0 && asked.len <= b->len && !memcmp(asked.data, b->data, asked.len)
                    ? asked.len
                    : 0;
    attn_sb_free(&asked);
    attn_strbuf out;
    attn_sb_init(&out);
    if (at) attn_sb_append(&out, b->data, at);
    attn_sb_printf(&out, "%s%s\n\n", VIZ_VERDICT_MARK, line);
    if (b->len > at) attn_sb_append(&out, b->data + at, b->len - at);
    if (!attn_sb_ok(&out)) {
        attn_sb_free(&out);
        return;
    }
    attn_sb_free(b);
    *b = out;
}

void app_lesson_refresh_narrative(app_state *st) {
    const lesson *l = app_lesson(st);
    const lesson_page *pg = app_lesson_page_shown(st);
    free(st->lesson.narrative);
    st->lesson.narrative = NULL;
    st->lesson.narrative_stale = false;
    if (!pg) return;
    attn_strbuf b;
    attn_sb_init(&b);
    bool model = st->model.m && pg->model; // the page's model, as the page shows it
    viz_ref_ctx x = {.trace = app_trace(st), .alt = st->src.alt.n ? &st->src.alt : NULL, .model = model ? st->model.m : NULL, .run = model ? &st->model.run : NULL, .layer = lesson_page_layer(pg), .ui = lesson_words(st, l), .sentence = st->src.sentence};
    page_hf heads; // an @hf page: its model's heads, or its @missing text
    app_hf_page_heads(st, &heads);
    x.hf = &heads;
    x.hf_found = pg->hf_name && heads.count > 0;
    viz_lesson_narrative(&b, pg, st->lesson.predict_pending, &x);
    verdict(st, pg, &b, &x);
    if (!model) vocab_note(&b, st);
    positions_note(&b, st);
    st->lesson.narrative = attn_sb_take(&b);
    st->dirty = true;
}

char *app_lesson_narrative_at(const app_state *st, int page, const char **title) {
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, page) : NULL;
    if (!pg) return NULL;
    attn_strbuf b;
    attn_sb_init(&b);
    viz_ref_ctx x = {.trace = app_trace(st), .alt = st->src.alt.n ? &st->src.alt : NULL, .layer = lesson_page_layer(pg), .ui = lesson_words(st, l)};
    viz_lesson_narrative(&b, pg, pg->predict.on, &x);
    *title = pg->title;
    return attn_sb_take(&b);
}

const char *app_lesson_narrative(app_state *st) {
    if (st->lesson.narrative_stale) app_lesson_refresh_narrative(st);
    return st->lesson.narrative;
}

static void set_question(app_state *st, const lesson_page *pg) {
    st->lesson.predict_pending = pg->predict.on;
    if (!pg->predict.on) return;
    if (st->model.m && pg->predict.layer >= 0) st->model.layer = pg->predict.layer; // the layer asked about
    int q = lesson_find_token(&app_trace(st)->tokens, &pg->predict.query);
    if (q >= 0) st->view.query = q;
    st->lesson.predict_head = pg->predict.head;
    if (st->view.compare != VIZ_COMPARE_HEADS) st->view.head = pg->predict.head < st->src.cfg.heads ? pg->predict.head : 0;
    st->view.step = ATTN_STEP_SOFTMAX; // the question is about the weights: show them (once revealed)
}

/* true when a page's @compare changes the scaling and nothing else (the C key's own view). */
static bool compares_scale_only(const lesson_page *pg) {
    attn_config c = pg->cfg;
    char diff[160];
    c.scale = pg->compare.cfg.scale;
    return attn_config_diff_text(diff, sizeof diff, &c, &pg->compare.cfg) == 0;
}

/* The page's split view: before computing, which the comparisons need. */
static void set_compare(app_state *st, const lesson_page *pg) {
    st->view.compare = VIZ_COMPARE_OFF;
    free(st->src.pair); // a page's own pair, or none: the last page's is not this one's
    st->src.pair = NULL;
    if (pg->compare.kind == LESSON_CMP_SENTENCE && (st->src.pair = strdup(pg->compare.sentence)))
        st->view.compare = VIZ_COMPARE_SENTENCE;
    if (pg->compare.kind == LESSON_CMP_HEADS) {
        st->view.compare = VIZ_COMPARE_HEADS;
        st->view.head = pg->compare.head_a;
        st->view.head_b = pg->compare.head_b;
    } else if (pg->compare.kind == LESSON_CMP_CONFIG) {
        st->view.compare = compares_scale_only(pg) ? VIZ_COMPARE_SCALE : VIZ_COMPARE_CONFIG;
        st->src.compare_base = pg->cfg;
        st->src.compare_cfg = pg->compare.cfg;
    }
}

bool app_page_compares_config(const app_state *st) {
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    return pg && pg->compare.kind == LESSON_CMP_CONFIG && !compares_scale_only(pg);
}

/* The page's step and highlighted token, found in the computed sentence. */
static void set_view(app_state *st, const lesson_page *pg) {
    if (pg->step >= 0) st->view.step = (attn_step)pg->step;
    st->view.show_decode = pg->view == LESSON_VIEW_DECODE; // @view: the page's own view, or none
    st->view.show_tiles = pg->view == LESSON_VIEW_TILES;
    if (st->view.show_tiles) st->view.tiles_b = pg->view_block, st->view.tiles_step = 0;
    if (st->model.m) { // a model page: its layer, its readout, its backward pass
        st->model.layer = lesson_page_layer(pg);
        st->model.readout = pg->readout;
        st->model.backward = pg->backward;
    }
    const lesson_highlight *hl = &pg->highlight;
    if (hl->kind == LESSON_HL_TOKEN || hl->kind == LESSON_HL_ROW || hl->kind == LESSON_HL_CELL) {
        int q = lesson_find_token(&app_trace(st)->tokens, &hl->a);
        if (q >= 0) st->view.query = q;
    }
}

/* The page's computation: its model on its sentence, or its one layer with
 * its settings and designs; a page whose model cannot be read says so over
 * the canvas and shows its sentence in one layer. */
static attn_status page_compute(app_state *st, const lesson_page *pg, const char *sentence, attn_err *err) {
    if (pg->model) {
        model m;
        attn_status rc = model_copy(&m, page_model(pg), err);
        return rc == ATTN_OK ? app_model_show(st, &m, APP_MODEL_FILE, pg->model_path, sentence, err) : rc;
    }
    attn_status rc = app_set_sentence(st, sentence, &pg->cfg, err);
    if (rc == ATTN_OK && pg->hf_path) { // a real model's page: the page's layer until the worker publishes the run
        attn_err why;
        const lesson_ref *first = NULL; // the head the page names first is the one shown
        for (int i = 0; i < pg->n_refs && !first; i++)
            if (pg->refs[i].kind == LESSON_REF_HEADS) first = &pg->refs[i];
        if (app_hf_open_page(st, pg->hf_path, sentence, first ? (int)first->field : -1, first ? first->threshold : 0.0,
                             &why) != ATTN_OK)
            app_status_err(st, &why); // its @missing text then
    }
    if (rc == ATTN_OK && pg->model_name) {
        if (pg->train_task)
            snprintf(st->src.notice, sizeof st->src.notice, app_str(st, VIZ_S_NOTICE_MODEL_MISSING), pg->model_name,
                     pg->model_why ? pg->model_why : "", pg->train_task);
        else
            snprintf(st->src.notice, sizeof st->src.notice, app_str(st, VIZ_S_NOTICE_MODEL_UNREAD), pg->model_name,
                     pg->model_why ? pg->model_why : "");
        utf8_trim_partial(st->src.notice);
    }
    return rc;
}

void app_lesson_goto(app_state *st, int page) {
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, page) : NULL;
    if (!pg) return;
    app_model_close(st); // the page's own view
    if (st->hf) {        // the last page's real model (--hf and --lesson never meet): this page computes its own
        app_hf_free(st);
        st->model.layer = 0, st->model.readout = false;
    }
    st->lesson.page = page;
    st->lesson.guess = -1;     // a new page asks anew
    st->look.status[0] = '\0'; // the last page's message does not belong to this one
    st->src.vocab = lesson_vocab(l);
    st->src.design_cfg = pg->cfg;
    st->src.weights = APP_WEIGHTS_DESIGN; // bound to the settings at each computation (weights_for)
    st->src.notice[0] = '\0';
    st->view.head = 0;
    st->view.canvas_zoom = 1.0f;
    st->view.pan_x = st->view.pan_y = st->view.narrative_scroll = 0;
    set_compare(st, pg);
    char *copy = strdup(pg->sentence && *pg->sentence ? pg->sentence : st->src.sentence);
    attn_err err;
    attn_status rc = copy ? page_compute(st, pg, copy, &err) : attn_fail(&err, ATTN_ERR_NOMEM, "Not enough memory for the page.");
    if (rc == ATTN_OK) {
        st->view.query = attn_trace_default_query(app_trace(st)); // 它/it when present: the classic question
        set_view(st, pg);
        set_question(st, pg);
        if (st->model.m) app_recompute(st); // the layer and the query chosen: the run, its target and the comparison
    } else {
        app_status_err(st, &err);
    }
    free(copy);
    app_lesson_refresh_narrative(st);
    snprintf(st->lesson.page_label, sizeof st->lesson.page_label, "%d / %d · %s", page + 1, lesson_page_count(l), pg->title);
    utf8_trim_partial(st->lesson.page_label);
    st->dirty = true;
}

/* A lesson attnviz finds by itself (the other language, a reload): only a
 * regular file, never waited on like a FIFO; lesson_load reads it. */
static attn_status load_found(lesson **out, const char *path, attn_err *err) {
    *out = NULL;
    if (mtime_ns(path) < 0) { // missing or not a regular file: fileio refuses it in its words, without waiting
        char *none = NULL;
        size_t len = 0;
        attn_status rc = attn_read_regular_file(path, LESSON_MAX_BYTES, &none, &len, err);
        free(none);
        if (rc != ATTN_OK) return rc;
    }
    return page_lesson_load(out, path, err);
}

/* Puts l (owned from now on) into slot lang as path's lesson. */
static attn_status put_slot(app_state *st, int lang, lesson *l, const char *path, attn_err *err) {
    char *copy = strdup(path);
    if (!copy) {
        lesson_free(l);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to open %s.", path);
    }
    lesson_free(st->lesson.files[lang]);
    free(st->lesson.paths[lang]);
    st->lesson.files[lang] = l;
    st->lesson.paths[lang] = copy;
    st->lesson.mtimes[lang] = mtime_ns(path);
    return ATTN_OK;
}

attn_status app_lesson_open(app_state *st, const char *path, const char *pair_path, const char *page_id,
                            attn_err *err) {
    lesson *l = NULL;
    attn_status rc = page_lesson_load(&l, path, err);
    if (rc != ATTN_OK) return rc;
    int lang = strcmp(lesson_lang(l), "zh") == 0 ? VIZ_LANG_ZH : VIZ_LANG_EN;
    rc = put_slot(st, lang, l, path, err); // read once: the path may be a pipe
    if (rc != ATTN_OK) return rc;
    lesson *pair = NULL;
    attn_err ignored;
    if (pair_path && load_found(&pair, pair_path, &ignored) == ATTN_OK) // optional: without it L only changes the UI
        put_slot(st, !lang, pair, pair_path, &ignored);
    st->look.lang = (viz_lang)lang;
    int page = page_id ? lesson_find_page(st->lesson.files[lang], page_id) : 0;
    if (page < 0) return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_LESSON_NO_PAGE, path, page_id);
    app_lesson_goto(st, page);
    return ATTN_OK;
}

void app_lesson_turn(app_state *st, int delta) {
    const lesson *l = app_lesson(st);
    if (!l) return;
    int p = st->lesson.page + delta;
    if (p >= 0 && p < lesson_page_count(l)) app_lesson_goto(st, p);
}

/* After L: the question stays answered, and a sentence the learner edited
 * in the other language is kept for it (said in the status line); one kept
 * for this language on this page comes back. */
static void carry_over(app_state *st, const lesson_page *from, bool answered, char *mine, int from_lang) {
    const lesson_page *pg = app_lesson_page_shown(st);
    if (!pg) {
        free(mine);
        return;
    }
    if (answered && pg->predict.on && st->lesson.predict_pending) {
        st->lesson.predict_pending = false;
        app_hover(st, st->view.hover);
    }
    int lang = st->look.lang;
    char *back = st->lesson.kept[lang];
    st->lesson.kept[lang] = NULL;
    if (back && strcmp(st->lesson.kept_page, pg->id) == 0) {
        attn_err err;
        if (app_set_sentence(st, back, &st->src.cfg, &err) == ATTN_OK) st->view.query = attn_trace_default_query(app_trace(st));
    }
    free(back);
    if (mine) {
        free(st->lesson.kept[from_lang]);
        st->lesson.kept[from_lang] = mine;
        snprintf(st->lesson.kept_page, sizeof st->lesson.kept_page, "%s", from->id);
        app_status(st, app_str(st, VIZ_S_STATUS_LANG_KEPT), mine);
    }
    st->lesson.narrative_stale = true;
}

void app_switch_lang(app_state *st) {
    const lesson *from = app_lesson(st);
    const lesson_page *pg = from ? lesson_page_at(from, st->lesson.page) : NULL;
    bool answered = pg && pg->predict.on && !st->lesson.predict_pending && !st->model.m == !pg->model;
    bool edited = pg && pg->sentence && st->src.sentence && strcmp(pg->sentence, st->src.sentence) != 0;
    char *mine = edited ? strdup(st->src.sentence) : NULL;
    int from_lang = st->look.lang;
    st->look.lang = (viz_lang)!st->look.lang;
    const lesson *to = st->lesson.files[st->look.lang];
    if (pg && to && to != from) {
        int p = lesson_find_page(to, pg->id);
        app_lesson_goto(st, p >= 0 ? p : 0);
        carry_over(st, pg, answered, mine, from_lang);
        mine = NULL;
    }
    free(mine);
    app_refresh_texts(st);
}

void app_lesson_guess(app_state *st, int token) {
    const attn_trace *t = app_trace(st);
    if (!st->lesson.predict_pending || token < 0 || token >= t->n) return;
    st->lesson.predict_pending = false;
    int h = st->lesson.predict_head < st->src.cfg.heads ? st->lesson.predict_head : 0;
    const double *row = t->head[h].weights + (size_t)st->view.query * t->n;
    int best = 0;
    for (int j = 1; j < t->n; j++)
        if (row[j] > row[best]) best = j;
    char guess[96], answer[96];
    attn_token_label(&t->tokens, token, 16, guess, sizeof guess);
    attn_token_label(&t->tokens, best, 16, answer, sizeof answer);
    if (best == token)
        app_status(st, app_str(st, VIZ_S_PREDICT_RIGHT), guess, row[best]);
    else
        app_status(st, app_str(st, VIZ_S_PREDICT_WRONG), guess, answer, row[best]);
    st->lesson.guess = token; // its verdict heads the revealed text, scrolled to
    attn_token_label(&t->tokens, token, 0, st->lesson.guess_label, sizeof st->lesson.guess_label);
    st->view.narrative_scroll = -1;
    app_lesson_refresh_narrative(st); // the text after @reveal
    st->dirty = true;
}

void app_lesson_try(app_state *st, int i) {
    const lesson_page *pg = app_lesson_page_shown(st);
    if (!pg || i < 0 || i >= pg->n_tries) return;
    attn_err err;
    char why[512];
    if (app_set_sentence(st, pg->tries[i], &st->src.cfg, &err) != ATTN_OK) {
        app_err_text(st, &err, why, sizeof why);
        app_status(st, "%s", why);
    } else st->view.query = attn_trace_default_query(app_trace(st)); // the question stays on the pronoun
    st->lesson.narrative_stale = true;
    st->dirty = true;
}

/* Where b differs from a, as a chip says it: from a word (a character
 * without spaces) before the first difference to the end. */
static void try_label(char *out, size_t cap, const char *a, const char *b) {
    size_t i = 0;
    while (a[i] && a[i] == b[i]) i++;
    while (i > 0 && ((unsigned char)b[i] & 0xC0) == 0x80) i--; // the start of a character
    bool spaced = strchr(b, ' ') != NULL;
    for (int words = 0; i > 0 && words < (spaced ? 2 : 1);) { // one word of context
        i--;
        if (spaced ? (b[i] == ' ' && ++words == 2) : (((unsigned char)b[i] & 0xC0) != 0x80 && ++words == 1)) break;
    }
    if (spaced && b[i] == ' ') i++;
    snprintf(out, cap, "%s%s", i > 0 ? "…" : "", b + i);
    utf8_trim_partial(out);
}

int app_lesson_tries(app_state *st, const char **out) {
    const lesson_page *pg = app_lesson_page_shown(st);
    int n = 0;
    for (; pg && n < pg->n_tries && n < VIZ_MAX_TRIES; n++) {
        try_label(st->lesson.try_labels[n], sizeof st->lesson.try_labels[n], pg->sentence, pg->tries[n]);
        out[n] = st->lesson.try_labels[n];
    }
    return n;
}

bool app_lesson_reload(app_state *st) {
    bool changed = false;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        const char *path = st->lesson.paths[lang];
        long long m = mtime_ns(path);
        if (!path || m == st->lesson.mtimes[lang]) continue;
        st->lesson.mtimes[lang] = m; // report a broken file once, not every second
        attn_err err;
        lesson *l = NULL;
        char *copy = strdup(path);
        if (copy && (load_found(&l, copy, &err) != ATTN_OK || put_slot(st, lang, l, copy, &err) != ATTN_OK))
            app_status_err(st, &err);
        else if (copy) changed = true;
        free(copy);
    }
    if (!changed) return false;
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    app_lesson_goto(st, pg ? st->lesson.page : 0); // the page stays, with the file's new content
    app_status(st, "%s", app_str(st, VIZ_S_STATUS_RELOADED));
    return true;
}
