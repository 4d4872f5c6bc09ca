/* export_internal.h — shared by the files of src/export (not public). */
#ifndef ATTN_EXPORT_INTERNAL_H
#define ATTN_EXPORT_INTERNAL_H

#include <stdint.h>

#include "export.h"

/* ---- numbers and text (export.c) ---- */

/* Appends v rounded to 2 decimals with '.', trailing zeros dropped ("1.5",
 * "-0.25", "12"), whatever the locale. Non-finite values append "0". */
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

/* ---- files (export_fs.c) ---- */

/* A staged batch: a hidden folder inside dir and the names written there. */
typedef struct {
    char *dir;           /* the target folder (copy) */
    char *stage;         /* its staging folder, or NULL before export_stage_open */
    char **names;        /* file names written into stage, in order */
    int n, cap;
    char *made[32];      /* folders this batch created, outermost first */
    int n_made;
} ex_stage;

/* Creates dir (and parents) when missing and a staging folder inside it. */
attn_status ex_stage_open(ex_stage *s, const char *dir, attn_err *err);

/* Writes name (a plain file name) into the staging folder. */
attn_status ex_stage_write(ex_stage *s, const char *name, const char *data, size_t len, attn_err *err);

/* Saves surf as PNG name into the staging folder. */
attn_status ex_stage_png(ex_stage *s, const char *name, SDL_Surface *surf, attn_err *err);

/* Renames every staged file into dir and removes the staging folder. */
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
