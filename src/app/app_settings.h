/* app_settings.h — what persists between runs: theme, language, UI zoom, the
 * lesson page and the last sentence, in $XDG_CONFIG_HOME/attnviz/settings.json. */
#ifndef APP_SETTINGS_H
#define APP_SETTINGS_H

#include <stdbool.h>

#include "app.h"

typedef struct {
    viz_theme_id theme;  /* saved theme (light when none) */
    viz_lang lang;       /* saved language */
    bool has_lang;       /* a language was saved (else the system locale decides) */
    float zoom;          /* saved UI zoom (1 when none) */
    char *sentence;      /* last sentence (owned), or NULL */
    char page[64];       /* last lesson page id, or "" */
} app_settings;

/* Reads the saved settings; a missing or damaged file gives the defaults. */
void app_settings_load(app_settings *s);

/* Copies theme, language and zoom into st. */
void app_settings_apply(const app_settings *s, app_state *st);

void app_settings_free(app_settings *s); /* NULL is a no-op */

/* Saves st's settings (atomically). Returns 0 or -1. */
int app_settings_save(const app_state *st);

#endif
