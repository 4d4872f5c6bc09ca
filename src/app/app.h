/* app.h — the app's state (its one header) and floor 1 of src/app: the
 * state and its compute pipeline. No SDL here: the state can be tested with
 * no window (tests/test_app.c).
 *
 * The floors of src/app, lowest first. A file includes only headers of its
 * own floor's module or of lower floors (a .c and its .h are one module),
 * so no two modules of src/app depend on each other. A higher floor's need
 * that a lower one would meet by calling up becomes data instead: a new
 * trace marks the lesson's narrative stale (lesson.narrative_stale), and it
 * is rebuilt when the scene is built (app_view.c).
 *  0. no app state: app_editor (the sentence editor, fed by any input
 *     source), app_paths (data, settings and pictures folders), app_lab (the
 *     complexity lab's thread), app_script (the script parser);
 *  1. app.h/app.c: the state and its compute pipeline (traces, the model's
 *     run, the notice, the hovered cell's explanation) and what only reads
 *     or frees the state; app_hf.c, the real model's part of it (--hf: its
 *     run on a worker thread, published as the trace; declared here);
 *  2. app_model (a trained model in the walkthrough), app_settings (saved
 *     settings in and out of the state);
 *  3. app_lesson (pages, the language pair, questions, reloading);
 *  4. app_actions (what input asks for, routed to the floors below) and
 *     app_view (the scene, the copied matrix, the command line);
 *  5. app_train (the training view, F3);
 *  6. app_sdl: the SDL event layer: it translates events into actions and
 *     draws the scene; it changes the state only through actions;
 *  7. app_script_run, app_expect, app_bench: drivers of the window (scripts,
 *     their expectations, --bench).
 *
 * Layer 7 (src/app) of the source tree: includes every layer below; only
 * src/main.c is above it. */
#ifndef APP_H
#define APP_H

#include <stdbool.h>

#include "attn.h"
#include "attn_json.h"
#include "attn_tiles.h"
#include "app_editor.h"
#include "lesson.h"
#include "model_run.h"
#include "page.h"
#include "viz_scene.h"
#include "viz_strings.h"

#define APP_STATUS_CAP 512

typedef enum { APP_WEIGHTS_RANDOM,
               APP_WEIGHTS_DESIGN,
               APP_WEIGHTS_FILE } app_weights_mode;

/* A lesson in the window: the file in each language, the page shown, its
 * designed weights and text, and its question. */
typedef struct {
    lesson *files[VIZ_LANG_COUNT];      /* the open lesson in each language, paired by page id (owned; NULL: none) */
    char *paths[VIZ_LANG_COUNT];        /* their files (owned), for reloading */
    long long mtimes[VIZ_LANG_COUNT];   /* modification times seen at load (ns) */
    int page;                           /* current page of the current language's lesson */
    char *narrative;                    /* the page's text as paragraphs (owned), or NULL */
    bool narrative_stale;               /* what it says changed: rebuilt when the scene is built (app_lesson_narrative) */
    char page_label[192];               /* "3 / 12 · title" for the status line, or "" */
    bool predict_pending;               /* predict before reveal: weights hidden until a guess */
    int guess;                          /* the token the learner guessed on this page (its verdict heads the revealed text), or -1 */
    char guess_label[96];               /* its label then: a sentence edited since has no verdict */
    int predict_head;                   /* the question's head */
    char try_labels[VIZ_MAX_TRIES][96]; /* the page's @try sentences, each from where it differs from the page's */
    char walk_note[512];                /* while a model of the learner's own is walked through: how to get back */
    char *kept[VIZ_LANG_COUNT];         /* a sentence the learner edited, kept when L left its language (owned) */
    char kept_page[64];                 /* the page id it was edited on */
} app_lesson_state;

/* Where the walkthrough's model came from (the badge says it). */
typedef enum { APP_MODEL_NONE,
               APP_MODEL_FILE,
               APP_MODEL_TRAINED } app_model_source;

/* A trained model in the walkthrough: every layer's eight steps, the
 * readout and the backward pass of the sentence. */
