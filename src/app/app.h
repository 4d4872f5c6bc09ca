/* app.h — the app's state and the actions that change it. No SDL here:
 * events are translated into these actions elsewhere (app_sdl.c), so the
 * state can be tested with no window (tests/test_app.c).
 *
 * Layer 7 (src/app): includes every layer below; only src/main.c is above it. */
#ifndef APP_H
#define APP_H

#include <stdbool.h>

#include "viz_strings.h"
#include "attn.h"
#include "attn_json.h"
#include "lesson.h"
#include "model_run.h"
#include "viz_scene.h"
#include "viz_strings.h"

#define APP_STATUS_CAP 512

typedef enum { APP_WEIGHTS_RANDOM, APP_WEIGHTS_DESIGN, APP_WEIGHTS_FILE } app_weights_mode;

/* A lesson in the window: the file in each language, the page shown, its
 * designed weights and text, and its question. */
typedef struct {
    lesson *files[VIZ_LANG_COUNT];   /* the open lesson in each language, paired by page id (owned; NULL: none) */
    char *paths[VIZ_LANG_COUNT];     /* their files (owned), for reloading */
    long long mtimes[VIZ_LANG_COUNT];/* modification times seen at load (ns) */
    int page;                        /* current page of the current language's lesson */
    char *narrative;                 /* the page's text as paragraphs (owned), or NULL */
    char page_label[96];             /* "3 / 12" for the status line, or "" */
    bool predict_pending;            /* predict before reveal: weights hidden until a guess */
    int predict_head;                /* the question's head */
} app_lesson_state;

/* Where the walkthrough's model came from (the badge says it). */
typedef enum { APP_MODEL_NONE, APP_MODEL_FILE, APP_MODEL_TRAINED } app_model_source;

/* A trained model in the walkthrough: every layer's eight steps, the
 * readout and the backward pass of the sentence. */
typedef struct {
    model *m;                 /* the model shown (owned), or NULL: the one-layer walkthrough */
    app_model_source source;  /* FILE: named by name; TRAINED: in this window (task, steps, seed in m) */
    char name[256];           /* FILE: the file as the learner named it */
    model_result run;         /* the sentence through m, with its target (valid while m is) */
    int layer;                /* layer shown, 0-based */
    bool readout;             /* the rail's readout entry (key 9) is shown instead of a step */
    bool backward;            /* B: the gradients on the scale, mask and softmax steps */
    bool target_labelled;     /* the target is the task's own answer (else the model's prediction) */
    model_explanation *explain; /* the hovered cell's arithmetic (owned while m is) */
    attn_config saved_cfg;    /* the settings before the model came, restored when it goes */
    bool from_page;           /* the lesson page named it (@model); else the lesson waits behind it */
} app_model_state;

/* Checks text edited in place of the sentence (the training view's probe):
 * true when ctx's owner takes it, else false with the reason in why (the
 * owner keeps its last valid text). */
typedef bool (*app_edit_check)(void *ctx, const char *text, char *why, size_t cap);

