/* export.h — figures and data for course notes: PNG, SVG, CSV, LaTeX, a
 * Markdown handout and interactive HTML pages, written as one batch that
 * lands whole or not at all.
 *
 * A job is a list of export_item: one (trace, step, page title, page text)
 * per figure. A plain sentence is the eight steps of one trace
 * (export_items_for_trace); a lesson is one item per page, each with its own
 * trace and step. Both go through export_run.
 *
 * Ownership (stb-style):
 *  - export_opts and export_item only BORROW: traces, strings, fonts and the
 *    text they point to must outlive the call; nothing is kept afterwards.
 *  - Every char * returned by a building block below is malloc'd, owned by
 *    the caller (free()), NUL-terminated, or NULL when memory ran out.
 *  - fonts is an open viz_fonts* (the caller initialises SDL, SDL_ttf and
 *    SDL_image and opens them; headless, SDL_Init(0) is enough: no display
 *    is used); it may be NULL only when formats has neither PNG nor SVG.
 * Errors are attn_status + attn_err with a learner-readable message that
 * names the folder or file at fault. Nothing here prints or exits.
 *
 * Files in DIR (NN: the item's number, two digits at least):
 *   NN-<id>.png / .svg      the figure (id: the step's slug, or a page id)
 *   NN-<id>-<M>[-headH].csv one per matrix M of the step (every head)
 *   NN-<id>.tex             a standalone LaTeX document (xelatex + ctex)
 *   NN-<id>-<M>[-headH].tex one per matrix M, to \input in math mode (export_tex_snippet)
 *   handout.md              md: every page's title, text and figure
 *   NN-<id>.html            html: the page, its figure interactive (export_html.c)
 *   handout.html            html: every page in order
 *   index.md                always: each file with the command that makes it
 *                           again, sentence, configuration, seed, SHA-256 of
 *                           the weights / lesson file as it was read (never
 *                           read again: a pipe is read once), the version.
 * Step slugs: embeddings, qkv, scores, scale, mask, softmax, weighted-sum,
 * multi-head. Output holds no timestamps: the same input, version and fonts
 * give byte-identical files.
 *
 * PNG: the display list the GUI builds (viz_build_figure, or
 * viz_build_window for the window view) at UI scale ui_scale × pixel_scale,
 * drawn by SDL's software renderer into (width·s)×(height·s) pixels, so text
 * and lines are drawn at that size; at pixel scale 1 a window export is the
 * window's own screenshot, byte for byte. SVG: the same builder at pixel
 * scale 1, replayed as vector shapes and <text>. --caption adds a band under
 * the figure with the step and equation, the sentence, and the
 * configuration, weights and version.
 *
 * Staging: everything is written into DIR/.attnviz-staging-PID-XXXXXX, then
 * each file is renamed into DIR, and last DIR/.attnviz-export.json, the
 * manifest: every file an export wrote there with its SHA-256. A file of the
 * same name already in DIR is replaced only when the manifest lists it with
 * the hash it still has; anything else (a site's own index.md, an edited
 * figure, a folder) stops the export with an error naming it, before
 * anything lands. A rename failing later (almost impossible within one
 * folder) leaves whole files only, some from this export. Other files in DIR
 * are left alone. SIGINT/SIGTERM remove the staging folder (util/cleanup.h);
 * staging folders of exports that were killed are removed by the next export
 * into DIR.
 *
 * Layer 6 (src/export, beside src/cli): includes src/util … src/render, never src/cli. */
#ifndef ATTN_EXPORT_H
#define ATTN_EXPORT_H

#include "export_types.h"


/* o gets the defaults: formats png+svg, pixel and UI scale 1, 1280×800, light, English,
 * all steps, figure view, no caption; dir and the rest NULL. */
void export_opts_default(export_opts *o);

/* Flag parsers for the command line. Errors (ATTN_ERR_RANGE) name the flag
 * and the accepted values. */
attn_status export_parse_formats(unsigned *out, const char *list, attn_err *err); /* "png,svg,csv,tex,md,html" or "all" */
attn_status export_parse_steps(unsigned *out, const char *list, attn_err *err);   /* "all" or "3,6" (1..8; 9: a model's readout) */
attn_status export_parse_size(int *w, int *h, const char *s, attn_err *err);      /* "1280x800" */
attn_status export_parse_theme(viz_theme_id *out, const char *s, attn_err *err);  /* light|dark|presenter|high-contrast */
attn_status export_parse_view(export_view *out, const char *s, attn_err *err);    /* figure|window */

