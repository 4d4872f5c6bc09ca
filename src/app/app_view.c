/* app_view.c — floor 4 of src/app: the scene, the copied matrix and the
 * command line, derived from the state. */
#include "app_view.h"
#include "attn_steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "strbuf.h"
#include "utf8.h"
#include "viz_lesson.h"

/* The decode view's narrative (viz_decode_narrative) for the token shown. */
static void decode_narrative(app_state *st, viz_scene *s) {
    const attn_decode *d = &st->src.decode;
    int t = s->query >= 0 && s->query < d->n ? s->query : d->n - 1;
    viz_decode_narrative(st->src.decode_text, sizeof st->src.decode_text,
                         st->look.strings ? st->look.strings->s[st->look.lang] : NULL, d, t);
    s->narrative = st->src.decode_text;
    s->narrative_title = app_str(st, VIZ_S_DECODE_NARRATIVE);
}

/* The tiles view's record of the shown head at its B (clipped to n), made
 * again from the trace shown: a few microseconds at n = 20. */
static void tiles_refresh(app_state *st) {
    const attn_trace *t = app_trace(st);
    attn_tiles_free(&st->view.tiles);
    int b = st->view.tiles_b < t->n ? st->view.tiles_b : t->n, head = st->view.head < t->cfg.heads ? st->view.head : 0;
    if (b < 1 || attn_tiles_of_head(&st->view.tiles, t, head, b, NULL) != ATTN_OK) return;
    if (st->view.tiles_step >= st->view.tiles.count) st->view.tiles_step = st->view.tiles.count - 1;
}

