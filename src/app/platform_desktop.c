/* platform_desktop.c — the desktop's side of platform.h: SDL's window and
 * clipboard, fontconfig, threads, files that stay where they are written. */
#include "platform.h"

#include <fontconfig/fontconfig.h>
#include <SDL_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_paths.h"

int plat_init(void) {
    return IMG_Init(IMG_INIT_PNG) & IMG_INIT_PNG ? 0 : -1;
}

void plat_quit(void) {
    IMG_Quit();
    FcFini(); // fontconfig keeps its configuration until told to let go
}

int plat_exit_status(int status) {
    return status;
}

void plat_run(plat_frame_fn frame, void *ctx) {
    while (frame(ctx)) {
    }
}

int plat_wait_event(SDL_Event *e, int timeout_ms) {
    return SDL_WaitEventTimeout(e, timeout_ms);
}

int plat_present(SDL_Window *win, SDL_Surface *frame, bool frame_in_window, const SDL_Rect *r, int n, bool whole,
                 const void **shown) {
    SDL_Surface *ws = SDL_GetWindowSurface(win);
    if (!ws || !frame) return -1;
    SDL_Rect all = {0, 0, frame->w, frame->h};
    if (ws != *shown || whole || ws->w != all.w || ws->h != all.h) {
        r = &all;
        n = 1;
    }
    for (int i = 0; i < n && !frame_in_window; i++) {
        SDL_Rect src = r[i], dst = r[i]; // SDL_BlitSurface clips dst in place
        SDL_BlitSurface(frame, &src, ws, &dst);
    }
    if (n <= 0 || SDL_UpdateWindowSurfaceRects(win, r, n) != 0) return -1;
    *shown = ws;
    return 0;
}

void plat_window_icon(SDL_Window *win) {
    char icon[1024];
    if (!app_find_data("assets/attnviz.svg", icon, sizeof icon)) return;
    SDL_Surface *s = IMG_Load(icon);
    if (!s) return;
    SDL_SetWindowIcon(win, s);
    SDL_FreeSurface(s);
}

bool plat_program_dir(char *out, size_t cap) {
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    return (size_t)snprintf(out, cap, "%s", exe) < cap;
}

void plat_settings_fetch(const char *path) {
    (void)path; // the file is its own storage
}

void plat_settings_keep(const char *path) {
    (void)path;
}

bool plat_idle_warms(void) {
    return false;
}

bool plat_keeps_keys(void) {
    return false;
}

void plat_file_written(const char *path) {
    (void)path; // it stays where it was written; the status line names it
}

void plat_folder_written(const char *dir) {
    (void)dir; // the status line names it
}

char *plat_view_link(const char *query) {
    (void)query;
    return NULL;
}

int plat_clipboard_set(const char *text) {
    return SDL_SetClipboardText(text);
}

char *plat_clipboard_get(void) {
    if (!SDL_HasClipboardText()) return NULL;
    char *t = SDL_GetClipboardText(), *copy = t && *t ? strdup(t) : NULL;
    SDL_free(t);
    return copy;
}

int plat_link_step(void) {
    return 0;
}

void plat_on_leave(void (*leave)(void *ctx), void *ctx) {
    (void)leave; // main saves once the loop has ended
    (void)ctx;
}

void plat_expose(const plat_inspector *in) {
    (void)in;
}

/* ---- threads ---- */

struct plat_job {
    SDL_Thread *thread;
};

plat_job *plat_job_start(const plat_job_def *def) {
    if (!def->run) {
        SDL_SetError("%s has nothing to run on a thread", def->name);
        return NULL;
    }
    plat_job *j = calloc(1, sizeof *j);
    if (!j) {
        SDL_OutOfMemory();
        return NULL;
    }
    j->thread = SDL_CreateThread(def->run, def->name, def->ctx);
    if (j->thread) return j;
    free(j);
    return NULL;
}

void plat_job_wait(plat_job *j) {
    if (!j) return;
    SDL_WaitThread(j->thread, NULL);
    free(j);
}

bool plat_jobs_advance(double budget_ms) {
    (void)budget_ms; // the threads run by themselves
    return false;
}
