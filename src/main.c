/* main.c — the one place that initialises SDL, decides exit codes and exits. */
#include <SDL.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_bench.h"
#include "attn_steps.h"
#include "app_paths.h"
#include "app_script_run.h"
#include "app_sdl.h"
#include "app_settings.h"
#include "cli_args.h"
#include "cli_complexity.h"
#include "cli_hf.h"
#include "hf_model.h"
#include "hf_trace.h"
#include "cli_run.h"
#include "cleanup.h"
#include "cli_model.h"
#include "cli_train.h"
#include "export.h"
#include "fileio.h"
#include "platform.h"

/* What drawing text needs: the UI strings, SDL, SDL_ttf, the platform's
 * libraries (platform.h) and fonts. */
typedef struct {
    viz_strings strings; /* UI strings in both languages */
    viz_fonts *fonts;    /* fontconfig's fonts (or --font) */
    bool sdl;            /* SDL_Init succeeded: SDL_Quit at the end */
} ui_env;

static void env_close(ui_env *e) {
    viz_fonts_close(e->fonts);
    if (e->sdl) {
        TTF_Quit();
        SDL_Quit();
        plat_quit();
    }
    viz_strings_free(&e->strings);
    memset(e, 0, sizeof *e);
}

/* Opens everything text needs; sdl_flags 0 needs no display. Returns 0, or 1
 * after printing why (and closing what was opened). */
static int env_open(ui_env *e, const cli_opts *o, Uint32 sdl_flags) {
    char path[1024], msg[1024];
    attn_err err;
    memset(e, 0, sizeof *e);
    if (!app_find_data("assets/ui_strings.tsv", path, sizeof path)) {
        fprintf(stderr, "attnviz: cannot find assets/ui_strings.tsv beside the program or in ../share/attnviz.\n");
        return 1;
    }
    if (viz_strings_load(&e->strings, path, &err) != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 1;
    }
    if (SDL_Init(sdl_flags) != 0) {
        fprintf(stderr, "attnviz: cannot open a display (%s). Without a screen, use attnviz --headless.\n",
                SDL_GetError());
        env_close(e);
        return 1;
    }
    e->sdl = true;
    // attnviz draws every pixel itself; where the video driver can show a
    // surface directly, SDL need not load OpenGL (+100 MB) just to copy it
    // (SDL_FRAMEBUFFER_ACCELERATION in the environment still decides)
    const char *video = SDL_GetCurrentVideoDriver();
    if (video && (!SDL_strcmp(video, "x11") || !SDL_strcmp(video, "offscreen") || !SDL_strcmp(video, "dummy")))
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    if (TTF_Init() != 0 || plat_init() != 0) {
        fprintf(stderr, "attnviz: cannot start the text or image library: %s\n", SDL_GetError());
        env_close(e);
        return 1;
    }
    e->fonts = viz_fonts_open(o->font_path, msg, sizeof msg);
    if (!e->fonts) {
        fprintf(stderr, "attnviz: %s\n", msg);
        env_close(e);
        return 1;
    }
    return 0;
}

/* --lang, else the system locale (LANG / LC_ALL / LC_MESSAGES starting "zh"). */
static viz_lang pick_lang(const cli_opts *o) {
    if (o->lang) return strcmp(o->lang, "zh") == 0 ? VIZ_LANG_ZH : VIZ_LANG_EN;
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return strncmp(v, "zh", 2) == 0 ? VIZ_LANG_ZH : VIZ_LANG_EN;
    }
    return VIZ_LANG_EN;
}

/* "attnviz: MESSAGE" on standard error in the UI's language (--lang, else the
 * locale): in a zh UI a message with an id is worded from the strings table. */
