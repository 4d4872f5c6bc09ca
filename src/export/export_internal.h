/* export_internal.h — shared by the files of src/export (not public). */
#ifndef ATTN_EXPORT_INTERNAL_H
#define ATTN_EXPORT_INTERNAL_H

#include <stdint.h>

#include "export_types.h"
#include "sha256.h"

#define EX_MANIFEST ".attnviz-export.json"    /* in DIR: what exports wrote there */
#define EX_STAGING_PREFIX ".attnviz-staging-" /* + PID-XXXXXX: a batch being written */
#define EX_LOCK ".attnviz-export.lock"        /* in DIR while an export writes there: one at a time */

/* ---- numbers, text and paths (export_opts.c) ---- */

/* Appends v rounded to 2 decimals with '.', trailing zeros dropped ("1.5",
 * "-0.25", "12"), whatever the locale; from 1e15 on its shortest exact form
 * ("1e+16"). Non-finite values append "0". */
void ex_num(attn_strbuf *b, double v);

/* The names of m's rows (cols false) or columns as its figure shows them —
 * the lesson's feature names, its names of Q/K/V/out dimensions (names, may
 * be NULL) — or NULL where the figure names none. */
const char *const *ex_axis_names(const attn_trace *t, const export_matrix *m, bool cols,
                                 const char *const *features, const viz_names *names);

/* Label i of axis a of m into buf: the token, named[i] (named from
 * ex_axis_names, may be NULL), the vocabulary word, "d3", or "h2.1". What
 * the CSV and TeX files label rows and columns with. */
void ex_axis_label(char *buf, size_t cap, const attn_trace *t, const export_matrix *m, export_axis a, int i,
                   const char *const *named);

/* "png,svg": the --format list of the EXPORT_* bits in formats. */
void ex_format_list(attn_strbuf *b, unsigned formats);

/* "d_model=8 d_k=4 heads=2 seed=1 mask=none scale=on pos-enc=off bias=off". */
void ex_config_text(attn_strbuf *b, const attn_config *c);
/* The item's configuration: its trace's, or a model's (task, layer, shapes, options). */
void ex_item_config_text(attn_strbuf *b, const export_item *it);

/* The UI string id in lang (never NULL). */
const char *ex_str(const viz_strings *ui, viz_lang lang, viz_str id);

/* "a/b": a and b joined by one '/' (malloc'd; NULL when out of memory). */
char *ex_join(const char *a, const char *b);

/* Cuts s back to whole UTF-8 characters (after a truncating snprintf). */
void ex_utf8_trim(char *s);

/* The weights badge of the item in the export's language (as the GUI words it). */
void ex_badge(char *out, size_t cap, const export_opts *o, const viz_strings *ui, const export_item *it);

/* ---- CSV (export_csv.c) ---- */

/* export_csv with the names the figure gives dimensions (a lesson's names of
 * Q/K/V/Z and output columns, X's and W_*'s features); NULL names: none. */
char *ex_csv_named(const attn_trace *t, const export_matrix *m, const char *const *features, const viz_names *names);

/* ---- figures (export_figure.c) ---- */

/* What a page's reader may change in a figure besides the query (an item's
 * own field): the hovered or focused cell, and a question still open. */
typedef struct {
    viz_hit hover;     /* a CELL hit, or kind VIZ_HIT_NONE */
    bool hide_weights; /* predict-before-reveal: the answer hidden, as in the window */
} ex_view;

/* export_build_list with the view v on top (NULL: none). */
bool ex_build_view(viz_list *l, const export_opts *o, const export_item *it, const viz_strings *ui, viz_fonts *fonts,
                   int pixel_scale, const ex_view *v);

/* ---- SVG (export_svg.c) ---- */

/* CJK-capable families first: a viewer without WenQuanYi still shows 它. */
#define EX_SVG_FONTS "'WenQuanYi Micro Hei', 'Noto Sans CJK SC', 'Source Han Sans SC', 'DejaVu Sans', sans-serif"
/* The code face's list (VIZ_FONT_MONO), as the SDL backend looks for it. */
#define EX_SVG_MONO_FONTS "'WenQuanYi Micro Hei Mono', 'DejaVu Sans Mono', monospace"

/* A display list being replayed as SVG, one command at a time (zero it, then
 * set b). A clip lasts until the next CLIP command: each opens a group. */
typedef struct ex_svg {
    attn_strbuf *b;                                  /* where the markup goes */
    const char *ids;                                 /* prefix of every id written ("f1-"), NULL: none */
    int clips;                                       /* clipPaths written so far (their ids count on) */
    bool clipped;                                    /* a clip group is open */
    void (*hit)(struct ex_svg *o, const viz_cmd *c); /* writes a HIT command; NULL: HITs are not written */
    viz_fonts *fonts;                                /* set: text starts where the rasteriser puts it (a page's figure matches the PNG to the
                         pixel); NULL: anchored in its box, for any viewer's fonts (SVG files) */
    void *ctx;                                       /* for hit */
} ex_svg;

/* The <svg> start tag of a w×h drawing with the fonts; attrs (NULL: none) are
 * written into it as they are. */
