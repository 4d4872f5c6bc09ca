/* app_sdl.h — the window: SDL events in, app actions out, display list drawn.
 * SDL itself is initialised (and quit) by main.c only. */
#ifndef APP_SDL_H
#define APP_SDL_H

#include <SDL.h>
#include <stdio.h>

#include "app.h"
#include "app_script.h"
#include "viz_sdl.h"

typedef struct {
    SDL_Window *win;          /* the window (owned) */
    SDL_Renderer *ren;        /* its renderer (owned) */
    viz_fonts *fonts;         /* UI fonts (borrowed) */
    viz_list list;            /* the display list of the current frame (owned) */
    app_state st;             /* app state (owned) */
    const char *shots_dir;    /* where Ctrl+S saves (borrowed); NULL: XDG pictures folder */
    bool skip_text;           /* swallow the text event of the key that entered edit mode */
    char pending_shot[1024];  /* save the next frame here, or "" */
    app_script script;        /* --script commands (owned; empty without a script) */
    const char *script_name;  /* --script path for messages */
    int script_pos;           /* next command */
    Uint32 wait_until;        /* script: SDL_GetTicks() value to wait for */
    int exit_code;            /* 0, or 1 after a failed script expectation */
    Uint32 *pixels;           /* last captured frame (ARGB8888, owned), for pixel checks */
    int pix_w, pix_h;         /* its size */
    float mouse_x, mouse_y;   /* last mouse position */
    bool stale;               /* the list changed since it was last drawn */
    long frames;              /* frames presented */
    long rss_mark_kb;         /* resident memory at the script's `expect rss_mark` */
    SDL_Thread *lab_thread;   /* the complexity lab's measurement, while it runs */
    SDL_atomic_t lab_done;    /* set by the thread when lab_result is complete */
    attn_cx_result *lab_result; /* its result (owned) */
    Uint32 lab_started;       /* SDL_GetTicks() when it started */
} app_ui;

/* Opens the window (w×h, resizable) and sets up u around an initialised
 * app state st (moved into u). Returns 0, or -1 with a message in err. */
int app_ui_open(app_ui *u, app_state *st, viz_fonts *fonts, int w, int h, float ui_scale,
                char *err, size_t cap);

/* Runs the main loop until quit. Returns the process exit code. */
int app_ui_run(app_ui *u);

/* Closes the window and frees everything u owns. NULL is a no-op. */
void app_ui_close(app_ui *u);

/* Handles one event (real or synthesised by a script). */
void app_ui_event(app_ui *u, const SDL_Event *e);

/* Rebuilds the display list if the state changed (hit tests need it). */
void app_ui_layout(app_ui *u);

/* Lays out if needed, then draws and presents when the list changed since the
 * last frame; when capture is set (or a screenshot is pending) it always
 * draws and keeps the frame's pixels. */
void app_ui_frame(app_ui *u, bool capture);

/* Runs script commands due now. Returns false when the script has finished. */
bool app_script_tick(app_ui *u);

/* Saves the last drawn frame as PNG at path (a screenshot). 0 or -1 + err. */
int app_ui_save_frame(app_ui *u, const char *path, char *err, size_t cap);

#endif