typedef struct {
    model *m;                   /* the model shown (owned), or NULL: the one-layer walkthrough */
    app_model_source source;    /* FILE: named by name; TRAINED: in this window (task, steps, seed in m) */
    char name[256];             /* FILE: the file as the learner named it */
    model_result run;           /* the sentence through m, with its target (valid while m is) */
    int layer;                  /* layer shown, 0-based */
    bool readout;               /* the rail's readout entry (key 9) is shown instead of a step */
    bool backward;              /* B: the gradients on the scale, mask and softmax steps */
    bool target_labelled;       /* the target is the task's own answer (else the model's prediction) */
    model_explanation *explain; /* the hovered cell's arithmetic (owned while m is) */
    model_result pair_run;      /* compare = sentence: src.pair through m (empty otherwise) */
    attn_config saved_cfg;      /* the settings before the model came, restored when it goes */
    bool from_page;             /* the lesson page named it (@model); else the lesson waits behind it */
} app_model_state;

/* A real model in the walkthrough (--hf DIR, issue 26; app_hf.c): the
 * folder's GPT-2, its last finished run, the layer shown and the worker
 * computing the next sentence. Opaque outside app_hf.c. */
typedef struct app_hf app_hf;

/* Checks text edited in place of the sentence (the training view's probe):
 * true when ctx's owner takes it, else false with the reason in why (the
 * owner keeps its last valid text). */
typedef bool (*app_edit_check)(void *ctx, const char *text, char *why, size_t cap);

/* The sentence bar's editor, or another text edited in its place. */
typedef struct {
    app_editor ed;        /* the text, its cursor, selection, composition and backup (app_editor.h) */
    app_edit_check check; /* editing another text than the sentence: what checks it, else NULL */
    void *ctx;            /* its context */
    char query_word[64];  /* the query's token when editing began: the query stays on it (or the pronoun) */
    int query_at;         /* and its place then */
} app_edit_state;

/* The source and its trace: what is computed, and from what. */
typedef struct {
    char *sentence;              /* last valid sentence (owned, UTF-8) */
    attn_config cfg;             /* current configuration */
    attn_config design_cfg;      /* configuration the lesson's design needs (R returns to it) */
    app_weights_mode weights;    /* where supplied weights come from (the trace says which it took) */
    const attn_vocab *vocab;     /* lesson vocabulary or NULL (borrowed) */
    attn_weights_file wfile;     /* --weights file contents (owned; empty when unused) */
    char weights_name[256];      /* --weights path as given, for the badge */
    char notice[APP_STATUS_CAP]; /* over the canvas: the design or file no longer fits the settings, or "" */
    attn_config compare_base;    /* compare = config: the page's settings … */
    attn_config compare_cfg;     /* … and its @compare's; the second view applies their difference */
    char compare_labels[2][96];  /* compare = config: the settings in which the two views differ, each view's */
    attn_trace trace;            /* trace of sentence under cfg (always valid after app_init) */
    attn_trace alt;              /* compare = scale or config: the second view's trace, else empty */
    char *pair;                  /* compare = sentence: the other sentence through the model (owned), or NULL: the
                                    page's @compare sentence, else the sentence before the learner's last edit */
    attn_explanation *explain;   /* explanation of the hovered cell (owned) */
    bool explain_valid;          /* explain describes the hovered cell */
    attn_decode decode;          /* the decode view's decoding of the trace shown (owned; empty when closed or refused) */
    char decode_text[2048];      /* its narrative: what decoding does and what this token costs */
} app_source_state;

/* What is shown of the trace, and where. */
typedef struct {
    attn_step step;            /* rail step */
    int head;                  /* head shown */
    int head_b;                /* second head when comparing heads */
    int query;                 /* selected query token */
    int words_first;           /* the first of the model's words the palette shows (its ‹ › page) */
    viz_hit hover;             /* hovered or keyboard-cursor cell/token */
    viz_focus focus;           /* keyboard focus */
    viz_compare compare;       /* split view */
    bool lines_all;            /* A: the attention lines of every head */
    bool show_help;            /* help overlay */
    bool figure_only;          /* F: the figure alone, the whole window (--view figure) */
    bool show_pages;           /* the lesson's page list overlay */
    bool show_lab;             /* complexity lab overlay */
    bool show_decode;          /* F5: the decode view in the canvas (issue 24) */
    const attn_cx_result *lab; /* its measurements once done (owned by the window), else NULL */
    float lab_elapsed;         /* seconds the measurement has run */
    float canvas_zoom;         /* canvas zoom (1 = fit) */
    float pan_x;               /* canvas pan in pixels, sideways … */
    float pan_y;               /* … and down */
    float narrative_scroll;    /* narrative panel scroll in pixels */
    int detail_scroll;         /* terms the cell arithmetic is scrolled by (0: around the cell's own) */
    /* issue 24 part 4: the tiles view (F4), FlashAttention's online softmax block by block */
    bool show_tiles;  /* the tiles view is open */
    int tiles_b;      /* its block size B, 1 … n (0 until first opened: then 4) */
    int tiles_step;   /* the step shown, from 0 */
    attn_tiles tiles; /* the shown head's record (owned; app_scene refreshes it while the view is open) */
} app_view_state;

