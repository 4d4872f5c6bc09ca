/* fileio.h — reading whole files, and the one writer of files. */
#ifndef ATTN_FILEIO_H
#define ATTN_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "attn_err.h"

/* Reads a whole file the user named (at most max_bytes) into a NUL-terminated
 * buffer the caller free()s; *len gets its length. path "-" reads standard
 * input; a pipe or a FIFO is read once, to its end. Errors (ATTN_ERR_IO):
 * missing, a folder, unreadable, larger than max_bytes. */
attn_status attn_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                           attn_err *err);

/* The same for a file attnviz finds by itself (its settings, a lesson it
 * reloads): only a regular file (or a symbolic link to one) is read. A FIFO,
 * device, socket or folder is refused without waiting on it: "NAME is not a
 * regular file (it is a named pipe)." */
attn_status attn_read_regular_file(const char *path, size_t max_bytes, char **out, size_t *len,
                                   attn_err *err);

/* ---- writing: the one writer of every file attnviz writes ---------------
 *
 * What happens depends on what the path is when it is opened:
 *  - "-", or the very file standard output or standard error already is
 *    (/dev/stdout, /dev/fd/2, the file or terminal the shell redirected to):
 *    that stream gets the bytes, in place;
 *  - a device (/dev/null, /dev/full), a FIFO or a socket: written in place;
 *  - a regular file or a path that does not exist yet: written to a
 *    temporary beside it, synced, and renamed over it once complete, so it
 *    holds either its old contents or all of the new ones, and a failure
 *    leaves nothing behind; a replaced file keeps its permissions;
 *  - a symbolic link is followed to what it points to, which the rules
 *    above then decide: the link stays, its target gets the bytes;
 *  - a folder is refused.
 * The temporary is registered with util/cleanup.h while it exists. Messages
 * read "Cannot write NAME: reason." where NAME is `shown` (how the caller's
 * user knows the file) or, when shown is NULL, the path. */

#include <stdio.h>

typedef struct {
    FILE *fp;      /* write here between open and close; NULL when not open */
    char *path;    /* where the bytes go: the path, its symbolic links followed (owned) */
    char *tmp;     /* the temporary beside it (owned), NULL when written in place */
    char *shown;   /* the name messages use (owned) */
    bool borrowed; /* fp is standard output or error: flushed, never closed */
    int cleanup;   /* the temporary's attn_cleanup slot, or -1 */
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

/* Creates a new, empty file (folder false) or folder named dir/stem + ext,
 * else dir/stem-2 + ext, dir/stem-3 + ext … (the first name that is free),
 * exclusively, so no other program or press gets the same name; out (cap
 * bytes) gets its path. The caller then writes the file (replacing the empty
 * one) or fills the folder, and removes it if that fails. */
attn_status attn_reserve_name(char *out, size_t cap, const char *dir, const char *stem, const char *ext,
                              bool folder, attn_err *err);

#endif
