/* test_viz_layout.c — what the window shows, measured from its display list:
 * values readable from the back of the room in the presenter theme, the
 * features a lesson page names labelled in a small window, nothing cut to
 * "…" there, a question's page that keeps its layout once answered, and the
 * attention lines' labels. ATTNVIZ_LAYOUT_SHOTS=DIR saves every view tested
 * as a PNG there, to look at. */
#include "test_sdl_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_actions.h"
#include "attn_steps.h"
#include "app_view.h"
#include "strbuf.h"
#include "model.h"
#include "model_file.h"
#include "model_run.h"
#include "viz.h"
#include "viz_sdl.h"
#include "viz_strings.h"

#define LESSON_ZH ATTN_SOURCE_DIR "/lessons/zh/self-attention.lesson"
#define LESSON_EN ATTN_SOURCE_DIR "/lessons/en/self-attention.lesson"

static viz_fonts *g_fonts;
static viz_strings g_ui;
static viz_list g_list;

static int group_setup(void **state) {
    (void)state;
    attn_err err;
    if (viz_strings_load(&g_ui, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err) != ATTN_OK) return -1;
    g_fonts = test_fonts_open();
    return g_fonts ? 0 : -1;
}

static int group_teardown(void **state) {
    (void)state;
    viz_free(&g_list);
    test_fonts_close(g_fonts);
    viz_strings_free(&g_ui);
    return 0;
}

/* ---- helpers ---- */

static void start(app_state *st, viz_theme_id theme, viz_lang lang) {
    attn_config cfg;
    attn_config_default(&cfg);
    attn_err err;
    if (app_init(st, NULL, &cfg, &g_ui, &err) != ATTN_OK) fail_msg("%s", err.msg);
    st->look.theme = theme;
    st->look.lang = lang;
}

static void open_lesson(app_state *st, viz_lang lang, viz_theme_id theme) {
    start(st, theme, lang);
    attn_err err;
    const char *path = lang == VIZ_LANG_ZH ? LESSON_ZH : LESSON_EN, *pair = lang == VIZ_LANG_ZH ? LESSON_EN : LESSON_ZH;
    if (app_lesson_open(st, path, pair, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
    st->look.theme = theme;
}

/* Lays the window out at w×h into g_list; saves it when asked (name: a file stem). */
static const viz_list *build(app_state *st, int w, int h, const char *name) {
    viz_scene sc;
    char badge[320];
    st->look.width = w;
    st->look.height = h;
    app_scene(st, &sc, badge, sizeof badge);
    viz_build_window(&g_list, &sc, viz_fonts_measure(g_fonts));
    assert_false(g_list.failed);
    const char *dir = getenv("ATTNVIZ_LAYOUT_SHOTS");
    if (dir && *dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.png", dir, name);
        SDL_Surface *s = viz_sdl_render_surface(g_fonts, &g_list, w, h, viz_theme_get(st->look.theme)->bg);
        attn_err err;
        assert_non_null(s);
        if (viz_save_png(s, path, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
        SDL_FreeSurface(s);
    }
    return &g_list;
}

static bool same_box(const viz_cmd *a, const viz_cmd *b) {
    return fabsf(a->x - b->x) < 0.01f && fabsf(a->y - b->y) < 0.01f && fabsf(a->w - b->w) < 0.01f &&
           fabsf(a->h - b->h) < 0.01f;
}

/* Whether a TEXT command of l says exactly s. */
static bool text_drawn(const viz_list *l, const char *s) {
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_TEXT && strcmp(viz_cmd_text(l, &l->cmds[i]), s) == 0) return true;
    return false;
}

static const char *theme_key(viz_theme_id t) { return viz_theme_name(t); }

/* ---- presenter: values readable from the back of the room ---- */

/* The stages that are the result of step (the matrices whose values must read). */
static int result_stages(attn_step step, int *out) {
    switch (step) {
    case ATTN_STEP_EMBED: out[0] = ATTN_ST_X; return 1;
    case ATTN_STEP_QKV: out[0] = ATTN_ST_Q, out[1] = ATTN_ST_K, out[2] = ATTN_ST_V; return 3;
    case ATTN_STEP_ROPE: out[0] = ATTN_ST_Q_ROT, out[1] = ATTN_ST_K_ROT; return 2;
    case ATTN_STEP_SCORES: out[0] = ATTN_ST_SCORES; return 1;
    case ATTN_STEP_SCALE: out[0] = ATTN_ST_SCALED; return 1;
    case ATTN_STEP_MASK: out[0] = ATTN_ST_MASKED; return 1;
    case ATTN_STEP_SOFTMAX: out[0] = ATTN_ST_WEIGHTS; return 1;
    case ATTN_STEP_WEIGHTED: out[0] = ATTN_ST_Z; return 1;
    default: out[0] = ATTN_ST_OUTPUT; return 1;
    }
}

/* The area of the box around the text l draws inside panel p. */
static double text_block(const viz_list *l, const viz_cmd *p) {
    float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
    for (int i = 0; i < l->count; i++) {
        const viz_cmd *t = &l->cmds[i];
        if (t->kind != VIZ_TEXT || t->x < p->x || t->y < p->y || t->x >= p->x + p->w || t->y >= p->y + p->h) continue;
        x0 = fminf(x0, t->x), y0 = fminf(y0, t->y); // a text's box, as far as the panel reaches
        x1 = fmaxf(x1, fminf(t->x + t->w, p->x + p->w)), y1 = fmaxf(y1, fminf(t->y + t->h, p->y + p->h));
    }
    return x1 > x0 ? (double)(x1 - x0) * (y1 - y0) : 0;
}

typedef struct {
    int cells;                      /* result cells on screen */
    int written;                    /* of them, those with a value written inside */
    float min_px;                   /* the smallest size a value of them is written at */
    float x0, y0, x1, y1;           /* the box around every matrix drawn (GRID commands) in the canvas */
    double heatmaps, largest_other; /* the matrices' cells in the canvas; the largest other block of text */
} readout;

/* What l's result cells of step show: each cell's hit region, and the text
 * command drawn in exactly its box (draw_cells writes a value so). */
static readout read_results(const viz_list *l, attn_step step) {
    int stages[3], ns = result_stages(step, stages);
    readout r = {0, 0, 1e9f, 1e9f, 1e9f, -1e9f, -1e9f, 0, 0};
    viz_cmd canvas = {0}, rail = {.x = 1e9f, .y = 1e9f};
    for (int i = 0; i < l->count; i++) {
        const viz_cmd *c = &l->cmds[i];
        if (c->kind == VIZ_HIT && c->hit.kind == VIZ_HIT_PANEL && c->hit.panel == VIZ_PANEL_CANVAS) canvas = *c;
        if (c->kind == VIZ_HIT && c->hit.kind == VIZ_HIT_PANEL && c->hit.panel != VIZ_PANEL_CANVAS)
            r.largest_other = fmax(r.largest_other, text_block(l, c));                              // the narrative, the cell arithmetic
        if (c->kind == VIZ_HIT && (c->hit.kind == VIZ_HIT_STEP || c->hit.kind == VIZ_HIT_WIDGET)) { // the rail
            rail.x = fminf(rail.x, c->x), rail.y = fminf(rail.y, c->y);
            rail.w = fmaxf(rail.w, c->x + c->w), rail.h = fmaxf(rail.h, c->y + c->h); // right and bottom, for now
        }
        bool result = false;
        for (int k = 0; k < ns; k++) result |= c->kind == VIZ_HIT && c->hit.kind == VIZ_HIT_CELL && c->hit.stage == stages[k];
        if (!result) continue;
        r.cells++;
        for (int j = 0; j < l->count; j++) {
            const viz_cmd *t = &l->cmds[j];
            if (t->kind == VIZ_TEXT && same_box(t, c)) {
                r.written++;
                r.min_px = fminf(r.min_px, t->size);
                break;
            }
        }
    }
    rail.w -= rail.x, rail.h -= rail.y;
    r.largest_other = fmax(r.largest_other, text_block(l, &rail));
    for (int i = 0; i < l->count; i++) {
        const viz_cmd *c = &l->cmds[i];
        if (c->kind != VIZ_GRID || c->rows < 2 || c->y < canvas.y || c->y > canvas.y + canvas.h) continue; // not legends
        r.heatmaps += (double)c->w * c->h;
        r.x0 = fminf(r.x0, c->x), r.y0 = fminf(r.y0, c->y);
        r.x1 = fmaxf(r.x1, c->x + c->w), r.y1 = fmaxf(r.y1, c->y + c->h);
    }
    r.x0 = (r.x1 - r.x0) / canvas.w; // from here: the share of the canvas's width and height they span
    r.y0 = (r.y1 - r.y0) / canvas.h;
    return r;
}

/* For up to 20 tokens (the seed sentence, the lessons' pages) every result
 * cell of every step writes its value at 16 px or more, the heatmaps are the
 * largest thing on screen, and the matrices span most of the canvas. */
static void presenter_values_read_from_afar(void **state) {
    (void)state;
    app_state st;
    start(&st, VIZ_THEME_PRESENTER, VIZ_LANG_ZH);
    assert_int_equal(st.src.trace.n, 20);
    for (int step = 0; step < ATTN_STEP_COUNT; step++)
        for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
            if (!attn_step_shown((attn_step)step, &st.src.trace.cfg)) continue; // 2b: RoPE's (below)
            st.look.lang = (viz_lang)lang;
            app_goto_step(&st, step);
            char name[64];
            snprintf(name, sizeof name, "presenter-1920-%s-step%s", lang ? "zh" : "en", attn_step_key((attn_step)step));
            readout r = read_results(build(&st, 1920, 1080, name), (attn_step)step);
            if (r.cells == 0 || r.written != r.cells)
                fail_msg("step %d: %d of %d result cells write their value", step + 1, r.written, r.cells);
            if (r.min_px < 16.0f) fail_msg("step %d: values written at %.1f px", step + 1, r.min_px);
            if (r.heatmaps <= r.largest_other)
                fail_msg("step %d: the heatmaps (%.0f px²) are smaller than a block of text (%.0f px²)", step + 1,
                         r.heatmaps, r.largest_other);
            if (fmaxf(r.x0, r.y0) < 0.8f)
                fail_msg("step %d: the matrices span %.0f%% of the canvas's width and %.0f%% of its height", step + 1,
                         100 * r.x0, 100 * r.y0);
        }
    // RoPE: 2b (Q, K → q_rot, k_rot) and the scores it feeds
    st.src.cfg.pos_enc = false;
    st.src.cfg.rope = true;
    app_recompute(&st);
    static const attn_step rope_steps[] = {ATTN_STEP_ROPE, ATTN_STEP_SCORES};
    for (int k = 0; k < 2; k++)
        for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
            st.look.lang = (viz_lang)lang;
            app_goto_step(&st, rope_steps[k]);
            assert_int_equal(st.view.step, rope_steps[k]);
            char name[64];
            snprintf(name, sizeof name, "presenter-1920-%s-rope-step%s", lang ? "zh" : "en", attn_step_key(rope_steps[k]));
            readout r = read_results(build(&st, 1920, 1080, name), rope_steps[k]);
            // a dial per pair of q and k hovers a cell and writes no value (the dials give way when the values need the room)
            int dials = rope_steps[k] == ATTN_STEP_ROPE ? st.src.cfg.d_k : 0;
            if (r.cells == 0 || (r.written != r.cells && r.written != r.cells - dials))
                fail_msg("RoPE step %s: %d of %d result cells write their value", attn_step_key(rope_steps[k]), r.written,
                         r.cells);
            if (r.min_px < 16.0f) fail_msg("RoPE step %s: values written at %.1f px", attn_step_key(rope_steps[k]), r.min_px);
        }
    app_free(&st);
}

/* The lessons' pages too: each page's own step, in both languages. */
static void presenter_lesson_pages_read_from_afar(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        app_state st;
        open_lesson(&st, (viz_lang)lang, VIZ_THEME_PRESENTER);
        const lesson *l = app_lesson(&st);
        for (int i = 0; i < lesson_page_count(l); i++) {
            app_lesson_goto(&st, i);
            // split views (a comparison, the backward pass beside A) share the canvas between two matrices
            if (app_trace(&st)->n > 20 || st.lesson.predict_pending || st.view.compare != VIZ_COMPARE_OFF ||
                (st.model.m && st.model.backward))
                continue;
            char name[96];
            snprintf(name, sizeof name, "presenter-1920-%s-%s", lang ? "zh" : "en", lesson_page_at(l, i)->id);
            readout r = read_results(build(&st, 1920, 1080, name), st.view.step);
            if (r.written != r.cells || r.min_px < 16.0f)
                fail_msg("page %s: %d of %d result cells written, the smallest at %.1f px", lesson_page_at(l, i)->id,
                         r.written, r.cells, r.min_px);
        }
        app_free(&st);
    }
}