void ex_svg_open(attn_strbuf *b, int w, int h, const char *attrs);
/* Appends one command of l. */
void ex_svg_cmd(ex_svg *o, const viz_list *l, const viz_cmd *c);
/* Closes the clip group left open, if any. */
void ex_svg_close(ex_svg *o);
/* Appends text with XML's five entities escaped and characters XML forbids
 * replaced by U+FFFD. */
void ex_xml_text(attn_strbuf *b, const char *s);

/* ---- matching display lists (export_diff.c) ---- */

/* A hash of what c draws or means (text and cells by content). */
uint64_t ex_cmd_hash(const viz_list *l, const viz_cmd *c);
/* true when a of la and b of lb draw (or, for HIT, mean) the same. */
bool ex_cmd_equal(const viz_list *la, const viz_cmd *a, const viz_list *lb, const viz_cmd *b);
/* match[i] (a->count entries): the index in b of a's command i in a longest
 * common subsequence of the two lists, or -1. Returns false (every match -1)
 * when memory ran out or the lists differ in more than a few thousand
 * commands. */
bool ex_diff(const viz_list *a, const viz_list *b, int *match);

/* ---- interned strings (export_html_views.c) ---- */

/* Distinct strings in the order first added, each once. */
typedef struct {
    char **s; /* n strings (owned) */
    int n, cap;
    int *index; /* open addressing: 1 + position in s, 0 empty; `slots` entries */
    int slots;
} ex_strtab;

/* The position of s (len bytes) in t, added when new; -1 when memory ran out. */
int ex_strtab_add(ex_strtab *t, const char *s, size_t len);
/* Frees what t owns and zeroes it. NULL is a no-op. */
void ex_strtab_free(ex_strtab *t);

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
const ex_file *ex_files_find(const ex_files *m, const char *name);    /* NULL: not listed */
bool ex_files_add(ex_files *m, const char *name, const char *sha256); /* false: out of memory */
void ex_files_free(ex_files *m);                                      /* NULL is a no-op */
char *ex_manifest_json(const ex_files *m);                            /* caller frees; NULL: no memory */

/* The hex SHA-256 of the file at path, read in pieces. */
attn_status ex_sha256_file(const char *path, char hex[ATTN_SHA256_HEX], attn_err *err);

/* ---- files (export_fs.c) ---- */


/* A staged batch: a hidden folder inside dir and the names written there. */
typedef struct {
    char *dir;                     /* the target folder (copy) */
    char *stage;                   /* its staging folder, or NULL before export_stage_open */
    int stage_slot;                /* the staging folder's util/cleanup.h slot */
    char **names;                  /* file names written into stage, in order */
    char (*shas)[ATTN_SHA256_HEX]; /* their hashes, for the manifest */
    int n, cap;
    ex_files ours;          /* DIR's manifest as it was: the files this batch may replace */
    char *lock;             /* DIR's lock file while this batch holds it (flock), else NULL */
    int lock_fd, lock_slot; /* its descriptor and clean-up slot */
    char *made[32];         /* folders this batch created, outermost first */
    int made_slot[32];      /* their clean-up slots */
    int n_made;
} ex_stage;

/* Creates dir (and parents) when missing, waits for the exports already
 * writing there (DIR's lock file), reads its manifest, removes the staging
 * folders killed exports left there, and makes a staging folder of its own,
 * registered for clean-up on a signal. The lock is held until
 * ex_stage_abort, so concurrent exports into one folder run one after the
 * other, each seeing the manifest the one before it wrote. */
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

/* Appends len bytes of lesson, model or user text so every Markdown reader
 * (CommonMark, pandoc, Python-Markdown/MkDocs) shows it as written: HTML's
 * < > & as entities (no tag or script gets through), the punctuation that
 * would start emphasis, code, links or headings backslash-escaped, line
 * breaks as spaces; line_start: s starts a line, where "-", "+" and "1."
 * would start a list. Every Markdown writer goes through it. */
void ex_md_text(attn_strbuf *b, const char *s, size_t len, bool line_start);
/* ex_md_text of a whole string inside a line (a title, a badge, alt text). */
void ex_md_line(attn_strbuf *b, const char *s);

/* Appends s as a Markdown code span (backtick fence longer than any run in s). */
void ex_md_code(attn_strbuf *b, const char *s);

/* Appends a fenced code block in language lang ("sh") holding s verbatim. */
void ex_md_block(attn_strbuf *b, const char *lang, const char *s);

/* One page of the handout: "## number · title" (number worded by page_word,
 * e.g. "Page %d", for a lesson's page; NULL: a step's number), sentence and
 * configuration, text, figure link (image may be NULL), the text after the
 * page's @reveal. */
void ex_md_page(attn_strbuf *b, const export_item *it, int number, const char *title, const char *text,
                const char *image, const char *page_word);

/* ---- interactive pages (export_html.c, export_html_views.c) ---- */

/* One figure of a page being made: what every view of it shares and what
 * each query, hovered cell and panel adds. */
