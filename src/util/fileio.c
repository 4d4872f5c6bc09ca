/* fileio.c — whole-file reads, and writes that never replace what is not a
 * file (see fileio.h). */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "strbuf.h"

/* ---- reading ---- */

/* Reads fp to its end (name: for messages). */
static attn_status read_stream(FILE *fp, const char *name, size_t max_bytes, char **out, size_t *len,
                               attn_err *err) {
    attn_status st = ATTN_OK;
    attn_strbuf b;
    attn_sb_init(&b);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (b.len + got > max_bytes) {
            st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_TOO_LARGE, name, max_bytes);
            goto cleanup;
        }
        attn_sb_append(&b, chunk, got);
    }
    if (ferror(fp)) {
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_READ, name, errno);
        goto cleanup;
    }
    *len = b.len;
    *out = attn_sb_take(&b);
    if (!*out) st = attn_fail_id(err, ATTN_ERR_NOMEM, ATTN_MSG_FILE_READ_NOMEM, name);
cleanup:
    attn_sb_free(&b);
    return st;
}

static attn_status check_size(const char *path, const struct stat *sb, size_t max_bytes, attn_err *err) {
    if (S_ISREG(sb->st_mode) && (size_t)sb->st_size > max_bytes)
        return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_SIZE, path,
                            (long long)sb->st_size, max_bytes);
    return ATTN_OK;
}

attn_status attn_read_file(const char *path, size_t max_bytes, char **out, size_t *len, attn_err *err) {
    if (strcmp(path, "-") == 0) return read_stream(stdin, "standard input", max_bytes, out, len, err);
    struct stat sb;
    if (stat(path, &sb) != 0) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_OPEN, path, errno);
    if (S_ISDIR(sb.st_mode)) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_FOLDER, path);
    attn_status st = check_size(path, &sb, max_bytes, err);
    if (st != ATTN_OK) return st;
    FILE *fp = fopen(path, "rb");
    if (!fp) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_OPEN, path, errno);
    st = read_stream(fp, path, max_bytes, out, len, err);
    fclose(fp);
    return st;
}

/* "a named pipe", "a device", …: what a path that is not a regular file is. */
static attn_msg kind_of(mode_t m) {
    return S_ISDIR(m) ? ATTN_MSG_FILE_IS_FOLDER : S_ISFIFO(m)            ? ATTN_MSG_FILE_IS_FIFO
                                              : S_ISSOCK(m)              ? ATTN_MSG_FILE_IS_SOCKET
                                              : S_ISCHR(m) || S_ISBLK(m) ? ATTN_MSG_FILE_IS_DEVICE
                                                                         : ATTN_MSG_FILE_NOT_REGULAR;
}

attn_status attn_read_regular_file(const char *path, size_t max_bytes, char **out, size_t *len,
                                   attn_err *err) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_OPEN, path, errno);
    struct stat sb;
    attn_status st = ATTN_OK;
    if (fstat(fd, &sb) != 0) st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_OPEN, path, errno);
    else if (!S_ISREG(sb.st_mode))
        st = attn_fail_id(err, ATTN_ERR_IO, kind_of(sb.st_mode), path);
    else st = check_size(path, &sb, max_bytes, err);
    FILE *fp = st == ATTN_OK ? fdopen(fd, "rb") : NULL;
    if (st == ATTN_OK && !fp) st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_OPEN, path, errno);
    if (!fp) {
        close(fd);
        return st;
    }
    st = read_stream(fp, path, max_bytes, out, len, err);
    fclose(fp);
    return st;
}

/* ---- writing ---- */

static void out_free(attn_out *o) {
    attn_cleanup_forget(o->cleanup);
    free(o->path);
    free(o->tmp);
    free(o->shown);
    memset(o, 0, sizeof *o);
    o->cleanup = -1;
}

static attn_status out_fail(attn_out *o, int e, attn_err *err) {
    attn_status st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_WRITE, o->shown ? o->shown : o->path, e);
    attn_out_abort(o);
    return st;
}

static attn_status out_nomem(attn_out *o, const char *name, attn_err *err) {
    attn_status st = attn_fail_id(err, ATTN_ERR_NOMEM, ATTN_MSG_FILE_WRITE_NOMEM, name);
    out_free(o);
    return st;
}

/* Is sb the file descriptor fd's file (stdout or stderr as it is now)? */
static bool same_file(const struct stat *sb, int fd) {
    struct stat fs;
    return fstat(fd, &fs) == 0 && fs.st_dev == sb->st_dev && fs.st_ino == sb->st_ino;
}

/* path with its last component's symbolic links followed, as often as it
 * takes (a relative link counts from its own folder). malloc'd; NULL with
 * errno set (ELOOP for a cycle). A link to nothing gives the path it names. */