void app_scene(app_state *st, viz_scene *s, char *badge, size_t cap) {
    const char *narrative = app_lesson_narrative(st); // first: it may be stale
    memset(s, 0, sizeof *s);
    s->trace = app_trace(st);
    s->alt_trace = st->src.alt.n ? &st->src.alt : NULL;
    s->compare_labels[0] = st->src.compare_labels[0];
    s->compare_labels[1] = st->src.compare_labels[1];
    const model_result *pr = &st->model.pair_run;
    if (st->model.m && st->view.compare == VIZ_COMPARE_SENTENCE && st->src.pair && pr->layer[st->model.layer].n > 0) {
        const attn_trace *t2 = &pr->layer[st->model.layer], *t1 = &st->model.run.layer[st->model.layer];
        s->alt_trace = t2;
        s->alt_run = pr;
        s->compare_labels[0] = st->src.sentence;
        s->compare_labels[1] = st->src.pair;
        char q[96], lab[96]; // the query on the same word in the other sentence, else its pronoun
        s->alt_query = attn_trace_default_query(t2);
        attn_token_label(&t1->tokens, st->view.query >= 0 && st->view.query < t1->n ? st->view.query : 0, 0, q, sizeof q);
        for (int i = 0; i < t2->n; i++) {
            attn_token_label(&t2->tokens, i, 0, lab, sizeof lab);
            if (!strcmp(lab, q)) {
                s->alt_query = i;
                break;
            }
        }
    }
    s->notice = st->src.notice[0] ? st->src.notice : NULL;
    s->origin = app_origin(st);
    s->feature_names = !st->model.m && st->src.vocab && st->src.vocab->dim == st->src.cfg.d_model && st->src.trace.vocab_rows
                           ? st->src.vocab->features
                           : NULL;
    s->model = st->model.m;
    s->run = st->model.m ? &st->model.run : NULL;
    s->layer = st->model.layer;
    s->readout = (st->model.m || st->hf) && st->model.readout;
    s->hf = app_hf_view(st);
    s->backward = st->model.m && st->model.backward;
    s->target = st->model.target_labelled ? VIZ_TARGET_TASK : VIZ_TARGET_PREDICTED;
    s->page_model = st->model.from_page;
    s->model_explain = st->model.m && st->src.explain_valid ? st->model.explain : NULL;
    s->step = st->view.step;
    s->head = st->view.head;
    s->head_b = st->view.head_b;
    s->query = st->view.query;
    s->hover = st->view.hover;
    s->explain = st->src.explain_valid && !st->model.m && !(st->hf && st->model.readout) ? st->src.explain : NULL;
    s->compare = st->view.compare;
    s->lines_all_heads = st->view.lines_all;
    s->focus = st->view.focus;
    s->canvas_zoom = st->view.canvas_zoom;
    s->canvas_pan_x = st->view.pan_x;
    s->canvas_pan_y = st->view.pan_y;
    s->narrative_scroll = st->view.narrative_scroll;
    s->detail_scroll = st->view.detail_scroll;
    const app_editor *e = &st->edit.ed;
    // the sentence bar edits a sentence: the page's, or the compared one (app_edit_pair: owned by st), not F3's probe
    bool bar = e->active && (!st->edit.check || st->edit.ctx == (void *)st);
    s->sentence = bar ? e->text : st->src.sentence;
    s->editing = bar;
    s->cursor = e->cursor;
    s->sel_anchor = bar ? e->sel_anchor : -1;
    s->composition = bar ? e->composition : "";
    s->edit_error = bar && e->error[0] ? e->error : NULL;
    s->ui = st->look.strings ? st->look.strings->s[st->look.lang] : NULL;
    app_badge(st, badge, cap);
    s->badge = badge;
    s->status = st->look.status[0] ? st->look.status : NULL;
    s->show_help = st->view.show_help;
    s->figure_only = st->view.figure_only;
    s->help_note = plat_keeps_keys() ? app_str(st, VIZ_S_HELP_BROWSER_KEYS) : NULL;
    s->show_lab = st->view.show_lab;
    s->lab = st->view.lab;
    s->lab_elapsed = st->view.lab_elapsed;
    if (st->view.show_tiles) tiles_refresh(st);
    s->tiles = st->view.show_tiles && st->view.tiles.count ? &st->view.tiles : NULL;
    s->tiles_step = st->view.tiles_step;
    s->hide_weights = st->lesson.predict_pending;
    s->narrative = narrative;
    const lesson_page *pg = app_lesson_page_shown(st);
    s->narrative_title = pg ? pg->title : NULL;
    s->n_tries = app_lesson_tries(st, s->tries);
    const lesson *les = app_lesson(st);
    const lesson_page *left = les && !pg ? lesson_page_at(les, st->lesson.page) : NULL; // the page the walkthrough left
    if (left) {
        snprintf(st->lesson.walk_note, sizeof st->lesson.walk_note, app_str(st, VIZ_S_WALK_FROM_LESSON), left->title);
        utf8_trim_partial(st->lesson.walk_note);
    }
    s->narrative_note = left ? st->lesson.walk_note : NULL;
    if (st->hf && st->view.step == ATTN_STEP_EMBED && !st->model.readout) // a real model's X is not an embedding
        s->narrative_note = app_str(st, VIZ_S_HF_NOTE_X);
    bool palette = st->model.m && bar; // the model's sentence (or the compared one), being edited
    s->n_words = palette ? st->model.m->vocab_count : 0;
    s->words = palette ? (const char *const *)st->model.m->vocab : NULL;
    s->words_first = palette ? st->view.words_first : 0;
    s->mark = pg ? viz_lesson_mark(&pg->highlight, &app_trace(st)->tokens) : (viz_mark){VIZ_MARK_NONE, -1, -1};
    if (pg) viz_lesson_names(&s->names, app_lesson(st), st->lesson.page, app_trace(st));
    s->question = pg && pg->predict.on;
    s->page_label = st->lesson.page_label[0] ? st->lesson.page_label : NULL;
    s->pages = app_lesson(st);
    s->page = st->lesson.page;
    s->show_pages = st->view.show_pages && s->pages;
    s->theme = st->look.theme;
    s->scale = st->look.dpi_scale * st->look.zoom;
    s->width = st->look.width;
    s->height = st->look.height;
    s->show_decode = st->view.show_decode && !st->model.readout && !st->hf; // decoding is the toys' (8 heads at most)
    attn_decode_free(&st->src.decode);                                      // decoded afresh from the trace shown (64 tokens at most: cheap)
    if (s->show_decode && attn_decode_run(&st->src.decode, app_trace(st), NULL) == ATTN_OK) s->decode = &st->src.decode;
    if (s->decode && !pg) decode_narrative(st, s); // a lesson page says it in its own words, by reference
}

/* The stage the copy command takes: the hovered cell's, else what the view
 * shows: the step's result, its gradient with the backward pass on, the
 * readout's answer. */
static void copy_target(const app_state *st, int *s, int *h) {
    *s = attn_step_result(st->view.step);
    *h = st->view.head;
    const model *m = st->model.m;
    if (m && st->model.readout) *s = m->cfg.objective == MODEL_OBJ_TOKEN ? MODEL_ST_PROBS : MODEL_ST_AVG;
    else if (m && st->model.backward && model_step_grad(st->view.step) >= 0) *s = model_step_grad(st->view.step);
    if (st->view.hover.kind == VIZ_HIT_CELL && !viz_tile_stage(st->view.hover.stage)) { // the tiles view's are not the trace's
        *s = st->view.hover.stage;
        *h = st->view.hover.head;
    }
}

/* The matrix of stage s, head h as shown, and its shape. */
static const double *shown_matrix(const app_state *st, int s, int h, int *rows, int *cols) {
    if (st->model.m) return model_result_stage(&st->model.run, st->model.m, s, st->model.layer, h, rows, cols);
    attn_trace_shape(&st->src.trace, (attn_stage)s, rows, cols);
    return attn_trace_stage(&st->src.trace, (attn_stage)s, h);
}

