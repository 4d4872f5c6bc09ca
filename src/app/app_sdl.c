/* app_sdl.c — window, events and frames. */
#include "app_sdl.h"
#include "attn_steps.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_paths.h"
#include "clock.h"
#include "export.h"
#include "fileio.h"
#include "platform.h"

static void drop_frame(app_ui *u);

int app_ui_open(app_ui *u, app_state *st, viz_fonts *fonts, int w, int h, float ui_scale,
                char *err, size_t cap) {
    memset(u, 0, sizeof *u);
    u->fonts = fonts;
    u->win = SDL_CreateWindow("attnviz", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!u->win) {
        snprintf(err, cap, "Cannot open a window: %s. Without a display, use attnviz --headless.", SDL_GetError());
        return -1;
    }
    if (!SDL_GetWindowSurface(u->win)) { // attnviz draws its own pixels; SDL only shows them
        snprintf(err, cap, "Cannot draw in the window: %s.", SDL_GetError());
        SDL_DestroyWindow(u->win);
        u->win = NULL;
        return -1;
    }
    plat_window_icon(u->win);
    u->st = *st;
    memset(st, 0, sizeof *st); // moved
    app_train_init(&u->train, &u->st);
    int pw, ph;
    app_ui_output_size(u, &pw, &ph);
    app_resize(&u->st, pw, ph);
    float ddpi = 0;
    if (ui_scale > 0) app_set_dpi_scale(&u->st, ui_scale);
    else if (SDL_GetDisplayDPI(0, &ddpi, NULL, NULL) == 0 && ddpi > 110) // follow a dense display
        app_set_dpi_scale(&u->st, ddpi / 96.0f > 3.0f ? 3.0f : ddpi / 96.0f);
    SDL_StartTextInput();
    return 0;
}

void app_ui_close(app_ui *u) {
    if (!u) return;
    app_train_free(&u->train);
    app_lab_free(&u->lab);
    viz_free(&u->list);
    viz_sig_free(&u->sig[0]);
    viz_sig_free(&u->sig[1]);
    viz_free(&u->warm.list);
    SDL_FreeSurface(u->warm.frame);
    free(u->warm.px);
    drop_frame(u);
    free(u->frame_px);
    if (u->win) SDL_DestroyWindow(u->win);
    app_free(&u->st);
    memset(u, 0, sizeof *u);
}

/* ---- frames ---- */

static double now_ms(void) { // the one clock (clock.h), in the milliseconds the phases add up
    return attn_clock_s() * 1000.0;
}

void app_ui_layout(app_ui *u) {
    if (viz_fonts_changed(u->fonts)) { // a face came late (the browser's Symbola): every text may look different
        u->st.dirty = true;
        u->full_redraw = true;
    }
    if (!u->st.dirty && u->list.count > 0) return;
    double t0 = now_ms();
    viz_scene s;
    char badge[320];
    app_scene(&u->st, &s, badge, sizeof badge);
    app_train_scene(&u->train, &s);
    viz_build_window(&u->list, &s, viz_fonts_measure(u->fonts));
    u->st.dirty = false;
    u->warm.next = 0; // what is likely next follows what is shown now
    u->warm.band = -1;
    u->stale = true; // laid out but not yet on screen
    if (u->stats) u->stats->phase_ms[APP_T_LAYOUT] += now_ms() - t0;
}

void app_ui_output_size(app_ui *u, int *w, int *h) {
    SDL_GetWindowSizeInPixels(u->win, w, h);
}

/* Lets go of the frame: SDL's window surface is only forgotten (SDL frees it
 * when the window is resized), a frame of its own is freed. */
static void drop_frame(app_ui *u) {
    if (!u->frame_is_window) SDL_FreeSurface(u->frame);
    u->frame = NULL;
    u->frame_is_window = false;
}

/* The frame to draw into, w×h: the window surface itself when the
 * rasteriser draws its format (nothing is copied to show it; it keeps what
 * was drawn, so the damage alone is redrawn), else a surface of its own in
 * the nearest format (copying is then a memcpy). false when SDL cannot make
 * one (the frame is skipped, the last one stays on screen). */
