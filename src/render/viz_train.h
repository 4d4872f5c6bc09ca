/* viz_train.h — the training view (F3) as plain data, and the pure helpers
 * its drawing uses. The window (src/app/app_train.c) fills a viz_train_view
 * from what the training thread published; viz_train.c draws it over the
 * window (viz_window.c calls it when viz_scene.train is set). Nothing here
 * knows the app or the thread. */
#ifndef VIZ_TRAIN_H
#define VIZ_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attn.h"

#define VIZ_TRAIN_MAX_LAYERS 4 /* MODEL_MAX_LAYERS */

/* Hit regions of the view are VIZ_HIT_WIDGET with these ids (above the
 * rail's viz_widget ids); delta -1/+1 for an option's ‹ ›, 0 for its value
 * and for the buttons; VIZ_TW_SNAPSHOT carries the snapshot's index in delta. */
enum {
    VIZ_TW_TASK = 64,
    VIZ_TW_LAYERS,
    VIZ_TW_HEADS,
    VIZ_TW_DMODEL,
    VIZ_TW_LR,
    VIZ_TW_STEPS,
    VIZ_TW_SEED,
    VIZ_TW_START,
    VIZ_TW_STEP,
    VIZ_TW_RESET,
    VIZ_TW_SAVE,
    VIZ_TW_WALK,
    VIZ_TW_SNAPSHOT,
    VIZ_TW_LIVE,
    VIZ_TW_PROBE,
    VIZ_TW_END
};
#define VIZ_TW_FIRST VIZ_TW_TASK
#define VIZ_TW_OPTIONS 7 /* VIZ_TW_TASK … VIZ_TW_SEED */

/* The view's background: a panel hit region that keeps clicks from the window below. */
enum { VIZ_PANEL_TRAIN = 4 };

/* "train_start", "train_layers" … for scripts (click control NAME), and back (-1). */
const char *viz_train_widget_name(int widget);
int viz_train_widget_from_name(const char *name);

typedef enum {
    VIZ_TRAIN_IDLE,    /* made, not started (step 0) */
    VIZ_TRAIN_RUNNING, /* the thread steps */
    VIZ_TRAIN_PAUSED,  /* started, waiting between steps */
    VIZ_TRAIN_DONE,    /* every step taken, the model evaluated */
    VIZ_TRAIN_FAILED   /* stopped by an error (error says which) */
} viz_train_state;

/* One evaluation of the model during training. */
typedef struct {
    int step;            /* after this many steps */
    double train_loss;   /* mean batch loss of the steps since the previous point (at step 0: held-out loss) */
    double heldout_loss; /* mean loss over the held-out examples */
    double accuracy;     /* held-out accuracy, 0..1 */
    double kind_acc[2];  /* referent tasks: held-out accuracy where the predicate points to the subject, to the other noun (NAN: none) */
} viz_train_point;

typedef struct viz_train_view {
    /* the options as chosen (the controls' values) */
    const char *task; /* task name */
    int layers, heads, d_model, steps;
    double lr;
    uint32_t seed;
    int focus;            /* the option the keyboard changes, 0 … VIZ_TW_OPTIONS − 1 */
    bool options_pending; /* the chosen options differ from the training's: Reset applies them */
    /* the training */
    viz_train_state state;
    const char *error;             /* FAILED: why */
    int step, total;               /* steps taken, planned */
    const viz_train_point *points; /* evaluations so far, by step */
    int n_points;
    /* the timeline: snapshots at log-spaced steps */
    const int *snap_steps; /* every scheduled snapshot's step */
    int n_snaps;           /* scheduled */
    int snaps_taken;       /* taken so far (the first snaps_taken of snap_steps) */
    int scrub;             /* the snapshot shown, or -1: the live model */
    int shown_step;        /* the step the heatmaps show */
    /* the probe's attention, every layer and head */
    int n_layers;
    const attn_trace *layer[VIZ_TRAIN_MAX_LAYERS]; /* NULL when the probe could not run */
    int query;                                     /* the row to outline (the pronoun of a referent task), or -1 */
    /* the probe's flipped pair (a referent task's other lesson sentence) through the same model, drawn
     * beside the probe's heatmaps: n_pair_layers 0 when there is none */
    const char *pair;
    int n_pair_layers;
    const attn_trace *pair_layer[VIZ_TRAIN_MAX_LAYERS];
    int pair_query;
    /* the probe field */
    const char *probe; /* the probe (the edit buffer while editing) */
    bool editing;
    int cursor;              /* byte offset of the caret while editing */
    const char *composition; /* IME pre-edit while editing, or "" */
    const char *probe_error; /* why the edited text is refused, or NULL */
    /* what the view says of its data: what they are and what "held out" means,
     * the held-out accuracy by kind of predicate, the probe beside its flipped pair */
    const char *notes[3];
    int n_notes;
} viz_train_view;

/* ---- pure helpers (tested in tests/test_train_view.c) ---- */

/* The x position (0..1) of step on the view's log step axis, which ends at
 * total: log(1 + step) / log(1 + total). */
double viz_train_axis_pos(int step, int total);

/* Tick steps for a log axis ending at total, ascending, into out (cap
 * entries): 0, then the powers of ten up to total, and when the axis spans
 * fewer than three decades 2 and 5 times each power as well. Returns the count. */
int viz_train_step_ticks(int total, int *out, int cap);

/* The decades [*lo, *hi] (powers of ten, lo < hi) a log axis needs to hold
 * every value of v (count values; values below 1e-6 count as 1e-6). */
void viz_train_log_range(const double *v, int count, int *lo, int *hi);

/* A loss as the view writes it: 3 significant digits ("0.0123", "2.71"). */
void viz_train_format_loss(char *out, size_t cap, double v);

#endif
