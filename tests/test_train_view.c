/* test_train_view.c — the training view (F3) without a window: its schedules,
 * options and axes, and the thread: started, paused, stepped one at a time
 * and resumed, it trains the bytes a plain loop does (the loop of --train). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_sdl_common.h"
#include "app_actions.h"
#include "app_train.h"
#include "app_view.h"
#include "cli_args.h"
#include "cli_train.h"
#include "fileio.h"
#include "model_file.h"
#include "viz_strings.h"
#include "viz_train.h"

static viz_strings strings;
static viz_fonts *fonts;
static viz_list list;

static int setup(void **state) {
    (void)state;
    attn_err err;
    if (viz_strings_load(&strings, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err) != ATTN_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    fonts = test_fonts_open();
    return fonts ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    viz_free(&list);
    test_fonts_close(fonts);
    viz_strings_free(&strings);
    return 0;
}

static void test_snapshot_steps(void **state) {
    (void)state;
    int s[APP_TRAIN_MAX_SCHEDULE];
    int n = app_train_snapshot_steps(300, 1.25, s, APP_TRAIN_MAX_SCHEDULE);
    static const int want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18, 22, 27, 33, 41, 51, 63, 78, 97, 121, 151,
                               188, 235, 293, 300};
    assert_int_equal(n, (int)(sizeof want / sizeof *want));
    for (int i = 0; i < n; i++) assert_int_equal(s[i], want[i]);
    for (int total = 1; total <= 20000; total = total * 3 + 1) { // log spaced: few, increasing, ending at total
        n = app_train_snapshot_steps(total, 1.25, s, APP_TRAIN_MAX_SCHEDULE);
        assert_int_equal(s[0], 0);
        assert_int_equal(s[n - 1], total);
        assert_true(n <= 12 + (int)(log(total + 1.0) / log(1.25)));
        for (int i = 1; i < n; i++) {
            assert_true(s[i] > s[i - 1]);
            if (i < n - 1) assert_true(s[i] <= s[i - 1] * 1.25 + 1);
        }
    }
    assert_int_equal(app_train_snapshot_steps(10, 1.25, s, 4), 4); // a short cap keeps the last
    assert_int_equal(s[3], 10);
}

static void test_eval_steps(void **state) {
    (void)state;
    int e[APP_TRAIN_MAX_SCHEDULE], l[APP_TRAIN_MAX_SCHEDULE];
    static const double costs[] = {0.5, 1.6, 4.0, 8.0, 40.0};
    for (int c = 0; c < 5; c++)
        for (int total = 10; total <= 10000; total = total * 2 + 7) {
            double cost = costs[c];
            int n = app_train_eval_steps(total, cost, e, APP_TRAIN_MAX_SCHEDULE), k = app_train_eval_every(total, cost);
            int nl = app_train_snapshot_steps(total, APP_TRAIN_EVAL_RATIO, l, APP_TRAIN_MAX_SCHEDULE);
            assert_int_equal(e[0], 0);
            assert_int_equal(e[n - 1], total);
            for (int i = 1; i < n; i++) assert_true(e[i] > e[i - 1]);
            for (int s = k; s <= total; s += k) { // every K steps …
                bool found = false;
                for (int i = 0; i < n; i++) found |= e[i] == s;
                assert_true(found);
            }
            for (int j = 0; j < nl; j++) { // … and the log-spaced ones, nothing else
                bool found = false;
                for (int i = 0; i < n; i++) found |= e[i] == l[j];
                assert_true(found);
            }
            assert_true(n <= total / k + nl);
            // within the budget, unless the log-spaced ones alone exceed it
            if (k <= total) assert_true(n * cost <= APP_TRAIN_EVAL_BUDGET * total + cost);
            else assert_int_equal(n, nl);
        }
    // referent-zh (128 of 209 held-out, batch 64) and sort (128 of 500, batch 32) at their default steps
    assert_true(app_train_eval_cost(209, 64) == 1.0);
    assert_int_equal(app_train_eval_every(300, 1.0), 12);
    assert_true(app_train_eval_cost(500, 32) == 2.0);
    assert_int_equal(app_train_eval_every(300, 2.0), 43);
    assert_int_equal(app_train_eval_every(300, 4.0), 301); // the log-spaced ones are all it affords
    assert_true(app_train_eval_cost(50, 32) == 50 / 64.0);
}

static void assert_same_config(const model_config *a, const model_config *b) {
    assert_int_equal(a->d_model, b->d_model);
    assert_int_equal(a->d_k, b->d_k);
    assert_int_equal(a->heads, b->heads);
    assert_int_equal(a->layers, b->layers);
    assert_int_equal(a->pos, b->pos);
    assert_int_equal(a->max_len, b->max_len);
    assert_int_equal(a->mask.kind, b->mask.kind);
    assert_int_equal(a->mask.window, b->mask.window);
    assert_int_equal(a->scale, b->scale);
    assert_int_equal(a->bias, b->bias);
    assert_int_equal(a->objective, b->objective);
}

static void assert_same_opts(const app_train_opts *a, const app_train_opts *b) {
    assert_int_equal(a->task, b->task);
    assert_int_equal(a->layers, b->layers);
    assert_int_equal(a->heads, b->heads);
    assert_int_equal(a->d_model, b->d_model);
    assert_int_equal(a->steps, b->steps);
    assert_true(a->lr == b->lr);
    assert_int_equal(a->seed, b->seed);
}

static void test_defaults_are_train_s(void **state) {
    (void)state;
    for (int i = 0; i < task_count(); i++) {
        app_train_opts o;
        app_train_defaults(&o, i);
        model_config a, b;
        task_train_opts ta, tb;
        app_train_settings(&o, &a, &ta);
        cli_opts co;
        attn_err err;
        char *argv[] = {"attnviz", "--train", (char *)task_at(i)->name, "--save", "x.json"};
        assert_int_equal(cli_parse(&co, 5, argv, &err), ATTN_OK);
        cli_train_settings(&co, task_at(i), &b, &tb);
        assert_same_config(&a, &b);
        assert_int_equal(ta.steps, tb.steps);
        assert_int_equal(ta.batch, tb.batch);
        assert_true(ta.lr == tb.lr && ta.weight_decay == tb.weight_decay && ta.seed == tb.seed);
    }
    // the view's choices are the flags of the same names
    app_train_opts o;
    app_train_defaults(&o, 0);
    o.layers = 3, o.heads = 2, o.d_model = 32, o.lr = 0.003, o.steps = 50, o.seed = 7;
    model_config a, b;
    task_train_opts ta, tb;
    app_train_settings(&o, &a, &ta);
    cli_opts co;
    attn_err err;
    char *argv[] = {"attnviz", "--train", "referent-zh", "--save", "x.json", "--layers", "3", "--heads", "2",
                    "--d-model", "32", "--lr", "0.003", "--train-steps", "50", "--seed", "7"};
    assert_int_equal(cli_parse(&co, 17, argv, &err), ATTN_OK);
    cli_train_settings(&co, task_at(0), &b, &tb);
    assert_same_config(&a, &b);
    assert_true(ta.steps == tb.steps && ta.lr == tb.lr && ta.seed == tb.seed && ta.weight_decay == tb.weight_decay);
}

static void test_option_steps(void **state) {
    (void)state;
    app_train_opts o;
    app_train_defaults(&o, 0);
    assert_string_equal(task_at(o.task)->name, "referent-zh");
    app_train_option_step(&o, 4, +1);
    assert_true(o.lr == 0.03);
    app_train_option_step(&o, 4, -2);
    assert_true(o.lr == 0.003);
    for (int i = 0; i < 20; i++) app_train_option_step(&o, 4, -1);
    assert_true(o.lr == 1e-4);
    app_train_option_step(&o, 5, +1);
    assert_int_equal(o.steps, 400);
    app_train_option_step(&o, 5, -3);
    assert_int_equal(o.steps, 100);
    app_train_option_step(&o, 3, +1);
    assert_int_equal(o.d_model, 32);
    for (int i = 0; i < 9; i++) app_train_option_step(&o, 3, +1);
    assert_int_equal(o.d_model, 64);
    for (int i = 0; i < 9; i++) app_train_option_step(&o, 1, +1), app_train_option_step(&o, 2, +1);
    assert_int_equal(o.layers, MODEL_MAX_LAYERS);
    assert_int_equal(o.heads, ATTN_MAX_HEADS);
    app_train_option_step(&o, 6, -1);
    assert_int_equal(o.seed, 0);
    // a new task brings its own defaults; the last wraps round to the first
    app_train_option_step(&o, 0, -1);
    assert_string_equal(task_at(o.task)->name, task_at(task_count() - 1)->name);
    app_train_opts d;
    app_train_defaults(&d, task_count() - 1);
    assert_same_opts(&o, &d);
    app_train_option_step(&o, 0, +1);
    assert_int_equal(o.task, 0);
}

static void test_file_names(void **state) {
    (void)state;
    char b[128];
    app_train_file_name(b, sizeof b, "referent-zh", 1, 300, 1);
    assert_string_equal(b, "referent-zh-seed1-300steps.json");
    app_train_file_name(b, sizeof b, "induction", 4294967295u, 5, 3);
    assert_string_equal(b, "induction-seed4294967295-5steps-3.json");
}

static void test_axis(void **state) {
    (void)state;
    int t[32];
    int n = viz_train_step_ticks(300, t, 32);
    static const int want[] = {0, 1, 2, 5, 10, 20, 50, 100, 200};
    assert_int_equal(n, 9);
    for (int i = 0; i < n; i++) assert_int_equal(t[i], want[i]);
    n = viz_train_step_ticks(5000, t, 32);
    static const int want2[] = {0, 1, 10, 100, 1000};
    assert_int_equal(n, 5);
    for (int i = 0; i < n; i++) assert_int_equal(t[i], want2[i]);
    assert_int_equal(viz_train_step_ticks(300, t, 3), 3);
    assert_close(viz_train_axis_pos(0, 300), 0.0);
    assert_close(viz_train_axis_pos(300, 300), 1.0);
    assert_close(viz_train_axis_pos(9, 99), 0.5); // log(10) / log(100)
    int lo, hi;
    double v[] = {2.7, 0.013, NAN, 1e-9};
    viz_train_log_range(v, 4, &lo, &hi);
    assert_int_equal(lo, -6);
    assert_int_equal(hi, 1);
    viz_train_log_range(v, 2, &lo, &hi);
    assert_int_equal(lo, -2);
    assert_int_equal(hi, 1);
    double one = 1.0;
    viz_train_log_range(&one, 1, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 1);
    char b[32];
    viz_train_format_loss(b, sizeof b, 0.012345);
    assert_string_equal(b, "0.012");
    viz_train_format_loss(b, sizeof b, NAN);
    assert_string_equal(b, "—");
    for (int w = VIZ_TW_FIRST; w < VIZ_TW_END; w++) assert_int_equal(viz_train_widget_from_name(viz_train_widget_name(w)), w);
    assert_int_equal(viz_train_widget_from_name("heads"), -1);
}

/* ---- the thread ---- */

