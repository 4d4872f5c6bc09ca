/* app_settings.h — what persists between runs: theme, language, UI zoom and
 * the last sentence, in $XDG_CONFIG_HOME/attnviz/settings.json. */
#ifndef APP_SETTINGS_H
#define APP_SETTINGS_H

#include "app.h"

/* Applies saved settings to st (missing or unreadable file: nothing changes).
 * The saved sentence is returned (caller frees) or NULL. */
char *app_settings_load(app_state *st);

/* Saves st's settings (atomically). Returns 0 or -1. */
int app_settings_save(const app_state *st);

#endif
