/* export_fs.c — a batch of files that lands whole or not at all: written into
 * a hidden staging folder inside the target, then renamed into place. Only
 * files the manifest (export_manifest.c) says an export wrote, unchanged, are
 * replaced; a signal removes the staging folder (util/cleanup.h), and a
 * staging folder a killed export left is removed by the next one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "export.h"
#include "export_internal.h"
#include "fileio.h"

int export_test_fail_at_file;

static attn_status nomem(attn_err *err) {
    return attn_fail_id(err, ATTN_ERR_NOMEM, ATTN_MSG_EX_NOMEM);
}

/* Creates one missing folder of the path, remembering it for the clean-up. */
static attn_status make_one(ex_stage *s, const char *prefix, const char *dir, attn_err *err) {
    struct stat sb;
    if (stat(prefix, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) return ATTN_OK;
        return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_FILE_NOT_FOLDER, dir, prefix);
    }
    if (errno != ENOENT) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_PREFIX, dir, prefix, errno);
    if (mkdir(prefix, 0755) != 0) {
        if (errno == EEXIST) return ATTN_OK; // made by someone else meanwhile
        return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_MKDIR, prefix, errno);
    }
    if (s->n_made < (int)(sizeof s->made / sizeof *s->made)) {
        s->made[s->n_made] = strdup(prefix);
        if (s->made[s->n_made]) {
            s->made_slot[s->n_made] = attn_cleanup_add(prefix, ATTN_CLEAN_EMPTY_FOLDER);
            s->n_made++;
        }
    }
    return ATTN_OK;
}

/* mkdir -p, naming the first component that is a file rather than a folder. */
static attn_status make_dirs(ex_stage *s, const char *dir, attn_err *err) {
    char *p = strdup(dir);
    if (!p) return nomem(err);
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

/* Unlinks what is directly inside a staging folder, then the folder. */
static void remove_stage(const char *stage) {
    DIR *d = opendir(stage);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = ex_join(stage, e->d_name);
            if (p) unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(stage);
}

/* A staging folder of attnviz's own naming whose export no longer runs:
 * ".attnviz-staging-PID-XXXXXX" of a process that is gone, or the older
 * ".attnviz-staging-XXXXXX", which named no process. */
static bool stale_stage(const char *name) {
    size_t k = strlen(EX_STAGING_PREFIX);
    if (strncmp(name, EX_STAGING_PREFIX, k) != 0) return false;
    const char *rest = name + k;
    if (strlen(rest) == 6 && !strchr(rest, '-')) return true;
    char *end;
    long pid = strtol(rest, &end, 10);
    if (end == rest || *end != '-' || strlen(end + 1) != 6 || pid <= 0) return false;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the staging folders killed exports left in dir (best effort). */
static void remove_stale_stages(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!stale_stage(e->d_name)) continue;
        char *p = ex_join(dir, e->d_name);
        struct stat sb;
        if (p && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_stage(p);
        free(p);
    }
    closedir(d);
}

/* Takes DIR's lock file: flock on a file of its own (the manifest is replaced
 * by rename, so it cannot hold a lock). The holder removes the file before
 * letting go, so a waiter that got the lock on a file no longer there opens
 * the new one and waits again; nothing is left in DIR afterwards. */
static attn_status take_lock(ex_stage *s, attn_err *err) {
    if (!(s->lock = ex_join(s->dir, EX_LOCK))) return nomem(err);
    for (;;) {
        int fd = open(s->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            // a folder nobody may write in is the folder's problem; anything else (a link or a
            // folder in the lock's place) is the lock file's, so it is named
            bool folder = errno == EROFS || errno == EACCES || errno == EPERM;
            attn_status st = folder ? attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_FOLDER_WRITE, s->dir, errno)
                                    : attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_FOLDER_LOCK, s->dir, EX_LOCK, errno);
            free(s->lock);
            s->lock = NULL;
            return st;
        }
        int rc;
        while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {}
        struct stat held, now;
        if (rc == 0 && fstat(fd, &held) == 0 && lstat(s->lock, &now) == 0 && held.st_ino == now.st_ino &&
            held.st_dev == now.st_dev) {
            s->lock_fd = fd;
            s->lock_slot = attn_cleanup_add(s->lock, ATTN_CLEAN_FILE); // a signal leaves no lock file either
            return ATTN_OK;
        }
        close(fd); // the export before removed it meanwhile: take the next one
    }
}

