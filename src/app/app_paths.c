/* app_paths.c — data, pictures and config folders. */
#include "app_paths.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datapath.h"
#include "fileio.h"
#include "platform.h"

bool app_find_data(const char *rel, char *out, size_t cap) {
    char dir[1024];
    // the platform's program folder first: the browser's data bundle is mounted at the root,
    // where the rule's own look beside the executable finds nothing
    bool have = plat_program_dir(dir, sizeof dir);
    return attn_data_find(have ? dir : NULL, rel, out, cap, NULL, 0); // the one data-path rule (datapath.h)
}

/* An absolute path from the environment, or NULL: the XDG rule is that a
 * relative one is ignored (it would name a different folder in every
 * working directory). */
static const char *absolute_env(const char *name) {
    const char *v = getenv(name);
    return v && v[0] == '/' ? v : NULL;
}

bool app_home(char *out, size_t cap) {
    const char *h = absolute_env("HOME");
    struct passwd pw, *found = NULL;
    char buf[4096]; // holds the entry h may point into
    if (!h) {       // HOME unset (a service, `env -i`): the password database knows the user's home
        if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_dir &&
            found->pw_dir[0] == '/')
            h = found->pw_dir;
    }
    if (!h) return false; // never a shared folder such as /tmp instead
    return (size_t)snprintf(out, cap, "%s", h) < cap;
}

bool app_config_dir(char *out, size_t cap) {
    const char *cfg = absolute_env("XDG_CONFIG_HOME");
    if (cfg) return (size_t)snprintf(out, cap, "%s/attnviz", cfg) < cap;
    char home[1024];
    return app_home(home, sizeof home) && (size_t)snprintf(out, cap, "%s/.config/attnviz", home) < cap;
}

/* Reads XDG_PICTURES_DIR="$HOME/..." (or an absolute path) from user-dirs.dirs. */
static bool from_user_dirs(char *out, size_t cap) {
    char path[1100], line[1024], home[1024];
    const char *cfg = absolute_env("XDG_CONFIG_HOME");
    bool has_home = app_home(home, sizeof home);
    if (cfg) snprintf(path, sizeof path, "%s/user-dirs.dirs", cfg);
    else if (has_home) snprintf(path, sizeof path, "%s/.config/user-dirs.dirs", home);
    else return false;
    char *text = NULL;
    size_t len = 0;
    if (attn_read_regular_file(path, 1u << 16, &text, &len, NULL) != ATTN_OK) return false;
    bool found = false;
    for (char *l = text, *next; !found && l && *l; l = next) {
        next = strchr(l, '\n');
        if (next) *next++ = '\0';
        snprintf(line, sizeof line, "%s", l);
        if (strncmp(line, "XDG_PICTURES_DIR=\"", 18) != 0) continue;
        char *v = line + 18, *end = strchr(v, '"');
        if (!end) continue;
        *end = '\0';
        if (strncmp(v, "$HOME/", 6) == 0 && has_home) found = (size_t)snprintf(out, cap, "%s%s", home, v + 5) < cap;
        else if (v[0] == '/') found = (size_t)snprintf(out, cap, "%s", v) < cap;
    }
    free(text);
    return found;
}

bool app_pictures_dir(char *out, size_t cap) {
    const char *env = absolute_env("XDG_PICTURES_DIR");
    if (env) return (size_t)snprintf(out, cap, "%s", env) < cap;
    if (from_user_dirs(out, cap)) return true;
    char home[1024];
    return app_home(home, sizeof home) && (size_t)snprintf(out, cap, "%s/Pictures", home) < cap;
}

bool app_data_dir(char *out, size_t cap) {
    const char *data = absolute_env("XDG_DATA_HOME");
    if (data) return (size_t)snprintf(out, cap, "%s/attnviz", data) < cap;
    char home[1024];
    return app_home(home, sizeof home) && (size_t)snprintf(out, cap, "%s/.local/share/attnviz", home) < cap;
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
