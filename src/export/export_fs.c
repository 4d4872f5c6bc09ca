/* export_fs.c — a batch of files that lands whole or not at all: written into
 * a hidden staging folder inside the target, then renamed into place. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "fileio.h"

int export_test_fail_at_file;

static char *join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p) return NULL;
    memcpy(p, a, la);
    size_t k = la;
    if (k == 0 || p[k - 1] != '/') p[k++] = '/';
    memcpy(p + k, b, lb + 1);
    return p;
}

/* Creates one missing folder of the path, remembering it for the clean-up. */
static attn_status make_one(ex_stage *s, const char *prefix, const char *dir, attn_err *err) {
    struct stat sb;
    if (stat(prefix, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) return ATTN_OK;
        return attn_fail(err, ATTN_ERR_IO, "Cannot export to %s: %s is a file, not a folder.", dir, prefix);
    }
    if (errno != ENOENT) return attn_fail(err, ATTN_ERR_IO, "Cannot export to %s: %s: %s.", dir, prefix, strerror(errno));
    if (mkdir(prefix, 0755) != 0) {
        if (errno == EEXIST) return ATTN_OK; // made by someone else meanwhile
        return attn_fail(err, ATTN_ERR_IO, "Cannot create the folder %s: %s.", prefix, strerror(errno));
    }
    if (s->n_made < (int)(sizeof s->made / sizeof *s->made)) {
        s->made[s->n_made] = strdup(prefix);
        if (s->made[s->n_made]) s->n_made++;
    }
    return ATTN_OK;
}

/* mkdir -p, naming the first component that is a file rather than a folder. */
static attn_status make_dirs(ex_stage *s, const char *dir, attn_err *err) {
    char *p = strdup(dir);
    if (!p) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
    attn_status st = ATTN_OK;
    for (char *c = p + 1; st == ATTN_OK; c++) {
        if (*c != '/' && *c != '\0') continue;
        char keep = *c;
        *c = '\0';
        st = make_one(s, p, dir, err);
        *c = keep;
        if (keep == '\0') break;
    }
    free(p);
    return st;
}

attn_status ex_stage_open(ex_stage *s, const char *dir, attn_err *err) {
    memset(s, 0, sizeof *s);
    if (!dir || !*dir) return attn_fail(err, ATTN_ERR_RANGE, "Say which folder to export to (--export-dir DIR).");
    s->dir = strdup(dir);
    if (!s->dir) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
    attn_status st = make_dirs(s, dir, err);
    if (st != ATTN_OK) return st;
    s->stage = join(dir, ".attnviz-staging-XXXXXX");
    if (!s->stage) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
    if (!mkdtemp(s->stage)) {
        free(s->stage);
        s->stage = NULL;
        return attn_fail(err, ATTN_ERR_IO, "Cannot write in the folder %s: %s.", dir, strerror(errno));
    }
    return ATTN_OK;
}

/* Records a file written into the stage; a second file of the same name
 * (two items with one number and id) would silently replace the first. */
static attn_status remember(ex_stage *s, const char *name, attn_err *err) {
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return attn_fail(err, ATTN_ERR_RANGE, "Two files of this export would both be named %s; give each page "
                             "its own number or id.", name);
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        char **p = realloc(s->names, (size_t)cap * sizeof *p);
        if (!p) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
        s->names = p;
        s->cap = cap;
    }
    if (!(s->names[s->n] = strdup(name))) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
    s->n++;
    return ATTN_OK;
}

/* The test hook: leaves half a file behind, as a full disk would, and fails. */
static bool hook_fires(const char *path, const char *data, size_t len) {
    if (export_test_fail_at_file <= 0 || --export_test_fail_at_file > 0) return false;
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(data, 1, len / 2, fp);
        fclose(fp);
    }
    errno = ENOSPC;
    return true;
}

/* "NAME in DIR": how messages name a staged file (the staging folder is ours, not the user's). */
static char *shown_name(const ex_stage *s, const char *name) {
    size_t n = strlen(name) + strlen(s->dir) + sizeof " in ";
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s in %s", name, s->dir);
    return p;
}

/* Writes name into the staging folder through the one file writer, data
 * (len bytes) or, when surf is not NULL, surf as PNG. */
static attn_status stage_file(ex_stage *s, const char *name, const char *data, size_t len, SDL_Surface *surf,
                              attn_err *err) {
    char *path = join(s->stage, name), *shown = shown_name(s, name);
    attn_status st = ATTN_OK;
    if (!path || !shown) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
    else if (hook_fires(path, surf ? "\x89PNG\r\n\x1a\n" : data, surf ? 8 : len))
        st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", shown, strerror(errno));
    else if (surf) st = viz_save_png(surf, path, shown, err);
    else st = attn_write_file(path, data, len, shown, err);
    if (st == ATTN_OK) st = remember(s, name, err);
    free(path);
    free(shown);
    return st;
}

attn_status ex_stage_write(ex_stage *s, const char *name, const char *data, size_t len, attn_err *err) {
    return stage_file(s, name, data, len, NULL, err);
}

attn_status ex_stage_png(ex_stage *s, const char *name, SDL_Surface *surf, attn_err *err) {
    return stage_file(s, name, NULL, 0, surf, err);
}

/* Every target must be replaceable before the first rename, so a folder in
 * the way cannot leave the batch half in place. */
static attn_status check_targets(ex_stage *s, attn_err *err) {
    struct stat sb;
    for (int i = 0; i < s->n; i++) {
        char *to = join(s->dir, s->names[i]);
        if (!to) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
        bool dir = lstat(to, &sb) == 0 && S_ISDIR(sb.st_mode);
        free(to);
        if (dir)
            return attn_fail(err, ATTN_ERR_IO, "Cannot export to %s: %s there is a folder; move it away first.",
                             s->dir, s->names[i]);
    }
    return ATTN_OK;
}

attn_status ex_stage_commit(ex_stage *s, attn_err *err) {
    attn_status st = check_targets(s, err);
    for (int i = 0; st == ATTN_OK && i < s->n; i++) {
        char *from = join(s->stage, s->names[i]), *to = join(s->dir, s->names[i]);
        if (!from || !to) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export.");
        else if (rename(from, to) != 0)
            st = attn_fail(err, ATTN_ERR_IO, "Cannot move %s into %s: %s.", s->names[i], s->dir, strerror(errno));
        free(from);
        free(to);
    }
    if (st != ATTN_OK) return st;
    rmdir(s->stage);
    free(s->stage);
    s->stage = NULL;
    int fd = open(s->dir, O_RDONLY);
    if (fd >= 0) { // the renames survive a crash once the folder is synced
        fsync(fd);
        close(fd);
    }
    for (int i = 0; i < s->n_made; i++) free(s->made[i]);
    s->n_made = 0; // they hold the batch now
    return ATTN_OK;
}

static void remove_stage(const char *stage) {
    DIR *d = opendir(stage);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = join(stage, e->d_name);
            if (p) unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(stage);
}

void ex_stage_abort(ex_stage *s) {
    if (!s) return;
    if (s->stage) remove_stage(s->stage);
    for (int i = s->n_made - 1; i >= 0; i--) { // innermost first; only empty ones go
        rmdir(s->made[i]);
        free(s->made[i]);
    }
    for (int i = 0; i < s->n; i++) free(s->names[i]);
    free(s->names);
    free(s->stage);
    free(s->dir);
    memset(s, 0, sizeof *s);
}
