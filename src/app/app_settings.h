/* app_settings.h — what persists between runs: theme, language, UI zoom, the
 * lesson page and the last sentence, in $XDG_CONFIG_HOME/attnviz/settings.json.
 *
 * The file is attnviz's, so it is never lost silently: one that cannot be
 * parsed is kept aside as settings.json.bad-N (the status line says so), one
 * that is not a regular file (a FIFO) is neither read nor written, and with
 * no home folder nothing is saved (the status line says that too). A
 * settings.json that is a symbolic link (a dotfile manager's) is read and
 * saved through the link. */
#ifndef APP_SETTINGS_H
#define APP_SETTINGS_H

#include <stdbool.h>

#include "app.h"

typedef enum {
    APP_SETTINGS_FINE,       /* read, or missing (the defaults) */
    APP_SETTINGS_KEPT_BAD,   /* unparsable: renamed to `kept`; defaults used */
    APP_SETTINGS_BAD_STUCK,  /* unparsable and could not be renamed: left alone, not saved */
    APP_SETTINGS_NOT_A_FILE, /* not a regular file: not read, not saved */
    APP_SETTINGS_NO_HOME     /* no home folder: nothing to read, not saved */
} app_settings_state;

typedef struct {
    viz_theme_id theme; /* saved theme (light when none) */
    viz_lang lang;      /* saved language */
    bool has_lang;      /* a language was saved (else the system locale decides) */
    float zoom;         /* saved UI zoom (1 when none) */
    char *sentence;     /* last sentence (owned), or NULL */
    char page[64];      /* last lesson page id, or "" */
    app_settings_state state;
    bool can_save;         /* false: the file is not ours to write (see state) */
    char path[1024];       /* the settings file, or "" with no home */
    char kept[1040];       /* KEPT_BAD: where the unparsable file now is */
    int bad_line, bad_col; /* KEPT_BAD, BAD_STUCK: where parsing stopped */
} app_settings;

/* Reads the saved settings; a missing or damaged file gives the defaults
 * (a damaged one is first renamed to settings.json.bad-N). */
void app_settings_load(app_settings *s);

/* Copies theme, language and zoom into st. */
void app_settings_apply(const app_settings *s, app_state *st);

/* Puts on st's status line what the user must know about the file (a kept
 * bad file, settings that will not be saved), in st's language. Nothing when
 * all is fine. */
void app_settings_report(const app_settings *s, app_state *st);

void app_settings_free(app_settings *s); /* NULL is a no-op */

/* Saves st's settings (atomically; through a symbolic link) when s allows
 * it. Returns 0, or -1 when not saved. */
int app_settings_save(const app_settings *s, const app_state *st);

#endif
