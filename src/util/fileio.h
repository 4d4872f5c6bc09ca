/* fileio.h — reading whole files and writing them atomically. */
#ifndef ATTN_FILEIO_H
#define ATTN_FILEIO_H

#include <stddef.h>

#include "attn_err.h"

/* Reads a whole file (at most max_bytes) into a NUL-terminated buffer the
 * caller free()s; *len gets its length. path "-" reads standard input. Errors
 * (ATTN_ERR_IO): missing, a folder, unreadable, larger than max_bytes. */
attn_status attn_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                           attn_err *err);

/* Writes len bytes to path through a temporary file in the same folder and a
 * rename, so path holds either its old contents or all of data. "-" writes to
 * standard output. On error nothing is left behind. */
attn_status attn_write_file_atomic(const char *path, const char *data, size_t len, attn_err *err);

#endif