char *app_matrix_tsv(const app_state *st, char *what, size_t what_cap) {
    if (st->hf && st->model.readout) return app_hf_next_tsv(st, what, what_cap); // step 9: the next tokens
    const attn_trace *t = app_trace(st);
    int s, h, rows, cols;
    copy_target(st, &s, &h);
    const double *m = shown_matrix(st, s, h, &rows, &cols);
    if (!m) return NULL;
    bool per_head = model_stage_per_head(s);
    if (st->model.m || st->hf)
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
    attn_sb_puts(&b, what);          // the corner names the matrix: a table pasted anywhere says what it is
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
    attn_sb_shell_word(b, st->src.sentence);
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
    const attn_config *c = &st->src.cfg;
    attn_strbuf b;
    attn_sb_init(&b);
    if (st->model.m) {
        model_command(st, &b);
        return attn_sb_take(&b);
    }
    if (st->hf) { // a real model: the folder, the sentence, the stage shown
        int s, h;
        copy_target(st, &s, &h);
        attn_sb_puts(&b, "attnviz --headless --hf ");
        attn_sb_shell_word(&b, app_hf_dir(st));
        attn_sb_puts(&b, " --sentence ");
        attn_sb_shell_word(&b, st->src.sentence);
        attn_sb_printf(&b, " --print %s", st->model.readout ? "next" : model_stage_name(s));
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
    attn_sb_shell_word(&b, st->src.sentence);
    attn_sb_printf(&b, " --d-model %d --d-k %d --heads %d --seed %lu --mask %s %s %s %s", c->d_model, c->d_k,
                   c->heads, (unsigned long)c->seed, mask, c->scale ? "--scale" : "--no-scale",
                   c->pos_enc ? "--pos-enc" : "--no-pos-enc", c->bias ? "--bias" : "--no-bias");
    if (c->pos_count) attn_sb_printf(&b, " --pos-dims %d-%d", c->pos_first, c->pos_first + c->pos_count - 1);
    else if (pg && pg->cfg.pos_count) attn_sb_puts(&b, " --pos-dims all");         // over the page's columns (RoPE cleared them)
    if (c->rope) attn_sb_printf(&b, " --pos rope --rope-base %.0f", c->rope_base); // after --no-pos-enc: the last wins
    if (c->pos_offset) attn_sb_printf(&b, " --pos-offset %d", c->pos_offset);
    if (c->kv_heads) attn_sb_printf(&b, " --kv-heads %d", c->kv_heads); // grouped-query attention
    if (st->view.show_decode && (c->mask.kind == ATTN_MASK_CAUSAL || c->mask.kind == ATTN_MASK_CAUSAL_WINDOW))
        attn_sb_puts(&b, " --decode"); // the decode view: its table too
    if (st->src.weights == APP_WEIGHTS_FILE) {
        attn_sb_puts(&b, " --weights ");
        attn_sb_shell_word(&b, st->src.weights_name);
    }
    if (st->view.show_tiles && st->view.tiles.count) attn_sb_printf(&b, " --tiles %d", st->view.tiles.b); // F4: its summary too
    int s, h;
    copy_target(st, &s, &h);
    attn_sb_printf(&b, " --print %s", attn_stage_name((attn_stage)s));
    return attn_sb_take(&b);
}

/* Appends s to b as a URL query value: unreserved bytes as they are, every
 * other byte (UTF-8 included) as %XX. */
static void query_value(attn_strbuf *b, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~", *p))
            attn_sb_append(b, (const char *)p, 1);
        else attn_sb_printf(b, "%%%02X", *p);
    }
}

char *app_view_query(const app_state *st) {
    attn_strbuf b;
    attn_sb_init(&b);
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    if (pg) { // the page names a lesson by its file's name, found under lessons/LANG/
        const char *path = app_lesson_path(st), *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
        size_t len = strlen(name);
        if (len > 7 && !strcmp(name + len - 7, ".lesson")) len -= 7;
        char *bare = strndup(name, len);
        attn_sb_puts(&b, "lesson=");
        if (bare) query_value(&b, bare);
        free(bare);
        attn_sb_puts(&b, "&");
    }
    attn_sb_printf(&b, "lang=%s", st->look.lang == VIZ_LANG_ZH ? "zh" : "en");
    if (pg) {
        attn_sb_puts(&b, "&page=");
        query_value(&b, pg->id);
    }
    attn_sb_printf(&b, "&step=%s&theme=", attn_step_key(st->view.step));
    query_value(&b, viz_theme_name(st->look.theme));
    if (st->view.figure_only) attn_sb_puts(&b, "&view=figure");
    if (!attn_sb_ok(&b)) {
        attn_sb_free(&b);
        return NULL;
    }
    return attn_sb_take(&b);
}
