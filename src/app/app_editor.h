/* app_editor.h — a one-line UTF-8 text editor: the text, the cursor, a
 * selection (Ctrl+A), the input method's composition and the text from
 * before editing (Esc gives it back). It knows nothing of the app: the
 * caller feeds it keys and text (SDL in the window; another source in the
 * browser build) and decides what the edited text means. */
#ifndef APP_EDITOR_H
#define APP_EDITOR_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool active;           /* keys are text while true */
    size_t max_bytes;      /* the longest text it takes (set by begin) */
    char *text;            /* the text being edited (owned, NUL-terminated while active) */
    size_t len, cap;       /* bytes used / allocated in text */
    int cursor;            /* byte offset in text, on a code point boundary */
    int sel_anchor;        /* the other end of the selection (Ctrl+A), or -1 when nothing is selected */
    char composition[256]; /* the input method's pre-edit text, shown at the cursor, or "" */
    char *backup;          /* the text before editing, for Esc (owned), or NULL */
    char error[512];       /* why the text is not valid (the caller's word), or "" */
} app_editor;

/* Starts editing a copy of text (at most max_bytes long from then on), the
 * cursor at its end, with no error. Returns false (and changes nothing)
 * when already active or out of memory. */
bool app_editor_begin(app_editor *e, const char *text, size_t max_bytes);

/* Stops editing (Enter, Esc): no selection, no composition; the text stays
 * until the next begin. The error is the caller's to clear. */
void app_editor_end(app_editor *e);

/* What an insertion did. */
typedef enum {
    APP_EDITOR_SAME,    /* nothing: inactive, empty or invalid UTF-8 */
    APP_EDITOR_CHANGED, /* the text changed */
    APP_EDITOR_FULL     /* it would pass max_bytes: only the selection went */
} app_editor_result;

/* Typed or committed text at the cursor, replacing the selection; the
 * composition ends either way. */
app_editor_result app_editor_insert(app_editor *e, const char *utf8);

/* The input method's pre-edit text (cut between characters when long). */
void app_editor_compose(app_editor *e, const char *preedit);

/* Backspace / Delete: the selection, else the code point before / after the
 * cursor. Returns true when the text changed. */
bool app_editor_backspace(app_editor *e);
bool app_editor_delete(app_editor *e);

/* Moves the cursor by delta code points (INT_MIN / INT_MAX: Home / End),
 * dropping the selection. */
void app_editor_move(app_editor *e, int delta);

/* Ctrl+A: selects the whole text (typing replaces it, Backspace removes it). */
void app_editor_select_all(app_editor *e);

/* Hands over the text from before editing (the caller frees it), or NULL. */
char *app_editor_take_backup(app_editor *e);

/* Frees what e owns and zeroes it; NULL is a no-op. */
void app_editor_free(app_editor *e);

#endif
