/* app_sdl.h — floor 6 of src/app, the SDL event layer: the window, SDL
 * events translated into actions (app_actions.h), the display list of the
 * scene (app_view.h) drawn. It changes the state only through actions.
 * SDL itself is initialised (and quit) by main.c only. */
#ifndef APP_SDL_H
#define APP_SDL_H

#include <SDL.h>
#include <stdio.h>

#include "app_actions.h"
#include "app_lab.h"
#include "app_train.h"
#include "app_view.h"
#include "viz_sdl.h"

/* Where a frame's time goes (for --bench, which owns it). */
typedef enum { APP_T_LAYOUT,
               APP_T_DAMAGE,
               APP_T_DRAW,
               APP_T_SHOW,
               APP_T_COUNT } app_phase;

typedef struct {
    double phase_ms[APP_T_COUNT]; /* milliseconds per phase since the owner last zeroed them */
    long drawn_px;                /* pixels redrawn by the last frame (damage only) */
} app_frame_stats;

typedef struct app_ui app_ui;

/* Idle warming (app_ui_warm): the other steps of the page, laid out and
 * drawn band by band into a frame never shown. */
typedef struct {
    viz_list list;      /* the step being warmed, laid out (owned) */
    SDL_Surface *frame; /* where it is drawn (owned), the window's size, never shown */
    void *px;           /* its pixels (owned), cap bytes, kept across resizes */
    size_t cap;
    int next;  /* items warmed so far: the steps after the shown one, then the next page */
    int band;  /* the next band of rows of list to draw; -1: list not laid out yet */
    bool more; /* the last call left more to warm (the loop comes back soon) */
} app_warm;

/* Called once after each frame of app_ui_run with the window; returns false
 * when it wants no more calls. While it wants them the loop does not sleep. */
typedef bool (*app_frame_hook)(void *ctx, app_ui *u);

struct app_ui {
    SDL_Window *win;         /* the window (owned) */
    SDL_Surface *frame;      /* the frame as drawn, (A)RGB8888: screenshots and pixel checks; owned unless */
    bool frame_is_window;    /* ... it is the window surface itself (SDL's), drawn in place: no copy to show */
    const void *shown;       /* what the screen shows (platform.h's token for plat_present) */
    viz_sig sig[2];          /* signatures of the last drawn list and of the next one (owned) */
    int sig_cur;             /* which of sig belongs to the frame on screen */
    bool full_redraw;        /* draw the next frame whole (new size, failed drawing) */
    bool repaint;            /* copy the whole frame to the window again (it was exposed) */
    app_frame_stats *stats;  /* where frame times go (borrowed), or NULL */
    viz_fonts *fonts;        /* UI fonts (borrowed) */
    viz_list list;           /* the display list of the current frame (owned) */
    app_state st;            /* app state (owned) */
    const char *shots_dir;   /* where Ctrl+S saves (borrowed); NULL: XDG pictures folder */
    bool skip_text;          /* swallow the text event of the key that entered edit mode */
    char pending_shot[1024]; /* save the next frame here, or "" */
    float mouse_x, mouse_y;  /* last mouse position */
    bool stale;              /* the list changed since it was last drawn */
    long frames;             /* frames presented */
    app_lab lab;             /* the complexity lab's measurement (F2) */
    app_train train;         /* the training view and its thread (F3) */
    /* the loop (app_ui_run) */
    app_frame_hook hook; /* called after each frame, or NULL */
    void *hook_ctx;
    Uint32 next_reload_check; /* SDL_GetTicks() when lessons are next checked for edits */
    bool input_seen;          /* the last pass had an event to handle (a person at the keys or mouse) */
    app_warm warm;            /* idle warming (plat_idle_warms) */
    void *frame_px;           /* the pixels of a frame of its own (owned), frame_cap bytes: */
    size_t frame_cap;         /* kept across resizes (a new frame is not zeroed) */
};

/* The window's size in pixels. */
void app_ui_output_size(app_ui *u, int *w, int *h);

/* Opens the window (w×h, resizable) and sets up u around an initialised
 * app state st (moved into u). Returns 0, or -1 with a message in err. */
int app_ui_open(app_ui *u, app_state *st, viz_fonts *fonts, int w, int h, float ui_scale,
                char *err, size_t cap);

/* Background work (training, the lab) done per frame where it has no
 * thread of its own (the browser): a share of a 60 Hz frame. */
#define APP_WORK_BUDGET_MS 10.0
/* ... and while the training view is open, training, with no event to
 * handle: it shows the heatmaps at 20 Hz (APP_TRAIN_REFRESH_MS), so a
 * frame every 50 ms loses nothing, and training gets most of it (measured
 * in chromium: each frame costs about 5 ms besides the work, the view and
 * the browser's own painting; 10 ms slices left training a third of the time). */
#define APP_WORK_BUDGET_TRAINING_MS 40.0

/* One pass of the window loop (a plat_frame_fn; ui: the app_ui): lessons
 * checked for edits, background work advanced, events (waited for on the
 * desktop while idle) turned into actions, the frame laid out, drawn and
 * shown, then the hook. Returns false once the app quits. */
bool app_sdl_frame(void *ui);

/* Runs the loop until quit (platform.h: on the desktop it returns then; in
 * the browser it never returns and u must live on), calling hook (may be
 * NULL) after each frame. */
void app_ui_run(app_ui *u, app_frame_hook hook, void *hook_ctx);

/* Closes the window and frees everything u owns. NULL is a no-op. */
void app_ui_close(app_ui *u);

/* Handles one event (real or synthesised by a script). */
void app_ui_event(app_ui *u, const SDL_Event *e);

/* Idle work for the browser (plat_idle_warms): lays out and draws, into a
 * frame never shown, the other steps of the page as they would be shown at
 * the window's size, theme and language, a band of rows at a time until
 * budget_ms have passed, so their text is shaped and cached before a step
 * is first shown. Changes no state, pixel on screen or number; a missing
 * glyph fetches no late face (viz_fonts_warming). true while there is more
 * to warm for what is shown now. */
bool app_ui_warm(app_ui *u, double budget_ms);

/* Time given to app_ui_warm per idle frame: a share of a 60 Hz frame. */
#define APP_WARM_BUDGET_MS 4.0

/* Rebuilds the display list if the state changed (hit tests need it). */
void app_ui_layout(app_ui *u);

/* Lays out if needed, then, when the list changed since the last frame,
 * redraws the pixels that changed (the damage between the two lists) and
 * shows them; u->frame then holds what is on screen (screenshots and pixel
 * checks read it). */
void app_ui_frame(app_ui *u);

/* The pixel (x, y) of the frame on screen as 0xRRGGBB, or -1 outside it. */
long app_ui_pixel(const app_ui *u, int x, int y);

/* Saves the last drawn frame as PNG at path (a screenshot): ATTN_OK, or an
 * error saying why. */
attn_status app_ui_save_frame(app_ui *u, const char *path, attn_err *err);

#endif
