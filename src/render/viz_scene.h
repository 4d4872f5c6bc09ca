/* viz_scene.h — what the window shows, described without any app state:
 * the trace(s), the step, the selection, the theme, the strings and the size.
 * viz_build_window / viz_build_figure turn a scene into a display list. */
#ifndef VIZ_SCENE_H
#define VIZ_SCENE_H

#include "attn.h"
#include "attn_decode.h"
#include "attn_tiles.h"
#include "complexity.h"
#include "model_run.h"
#include "viz.h"

/* A line of a scene's narrative that starts with this byte is a line of code,
 * kept as written and set in the code face (lessons' ``` blocks). */
#define VIZ_CODE_MARK "\x1f"
/* A paragraph of a narrative that starts with this byte is the verdict of
 * the learner's guess: drawn in the highlight colour, at the top of the
 * revealed text, and the panel scrolls to it (narrative_scroll < 0). */
#define VIZ_VERDICT_MARK "\x1e"

/* Every UI string, in one table per language (assets/ui_strings.tsv). */
typedef enum {
#define VIZ_STR(id) VIZ_S_##id,
#include "viz_strings.def"
#undef VIZ_STR
    VIZ_STR_COUNT
} viz_str;

/* The key names as written in assets/ui_strings.tsv ("STEP_1" ...). */
const char *viz_str_key(viz_str s);

typedef enum { VIZ_THEME_LIGHT,
               VIZ_THEME_DARK,
               VIZ_THEME_PRESENTER,
               VIZ_THEME_CONTRAST,
               VIZ_THEME_COUNT } viz_theme_id;

typedef struct {
    viz_rgba bg, panel, panel2, text, muted, accent, accent_text, line;
    viz_rgba highlight;            /* selected query row / focus outline */
    viz_rgba hover;                /* hovered cell outline */
    viz_rgba operand;              /* cells feeding the hovered cell */
    viz_rgba error;                /* error text */
    viz_rgba masked, masked_hatch; /* masked cells: never a colour of a scale */
    float body_px;                 /* body text size at UI scale 1 */
    float value_px;                /* cell values are written at least this large at UI scale 1 when the layout can
                             make room (narrower inner cells, cells wider than tall); 0: only in square cells */
} viz_theme;

/* The theme's colours and sizes (static storage). */
const viz_theme *viz_theme_get(viz_theme_id id);
const char *viz_theme_name(viz_theme_id id); /* "light", "dark", "presenter", "high-contrast" */

/* Diverging map centred on 0 (t in [-1, 1]); colour-blind safe (blue–white–orange). */
viz_rgba viz_diverging(double t);
/* Sequential map for weights (t in [0, 1]); colour-blind safe (light yellow to dark blue). */
viz_rgba viz_sequential(double t);

/* Widgets of the rail's control panel (hit regions carry these ids). HEADS
 * … POSENC are the settings a model fixes; LAYER … MODEL_CLOSE are shown
 * only with a model. */
typedef enum {
    VIZ_W_HEADS,
    VIZ_W_DK,
    VIZ_W_DMODEL,
    VIZ_W_SEED,
    VIZ_W_SCALE,
    VIZ_W_MASK,
    VIZ_W_WINDOW,
    VIZ_W_POSENC,
    VIZ_W_SHOW_HEAD,
    VIZ_W_COMPARE,
    VIZ_W_THEME,
    VIZ_W_LANG,
    VIZ_W_VIEW, /* the canvas shows the steps, the tiles view (F4) or the decode view (F5) */
    VIZ_W_LAYER,
    VIZ_W_BACKWARD,
    VIZ_W_READOUT,
    VIZ_W_MODEL_CLOSE,
    VIZ_W_COUNT
} viz_widget;

/* A lesson page's @try suggestions under the narrative's title are
 * VIZ_HIT_WIDGET with this id (between the rail's and the training view's)
 * and the suggestion's index in delta. */
#define VIZ_W_TRY 48
#define VIZ_MAX_TRIES 8
/* While the sentence of a model is edited, its words are chips under the
 * narrative's title: VIZ_HIT_WIDGET with this id, the word's index in delta. */
#define VIZ_W_WORD 49
/* When the model's words do not all fit, ‹ and › before them page through
 * them: VIZ_HIT_WIDGET with this id, the index of the first word to show in delta. */