typedef struct {
    const export_opts *o;
    const export_item *it; /* the item as the page shows it (predict: the softmax step) */
    const viz_strings *ui;
    viz_fonts *fonts;
    char ids[80];           /* prefix of every id in the figure: "av-06-softmax-1a2b3c4d-" */
    int n, q0;              /* tokens, and the query the figure starts on */
    attn_strbuf svg;        /* the figure's markup inside <svg>, with a <g data-s> per slot */
    ex_strtab frags;        /* SVG fragments that views put into slots */
    int n_slots;            /* slots: what some view changes (<g data-s>, in drawing order) */
    attn_strbuf base_frags; /* JSON: each slot's fragment in the figure as written (-1: empty) */
    attn_strbuf views;      /* JSON: per query, "slot, fragment" pairs where it differs from that */
    ex_strtab lines;        /* panel lines as JSON strings "KF…": viz_xline_kind, focus 0/1, the text */
    attn_strbuf cells;      /* JSON members "STAGE:HEAD:ROW:COL": [[lines], [hover fragments], focus] */
    viz_list list;          /* scratch */
} ex_html_fig;

/* Fills the fields of f after q0 (the ones before are set) for the revealed
 * figure: slots and views per query, hover overlays and panel lines per
 * cell. Returns false when memory ran out. */
bool ex_html_views(ex_html_fig *f);
/* Appends the markup of a HIT command (CELL and TOKEN kinds) as a transparent
 * rect with data-cell or data-token: ex_svg's hit hook; o->ctx is the
 * ex_html_fig (a model's figure names its layer). */
void ex_html_hit(ex_svg *o, const viz_cmd *c);
/* "weights:0:13:9": a cell as --explain names it (STAGE:HEAD:ROW:COL); with
 * layer >= 0 (a model's figure) "weights:1:0:13:9" (STAGE:LAYER:HEAD:ROW:COL). */
void ex_html_cell_name(char *out, size_t cap, const viz_hit *h, int layer);
/* Frees what f owns (not what it borrows). NULL is a no-op. */
void ex_html_fig_free(ex_html_fig *f);

/* A handout holds its figures while it stays under this size; past it (a
 * model of 4 layers × 8 heads at 64 tokens made 96.6 MB), each section
 * shows its page in a lazily loaded iframe instead, so a course site can
 * serve it and a browser opens it at once. */
#define EX_HANDOUT_BUDGET (8u << 20)

/* The budget in force: EX_HANDOUT_BUDGET, lowered by tests. */
extern size_t ex_handout_budget;

/* handout.html's sections so far, both ways. Zero it to start. */
typedef struct {
    attn_strbuf full;   /* each section with its figure inline (freed once past the budget) */
    attn_strbuf framed; /* each section as an iframe of its page */
    bool over;          /* full passed EX_HANDOUT_BUDGET: the handout frames every page */
} ex_handout;

/* Frees what h owns. NULL is a no-op. */
void ex_handout_free(ex_handout *h);

/* Writes STEM.html for it into the stage and appends its section (heading,
 * text, figure) to the handout's sections. title and text: the page's. */
attn_status ex_html_write(ex_stage *st, ex_handout *sections, const export_opts *o, const export_item *it,
                          int number, const char *stem, const char *title, const char *text, const viz_strings *ui,
                          viz_fonts *fonts, attn_err *err);
/* Writes STEM.html for the decode view's item (it->decode): its narrative,
 * list drawn as SVG and the per-token record; appends its section. */
attn_status ex_html_write_decode(ex_stage *st, ex_handout *sections, const export_opts *o, const export_item *it,
                                 int number, const char *stem, const char *title, const viz_list *list,
                                 const viz_strings *ui, viz_fonts *fonts, attn_err *err);
/* The tiles view's item (it->tiles, step it->tiles_step) in words: the
 * step, the bytes held and the check against Z, as paragraphs split by a
 * blank line (and, for a skipped block, why), into out (cap bytes). */
void ex_tiles_text(char *out, size_t cap, const export_item *it, const viz_strings *ui, viz_lang lang);
/* Row r of the step's block: m before, m after, α = e^(m before − m after)
 * (0 while m before is −∞), ℓ before, Σⱼ e^(sⱼ − m after), ℓ after. */
void ex_tiles_row(const export_item *it, int r, double out[6]);
/* Writes STEM.html for a step of the tiles view (it->tiles): its words, the
 * drawing (list) as SVG and the rows' rescaling; appends its section. */
attn_status ex_html_write_tiles(ex_stage *st, ex_handout *sections, const export_opts *o, const export_item *it,
                                int number, const char *stem, const char *title, const viz_list *list,
                                const viz_strings *ui, viz_fonts *fonts, attn_err *err);
/* Writes handout.html: every section in order, under title. */
attn_status ex_html_handout(ex_stage *st, const ex_handout *sections, const export_opts *o, const char *title,
                            attn_err *err);

/* The page's script and style (src/export/export_html.js, .css), embedded by
 * the build (cmake/embed.cmake). */
extern const unsigned char ex_html_js[], ex_html_css[];

#endif
