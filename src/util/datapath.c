/* datapath.c — the data roots (datapath.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "datapath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool attn_is_regular_file(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Appends path to the "; "-separated list tried (cap bytes). */
static void note_tried(char *tried, size_t cap, const char *path) {
    if (!tried || cap == 0) return;
    size_t used = strlen(tried);
    if (used + 1 < cap) snprintf(tried + used, cap - used, "%s%s", used ? "; " : "", path);
}

bool attn_data_find(const char *first_root, const char *rel, char *out, size_t cap, char *tried,
                    size_t tried_cap) {
    char exe[1024], path[2048];
    char roots[3][1100];
    int n = 0;
    if (tried && tried_cap) tried[0] = '\0';
    if (cap) out[0] = '\0';
    if (first_root) snprintf(roots[n++], sizeof roots[0], "%s", first_root);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(roots[n++], sizeof roots[0], "%s", exe);                  // the build tree
        snprintf(roots[n++], sizeof roots[0], "%s/../share/attnviz", exe); // an install
    }
    for (int i = 0; i < n; i++) {
        int w = snprintf(path, sizeof path, "%s/%s", roots[i], rel);
        if (w < 0 || (size_t)w >= sizeof path) continue; // too long to be a file
        if (i == 0 && cap) snprintf(out, cap, "%s", path);
        note_tried(tried, tried_cap, path);
        if (attn_is_regular_file(path)) return (size_t)snprintf(out, cap, "%s", path) < cap;
    }
    return false;
}

bool attn_canonical_path(const char *path, char *out, size_t cap) {
    char canon[PATH_MAX];
    if (!realpath(path, canon)) return false;
    return (size_t)snprintf(out, cap, "%s", canon) < cap;
}