/* ---- the figure view: one projected view of a comparison ---- */

/* The smallest text size of the tokens' row labels in the canvas (the text
 * right-aligned in a token hit region's row: not a chip), and how many. */
static float token_label_px(const viz_list *l, int *count) {
    float px = 1e9f;
    *count = 0;
    for (int i = 0; i < l->count; i++) {
        const viz_cmd *h = &l->cmds[i];
        if (h->kind != VIZ_HIT || h->hit.kind != VIZ_HIT_TOKEN) continue;
        for (int j = 0; j < l->count; j++) {
            const viz_cmd *t = &l->cmds[j];
            // a row label: its text sits in the region's row, at its left (viz_label right-aligns it)
            if (t->kind != VIZ_TEXT || (t->align & 3) != VIZ_RIGHT || fabsf(t->y - h->y) > 0.01f || fabsf(t->h - h->h) > 0.01f || t->x < h->x - 0.01f ||
                t->x > h->x + h->w)
                continue;
            px = fminf(px, t->size);
            (*count)++;
            break;
        }
    }
    return px;
}

/* The lesson pages that compare (scaled vs unscaled, masked vs not, head vs
 * head) in the presenter theme at 1920×1080: in the figure view (F) both
 * compared matrices write every value at 16 px or more and the tokens'
 * labels are 20 px or more; with the rail and narrative shown, the labels
 * are 14 px or more. */