typedef struct {
    /* what is computed */
    char *sentence;             /* last valid sentence (owned, UTF-8) */
    attn_config cfg;            /* current configuration */
    attn_config design_cfg;     /* configuration the lesson's design needs (R returns to it) */
    app_weights_mode weights;   /* where supplied weights come from (the trace says which it took) */
    const attn_vocab *vocab;    /* lesson vocabulary or NULL (borrowed) */
    attn_weights_file wfile;    /* --weights file contents (owned; empty when unused) */
    char weights_name[256];     /* --weights path as given, for the badge */
    char notice[APP_STATUS_CAP];/* over the canvas: the design or file no longer fits the settings, or "" */
    attn_config compare_base;   /* compare = config: the page's settings … */
    attn_config compare_cfg;    /* … and its @compare's; the second view applies their difference */
    char compare_labels[2][96]; /* compare = config: the settings in which the two views differ, each view's */
    attn_trace trace;           /* trace of sentence under cfg (always valid after app_init) */
    attn_trace alt;             /* compare = scale: the same with scaling toggled */
    attn_explanation *explain;  /* explanation of the hovered cell (owned) */
    bool explain_valid;         /* explain describes hover */
    /* what is shown */
    attn_step step;              /* rail step */
    int head, head_b;           /* head shown; second head when comparing heads */
    int query;                  /* selected query token */
    viz_hit hover;              /* hovered or keyboard-cursor cell/token */
    viz_focus focus;            /* keyboard focus */
    viz_compare compare;        /* split view */
    bool lines_all;             /* A: the attention lines of every head */
    bool show_help;             /* help overlay */
    bool show_lab;              /* complexity lab overlay */
    const attn_cx_result *lab;  /* its measurements once done (owned by the window), else NULL */
    float lab_elapsed;          /* seconds the measurement has run */
    float canvas_zoom;          /* canvas zoom (1 = fit) */
    float pan_x, pan_y;         /* canvas pan in pixels */
    float narrative_scroll;     /* narrative panel scroll */
    int detail_scroll;          /* terms the cell arithmetic is scrolled by (0: around the cell's own) */
    /* editing the sentence */
    bool editing;               /* keys are text while true */
    char *edit;                 /* edit buffer (owned) */
    size_t edit_len, edit_cap;  /* bytes used / allocated in edit */
    int cursor;                 /* byte offset in edit */
    int sel_anchor;             /* the other end of the selection (Ctrl+A), or -1 when nothing is selected */
    char composition[256];      /* IME pre-edit text */
    char *edit_backup;          /* sentence before editing, restored by Esc (owned) */
    char edit_error[512];       /* why the edit buffer is not a valid sentence, or "" */
    app_edit_check edit_check;  /* editing another text than the sentence: what checks it, else NULL */
    void *edit_ctx;             /* its context */
    /* look and feel */
    viz_lang lang;              /* UI language */
    viz_theme_id theme;         /* colour theme */
    float dpi_scale;            /* from the display (or --ui-scale) */
    float zoom;                 /* user zoom, Ctrl+= / Ctrl+− (persisted) */
    bool fullscreen;            /* F11 */
    int width, height;          /* window size in pixels */
    char status[APP_STATUS_CAP];/* status line */
    const viz_strings *strings; /* UI strings (borrowed) */
    /* lessons */
    app_lesson_state lesson;    /* the open lesson, its page and question */
    /* a trained model */
    app_model_state model;      /* the model in the walkthrough, its layer, readout and backward */
    /* bookkeeping */
    bool dirty;                 /* something visible changed: rebuild the display list */
    bool quit;                  /* leave the main loop */
} app_state;

/* Initialises st with the sentence (NULL: the seed sentence) and cfg, and
 * computes the first trace. Returns ATTN_OK, or the core's error (then st is
 * freed). strings is borrowed for the app's lifetime. */
attn_status app_init(app_state *st, const char *sentence, const attn_config *cfg,
                     const viz_strings *strings, attn_err *err);
void app_free(app_state *st); /* NULL is a no-op */

/* Computes sentence under cfg and makes both current; on error nothing changes. */
attn_status app_set_sentence(app_state *st, const char *sentence, const attn_config *cfg, attn_err *err);
/* Recomputes the current sentence and settings (e.g. after the view changed what is compared). */
void app_recompute(app_state *st);
/* Re-derives texts that depend on the language (the badge). */
void app_refresh_texts(app_state *st);

/* A file dropped on the window: a model file (it names the format
 * "attnviz-model") goes into the walkthrough, a .lesson file opens, anything
 * else is read as a weights file. The status line says what happened; on
 * error the view stays. */
void app_open_dropped(app_state *st, const char *path);

/* Reads --weights; the app then shows "from FILE". */
attn_status app_use_weights_file(app_state *st, const char *path, attn_err *err);

/* Where the weights the trace was given came from. */
viz_origin app_origin(const app_state *st);

/* The weights badge of the current trace, in the current language. */
void app_badge(const app_state *st, char *out, size_t cap);

/* A UI string in the current language. */
const char *app_str(const app_state *st, viz_str id);

