/* app_strings.h — the UI string table (assets/ui_strings.tsv) in both languages. */
#ifndef APP_STRINGS_H
#define APP_STRINGS_H

#include "attn_err.h"
#include "viz_scene.h"

typedef enum { APP_LANG_EN, APP_LANG_ZH, APP_LANG_COUNT } app_lang;

typedef struct {
    char *text_;                                  /* owned file contents, split in place */
    const char *s[APP_LANG_COUNT][VIZ_STR_COUNT]; /* pointers into text_ */
} app_strings;

/* Parses the TSV (key, English, Chinese; '#' comments; "\n" escapes). Every
 * id of viz_strings.def must be present in both languages; an unknown key or
 * a missing one is an error naming it and its line. On success *out owns its
 * copy of the text (free with app_strings_free). */
attn_status app_strings_parse(app_strings *out, const char *text, size_t len, const char *name, attn_err *err);

/* Reads and parses the file at path. */
attn_status app_strings_load(app_strings *out, const char *path, attn_err *err);

void app_strings_free(app_strings *t); /* NULL is a no-op */

#endif