#define VIZ_W_WORD_PAGE 47
/* The model view (F6, --hf): a head's strip or its line in the head finder is
 * VIZ_HIT_WIDGET with this id and l·heads + h in delta (a click opens it);
 * the "hide the first token" toggle is VIZ_W_HF_HIDE (after the page
 * controls, VIZ_PW_*, 50 …, and before the training view's, 64 …). */
#define VIZ_W_HF_HEAD 56
#define VIZ_W_HF_HIDE 57

/* true for the widgets shown only with a model. */
static inline bool viz_widget_model_only(viz_widget w) { return w >= VIZ_W_LAYER; }
/* true for the settings a model fixes (its training chose them). */
static inline bool viz_widget_model_fixed(viz_widget w) { return w <= VIZ_W_POSENC; }

/* Split views: scaling on vs off, two heads, (on a lesson page that asks
 * for it) the page's settings vs the settings of its @compare, or (with a
 * trained model) two sentences through the same model. */
typedef enum { VIZ_COMPARE_OFF,
               VIZ_COMPARE_SCALE,
               VIZ_COMPARE_HEADS,
               VIZ_COMPARE_CONFIG,
               VIZ_COMPARE_SENTENCE,
               VIZ_COMPARE_COUNT } viz_compare;

typedef enum { VIZ_FOCUS_CANVAS,
               VIZ_FOCUS_RAIL } viz_focus;

/* What a lesson page points at besides the query's row: a token (its rows
 * and columns), a key's column, or one cell. */
typedef enum { VIZ_MARK_NONE,
               VIZ_MARK_TOKEN,
               VIZ_MARK_COLUMN,
               VIZ_MARK_CELL } viz_mark_kind;

typedef struct {
    viz_mark_kind kind;
    int row; /* TOKEN: the token; CELL: the query */
    int col; /* COLUMN, CELL: the key */
} viz_mark;

/* Issue 24 part 4: the tiles view's matrices as its hit regions name them
 * (their stage, beyond every attn_stage and model stage): the block's
 * scores, m, ℓ and O before and after the step. */
enum { VIZ_TILE_S = 900,
       VIZ_TILE_M_OLD,
       VIZ_TILE_M,
       VIZ_TILE_L_OLD,
       VIZ_TILE_L,
       VIZ_TILE_O_OLD,
       VIZ_TILE_O };
static inline bool viz_tile_stage(int stage) { return stage >= VIZ_TILE_S && stage <= VIZ_TILE_O; }
/* The lesson's page controls: VIZ_HIT_WIDGET hit regions with these ids
 * (above the rail's viz_widget and the chips' VIZ_W_TRY and VIZ_W_WORD, below the training view's): ‹ and › turn
 * the page (delta -1, +1), the page button opens the page list (delta 0),
 * and an entry of the list goes to its page (delta: the page's index). */
enum { VIZ_PW_TURN = 50,
       VIZ_PW_LIST,
       VIZ_PW_PAGE };

/* Panels that scroll (hit regions carry these ids). */
enum { VIZ_PANEL_NARRATIVE = 1,
       VIZ_PANEL_CANVAS = 2,
       VIZ_PANEL_DETAIL = 3,
       VIZ_PANEL_PAGES = 5 }; /* 4: the training view's (viz_train.h) */

/* Whose answers a model run's targets (its backward pass) are. */
typedef enum {
    VIZ_TARGET_TASK,      /* the task labelled the sentence: its own answers */
    VIZ_TARGET_PREDICTED, /* the task cannot label it: the model's prediction at the query */
    VIZ_TARGET_GIVEN      /* named on the command line (--target) */
} viz_target;

/* Where the weights given to a trace came from (what only the caller knows). */
typedef enum { VIZ_FROM_NONE,
               VIZ_FROM_LESSON,
               VIZ_FROM_FILE,
               VIZ_FROM_MODEL } viz_origin_kind;

typedef struct {
    viz_origin_kind kind;
    const char *name; /* FILE: the file as the user named it; MODEL: its file, or NULL when trained in the window */
    double gain;      /* LESSON: the page's @random-weights gain (seeded weights × gain), 0 for a design */
    const char *task; /* MODEL: the task it was trained on */
    int steps;        /* MODEL: its optimiser steps */
    unsigned seed;    /* MODEL: its training's seed */
} viz_origin;

/* The weights badge of t, in the language of ui (VIZ_STR_COUNT strings),
 * derived from the matrices t actually used (t->given) and where the given
 * ones came from: "random, untrained (seed 1)", "hand-designed (lesson)",
 * "partly hand-designed …", "from FILE" …. Writes a NUL-terminated string. */
