/* viz_internal.h — shared by the layout files of src/render (not public). */
#ifndef VIZ_INTERNAL_H
#define VIZ_INTERNAL_H

#include "viz_scene.h"

/* One build pass: the list, the scene, measurement and derived sizes. */
typedef struct {
    viz_list *l;            /* output */
    const viz_scene *s;     /* input */
    viz_measure m;          /* text widths */
    const viz_theme *th;    /* s->theme resolved */
    float u;                /* one UI unit in pixels (scale) */
    float body, small, big; /* text sizes in pixels */
    float value_min;        /* the text size the theme wants values written at (0: where square cells allow) */
    bool figure;            /* the figure alone (the figure view, F, and figure exports): it has the room */
    bool inert;             /* a second sentence's view: no hit regions (its cells are not the scene's trace's) */
} viz_ctx;

typedef struct {
    float x, y, w, h;
} viz_box;

/* ---- text (viz_text.c) ---- */
float viz_text_w(const viz_ctx *c, const char *s, float px);
/* Draws s in the box: at px when it fits, else up to 15% smaller, else on
 * two lines when the box is tall enough, else shortened with "…" to fit w;
 * returns the width drawn. */
float viz_label(const viz_ctx *c, float x, float y, float w, float h, const char *s, float px,
                int align, viz_rgba col);
/* The size viz_label draws s at on one line of width w (px, or up to 15%
 * smaller), or 0 when it takes two lines or is cut. */
float viz_line_px(const viz_ctx *c, const char *s, float px, float w);
/* Wraps text (paragraphs split by blank lines or \n) into box b starting
 * scroll pixels down; draws the lines that are visible and returns the total
 * height of the text. CJK may break between any two characters. A line that
 * starts with VIZ_CODE_MARK is code (viz_code_line, a little smaller). */
float viz_wrap(const viz_ctx *c, viz_box b, const char *text, float px, float scroll, viz_rgba col);
/* The same, with the lines after a paragraph's first indented by indent
 * pixels (a hanging indent), drawing only when draw (else it only measures). */
float viz_wrap_ex(const viz_ctx *c, viz_box b, const char *text, float px, float scroll, float indent, viz_rgba col,
                  bool draw);
/* One line of code (len bytes, without its mark) at y in box b: the code face
 * at px on a grid of columns (a wide character takes two), wrapped with a
 * hanging indent and a continuation mark; drawn when draw (whole lines
 * only). Returns the height it takes. */
float viz_code_line(const viz_ctx *c, viz_box b, const char *s, size_t len, float px, float y, viz_rgba col,
                    bool draw);
/* Formats a value for a cell: 2 decimals, "−∞" for -inf, short exponent when large. */
void viz_format_value(char *buf, size_t cap, double v);
/* A string of the scene's UI table. */
const char *viz_s(const viz_ctx *c, viz_str id);

/* ---- colours (viz_theme.c) ---- */
/* Black or white, whichever reads better on bg. */
viz_rgba viz_text_on(viz_rgba bg);
viz_rgba viz_mix(viz_rgba a, viz_rgba b, float t);
viz_rgba viz_alpha(viz_rgba c, uint8_t a);

/* ---- matrices (viz_matrix.c) ---- */
typedef enum { VIZ_MAP_SIGNED,
               VIZ_MAP_WEIGHTS } viz_map;
typedef enum { VIZ_LABEL_NONE,
               VIZ_LABEL_TOKENS,
               VIZ_LABEL_DIMS,
               VIZ_LABEL_FEATURES,
               VIZ_LABEL_CONCAT,
               VIZ_LABEL_WORDS } viz_labels;

typedef struct {
    const double *v; /* (rows, cols) row-major */
    int rows, cols;
    int stage;         /* for hit regions and hover: an attn_stage, or a model_stage with a model */
    int head;          /* for hit regions */
    const char *title; /* drawn above, e.g. "Q (head 1)" */
    viz_map map;       /* colour map */
    double range;      /* SIGNED: |value| that maps to the ends of the scale */
    viz_labels row_labels, col_labels;
    bool hidden;                                     /* predict-before-reveal: draw the cells blank */
    bool transposed;                                 /* drawn transposed (Kᵀ): cell (r, c) shows v[c][r]; hits name K's (c, r) */
    int weight_of;                                   /* a weight matrix: the stage it feeds (Q, K, V or OUTPUT); else -1 */
    const attn_mask *mask;                           /* draw cells the mask hides as masked (for A); NULL otherwise */
    bool own_range;                                  /* SIGNED on a scale of its own (a gradient), not the step's shared one */
    float cw, ch;                                    /* cell width and height when set (> 0); else the cs a call passes */
    float title_up;                                  /* when > 0: its title this far above the cells (a row of matrices aligns its titles) */
    const char *const *row_names, *const *col_names; /* the lesson's names of DIMS rows / columns, or NULL */
} viz_mat;

