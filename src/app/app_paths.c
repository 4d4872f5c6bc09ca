/* app_paths.c — data, pictures and config folders. */
#include "app_paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0;
}

bool app_find_data(const char *rel, char *out, size_t cap) {
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    // the build tree keeps data beside the binary; an install in ../share/attnviz
    snprintf(out, cap, "%s/%s", exe, rel);
    if (exists(out)) return true;
    snprintf(out, cap, "%s/../share/attnviz/%s", exe, rel);
    return exists(out);
}

static const char *home(void) {
    const char *h = getenv("HOME");
    return h && *h ? h : "/tmp";
}

/* Reads XDG_PICTURES_DIR="$HOME/..." from user-dirs.dirs. */
static bool from_user_dirs(char *out, size_t cap) {
    char path[1024], line[1024];
    const char *cfg = getenv("XDG_CONFIG_HOME");
    if (cfg && *cfg) snprintf(path, sizeof path, "%s/user-dirs.dirs", cfg);
    else snprintf(path, sizeof path, "%s/.config/user-dirs.dirs", home());
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *v = strstr(line, "XDG_PICTURES_DIR=\"");
        if (v != line) continue;
        v += strlen("XDG_PICTURES_DIR=\"");
        char *end = strchr(v, '"');
        if (!end) continue;
        *end = '\0';
        if (strncmp(v, "$HOME", 5) == 0) snprintf(out, cap, "%s%s", home(), v + 5);
        else snprintf(out, cap, "%s", v);
        found = true;
    }
    fclose(f);
    return found;
}

void app_pictures_dir(char *out, size_t cap) {
    const char *env = getenv("XDG_PICTURES_DIR");
    if (env && *env) snprintf(out, cap, "%s", env);
    else if (!from_user_dirs(out, cap)) snprintf(out, cap, "%s/Pictures", home());
}

void app_config_dir(char *out, size_t cap) {
    const char *cfg = getenv("XDG_CONFIG_HOME");
    if (cfg && *cfg) snprintf(out, cap, "%s/attnviz", cfg);
    else snprintf(out, cap, "%s/.config/attnviz", home());
}

void app_data_dir(char *out, size_t cap) {
    const char *data = getenv("XDG_DATA_HOME");
    if (data && *data) snprintf(out, cap, "%s/attnviz", data);
    else snprintf(out, cap, "%s/.local/share/attnviz", home());
}

int app_mkdirs(const char *dir) {
    char p[1024];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}