/* The look and feel of the window. */
typedef struct {
    viz_lang lang;               /* UI language */
    viz_theme_id theme;          /* colour theme */
    float dpi_scale;             /* from the display (or --ui-scale) */
    float zoom;                  /* user zoom, Ctrl+= / Ctrl+− (persisted) */
    bool fullscreen;             /* F11 */
    int width;                   /* window width in pixels */
    int height;                  /* window height in pixels */
    char status[APP_STATUS_CAP]; /* status line */
    const viz_strings *strings;  /* UI strings (borrowed) */
} app_look_state;

/* The app: its named parts, then the bookkeeping of the main loop. (The
 * training view's own state is app_train's, beside this in the window.) */
typedef struct {
    app_source_state src;    /* the sentence, settings, weights and their traces */
    app_view_state view;     /* the step, head, query, hover, overlays, zoom and scrolls shown */
    app_edit_state edit;     /* the sentence bar's editor (or the training probe's) */
    app_look_state look;     /* language, theme, scale, window size, status line */
    app_lesson_state lesson; /* the open lesson, its page and question */
    app_model_state model;   /* the model in the walkthrough, its layer, readout and backward */
    app_hf *hf;              /* --hf: the real model shown (owned; src.trace is its layer), else NULL */
    bool dirty;              /* something visible changed: rebuild the display list */
    bool quit;               /* leave the main loop */
} app_state;

/* ---- floor 1: the state and its compute pipeline (app.c) ---- */

/* Initialises st with the sentence (NULL: the seed sentence) and cfg, and
 * computes the first trace. Returns ATTN_OK, or the core's error (then st is
 * freed). strings is borrowed for the app's lifetime. */
attn_status app_init(app_state *st, const char *sentence, const attn_config *cfg,
                     const viz_strings *strings, attn_err *err);
void app_free(app_state *st); /* NULL is a no-op */

/* Computes text under cfg (with a model: through the model, whose settings
 * are its own) and makes the traces current, the sentence unchanged; the
 * selection, notice and hover follow, the narrative is marked stale. On
 * error nothing changes. */
attn_status app_compute(app_state *st, const char *text, const attn_config *cfg, attn_err *err);
/* Computes sentence under cfg and makes both current; on error nothing changes. */
attn_status app_set_sentence(app_state *st, const char *sentence, const attn_config *cfg, attn_err *err);
/* Recomputes the current sentence under cfg; false after saying why on the
 * status line (the traces stay). */
bool app_recompute_with(app_state *st, const attn_config *cfg);
/* Recomputes the current sentence and settings (e.g. after the view changed what is compared). */
void app_recompute(app_state *st);
/* Re-derives texts that depend on the language (the notice; the narrative
 * is marked stale). */
void app_refresh_texts(app_state *st);

/* Reads --weights; the app then shows "from FILE". */
attn_status app_use_weights_file(app_state *st, const char *path, attn_err *err);

/* The hovered or keyboard-cursor cell or token, and the explanation of a
 * cell (a cell that has none is dropped). */
void app_hover(app_state *st, viz_hit hit);

/* Frees what a model state owns and zeroes it (nothing recomputed). */
void app_model_state_free(app_model_state *ms);

/* ---- floor 1, the real model (--hf DIR, issue 26; app_hf.c) ---- */

/* Opens the folder dir (hf_model_open) and computes sentence (NULL: bpe_default
 * for a GPT-2 tokenizer, an English one; wordpiece_default for vocab.txt).
 * wait: at once; then st->src.trace is layer 0 of the run and the settings
 * are the model's (shown, not offered). Else on the worker (the browser's
 * picker: the page keeps answering): the trace shown stays until
 * app_hf_poll publishes layer 0 of the run. Errors: the folder's, the
 * sentence's (its tokens are counted at once either way) — then nothing
 * changed; a first run that fails (now or on the worker) brings back the
 * model before, or without one its sentence on its own. */
attn_status app_hf_open(app_state *st, const char *dir, const char *sentence, const char *bpe_default,
                        const char *wordpiece_default, bool wait, attn_err *err);