static bool frame_buffer(app_ui *u, int w, int h) {
    SDL_Surface *ws = SDL_GetWindowSurface(u->win);
    bool direct = ws && ws->w == w && ws->h == h && !SDL_MUSTLOCK(ws) &&
                  (ws->format->format == SDL_PIXELFORMAT_RGB888 || ws->format->format == SDL_PIXELFORMAT_ARGB8888);
    if (direct && u->frame == ws) return true;
    if (!direct && !u->frame_is_window && u->frame && u->frame->w == w && u->frame->h == h) return true;
    drop_frame(u);
    u->full_redraw = true; // a new surface holds nothing yet
    if (direct) {
        u->frame = ws;
        u->frame_is_window = true;
        return true;
    }
    Uint32 fmt = ws && ws->format->format == SDL_PIXELFORMAT_RGB888 ? SDL_PIXELFORMAT_RGB888 : SDL_PIXELFORMAT_ARGB8888;
    // the pixels outlive the surface: a resize needs no new, zeroed memory
    // (in the browser, zeroing fresh memory was most of a resize's frame)
    size_t need = (size_t)w * (size_t)h * 4;
    if (need > u->frame_cap) {
        free(u->frame_px);
        u->frame_px = malloc(need);
        u->frame_cap = u->frame_px ? need : 0;
        if (!u->frame_px) return false;
    }
    u->frame = SDL_CreateRGBSurfaceWithFormatFrom(u->frame_px, w, h, 32, w * 4, fmt); // drawn whole before shown
    if (u->frame) SDL_SetSurfaceBlendMode(u->frame, SDL_BLENDMODE_NONE);              // opaque: copied, never blended
    return u->frame != NULL;
}

/* Redraws what changed between the list on screen and the new one into the
 * frame. The damaged rectangles are left in d; their count is returned. */
static int redraw(app_ui *u, viz_irect *d) {
    int w = u->st.look.width, h = u->st.look.height;
    if (w <= 0 || h <= 0 || !frame_buffer(u, w, h)) return 0;
    double t0 = now_ms();
    viz_sig *old = &u->sig[u->sig_cur], *now = &u->sig[!u->sig_cur];
    int n = 1;
    d[0] = (viz_irect){0, 0, w, h};
    bool known = viz_sdl_signature(now, old, u->fonts, &u->list, w, h);
    if (known && !u->full_redraw) n = viz_damage(old, now, d, VIZ_DAMAGE_MAX);
    double t1 = now_ms();
    viz_rgba bg = viz_theme_get(u->st.look.theme)->bg;
    long drawn = 0;
    SDL_Rect r[VIZ_DAMAGE_MAX];
    for (int i = 0; i < n; i++) {
        r[i] = (SDL_Rect){d[i].x, d[i].y, d[i].w, d[i].h};
        drawn += (long)r[i].w * r[i].h;
    }
    if (viz_sdl_draw_areas(u->frame, u->fonts, &u->list, r, n, bg) != 0) known = false;
    if (!known) now->count = 0; // not sure what is on screen: the next frame is drawn whole
    u->sig_cur = !u->sig_cur;
    u->full_redraw = false;
    if (u->stats) {
        u->stats->drawn_px = drawn;
        u->stats->phase_ms[APP_T_DAMAGE] += t1 - t0;
        u->stats->phase_ms[APP_T_DRAW] += now_ms() - t1;
    }
    return n;
}

/* ---- idle warming (the browser) ---- */

/* The scene of step `step` as app_goto_step would show it from here: no
 * hovered cell, the canvas and the narrative scrolled home; with
 * next_page, the next page's narrative and title in it (what turning the
 * page shows first, as far as the current trace can say). */
static void warm_layout(app_ui *u, int step, bool next_page) {
    viz_scene s;
    char badge[320];
    app_scene(&u->st, &s, badge, sizeof badge);
    char *text = NULL;
    if (next_page && (text = app_lesson_narrative_at(&u->st, u->st.lesson.page + 1, &s.narrative_title)))
        s.narrative = text;
    s.step = (attn_step)step;
    if (s.hover.kind == VIZ_HIT_CELL) {
        s.hover = (viz_hit){.kind = VIZ_HIT_NONE};
        s.explain = NULL;
        s.model_explain = NULL;
    }
    s.canvas_pan_x = s.canvas_pan_y = 0;
    s.narrative_scroll = 0;
    viz_build_window(&u->warm.list, &s, viz_fonts_measure(u->fonts));
    free(text);
}