static void compare_reads_in_figure_view(void **state) {
    (void)state;
    int compared = 0, failed = 0;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        app_state st;
        open_lesson(&st, (viz_lang)lang, VIZ_THEME_PRESENTER);
        const lesson *l = app_lesson(&st);
        for (int i = 0; i < lesson_page_count(l); i++) {
            app_lesson_goto(&st, i);
            if (st.view.compare == VIZ_COMPARE_OFF || app_trace(&st)->n > 17) continue;
            st.lesson.predict_pending = false; // answered: the weights show
            compared++;
            const char *id = lesson_page_at(l, i)->id;
            for (int fig = 1; fig >= 0; fig--) {
                st.view.figure_only = fig;
                char name[96];
                snprintf(name, sizeof name, "compare-1920-%s-%s-%s", lang ? "zh" : "en", id, fig ? "figure" : "window");
                const viz_list *list = build(&st, 1920, 1080, name);
                readout r = read_results(list, st.view.step);
                int labels;
                float label_px = token_label_px(list, &labels);
                print_message("%s %s (%s): %d of %d values written, at %.1f px or more; %d token labels at %.1f px or more\n",
                              lang ? "zh" : "en", id, fig ? "figure view" : "window", r.written, r.cells, r.min_px, labels,
                              label_px);
                if (fig && (r.cells == 0 || r.written != r.cells || r.min_px < 16.0f)) {
                    print_error("%s page %s, figure view: %d of %d result cells written, the smallest at %.1f px\n",
                                lang ? "zh" : "en", id, r.written, r.cells, r.min_px);
                    failed++;
                }
                if (labels == 0 || label_px < (fig ? 20.0f : 14.0f)) {
                    print_error("%s page %s (%s): token labels at %.1f px\n", lang ? "zh" : "en", id,
                                fig ? "figure view" : "window", label_px);
                    failed++;
                }
            }
            st.view.figure_only = false;
        }
        app_free(&st);
    }
    if (compared < 6) fail_msg("only %d comparing pages checked", compared);
    if (failed) fail_msg("%d views too small to read (above)", failed);
}

/* ---- finding one's way: the verdict of a guess ---- */

/* The box of l's hit region of panel (its last one), or a zero box. */
static viz_cmd panel_box(const viz_list *l, int panel) {
    viz_cmd box = {0};
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_HIT && l->cmds[i].hit.kind == VIZ_HIT_PANEL && l->cmds[i].hit.panel == panel)
            box = l->cmds[i];
    return box;
}

/* After a guess the verdict ("Right: you picked …") heads the revealed text
 * in the narrative panel, scrolled into view — not only in the status line —
 * at 1280×800 and 1920×1080 presenter, in both languages, right or wrong. */
static void verdict_heads_the_revealed_text(void **state) {
    (void)state;
    static const char *const right[VIZ_LANG_COUNT] = {"Right: you picked", "答对了"};
    static const char *const wrong[VIZ_LANG_COUNT] = {"You picked", "你选了"};
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int k = 0; k < 4; k++) {
            app_state st;
            open_lesson(&st, (viz_lang)lang, k & 1 ? VIZ_THEME_PRESENTER : VIZ_THEME_LIGHT);
            assert_true(st.lesson.predict_pending);
            const attn_trace *t = app_trace(&st);
            int best = 0, q = st.view.query;
            for (int j = 1; j < t->n; j++)
                if (t->head[0].weights[(size_t)q * t->n + j] > t->head[0].weights[(size_t)q * t->n + best]) best = j;
            bool is_right = k < 2;
            app_select_query(&st, is_right ? best : 0);
            assert_false(st.lesson.predict_pending);
            int w = k & 1 ? 1920 : 1280, h = k & 1 ? 1080 : 800;
            char name[64];
            snprintf(name, sizeof name, "verdict-%s-%d-%s", lang ? "zh" : "en", w, is_right ? "right" : "wrong");
            const viz_list *l = build(&st, w, h, name);
            viz_cmd nar = panel_box(l, VIZ_PANEL_NARRATIVE);
            const char *want = is_right ? right[lang] : wrong[lang];
            bool shown = false;
            for (int i = 0; i < l->count; i++) {
                const viz_cmd *c = &l->cmds[i];
                if (c->kind == VIZ_TEXT && strstr(viz_cmd_text(l, c), want) && c->x >= nar.x && c->y >= nar.y &&
                    c->y + c->h <= nar.y + nar.h)
                    shown = true;
            }
            if (!shown) fail_msg("%s %dx%d: the verdict \"%s…\" is not in the narrative panel", lang ? "zh" : "en", w, h, want);
            app_free(&st);
        }
}

/* While a model page's sentence is edited, the model's words are a palette
 * under the narrative's title. Where they do not all fit (1920×1080
 * presenter on the flip page hid 23 of 40 as "+N"), ‹ › chips page through
 * them: every word is shown on some page, on screen, and a click on it types
 * it at the cursor. 1280×800 light and 1920×1080 presenter, zh and en. */
static void every_model_word_reachable(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int big = 0; big < 2; big++) {
            viz_theme_id theme = big ? VIZ_THEME_PRESENTER : VIZ_THEME_LIGHT;
            int w = big ? 1920 : 1280, h = big ? 1080 : 800;
            app_state st;
            start(&st, theme, (viz_lang)lang);
            attn_err err;
            const char *path = lang == VIZ_LANG_ZH ? LESSON_ZH : LESSON_EN, *pair = lang == VIZ_LANG_ZH ? LESSON_EN : LESSON_ZH;
            if (app_lesson_open(&st, path, pair, "two-layers-flip", &err) != ATTN_OK) fail_msg("%s", err.msg);
            st.look.theme = theme;
            assert_non_null(st.model.m);
            app_edit_begin(&st);
            assert_true(st.edit.ed.active);
            int n = st.model.m->vocab_count, pages = 0, shown = 0, last_word = -1;
            bool seen[MODEL_MAX_VOCAB] = {false};
            for (;;) {
                char name[96];
                snprintf(name, sizeof name, "palette-%s-%d-page%d", lang ? "zh" : "en", w, pages + 1);
                const viz_list *l = build(&st, w, h, name);
                int next = -1, on_page = 0;
                for (int i = 0; i < l->count; i++) {
                    const viz_cmd *c = &l->cmds[i];
                    if (c->kind != VIZ_HIT || c->hit.kind != VIZ_HIT_WIDGET) continue;
                    if (c->hit.widget == VIZ_W_WORD) {
                        assert_true(c->hit.delta >= 0 && c->hit.delta < n);
                        if (c->x < 0 || c->y < 0 || c->x + c->w > w || c->y + c->h > h) fail_msg("word %d is off screen", c->hit.delta);
                        shown += !seen[c->hit.delta];
                        seen[c->hit.delta] = true;
                        last_word = c->hit.delta;
                        on_page++;
                    } else if (c->hit.widget == VIZ_W_WORD_PAGE && c->hit.delta > st.view.words_first)
                        next = c->hit.delta;
                }
                pages++;
                if (on_page == 0) fail_msg("%s %dx%d: page %d of the palette shows no word", lang ? "zh" : "en", w, h, pages);
                if (next < 0) break;
                if (pages > n) fail_msg("the palette's › never ends");
                app_widget(&st, (viz_widget)VIZ_W_WORD_PAGE, next); // what a click on › does
                assert_true(st.edit.ed.active);                     // still editing
            }
            for (int i = 0; i < n; i++)
                if (!seen[i]) fail_msg("%s %dx%d: the model's word %d (%s) is never shown", lang ? "zh" : "en", w, h, i, st.model.m->vocab[i]);
            print_message("%s %dx%d: the palette shows the model's %d words on %d page%s\n", lang ? "zh" : "en", w, h, n, pages, pages == 1 ? "" : "s");
            if (big) assert_true(pages > 1); // 40 words do not fit beside the presenter's narrative
            // a word of the last page, clicked, is typed at the cursor
            app_edit_select_all(&st);
            app_widget(&st, (viz_widget)VIZ_W_WORD, last_word);
            if (!strstr(st.edit.ed.text, st.model.m->vocab[last_word])) fail_msg("word %s not typed: %s", st.model.m->vocab[last_word], st.edit.ed.text);
            app_free(&st);
        }
}

