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

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_err.h"
#include "lesson.h"
#include "model_run.h"
#include "strbuf.h"
#include "viz.h"
#include "viz_lesson.h"
#include "viz_scene.h"
#include "viz_sdl.h"
#include "viz_strings.h"

enum {
    EXPORT_PNG = 1u << 0,
    EXPORT_SVG = 1u << 1,
    EXPORT_CSV = 1u << 2,
    EXPORT_TEX = 1u << 3,
    EXPORT_MD = 1u << 4,
    EXPORT_HTML = 1u << 5,
    EXPORT_ALL_FORMATS = 0x3fu
};

#define EXPORT_ALL_STEPS 0xffu /* bit s selects attn_step s */
#define EXPORT_STEP_READOUT (1u << ATTN_STEP_COUNT) /* --steps 9: a model's readout */
#define EXPORT_MAX_MODEL_ITEMS (MODEL_MAX_LAYERS * (ATTN_STEP_COUNT + 3) + 1)
#define EXPORT_MAX_SCALE 3
#define EXPORT_MIN_SIZE 160   /* logical px, each side */
#define EXPORT_MAX_SIZE 8192

typedef enum {
    EXPORT_VIEW_FIGURE, /* the step's canvas: title, equation, matrices, legend, badge */
    EXPORT_VIEW_WINDOW  /* the whole window as the GUI shows it */
} export_view;

typedef struct {
    const char *dir;            /* target folder; created (with parents) when missing */
    unsigned formats;           /* EXPORT_* bits; md without png/svg adds png */
    int pixel_scale;            /* 1..3: PNG pixels per logical px (text drawn at that size) */
    float ui_scale;             /* the UI scale the figure is laid out at, 0.5..4 (0: 1); the
                                   GUI passes its DPI × zoom so a window export is the window */
    int width, height;          /* figure or window size in logical px (0: 1280×800) */
    viz_theme_id theme;
    viz_lang lang;              /* language of figure texts, handout and captions */
    unsigned steps;             /* EXPORT_ALL_STEPS or some bits; used by export_sentence */
    export_view view;
    bool caption;               /* burn step, equation, sentence and configuration into PNG/SVG */
    const char *command_prefix; /* the command up to the export flags, e.g. "attnviz --headless
                                   --sentence '…' --d-model 8 …"; the index appends the export
                                   flags to it. NULL: "attnviz --headless" */
    const char *weights_path;   /* --weights file: named in the index; NULL: none */
    const char *weights_sha256; /* hex SHA-256 of the bytes read from it (attn_weights_file's), or NULL */
    const char *lesson_path;    /* lesson file: named in the index; NULL: none */
    const char *lesson_sha256;  /* hex SHA-256 of the lesson as read; NULL: export_lesson takes the lesson's */
    const char *title;          /* handout and index heading; NULL: a default */
    viz_origin origin;          /* export_sentence: where the trace's given weights came from */
} export_opts;

typedef struct {
    const attn_trace *trace;    /* what to show (borrowed, never NULL) */
    attn_step step;              /* which of the eight steps */
    int number;                 /* NN in file names; <= 0: its position in the list, from 1 */
    int head;                   /* head shown in the figure and the .tex, 0-based */
    int query;                  /* query token of the softmax lines; -1: 它/it if present, else 0 */
    const char *id;             /* file stem after "NN-", [A-Za-z0-9_-]; NULL: the step's slug */
    const char *title;          /* page title (handout, index); NULL: the step's name */
    const char *text;           /* page text for the handout (Markdown, blank-line paragraphs);
                                   NULL: the step's hint from the UI strings */
    const char *text_after;     /* the page's text after its @reveal: after the figure; NULL: none */
    const char *narrative;      /* --view window: the narrative panel's text as the window shows it
                                   (viz_lesson_narrative); NULL: text */
    viz_origin origin;          /* where the trace's given weights came from (the figure's badge) */
    viz_mark mark;              /* what the figure points at besides the query (a lesson's @highlight) */
    const attn_trace *alt;      /* a lesson page's @compare view (for its {references}), or NULL */
    const char *const *feature_names; /* names of X's columns (lesson vocabulary), or NULL */
    viz_names names;            /* a lesson's names of Q/K/V/Z columns and the labels its page keeps */
    const char *remake_flags;   /* flags that make only this item again, e.g. "--steps 3" or
                                   "--page intro"; NULL: none (the whole batch is remade) */
    const lesson_page *page;    /* the lesson page it shows (html: its paragraphs, its question), or NULL */
    /* a trained model's figure (model NULL: one designed or random layer) */
    const model *model;         /* the model; trace is &run->layer[layer] */
    const model_result *run;    /* the sentence through it, with the backward pass's target */
    int layer;                  /* 0-based */
    bool readout;               /* the readout after the last layer (step is ignored) */
    bool backward;              /* steps 4–6 with their gradients beside them */
    viz_target target;          /* whose answers run's targets are */
    const char *prefix;         /* before "NN-" in file names, e.g. "L2-"; NULL: none */
} export_item;

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
attn_status export_sentence(const export_opts *o, const attn_trace *t, int head, int query, const viz_strings *ui,
                            viz_fonts *fonts, attn_err *err);

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

/* How a matrix's rows or columns are labelled. */
typedef enum {
    EXPORT_AXIS_TOKENS, /* token labels ("9:只" for a repeated token) */
    EXPORT_AXIS_DIMS,   /* d0, d1, … (or feature names for X) */
    EXPORT_AXIS_CONCAT, /* h1.0, h1.1, …, h2.0 … */
    EXPORT_AXIS_WORDS   /* a model's vocabulary (the readout's columns) */
} export_axis;

typedef struct {
    const char *name;      /* file part and CSV corner: "S", "W_Q", "S_scaled" … */
    const char *tex;       /* LaTeX symbol: "S", "W_Q", "\\tilde{S}" … */
    const double *v;       /* rows × cols, row-major, borrowed from the trace */
    int rows, cols;
    int head;              /* 0-based head, or -1 for a whole-layer matrix */
    export_axis row_axis, col_axis;
    bool features;         /* columns are X's features (names given) */
    const char *const *words; /* EXPORT_AXIS_WORDS: the vocabulary */
} export_matrix;

#define EXPORT_MAX_MATRICES (6 * ATTN_MAX_HEADS)

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
