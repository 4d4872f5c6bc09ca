/* export_internal.h — shared by the files of src/export (not public). */
#ifndef ATTN_EXPORT_INTERNAL_H
#define ATTN_EXPORT_INTERNAL_H

#include <stdint.h>

#include "export.h"
#include "sha256.h"

#define EX_MANIFEST ".attnviz-export.json"     /* in DIR: what exports wrote there */
#define EX_STAGING_PREFIX ".attnviz-staging-" /* + PID-XXXXXX: a batch being written */

/* ---- numbers and text (export.c) ---- */

/* Appends v rounded to 2 decimals with '.', trailing zeros dropped ("1.5",
 * "-0.25", "12"), whatever the locale; from 1e15 on its shortest exact form
 * ("1e+16"). Non-finite values append "0". */
void ex_num(attn_strbuf *b, double v);

/* "png,svg": the --format list of the EXPORT_* bits in formats. */
void ex_format_list(attn_strbuf *b, unsigned formats);

/* "d_model=8 d_k=4 heads=2 seed=1 mask=none scale=on pos-enc=off bias=off". */
void ex_config_text(attn_strbuf *b, const attn_config *c);

/* The UI string id in lang (never NULL). */
const char *ex_str(const viz_strings *ui, viz_lang lang, viz_str id);

/* Cuts s back to whole UTF-8 characters (after a truncating snprintf). */
void ex_utf8_trim(char *s);

/* The weights badge for t in lang (as the GUI words it). */
void ex_badge(char *out, size_t cap, const export_opts *o, const viz_strings *ui, const attn_trace *t);

/* ---- the manifest (export_manifest.c) ---- */

typedef struct {
    char *name;                   /* a plain file name in DIR (owned) */
    char sha256[ATTN_SHA256_HEX]; /* its hash when an export wrote it */
} ex_file;

typedef struct {
    ex_file *v;
    int n, cap;
} ex_files;

/* Reads DIR's manifest into m (empty when DIR has none). A manifest that is
 * not a regular file or not ours to read is an error naming it. */
attn_status ex_manifest_read(ex_files *m, const char *dir, attn_err *err);
const ex_file *ex_files_find(const ex_files *m, const char *name); /* NULL: not listed */
bool ex_files_add(ex_files *m, const char *name, const char *sha256); /* false: out of memory */
void ex_files_free(ex_files *m);                                  /* NULL is a no-op */
char *ex_manifest_json(const ex_files *m);                        /* caller frees; NULL: no memory */

/* The hex SHA-256 of the file at path, read in pieces. */
attn_status ex_sha256_file(const char *path, char hex[ATTN_SHA256_HEX], attn_err *err);

/* ---- files (export_fs.c) ---- */

/* "a/b": a and b joined by one '/' (malloc'd; NULL when out of memory). */
char *ex_join(const char *a, const char *b);

/* A staged batch: a hidden folder inside dir and the names written there. */
typedef struct {
    char *dir;           /* the target folder (copy) */
    char *stage;         /* its staging folder, or NULL before export_stage_open */
    int stage_slot;      /* the staging folder's util/cleanup.h slot */
    char **names;        /* file names written into stage, in order */
    char (*shas)[ATTN_SHA256_HEX]; /* their hashes, for the manifest */
    int n, cap;
    ex_files ours;       /* DIR's manifest as it was: the files this batch may replace */
    char *made[32];      /* folders this batch created, outermost first */
    int made_slot[32];   /* their clean-up slots */
    int n_made;
} ex_stage;

/* Creates dir (and parents) when missing, reads its manifest, removes the
 * staging folders killed exports left there, and makes a staging folder of
 * its own, registered for clean-up on a signal. */
attn_status ex_stage_open(ex_stage *s, const char *dir, attn_err *err);

/* Writes name (a plain file name) into the staging folder; refused when DIR
 * already has a name that the manifest does not list unchanged. */
attn_status ex_stage_write(ex_stage *s, const char *name, const char *data, size_t len, attn_err *err);

/* Saves surf as PNG name into the staging folder. */
attn_status ex_stage_png(ex_stage *s, const char *name, SDL_Surface *surf, attn_err *err);

/* Checks every target again, then renames every staged file into dir, the
 * manifest last (signals wait meanwhile), and removes the staging folder. */
attn_status ex_stage_commit(ex_stage *s, attn_err *err);

/* Removes the staging folder with everything in it, and the folders the
 * batch created; frees s. Safe after commit and on a zeroed s. */
void ex_stage_abort(ex_stage *s);

/* ---- documents (export_md.c) ---- */

/* Appends s as a Markdown code span (backtick fence longer than any run in s). */
void ex_md_code(attn_strbuf *b, const char *s);

/* Appends a fenced code block in language lang ("sh") holding s verbatim. */
void ex_md_block(attn_strbuf *b, const char *lang, const char *s);

/* One page of the handout: "## number · title", sentence and configuration,
 * text, figure link (image may be NULL). */
void ex_md_page(attn_strbuf *b, const export_item *it, int number, const char *title, const char *text,
                const char *image);

#endif
