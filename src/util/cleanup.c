/* cleanup.c — the registry of work in progress, emptied by a signal (see
 * cleanup.h). Listing a folder in a handler uses getdents64 directly:
 * opendir and readdir allocate and are not async-signal-safe. */
#define _GNU_SOURCE /* syscall() */
#include "cleanup.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#ifndef __EMSCRIPTEN__
#include <sys/syscall.h>
#endif
#include <unistd.h>

#define SLOTS 48 /* a staging folder, the folders an export made (at most 32), temporaries */

typedef struct {
    volatile sig_atomic_t used; /* set last, after path and kind */
    attn_clean_kind kind;
    char path[PATH_MAX];
} slot;

static slot slots[SLOTS];
static volatile sig_atomic_t holds, pending;

int attn_cleanup_add(const char *path, attn_clean_kind kind) {
    size_t n = strlen(path);
    if (n >= PATH_MAX) return -1;
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].used) continue;
        memcpy(slots[i].path, path, n + 1);
        slots[i].kind = kind;
        __atomic_signal_fence(__ATOMIC_SEQ_CST); // a handler sees the path before the flag
        slots[i].used = 1;
        return i;
    }
    return -1;
}

void attn_cleanup_forget(int i) {
    if (i >= 0 && i < SLOTS) slots[i].used = 0;
}

void attn_cleanup_hold(void) {
    holds++;
}

void attn_cleanup_release(void) {
    if (holds > 0 && --holds == 0 && pending) {
        int sig = pending;
        pending = 0;
        raise(sig);
    }
}

#ifdef __EMSCRIPTEN__
/* The browser build: Emscripten has no getdents64 system call, and nothing
 * needs one there: no signal ends the page, and its files live in memory
 * that goes with the page. */
static void empty_folder(const char *path) {
    (void)path;
}
#else
/* Unlinks every entry directly inside the folder at path (not folders within). */
static void empty_folder(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096] __attribute__((aligned(8)));
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name
            unsigned short reclen;
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char *name = buf + off + 19;
            if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) unlinkat(fd, name, 0);
            off += reclen;
        }
    }
    close(fd);
}
#endif

bool attn_cleanup_signal(int sig) {
    if (holds > 0) {
        pending = sig;
        return false;
    }
    static const attn_clean_kind order[] = {ATTN_CLEAN_FILE, ATTN_CLEAN_FOLDER, ATTN_CLEAN_EMPTY_FOLDER};
    for (int k = 0; k < 3; k++)
        for (int i = SLOTS - 1; i >= 0; i--) {
            slot *s = &slots[i];
            if (!s->used || s->kind != order[k]) continue;
            if (s->kind == ATTN_CLEAN_FILE) unlink(s->path);
            else {
                if (s->kind == ATTN_CLEAN_FOLDER) empty_folder(s->path);
                rmdir(s->path);
            }
            s->used = 0;
        }
    return true;
}