static void say_err(const cli_opts *o, const attn_err *err) {
    char text[1024], path[1024];
    viz_strings words = {0};
    attn_err ignore;
    if (pick_lang(o) == VIZ_LANG_ZH && err->id != ATTN_MSG_NONE && app_find_data("assets/ui_strings.tsv", path, sizeof path) &&
        viz_strings_load(&words, path, &ignore) == ATTN_OK)
        viz_err_text(text, sizeof text, &words, VIZ_LANG_ZH, err);
    else snprintf(text, sizeof text, "%s", err->msg);
    viz_strings_free(&words);
    fprintf(stderr, "attnviz: %s\n", text);
}

/* Export options from the flags; returns 0, or 2 after printing a bad flag. */
static int export_options(export_opts *eo, const cli_opts *o, int argc, char **argv) {
    attn_err err;
    attn_status st = ATTN_OK;
    export_opts_default(eo);
    eo->dir = o->export_dir;
    if (o->formats) st = export_parse_formats(&eo->formats, o->formats, &err);
    if (st == ATTN_OK && o->steps) st = export_parse_steps(&eo->steps, o->steps, &err);
    if (st == ATTN_OK && o->steps && strcmp(o->steps, "all") != 0 && (eo->steps & EXPORT_STEP_READOUT) &&
        !o->model.model_path)
        st = attn_fail(&err, ATTN_ERR_RANGE, "--steps 9 is a trained model's readout; it goes with --model FILE.json.");
    if (st == ATTN_OK && o->view) st = export_parse_view(&eo->view, o->view, &err);
    if (st == ATTN_OK && o->theme) st = export_parse_theme(&eo->theme, o->theme, &err);
    if (st != ATTN_OK) {
        say_err(o, &err);
        return 2;
    }
    if (o->pixel_scale) eo->pixel_scale = o->pixel_scale;
    if (o->width) {
        eo->width = o->width;
        eo->height = o->height;
    }
    if (o->ui_scale > 0) eo->ui_scale = (float)o->ui_scale;
    eo->caption = o->caption;
    eo->lang = pick_lang(o);
    eo->weights_path = o->weights_path;
    eo->lesson_path = o->lesson_path;
    eo->command_prefix = export_command_prefix(argc, argv);
    return 0;
}

/* --model with --export-dir: every layer's steps, their backward views and
 * the readout, for the targets given or those the window shows. */
static attn_status export_model(export_opts *eo, const cli_opts *o, attn_err *err) {
    cli_model_state ms;
    attn_status st = cli_model_compute(&ms, o, true, err);
    if (st != ATTN_OK) return st;
    if (ms.r.n_targets == 0) { // a token model's sentence the task cannot label needs a target to show the gradients
        cli_model_state_free(&ms);
        return attn_fail(err, ATTN_ERR_RANGE, "--model: no target for the backward views.");
    }
    export_item *items = malloc(sizeof *items * EXPORT_MAX_MODEL_ITEMS);
    ui_env env;
    if (!items) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the export.");
    else if (env_open(&env, o, 0) != 0) st = attn_fail(err, ATTN_ERR_IO, "The fonts could not be opened.");
    if (st == ATTN_OK) {
        viz_origin origin = {.kind = VIZ_FROM_MODEL, .name = o->model.model_path, .task = ms.m.task, .steps = ms.m.training.steps, .seed = ms.m.training.seed};
        eo->origin = origin;
        viz_target whose = o->model.n_targets ? VIZ_TARGET_GIVEN : ms.labelled ? VIZ_TARGET_TASK
                                                                               : VIZ_TARGET_PREDICTED;
        int n = export_items_for_model(items, EXPORT_MAX_MODEL_ITEMS, &ms.m, &ms.r, whose, eo->steps, 0, -1, origin);
        st = export_run(eo, items, n, &env.strings, env.fonts, err);
        env_close(&env);
    }
    free(items);
    cli_model_state_free(&ms);
    return st;
}

/* --hf with --export-dir: every layer's eight steps (files "L<l>-NN-<slug>"),
 * head 1, the query the last token; each layer handed to the exporters as
 * its own trace (hf_trace.h: that layer's weights as doubles, 19 MB a layer
 * for GPT-2 small, all layers at once). */
