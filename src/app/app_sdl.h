/* app_sdl.h — the window: SDL events in, app actions out, display list drawn.
 * SDL itself is initialised (and quit) by main.c only. */
#ifndef APP_SDL_H
#define APP_SDL_H

#include <SDL.h>
#include <stdio.h>

#include "app.h"
#include "app_script.h"
#include "viz_sdl.h"

/* Where a frame's time goes, accumulated until reset (for --bench). */
typedef enum { APP_T_LAYOUT, APP_T_DAMAGE, APP_T_DRAW, APP_T_SHOW, APP_T_COUNT } app_phase;

typedef struct {
    SDL_Window *win;          /* the window (owned) */
    SDL_Surface *frame;       /* the frame as drawn, (A)RGB8888 (owned): screenshots and pixel checks */
    SDL_Surface *shown;       /* the window surface the frame was last copied to (SDL's) */
    viz_sig sig[2];           /* signatures of the last drawn list and of the next one (owned) */
    int sig_cur;              /* which of sig belongs to the frame on screen */
    bool full_redraw;         /* draw the next frame whole (new size, failed drawing) */
    bool repaint;             /* copy the whole frame to the window again (it was exposed) */
    long drawn_px;            /* pixels redrawn by the last frame (damage only), for --bench */
    double phase_ms[APP_T_COUNT]; /* milliseconds per phase since the caller last zeroed them */
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
    float mouse_x, mouse_y;   /* last mouse position */
    bool stale;               /* the list changed since it was last drawn */
    long frames;              /* frames presented */
    long rss_mark_kb;         /* resident memory at the script's `expect rss_mark` */
    SDL_Thread *lab_thread;   /* the complexity lab's measurement, while it runs */
    SDL_atomic_t lab_done;    /* set by the thread when lab_result is complete */
    attn_cx_result *lab_result; /* its result (owned) */
    Uint32 lab_started;       /* SDL_GetTicks() when it started */
} app_ui;

/* The window's size in pixels. */
void app_ui_output_size(app_ui *u, int *w, int *h);

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

/* Lays out if needed, then, when the list changed since the last frame,
 * redraws the pixels that changed (the damage between the two lists) and
 * shows them; u->frame then holds what is on screen (screenshots and pixel
 * checks read it). */
void app_ui_frame(app_ui *u);

/* Runs script commands due now. Returns false when the script has finished. */
bool app_script_tick(app_ui *u);

/* The pixel (x, y) of the frame on screen as 0xRRGGBB, or -1 outside it. */
long app_ui_pixel(const app_ui *u, int x, int y);

/* Saves the last drawn frame as PNG at path (a screenshot): ATTN_OK, or an
 * error saying why. */
attn_status app_ui_save_frame(app_ui *u, const char *path, attn_err *err);

#endif