void viz_badge(char *out, size_t cap, const char *const *ui, const attn_trace *t, viz_origin o);

/* true when t's pattern comes from seeded random weights (scaled or not):
 * what it shows means nothing yet. */
bool viz_weights_random(const attn_trace *t, viz_origin o);

/* What a lesson calls the figure's rows and columns besides X's features,
 * and which labels it keeps (all borrowed; NULL where it names nothing). */
typedef struct {
    const char *const *qkv[3][ATTN_TRACE_MAX_HEADS]; /* head h's columns of Q, K and V (d_k names; V's also name Z's) */
    const char *const *out;                          /* the output's columns (d_model names: W_O's block) */
    const char *const *keep;                         /* labels kept first when labels thin out, most important first */
    int n_keep;
} viz_names;

/* A real model in the walkthrough (--hf DIR, issue 26): the trace is its
 * layer `layer`, made by src/hf/hf_trace.h; what the window adds to it. */
#define VIZ_HF_NEXT 10
typedef struct viz_hf {
    int layers;                       /* n_layer */
    int vocab;                        /* vocab_size (the readout's equation) */
    int next_count;                   /* the most likely next tokens at the last position … */
    char next_label[VIZ_HF_NEXT][64]; /* … their labels (valid UTF-8), most likely first … */
    double next_p[VIZ_HF_NEXT];       /* … and their probabilities */
    bool computing;                   /* a new sentence is being computed (off the UI thread) */
    /* the model view (F6): every layer × head's row of the query, and the head finder */
    bool show_models;        /* the view is open (in the canvas's place) */
    bool hide_first;         /* Z: the first token hidden and each row renormalised over the rest */
    int heads;               /* n_head */
    const double *grid;      /* layers·heads rows of n (the trace's n): head (l, h)'s weights from the query, at
                                [(l·heads + h)·n] (hide_first applied when set); NULL while not computed */
    const double *scores[3]; /* each head's previous-token, induction and first-token score, [l·heads + h] */
    const int *order[3];     /* the heads by each score, highest first (hf_head_rank) */
    int induction_len;       /* T of the induction score's repeated sequence */
    /* GPT-2's byte pieces: a character split over several tokens (Chinese, emoji) is written once over
     * its pieces' chips. piece_first[i]: the first token of the run of pieces of token i's characters,
     * or -1 when token i is whole characters; piece_text[i], at a run's first token: those characters */
    bool has_pieces;
    short piece_first[ATTN_TRACE_MAX_TOKENS];
    char piece_text[ATTN_TRACE_MAX_TOKENS][16];
    /* the hovered X cell's LayerNorm arithmetic (hf_explain_ln1), when ln_valid */
    bool ln_valid;
    int ln_width; /* the columns mean and var are over */
    double ln_x, ln_mean, ln_var, ln_eps, ln_w, ln_b, ln_value;
} viz_hf;