/* ---- the laptop: 1280×800 ---- */

/* The lines of text l draws in box (one TEXT command a line). */
static int lines_in(const viz_list *l, const viz_cmd *box) {
    int n = 0;
    for (int i = 0; i < l->count; i++) {
        const viz_cmd *c = &l->cmds[i];
        n += c->kind == VIZ_TEXT && c->x >= box->x && c->y >= box->y && c->y + c->h <= box->y + box->h + 0.5f &&
             c->x < box->x + box->w;
    }
    return n;
}

/* At 1280×800 with nothing hovered the narrative takes the side panel (one
 * line says how to see a cell's arithmetic), not half of it above an empty
 * panel; a hovered cell brings its arithmetic back. Every page, en and zh. */
static void narrative_gets_the_room(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        app_state st;
        open_lesson(&st, (viz_lang)lang, VIZ_THEME_LIGHT);
        const lesson *l = app_lesson(&st);
        int least = 1000, most = 0;
        for (int i = 0; i < lesson_page_count(l); i++) {
            app_lesson_goto(&st, i);
            st.lesson.predict_pending = false; // the whole text
            app_lesson_refresh_narrative(&st);
            char name[96];
            snprintf(name, sizeof name, "laptop-1280-%s-%s", lang ? "zh" : "en", lesson_page_at(l, i)->id);
            const viz_list *list = build(&st, 1280, 800, name);
            viz_cmd nar = panel_box(list, VIZ_PANEL_NARRATIVE), det = panel_box(list, VIZ_PANEL_DETAIL);
            if (nar.h < 0.85f * (nar.h + det.h))
                fail_msg("%s page %s: the narrative is %.0f px of the side's %.0f", lang ? "zh" : "en",
                         lesson_page_at(l, i)->id, nar.h, nar.h + det.h);
            int lines = lines_in(list, &nar);
            if (!strcmp(lesson_page_at(l, i)->id, "qkv")) // a page whose text is longer than the panel
                print_message("%s page qkv at 1280x800: %d lines of text shown (%.0f px of the side's %.0f)\n",
                              lang ? "zh" : "en", lines, nar.h, nar.h + det.h);
            least = lines < least ? lines : least;
            most = lines > most ? lines : most;
        }
        print_message("%s at 1280x800: the narrative shows %d to %d lines (with its title and page controls)\n",
                      lang ? "zh" : "en", least, most);
        // a hovered cell: its arithmetic below the text
        app_lesson_goto(&st, 0);
        st.lesson.predict_pending = false; // answered: the cursor may show a weight's arithmetic
        app_move_cursor(&st, 0, 0);
        const viz_list *list = build(&st, 1280, 800, "laptop-1280-hover");
        viz_cmd nar = panel_box(list, VIZ_PANEL_NARRATIVE), det = panel_box(list, VIZ_PANEL_DETAIL);
        assert_true(det.h > 0.4f * (nar.h + det.h));
        app_free(&st);
    }
}

static bool step_labels(const app_state *st, attn_step step, const char *name); /* below */
static bool page_names(const lesson_page *pg, const char *s);

/* The largest size a TEXT command of l saying exactly s is drawn at (0: none). */
static float largest_text(const viz_list *l, const char *s) {
    float px = 0;
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_TEXT && strcmp(viz_cmd_text(l, &l->cmds[i]), s) == 0) px = fmaxf(px, l->cmds[i].size);
    return px;
}

/* At 1280×800 in the light theme, on the designed pages (12–17 tokens, the
 * lesson's own weights, answered): every result value is written at 11 px
 * or more, and every feature the page's text names that its step shows is
 * labelled at 11 px or more — in both languages. */
static void laptop_values_and_features_read(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        app_state st;
        open_lesson(&st, (viz_lang)lang, VIZ_THEME_LIGHT);
        const lesson *l = app_lesson(&st);
        int pages = 0;
        float least_value = 1e9f, least_label = 1e9f;
        for (int i = 0; i < lesson_page_count(l); i++) {
            app_lesson_goto(&st, i);
            const lesson_page *pg = lesson_page_at(l, i);
            int n = app_trace(&st)->n;
            if (st.model.m || pg->random_weights || n < 12 || n > 17 || st.view.compare != VIZ_COMPARE_OFF ||
                !strcmp(pg->id, "code"))
                continue;
            st.lesson.predict_pending = false;
            pages++;
            char name[96];
            snprintf(name, sizeof name, "laptop-values-%s-%s", lang ? "zh" : "en", pg->id);
            const viz_list *list = build(&st, 1280, 800, name);
            readout r = read_results(list, st.view.step);
            if (r.written != r.cells || r.min_px < 11.0f)
                fail_msg("%s page %s: %d of %d values written, at %.1f px or more", lang ? "zh" : "en", pg->id, r.written,
                         r.cells, r.min_px);
            least_value = fminf(least_value, r.min_px);
            for (int k = 0; k < pg->n_keep; k++) {
                if (!page_names(pg, pg->keep[k]) || !step_labels(&st, st.view.step, pg->keep[k])) continue;
                float px = largest_text(list, pg->keep[k]);
                if (px < 11.0f)
                    fail_msg("%s page %s: \"%s\", which its text names, is labelled at %.1f px", lang ? "zh" : "en",
                             pg->id, pg->keep[k], px);
                least_label = fminf(least_label, px);
            }
        }
        print_message("%s at 1280x800 light, %d designed pages: values at %.1f px or more, the features the text names "
                      "at %.1f px or more\n",
                      lang ? "zh" : "en", pages, least_value, least_label);
        if (pages < 5) fail_msg("only %d designed pages checked", pages);
        app_free(&st);
    }
}

/* The code page shows its code where the figure would be, every line whole
 * (no wrapping) in the code face at 1280×800 and 1920×1080 presenter, and
 * not the figure of the step before it; the narrative keeps its prose. */
static void code_page_shows_code_in_the_canvas(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int k = 0; k < 2; k++) {
            app_state st;
            open_lesson(&st, (viz_lang)lang, k ? VIZ_THEME_PRESENTER : VIZ_THEME_LIGHT);
            const lesson *l = app_lesson(&st);
            int page = lesson_find_page(l, "code");
            assert_true(page >= 0);
            app_lesson_goto(&st, page);
            int w = k ? 1920 : 1280, h = k ? 1080 : 800;
            char name[64];
            snprintf(name, sizeof name, "code-%s-%d", lang ? "zh" : "en", w);
            const viz_list *list = build(&st, w, h, name);
            viz_cmd nar = panel_box(list, VIZ_PANEL_NARRATIVE), can = panel_box(list, VIZ_PANEL_CANVAS);
            int code_in_canvas = 0, code_in_narrative = 0, wraps = 0, grids = 0;
            float least = 1e9f;
            for (int i = 0; i < list->count; i++) {
                const viz_cmd *c = &list->cmds[i];
                if (c->kind == VIZ_GRID && c->rows >= 2 && c->x >= can.x && c->x < can.x + can.w) grids++;
                if (c->kind != VIZ_TEXT || c->font != VIZ_FONT_MONO) continue;
                if (c->x >= nar.x) code_in_narrative++;
                else if (c->x >= can.x && c->y >= can.y && c->y + c->h <= can.y + can.h + 0.5f) {
                    code_in_canvas++;
                    least = fminf(least, c->size);
                }
                wraps += strcmp(viz_cmd_text(list, c), "↪") == 0;
            }
            print_message("%s %dx%d: %d code texts in the canvas at %.1f px or more, %d wrapped lines\n",
                          lang ? "zh" : "en", w, h, code_in_canvas, least, wraps);
            if (code_in_canvas < 30 || code_in_narrative || wraps || grids)
                fail_msg("%s %dx%d: code in the canvas %d, in the narrative %d, %d wrapped, %d heatmaps", lang ? "zh" : "en",
                         w, h, code_in_canvas, code_in_narrative, wraps, grids);
            app_free(&st);
        }
}

