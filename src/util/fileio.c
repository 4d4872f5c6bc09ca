/* fileio.c — whole-file reads and atomic writes. */
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

attn_status attn_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                           attn_err *err) {
    bool is_stdin = strcmp(path, "-") == 0;
    struct stat sb;
    if (!is_stdin) {
        if (stat(path, &sb) != 0)
            return attn_fail(err, ATTN_ERR_IO, "Cannot open %s: %s.", path, strerror(errno));
        if (S_ISDIR(sb.st_mode))
            return attn_fail(err, ATTN_ERR_IO, "%s is a folder, not a file.", path);
        if (S_ISREG(sb.st_mode) && (size_t)sb.st_size > max_bytes)
            return attn_fail(err, ATTN_ERR_IO, "%s is %lld bytes; attnviz reads at most %zu.",
                             path, (long long)sb.st_size, max_bytes);
    }
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp) return attn_fail(err, ATTN_ERR_IO, "Cannot open %s: %s.", path, strerror(errno));
    attn_status st = ATTN_OK;
    attn_strbuf b;
    attn_sb_init(&b);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (b.len + got > max_bytes) {
            st = attn_fail(err, ATTN_ERR_IO, "%s is larger than the %zu bytes attnviz reads.",
                           is_stdin ? "standard input" : path, max_bytes);
            goto cleanup;
        }
        attn_sb_append(&b, chunk, got);
    }
    if (ferror(fp)) {
        st = attn_fail(err, ATTN_ERR_IO, "Cannot read %s: %s.", path, strerror(errno));
        goto cleanup;
    }
    *len = b.len;
    *out = attn_sb_take(&b);
    if (!*out) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to read %s.", path);
cleanup:
    if (!is_stdin) fclose(fp);
    attn_sb_free(&b);
    return st;
}

static void out_free(attn_out *o) {
    free(o->path);
    free(o->tmp);
    free(o->shown);
    memset(o, 0, sizeof *o);
}

static attn_status out_fail(attn_out *o, int e, attn_err *err) {
    attn_status st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", o->shown ? o->shown : o->path,
                               e ? strerror(e) : "a write failed");
    attn_out_abort(o);
    return st;
}

attn_status attn_out_open(attn_out *o, const char *path, const char *shown, attn_err *err) {
    memset(o, 0, sizeof *o);
    bool std_out = strcmp(path, "-") == 0;
    o->path = strdup(path);
    o->shown = strdup(shown ? shown : std_out ? "to standard output" : path);
    if (!o->path || !o->shown) {
        out_free(o);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to write %s.", shown ? shown : path);
    }
    if (std_out) {
        o->fp = stdout;
        return ATTN_OK;
    }
    // write beside the target, then rename: readers see the old file or the new
    // one, never a half-written one, and a failure leaves the old file intact
    size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
    o->tmp = malloc(n);
    if (!o->tmp) {
        out_free(o);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to write %s.", shown ? shown : path);
    }
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL; // nothing was made
        return out_fail(o, errno, err);
    }
    fchmod(fd, 0644); // mkstemp's 0600 would make every file private
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        return out_fail(o, e, err);
    }
    return ATTN_OK;
}

attn_status attn_out_close(attn_out *o, attn_err *err) {
    if (!o->fp) return out_fail(o, EBADF, err);
    errno = 0;
    bool bad = fflush(o->fp) != 0 || ferror(o->fp);
    if (o->fp == stdout) { // standard output stays open for whoever owns it
        int e = errno;
        o->fp = NULL;
        return bad ? out_fail(o, e, err) : (out_free(o), ATTN_OK);
    }
    if (!bad && fsync(fileno(o->fp)) != 0 && errno != EINVAL) bad = true;
    int e = errno;
    if (fclose(o->fp) != 0 && !bad) bad = true, e = errno; // a full disk may only show here (NFS)
    o->fp = NULL;
    if (bad) return out_fail(o, e, err);
    if (rename(o->tmp, o->path) != 0) return out_fail(o, errno, err);
    out_free(o);
    return ATTN_OK;
}

void attn_out_abort(attn_out *o) {
    if (!o) return;
    if (o->fp && o->fp != stdout) fclose(o->fp);
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