static attn_status export_hf(export_opts *eo, const cli_opts *o, attn_err *err) {
    hf_model m;
    hf_tokens toks = {0};
    hf_run r = {0};
    char *buf = NULL;
    attn_status st = hf_model_open(&m, o->model.hf_dir, err);
    if (st != ATTN_OK) return st;
    const char *sentence = o->sentence ? o->sentence : m.bpe ? CLI_HF_SENTENCE_EN
                                                             : CLI_SEED_SENTENCE;
    size_t len = strlen(sentence);
    if (o->sentence_file && (st = attn_read_file(o->sentence_file, 16u << 20, &buf, &len, err)) == ATTN_OK) sentence = buf;
    if (st == ATTN_OK) st = hf_model_tokenize(&m, sentence, len, o->model.bos, &toks, err);
    int *ids = st == ATTN_OK ? malloc(sizeof *ids * (size_t)toks.count) : NULL;
    if (st == ATTN_OK && !ids) st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    for (int i = 0; st == ATTN_OK && i < toks.count; i++) ids[i] = toks.v[i].id;
    if (st == ATTN_OK) st = hf_forward(&r, &m, ids, toks.count, err);
    free(ids);
    int layers = st == ATTN_OK ? r.n_layer : 0;
    attn_trace *traces = layers ? calloc((size_t)layers, sizeof *traces) : NULL;
    export_item *items = layers ? calloc((size_t)layers * ATTN_STEP_COUNT, sizeof *items) : NULL;
    char(*prefix)[16] = layers ? calloc((size_t)layers, sizeof *prefix) : NULL;
    if (st == ATTN_OK && (!traces || !items || !prefix)) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the export.");
    int n = 0;
    for (int l = 0; st == ATTN_OK && l < layers; l++) {
        st = hf_trace_layer(&traces[l], &m, &r, &toks, l, err);
        if (st != ATTN_OK) break;
        snprintf(prefix[l], sizeof prefix[l], "L%d-", l + 1);
        int k = export_items_for_trace(items + n, &traces[l], eo->steps, 0, r.n - 1);
        for (int i = n; i < n + k; i++) {
            items[i].prefix = prefix[l];
            items[i].origin = (viz_origin){.kind = VIZ_FROM_FILE, .name = o->model.hf_dir};
        }
        n += k;
    }
    ui_env env;
    if (st == ATTN_OK && env_open(&env, o, 0) != 0) st = attn_fail(err, ATTN_ERR_IO, "The fonts could not be opened.");
    else if (st == ATTN_OK) {
        eo->origin = (viz_origin){.kind = VIZ_FROM_FILE, .name = o->model.hf_dir};
        st = export_run(eo, items, n, &env.strings, env.fonts, err);
        env_close(&env);
    }
    for (int l = 0; traces && l < layers; l++) attn_trace_free(&traces[l]);
    free(traces);
    free(items);
    free(prefix);
    free(buf);
    hf_run_free(&r);
    hf_tokens_free(&toks);
    hf_model_free(&m);
    return st;
}