/* ---- feature names in a small window ---- */

/* Whether name is a label the figure of step has a row or column for: X's
 * columns (features), W's rows (features) and columns (Q/K/V names), Kᵀ's
 * rows and Q's columns, V's and Z's columns — computed from the lesson, not
 * from the display list. */
static bool step_labels(const app_state *st, attn_step step, const char *name) {
    const lesson *l = app_lesson(st);
    const attn_vocab *v = lesson_vocab(l);
    bool feature = false;
    for (int i = 0; v && st->src.trace.vocab_rows && v->dim == st->src.cfg.d_model && i < v->dim; i++)
        feature |= strcmp(v->features[i], name) == 0;
    lesson_names nm;
    lesson_page_names(l, st->lesson.page, &st->src.cfg, &nm);
    const attn_matrix mats[3] = {ATTN_MAT_W_Q, ATTN_MAT_W_K, ATTN_MAT_W_V};
    bool col[3] = {false, false, false};
    for (int k = 0; k < 3; k++) {
        const char *const *names = st->src.trace.given[mats[k]][st->view.head] ? nm.mat[mats[k]][st->view.head] : NULL;
        for (int d = 0; names && d < st->src.cfg.d_k; d++) col[k] |= strcmp(names[d], name) == 0;
    }
    switch (step) {
    case ATTN_STEP_EMBED: return feature;
    case ATTN_STEP_QKV: return feature || col[0] || col[1] || col[2];
    case ATTN_STEP_SCORES: return col[0] || col[1];
    case ATTN_STEP_WEIGHTED: return col[2];
    default: return false;
    }
}

/* Whether page pg's text names s. */
static bool page_names(const lesson_page *pg, const char *s) {
    for (int i = 0; i < pg->n_paras; i++)
        if (strstr(pg->paras[i].text, s)) return true;
    return false;
}

/* At 1024×640, in both languages and in the light and presenter themes,
 * every label a page keeps (@features) and names in its text is drawn on the
 * page's own step when that step's figure has a row or column for it. */
static void page_features_labelled_in_small_window(void **state) {
    (void)state;
    static const viz_theme_id themes[] = {VIZ_THEME_LIGHT, VIZ_THEME_PRESENTER};
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (size_t th = 0; th < 2; th++) {
            app_state st;
            open_lesson(&st, (viz_lang)lang, themes[th]);
            const lesson *l = app_lesson(&st);
            int checked = 0;
            for (int i = 0; i < lesson_page_count(l); i++) {
                app_lesson_goto(&st, i);
                const lesson_page *pg = lesson_page_at(l, i);
                assert_true(pg->n_keep > 0);
                char name[128];
                snprintf(name, sizeof name, "features-1024-%s-%s-%s", lang ? "zh" : "en", theme_key(themes[th]), pg->id);
                const viz_list *list = build(&st, 1024, 640, name);
                for (int k = 0; k < pg->n_keep; k++) {
                    if (!page_names(pg, pg->keep[k]) || !step_labels(&st, st.view.step, pg->keep[k])) continue;
                    checked++;
                    if (!text_drawn(list, pg->keep[k]))
                        fail_msg("%s, page %s, step %d (%s): “%s” is not labelled", lang ? "zh" : "en", pg->id,
                                 st.view.step + 1, theme_key(themes[th]), pg->keep[k]);
                }
            }
            if (checked < 10) fail_msg("only %d labels checked: the pages name few of the features they show", checked);
            app_free(&st);
        }
}

/* X's columns at 1024×640 (step 1 of a page with the vocabulary): the
 * lesson's kept features all, and nearly all sixteen, are labelled — in
 * English, where the names are long, too. */
static void feature_columns_stay(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int th = 0; th < VIZ_THEME_COUNT; th++) {
            app_state st;
            open_lesson(&st, (viz_lang)lang, (viz_theme_id)th);
            app_lesson_guess(&st, st.view.query);
            app_goto_step(&st, ATTN_STEP_EMBED);
            char name[64];
            snprintf(name, sizeof name, "features-1024-%s-%s-step1", lang ? "zh" : "en", theme_key((viz_theme_id)th));
            const viz_list *list = build(&st, 1024, 640, name);
            const attn_vocab *v = lesson_vocab(app_lesson(&st));
            const lesson_page *pg = lesson_page_at(app_lesson(&st), st.lesson.page);
            int shown = 0;
            for (int i = 0; i < v->dim; i++) shown += text_drawn(list, v->features[i]);
            if (shown < 14) fail_msg("%s: %d of %d feature columns are labelled", name, shown, v->dim);
            for (int k = 0; k < pg->n_keep; k++)
                if (step_labels(&st, ATTN_STEP_EMBED, pg->keep[k]) && !text_drawn(list, pg->keep[k]))
                    fail_msg("%s: “%s” is not labelled", name, pg->keep[k]);
            app_free(&st);
        }
}

/* ---- nothing cut to "…" in a small window ---- */

static bool ends_with_ellipsis(const char *s) {
    size_t n = strlen(s), e = strlen("…");
    return n >= e && strcmp(s + n - e, "…") == 0;
}

/* The first text command of l that ends in "…", or NULL. */
static const char *cut_text(const viz_list *l) {
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_TEXT && ends_with_ellipsis(viz_cmd_text(l, &l->cmds[i])))
            return viz_cmd_text(l, &l->cmds[i]);
    return NULL;
}

static void assert_nothing_cut(app_state *st, const char *what) {
    char name[160];
    snprintf(name, sizeof name, "cut-1024-%s-%s-%s", st->look.lang ? "zh" : "en", theme_key(st->look.theme), what);
    const char *cut = cut_text(build(st, 1024, 640, name));
    if (cut) fail_msg("%s, %s, %s: “%s”", st->look.lang ? "zh" : "en", theme_key(st->look.theme), what, cut);
}

/* Every step, the split views and every lesson page (asked and answered),
 * in every theme and both languages: no control, badge, label or title of
 * the window is cut to "…" at 1024×640. */
