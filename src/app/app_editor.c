/* app_editor.c — the one-line text editor: bytes, code points, selection. */
#include "app_editor.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* Room for extra more bytes (and the NUL); false when memory ran out. */
static bool reserve(app_editor *e, size_t extra) {
    if (e->len + extra + 1 <= e->cap) return true;
    size_t cap = e->cap ? e->cap : 256;
    while (cap < e->len + extra + 1) cap *= 2;
    char *p = realloc(e->text, cap);
    if (!p) return false;
    e->text = p;
    e->cap = cap;
    return true;
}

bool app_editor_begin(app_editor *e, const char *text, size_t max_bytes) {
    if (e->active) return false;
    size_t len = strlen(text);
    char *backup = strdup(text); // first: text may be this editor's own buffer
    e->len = 0;
    if (!backup || !reserve(e, len)) {
        free(backup);
        return false;
    }
    memcpy(e->text, backup, len + 1);
    e->len = len;
    e->max_bytes = max_bytes;
    e->cursor = (int)len;
    e->sel_anchor = -1;
    free(e->backup);
    e->backup = backup;
    e->composition[0] = '\0';
    e->error[0] = '\0';
    e->active = true;
    return true;
}

void app_editor_end(app_editor *e) {
    e->active = false;
    e->sel_anchor = -1;
    e->composition[0] = '\0';
}

/* Removes the bytes [from, to) and leaves the cursor at from. */
static void erase(app_editor *e, int from, int to) {
    memmove(e->text + from, e->text + to, e->len - (size_t)to + 1);
    e->len -= (size_t)(to - from);
    e->cursor = from;
}

/* Removes the selected text, if any; true when there was one. */
static bool erase_selection(app_editor *e) {
    if (e->sel_anchor < 0) return false;
    int a = e->sel_anchor < e->cursor ? e->sel_anchor : e->cursor;
    int b = e->sel_anchor < e->cursor ? e->cursor : e->sel_anchor;
    e->sel_anchor = -1;
    erase(e, a, b);
    return true;
}

void app_editor_select_all(app_editor *e) {
    if (!e->active) return;
    e->sel_anchor = 0;
    e->cursor = (int)e->len;
}

app_editor_result app_editor_insert(app_editor *e, const char *utf8) {
    size_t n = strlen(utf8);
    e->composition[0] = '\0';
    if (!e->active || n == 0 || utf8_find_invalid(utf8, n) != (size_t)-1) return APP_EDITOR_SAME;
    erase_selection(e); // typing over a selection replaces it
    if (e->len + n > e->max_bytes) return APP_EDITOR_FULL;
    if (!reserve(e, n)) return APP_EDITOR_SAME;
    memmove(e->text + e->cursor + n, e->text + e->cursor, e->len - (size_t)e->cursor + 1);
    memcpy(e->text + e->cursor, utf8, n);
    e->len += n;
    e->cursor += (int)n;
    return APP_EDITOR_CHANGED;
}

void app_editor_compose(app_editor *e, const char *preedit) {
    if (!e->active) return;
    snprintf(e->composition, sizeof e->composition, "%s", preedit);
    utf8_trim_partial(e->composition); // a long input-method pre-edit is cut between characters
}

/* Byte offset of the code point before / after offset i. */
static int prev_cp(const char *s, int i) {
    while (i > 0 && ((unsigned char)s[--i] & 0xC0) == 0x80) {}
    return i;
}

static int next_cp(const char *s, int len, int i) {
    if (i >= len) return len;
    i++;
    while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    return i;
}

bool app_editor_backspace(app_editor *e) {
    if (!e->active) return false;
    if (erase_selection(e)) return true;
    if (e->cursor <= 0) return false;
    erase(e, prev_cp(e->text, e->cursor), e->cursor);
    return true;
}

bool app_editor_delete(app_editor *e) {
    if (!e->active) return false;
    if (erase_selection(e)) return true; // the selection, either way
    int to = next_cp(e->text, (int)e->len, e->cursor);
    if (to <= e->cursor) return false;
    erase(e, e->cursor, to);
    return true;
}

void app_editor_move(app_editor *e, int delta) {
    if (!e->active) return;
    e->sel_anchor = -1;
    if (delta == INT_MIN) e->cursor = 0;
    else if (delta == INT_MAX) e->cursor = (int)e->len;
    for (; delta < 0 && delta != INT_MIN && e->cursor > 0; delta++) e->cursor = prev_cp(e->text, e->cursor);
    for (; delta > 0 && delta != INT_MAX; delta--) e->cursor = next_cp(e->text, (int)e->len, e->cursor);
}

char *app_editor_take_backup(app_editor *e) {
    char *b = e->backup;
    e->backup = NULL;
    return b;
}

void app_editor_free(app_editor *e) {
    if (!e) return;
    free(e->text);
    free(e->backup);
    memset(e, 0, sizeof *e);
}