/* The command_prefix for a command line: "attnviz --headless" and every
 * argument of argv[1..argc) shell-quoted, except --headless and the export
 * flags the index adds per file (--export-dir, --format, --pixel-scale,
 * --size, --theme, --steps, --view, --caption, --lang, --ui-scale and their
 * values). Caller frees; NULL when memory ran out. */
char *export_command_prefix(int argc, char *const *argv);

/* Fills out (ATTN_STEP_COUNT entries) with one item per step selected by
 * steps, numbered by step (03-scores), each with remake flags "--steps N".
 * Returns how many. The items borrow t. */
int export_items_for_trace(export_item out[ATTN_STEP_COUNT], const attn_trace *t, unsigned steps, int head,
                           int query);

/* A model's figures: for every layer (files "L<l>-NN-<slug>") each step
 * selected by steps, and after steps 4, 5 and 6 the same with the backward
 * pass ("L2-06-softmax-backward"), then the readout ("L2-09-readout") when
 * steps has EXPORT_STEP_READOUT (all: EXPORT_ALL_STEPS | the readout). The
 * items borrow m and r (a run with targets, whose answers target says). Fills at most cap items (EXPORT_MAX_MODEL_ITEMS suffice) and
 * returns how many. */
int export_items_for_model(export_item *out, int cap, const model *m, const model_result *r, viz_target target,
                           unsigned steps, int head, int query, viz_origin origin);

/* Writes every file of every item, the handout and the index into o->dir:
 * staged in DIR/.attnviz-staging-PID-XXXXXX, renamed into place only when all
 * were written and every file they replace is one an export wrote (see
 * Staging above). On error DIR keeps its previous files, no partial file or
 * staging folder is left, and folders this call created are removed.
 * ui: the UI strings (both languages); fonts: see the top of this file. */
attn_status export_run(const export_opts *o, const export_item *items, int n_items, const viz_strings *ui,
                       viz_fonts *fonts, attn_err *err);

/* export_items_for_trace(o->steps, head, query) + export_run: the CLI's
 * --sentence export and the GUI's Ctrl+Shift+S. */
/* Issue 24 part 4 (--tiles B): the same, then every step of head's tiles
 * view (tiles: attn_tiles_of_head) as NN-tiles-bB-stepKK.png/.svg/.csv. */
attn_status export_sentence_tiles(const export_opts *o, const attn_trace *t, int head, int query,
                                  const attn_tiles *tiles, const viz_strings *ui, viz_fonts *fonts, attn_err *err);

attn_status export_sentence(const export_opts *o, const attn_trace *t, int head, int query, const viz_strings *ui,
                            viz_fonts *fonts, attn_err *err);

/* The same, with the decode view of t (issue 24) after the steps when d is
 * not NULL: NN-decode.png, .svg and a .csv of its per-token record. */
attn_status export_sentence_decode(const export_opts *o, const attn_trace *t, const attn_decode *d, int head, int query,
                                   const viz_strings *ui, viz_fonts *fonts, attn_err *err);

/* A lesson: one item per page (or only page_id's when not NULL), numbered by
 * the page's place in the lesson (NN-<page id>), each page with its own
 * trace, its step (a page naming none shows the last step named before it),
 * its highlighted or predicted token as the query, its title and its text
 * as Markdown; remake flags "--page ID". The handout's title is the
 * lesson's unless o->title is set. o->lesson_path names the file in the
 * index, with the hash of what the lesson was parsed from. */
attn_status export_lesson(const export_opts *o, const lesson *l, const char *page_id, const viz_strings *ui,
                          viz_fonts *fonts, attn_err *err);


/* A page's narrative as Markdown (paragraphs, "- " items, fenced code,
 * *emphasis* and `code` spans, references computed; other Markdown
 * characters escaped): the part before its @reveal (all of it without one),
 * or, with after_reveal, the part after. */
char *export_lesson_text(const lesson_page *pg, bool after_reveal, const viz_ref_ctx *x);

/* Whether paragraph p of pg is shown for the sentence x holds: false for an
 * @own paragraph when x's sentence is not the page's, and for one whose
 * {references} x cannot compute (it would print "—"); those give way once,
 * where the first of them stood, to the page's @edited paragraphs (which are
 * shown only then, when they hold). As the window's narrative does. */
