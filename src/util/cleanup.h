/* cleanup.h — what an interrupted run must not leave behind.
 *
 * Files and folders that exist only while work is under way (the temporary
 * beside a file being written, an export's staging folder and the folders it
 * made) are registered here while they exist. When SIGINT, SIGTERM or SIGHUP
 * arrives, the handler main.c installs calls attn_cleanup_signal, which
 * removes them, and then lets the signal end the process. Everything the
 * handler runs is async-signal-safe: fixed tables, no allocation, no stdio.
 * Registering is for one thread (the one that writes files). */
#ifndef ATTN_CLEANUP_H
#define ATTN_CLEANUP_H

#include <stdbool.h>

typedef enum {
    ATTN_CLEAN_FILE,        /* unlink the file */
    ATTN_CLEAN_FOLDER,      /* unlink the files directly inside, then remove the folder */
    ATTN_CLEAN_EMPTY_FOLDER /* remove the folder if it is empty (one a batch created) */
} attn_clean_kind;

/* Registers path (copied). Returns its slot for attn_cleanup_forget, or -1
 * when the path is too long or the table is full (the work goes on; only a
 * signal would then leave the path behind). */
int attn_cleanup_add(const char *path, attn_clean_kind kind);

/* Drops a registration (the path is gone or kept for good). -1 is a no-op. */
void attn_cleanup_forget(int slot);

/* Between hold and release a signal waits, so that a step that must not be
 * cut in half (renaming a batch into place) finishes; release raises it
 * again. Holds nest. */
void attn_cleanup_hold(void);
void attn_cleanup_release(void);

/* For a signal handler. While held: remembers sig and returns false (return
 * from the handler; release raises it again). Otherwise removes everything
 * registered — files first, then folders, newest first — and returns true:
 * the handler then restores the default action and raises sig. */
bool attn_cleanup_signal(int sig);

#endif