static void nothing_cut_in_small_window(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int th = 0; th < VIZ_THEME_COUNT; th++) {
            app_state st;
            start(&st, (viz_theme_id)th, (viz_lang)lang);
            char what[64];
            for (int step = 0; step < ATTN_STEP_COUNT; step++) {
                app_goto_step(&st, step);
                snprintf(what, sizeof what, "step%d", step + 1);
                assert_nothing_cut(&st, what);
            }
            app_goto_step(&st, ATTN_STEP_SOFTMAX);
            st.view.lines_all = true; // the lines of every head, with their legend
            assert_nothing_cut(&st, "lines-all-heads");
            st.view.lines_all = false;
            app_edit_begin(&st); // the editing hint
            assert_nothing_cut(&st, "editing");
            app_edit_cancel(&st);
            app_toggle_help(&st);
            assert_nothing_cut(&st, "help");
            app_toggle_help(&st);
            for (int k = 1; k < VIZ_COMPARE_CONFIG; k++) { // scaling on vs off, two heads
                app_widget(&st, VIZ_W_COMPARE, +1);
                snprintf(what, sizeof what, "compare%d", k);
                assert_nothing_cut(&st, what);
            }
            app_free(&st);
            open_lesson(&st, (viz_lang)lang, (viz_theme_id)th);
            const lesson *l = app_lesson(&st);
            for (int i = 0; i < lesson_page_count(l); i++) {
                app_lesson_goto(&st, i);
                assert_nothing_cut(&st, lesson_page_at(l, i)->id);
                if (!st.lesson.predict_pending) continue;
                app_lesson_guess(&st, 0);
                snprintf(what, sizeof what, "%s-answered", lesson_page_at(l, i)->id);
                assert_nothing_cut(&st, what);
            }
            app_free(&st);
        }
}

/* ---- a question's page keeps its layout once answered ---- */

/* The boxes of l's matrices (GRID commands with more than one row). */
static int grids(const viz_list *l, viz_cmd *out, int cap) {
    int n = 0;
    for (int i = 0; i < l->count && n < cap; i++)
        if (l->cmds[i].kind == VIZ_GRID && l->cmds[i].rows > 1) out[n++] = l->cmds[i];
    return n;
}

static void question_pages_keep_their_layout(void **state) {
    (void)state;
    static const int sizes[][2] = {{1024, 640}, {1920, 1080}};
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int th = 0; th < VIZ_THEME_COUNT; th++)
            for (int z = 0; z < 2; z++) {
                app_state st;
                open_lesson(&st, (viz_lang)lang, (viz_theme_id)th);
                const lesson *l = app_lesson(&st);
                for (int i = 0; i < lesson_page_count(l); i++) {
                    app_lesson_goto(&st, i);
                    if (!st.lesson.predict_pending) continue;
                    char name[128];
                    const char *id = lesson_page_at(l, i)->id;
                    snprintf(name, sizeof name, "question-%d-%s-%s-%s", sizes[z][0], lang ? "zh" : "en",
                             theme_key((viz_theme_id)th), id);
                    viz_cmd before[64], after[64];
                    int nb = grids(build(&st, sizes[z][0], sizes[z][1], name), before, 64);
                    app_lesson_guess(&st, 0);
                    strcat(name, "-answered");
                    int na = grids(build(&st, sizes[z][0], sizes[z][1], name), after, 64);
                    if (na != nb) fail_msg("%s: %d matrices asked, %d answered", name, nb, na);
                    for (int k = 0; k < nb; k++)
                        if (!same_box(&before[k], &after[k]))
                            fail_msg("%s: matrix %d moves from %.0f,%.0f %.0fx%.0f to %.0f,%.0f %.0fx%.0f", name, k,
                                     before[k].x, before[k].y, before[k].w, before[k].h, after[k].x, after[k].y,
                                     after[k].w, after[k].h);
                }
                app_free(&st);
            }
}

/* An answered question names the step whose A answers it by that step's key,
 * "6 · Softmax" (the sub-step 2b sits before it in the enum: its index + 1
 * would say 7). */
static void answered_question_names_step_6(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        app_state st;
        open_lesson(&st, (viz_lang)lang, VIZ_THEME_LIGHT);
        const lesson *l = app_lesson(&st);
        int asked = 0;
        for (int i = 0; i < lesson_page_count(l) && !asked; i++) {
            app_lesson_goto(&st, i);
            if (!st.lesson.predict_pending) continue;
            asked = 1;
            app_lesson_guess(&st, 0);
            const viz_list *vl = build(&st, 1920, 1080, lang ? "answered-zh" : "answered-en");
            int six = 0, seven = 0;
            for (int k = 0; k < vl->count; k++) {
                if (vl->cmds[k].kind != VIZ_TEXT) continue;
                const char *t = viz_cmd_text(vl, &vl->cmds[k]);
                six += strstr(t, lang ? "（6 · Softmax" : "(6 · Softmax") != NULL; // the answer's "A (…)"
                seven += strstr(t, "7 · Softmax") != NULL;
            }
            if (six != 1 || seven != 0) fail_msg("lang %d: A (6 · Softmax) %d times, 7 · Softmax %d times", lang, six, seven);
        }
        assert_true(asked);
        app_free(&st);
    }
}

/* ---- the attention lines keep their labels ---- */

/* On the softmax step at 1024×640, the lines view labels every token on both
 * sides, whole, in one view and in the split views. */
static void lines_view_keeps_labels(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        app_state st;
        open_lesson(&st, (viz_lang)lang, VIZ_THEME_LIGHT);
        app_lesson_guess(&st, 0);
        app_goto_step(&st, ATTN_STEP_SOFTMAX);
        for (int k = 0; k < 3; k++) {
            char name[64];
            snprintf(name, sizeof name, "lines-1024-%s-%d", lang ? "zh" : "en", k);
            const viz_list *l = build(&st, 1024, 640, name);
            float right = 0; // the lines views lie right of the rightmost weights cell of their row of views
            for (int i = 0; i < l->count; i++)
                if (l->cmds[i].kind == VIZ_HIT && l->cmds[i].hit.kind == VIZ_HIT_CELL &&
                    l->cmds[i].hit.stage == ATTN_ST_WEIGHTS)
                    right = fmaxf(right, l->cmds[i].x + l->cmds[i].w);
            for (int t = 0; t < st.src.trace.n; t++) {
                char lab[96];
                attn_token_label(&st.src.trace.tokens, t, 0, lab, sizeof lab);
                int seen = 0;
                for (int i = 0; i < l->count; i++)
                    seen += l->cmds[i].kind == VIZ_TEXT && l->cmds[i].x > right &&
                            strcmp(viz_cmd_text(l, &l->cmds[i]), lab) == 0;
                if (seen < 2) fail_msg("%s: token %d (“%s”) is labelled %d times in the lines view", name, t, lab, seen);
            }
            assert_null(cut_text(l));
            app_widget(&st, VIZ_W_COMPARE, +1);
        }
        app_free(&st);
    }
}

/* ---- code in the narrative ---- */

/* The first text command of l that says s, or NULL. */
static const viz_cmd *find_text(const viz_list *l, const char *s) {
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_TEXT && strcmp(viz_cmd_text(l, &l->cmds[i]), s) == 0) return &l->cmds[i];
    return NULL;
}

/* The highest-drawn TEXT command saying s (a chip sits above the matrices' labels), or NULL. */
static const viz_cmd *topmost_text(const viz_list *l, const char *s) {
    const viz_cmd *best = NULL;
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_TEXT && strcmp(viz_cmd_text(l, &l->cmds[i]), s) == 0 && (!best || l->cmds[i].y < best->y))
            best = &l->cmds[i];
    return best;
}

/* GPT-2 splits 它 into three byte pieces (‹e5› ‹ae› ‹83›): the character is
 * written once, over its three chips and spanning them, and so is the emoji
 * over its four, in both languages and both sizes (issue 26: "the character
 * shown once over its pieces"). */