/* --export-dir: every step of the sentence, or every page of the lesson. */
static int run_export(const cli_opts *o, int argc, char **argv) {
    export_opts eo;
    int code = export_options(&eo, o, argc, argv);
    if (code) return code;
    if (o->model.hf_dir) { // a real model: every layer's steps, then what else was asked
        attn_err err;
        attn_status st = export_hf(&eo, o, &err);
        if (st != ATTN_OK) fprintf(stderr, "attnviz: %s\n", err.msg);
        else if (o->print || o->dump_path || o->explain) st = cli_hf_run(o, stdout, stderr) ? ATTN_ERR_IO : ATTN_OK;
        else printf("attnviz: exported to %s (see index.md there)\n", o->export_dir);
        free((char *)eo.command_prefix);
        return st == ATTN_OK ? 0 : 1;
    }
    if (o->model.model_path) {
        attn_err err;
        attn_status st = export_model(&eo, o, &err);
        if (st != ATTN_OK) say_err(o, &err);
        else if (o->print || o->dump_path || o->explain) st = cli_model_run(o, false, stdout, stderr) ? ATTN_ERR_IO : ATTN_OK;
        else printf("attnviz: exported to %s (see index.md there)\n", o->export_dir);
        free((char *)eo.command_prefix);
        return st == ATTN_OK ? 0 : 1;
    }
    ui_env env;
    cli_state r;
    memset(&r, 0, sizeof r);
    attn_err err;
    attn_status st = cli_state_compute(&r, o, &err); // validates the input before anything opens
    if (st == ATTN_OK && env_open(&env, o, 0) != 0) {
        code = 1;
        goto cleanup;
    }
    if (st == ATTN_OK) {
        if (!o->lang && r.lesson) eo.lang = strcmp(lesson_lang(r.lesson), "zh") == 0 ? VIZ_LANG_ZH : VIZ_LANG_EN;
        const lesson_page *pg = r.lesson ? lesson_page_at(r.lesson, r.page) : NULL;
        if (pg) eo.origin = (viz_origin){.kind = VIZ_FROM_LESSON, .name = o->lesson_path, .gain = pg->random_weights ? pg->gain : 0};
        else if (o->weights_path) eo.origin = (viz_origin){.kind = VIZ_FROM_FILE, .name = o->weights_path};
        eo.weights_sha256 = o->weights_path ? r.file.sha256 : NULL; // of what was read: never read twice
        eo.lesson_sha256 = r.lesson ? lesson_sha256(r.lesson) : NULL;
        if (r.lesson && (o->sentence || o->sentence_file)) { // that page with that sentence, its model and its text
            eo.sentence = r.sentence;                        // as read (a file without its byte-order mark)
            st = export_lesson(&eo, r.lesson, lesson_page_at(r.lesson, r.page)->id, &env.strings, env.fonts, &err);
        } else if (r.lesson)
            st = export_lesson(&eo, r.lesson, o->page_id, &env.strings, env.fonts, &err);
        else if (o->tiles) { // issue 24: and every step of head 1's tiles view
            attn_tiles tiles = {0};
            st = attn_tiles_of_head(&tiles, &r.trace, 0, o->tiles, &err);
            if (st == ATTN_OK) st = export_sentence_tiles(&eo, &r.trace, 0, -1, &tiles, &env.strings, env.fonts, &err);
            attn_tiles_free(&tiles);
        } else
            st = export_sentence_decode(&eo, &r.trace, o->decode ? &r.decode : NULL, 0, -1, &env.strings, env.fonts,
                                        &err);
        env_close(&env);
    }
    if (st != ATTN_OK) say_err(o, &err);
    else if (o->print || o->dump_path || o->explain) st = cli_run_headless(o, stdout, stderr) ? ATTN_ERR_IO : ATTN_OK;
    else printf("attnviz: exported to %s (see index.md there)\n", o->export_dir);
    code = cli_finish_output(stdout, "standard output", stderr, st == ATTN_OK ? 0 : 1);
cleanup:
    cli_state_free(&r);
    free((char *)eo.command_prefix);
    return code;
}

/* Reads the --script file (before any window opens). Returns 0, or 1 after
 * printing why: a bad script is a bad input file, like a bad lesson. */
