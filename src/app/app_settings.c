/* app_settings.c — settings.json in the XDG config folder. */
#include "app_settings.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_paths.h"
#include "fileio.h"
#include "strbuf.h"

static void settings_path(char *out, size_t cap) {
    char dir[900];
    app_config_dir(dir, sizeof dir);
    snprintf(out, cap, "%s/settings.json", dir);
}

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

void app_settings_load(app_settings *s) {
    memset(s, 0, sizeof *s);
    s->zoom = 1.0f;
    char path[1024], *text = NULL;
    size_t len;
    settings_path(path, sizeof path);
    if (attn_read_file(path, 1u << 20, &text, &len, NULL) != ATTN_OK) return;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!root) return; // a damaged file is ignored, not fatal
    read_fields(s, root);
    cJSON_Delete(root);
}

void app_settings_apply(const app_settings *s, app_state *st) {
    st->theme = s->theme;
    if (s->has_lang) st->lang = s->lang;
    st->zoom = s->zoom > 0 ? s->zoom : 1.0f;
}

void app_settings_free(app_settings *s) {
    if (!s) return;
    free(s->sentence);
    memset(s, 0, sizeof *s);
}

int app_settings_save(const app_state *st) {
    char dir[900], path[1024];
    app_config_dir(dir, sizeof dir);
    if (app_mkdirs(dir) != 0) return -1;
    settings_path(path, sizeof path);
    const lesson *l = app_lesson(st);
    const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "{\n  \"theme\": \"%s\",\n  \"lang\": \"%s\",\n  \"zoom\": ", viz_theme_name(st->theme),
                   st->lang == VIZ_LANG_ZH ? "zh" : "en");
    attn_sb_number(&b, st->zoom);
    attn_sb_puts(&b, ",\n  \"page\": ");
    attn_sb_json_string(&b, pg ? pg->id : "", pg ? strlen(pg->id) : 0);
    attn_sb_puts(&b, ",\n  \"sentence\": ");
    attn_sb_json_string(&b, st->sentence, strlen(st->sentence));
    attn_sb_puts(&b, "\n}\n");
    int rc = attn_sb_ok(&b) && attn_write_file(path, b.data, b.len, NULL, NULL) == ATTN_OK ? 0 : -1;
    attn_sb_free(&b);
    return rc;
}
