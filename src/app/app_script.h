/* app_script.h — parser for `attnviz --script FILE`, the input scripts that
 * drive the GUI in end-to-end tests and benchmarks. Pure C, no SDL: it only
 * turns text into a list of commands; running them happens elsewhere.
 *
 * FORMAT (one command per line, UTF-8)
 *   Leading and trailing spaces/tabs (and a CR before the newline) are ignored,
 *   blank lines and lines whose first non-space character is # are skipped, and
 *   a UTF-8 byte order mark at the start of the file is skipped. A last line
 *   without a newline is fine.
 *
 *   size W H                       window size, W 320..7680, H 240..4320
 *   type TEXT                      type TEXT (escapes \n \t \\)
 *   compose [TEXT]                 IME pre-edit; `compose` alone clears it
 *   commit TEXT                    IME commits TEXT (escapes as for type)
 *   key CHORD                      e.g. Right, F11, ?, ctrl+shift+c, ctrl+=, ctrl++
 *   click X Y | hover X Y          window pixel, X, Y >= 0
 *   click token N | hover token N  token N, counting from 0
 *   click step N                   rail step N, 1..8
 *   click cell STAGE HEAD ROW COL  also hover; STAGE as model_stage_from_name (a model's stages too)
 *   click control NAME [N]         also hover; the control NAME (a rail control as
 *                                  heads or mask, try N: a lesson page's @try
 *                                  suggestion N, or one of the training view's:
 *                                  train_start, train_layers …, viz_train.h) and the
 *                                  part of it N: -1 its ‹, 1 its ›, 0 (the default)
 *                                  its value or button; for train_snapshot the
 *                                  snapshot's index
 *   wheel DY [X Y]                 DY may be negative; X, Y >= 0
 *   wait MS                        0..60000
 *   shot PATH                      PATH is the rest of the line, taken as is
 *   save NAME PATH                 write what `expect NAME` would compare (a state value), or
 *                                  with NAME clipboard the clipboard's text (what Ctrl+C
 *                                  copied), to PATH, for a test to compare with a headless run
 *   drop PATH                      a file dropped on the window (PATH the rest of the line)
 *   expect NAME VALUE              NAME is [a-z_]+ (< 32 bytes), VALUE the rest
 *                                  of the line, taken as is, not empty
 *   await NAME VALUE               waits until expect NAME VALUE would pass (the
 *                                  training view's train_state done, say), at
 *                                  most APP_SCRIPT_AWAIT_MS, then fails as expect does
 *   quit
 *
 *   TEXT, PATH and VALUE are "the rest of the line after one space", so they
 *   may hold inner spaces; trailing spaces are trimmed with the line, so type a
 *   trailing space with `key Space`.
 *
 * ERRORS
 *   Every error is ATTN_ERR_PARSE with a message "FILE:LINE: message": unknown
 *   command, missing or extra arguments, non-integers, out-of-range numbers,
 *   unknown stage or modifier, bad escape, invalid UTF-8, a NUL byte, a line
 *   longer than APP_SCRIPT_MAX_LINE bytes. Parsing stops at the first error.
 *
 * OWNERSHIP
 *   app_script_parse fills *out only on success; the caller then owns it and
 *   releases it with app_script_free (which frees every cmd's text and the
 *   array). On failure *out is set to {NULL, 0} and nothing needs freeing.
 *   The input text is only read, never kept; it need not be NUL-terminated. */
#ifndef APP_SCRIPT_H
#define APP_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "attn_err.h"

/* Longest line accepted, in bytes, not counting the newline. */
#define APP_SCRIPT_MAX_LINE 65536

/* The longest an await waits, in milliseconds. */
#define APP_SCRIPT_AWAIT_MS 300000

/* KEY modifiers. */
#define APP_MOD_CTRL 1u
#define APP_MOD_SHIFT 2u
#define APP_MOD_ALT 4u

typedef enum {
    APP_SC_SIZE,
    APP_SC_TYPE,
    APP_SC_COMPOSE,
    APP_SC_COMMIT,
    APP_SC_KEY,
    APP_SC_CLICK,
    APP_SC_HOVER,
    APP_SC_WHEEL,
    APP_SC_WAIT,
    APP_SC_SHOT,
    APP_SC_EXPECT,
    APP_SC_QUIT,
    APP_SC_SAVE,
    APP_SC_DROP,
    APP_SC_AWAIT
} app_script_kind;

typedef enum { APP_SC_AT_XY,
               APP_SC_AT_TOKEN,
               APP_SC_AT_STEP,
               APP_SC_AT_CELL,
               APP_SC_AT_CONTROL } app_script_target;

typedef struct {
    app_script_kind kind;
    int line;                 /* 1-based source line */
    app_script_target target; /* CLICK/HOVER: what the numbers mean (APP_SC_AT_XY otherwise) */
    int v[4];                 /* numbers: size w,h; xy; token; step; cell stage,head,row,col;
                                 control N; wheel dy,x,y (x,y -1 if absent); wait ms; unused are 0 */
    bool has_xy;              /* WHEEL: x,y given */
    unsigned mods;            /* KEY: APP_MOD_CTRL|APP_MOD_SHIFT|APP_MOD_ALT */
    char *text;               /* TYPE/COMPOSE/COMMIT text (escapes decoded), KEY name,
                                 SHOT path, EXPECT value, the control's NAME; owned; never NULL ("" when none) */
    char name[32];            /* EXPECT, AWAIT and SAVE name; "" otherwise */
} app_script_cmd;

typedef struct {
    app_script_cmd *cmds; /* owned; NULL when count is 0 */
    int count;
} app_script;

/* Parses text (len bytes) read from filename (used only in messages; NULL
 * reads as "script"). See the format and ownership notes above. */
attn_status app_script_parse(app_script *out, const char *text, size_t len, const char *filename,
                             attn_err *err);

/* Frees everything s owns and resets it to {NULL, 0}. NULL is a no-op. */
void app_script_free(app_script *s);

/* The command word as scripts spell it ("click"). Never NULL. */
const char *app_script_kind_name(app_script_kind k);

#endif
