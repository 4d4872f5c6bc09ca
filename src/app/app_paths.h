/* app_paths.h — where attnviz finds its data and keeps its files. */
#ifndef APP_PATHS_H
#define APP_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Finds rel (e.g. "assets/ui_strings.tsv") beside the executable (the build
 * tree) or in ../share/attnviz (an install). Writes the path into out and
 * returns true when it is there as a regular file. */
bool app_find_data(const char *rel, char *out, size_t cap);

/* The user's home folder: $HOME when it is an absolute path, else the
 * password database's entry for the user. false when there is none (never a
 * stand-in such as /tmp, where anyone could plant files). */
bool app_home(char *out, size_t cap);

/* The XDG pictures folder ($XDG_PICTURES_DIR, user-dirs.dirs, ~/Pictures).
 * false when none can be named (no home and nothing set). */
bool app_pictures_dir(char *out, size_t cap);

/* $XDG_CONFIG_HOME/attnviz, or ~/.config/attnviz; a relative XDG_CONFIG_HOME
 * is ignored, as the XDG rule says. false when there is no home. */
bool app_config_dir(char *out, size_t cap);

/* $XDG_DATA_HOME/attnviz, or ~/.local/share/attnviz: what attnviz makes to
 * keep, e.g. the models saved from the training view (models/ inside it); a
 * relative XDG_DATA_HOME is ignored. false when there is no home. */
bool app_data_dir(char *out, size_t cap);

/* Creates dir and its parents (like mkdir -p). Returns 0 or -1 (errno set). */
int app_mkdirs(const char *dir);

#endif