/* Lets the next export in: removes the lock file, then closes it. */
static void drop_lock(ex_stage *s) {
    if (!s->lock) return;
    unlink(s->lock);
    attn_cleanup_forget(s->lock_slot);
    close(s->lock_fd);
    free(s->lock);
    s->lock = NULL;
}

attn_status ex_stage_open(ex_stage *s, const char *dir, attn_err *err) {
    memset(s, 0, sizeof *s);
    s->stage_slot = -1;
    if (!dir || !*dir) return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_EX_NO_DIR);
    s->dir = strdup(dir);
    if (!s->dir) return nomem(err);
    attn_status st = make_dirs(s, dir, err);
    if (st == ATTN_OK) st = take_lock(s, err); // before the manifest: the export before us may be writing it
    if (st == ATTN_OK) st = ex_manifest_read(&s->ours, dir, err);
    if (st != ATTN_OK) return st;
    remove_stale_stages(dir);
    char name[64];
    snprintf(name, sizeof name, "%s%ld-XXXXXX", EX_STAGING_PREFIX, (long)getpid());
    if (!(s->stage = ex_join(dir, name))) return nomem(err);
    if (!mkdtemp(s->stage)) {
        free(s->stage);
        s->stage = NULL;
        return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_FOLDER_WRITE, dir, errno);
    }
    s->stage_slot = attn_cleanup_add(s->stage, ATTN_CLEAN_FOLDER);
    return ATTN_OK;
}

/* May the export put a file called name into DIR? Yes when DIR has none, or
 * when the one there is a regular file the manifest lists with the hash it
 * still has. */
static attn_status check_target(const ex_stage *s, const char *name, attn_err *err) {
    char *to = ex_join(s->dir, name);
    if (!to) return nomem(err);
    struct stat sb;
    attn_status st = ATTN_OK;
    const ex_file *known = ex_files_find(&s->ours, name);
    char hex[ATTN_SHA256_HEX];
    if (lstat(to, &sb) != 0 && errno == ENOENT) st = ATTN_OK;
    else if (S_ISDIR(sb.st_mode))
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_FOLDER_THERE, s->dir, name);
    else if (!S_ISREG(sb.st_mode) || !known)
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_NOT_OURS, s->dir, name, EX_MANIFEST);
    else if ((st = ex_sha256_file(to, hex, err)) == ATTN_OK && strcmp(hex, known->sha256) != 0)
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_CHANGED, s->dir, name,
                          EX_MANIFEST);
    free(to);
    return st;
}

/* Records a file written into the stage with its hash; a second file of the
 * same name (two items with one number and id) would replace the first. */
static attn_status remember(ex_stage *s, const char *name, const char *sha256, attn_err *err) {
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_EX_SAME_NAME, name);
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        char **p = realloc(s->names, (size_t)cap * sizeof *p);
        if (p) s->names = p;
        char(*h)[ATTN_SHA256_HEX] = realloc(s->shas, (size_t)cap * sizeof *h);
        if (h) s->shas = h;
        if (!p || !h) return nomem(err);
        s->cap = cap;
    }
    if (!(s->names[s->n] = strdup(name))) return nomem(err);
    memcpy(s->shas[s->n], sha256, ATTN_SHA256_HEX);
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
 * (len bytes) or, when surf is not NULL, surf as PNG, and its hash into hex. */
static attn_status write_staged(ex_stage *s, const char *name, const char *data, size_t len, SDL_Surface *surf,
                                char hex[ATTN_SHA256_HEX], attn_err *err) {
    char *path = ex_join(s->stage, name), *shown = shown_name(s, name);
    attn_status st = ATTN_OK;
    if (!path || !shown) st = nomem(err);
    else if (hook_fires(path, surf ? "\x89PNG\r\n\x1a\n" : data, surf ? 8 : len))
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_WRITE, shown, errno);
    else if (surf) st = viz_save_png(surf, path, shown, err);
    else st = attn_write_file(path, data, len, shown, err);
    if (st == ATTN_OK && surf) st = ex_sha256_file(path, hex, err);
    else if (st == ATTN_OK) attn_sha256_hex(data, len, hex);
    free(path);
    free(shown);
    return st;
}