bool app_ui_warm(app_ui *u, double budget_ms) {
    app_state *st = &u->st;
    app_warm *wm = &u->warm;
    // the other steps of the page, then the next page (when there is one)
    const lesson *l = app_lesson(st);
    int w = st->look.width, h = st->look.height, last = ATTN_STEP_COUNT - 1;
    last += l && st->lesson.page + 1 < lesson_page_count(l);
    // only the steps of the plain view: overlays, editing and training show something else
    if (st->dirty || u->stale || w <= 0 || h <= 0 || u->train.open || st->view.show_help || st->view.show_lab ||
        st->view.show_tiles || st->edit.ed.active || st->model.readout || wm->next >= last)
        return false;
    if (!wm->frame || wm->frame->w != w || wm->frame->h != h) { // its pixels kept, as the frame's (frame_buffer)
        SDL_FreeSurface(wm->frame);
        wm->frame = NULL;
        size_t need = (size_t)w * (size_t)h * 4;
        if (need > wm->cap) {
            free(wm->px);
            wm->px = malloc(need);
            wm->cap = wm->px ? need : 0;
        }
        if (!wm->px || !(wm->frame = SDL_CreateRGBSurfaceWithFormatFrom(wm->px, w, h, 32, w * 4, SDL_PIXELFORMAT_ARGB8888)))
            return false;
    }
    viz_rgba bg = viz_theme_get(st->look.theme)->bg;
    int band = (h + 7) / 8; // eight bands: each places only the text that crosses it
    double end = now_ms() + budget_ms;
    viz_fonts_warming(u->fonts, true);
    while (wm->next < last && now_ms() < end) {
        if (wm->band < 0) {
            bool page = wm->next == ATTN_STEP_COUNT - 1; // forward first: the clicker's way
            warm_layout(u, page ? 0 : ((int)st->view.step + 1 + wm->next) % ATTN_STEP_COUNT, page);
            wm->band = 0;
            continue;
        }
        SDL_Rect r = {0, wm->band * band, w, band};
        viz_sdl_draw_areas(wm->frame, u->fonts, &wm->list, &r, 1, bg); // a failure only leaves a text cold
        if (++wm->band * band >= h) {
            wm->band = -1;
            wm->next++;
        }
    }
    viz_fonts_warming(u->fonts, false);
    return wm->next < last;
}

/* Shows the damaged rectangles of the frame (platform.h: copied to the
 * window, or to the page's canvas); all of it when the screen holds
 * something else (a new or resized window surface) or was exposed. */
static void present(app_ui *u, const viz_irect *d, int n) {
    if (!u->frame) return;
    SDL_Rect r[VIZ_DAMAGE_MAX];
    for (int i = 0; i < n; i++) r[i] = (SDL_Rect){d[i].x, d[i].y, d[i].w, d[i].h};
    if (plat_present(u->win, u->frame, u->frame_is_window, r, n, u->repaint, &u->shown) == 0)
        u->repaint = false;
}

void app_ui_frame(app_ui *u) {
    bool shot = u->pending_shot[0] != '\0';
    app_ui_layout(u);
    if (!u->stale && !shot && !u->repaint) return; // nothing changed: no redraw
    viz_irect d[VIZ_DAMAGE_MAX];
    int n = u->stale ? redraw(u, d) : 0;
    double t0 = now_ms();
    present(u, d, n);
    if (u->stats) u->stats->phase_ms[APP_T_SHOW] += now_ms() - t0;
    u->stale = false;
    u->frames++;
    if (shot) {
        attn_err err;
        if (app_ui_save_frame(u, u->pending_shot, &err) == ATTN_OK) {
            plat_file_written(u->pending_shot);
            app_status(&u->st, app_str(&u->st, VIZ_S_STATUS_SAVED), u->pending_shot);
        } else {
            unlink(u->pending_shot); // the empty file that held its name
            app_status(&u->st, app_str(&u->st, VIZ_S_STATUS_SAVE_FAILED), err.msg);
        }
        u->pending_shot[0] = '\0';
    }
}

long app_ui_pixel(const app_ui *u, int x, int y) {
    const SDL_Surface *s = u->frame;
    if (!s || x < 0 || y < 0 || x >= s->w || y >= s->h) return -1;
    return (long)(((const Uint32 *)((const Uint8 *)s->pixels + (size_t)y * s->pitch))[x] & 0xFFFFFF);
}

attn_status app_ui_save_frame(app_ui *u, const char *path, attn_err *err) {
    return viz_save_png(u->frame, path, NULL, err);
}

/* Reserves a new name in the shots folder for one press: attnviz-DATE-TIME
 * + ext, with -2, -3 … when that is taken (two presses in one second), as
 * an empty file or a new folder. false after saying on the status line why
 * there is none. */
