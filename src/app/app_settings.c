/* app_settings.c — settings.json in the XDG config folder (see app_settings.h). */
#include "app_settings.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_paths.h"
#include "attn_json.h"
#include "fileio.h"
#include "platform.h"
#include "strbuf.h"
#include "utf8.h"

#define SETTINGS_MAX_BYTES (1u << 20)

static void read_fields(app_settings *s, const cJSON *root) {
    const cJSON *v;
    if (cJSON_IsString(v = cJSON_GetObjectItem(root, "theme")))
        for (int t = 0; t < VIZ_THEME_COUNT; t++)
            if (!strcmp(v->valuestring, viz_theme_name((viz_theme_id)t))) s->theme = (viz_theme_id)t;
    if (cJSON_IsString(v = cJSON_GetObjectItem(root, "lang"))) {
        s->lang = !strcmp(v->valuestring, "zh") ? VIZ_LANG_ZH : VIZ_LANG_EN;
        s->has_lang = true;
    }
    if (cJSON_IsNumber(v = cJSON_GetObjectItem(root, "zoom")) && v->valuedouble >= 0.5 && v->valuedouble <= 3)
        s->zoom = (float)v->valuedouble;
    if (cJSON_IsString(v = cJSON_GetObjectItem(root, "sentence"))) s->sentence = strdup(v->valuestring);
    if (cJSON_IsString(v = cJSON_GetObjectItem(root, "page"))) snprintf(s->page, sizeof s->page, "%s", v->valuestring);
}

/* Renames the unparsable file to the first free settings.json.bad-N, so the
 * hand edit with a typo is still there to fix. */
static void keep_bad(app_settings *s) {
    for (int n = 1; n < 1000; n++) {
        snprintf(s->kept, sizeof s->kept, "%s.bad-%d", s->path, n);
        struct stat sb;
        if (lstat(s->kept, &sb) == 0) continue;
        if (errno == ENOENT && rename(s->path, s->kept) == 0) {
            s->state = APP_SETTINGS_KEPT_BAD;
            return;
        }
        break;
    }
    s->kept[0] = '\0';
    s->state = APP_SETTINGS_BAD_STUCK; // saving would replace it: leave it, and say so
    s->can_save = false;
}

static void parse(app_settings *s, const char *text, size_t len) {
    size_t stop = 0;
    bool more;
    cJSON *root = attn_json_parse_one(text, len, &stop, &more);
    if (root && cJSON_IsObject(root)) {
        read_fields(s, root);
    } else {
        if (root) stop = utf8_bom_len(text, len); // JSON, but not an object: at its start
        attn_json_position(text, stop, &s->bad_line, &s->bad_col);
        keep_bad(s);
    }
    cJSON_Delete(root);
}

void app_settings_load(app_settings *s) {
    memset(s, 0, sizeof *s);
    s->zoom = 1.0f;
    char dir[900];
    if (!app_config_dir(dir, sizeof dir)) {
        s->state = APP_SETTINGS_NO_HOME;
        return;
    }
    snprintf(s->path, sizeof s->path, "%s/settings.json", dir);
    s->can_save = true;
    plat_settings_fetch(s->path); // the browser keeps it in the page's storage
    struct stat sb;
    if (stat(s->path, &sb) != 0) return; // none yet (or a link to nothing: saving makes its target)
    if (!S_ISREG(sb.st_mode)) {          // a FIFO would block the window in open(), for ever
        s->state = APP_SETTINGS_NOT_A_FILE;
        s->can_save = false;
        return;
    }
    char *text = NULL;
    size_t len = 0;
    attn_err err;
    if (attn_read_regular_file(s->path, SETTINGS_MAX_BYTES, &text, &len, &err) != ATTN_OK) {
        s->state = APP_SETTINGS_NOT_A_FILE; // swapped for something else meanwhile, or unreadable
        s->can_save = false;
        return;
    }
    parse(s, text, len);
    free(text);
}

void app_settings_apply(const app_settings *s, app_state *st) {
    st->look.theme = s->theme;
    if (s->has_lang) st->look.lang = s->lang;
    st->look.zoom = s->zoom > 0 ? s->zoom : 1.0f;
}

void app_settings_report(const app_settings *s, app_state *st) {
    switch (s->state) {
    case APP_SETTINGS_FINE: break;
    case APP_SETTINGS_KEPT_BAD:
        app_status(st, app_str(st, VIZ_S_STATUS_SETTINGS_BAD), s->path, s->bad_line, s->bad_col, s->kept);
        break;
    case APP_SETTINGS_BAD_STUCK:
        app_status(st, app_str(st, VIZ_S_STATUS_SETTINGS_STUCK), s->path, s->bad_line, s->bad_col);
        break;
    case APP_SETTINGS_NOT_A_FILE:
        app_status(st, app_str(st, VIZ_S_STATUS_SETTINGS_NOT_FILE), s->path);
        break;
    case APP_SETTINGS_NO_HOME:
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_NO_HOME));
        break;
    }
}

void app_settings_free(app_settings *s) {
    if (!s) return;
    free(s->sentence);
    memset(s, 0, sizeof *s);
}

int app_settings_save(const app_settings *s, const app_state *st) {
    char dir[900];
    if (!s->can_save || !app_config_dir(dir, sizeof dir) || app_mkdirs(dir) != 0) return -1;
    struct stat sb;
    if (stat(s->path, &sb) == 0 && !S_ISREG(sb.st_mode)) return -1; // became a FIFO since: never written in place
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "{\n  \"theme\": \"%s\",\n  \"lang\": \"%s\",\n  \"zoom\": ", viz_theme_name(st->look.theme),
                   st->look.lang == VIZ_LANG_ZH ? "zh" : "en");
    attn_sb_number(&b, st->look.zoom);
    attn_sb_puts(&b, ",\n  \"page\": ");
    attn_sb_json_string(&b, pg ? pg->id : "", pg ? strlen(pg->id) : 0);
    attn_sb_puts(&b, ",\n  \"sentence\": ");
    attn_sb_json_string(&b, st->src.sentence, strlen(st->src.sentence));
    attn_sb_puts(&b, "\n}\n");
    int rc = attn_sb_ok(&b) && attn_write_file(s->path, b.data, b.len, NULL, NULL) == ATTN_OK ? 0 : -1;
    if (rc == 0) plat_settings_keep(s->path);
    attn_sb_free(&b);
    return rc;
}