static int load_script(app_script *script, const char *path) {
    char *text = NULL;
    size_t len = 0;
    attn_err err;
    attn_status st = attn_read_file(path, 16u << 20, &text, &len, &err);
    if (st == ATTN_OK) st = app_script_parse(script, text, len, path, &err);
    free(text);
    if (st != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* Without X11 or Wayland, SDL falls back to its invisible offscreen driver:
 * the window would wait, unseen, forever. Only an explicit SDL_VIDEODRIVER
 * (tests, --bench) may choose such a driver. */
static bool no_real_display(void) {
    const char *drv = SDL_GetCurrentVideoDriver(), *asked = SDL_getenv("SDL_VIDEODRIVER");
    if ((asked && *asked) || !drv) return false;
    return SDL_strcmp(drv, "offscreen") == 0 || SDL_strcmp(drv, "dummy") == 0;
}

/* The same lesson in the other language: lessons/zh/X.lesson <-> lessons/en/X.lesson. */
static void pair_path(const char *path, char *out, size_t cap) {
    const char *zh = strstr(path, "/zh/"), *en = strstr(path, "/en/");
    const char *at = zh ? zh : en;
    out[0] = '\0';
    if (!at) return;
    snprintf(out, cap, "%.*s/%s/%s", (int)(at - path), path, zh ? "en" : "zh", at + 4);
}

/* What the window opens: --lesson, else (without a sentence or weights of
 * its own) the shipped lesson in the UI language, at the remembered page. */
static attn_status open_lesson(app_state *st, const cli_opts *o, const app_settings *saved, attn_err *err) {
    char path[1024], pair[1024], rel[64];
    if (o->lesson_path) {
        pair_path(o->lesson_path, pair, sizeof pair);
        return app_lesson_open(st, o->lesson_path, pair[0] ? pair : NULL, o->page_id, err);
    }
    if (o->sentence || o->sentence_file || o->weights_path || o->model.model_path || o->model.hf_dir) return ATTN_OK;
    snprintf(rel, sizeof rel, "lessons/%s/self-attention.lesson", st->look.lang == VIZ_LANG_ZH ? "zh" : "en");
    if (!app_find_data(rel, path, sizeof path)) return ATTN_OK; // no lessons installed: a plain sentence
    pair_path(path, pair, sizeof pair);
    attn_status rc = app_lesson_open(st, path, pair, saved->page[0] ? saved->page : NULL, err);
    if (rc != ATTN_OK && saved->page[0]) rc = app_lesson_open(st, path, pair, NULL, err); // page since removed
    if (rc == ATTN_OK && saved->sentence && strcmp(saved->sentence, st->src.sentence) != 0) {
        attn_err ignored; // the learner's last sentence, on the page they left
        app_set_sentence(st, saved->sentence, &st->src.cfg, &ignored);
    }
    return rc;
}

/* What leaving the page saves (the browser, whose loop never ends). */
typedef struct {
    const app_settings *saved;
    const app_ui *ui;
} leave_ctx;

static void save_on_leave(void *ctx) {
    const leave_ctx *l = ctx;
    app_settings_save(l->saved, &l->ui->st);
}

/* What the page may ask the window (platform.h): a script's expectation,
 * the trace as --dump-json writes it. */
static bool inspect_holds(void *ctx, const char *name, const char *value) {
    app_script_cmd c = {.kind = APP_SC_EXPECT, .text = (char *)value};
    snprintf(c.name, sizeof c.name, "%s", name);
    return app_expect_holds(ctx, &c);
}

static char *inspect_trace(void *ctx) {
    const app_ui *u = ctx;
    if (u->st.model.m) return cli_model_dump(&u->st.model.run, u->st.model.m);
    if (u->st.hf) return attn_json_dump(app_trace(&u->st)); // the layer shown (--headless --hf --dump-json has all)
    return attn_json_dump(app_trace(&u->st));
}

/* The browser's file picker filled dir (web/attnviz-page.js): opened as --hf DIR is. */
static bool inspect_open_hf(void *ctx, const char *dir, const char *sentence) {
    app_ui *u = ctx;
    attn_err err;
    if (app_open_hf_folder(&u->st, dir, sentence, CLI_HF_SENTENCE_EN, CLI_SEED_SENTENCE, &err) == ATTN_OK) return true;
    app_status_err(&u->st, &err);
    u->st.dirty = true;
    return false;
}

/* Everything the window needs, created in order and released in reverse. */
static int run_gui(const cli_opts *o) {
    int code = 1;
    char msg[1024];
    attn_err err;
    ui_env env;
    app_state st;
    app_ui ui = {0};
    app_settings saved;
    app_script script = {0};
    if (o->script_path && load_script(&script, o->script_path) != 0) return 1;
    SDL_SetHint(SDL_HINT_IME_SUPPORT_EXTENDED_TEXT, "1"); // long compositions are not cut at 32 bytes
    SDL_SetHint(SDL_HINT_IME_SHOW_UI, "1");
    if (env_open(&env, o, SDL_INIT_VIDEO) != 0) {
        app_script_free(&script);
        return 1;
    }
    if (no_real_display()) {
        fprintf(stderr, "attnviz: cannot open a display (no X11 or Wayland display was found). "
                        "Without a screen, use attnviz --headless.\n");
        app_script_free(&script);
        env_close(&env);
        return 1;
    }
    app_settings_load(&saved);
    const char *sentence = o->model.hf_dir  ? NULL // the model's tokenizer reads it (app_hf_open), up to 256 tokens
                           : o->sentence    ? o->sentence
                           : o->lesson_path ? NULL
                                            : saved.sentence;
    if (app_init(&st, sentence, &o->cfg, &env.strings, &err) != ATTN_OK && // a bad saved sentence is not fatal
        (o->sentence || app_init(&st, NULL, &o->cfg, &env.strings, &err) != ATTN_OK)) {
        say_err(o, &err);
        goto cleanup;
    }
    app_settings_apply(&saved, &st);
    st.look.lang = o->lang || !saved.has_lang ? pick_lang(o) : st.look.lang;
    if (o->theme && export_parse_theme(&st.look.theme, o->theme, &err) != ATTN_OK) {
        say_err(o, &err);
        code = 2;
        goto cleanup_state;
    }
    if ((o->weights_path && app_use_weights_file(&st, o->weights_path, &err) != ATTN_OK) ||
        open_lesson(&st, o, &saved, &err) != ATTN_OK ||
        (o->model.model_path && app_model_open(&st, o->model.model_path, &err) != ATTN_OK) ||
        (o->model.hf_dir && app_hf_open(&st, o->model.hf_dir, o->sentence, CLI_HF_SENTENCE_EN, CLI_SEED_SENTENCE, true, &err) != ATTN_OK)) {
        say_err(o, &err);
        goto cleanup_state;
    }
    app_settings_report(&saved, &st); // after the page's own status: a file set aside, settings not saved
    if (o->tiles) {                   // --tiles B in the window: the tiles view (F4) opens at B
        app_toggle_tiles(&st);
        st.view.tiles_b = o->tiles;
    }
    st.view.figure_only = o->view && strcmp(o->view, "figure") == 0;
    int link_step = plat_link_step();
    if (link_step > 0) app_goto_step(&st, attn_step_numbered(link_step));
    if (app_ui_open(&ui, &st, env.fonts, o->width ? o->width : 1280, o->height ? o->height : 800,
                    (float)o->ui_scale, msg, sizeof msg) != 0) {
        fprintf(stderr, "attnviz: %s\n", msg);
        goto cleanup_state;
    }
    ui.shots_dir = o->shots_dir;
    app_script_runner runner;
    app_runner_init(&runner, &script, o->script_path);
    leave_ctx leave = {&saved, &ui};
    if (!o->script_path) plat_on_leave(save_on_leave, &leave);
    plat_expose(&(plat_inspector){inspect_holds, inspect_trace, &ui, inspect_open_hf});
    app_ui_run(&ui, o->script_path ? app_runner_tick : NULL, &runner);
    code = runner.exit_code;
    app_runner_free(&runner);
    if (!o->script_path) app_settings_save(&saved, &ui.st); // scripted runs leave the user's settings alone
    app_ui_close(&ui);
cleanup_state:
    app_free(&st);
cleanup:
    app_script_free(&script);
    app_settings_free(&saved);
    env_close(&env);
    return code;
}

/* --bench: the app loop offscreen (no display needed), software rendering. */
static int run_bench(const cli_opts *o, double start_s) {
    app_bench_opts bo = {o->width, o->height, VIZ_THEME_LIGHT};
    attn_err err;
    if (o->theme && export_parse_theme(&bo.theme, o->theme, &err) != ATTN_OK) {
        say_err(o, &err);
        return 2;
    }
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    ui_env env;
    if (env_open(&env, o, SDL_INIT_VIDEO) != 0) return 1;
    int code = app_bench_run(&env.strings, env.fonts, start_s, &bo);
    env_close(&env);
    return code;
}

/* SIGINT, SIGTERM, SIGHUP in a headless run or a training: what is half
 * written (a temporary, an export's staging folder) is removed, then the signal ends
 * the process as it would have. */
static void on_signal(int sig) {
    if (!attn_cleanup_signal(sig)) return; // held: raised again once the step is done
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void clean_up_on_signals(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, sigs[i]); // one clean-up at a time
    for (int i = 0; i < 3; i++) {
        struct sigaction was;
        // a signal ignored on entry stays ignored (nohup's SIGHUP, a background job's SIGINT)
        if (sigaction(sigs[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN) sigaction(sigs[i], &sa, NULL);
    }
}

/* cli_opts.word_err in a zh UI: a refusal with a message id worded from the strings table ctx. */
static void word_err_zh(const void *ctx, const attn_err *err, char *out, size_t cap) {
    viz_err_text(out, cap, (const viz_strings *)ctx, VIZ_LANG_ZH, err);
}

/* Everything main does; returns the exit status. */
static int run(int argc, char **argv) {
    double start_s = (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
    cli_opts opts;
    attn_err err;
    attn_err_clear(&err);
    if (cli_parse(&opts, argc, argv, &err) != ATTN_OK) {
        say_err(&opts, &err);
        return 2;
    }
    // every mode that writes files removes its temporaries on a signal; the window keeps SDL's
    // handlers: there a signal asks to quit, and settings are saved
    if (opts.mode == CLI_MODE_HEADLESS || opts.mode == CLI_MODE_EXPORT || opts.mode == CLI_MODE_TRAIN)
        clean_up_on_signals();
    int code = 0;
    switch (opts.mode) {
    case CLI_MODE_HELP:
        errno = 0; // the help is longer than stdio's buffer: a full disk shows while writing it, with its reason
        if (fputs(cli_help_text(), stdout) == EOF && errno) {
            fprintf(stderr, "attnviz: Cannot write to standard output: %s.\n", strerror(errno));
            code = 1;
        }
        break;
    case CLI_MODE_VERSION:
        printf("attnviz %s\n", ATTN_VERSION);
        break;
    case CLI_MODE_HEADLESS: { // in a zh UI a refusal with a message id is said in zh (the strings table)
        viz_strings words = {0};
        char path[1024];
        attn_err ignore;
        if (app_find_data("assets/ui_strings.tsv", path, sizeof path) && viz_strings_load(&words, path, &ignore) == ATTN_OK) {
            opts.table = &words; // the head finder's words, in either language
            if (pick_lang(&opts) == VIZ_LANG_ZH) opts.word_err = word_err_zh, opts.word_ctx = &words;
        }
        code = cli_run_headless(&opts, stdout, stderr);
        viz_strings_free(&words);
        return code;
    }
    case CLI_MODE_EXPORT:
        return run_export(&opts, argc, argv);
    case CLI_MODE_COMPLEXITY:
        code = cli_run_complexity_tiles(opts.max_n, opts.tiles, stdout, stderr);
        break;
    case CLI_MODE_BENCH:
        code = run_bench(&opts, start_s);
        break;
    case CLI_MODE_TRAIN:
        code = cli_run_train(&opts, stdout, stderr);
        break;
    case CLI_MODE_TASKS:
        code = cli_run_tasks(stdout);
        break;
    case CLI_MODE_GUI:
        code = run_gui(&opts);
        break;
    }
    return cli_finish_output(stdout, "standard output", stderr, code); // --help > /dev/full is an error
}

int main(int argc, char **argv) {
    return plat_exit_status(run(argc, argv));
}