static bool new_shot_name(app_ui *u, char *out, size_t cap, const char *ext, bool folder) {
    char dir[768], stamp[64];
    if (u->shots_dir) snprintf(dir, sizeof dir, "%s", u->shots_dir);
    else if (!app_pictures_dir(dir, sizeof dir)) {
        app_status(&u->st, "%s", app_str(&u->st, VIZ_S_STATUS_NO_PICTURES));
        return false;
    }
    app_mkdirs(dir);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "attnviz-%Y%m%d-%H%M%S", &tm);
    attn_err err;
    if (attn_reserve_name(out, cap, dir, stamp, ext, folder, &err) == ATTN_OK) return true;
    app_status(&u->st, app_str(&u->st, VIZ_S_STATUS_SAVE_FAILED), err.msg);
    return false;
}

/* Ctrl+S: a PNG of its own in the shots folder, saved with the next frame. */
static void screenshot(app_ui *u) {
    if (u->pending_shot[0]) app_ui_frame(u); // a press not yet saved keeps its own file
    if (new_shot_name(u, u->pending_shot, sizeof u->pending_shot, ".png", false)) app_repaint(&u->st);
    else u->pending_shot[0] = '\0';
}

/* Ctrl+Shift+S: the figure of every step, PNG and SVG, into a new folder. */
static void export_all(app_ui *u) {
    app_state *st = &u->st;
    char dir[900];
    if (!new_shot_name(u, dir, sizeof dir, "", true)) return;
    export_opts o;
    export_opts_default(&o);
    o.dir = dir;
    o.formats = EXPORT_PNG | EXPORT_SVG;
    o.width = st->look.width < EXPORT_MIN_SIZE ? EXPORT_MIN_SIZE : st->look.width;
    o.height = st->look.height < EXPORT_MIN_SIZE ? EXPORT_MIN_SIZE : st->look.height;
    float scale = st->look.dpi_scale * st->look.zoom;
    o.ui_scale = scale < 0.5f ? 0.5f : scale > 4.0f ? 4.0f
                                                    : scale;
    o.theme = st->look.theme;
    o.lang = st->look.lang;
    o.weights_path = st->src.weights == APP_WEIGHTS_FILE ? st->src.weights_name : NULL;
    o.weights_sha256 = o.weights_path ? st->src.wfile.sha256 : NULL; // as read at start: not read again
    char *cmd = app_command_line(st), *cut = cmd ? strstr(cmd, " --print ") : NULL;
    if (cut) *cut = '\0'; // the index adds each file's own flags
    o.command_prefix = cmd;
    export_item items[EXPORT_MAX_MODEL_ITEMS];
    viz_scene sc;
    char badge[320];
    app_scene(st, &sc, badge, sizeof badge);
    int n = st->model.m ? export_items_for_model(items, EXPORT_MAX_MODEL_ITEMS, st->model.m, &st->model.run, sc.target,
                                                 o.steps, st->view.head, st->view.query, app_origin(st))
                        : export_items_for_trace(items, &st->src.trace, EXPORT_ALL_STEPS, st->view.head, st->view.query);
    char layer_prefix[16];
    snprintf(layer_prefix, sizeof layer_prefix, "L%d-", st->model.layer + 1);
    for (int i = 0; i < n && !st->model.m; i++) {
        if (st->hf) items[i].prefix = layer_prefix; // a real model's layer shown, as --headless --hf names it
        items[i].origin = app_origin(st);
        items[i].feature_names = sc.feature_names;
        items[i].names = sc.names;
        items[i].compare = st->view.compare; // the split view shown, written as shown
        items[i].head_b = st->view.head_b;
        items[i].alt = sc.alt_trace;
        snprintf(items[i].compare_labels[0], sizeof items[i].compare_labels[0], "%s", st->src.compare_labels[0]);
        snprintf(items[i].compare_labels[1], sizeof items[i].compare_labels[1], "%s", st->src.compare_labels[1]);
    }
    attn_err err;
    if (export_run(&o, items, n, st->look.strings, u->fonts, &err) == ATTN_OK) {
        plat_folder_written(dir);
        app_status(st, app_str(st, VIZ_S_STATUS_EXPORTED), dir);
    } else {
        rmdir(dir); // the new folder, empty again after the failed batch
        app_status(st, app_str(st, VIZ_S_STATUS_SAVE_FAILED), err.msg);
    }
    free(cmd);
}

/* ---- the complexity lab (F2): measured on its own thread ---- */

static void toggle_lab(app_ui *u) {
    if (app_toggle_lab(&u->st)) app_lab_start(&u->lab);
}