static char *follow_links(const char *path) {
    char *p = strdup(path);
    for (int hops = 0; p && hops < 40; hops++) {
        struct stat sb;
        if (lstat(p, &sb) != 0 || !S_ISLNK(sb.st_mode)) return p;
        char target[4096];
        ssize_t n = readlink(p, target, sizeof target - 1);
        if (n < 0) break;
        target[n] = '\0';
        const char *slash = strrchr(p, '/');
        size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (next) {
            memcpy(next, p, dir);
            memcpy(next + dir, target, (size_t)n + 1);
        }
        free(p);
        p = next;
    }
    int e = p ? ELOOP : ENOMEM;
    free(p);
    errno = e;
    return NULL;
}

/* A device, FIFO or socket: opened as it is, written in place. */
static attn_status open_in_place(attn_out *o, attn_err *err) {
    int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return out_fail(o, errno, err);
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        return out_fail(o, e, err);
    }
    return ATTN_OK;
}

/* A regular file or a new path: a temporary beside it (mode: the file's). */
static attn_status open_atomic(attn_out *o, mode_t mode, attn_err *err) {
    size_t n = strlen(o->path) + sizeof ".tmp-XXXXXX";
    if (!(o->tmp = malloc(n))) return out_nomem(o, o->shown, err);
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", o->path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL; // nothing was made
        return out_fail(o, errno, err);
    }
    o->cleanup = attn_cleanup_add(o->tmp, ATTN_CLEAN_FILE);
    fchmod(fd, mode); // mkstemp's 0600 would make every file private
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        return out_fail(o, e, err);
    }
    return ATTN_OK;
}

attn_status attn_out_open(attn_out *o, const char *path, const char *shown, attn_err *err) {
    memset(o, 0, sizeof *o);
    o->cleanup = -1;
    bool dash = strcmp(path, "-") == 0;
    o->shown = strdup(shown ? shown : dash ? "to standard output"
                                           : path);
    if (!o->shown) return out_nomem(o, shown ? shown : path, err);
    struct stat sb;
    bool exists = !dash && stat(path, &sb) == 0;
    if (!dash && !exists && errno != ENOENT) return out_fail(o, errno, err);
    if (dash || (exists && (same_file(&sb, STDOUT_FILENO) || same_file(&sb, STDERR_FILENO)))) {
        o->fp = !dash && !same_file(&sb, STDOUT_FILENO) ? stderr : stdout;
        o->borrowed = true;
        return (o->path = strdup(path)) ? ATTN_OK : out_nomem(o, o->shown, err);
    }
    if (exists && S_ISDIR(sb.st_mode)) return out_fail(o, EISDIR, err);
    o->path = exists && !S_ISREG(sb.st_mode) ? strdup(path) : follow_links(path);
    if (!o->path) return errno == ENOMEM ? out_nomem(o, o->shown, err) : out_fail(o, errno, err);
    if (exists && !S_ISREG(sb.st_mode)) return open_in_place(o, err);
    return open_atomic(o, exists ? sb.st_mode & 07777 : 0644, err);
}

attn_status attn_out_close(attn_out *o, attn_err *err) {
    if (!o->fp) return out_fail(o, EBADF, err);
    errno = 0;
    bool bad = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (o->borrowed) { // standard output stays open for whoever owns it
        o->fp = NULL;
        if (bad) return out_fail(o, e, err);
        out_free(o);
        return ATTN_OK;
    }
    if (!bad && o->tmp && fsync(fileno(o->fp)) != 0 && errno != EINVAL) bad = true, e = errno;
    if (fclose(o->fp) != 0 && !bad) bad = true, e = errno; // a full disk may only show here (NFS)
    o->fp = NULL;
    if (bad) return out_fail(o, e, err);
    if (o->tmp && rename(o->tmp, o->path) != 0) return out_fail(o, errno, err);
    out_free(o);
    return ATTN_OK;
}

void attn_out_abort(attn_out *o) {
    if (!o) return;
    if (o->fp && !o->borrowed) fclose(o->fp);
    if (o->tmp) unlink(o->tmp);
    out_free(o);
}

attn_status attn_write_file(const char *path, const void *data, size_t len, const char *shown, attn_err *err) {
    attn_out o;
    attn_status st = attn_out_open(&o, path, shown, err);
    if (st != ATTN_OK) return st;
    if (len && fwrite(data, 1, len, o.fp) != len) return out_fail(&o, errno, err);
    return attn_out_close(&o, err);
}

attn_status attn_reserve_name(char *out, size_t cap, const char *dir, const char *stem, const char *ext,
                              bool folder, attn_err *err) {
    for (int i = 1; i < 1000; i++) {
        char num[16] = "";
        if (i > 1) snprintf(num, sizeof num, "-%d", i);
        if ((size_t)snprintf(out, cap, "%s/%s%s%s", dir, stem, num, ext) >= cap)
            return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_PATH_LONG, dir);
        int fd = folder ? mkdir(out, 0755) : open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (!folder) close(fd);
            return ATTN_OK;
        }
        if (errno != EEXIST) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_WRITE, out, errno);
    }
    return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_FILE_NAMES_TAKEN, dir, stem,
                        ext);
}
