/* export_types.h — the types of src/export: the options, an item (one
 * figure to write), a matrix of it and the format bits. Apart from export.h
 * so that the folder's private header (export_internal.h) needs no public
 * functions and export.c can include it without a circle. */
#ifndef ATTN_EXPORT_TYPES_H
#define ATTN_EXPORT_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_decode.h"
#include "attn_err.h"
#include "attn_tiles.h"
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

#define EXPORT_ALL_STEPS ((1u << ATTN_STEP_COUNT) - 1) /* bit s selects attn_step s (2b: shown only with RoPE) */
#define EXPORT_STEP_READOUT (1u << ATTN_STEP_COUNT)    /* --steps 9: a model's readout */
#define EXPORT_MAX_MODEL_ITEMS (MODEL_MAX_LAYERS * (ATTN_STEP_COUNT + 3) + 1)
#define EXPORT_MAX_SCALE 3
#define EXPORT_MIN_SIZE 160 /* logical px, each side */
#define EXPORT_MAX_SIZE 8192

typedef enum {
    EXPORT_VIEW_FIGURE, /* the step's canvas: title, equation, matrices, legend, badge */
    EXPORT_VIEW_WINDOW  /* the whole window as the GUI shows it */
} export_view;

typedef struct {
    const char *dir;   /* target folder; created (with parents) when missing */
    unsigned formats;  /* EXPORT_* bits; md without png/svg adds png */
    int pixel_scale;   /* 1..3: PNG pixels per logical px (text drawn at that size) */
    float ui_scale;    /* the UI scale the figure is laid out at, 0.5..4 (0: 1); the
                                   GUI passes its DPI × zoom so a window export is the window */
    int width, height; /* figure or window size in logical px (0: 1280×800) */
    viz_theme_id theme;
    viz_lang lang;  /* language of figure texts, handout and captions */
    unsigned steps; /* EXPORT_ALL_STEPS or some bits; used by export_sentence */
    export_view view;
    bool caption;               /* burn step, equation, sentence and configuration into PNG/SVG */
    const char *command_prefix; /* the command up to the export flags, e.g. "attnviz --headless
                                   --sentence '…' --d-model 8 …"; the index appends the export
                                   flags to it. NULL: "attnviz --headless" */
    const char *weights_path;   /* --weights file: named in the index; NULL: none */
    const char *weights_sha256; /* hex SHA-256 of the bytes read from it (attn_weights_file's), or NULL */
    const char *lesson_path;    /* lesson file: named in the index; NULL: none */
    const char *sentence;       /* export_lesson: the pages shown with this sentence (--sentence with --page), as
                                   the window shows a page after the sentence is edited; NULL: each page's own */
    const char *lesson_sha256;  /* hex SHA-256 of the lesson as read; NULL: export_lesson takes the lesson's */
    const char *title;          /* handout and index heading; NULL: a default */
    viz_origin origin;          /* export_sentence: where the trace's given weights came from */
} export_opts;

typedef struct {
    const attn_trace *trace;          /* what to show (borrowed, never NULL) */
    attn_step step;                   /* which of the eight steps */
    int number;                       /* NN in file names; <= 0: its position in the list, from 1 */
    int head;                         /* head shown in the figure and the .tex, 0-based */
    int query;                        /* query token of the softmax lines; -1: 它/it if present, else 0 */
    const char *id;                   /* file stem after "NN-", [A-Za-z0-9_-]; NULL: the step's slug */
    const char *title;                /* page title (handout, index); NULL: the step's name */
    const char *text;                 /* page text for the handout (Markdown, blank-line paragraphs);
                                   NULL: the step's hint from the UI strings */
    const char *text_after;           /* the page's text after its @reveal: after the figure; NULL: none */
    const char *narrative;            /* --view window: the narrative panel's text as the window shows it
                                   (viz_lesson_narrative); NULL: text */
    viz_origin origin;                /* where the trace's given weights came from (the figure's badge) */
    viz_mark mark;                    /* what the figure points at besides the query (a lesson's @highlight) */
    const attn_trace *alt;            /* a lesson page's @compare view (for its {references}), or NULL */
    viz_compare compare;              /* the split view the figure shows, as the window does (a page's @compare, C):
                                         scale and config draw alt beside trace */
    int head_b;                       /* compare = heads: the second head */
    char compare_labels[2][96];       /* compare = config: the settings each view sets ("mask=none") */
    const char *const *feature_names; /* names of X's columns (lesson vocabulary), or NULL */
    viz_names names;                  /* a lesson's names of Q/K/V/Z columns and the labels its page keeps */
    const char *remake_flags;         /* flags that make only this item again, e.g. "--steps 3" or
                                   "--page intro"; NULL: none (the whole batch is remade) */
    const lesson_page *page;          /* the lesson page it shows (html: its paragraphs, its question), or NULL */
    /* a trained model's figure (model NULL: one designed or random layer) */
    const model *model;      /* the model; trace is &run->layer[layer] */
    const model_result *run; /* the sentence through it, with the backward pass's target */
    int layer;               /* 0-based */
    bool readout;            /* the readout after the last layer (step is ignored) */
    bool backward;           /* steps 4–6 with their gradients beside them */
    viz_target target;       /* whose answers run's targets are */
    const char *prefix;      /* before "NN-" in file names, e.g. "L2-"; NULL: none */
    /* issue 24 part 4: a step of the tiles view (F4) instead of the step */
    const attn_tiles *tiles;   /* the head's online softmax record, or NULL; with it PNG, SVG, CSV (the
                                step's m, l and O), a LaTeX document and an HTML page of the step */
    int tiles_step;            /* which of its steps, from 0 */
    const attn_decode *decode; /* the decode view of trace (issue 24) in place of the step: PNG, SVG and a CSV of
                                  its per-token record; NULL: the step */
} export_item;

/* How a matrix's rows or columns are labelled. */
typedef enum {
    EXPORT_AXIS_TOKENS, /* token labels ("9:只" for a repeated token) */
    EXPORT_AXIS_DIMS,   /* d0, d1, … (or feature names for X) */
    EXPORT_AXIS_CONCAT, /* h1.0, h1.1, …, h2.0 … */
    EXPORT_AXIS_WORDS   /* a model's vocabulary (the readout's columns) */
} export_axis;

typedef struct {
    const char *name; /* file part and CSV corner: "S", "W_Q", "S_scaled" … */
    const char *tex;  /* LaTeX symbol: "S", "W_Q", "\\tilde{S}" … */
    const double *v;  /* rows × cols, row-major, borrowed from the trace */
    int rows, cols;
    int head; /* 0-based head, or -1 for a whole-layer matrix */
    export_axis row_axis, col_axis;
    bool features;            /* columns are X's features (names given) */
    const char *const *words; /* EXPORT_AXIS_WORDS: the vocabulary */
} export_matrix;

#define EXPORT_MAX_MATRICES (6 * ATTN_TRACE_MAX_HEADS)

#endif