static attn_status stage_file(ex_stage *s, const char *name, const char *data, size_t len, SDL_Surface *surf,
                              attn_err *err) {
    char hex[ATTN_SHA256_HEX];
    attn_status st = check_target(s, name, err); // stop before drawing the rest
    if (st == ATTN_OK) st = write_staged(s, name, data, len, surf, hex, err);
    return st == ATTN_OK ? remember(s, name, hex, err) : st;
}

attn_status ex_stage_write(ex_stage *s, const char *name, const char *data, size_t len, attn_err *err) {
    return stage_file(s, name, data, len, NULL, err);
}

attn_status ex_stage_png(ex_stage *s, const char *name, SDL_Surface *surf, attn_err *err) {
    return stage_file(s, name, NULL, 0, surf, err);
}

/* The manifest after this batch: its files, and the earlier entries whose
 * files are still there (they may be replaced by a later export). */
static attn_status stage_manifest(ex_stage *s, attn_err *err) {
    ex_files next = {0};
    bool ok = true;
    for (int i = 0; ok && i < s->n; i++) ok = ex_files_add(&next, s->names[i], s->shas[i]);
    for (int i = 0; ok && i < s->ours.n; i++) {
        const ex_file *f = &s->ours.v[i];
        char *p = ex_join(s->dir, f->name);
        struct stat sb;
        ok = p != NULL;
        if (ok && !ex_files_find(&next, f->name) && lstat(p, &sb) == 0) ok = ex_files_add(&next, f->name, f->sha256);
        free(p);
    }
    char *json = ok ? ex_manifest_json(&next) : NULL, hex[ATTN_SHA256_HEX];
    attn_status st = json ? write_staged(s, EX_MANIFEST, json, strlen(json), NULL, hex, err) : nomem(err);
    free(json);
    ex_files_free(&next);
    return st;
}

static attn_status move_in(const ex_stage *s, const char *name, attn_err *err) {
    char *from = ex_join(s->stage, name), *to = ex_join(s->dir, name);
    attn_status st = ATTN_OK;
    if (!from || !to) st = nomem(err);
    else if (rename(from, to) != 0)
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_EX_MOVE, name, s->dir, errno);
    free(from);
    free(to);
    return st;
}

attn_status ex_stage_commit(ex_stage *s, attn_err *err) {
    attn_status st = stage_manifest(s, err);
    // every target again, before the first rename: nothing lands unless all may
    for (int i = 0; st == ATTN_OK && i < s->n; i++) st = check_target(s, s->names[i], err);
    if (st != ATTN_OK) return st;
    attn_cleanup_hold(); // a signal now waits: half a batch would not match the manifest
    for (int i = 0; st == ATTN_OK && i < s->n; i++) st = move_in(s, s->names[i], err);
    if (st == ATTN_OK) st = move_in(s, EX_MANIFEST, err); // last: it lists what is now there
    if (st == ATTN_OK) {
        rmdir(s->stage);
        attn_cleanup_forget(s->stage_slot);
        s->stage_slot = -1;
        free(s->stage);
        s->stage = NULL;
        for (int i = 0; i < s->n_made; i++) { // they hold the batch now
            attn_cleanup_forget(s->made_slot[i]);
            free(s->made[i]);
        }
        s->n_made = 0;
    }
    attn_cleanup_release();
    if (st != ATTN_OK) return st;
    int fd = open(s->dir, O_RDONLY);
    if (fd >= 0) { // the renames survive a crash once the folder is synced
        fsync(fd);
        close(fd);
    }
    return ATTN_OK;
}

void ex_stage_abort(ex_stage *s) {
    if (!s) return;
    if (s->stage) { // its clean-up slot is valid while it exists
        remove_stage(s->stage);
        attn_cleanup_forget(s->stage_slot);
    }
    drop_lock(s);
    for (int i = s->n_made - 1; i >= 0; i--) { // innermost first; only empty ones go
        rmdir(s->made[i]);
        attn_cleanup_forget(s->made_slot[i]);
        free(s->made[i]);
    }
    for (int i = 0; i < s->n; i++) free(s->names[i]);
    free(s->names);
    free(s->shas);
    free(s->stage);
    free(s->dir);
    ex_files_free(&s->ours);
    memset(s, 0, sizeof *s);
    s->stage_slot = -1;
}
