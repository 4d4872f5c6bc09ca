/* datapath.h — the one rule for where attnviz's own data lives (the UI
 * strings, the icon, the shipped lessons and models).
 *
 * A data root is a folder holding assets/ and lessons/. The roots, in the
 * order they are tried: the one a caller names (a lesson's own tree: the
 * lesson in ROOT/lessons/LANG/), the folder of the executable (the build
 * tree copies the data beside the binary) and ../share/attnviz beside it
 * (an install). */
#ifndef ATTN_DATAPATH_H
#define ATTN_DATAPATH_H

#include <stdbool.h>
#include <stddef.h>

/* Finds rel (e.g. "assets/models/sort.json") under the data roots: first
 * under first_root when it is not NULL, then beside the executable, then in
 * ../share/attnviz. Only a regular file counts (never a FIFO to wait on).
 * Writes the first path that is one into out and returns true; otherwise
 * returns false with out holding the first path tried. tried (may be NULL)
 * gets every path tried, "; "-separated, cut to tried_cap bytes. */
bool attn_data_find(const char *first_root, const char *rel, char *out, size_t cap, char *tried,
                    size_t tried_cap);

/* Whether path names a regular file (or a symbolic link to one). */
bool attn_is_regular_file(const char *path);

/* The absolute path of an existing file with no symbolic link, "." or ".."
 * in it, into out: one file has one such path however it is spelled. false
 * when it cannot be resolved (or does not fit). */
bool attn_canonical_path(const char *path, char *out, size_t cap);

#endif