/* Sets the status line (printf-style, UTF-8). */
void app_status(app_state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- actions ---- */
void app_step(app_state *st, int delta);           /* previous/next step, clamped */
void app_goto_step(app_state *st, int step);
void app_select_query(app_state *st, int token);
void app_hover(app_state *st, viz_hit hit);        /* also updates the explanation */
void app_move_cursor(app_state *st, int drow, int dcol); /* keyboard cell cursor in the canvas */
void app_toggle_focus(app_state *st);
/* A control changed by delta (-1, +1) or toggled (0): heads, d_k, ... */
void app_widget(app_state *st, viz_widget w, int delta);
void app_reset(app_state *st);                     /* R: the lesson's or the default view */
void app_toggle_help(app_state *st);

/* ---- editing ---- */
void app_edit_begin(app_state *st);
/* Edits text in place of the sentence with the same keys: each change is
 * given to check (with ctx), Enter keeps the last text it took, Esc gives it
 * text again. The sentence bar does not show it. */
void app_edit_begin_other(app_state *st, const char *text, app_edit_check check, void *ctx);
void app_edit_insert(app_state *st, const char *utf8); /* typed or committed text */
void app_edit_compose(app_state *st, const char *preedit);
void app_edit_backspace(app_state *st);
void app_edit_delete(app_state *st);
void app_edit_move(app_state *st, int delta);      /* by code points; INT_MIN/INT_MAX for Home/End */
void app_edit_commit(app_state *st);               /* Enter */
void app_edit_cancel(app_state *st);               /* Esc: restore the sentence */
void app_edit_select_all(app_state *st);           /* Ctrl+A: typing replaces it, Backspace removes it */

/* ---- lessons (app_lesson.c) ---- */
/* Opens path (and pair_path, the same lesson in the other language, when not
 * NULL) and shows the first page, or page_id. The language follows the lesson.
 * path is read once (it may be a pipe); pair_path, which attnviz found, only
 * when it is a regular file. */
attn_status app_lesson_open(app_state *st, const char *path, const char *pair_path, const char *page_id,
                            attn_err *err);
/* The lesson in the current language (else the other's), or NULL; its file. */
const lesson *app_lesson(const app_state *st);
const char *app_lesson_path(const app_state *st);
/* Shows page i: its sentence, settings, weights, step, highlight, question. */
void app_lesson_goto(app_state *st, int page);
/* N / P: next or previous page (no-op at the ends or without a lesson). */
void app_lesson_turn(app_state *st, int delta);
/* Clicker keys: the next step, and at the ends of the steps the next page. */
void app_clicker(app_state *st, int delta);
/* L: the other language, on the paired page. */
void app_switch_lang(app_state *st);
/* Rebuilds the narrative of the page from its text, its {references} on the
 * current trace, what the learner has answered and the tokens outside the
 * vocabulary. */
void app_lesson_refresh_narrative(app_state *st);
/* true when the page offers its own comparison (@compare with settings). */
bool app_page_compares_config(const app_state *st);
/* A click on token during a question: records the guess and reveals. */
void app_lesson_guess(app_state *st, int token);
/* Reloads a lesson whose file changed on disk, keeping the page. Returns true
 * when something was reloaded. Only regular files are watched and reread: a
 * pipe or FIFO was read once, at open. */
bool app_lesson_reload(app_state *st);

/* ---- models (app_model.c) ---- */
/* Puts *m into the walkthrough (m's contents are moved: *m is left zeroed,
 * even on error). source and name say where it came from (name: the file
 * as named, for FILE; NULL otherwise). The sentence stays when m's
 * vocabulary reads it, else m's probe is shown. Errors: the probe does not
 * run (the previous view stays). */
attn_status app_model_use(app_state *st, model *m, app_model_source source, const char *name, attn_err *err);
/* Reads a model file (model_file.h) and puts it into the walkthrough. */
attn_status app_model_open(app_state *st, const char *path, attn_err *err);
/* Takes the model out: the one-layer walkthrough of the sentence again. */
void app_model_close(app_state *st);
/* [ and ]: the previous or next layer (clamped), leaving the readout. */
void app_model_layer(app_state *st, int delta);
/* 9: the readout entry after the last layer. */
void app_model_readout(app_state *st);
/* B: the backward pass on the scale, mask and softmax steps (with a model). */
void app_model_toggle_backward(app_state *st);

/* The trace shown: with a model, its layer's; else the sentence's one layer. */
const attn_trace *app_trace(const app_state *st);

/* ---- derived ---- */
/* Fills s from st (pointers borrowed from st; the badge text is written to
 * badge, cap bytes, which s points at). */
void app_scene(const app_state *st, viz_scene *s, char *badge, size_t cap);
/* The TSV of the matrix under the hover (or the step's result), caller frees. */
char *app_matrix_tsv(const app_state *st, char *what, size_t what_cap);
/* The attnviz command line that reproduces the current view, caller frees. */
char *app_command_line(const app_state *st);

#endif
