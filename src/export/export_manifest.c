/* export_manifest.c — DIR/.attnviz-export.json: the files attnviz exports
 * wrote into DIR, each with the SHA-256 it had then. An export replaces a
 * file only when it is listed there with the hash it still has: anything
 * else in DIR (a site's own index.md, a figure someone edited) is not ours. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attn_json.h"
#include "export.h"
#include "export_internal.h"
#include "fileio.h"
#include "sha256.h"

#define MANIFEST_MAX_BYTES (16u << 20)

void ex_files_free(ex_files *m) {
    if (!m) return;
    for (int i = 0; i < m->n; i++) free(m->v[i].name);
    free(m->v);
    memset(m, 0, sizeof *m);
}

const ex_file *ex_files_find(const ex_files *m, const char *name) {
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->v[i].name, name) == 0) return &m->v[i];
    return NULL;
}

bool ex_files_add(ex_files *m, const char *name, const char *sha256) {
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 32;
        ex_file *v = realloc(m->v, (size_t)cap * sizeof *v);
        if (!v) return false;
        m->v = v;
        m->cap = cap;
    }
    ex_file *f = &m->v[m->n];
    if (!(f->name = strdup(name))) return false;
    snprintf(f->sha256, sizeof f->sha256, "%s", sha256);
    m->n++;
    return true;
}

/* A plain file name: no folder, nothing hidden we own, no way out of DIR. */
static bool plain_name(const char *s) {
    return *s && *s != '.' && !strchr(s, '/');
}

static bool hex64(const char *s) {
    if (strlen(s) != 64) return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return false;
    return true;
}

/* The entries of a parsed manifest; false when its shape is not ours. */
static bool read_entries(ex_files *m, const cJSON *root) {
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files"), *f;
    if (!cJSON_IsArray(files)) return false;
    cJSON_ArrayForEach(f, files) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "name");
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(f, "sha256");
        if (!cJSON_IsString(name) || !cJSON_IsString(sha) || !plain_name(name->valuestring) ||
            !hex64(sha->valuestring) || !ex_files_add(m, name->valuestring, sha->valuestring))
            return false;
    }
    return true;
}

attn_status ex_manifest_read(ex_files *m, const char *dir, attn_err *err) {
    memset(m, 0, sizeof *m);
    char *path = ex_join(dir, EX_MANIFEST), *text = NULL;
    if (!path) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
    struct stat sb;
    if (lstat(path, &sb) != 0 && errno == ENOENT) { // no export has written here yet
        free(path);
        return ATTN_OK;
    }
    size_t len = 0;
    attn_err why;
    attn_status st = attn_read_regular_file(path, MANIFEST_MAX_BYTES, &text, &len, &why);
    free(path);
    size_t stop;
    bool more;
    cJSON *root = st == ATTN_OK ? attn_json_parse_one(text, len, &stop, &more) : NULL;
    free(text);
    if (st == ATTN_OK && (!root || !read_entries(m, root))) {
        ex_files_free(m);
        st = attn_fail(err, ATTN_ERR_IO, "Cannot export to %s: its %s is not a list of exported files attnviz "
                                         "can read; move it away (and the files it listed) or choose another folder.",
                       dir, EX_MANIFEST);
    } else if (st != ATTN_OK) {
        st = attn_fail(err, ATTN_ERR_IO, "Cannot export to %s: %s", dir, why.msg);
    }
    cJSON_Delete(root);
    return st;
}

char *ex_manifest_json(const ex_files *m) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "{\n  \"attnviz\": \"%s\",\n  \"about\": \"the files attnviz exports wrote here, with their "
                       "SHA-256; an export replaces only these, and only while they are unchanged\",\n  \"files\": [",
                   ATTN_VERSION);
    for (int i = 0; i < m->n; i++) {
        attn_sb_puts(&b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        attn_sb_json_string(&b, m->v[i].name, strlen(m->v[i].name));
        attn_sb_printf(&b, ", \"sha256\": \"%s\"}", m->v[i].sha256);
    }
    attn_sb_puts(&b, m->n ? "\n  ]\n}\n" : "]\n}\n");
    return attn_sb_take(&b);
}

attn_status ex_sha256_file(const char *path, char hex[ATTN_SHA256_HEX], attn_err *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return attn_fail(err, ATTN_ERR_IO, "Cannot read %s: %s.", path, strerror(errno));
    attn_sha256 s;
    attn_sha256_init(&s);
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) attn_sha256_update(&s, buf, got);
    bool bad = ferror(fp);
    int e = errno;
    fclose(fp);
    if (bad) return attn_fail(err, ATTN_ERR_IO, "Cannot read %s: %s.", path, strerror(e));
    attn_sha256_final_hex(&s, hex);
    return ATTN_OK;
}