static void character_once_over_its_pieces(void **state) {
    (void)state;
    const viz_lang langs[] = {VIZ_LANG_EN, VIZ_LANG_ZH};
    const viz_theme_id themes[] = {VIZ_THEME_LIGHT, VIZ_THEME_PRESENTER};
    for (int k = 0; k < 2; k++) {
        app_state st;
        start(&st, themes[k], langs[k]);
        attn_err err;
        if (app_hf_open(&st, ATTN_SOURCE_DIR "/tests/data/hf/f32_prefix_tied", "它飞 ok 🙂", NULL, NULL, true, &err) != ATTN_OK)
            fail_msg("%s", err.msg);
        const viz_list *l = build(&st, k ? 1920 : 1280, k ? 1080 : 800, k ? "pieces-zh-presenter" : "pieces-en");
        int once = 0;
        for (int i = 0; i < l->count; i++)
            once += l->cmds[i].kind == VIZ_TEXT && strcmp(viz_cmd_text(l, &l->cmds[i]), "它") == 0;
        assert_int_equal(once, 1);
        const viz_cmd *ch = find_text(l, "它"), *first = topmost_text(l, "‹e5›"), *last = topmost_text(l, "‹83›");
        assert_non_null(first);
        assert_non_null(last);
        assert_true(ch->y + ch->h <= first->y + 0.01f);                                       // over the chips
        assert_true(ch->x <= first->x + 0.01f && ch->x + ch->w >= last->x + last->w - 0.01f); // across all three
        assert_non_null(find_text(l, "🙂"));
        app_free(&st);
    }
}

/* A lesson's code is drawn in the code face on a grid where a Chinese
 * character takes two columns (what follows "它它" lines up with what follows
 * "ab" + "cd"), and a long line wraps after "↪" with a hanging indent. */
static void code_in_the_code_face(void **state) {
    (void)state;
    app_state st;
    start(&st, VIZ_THEME_LIGHT, VIZ_LANG_ZH);
    st.lesson.narrative = strdup("Text.\n\n" VIZ_CODE_MARK "x = 它它  # one\n" VIZ_CODE_MARK "y = abcd  # two\n" VIZ_CODE_MARK "    long = f(aaaa, bbbb, cccc, dddd, eeee, ffff, gggg, hhhh, iiii, jjjj)\n");
    st.lesson.narrative_stale = false; // this text, not one rebuilt from a page (there is none)
    const viz_list *l = build(&st, 1280, 800, "code-grid");
    const viz_cmd *one = find_text(l, "# one"), *two = find_text(l, "y = abcd  # two"), *mark = find_text(l, "↪");
    const viz_cmd *ta = NULL, *text = find_text(l, "Text.");
    for (int i = 0; i < l->count && !ta; i++) // the code's 它, not a token chip's
        if (l->cmds[i].kind == VIZ_TEXT && l->cmds[i].font == VIZ_FONT_MONO && !strcmp(viz_cmd_text(l, &l->cmds[i]), "它"))
            ta = &l->cmds[i];
    assert_non_null(one);
    assert_non_null(two);
    assert_non_null(ta);
    assert_non_null(mark);
    assert_int_equal(one->font, VIZ_FONT_MONO);
    assert_int_equal(two->font, VIZ_FONT_MONO);
    assert_int_equal(text->font, VIZ_FONT_SANS);
    viz_measure m = viz_fonts_measure(g_fonts);
    float px = two->size, cell = m.mono(m.ctx, "0", 1, px);
    // "# two" starts 10 columns into its line; "# one" after "x = " (4), "它它" (4) and two spaces
    float two_hash = two->x + m.mono(m.ctx, "y = abcd  ", 10, px);
    if (fabsf(one->x - two_hash) > 0.5f)
        fail_msg("the comments start at %.1f and %.1f (a column is %.1f px)", one->x, two_hash, cell);
    assert_true(fabsf(ta->x - (two->x + 4 * cell + (2 * cell - m.mono(m.ctx, "它", strlen("它"), px)) / 2)) < 0.5f);
    // the long line's continuation: the mark two columns past its indentation, the text after it
    assert_true(fabsf(mark->x - (two->x + 6 * cell)) < 0.5f);
    assert_true(mark->y > two->y);
    app_free(&st);
}

/* Chinese lines break by the rules of its punctuation: an opening quote or
 * bracket never ends a line, a closing one never starts one (across many
 * window widths, so that every position of the marks meets a line's end). */
static void cjk_punctuation_stays_with_its_words(void **state) {
    (void)state;
    app_state st;
    start(&st, VIZ_THEME_LIGHT, VIZ_LANG_ZH);
    attn_strbuf b;
    attn_sb_init(&b);
    for (int k = 0; k < 30; k++) attn_sb_puts(&b, "他说“它”是那只鸟（不是动物），《书》里也这样写。");
    st.lesson.narrative = attn_sb_take(&b);
    st.lesson.narrative_stale = false; // this text, not one rebuilt from a page (there is none)
    static const char *const closing[] = {"”", "）", "》", "，", "。"};
    static const char *const opening[] = {"“", "（", "《"};
    int lines = 0;
    for (int w = 1024; w < 1424; w += 7) {
        const viz_list *l = build(&st, w, 800, "cjk-breaks");
        for (int i = 0; i < l->count; i++) {
            const char *t = viz_cmd_text(l, &l->cmds[i]);
            if (l->cmds[i].kind != VIZ_TEXT || !strstr(t, "它") || strlen(t) < 12) continue; // the narrative's lines
            lines++;
            for (size_t k = 0; k < sizeof closing / sizeof *closing; k++)
                if (strncmp(t, closing[k], strlen(closing[k])) == 0) fail_msg("width %d: a line starts with %s: %s", w, closing[k], t);
            for (size_t k = 0; k < sizeof opening / sizeof *opening; k++) {
                size_t n = strlen(t), m = strlen(opening[k]);
                if (n >= m && strcmp(t + n - m, opening[k]) == 0) fail_msg("width %d: a line ends with %s: %s", w, opening[k], t);
            }
        }
    }
    assert_true(lines > 100);
    app_free(&st);
}

/* Every TEXT command's text, spaces dropped (a caption may wrap anywhere between its words). */
static char *drawn_text(const viz_list *l) {
    attn_strbuf b;
    attn_sb_init(&b);
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_TEXT)
            for (const char *t = viz_cmd_text(l, &l->cmds[i]); *t; t++)
                if (*t != ' ') attn_sb_append(&b, t, 1);
    return attn_sb_take(&b);
}

/* The help overlay adds the lines the platform gives it (the browser's
 * keys) below the keys, in both languages, at the sizes of a laptop and a
 * small window; the desktop gives none (platform_desktop.c). */
static void help_says_what_the_platform_keeps(void **state) {
    (void)state;
    static const char *const starts[] = {"Inthebrowser:Ctrl+=", "在浏览器中：Ctrl+="}; // spaces dropped, as drawn_text
    for (int lang = VIZ_LANG_EN; lang <= VIZ_LANG_ZH; lang++) {
        app_state st;
        start(&st, VIZ_THEME_LIGHT, (viz_lang)lang);
        st.view.show_help = true;
        st.look.width = 1280;
        st.look.height = 800;
        viz_scene sc;
        char badge[320];
        app_scene(&st, &sc, badge, sizeof badge);
        assert_null(sc.help_note);
        char *text = drawn_text(build(&st, 1280, 800, "help-desktop"));
        assert_null(strstr(text, starts[lang]));
        free(text);
        for (int w = 800; w <= 1280; w += 480) {
            st.look.width = w;
            st.look.height = w * 5 / 8;
            app_scene(&st, &sc, badge, sizeof badge);
            sc.help_note = app_str(&st, VIZ_S_HELP_BROWSER_KEYS);
            viz_build_window(&g_list, &sc, viz_fonts_measure(g_fonts));
            assert_false(g_list.failed);
            text = drawn_text(&g_list);
            if (!strstr(text, starts[lang])) fail_msg("%d px, %s: the help does not show the browser's keys", w, lang ? "zh" : "en");
            assert_non_null(strstr(text, "Ctrl+Q")); // its last line too, after the desktop's keys
            assert_true(strstr(text, starts[lang]) > strstr(text, "F1"));
            assert_null(cut_text(&g_list));
            free(text);
        }
        app_free(&st);
    }
}