typedef struct {
    /* what is computed */
    const attn_trace *trace;          /* the current trace; never NULL when drawing */
    const attn_trace *alt_trace;      /* compare = scale or config: the same input, the second view's settings */
    const char *compare_labels[2];    /* compare = config: what each view's settings are ("mask=window:2");
                                         compare = sentence: each view's sentence */
    const model_result *alt_run;      /* compare = sentence: the second sentence through the model (alt_trace is
                                         its layer `layer`) */
    int alt_query;                    /* compare = sentence: the second sentence's query token */
    const char *notice;               /* a notice over the canvas (weights that no longer fit), or NULL */
    viz_origin origin;                /* where the trace's given weights came from (for the badge and notices) */
    const char *const *feature_names; /* d_model names for X's columns, or NULL */
    /* a trained model (model NULL: one designed or random layer) */
    const model *model;                     /* the model; trace is its layer `layer` of run */
    const model_result *run;                /* the sentence through it, with the backward pass's target */
    int layer;                              /* layer shown, 0-based */
    bool readout;                           /* the rail's readout entry is shown instead of step */
    bool backward;                          /* the gradients on the scale, mask and softmax steps */
    viz_target target;                      /* whose answers run's targets are */
    bool page_model;                        /* the model is the lesson page's: it is not closed from the rail */
    const model_explanation *model_explain; /* the hovered cell's arithmetic with a model (explain is NULL then) */
    const viz_hf *hf;                       /* a real model (--hf): trace is its layer `layer`; NULL otherwise
                                               (model is NULL then; readout shows its next tokens) */
    viz_names names;                        /* the lesson's names of Q/K/V/Z and output columns, and the labels it keeps */
    /* what is shown */
    attn_step step;                   /* rail step */
    int head;                         /* head shown, 0-based */
    int head_b;                       /* compare = heads: the second head */
    int query;                        /* selected query token, or -1 */
    viz_mark mark;                    /* what the lesson page points at (VIZ_MARK_NONE: nothing) */
    viz_hit hover;                    /* hovered or cursor cell (VIZ_HIT_NONE when none) */
    const attn_explanation *explain;  /* explanation of hover when it is a cell, else NULL */
    viz_compare compare;              /* split view */
    bool lines_all_heads;             /* the attention-lines view shows every head, one colour each */
    bool hide_weights;                /* predict-before-reveal: weights, outputs and lines hidden */
    bool question;                    /* the page asks which token the query attends to (answered or not) */
    viz_focus focus;                  /* keyboard focus (drawn as an outline) */
    float canvas_zoom;                /* 1 = fit; > 1 zooms into the canvas */
    float canvas_pan_x, canvas_pan_y; /* canvas scroll in pixels at the current zoom */
    float narrative_scroll;           /* narrative panel scroll in pixels; < 0: to its verdict paragraph (VIZ_VERDICT_MARK) */
    int detail_scroll;                /* terms the cell arithmetic is scrolled by (0: around the cell's own term) */
    /* the sentence bar */
    const char *sentence;    /* text shown in the bar (the edit buffer while editing) */
    bool editing;            /* edit mode: draw a cursor */
    int cursor;              /* byte offset of the cursor in sentence */
    int sel_anchor;          /* the selection runs from here to the cursor, or -1: none */
    const char *composition; /* IME pre-edit text shown at the cursor, or "" */
    const char *edit_error;  /* why the last edit was rejected, or NULL */
    /* texts */
    const char *const *ui;       /* VIZ_STR_COUNT strings in the current language */
    const char *badge;           /* weights source, e.g. "random, untrained (seed 1)" */
    const char *narrative_title; /* narrative panel title (lesson page), or NULL: the step name */
    int n_tries;                 /* the page's @try suggestions, as the chips under the title say them */
    const char *tries[VIZ_MAX_TRIES];
    const char *narrative_note; /* said before the step's text when no page text is shown (a walkthrough from a lesson), or NULL */
    int n_words;                /* the model's words, while its sentence is edited (a palette), else 0 */
    const char *const *words;
    int words_first;                    /* the first of them shown (‹ › page through them when they do not all fit) */
    const char *narrative;              /* narrative text; paragraphs split by blank lines, code lines marked */
    const char *status;                 /* status line text */
    const char *page_label;             /* e.g. "3 / 14", or NULL without a lesson */
    const struct lesson *pages;         /* the open lesson (its page controls and list), or NULL */
    int page;                           /* its page shown */
    bool show_pages;                    /* the page list overlay */
    bool show_help;                     /* the key help overlay */
    const char *help_note;              /* lines the help adds below the keys (the browser's), or NULL */
    bool show_lab;                      /* the complexity lab overlay */
    const attn_cx_result *lab;          /* its measurements, or NULL while they run */
    float lab_elapsed;                  /* seconds the measurement has been running */
    const struct viz_train_view *train; /* the training view (F3, viz_train.h), or NULL when it is closed */
    bool show_decode;                   /* the decode view (F5) in the canvas: generation token by token with a KV cache */
    const attn_decode *decode;          /* its decoding of trace (token: query), or NULL when the mask does not allow it */
    const attn_tiles *tiles;            /* issue 24: the tiles view (F4): the shown head's record, or NULL when closed */
    int tiles_step;                     /* … the step it shows, from 0 */
    bool figure_only;                   /* F: the figure (or the training view's heatmaps) takes the whole window */
    /* look */
    viz_theme_id theme;
    float scale;       /* UI scale (DPI × zoom) */
    int width, height; /* window size in pixels */
} viz_scene;

/* Builds the whole window into l (cleared first). m measures text. */
void viz_build_window(viz_list *l, const viz_scene *s, viz_measure m);

/* Builds one step's figure (title, equation, matrices, legend, badge) into a
 * w×h canvas (l cleared first); the figure view of exports. */
void viz_build_figure(viz_list *l, const viz_scene *s, viz_measure m, int w, int h);

#endif