/* Shows the lab's result once it is done, else how long it has run. */
static void lab_poll(app_ui *u) {
    if (!app_lab_running(&u->lab)) return;
    float elapsed = u->st.view.lab_elapsed; // kept once the measurement is done
    const attn_cx_result *lab = app_lab_poll(&u->lab, &elapsed);
    app_lab_progress(&u->st, lab, elapsed);
}

/* ---- keys ---- */

static void copy_matrix(app_ui *u) {
    char what[64];
    char *tsv = app_matrix_tsv(&u->st, what, sizeof what);
    if (tsv && plat_clipboard_set(tsv) == 0) app_status(&u->st, app_str(&u->st, VIZ_S_STATUS_COPIED), what);
    free(tsv);
}

/* Ctrl+Shift+C: the command line that reproduces the view; where the page
 * can be linked to (the browser), the link to this view first, on a line of
 * its own, then the command line. */
static void copy_command(app_ui *u) {
    char *cmd = app_command_line(&u->st), *query = cmd ? app_view_query(&u->st) : NULL;
    char *link = query ? plat_view_link(query) : NULL, *both = NULL;
    if (link && (both = malloc(strlen(link) + strlen(cmd) + 2))) sprintf(both, "%s\n%s", link, cmd);
    if (both && plat_clipboard_set(both) == 0)
        app_status(&u->st, "%s", app_str(&u->st, VIZ_S_STATUS_COPIED_LINK));
    else if (!link && cmd && plat_clipboard_set(cmd) == 0)
        app_status(&u->st, "%s", app_str(&u->st, VIZ_S_STATUS_COPIED_CMD));
    free(both);
    free(link);
    free(query);
    free(cmd);
}

