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

attn_status attn_write_file_atomic(const char *path, const char *data, size_t len, attn_err *err) {
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return attn_fail(err, ATTN_ERR_IO, "Cannot write to standard output: %s.", strerror(errno));
        return ATTN_OK;
    }
    // write beside the target, then rename: readers see the old file or the new
    // one, never a half-written one, and a failure leaves the old file intact
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to write %s.", path);
    snprintf(tmp, plen + 16, "%s.tmp-XXXXXX", path);
    attn_status st = ATTN_OK;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", path, strerror(errno));
        free(tmp);
        return st;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", path, w < 0 ? strerror(errno) : "no space");
            goto cleanup;
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0 && errno != EINVAL) {
        st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", path, strerror(errno));
        goto cleanup;
    }
    fchmod(fd, 0644);
    if (close(fd) != 0) {
        fd = -1;
        st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", path, strerror(errno));
        goto cleanup;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", path, strerror(errno));
cleanup:
    if (fd >= 0) close(fd);
    if (st != ATTN_OK) unlink(tmp);
    free(tmp);
    return st;
}
