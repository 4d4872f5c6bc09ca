/* app_script_run.c — running --script commands against the real window
 * (app_script_run.h). */
#include "app_script_run.h"
#include "attn_steps.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "utf8.h"
#include "viz_train.h"

/* The widget a script's `click control NAME` names: the rail's, then the training view's; -1 if none. */
static int control_id(const char *name) {
    static const struct {
        const char *name;
        int w;
    } rail[] = {
        {"heads", VIZ_W_HEADS}, {"d_k", VIZ_W_DK}, {"d_model", VIZ_W_DMODEL}, {"seed", VIZ_W_SEED}, {"scale", VIZ_W_SCALE}, {"mask", VIZ_W_MASK}, {"window", VIZ_W_WINDOW}, {"pos_enc", VIZ_W_POSENC}, {"show_head", VIZ_W_SHOW_HEAD}, {"compare", VIZ_W_COMPARE}, {"theme", VIZ_W_THEME}, {"lang", VIZ_W_LANG}, {"view", VIZ_W_VIEW}, {"try", VIZ_W_TRY}, {"word", VIZ_W_WORD}, {"word_page", VIZ_W_WORD_PAGE}, {"hf_head", VIZ_W_HF_HEAD}, {"hf_hide", VIZ_W_HF_HIDE}, {"page_turn", VIZ_PW_TURN}, {"pages", VIZ_PW_LIST}, {"page", VIZ_PW_PAGE}};
    for (size_t i = 0; i < sizeof rail / sizeof *rail; i++)
        if (!strcmp(rail[i].name, name)) return rail[i].w;
    return viz_train_widget_from_name(name);
}

void app_runner_init(app_script_runner *r, app_script *script, const char *name) {
    memset(r, 0, sizeof *r);
    r->script = *script;
    r->name = name ? name : "script";
    memset(script, 0, sizeof *script);
}

void app_runner_free(app_script_runner *r) {
    if (!r) return;
    app_script_free(&r->script);
    memset(r, 0, sizeof *r);
}

bool app_runner_fail(app_script_runner *r, app_ui *u, const app_script_cmd *c, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "attnviz: %s:%d: ", r->name, c->line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    r->exit_code = 1;
    app_quit(&u->st);
    return false;
}

static void send(app_ui *u, SDL_Event *e) {
    app_ui_event(u, e);
}

static void move_to(app_ui *u, int x, int y) {
    SDL_Event e = {0};
    e.type = SDL_MOUSEMOTION;
    e.motion.x = x;
    e.motion.y = y;
    send(u, &e);
}

static void click_at(app_ui *u, int x, int y) {
    move_to(u, x, y);
    SDL_Event e = {0};
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.button = SDL_BUTTON_LEFT;
    e.button.x = x;
    e.button.y = y;
    send(u, &e);
    e.type = SDL_MOUSEBUTTONUP;
    send(u, &e);
}

/* Centre of the hit region standing for the command's target. */
static bool find_target(app_ui *u, const app_script_cmd *c, int *x, int *y) {
    app_ui_layout(u);
    int control = c->target == APP_SC_AT_CONTROL ? control_id(c->text) : -2;
    for (int i = u->list.count - 1; i >= 0; i--) {
        const viz_cmd *r = &u->list.cmds[i];
        if (r->kind != VIZ_HIT) continue;
        const viz_hit *h = &r->hit;
        bool match = (c->target == APP_SC_AT_TOKEN && h->kind == VIZ_HIT_TOKEN && h->token == c->v[0]) ||
                     (c->target == APP_SC_AT_STEP && h->kind == VIZ_HIT_STEP && h->step == attn_step_numbered(c->v[0])) ||
                     (c->target == APP_SC_AT_CELL && h->kind == VIZ_HIT_CELL && h->stage == c->v[0] &&
                      h->head == c->v[1] && h->row == c->v[2] && h->col == c->v[3]) ||
                     (c->target == APP_SC_AT_CONTROL && h->kind == VIZ_HIT_WIDGET && h->widget == control &&
                      h->delta == c->v[0]);
        if (match && r->x + r->w / 2 >= 0 && r->y + r->h / 2 >= 0 && r->x + r->w / 2 < u->st.look.width &&
            r->y + r->h / 2 < u->st.look.height) {
            *x = (int)(r->x + r->w / 2);
            *y = (int)(r->y + r->h / 2);
            return true;
        }
    }
    return false;
}

static bool pointer(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    int x = c->v[0], y = c->v[1];
    if (c->target != APP_SC_AT_XY && !find_target(u, c, &x, &y))
        return app_runner_fail(r, u, c, "the %s to %s is not on screen.", c->target == APP_SC_AT_TOKEN ? "token" : c->target == APP_SC_AT_STEP  ? "step"
                                                                                                               : c->target == APP_SC_AT_CONTROL ? "control"
                                                                                                                                                : "cell",
                               app_script_kind_name(c->kind));
    if (x >= u->st.look.width || y >= u->st.look.height)
        return app_runner_fail(r, u, c, "(%d, %d) is outside the window (%dx%d: x from 0 to %d, y from 0 to %d).",
                               x, y, u->st.look.width, u->st.look.height, u->st.look.width - 1, u->st.look.height - 1);
    if (c->kind == APP_SC_CLICK) click_at(u, x, y);
    else move_to(u, x, y);
    return true;
}

