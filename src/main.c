/* main.c — the one place that initialises SDL, decides exit codes and exits. */
#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_paths.h"
#include "app_sdl.h"
#include "app_settings.h"
#include "cli_args.h"
#include "cli_run.h"
#include "fileio.h"

/* Loads the --script file into u. Returns 0, or 2 after printing why. */
static int load_script(app_ui *u, const char *path) {
    char *text = NULL;
    size_t len = 0;
    attn_err err;
    attn_status st = attn_read_file(path, 16u << 20, &text, &len, &err);
    if (st == ATTN_OK) st = app_script_parse(&u->script, text, len, path, &err);
    free(text);
    if (st != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 2;
    }
    u->script_name = path;
    return 0;
}

/* Everything the window needs, created in order and released in reverse. */
static int run_gui(const cli_opts *o) {
    int code = 1;
    char msg[1024], path[1024];
    attn_err err;
    viz_strings strings = {0};
    app_state st;
    app_ui ui = {0};
    viz_fonts *fonts = NULL;
    if (!app_find_data("assets/ui_strings.tsv", path, sizeof path)) {
        fprintf(stderr, "attnviz: cannot find assets/ui_strings.tsv beside the program or in ../share/attnviz.\n");
        return 1;
    }
    if (viz_strings_load(&strings, path, &err) != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 1;
    }
    SDL_SetHint(SDL_HINT_IME_SUPPORT_EXTENDED_TEXT, "1"); // long compositions are not cut at 32 bytes
    SDL_SetHint(SDL_HINT_IME_SHOW_UI, "1");
    const char *driver = SDL_getenv("SDL_RENDER_DRIVER");
    if (driver && SDL_strcasecmp(driver, "software") == 0) // else SDL presents through OpenGL: +100 MB
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "attnviz: cannot open a display (%s). Without a screen, use attnviz --headless.\n", SDL_GetError());
        goto cleanup_strings;
    }
    if (TTF_Init() != 0 || !(IMG_Init(IMG_INIT_PNG) & IMG_INIT_PNG)) {
        fprintf(stderr, "attnviz: cannot start the text or image library: %s\n", SDL_GetError());
        goto cleanup_sdl;
    }
    fonts = viz_fonts_open(o->font_path, msg, sizeof msg);
    if (!fonts) {
        fprintf(stderr, "attnviz: %s\n", msg);
        goto cleanup_sdl;
    }
    app_state probe = {0};
    char *saved = app_settings_load(&probe);
    const char *sentence = o->sentence ? o->sentence : saved;
    if (app_init(&st, sentence, &o->cfg, &strings, &err) != ATTN_OK && // a bad saved sentence is not fatal
        (o->sentence || app_init(&st, NULL, &o->cfg, &strings, &err) != ATTN_OK)) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        free(saved);
        goto cleanup_fonts;
    }
    free(saved);
    st.theme = probe.theme;
    st.lang = probe.lang;
    st.zoom = probe.zoom > 0 ? probe.zoom : 1.0f;
    if (o->weights_path && app_use_weights_file(&st, o->weights_path, &err) != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        app_free(&st);
        goto cleanup_fonts;
    }
    if (app_ui_open(&ui, &st, fonts, o->width ? o->width : 1280, o->height ? o->height : 800,
                    (float)o->ui_scale, msg, sizeof msg) != 0) {
        fprintf(stderr, "attnviz: %s\n", msg);
        app_free(&st);
        goto cleanup_fonts;
    }
    ui.shots_dir = o->shots_dir;
    code = o->script_path ? load_script(&ui, o->script_path) : 0;
    if (code == 0) {
        code = app_ui_run(&ui);
        if (!o->script_path) app_settings_save(&ui.st); // scripted runs leave the user's settings alone
    }
    app_ui_close(&ui);
cleanup_fonts:
    viz_fonts_close(fonts);
cleanup_sdl:
    IMG_Quit();
    TTF_Quit();
    SDL_Quit();
    FcFini(); // fontconfig keeps its configuration until told to let go
cleanup_strings:
    viz_strings_free(&strings);
    return code;
}

int main(int argc, char **argv) {
    cli_opts opts;
    attn_err err;
    attn_err_clear(&err);
    if (cli_parse(&opts, argc, argv, &err) != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 2;
    }
    switch (opts.mode) {
    case CLI_MODE_HELP:
        fputs(cli_help_text(), stdout);
        return 0;
    case CLI_MODE_VERSION:
        printf("attnviz %s\n", ATTN_VERSION);
        return 0;
    case CLI_MODE_HEADLESS:
        return cli_run_headless(&opts, stdout, stderr);
    case CLI_MODE_GUI:
        break;
    }
    return run_gui(&opts);
}