bool export_para_holds(const lesson_page *pg, const lesson_para *p, const viz_ref_ctx *x);

/* What an item's page {references} are computed on: its trace, its @compare
 * view, its model and run (the page's layer), worded with ui. */
void export_item_refs(viz_ref_ctx *x, const export_item *it, const char *const *ui);

/* ---- building blocks (used by export_run; public for tests and the GUI) ---- */

/* The display list of one figure (or the window) of (width·pixel_scale) ×
 * (height·pixel_scale) px at UI scale o->ui_scale × pixel_scale, with the
 * caption band when o->caption. Returns false when memory ran out. */
bool export_build_list(viz_list *l, const export_opts *o, const export_item *it, const viz_strings *ui,
                       viz_fonts *fonts, int pixel_scale);

/* SVG of a display list on a w×h canvas (width/height in px): rects, lines,
 * <text> elements, a <rect> per grid cell, clipPaths. Numbers with '.' and
 * at most 2 decimals. */
char *export_svg(const viz_list *l, int w, int h);


/* The matrices an item's figure shows, for head (every head when head < 0):
 * its step's (export_step_matrices) and, with a model, layer 1's E and P,
 * step 8's X and residual, the backward pass's gradient, or the readout's
 * logits and probabilities (a pointer model: its head average). */
int export_item_matrices(const export_item *it, int head, export_matrix *out, int cap);

/* The matrices a step shows, for head (or every head when head < 0), in
 * figure order. Returns how many (at most cap). */
int export_step_matrices(const attn_trace *t, attn_step step, int head, export_matrix *out, int cap);

/* One matrix as CSV (RFC 4180, CRLF line ends): a header row of column labels
 * after the matrix name, then one row per matrix row starting with its label.
 * Numbers: shortest exact form with '.'; masked entries -inf. features names
 * X's columns when m->features (may be NULL). */
char *export_csv(const attn_trace *t, const export_matrix *m, const char *const *features);

/* Appends s as one CSV field, quoted when it holds , " CR or LF. */
void export_csv_field(attn_strbuf *b, const char *s);

/* Appends s with LaTeX's special characters escaped (# $ % & _ { } ~ ^ \), and the
 * math signs of step names (ᵀ ₖ √ ÷ · × → − ∞) set in math mode. */
void export_tex_escape(attn_strbuf *b, const char *s);

/* Appends m as \begin{bmatrix} … \end{bmatrix}, numbers to 2 decimals
 * (from a million on as 1.23\times10^{16}: every value the core accepts
 * shows), masked entries -\infty. */
void export_tex_bmatrix(attn_strbuf *b, const export_matrix *m);

/* A standalone document (xelatex + ctex) for the item's figure, its head,
 * in ui's words in lang (ui NULL: the strings' keys): the title, the
 * sentence, the configuration, the equation and every matrix
 * (export_item_matrices) with its rows and columns labelled, a wide one in
 * blocks of columns that fit the landscape page. */
char *export_tex_document(const export_item *it, const char *title, const viz_strings *ui, viz_lang lang);
/* The decode view's item (it->decode) as a LaTeX document: the token's
 * narrative, the equations, the per-token record and the head's Z_decode. */
char *export_tex_decode(const export_item *it, const char *title, const viz_strings *ui, viz_lang lang);
/* A step of the tiles view (it->tiles, it->tiles_step) as a LaTeX document:
 * the step in words, the update equations, per query row m, α, ℓ before and
 * after, the block's scores and O before and after (z = O/ℓ after the last
 * key block). */
char *export_tex_tiles(const export_item *it, const char *title, const viz_strings *ui, viz_lang lang);

/* amsmath's bmatrix takes this many columns unless MaxMatrixCols says more. */
#define EXPORT_TEX_BMATRIX_COLS 10

/* One matrix for \input in math mode in any document (\[ S' = \input{…} \]):
 * a bmatrix (needs amsmath) up to EXPORT_TEX_BMATRIX_COLS columns, wider
 * \left[\begin{array}…\end{array}\right] (needs nothing), after a comment
 * line saying which. */
char *export_tex_snippet(const export_matrix *m);

/* Test hook: when > 0, the Nth file export_run writes from now on fails as if
 * the disk were full, leaving a partial file in the staging folder (so the
 * clean-up is tested for real, also as root). Reset to 0 once it fires. */
extern int export_test_fail_at_file;

#endif
