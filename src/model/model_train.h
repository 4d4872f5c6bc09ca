/* model_train.h — training a model on a task: AdamW as torch.optim.AdamW,
 * a trainer whose loop the caller owns (one step at a time, so a GUI can run
 * it on a background thread and pause it between steps), and evaluation.
 *
 * Deterministic: the examples of a step come in a fixed order drawn from the
 * seed, their gradients are summed in that order, and every loop is a plain
 * loop (no CPU-dispatched kernels), so the same task, configuration and seed
 * give the same bytes whatever the thread, the pauses or the machine's
 * vector units. A trainer holds no global state: several may run at once. */
#ifndef MODEL_TRAIN_H
#define MODEL_TRAIN_H

#include "model.h"
#include "task.h"

/* ---- AdamW (Loshchilov & Hutter 2019), as torch.optim.AdamW ----------------- */

#define MODEL_ADAM_BETA1 0.9
#define MODEL_ADAM_BETA2 0.999
#define MODEL_ADAM_EPS 1e-8

typedef struct {
    double *m;    /* first moments, one per parameter (owned) */
    double *v;    /* second moments (owned) */
    size_t count; /* parameters */
    int step;     /* steps taken: t in the bias corrections */
} model_adamw;

/* Zeroed moments for count parameters. */
attn_status model_adamw_init(model_adamw *a, size_t count, attn_err *err);

/* One step on m's parameters with their gradient grad (m->n_params entries):
 * for each parameter, p ← p·(1 − lr·wd) when its tensor decays (E, P, U and
 * W_*), then m ← β1·m + (1 − β1)·g, v ← β2·v + (1 − β2)·g², and
 * p ← p − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + ε). */
void model_adamw_step(model_adamw *a, model *m, const double *grad, double lr, double weight_decay);

void model_adamw_free(model_adamw *a);

/* ---- evaluation ------------------------------------------------------------- */

typedef struct {
    double loss;               /* mean loss over every target row */
    int rows;                  /* target rows seen */
    int right;                 /* of them predicted right */
    double accuracy;           /* right / rows */
    int sentences;             /* examples seen */
    int referent_right;        /* referent tasks: sentences whose last-layer strongest weight from the pronoun is on the referent */
    double referent_attention; /* referent_right / sentences (referent tasks; else 0) */
    int kind_rows[2];          /* referent tasks: target rows whose predicate points to the subject (0) or the other noun (1) */
    int kind_right[2];         /* of them predicted right */
} model_eval;

/* Evaluates examples [first, first + count) of d with the model ws is bound
 * to (ws from model_ws_init). Errors as model_forward and model_loss. */
attn_status model_evaluate(model_eval *out, model_ws *ws, const task_dataset *d, int first, int count,
                           attn_err *err);

/* The training targets of example i of d for objective o, into out
 * (MODEL_MAX_LEN entries); returns their count. */
int model_example_targets(model_target *out, const task_dataset *d, int i, model_objective o);

/* ---- the trainer --------------------------------------------------------------- */

typedef struct {
    const task_info *task; /* what it trains on */
    task_dataset data;     /* the task's dataset (owned) */
    task_train_opts opts;  /* steps, batch, lr, weight decay, seed */
    model model;           /* the model being trained (owned) */
    double *grad;          /* the batch's parameter gradient, model.n_params (owned) */
    model_adamw adam;      /* the optimiser's state */
    model_ws ws;           /* one example's forward and backward, bound to model and grad */
    int *order;            /* this epoch's order of the training examples (owned) */
    int cursor;            /* next entry of order */
    int epoch;             /* epochs begun */
    int step;              /* steps taken */
    double last_loss;      /* mean loss of the last step's batch */
} model_trainer;

/* Builds the task's dataset and a model of cfg (max_len: the dataset's
 * longest example) seeded from o->seed. Errors: cfg or o out of range, a
 * configuration the task refuses (task_check_config), memory. On error *t is
 * left empty. */
attn_status model_trainer_init(model_trainer *t, const task_info *task, const model_config *cfg,
                               const task_train_opts *o, attn_err *err);

/* One AdamW step on the next batch. Returns ATTN_OK, or ATTN_ERR_NONFINITE
 * when the loss is not finite (the step is not applied). */
attn_status model_trainer_step(model_trainer *t, attn_err *err);

/* Evaluates the model as it is (training loss, held-out accuracy, referent
 * attention) into t->model.training, ready to be saved. */
attn_status model_trainer_finish(model_trainer *t, attn_err *err);

/* A deep copy of the model as it is now, with its training record, into *out
 * (which must not own anything). Call it between steps: a trainer is not
 * locked, the caller serialises access to it. */
attn_status model_trainer_snapshot(const model_trainer *t, model *out, attn_err *err);

/* Frees what t owns and zeroes it. NULL is a no-op. */
void model_trainer_free(model_trainer *t);

#endif
