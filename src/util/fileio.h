/* fileio.h — reading whole files, and the one writer of files. */
#ifndef ATTN_FILEIO_H
#define ATTN_FILEIO_H

#include <stddef.h>

#include "attn_err.h"

/* Reads a whole file (at most max_bytes) into a NUL-terminated buffer the
 * caller free()s; *len gets its length. path "-" reads standard input. Errors
 * (ATTN_ERR_IO): missing, a folder, unreadable, larger than max_bytes. */
attn_status attn_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                           attn_err *err);

/* ---- writing: the one writer of every file attnviz writes ---------------
 *
 * A file is written to a temporary beside its target and renamed into place
 * once it is complete and synced, so the target holds either its old contents
 * or all of the new ones, and a failure leaves nothing behind. "-" is
 * standard output, written in place. Messages read "Cannot write NAME:
 * reason." where NAME is `shown` (how the caller's user knows the file) or,
 * when shown is NULL, the path. */

#include <stdio.h>

typedef struct {
    FILE *fp;    /* write here between open and close; NULL when not open */
    char *path;  /* the target (owned) */
    char *tmp;   /* the temporary beside it (owned), NULL when written in place */
    char *shown; /* the name messages use (owned) */
} attn_out;

/* Opens path for writing (see above). On success o->fp takes the bytes; on
 * error o is left closed. */
attn_status attn_out_open(attn_out *o, const char *path, const char *shown, attn_err *err);

/* Flushes, syncs and closes the file, then renames it into place. Returns
 * ATTN_OK, or ATTN_ERR_IO with the reason (any write to o->fp that failed
 * shows here); the target is then untouched and the temporary removed. o is
 * closed either way. */
attn_status attn_out_close(attn_out *o, attn_err *err);

/* Abandons the file: closes it and removes the temporary. A closed or
 * zeroed o is a no-op. */
void attn_out_abort(attn_out *o);

/* Writes len bytes of data to path in one go (open, write, close). */
attn_status attn_write_file(const char *path, const void *data, size_t len, const char *shown, attn_err *err);

#endif