/* Whether row r of m is faded as one the pointer objective does not train
 * (the last layer's attention rows of a pointer model but the pronoun's). */
bool viz_row_untrained(const viz_ctx *c, const viz_mat *m, int r);
/* Space a matrix needs around its cells at cell size cs: label column width,
 * title + column label height. */
float viz_mat_left(const viz_ctx *c, const viz_mat *m, float cs);
float viz_mat_top(const viz_ctx *c, const viz_mat *m, float cs);
/* Draws m with its cells' top-left at (x, y) and cell size cs (or m->cw × m->ch). */
void viz_mat_draw(const viz_ctx *c, const viz_mat *m, float x, float y, float cs);
/* The column width at which m's named columns (features, a lesson's names)
 * are all labelled in two staggered lines; 0 when its columns have no names. */
float viz_col_label_need(const viz_ctx *c, const viz_mat *m, float cw);
/* The text size m's values are written at in cells of cw × ch (0: none fit). */
float viz_value_px(const viz_ctx *c, const viz_mat *m, float cw, float ch);
/* The narrowest cells that hold m's values at px: their width and height. */
void viz_value_cell(const viz_ctx *c, const viz_mat *m, float px, float *cw, float *ch);
/* Draws a legend bar for map in b (range for SIGNED), with a masked swatch when
 * with_masked, after caption (which matrices it is for) when not NULL. */
void viz_legend(const viz_ctx *c, viz_box b, viz_map map, double range, bool with_masked, const char *caption);
/* Largest |v| of the finite entries (at least 1e-9). */
double viz_abs_max(const double *v, size_t count);

/* ---- a trained model (viz_model.c) ---- */
/* The readout after the last layer: a token model's probabilities over its
 * vocabulary, or a pointer model's head-averaged weights, with the query's
 * answer written out and its most likely words as bars. */
void viz_draw_readout(const viz_ctx *c, viz_box b);
/* The model view of a real model (F6, --hf): every layer × head and the head finder (viz_hfmodel.c). */
void viz_draw_hf_models(const viz_ctx *c, viz_box b);
/* The readout's equation line, with its shapes. */
void viz_readout_equation(const viz_ctx *c, char *out, size_t cap);
/* The backward pass's target as the view says it ("… target 鸟 (the task's own answer)"). */
void viz_backward_caption(const viz_ctx *c, char *out, size_t cap);
/* The gradient the step shows for head, and its ±range (largest |value|). */
const double *viz_step_grad(const viz_ctx *c, const attn_trace *t, int head, int *stage, double *range);

/* ---- the complexity lab (viz_lab.c) ---- */
void viz_lab_overlay(const viz_ctx *c);
/* ---- the decode view, in the canvas's box (viz_decode.c) ---- */
void viz_decode_view(const viz_ctx *c, viz_box b, bool keys); /* keys: the window's key line */
/* Which query heads read which kv-head (grouped-query attention): a box per
 * query head above a box per kv-head, joined, head `shown` and its kv-head in
 * the accent, at (x, y) within width w. Returns its height (huge when w is
 * too narrow); draws only when draw. The decode view and step 8 draw it. */
float viz_kv_groups(const viz_ctx *c, float x, float y, float w, const attn_config *cfg, int shown, bool draw);
/* Issue 24 part 4: the tiles view (F4) over the window: the blocks, the step's
 * scores, m, ℓ and O, the bytes held, and the hovered cell's rescaling. */
void viz_tiles_overlay(const viz_ctx *c);

/* ---- the training view (viz_train.c) ---- */
void viz_train_overlay(const viz_ctx *c, float status_h); /* over all but the status line, status_h high */

/* ---- the canvas of a step (viz_steps.c) ---- */
/* Draws the operands and result of the scene's step for head of t in b,
 * every signed matrix on the scale ±range; subtitle (compare) may be NULL. */
void viz_draw_step(const viz_ctx *c, viz_box b, const attn_trace *t, int head, const char *subtitle, double range);
/* viz_draw_step with its subtitle on lines lines (1 or 2): the two views of a
 * comparison take the same room, whatever their texts. */
void viz_draw_view(const viz_ctx *c, viz_box b, const attn_trace *t, int head, const char *subtitle, int lines,
                   double range);
/* The lines a view's subtitle s takes in width w: 1, or 2 of smaller text. */
int viz_subtitle_lines(const viz_ctx *c, const char *s, float w);
/* The cell size the step's matrices get in b (with a subtitle line). */
float viz_step_fit(const viz_ctx *c, viz_box b, const attn_trace *t, int head);
/* true when the step shows a gradient (backward on, steps 4–6, a run with targets). */
bool viz_step_has_grad(const viz_ctx *c);
/* One matrix fitted into b, centred (the canvas's zoom and pan apply). */
void viz_draw_single(const viz_ctx *c, viz_box b, viz_mat *m);
/* The ±range the step's signed matrices need for head of t. */
double viz_step_range(const viz_ctx *c, const attn_trace *t, int head);

#endif