static void toggle_fullscreen(app_ui *u, bool on) {
    app_set_fullscreen(&u->st, on);
    SDL_SetWindowFullscreen(u->win, on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}

static void key_editing(app_ui *u, const SDL_Keysym *k) {
    app_state *st = &u->st;
    bool ctrl = k->mod & KMOD_CTRL;
    switch (k->sym) {
    case SDLK_RETURN:
    case SDLK_KP_ENTER: app_edit_commit(st); break;
    case SDLK_ESCAPE: app_edit_cancel(st); break;
    case SDLK_BACKSPACE: app_edit_backspace(st); break;
    case SDLK_DELETE: app_edit_delete(st); break;
    case SDLK_LEFT: app_edit_move(st, -1); break;
    case SDLK_RIGHT: app_edit_move(st, 1); break;
    case SDLK_HOME: app_edit_move(st, INT_MIN); break;
    case SDLK_END: app_edit_move(st, INT_MAX); break;
    case SDLK_a:
        if (ctrl) app_edit_select_all(st);
        break;
    case SDLK_v:
        if (ctrl) {
            char *t = plat_clipboard_get();
            if (t) app_edit_insert(st, t);
            free(t);
        }
        break;
    default: break;
    }
}

/* Ctrl chords outside edit mode. Returns true when handled. */
static bool key_ctrl(app_ui *u, const SDL_Keysym *k) {
    bool shift = k->mod & KMOD_SHIFT;
    switch (k->sym) {
    case SDLK_c:
        if (shift) copy_command(u);
        else copy_matrix(u);
        return true;
    case SDLK_s:
        if (shift) export_all(u);
        else screenshot(u);
        return true;
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS: app_set_zoom(&u->st, u->st.look.zoom * 1.1f); return true;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: app_set_zoom(&u->st, u->st.look.zoom / 1.1f); return true;
    case SDLK_0:
    case SDLK_KP_0: app_set_zoom(&u->st, 1.0f); return true;
    case SDLK_q: app_quit(&u->st); return true;
    default: return false;
    }
}

/* Letter shortcuts for the controls: lower case raises, Shift lowers. */
static bool key_control(app_state *st, SDL_Keycode sym, bool shift) {
    static const struct {
        SDL_Keycode key;
        viz_widget w;
        bool toggle;
    } map[] = {
        {SDLK_h, VIZ_W_HEADS, false},
        {SDLK_k, VIZ_W_DK, false},
        {SDLK_d, VIZ_W_DMODEL, false},
        {SDLK_s, VIZ_W_SCALE, true},
        {SDLK_m, VIZ_W_MASK, false},
        {SDLK_w, VIZ_W_WINDOW, false},
        {SDLK_o, VIZ_W_POSENC, true},
        {SDLK_v, VIZ_W_SHOW_HEAD, false},
        {SDLK_c, VIZ_W_COMPARE, false},
        {SDLK_t, VIZ_W_THEME, false},
        {SDLK_l, VIZ_W_LANG, true},
    };
    if (sym == SDLK_g) {
        app_widget(st, VIZ_W_SEED, 0); // re-roll
        return true;
    }
    if (sym == SDLK_o && shift) { // shift the sentence by 1000 positions and back (--pos-offset)
        app_widget(st, VIZ_W_POSENC, ATTN_MAX_POS_OFFSET);
        return true;
    }
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (map[i].key == sym) {
            app_widget(st, map[i].w, map[i].toggle ? 0 : shift ? -1
                                                               : +1);
            return true;
        }
    return false;
}

static void key_arrows(app_ui *u, SDL_Keycode sym) {
    app_state *st = &u->st;
    bool rail = st->view.focus == VIZ_FOCUS_RAIL;
    int d = sym == SDLK_LEFT || sym == SDLK_UP ? -1 : 1;
    if (rail) app_step(st, d);
    else if (sym == SDLK_LEFT || sym == SDLK_RIGHT) app_move_cursor(st, 0, d);
    else app_move_cursor(st, d, 0);
}

/* The tiles view's keys (issue 24): ← → a step, Home End the first and last,
 * + − the block size, F4 or Esc close. false for any other key. */
static bool tiles_key(app_state *st, SDL_Keycode sym) {
    switch (sym) {
    case SDLK_LEFT:
    case SDLK_UP: app_tiles_step(st, -1); return true;
    case SDLK_RIGHT:
    case SDLK_DOWN:
    case SDLK_SPACE: app_tiles_step(st, +1); return true;
    case SDLK_HOME: app_tiles_step(st, INT_MIN); return true;
    case SDLK_END: app_tiles_step(st, INT_MAX); return true;
    case SDLK_PLUS:
    case SDLK_KP_PLUS: app_tiles_block(st, +1); return true;
    case SDLK_EQUALS: app_tiles_block(st, +1); return true; // + shares its key with =
    case SDLK_MINUS:
    case SDLK_KP_MINUS: app_tiles_block(st, -1); return true;
    case SDLK_F4:
    case SDLK_ESCAPE: app_toggle_tiles(st); return true;
    default: return false;
    }
}

static void key_normal(app_ui *u, const SDL_Keysym *k) {
    app_state *st = &u->st;
    bool shift = k->mod & KMOD_SHIFT;
    if ((k->mod & KMOD_CTRL) && key_ctrl(u, k)) return;
    if (k->mod & (KMOD_CTRL | KMOD_ALT | KMOD_GUI)) return;
    if (st->view.show_tiles && !st->view.show_help && !st->view.show_lab && tiles_key(st, k->sym))
        return;                                                                                  // F4's view takes the arrows, + and −
    if (!st->view.show_help && !st->view.show_lab && app_train_key(&u->train, k->sym, k->mod)) { // F3, and its keys while open
        if (st->edit.ed.active) u->skip_text = true;                                             // E began editing the probe: its letter is not typed
        return;
    }
    switch (k->sym) {
    case SDLK_e:
        if (!(shift && app_edit_pair(st))) app_edit_begin(st); // Shift+E: the second of two compared sentences
        u->skip_text = true;
        return;
    case SDLK_F2: toggle_lab(u); return;
    case SDLK_F4: app_toggle_tiles(st); return;
    case SDLK_F5: app_toggle_decode(st); return;
    case SDLK_F6: app_hf_toggle_models(st); return; // a real model's every layer × head and the head finder
    case SDLK_z:
        if (app_hf_models_shown(st)) app_hf_toggle_hide(st);
        return;
    case SDLK_j: app_kv_heads_step(st, shift ? -1 : 1); return;
    case SDLK_COMMA:
    case SDLK_PERIOD:
        if (st->view.show_decode) app_decode_token(st, k->sym == SDLK_COMMA ? -1 : 1);
        return;
    case SDLK_ESCAPE:
        if (st->view.show_lab) toggle_lab(u);
        else if (st->view.show_decode) app_toggle_decode(st);
        else if (app_hf_models_shown(st)) app_hf_toggle_models(st);
        else if (st->view.show_help) app_toggle_help(st);
        else if (st->view.show_pages) app_page_control(st, VIZ_PW_LIST, 0);
        else if (st->view.figure_only) app_toggle_figure(st);
        else if (st->look.fullscreen) toggle_fullscreen(u, false);
        return;
    case SDLK_F1: app_toggle_help(st); return;
    case SDLK_f: app_toggle_figure(st); return;
    case SDLK_F11: toggle_fullscreen(u, !st->look.fullscreen); return;
    case SDLK_TAB: app_toggle_focus(st); return;
    case SDLK_PAGEUP: app_clicker(st, -1); return;
    case SDLK_PAGEDOWN:
    case SDLK_SPACE: app_clicker(st, shift ? -1 : 1); return;
    case SDLK_n: app_lesson_turn(st, +1); return;
    case SDLK_a: app_toggle_lines_all(st); return;
    case SDLK_p: app_lesson_turn(st, -1); return;
    case SDLK_LEFT:
    case SDLK_RIGHT:
    case SDLK_UP:
    case SDLK_DOWN: key_arrows(u, k->sym); return;
    case SDLK_HOME: app_goto_step(st, 0); return;
    case SDLK_END: app_goto_step(st, ATTN_STEP_COUNT - 1); return;
    case SDLK_r: app_reset(st); return;
    case SDLK_RETURN:
    case SDLK_KP_ENTER:
        if (st->view.hover.kind == VIZ_HIT_CELL) app_select_query(st, st->view.hover.row); // like clicking the row's token
        return;
    default: break;
    }
    if (k->sym >= SDLK_1 && k->sym <= SDLK_8) app_goto_step(st, attn_step_numbered((int)(k->sym - SDLK_1) + 1));
    else if (k->sym == SDLK_9) app_model_readout(st);
    else if (k->sym == SDLK_LEFTBRACKET || k->sym == SDLK_RIGHTBRACKET) app_model_layer(st, k->sym == SDLK_LEFTBRACKET ? -1 : 1);
    else if (k->sym == SDLK_b) app_model_toggle_backward(st);
    else key_control(st, k->sym, shift);
}

/* ---- mouse ---- */

/* Keeps the list in step with the state so hit tests see what is on screen. */
static viz_hit hit_at(app_ui *u, float x, float y) {
    app_ui_layout(u);
    return viz_hit_test(&u->list, x, y);
}

static void mouse_down(app_ui *u, float x, float y) {
    app_state *st = &u->st;
    viz_hit h = hit_at(u, x, y);
    bool word = h.kind == VIZ_HIT_WIDGET && (h.widget == VIZ_W_WORD || h.widget == VIZ_W_WORD_PAGE); // the palette types into the edit
    if (st->edit.ed.active && h.kind != VIZ_HIT_SENTENCE && !word) app_edit_commit(st);              // clicking away keeps the edit
    switch (h.kind) {
    case VIZ_HIT_SENTENCE: app_edit_begin(st); break;
    case VIZ_HIT_TOKEN: app_select_query(st, h.token); break;
    case VIZ_HIT_STEP: app_click_step(st, h.step); break;
    case VIZ_HIT_WIDGET:
        if (h.widget >= VIZ_TW_FIRST) app_train_widget(&u->train, h.widget, h.delta);
        else if (h.widget >= VIZ_PW_TURN && h.widget <= VIZ_PW_PAGE) app_page_control(st, h.widget, h.delta);
        else app_widget(st, (viz_widget)h.widget, h.delta);
        break;
    case VIZ_HIT_CELL: app_click_cell(st, h); break;
    default: break;
    }
}

static void mouse_wheel(app_ui *u, const SDL_MouseWheelEvent *w) {
    app_state *st = &u->st;
    viz_hit h = hit_at(u, u->mouse_x, u->mouse_y);
    bool ctrl = SDL_GetModState() & KMOD_CTRL, shift = SDL_GetModState() & KMOD_SHIFT;
    if (h.kind == VIZ_HIT_PANEL && h.panel == VIZ_PANEL_NARRATIVE) app_wheel_narrative(st, w->y, h.scroll_max, h.scroll);
    else if (h.kind == VIZ_HIT_PANEL && h.panel == VIZ_PANEL_DETAIL) app_wheel_detail(st, w->y);
    else if (ctrl) app_wheel_zoom(st, w->y);
    else app_wheel_pan(st, w->y, shift);
}

/* ---- events ---- */

static void text_input(app_ui *u, const char *text) {
    if (u->skip_text) { // the letter of the key that entered edit mode is not typed
        u->skip_text = false;
        if (strlen(text) == 1) return;
    }
    if (u->st.edit.ed.active) app_edit_insert(&u->st, text);
    else if (strcmp(text, "?") == 0) app_toggle_help(&u->st);
}

void app_ui_event(app_ui *u, const SDL_Event *e) {
    app_state *st = &u->st;
    switch (e->type) {
    case SDL_QUIT: app_quit(st); break;
    case SDL_KEYDOWN:
        if (e->key.keysym.sym != SDLK_e) u->skip_text = false;
        if (st->edit.ed.active) key_editing(u, &e->key.keysym);
        else key_normal(u, &e->key.keysym);
        break;
    case SDL_TEXTINPUT: text_input(u, e->text.text); break;
    case SDL_TEXTEDITING: app_edit_compose(st, e->edit.text); break; // ignored unless editing
    case SDL_TEXTEDITING_EXT: app_edit_compose(st, e->editExt.text ? e->editExt.text : ""); break;
    case SDL_MOUSEMOTION: {
        u->mouse_x = (float)e->motion.x;
        u->mouse_y = (float)e->motion.y;
        viz_hit h = hit_at(u, u->mouse_x, u->mouse_y);
        if (h.kind == VIZ_HIT_CELL && memcmp(&h, &st->view.hover, sizeof h) != 0) app_hover(st, h);
        if ((e->motion.state & SDL_BUTTON_LMASK) && h.kind == VIZ_HIT_WIDGET && h.widget == VIZ_TW_SNAPSHOT)
            app_train_widget(&u->train, h.widget, h.delta); // dragging along the timeline
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        u->mouse_x = (float)e->button.x;
        u->mouse_y = (float)e->button.y;
        if (e->button.button == SDL_BUTTON_LEFT) mouse_down(u, u->mouse_x, u->mouse_y);
        break;
    case SDL_MOUSEWHEEL: mouse_wheel(u, &e->wheel); break;
    case SDL_DROPFILE:
        app_open_dropped(st, e->drop.file);
        SDL_free(e->drop.file);
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED || e->window.event == SDL_WINDOWEVENT_RESIZED) {
            int w, h;
            app_ui_output_size(u, &w, &h);
            app_resize(st, w, h);
            if (u->frame_is_window) drop_frame(u); // SDL has freed the window surface it was
        }
        if (e->window.event == SDL_WINDOWEVENT_EXPOSED) u->repaint = true; // uncovered: show it all again
        app_repaint(st);
        break;
    default: break;
    }
}

/* Handles one event and frees what SDL allocated for it. */
static void take_event(app_ui *u, SDL_Event *e) {
    app_ui_event(u, e);
    if (e->type == SDL_TEXTEDITING_EXT) SDL_free(e->editExt.text);
}

bool app_sdl_frame(void *ui) {
    app_ui *u = ui;
    if (u->st.quit) return false;
    if (SDL_TICKS_PASSED(SDL_GetTicks(), u->next_reload_check)) { // authors edit lessons beside the app
        app_lesson_reload(&u->st);
        u->next_reload_check = SDL_GetTicks() + 1000;
    }
    bool train_only = u->train.open && app_train_busy(&u->train) && !u->input_seen;
    bool working = plat_jobs_advance(train_only ? APP_WORK_BUDGET_TRAINING_MS : APP_WORK_BUDGET_MS);
    lab_poll(u);
    app_train_poll(&u->train);
    app_hf_poll(&u->st); // a real model's sentence, computed off this thread
    // sleep until something happens: an idle app uses no CPU
    int timeout = u->hook || working || u->warm.more                 ? 1
                  : u->st.dirty                                      ? 0
                  : app_train_busy(&u->train) || app_hf_busy(&u->st) ? 15
                  : app_lab_running(&u->lab)                         ? 250
                                                                     : 500;
    SDL_Event e;
    u->input_seen = false;
    if (plat_wait_event(&e, timeout)) {
        u->input_seen = true;
        take_event(u, &e);
        while (SDL_PollEvent(&e)) take_event(u, &e);
    }
    long frames = u->frames;
    app_ui_frame(u);
    // a frame with no input and nothing drawn: warm what is likely next
    u->warm.more = plat_idle_warms() && !u->input_seen && !working && frames == u->frames &&
                   app_ui_warm(u, APP_WARM_BUDGET_MS);
    if (u->hook && !u->hook(u->hook_ctx, u)) u->hook = NULL;
    return !u->st.quit;
}

void app_ui_run(app_ui *u, app_frame_hook hook, void *hook_ctx) {
    u->hook = hook;
    u->hook_ctx = hook_ctx;
    u->next_reload_check = 0;
    plat_run(app_sdl_frame, u);
}