/* Tokenizes text with the model's tokenizer (refusals come back at once,
 * in err) and computes it on a worker thread (the browser: in slices); the
 * trace shown stays the last one until app_hf_poll publishes the new run. */
attn_status app_hf_compute(app_state *st, const char *text, attn_err *err);
/* Publishes a finished run (its layer as the trace); true when it did. */
bool app_hf_poll(app_state *st);
/* true while a sentence is being computed. */
bool app_hf_busy(const app_state *st);
/* Lets the sentence being computed finish and publishes it (scripts and
 * tests: their next command sees it computed). */
void app_hf_finish(app_state *st);
/* The layer shown is st->model.layer and step 9 st->model.readout (st->model.m
 * stays NULL): makes that layer the trace shown. */
attn_status app_hf_show_layer(app_state *st, attn_err *err);
/* The hovered cell: X's LayerNorm arithmetic into the scene's viz_hf. */
void app_hf_hover(app_state *st, viz_hit hit);
/* Step 9 as Ctrl+C copies it: "next" then a line per token, most likely
 * first: its label, id and p (as --print next and the dump's "next" give
 * them); what names it ("next"). malloc'd, NULL without --hf. */
char *app_hf_next_tsv(const app_state *st, char *what, size_t what_cap);
/* The folder as given (--hf DIR), or NULL without --hf. */
const char *app_hf_dir(const app_state *st);
/* The folder's last part, for the badge ("gpt2"), or NULL without --hf. */
const char *app_hf_name(const app_state *st);
/* The model's layers (0 without --hf). */
int app_hf_layers(const app_state *st);
/* What the scene shows of it (viz_scene.hf), or NULL without --hf; the
 * model view's rows are brought up to date for the query first. */
const viz_hf *app_hf_view(app_state *st);
/* The model view (F6: every layer × head and the head finder): open or
 * close it (without --hf: says what it is; false), whether it is open, Z's
 * "hide the first token and renormalise", and a head clicked in it
 * (l·n_head + h) opened on step 6. */
bool app_hf_toggle_models(app_state *st);
bool app_hf_models_shown(const app_state *st);
void app_hf_toggle_hide(app_state *st);
void app_hf_open_head(app_state *st, int id);
/* The over-the-canvas note: computing, or how GPT-2 reads the sentence ("" when none). */
void app_hf_notice(const app_state *st, char *out, size_t cap);
/* An @hf lesson page's model (app_lesson.c): opens dir as app_hf_open does, but
 * computes sentence on the worker (the trace shown stays the page's until
 * app_hf_poll publishes the run), then opens the best head by open_field
 * (hf_heads.h's score; -1: none) when its score reaches open_min; no status line. */
attn_status app_hf_open_page(app_state *st, const char *dir, const char *sentence, int open_field, double open_min,
                             attn_err *err);
/* The head finder's scores of the run shown, for a page's {heads …}
 * (page_hf_ref_text reads only scores, count and n_head): scores NULL while
 * computing; all zero without --hf or a page's model, or when its run was refused. */
void app_hf_page_heads(const app_state *st, page_hf *out);
/* Frees st->hf (the worker is waited for). */
void app_hf_free(app_state *st);

/* The trace shown: with a model, its layer's; else the sentence's one layer. */
const attn_trace *app_trace(const app_state *st);

/* The lesson in the current language (else the other's), or NULL; its file. */
const lesson *app_lesson(const app_state *st);
const char *app_lesson_path(const app_state *st);
/* The lesson page whose text and marks are shown: NULL without a lesson, or
 * while a model the page did not name is in the walkthrough. */
const lesson_page *app_lesson_page_shown(const app_state *st);

/* Where the weights the trace was given came from. */
viz_origin app_origin(const app_state *st);

/* The weights badge of the current trace, in the current language. */
void app_badge(const app_state *st, char *out, size_t cap);

/* A UI string in the current language. */
const char *app_str(const app_state *st, viz_str id);

/* An error as the window says it: a message with an id in the current
 * language (the strings table's ERR_<ID>), else its text. */
void app_err_text(const app_state *st, const attn_err *err, char *out, size_t cap);

/* Says err in the status line, in the window's language (app_err_text). */
void app_status_err(app_state *st, const attn_err *err);

/* The same for id and args, in language lang (for tests that walk every id). */
void app_msg_text(const app_state *st, int lang, attn_msg id, const char (*args)[128], char *out, size_t cap);

/* Sets the status line (printf-style, UTF-8). */
void app_status(app_state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