/* The backward view's caption names the cell the pointer loss reads and its
 * gradient, so the value a lesson quotes is on screen where the cells are too
 * narrow to write it: the value of an independent run of the model file
 * with the same target, as the cells format it (∂L/∂A on the softmax step,
 * ∂L/∂T on the scale step), in both languages and themes. */
static void backward_caption_names_the_target_cell(void **state) {
    (void)state;
    static const char *const models[] = {"referent-en-steps0.json", "referent-zh-steps0.json", "referent-en.json"};
    for (int k = 0; k < 3; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/assets/models/%s", ATTN_SOURCE_DIR, models[k]);
        app_state st;
        start(&st, k == 1 ? VIZ_THEME_PRESENTER : VIZ_THEME_LIGHT, k == 1 ? VIZ_LANG_ZH : VIZ_LANG_EN);
        attn_err err;
        if (app_model_open(&st, path, &err) != ATTN_OK) fail_msg("%s", err.msg);
        app_model_toggle_backward(&st);
        app_model_layer(&st, +8); // the last layer, where the loss reads the cell (clamped)
        model m;
        if (model_file_load(&m, path, &err) != ATTN_OK) fail_msg("%s", err.msg);
        model_result r = {0};
        const model_result *shown = &st.model.run;
        assert_int_equal(shown->n_targets, 1);
        assert_int_equal(model_run_targets(&r, &m, st.src.sentence, strlen(st.src.sentence), shown->targets, 1, &err), ATTN_OK);
        int i = r.targets[0].row, j = r.targets[0].target, L = m.cfg.layers - 1;
        for (int step = ATTN_STEP_SCALE; step <= ATTN_STEP_SOFTMAX; step += ATTN_STEP_SOFTMAX - ATTN_STEP_SCALE) {
            app_goto_step(&st, step);
            int stage = step == ATTN_STEP_SOFTMAX ? MODEL_ST_D_WEIGHTS : MODEL_ST_D_SCALED, rows, cols;
            const double *g = model_result_stage(&r, &m, stage, L, 0, &rows, &cols);
            char row[96], key[96], want[256];
            attn_token_label(&r.layer[L].tokens, i, 14, row, sizeof row);
            attn_token_label(&r.layer[L].tokens, j, 14, key, sizeof key);
            double v = g[(size_t)i * cols + j];
            snprintf(want, sizeof want, "%s[%s,%s]=%.2f", stage == MODEL_ST_D_WEIGHTS ? "∂L/∂A" : "∂L/∂T", row, key,
                     fabs(v) < 0.005 ? 0.0 : v); // as the cells write it: never "-0.00"
            for (int w = 1024; w <= 1920; w += 896) {
                char *text = drawn_text(build(&st, w, w == 1024 ? 640 : 1080, "backward-caption"));
                if (!strstr(text, want)) fail_msg("%s at %d: the caption does not say %s", models[k], w, want);
                free(text);
            }
        }
        model_result_free(&r);
        model_free(&m);
        app_free(&st);
    }
}

/* ---- model pages: the pronoun's row reads first ---- */

/* The GRID of l that is n×n and lies in the canvas's first view, or NULL. */
static const viz_cmd *square_grid(const viz_list *l, int n) {
    for (int i = 0; i < l->count; i++)
        if (l->cmds[i].kind == VIZ_GRID && l->cmds[i].rows == n && l->cmds[i].cols == n) return &l->cmds[i];
    return NULL;
}

static bool same_rgba(viz_rgba a, viz_rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }

/* Issue 23 part 6: on the two-layer page, layer 2's A draws the row the
 * pointer objective trains (the pronoun's) in the scale's colours and fades
 * every other row toward the background; layer 1, whose rows all feed the
 * answer, fades none. Both languages, light and presenter. */
static void pronoun_row_reads_first(void **state) {
    (void)state;
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++)
        for (int th = 0; th < VIZ_THEME_COUNT; th++) {
            app_state st;
            open_lesson(&st, (viz_lang)lang, (viz_theme_id)th);
            const lesson *l = app_lesson(&st);
            app_lesson_goto(&st, lesson_find_page(l, "two-layers"));
            assert_non_null(st.model.m);
            st.lesson.predict_pending = false; // answered: the weights show
            const model *m = st.model.m;
            const model_result *r = &st.model.run;
            assert_int_equal(r->n_targets, 1);
            int p = r->targets[0].row, n = r->n;
            for (int layer = m->cfg.layers - 1; layer >= 0; layer--) {
                if (st.model.layer != layer) app_model_layer(&st, layer - st.model.layer);
                assert_int_equal(st.model.layer, layer);
                char name[96];
                snprintf(name, sizeof name, "pronoun-row-%s-%s-layer%d", lang ? "zh" : "en", theme_key((viz_theme_id)th), layer + 1);
                const viz_list *list = build(&st, 1280, 800, name);
                const viz_cmd *g = square_grid(list, n);
                assert_non_null(g);
                int rows, cols;
                const double *a = model_result_stage(r, m, ATTN_ST_WEIGHTS, layer, st.view.head, &rows, &cols);
                assert_non_null(a);
                const viz_rgba *px = list->cells + g->cells;
                int faded = 0, full = 0;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) {
                        bool scale = same_rgba(px[i * n + j], viz_sequential(a[(size_t)i * n + j]));
                        if (i == p && !scale) fail_msg("%s: the pronoun's cell %d,%d is not the scale's colour", name, i, j);
                        if (i != p) scale ? full++ : faded++;
                    }
                bool last = layer == m->cfg.layers - 1;
                if (last && full) fail_msg("%s: %d cells of rows the loss does not read are not faded", name, full);
                if (!last && faded) fail_msg("%s: %d cells of layer %d faded", name, faded, layer + 1);
            }
            app_free(&st);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backward_caption_names_the_target_cell),
        cmocka_unit_test(help_says_what_the_platform_keeps),
        cmocka_unit_test(cjk_punctuation_stays_with_its_words),
        cmocka_unit_test(presenter_values_read_from_afar),
        cmocka_unit_test(presenter_lesson_pages_read_from_afar),
        cmocka_unit_test(every_model_word_reachable),
        cmocka_unit_test(character_once_over_its_pieces),
        cmocka_unit_test(compare_reads_in_figure_view),
        cmocka_unit_test(verdict_heads_the_revealed_text),
        cmocka_unit_test(narrative_gets_the_room),
        cmocka_unit_test(code_page_shows_code_in_the_canvas),
        cmocka_unit_test(laptop_values_and_features_read),
        cmocka_unit_test(page_features_labelled_in_small_window),
        cmocka_unit_test(feature_columns_stay),
        cmocka_unit_test(nothing_cut_in_small_window),
        cmocka_unit_test(question_pages_keep_their_layout),
        cmocka_unit_test(answered_question_names_step_6),
        cmocka_unit_test(lines_view_keeps_labels),
        cmocka_unit_test(code_in_the_code_face),
        cmocka_unit_test(pronoun_row_reads_first),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