typedef struct {
    app_state st;
    app_train t;
} view;

static void open_view(view *v) {
    attn_config c;
    attn_config_default(&c);
    attn_err err;
    if (app_init(&v->st, NULL, &c, &strings, &err) != ATTN_OK) fail_msg("%s", err.msg);
    app_train_init(&v->t, &v->st);
    assert_true(app_train_key(&v->t, SDLK_F3, 0));
    assert_true(v->t.open && v->t.made);
}

static void close_view(view *v) {
    app_train_free(&v->t);
    app_free(&v->st);
}

/* Polls until value name is want (at most 120 s). */
static void wait_for(view *v, const char *name, const char *want) {
    for (int i = 0; i < 120000; i++) {
        app_train_poll(&v->t);
        char *got = app_train_value(&v->t, name);
        bool ok = got && !strcmp(got, want);
        free(got);
        if (ok) return;
        SDL_Delay(1);
    }
    char *got = app_train_value(&v->t, name);
    fail_msg("%s is %s, not %s", name, got, want);
}

/* What --train TASK --train-steps steps --save writes: the plain loop. */
static char *plain_training(int task, int steps) {
    app_train_opts o;
    app_train_defaults(&o, task);
    o.steps = steps;
    model_config cfg;
    task_train_opts tr;
    app_train_settings(&o, &cfg, &tr);
    model_trainer t;
    attn_err err;
    if (model_trainer_init(&t, task_at(task), &cfg, &tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
    while (t.step < steps)
        if (model_trainer_step(&t, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (model_trainer_finish(&t, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *json = model_file_write(&t.model);
    model_trainer_free(&t);
    return json;
}

static char *read_all(const char *path) {
    char *text = NULL;
    size_t len;
    attn_err err;
    if (attn_read_file(path, 64u << 20, &text, &len, &err) != ATTN_OK) fail_msg("%s", err.msg);
    return text;
}

static void test_thread_pauses_and_steps(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-train-view-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("XDG_DATA_HOME", dir, 1);
    view v;
    open_view(&v);
    char *s = app_train_value(&v.t, "train_state");
    assert_string_equal(s, "idle");
    free(s);
    // reverse: one layer, 400 steps of 32 — paused at once, three single steps, then the rest
    for (int i = 0; i < 2; i++) app_train_key(&v.t, SDLK_DOWN, 0), app_train_key(&v.t, SDLK_UP, 0);
    app_train_widget(&v.t, VIZ_TW_TASK, +1);
    app_train_widget(&v.t, VIZ_TW_TASK, +1);
    s = app_train_value(&v.t, "train_task");
    assert_string_equal(s, "reverse");
    free(s);
    app_train_key(&v.t, SDLK_SPACE, 0);
    app_train_key(&v.t, SDLK_SPACE, 0);
    for (int i = 0; i < 3; i++) app_train_key(&v.t, SDLK_PERIOD, 0);
    wait_for(&v, "train_state", "paused");
    int paused_at = v.t.step_seen;
    assert_true(paused_at >= 3 && paused_at < 400);
    // saved while paused: the record is evaluated for this step, as --train-steps N would write it
    app_train_key(&v.t, SDLK_s, 0);
    char *want = plain_training(2, paused_at), *got = read_all(v.t.saved);
    assert_string_equal(got, want);
    free(want);
    free(got);
    app_train_key(&v.t, SDLK_SPACE, 0);
    wait_for(&v, "train_state", "done");
    // the last point is the record's held-out accuracy; the live model is the trained one
    assert_true(v.t.n_seen > 10 && v.t.seen[v.t.n_seen - 1].step == 400);
    assert_true(v.t.seen[v.t.n_seen - 1].accuracy == v.t.pub.training.heldout_accuracy);
    assert_int_equal(v.t.live_step, 400);
    assert_int_equal(v.t.snaps_seen, v.t.n_snaps);
    want = plain_training(2, 400);
    char *live = model_file_write(&v.t.live);
    assert_string_equal(live, want);
    free(live);
    // saved twice: a new name each time, never over the first
    app_train_key(&v.t, SDLK_s, 0);
    char first[1400];
    snprintf(first, sizeof first, "%s", v.t.saved);
    app_train_key(&v.t, SDLK_s, 0);
    assert_string_not_equal(first, v.t.saved);
    assert_non_null(strstr(v.t.saved, "/attnviz/models/reverse-seed1-400steps-2.json"));
    got = read_all(first);
    assert_string_equal(got, want);
    free(got);
    got = read_all(v.t.saved);
    assert_string_equal(got, want);
    free(got);
    // a snapshot scrubbed to shows (and saves) that step's model
    app_train_widget(&v.t, VIZ_TW_SNAPSHOT, 4);
    assert_int_equal(v.t.view.shown_step, 4);
    app_train_key(&v.t, SDLK_s, 0);
    assert_non_null(strstr(v.t.saved, "reverse-seed1-4steps.json"));
    free(want);
    want = plain_training(2, 4);
    got = read_all(v.t.saved);
    assert_string_equal(got, want);
    free(got);
    free(want);
    close_view(&v);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_options_after_start_ask_for_reset(void **state) {
    (void)state;
    view v;
    open_view(&v);
    app_train_widget(&v.t, VIZ_TW_STEPS, -1); // not started: a new training at once
    assert_int_equal(v.t.opts.steps, 200);
    assert_false(v.t.view.options_pending);
    app_train_key(&v.t, SDLK_PERIOD, 0);
    wait_for(&v, "train_step", "1");
    app_train_widget(&v.t, VIZ_TW_LAYERS, +1); // started: the training stays, the view asks for Reset
    assert_int_equal(v.t.opts.layers, 2);
    assert_int_equal(v.t.chosen.layers, 3);
    assert_true(v.t.view.options_pending);
    char *s = app_train_value(&v.t, "train_step");
    assert_string_equal(s, "1");
    free(s);
    app_train_key(&v.t, SDLK_r, 0);
    assert_int_equal(v.t.opts.layers, 3);
    assert_false(v.t.view.options_pending);
    s = app_train_value(&v.t, "train_step");
    assert_string_equal(s, "0");
    free(s);
    // the probe: a word outside the vocabulary is refused naming it; the last valid one stays
    app_train_key(&v.t, SDLK_e, 0);
    assert_true(v.st.edit.ed.active);
    app_edit_insert(&v.st, "车");
    assert_non_null(strstr(v.st.edit.ed.error, "“车”"));
    assert_string_equal(v.t.probe, task_at(0)->probe);
    app_edit_backspace(&v.st);
    assert_string_equal(v.st.edit.ed.error, "");
    app_edit_commit(&v.st);
    assert_false(v.st.edit.ed.active);
    // Esc closes; the keys of the view are then the walkthrough's again
    assert_true(app_train_key(&v.t, SDLK_ESCAPE, 0));
    assert_false(v.t.open);
    assert_false(app_train_key(&v.t, SDLK_SPACE, 0));
    assert_false(app_train_key(&v.t, SDLK_PERIOD, 0));
    close_view(&v);
}

/* A lesson page whose model cannot be read offers to train it with F3: the
 * view opens on that task (not yet trained, it follows the page). */
static void test_page_offers_its_task(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-train-lesson-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/m.lesson", dir);
    static const char text[] = "# lesson: m\ntitle: A model to train\nlang: en\n@sentence: a b c\n"
                               "=== page: p\ntitle: The induction head\n@model: induction-steps600.json\n\nText.\n";
    attn_err err;
    assert_int_equal(attn_write_file(path, text, strlen(text), NULL, &err), ATTN_OK);
    view v;
    attn_config c;
    attn_config_default(&c);
    if (app_init(&v.st, NULL, &c, &strings, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (app_lesson_open(&v.st, path, NULL, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_non_null(strstr(v.st.src.notice, "F3"));
    app_train_init(&v.t, &v.st);
    app_train_key(&v.t, SDLK_F3, 0);
    char *task = app_train_value(&v.t, "train_task");
    assert_string_equal(task, "induction");
    free(task);
    task = app_train_value(&v.t, "train_steps");
    assert_string_equal(task, "600");
    free(task);
    close_view(&v);
    unlink(path);
    rmdir(dir);
}

/* ---- readable: nothing cut, nothing outside its box, no two texts on each other ---- */

/* Where a TEXT command's ink goes: its measured width placed by its alignment, a line of its size. */
static void text_extent(const viz_cmd *c, float tw, float *x0, float *x1, float *y0, float *y1) {
    int h = c->align & 3, v = c->align & 12;
    *x0 = h == VIZ_CENTER ? c->x + (c->w - tw) / 2 : h == VIZ_RIGHT ? c->x + c->w - tw
                                                                    : c->x;
    *x1 = *x0 + tw;
    float lh = c->size * 1.05f;
    *y0 = v == VIZ_MIDDLE ? c->y + (c->h - lh) / 2 : v == VIZ_BOTTOM ? c->y + c->h - lh
                                                                     : c->y;
    *y1 = *y0 + lh;
}

/* Lays the window out with the view open at w×h and checks its texts. */
static void assert_readable(view *v, int w, int h, const char *what) {
    v->st.look.width = w;
    v->st.look.height = h;
    viz_scene sc;
    char badge[320];
    app_scene(&v->st, &sc, badge, sizeof badge);
    app_train_scene(&v->t, &sc);
    assert_non_null(sc.train);
    viz_measure m = viz_fonts_measure(fonts);
    viz_build_window(&list, &sc, m);
    assert_false(list.failed);
    const char *dir = getenv("ATTNVIZ_LAYOUT_SHOTS"); // to look at what was checked
    if (dir && *dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/train-%dx%d-%s-%s-%s.png", dir, w, h, v->st.look.lang ? "zh" : "en",
                 viz_theme_name(v->st.look.theme), what);
        SDL_Surface *surf = viz_sdl_render_surface(fonts, &list, w, h, viz_theme_get(v->st.look.theme)->bg);
        attn_err err;
        assert_non_null(surf);
        if (viz_save_png(surf, path, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
        SDL_FreeSurface(surf);
    }
    const char *where = v->st.look.lang ? "zh" : "en";
    int n = list.count;
    float(*ext)[4] = calloc((size_t)n, sizeof *ext);
    assert_non_null(ext);
    for (int i = 0; i < n; i++) {
        const viz_cmd *c = &list.cmds[i];
        if (c->kind != VIZ_TEXT) continue;
        const char *t = viz_cmd_text(&list, c);
        size_t len = strlen(t), e = strlen("…");
        if (len >= e && !strcmp(t + len - e, "…"))
            fail_msg("%dx%d %s %s %s: cut to “%s”", w, h, where, viz_theme_name(v->st.look.theme), what, t);
        float tw = m.width(m.ctx, t, len, c->size);
        if (tw > c->w + 1.5f)
            fail_msg("%dx%d %s %s %s: “%s” is %.0f px wide in a box of %.0f", w, h, where, viz_theme_name(v->st.look.theme),
                     what, t, tw, c->w);
        text_extent(c, tw, &ext[i][0], &ext[i][1], &ext[i][2], &ext[i][3]);
        if (ext[i][0] < -0.5f || ext[i][1] > w + 0.5f || ext[i][3] > h + 0.5f)
            fail_msg("%dx%d %s %s: “%s” leaves the window", w, h, where, what, t);
        for (int j = 0; j < i; j++) {
            const viz_cmd *d = &list.cmds[j];
            if (d->kind != VIZ_TEXT || !*t || !*viz_cmd_text(&list, d)) continue;
            float ox = fminf(ext[i][1], ext[j][1]) - fmaxf(ext[i][0], ext[j][0]);
            float oy = fminf(ext[i][3], ext[j][3]) - fmaxf(ext[i][2], ext[j][2]);
            if (ox > 1.5f && oy > 1.5f)
                fail_msg("%dx%d %s %s %s: “%s” overlaps “%s”", w, h, where, viz_theme_name(v->st.look.theme), what, t,
                         viz_cmd_text(&list, d));
        }
    }
    free(ext);
}

/* The view idle, trained and scrubbed to a snapshot, with the probe refused and
 * the options changed: zh and en, light and presenter, 1024×640 and 1920×1080. */
static void test_view_is_readable(void **state) {
    (void)state;
    view v;
    open_view(&v);
    static const viz_theme_id themes[] = {VIZ_THEME_LIGHT, VIZ_THEME_PRESENTER};
    static const int sizes[][2] = {{1024, 640}, {1920, 1080}, {1280, 800}};
    for (int phase = 0; phase < 4; phase++) {
        if (phase == 1) { // trained
            app_train_key(&v.t, SDLK_SPACE, 0);
            wait_for(&v, "train_state", "done");
        } else if (phase == 2) { // a snapshot, and a word the task does not know
            app_train_key(&v.t, SDLK_LEFT, 0);
            app_train_key(&v.t, SDLK_LEFT, 0);
            app_train_key(&v.t, SDLK_e, 0);
            app_edit_insert(&v.st, "车");
        } else if (phase == 3) { // the options changed after training: the view asks for Reset
            app_edit_cancel(&v.st);
            app_train_widget(&v.t, VIZ_TW_LAYERS, +1);
            assert_true(v.t.view.options_pending);
        }
        static const char *const names[] = {"idle", "done", "probe-refused", "pending"};
        for (int l = 0; l < 2; l++)
            for (int th = 0; th < 2; th++)
                for (int z = 0; z < 3; z++) {
                    v.st.look.lang = (viz_lang)l;
                    v.st.look.theme = themes[th];
                    assert_readable(&v, sizes[z][0], sizes[z][1], names[phase]);
                }
    }
    close_view(&v);
}

/* Issue 23 part 6: the probe's flipped pair is drawn as heatmaps beside the
 * probe's (every layer and head of each), each under a line naming its
 * sentence, in both languages; once trained, the accuracy plot draws the
 * held-out accuracy by kind of predicate, its legend named. */
static void test_pair_beside_probe(void **state) {
    (void)state;
    view v;
    open_view(&v);
    assert_non_null(v.t.pair);
    assert_true(v.t.pair_ok);
    int per_sentence = v.t.opts.layers * v.t.opts.heads;
    for (int l = 0; l < 2; l++) {
        v.st.look.lang = (viz_lang)l;
        assert_readable(&v, 1280, 800, "pair");
        int grids = 0;
        for (int i = 0; i < list.count; i++) grids += list.cmds[i].kind == VIZ_GRID && list.cmds[i].rows > 1;
        if (grids != 2 * per_sentence) fail_msg("%s: %d heatmaps, not %d (the probe's and its pair's)", l ? "zh" : "en", grids, 2 * per_sentence);
        const char *want = l ? "翻过来的一句" : "Its flipped pair:";
        bool named = false;
        for (int i = 0; i < list.count && !named; i++)
            named = list.cmds[i].kind == VIZ_TEXT && strstr(viz_cmd_text(&list, &list.cmds[i]), want);
        if (!named) fail_msg("%s: no line says \"%s\"", l ? "zh" : "en", want);
    }
    // trained: the held-out accuracy by kind of predicate is a pair of curves with their legend
    app_train_key(&v.t, SDLK_SPACE, 0);
    wait_for(&v, "train_state", "done");
    for (int l = 0; l < 2; l++) {
        v.st.look.lang = (viz_lang)l;
        assert_readable(&v, 1280, 800, "kinds");
        const char *kinds[2] = {strings.s[l][VIZ_S_TRAIN_KIND_SUBJECT],
                                strings.s[l][VIZ_S_TRAIN_KIND_OTHER]};
        for (int k = 0; k < 2; k++) {
            bool drawn = false;
            for (int i = 0; i < list.count && !drawn; i++)
                drawn = list.cmds[i].kind == VIZ_TEXT && !strcmp(viz_cmd_text(&list, &list.cmds[i]), kinds[k]);
            if (!drawn) fail_msg("%s: the accuracy plot has no \"%s\"", l ? "zh" : "en", kinds[k]);
        }
    }
    close_view(&v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_steps),
        cmocka_unit_test(test_eval_steps),
        cmocka_unit_test(test_defaults_are_train_s),
        cmocka_unit_test(test_option_steps),
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_axis),
        cmocka_unit_test(test_thread_pauses_and_steps),
        cmocka_unit_test(test_options_after_start_ask_for_reset),
        cmocka_unit_test(test_page_offers_its_task),
        cmocka_unit_test(test_view_is_readable),
        cmocka_unit_test(test_pair_beside_probe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