static void text_events(app_ui *u, const char *s) {
    size_t len = strlen(s), i = 0;
    while (i < len) { // one event per code point, as a keyboard sends them
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (k <= 0) k = 1;
        SDL_Event e = {0};
        e.type = SDL_TEXTINPUT;
        memcpy(e.text.text, s + i, (size_t)k);
        send(u, &e);
        i += (size_t)k;
    }
}

static bool key(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    SDL_Keycode sym = SDL_GetKeyFromName(c->text);
    if (sym == SDLK_UNKNOWN && strlen(c->text) == 1) sym = (SDL_Keycode)(unsigned char)c->text[0];
    if (sym == SDLK_UNKNOWN) return app_runner_fail(r, u, c, "unknown key \"%s\".", c->text);
    SDL_Keymod mod = (c->mods & APP_MOD_CTRL ? KMOD_LCTRL : 0) | (c->mods & APP_MOD_SHIFT ? KMOD_LSHIFT : 0) |
                     (c->mods & APP_MOD_ALT ? KMOD_LALT : 0);
    SDL_SetModState(mod);
    SDL_Event e = {0};
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = (Uint16)mod;
    send(u, &e);
    // a printable key also types its character, as a real keyboard does
    if (!(c->mods & (APP_MOD_CTRL | APP_MOD_ALT)) && sym < 128 && isprint((int)sym)) {
        char ch[2] = {(char)((c->mods & APP_MOD_SHIFT) ? toupper((int)sym) : (int)sym), 0};
        text_events(u, ch);
    }
    e.type = SDL_KEYUP;
    send(u, &e);
    SDL_SetModState(KMOD_NONE);
    return true;
}

static void compose(app_ui *u, const char *text) {
    SDL_Event e = {0};
    e.type = SDL_TEXTEDITING_EXT;
    e.editExt.text = SDL_strdup(text);
    e.editExt.length = (Sint32)strlen(text);
    send(u, &e);
    SDL_free(e.editExt.text);
}

static void wheel(app_ui *u, const app_script_cmd *c) {
    if (c->has_xy) move_to(u, c->v[1], c->v[2]);
    SDL_Event e = {0};
    e.type = SDL_MOUSEWHEEL;
    e.wheel.y = c->v[0];
    send(u, &e);
}

static void resize(app_ui *u, int w, int h) {
    SDL_SetWindowSize(u->win, w, h);
    bool full = SDL_GetWindowFlags(u->win) & SDL_WINDOW_FULLSCREEN_DESKTOP;
    for (int i = 0; i < 50 && !full; i++) { // the window manager applies it asynchronously
        SDL_Event e;
        while (SDL_PollEvent(&e)) send(u, &e);
        int rw, rh;
        app_ui_output_size(u, &rw, &rh);
        if (rw == w && rh == h) break;
        SDL_Delay(10);
    }
    int pw, ph;
    app_ui_output_size(u, &pw, &ph);
    app_resize(&u->st, pw, ph);
}

static bool run(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    attn_err err;
    switch (c->kind) {
    case APP_SC_SIZE: resize(u, c->v[0], c->v[1]); return true;
    case APP_SC_TYPE:
    case APP_SC_COMMIT: text_events(u, c->text); return true;
    case APP_SC_COMPOSE: compose(u, c->text); return true;
    case APP_SC_KEY: return key(r, u, c);
    case APP_SC_CLICK:
    case APP_SC_HOVER: return pointer(r, u, c);
    case APP_SC_WHEEL: wheel(u, c); return true;
    case APP_SC_WAIT: r->wait_until = SDL_GetTicks() + (Uint32)c->v[0]; return true;
    case APP_SC_SHOT:
        app_ui_frame(u);
        if (app_ui_save_frame(u, c->text, &err) != ATTN_OK) return app_runner_fail(r, u, c, "%s", err.msg);
        return true;
    case APP_SC_EXPECT: return app_expect(r, u, c);
    case APP_SC_SAVE: return app_save(r, u, c);
    case APP_SC_AWAIT: return app_expect(r, u, c); // once it holds or the time is up
    case APP_SC_QUIT: app_quit(&u->st); return true;
    case APP_SC_DROP: { // as SDL delivers it: the path in SDL's memory, freed by the handler
        SDL_Event e = {.drop = {.type = SDL_DROPFILE, .file = SDL_strdup(c->text)}};
        if (!e.drop.file) return app_runner_fail(r, u, c, "no memory for the dropped path");
        app_ui_event(u, &e);
        return true;
    }
    }
    return true;
}

bool app_runner_tick(void *runner, app_ui *u) {
    app_script_runner *r = runner;
    // a batch of commands per frame: a person's events also arrive faster than
    // frames; a wait ends the batch so the frame before it is drawn
    for (int k = 0; k < 16 && r->pos < r->script.count && !u->st.quit; k++) {
        if (!SDL_TICKS_PASSED(SDL_GetTicks(), r->wait_until)) break;
        const app_script_cmd *c = &r->script.cmds[r->pos];
        app_hf_finish(&u->st);         // a real model's sentence: a script's next command sees it computed
        if (c->kind == APP_SC_AWAIT) { // again each frame, until it holds or the time is up
            if (r->await_pos != r->pos + 1) {
                r->await_pos = r->pos + 1;
                r->await_until = SDL_GetTicks() + APP_SCRIPT_AWAIT_MS;
            }
            if (!app_expect_holds(u, c) && !SDL_TICKS_PASSED(SDL_GetTicks(), r->await_until)) break;
            r->await_pos = 0;
        }
        r->pos++;
        run(r, u, c);
        if (c->kind == APP_SC_WAIT) break;
    }
    return r->pos < r->script.count && !u->st.quit;
}
