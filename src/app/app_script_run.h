/* app_script_run.h — running a --script against the real window: each
 * command becomes the SDL events a person would cause (handled by the same
 * code as real input), or an expectation checked against the app's state and
 * the pixels on screen. The window knows nothing of it: the runner is the
 * window loop's per-frame hook (app_runner_tick). */
#ifndef APP_SCRIPT_RUN_H
#define APP_SCRIPT_RUN_H

#include <SDL.h>
#include <stdbool.h>

#include "app_script.h"
#include "app_sdl.h"

typedef struct {
    app_script script;  /* the commands (owned) */
    const char *name;   /* the script's file, for messages (borrowed) */
    int pos;            /* the next command */
    Uint32 wait_until;  /* SDL_GetTicks() value a `wait` waits for */
    int await_pos;      /* 1 + the `await` being waited for, or 0 */
    Uint32 await_until; /* when it gives up */
    long rss_mark_kb;   /* resident memory at `expect rss_mark` */
    int exit_code;      /* 0, or 1 once a command or expectation failed */
} app_script_runner;

/* Takes over *script (moved: *script is emptied) to run it; name is borrowed. */
void app_runner_init(app_script_runner *r, app_script *script, const char *name);

/* Frees the commands. A zeroed runner is a no-op. */
void app_runner_free(app_script_runner *r);

/* An app_frame_hook (ctx: the runner): runs the commands due now, a batch per
 * frame. Returns false when the script has finished. */
bool app_runner_tick(void *runner, app_ui *u);

/* Checks `expect NAME VALUE` (app_expect.c). Returns true to go on; a failed
 * expectation is reported on standard error, sets the exit code to 1 and
 * still returns true, so a run reports every failure. */
bool app_expect(app_script_runner *r, app_ui *u, const app_script_cmd *c);

/* Whether `expect NAME VALUE` (or `await`) would pass now for a state value;
 * true also for a name it does not know (app_expect then says so). */
bool app_expect_holds(app_ui *u, const app_script_cmd *c);

/* Runs `save NAME PATH` (app_expect.c): writes the value expect NAME would
 * compare, or the clipboard's text, to PATH. */
bool app_save(app_script_runner *r, app_ui *u, const app_script_cmd *c);

/* Reports a failed command as "attnviz: FILE:LINE: message", sets the exit
 * code to 1 and asks the window to quit. Returns false. */
bool app_runner_fail(app_script_runner *r, app_ui *u, const app_script_cmd *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
