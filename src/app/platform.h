/* platform.h — what differs between the desktop and the browser, and
 * nothing else: the one place in src/app that knows where attnviz runs.
 *
 * Two implementations, each in its own file: platform_desktop.c (Linux,
 * SDL's own window, threads) and platform_web.c (Emscripten: one canvas, no
 * threads, the page's storage, downloads; compiled only by emcc, see
 * CMakeLists.txt). Fonts are the render floor's and are found there
 * (viz_fonts.c: fontconfig, or the bundle's /fonts); the stale-file
 * clean-up is util's (cleanup.c). */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- start and end ---- */

/* Starts what the platform adds to SDL (SDL_image for the window icon on
 * the desktop). Returns 0, or -1 with SDL_GetError set. */
int plat_init(void);

/* Undoes plat_init (also after a failed one) and lets go of what the
 * platform's libraries keep for the process (fontconfig's configuration). */
void plat_quit(void);

/* main's last word: returns status, the process's exit status. The
 * browser also tells the page, which shows what attnviz said on standard
 * error when status is not 0 (a page has no terminal). */
int plat_exit_status(int status);

/* ---- the loop ---- */

/* One pass of a loop: returns false when the loop is to end. */
typedef bool (*plat_frame_fn)(void *ctx);

/* Calls frame(ctx) until it returns false. The desktop loops here and
 * returns then; the browser hands frame to emscripten_set_main_loop (once per
 * animation frame) and never returns: what ctx points to must live on. */
void plat_run(plat_frame_fn frame, void *ctx);

/* The next event into e: the desktop sleeps up to timeout_ms for one (an
 * idle window uses no CPU); the browser never waits (the page calls the
 * frame function again on the next animation frame). 1 with an event, else 0. */
int plat_wait_event(SDL_Event *e, int timeout_ms);

/* ---- the frame ---- */

/* Shows the n rectangles r of frame (32-bit, ARGB8888 or RGB888) in win;
 * the whole frame when whole is set or when *shown says the screen holds
 * something else (a new or resized window surface). frame_in_window: frame
 * is the window surface itself (drawn in place; nothing to copy). On
 * success returns 0 and updates *shown (the platform's token for what the
 * screen shows; NULL at first); -1 leaves it. */
int plat_present(SDL_Window *win, SDL_Surface *frame, bool frame_in_window, const SDL_Rect *r, int n, bool whole,
                 const void **shown);

/* Gives win its icon (the desktop's window manager shows it; the page has
 * its favicon). */
void plat_window_icon(SDL_Window *win);

/* The browser keeps some keys from attnviz (page zoom, F11, Esc, Ctrl+Q):
 * true there, and the help overlay says what each does and what replaces
 * it; false on the desktop, where attnviz has them all. */
bool plat_keeps_keys(void);

/* Whether the window spends idle frames warming (app_ui_warm: laying out
 * and drawing, where nobody sees, the steps likely shown next, so their
 * text is shaped and their code run before they are): true in the browser,
 * where a step's first showing took 20-40 ms (text shaped and glyphs
 * hinted for the first time, wasm functions compiled on their first call);
 * false on the desktop, which sleeps while idle and draws a first showing
 * with two threads. */
bool plat_idle_warms(void);

/* ---- files and text ---- */

/* The folder data is found under (assets/, lessons/): the executable's on
 * the desktop, the data bundle's root in the browser. false when unknown. */
bool plat_program_dir(char *out, size_t cap);

/* The settings file at path is about to be read: the browser copies it from
 * the page's storage (localStorage) into its file system; the desktop's
 * file is its own storage (nothing to do). */
void plat_settings_fetch(const char *path);

/* The settings file at path was written: the browser keeps a copy in the
 * page's storage; nothing on the desktop. */
void plat_settings_keep(const char *path);

/* A file attnviz wrote for the user to keep (a screenshot, a saved model):
 * the desktop leaves it where it is (the status line names it); the browser
 * also offers it as a download, since its file system ends with the page. */
void plat_file_written(const char *path);

/* A new folder attnviz filled for the user to keep (Ctrl+Shift+S's step
 * figures): the desktop leaves it where it is; the browser also offers it
 * as one download, the folder's name + .zip (its files, stored). */
void plat_folder_written(const char *dir);

/* The link that opens the view query describes ("lesson=…&lang=…", already
 * URL-encoded): the page's own address with that query, malloc'd (the
 * caller frees it); NULL on the desktop, which has no page to link to. */
char *plat_view_link(const char *query);

/* Puts text on the clipboard. Returns 0, or -1 when there is none. */
int plat_clipboard_set(const char *text);

/* The clipboard's text as a malloc'd string the caller frees, or NULL when
 * there is none (or it is empty). */
char *plat_clipboard_get(void);

/* The step (1-based) a link into the page asks for (?step=6), or 0: the
 * desktop has no links (its command line says everything else). */
int plat_link_step(void);

/* A function the platform calls when the user leaves (closes the page); the
 * desktop saves when its loop ends instead and never calls it. */
void plat_on_leave(void (*leave)(void *ctx), void *ctx);

/* What the page may ask the running app (the browser tests): whether a
 * script's `expect NAME VALUE` holds now (app_script.h's names), and the
 * trace shown as --dump-json writes it (malloc'd, or NULL). */
typedef struct {
    bool (*holds)(void *ctx, const char *name, const char *value);
    char *(*trace_json)(void *ctx);
    void *ctx;
    /* a model folder the page's file picker filled (the browser): opened as
     * --hf DIR [--sentence S] (sentence NULL: the default); false (the status
     * line says why) when it could not be */
    bool (*open_hf)(void *ctx, const char *dir, const char *sentence);
} plat_inspector;

/* Offers in (copied) to the page as attnviz_holds(name, value) and
 * attnviz_trace() (the browser); nothing on the desktop, whose scripts
 * ask the same through --script. */
void plat_expose(const plat_inspector *in);

/* ---- background work ---- */

/* Work that must not stop the window (F3's training, F2's measurement). The
 * desktop runs `run` on a thread of its own. The browser has no threads
 * without SharedArrayBuffer and cross-origin-isolation headers, which a
 * static host need not send: there `slice` is called from the frame
 * function (plat_jobs_advance) until it says DONE, each call doing a piece
 * short enough for a frame (one training step, one timed point). */
typedef enum {
    PLAT_SLICE_MORE, /* did a piece; more to do now */
    PLAT_SLICE_IDLE, /* nothing to do until the window asks (paused) */
    PLAT_SLICE_DONE  /* finished: not called again */
} plat_slice;

typedef struct {
    const char *name;               /* the thread's name (debuggers show it) */
    int (*run)(void *ctx);          /* the whole job (desktop) */
    plat_slice (*slice)(void *ctx); /* a piece of it (browser) */
    void *ctx;
} plat_job_def;

typedef struct plat_job plat_job;

/* Starts def (copied). Returns the job (owned: plat_job_wait frees it), or
 * NULL with SDL_GetError set. */
plat_job *plat_job_start(const plat_job_def *def);

/* Waits for the job to end (the caller first asks it to stop: its run
 * returns, its slice says DONE) and frees it. The browser calls no more
 * slices of it. NULL is a no-op. */
void plat_job_wait(plat_job *j);

/* Advances the jobs by slices for up to budget_ms (the browser; nothing on
 * the desktop, where they run by themselves). true when a job still has
 * work now (the frame function then comes back soon). */
bool plat_jobs_advance(double budget_ms);

#endif
