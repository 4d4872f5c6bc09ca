/* model_train.c — AdamW, evaluation and the step-at-a-time trainer. */
#include "model_train.h"
#include "attn_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_ORDER 7u /* the PRNG stream that shuffles each epoch's examples */

attn_status model_adamw_init(model_adamw *a, size_t count, attn_err *err) {
    memset(a, 0, sizeof *a);
    a->m = calloc(count, sizeof(double));
    a->v = calloc(count, sizeof(double));
    a->count = count;
    if (!a->m || !a->v) {
        model_adamw_free(a);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the optimiser.");
    }
    return ATTN_OK;
}

void model_adamw_step(model_adamw *a, model *m, const double *grad, double lr, double weight_decay) {
    a->step++;
    // the bias corrections undo the moments' start at 0 (Kingma & Ba 2015)
    double bc1 = 1.0 - attn_pow(MODEL_ADAM_BETA1, a->step);
    double bc2_sqrt = sqrt(1.0 - attn_pow(MODEL_ADAM_BETA2, a->step));
    double step_size = lr / bc1;
    for (int t = 0; t < m->n_tensors; t++) {
        const model_tensor *tt = &m->tensor[t];
        double *p = m->block + tt->offset, *mo = a->m + tt->offset, *v = a->v + tt->offset;
        const double *g = grad + tt->offset;
        // decoupled weight decay: shrink the weight itself, not the gradient, so
        // it does not pass through the adaptive scaling (the "W" of AdamW)
        double decay = tt->decay ? 1.0 - lr * weight_decay : 1.0;
        for (size_t i = 0; i < (size_t)tt->rows * tt->cols; i++) {
            p[i] *= decay;
            mo[i] = mo[i] * MODEL_ADAM_BETA1 + g[i] * (1.0 - MODEL_ADAM_BETA1);
            v[i] = v[i] * MODEL_ADAM_BETA2 + g[i] * g[i] * (1.0 - MODEL_ADAM_BETA2);
            double denom = sqrt(v[i]) / bc2_sqrt + MODEL_ADAM_EPS;
            p[i] += -step_size * (mo[i] / denom);
        }
    }
}

void model_adamw_free(model_adamw *a) {
    if (!a) return;
    free(a->m);
    free(a->v);
    memset(a, 0, sizeof *a);
}

int model_example_targets(model_target *out, const task_dataset *d, int i, model_objective o) {
    const task_target *tg = task_example_targets(d, i);
    int count = d->ex[i].n_targets;
    for (int k = 0; k < count; k++) out[k] = (model_target){tg[k].row, o == MODEL_OBJ_TOKEN ? tg[k].tok : tg[k].pos};
    return count;
}

/* Referent tasks: whether, in the last layer, the head with the largest
 * weight from the pronoun puts it on the referent. */
static bool strongest_on_referent(const model_ws *ws, const task_target *tg) {
    const model_config *c = &ws->cfg;
    int n = ws->n, best_j = 0;
    double best = -1.0;
    for (int h = 0; h < c->heads; h++) {
        const double *row = ws->head[c->layers - 1][h].weights + (size_t)tg->row * n;
        for (int j = 0; j < n; j++)
            if (row[j] > best) best = row[j], best_j = j;
    }
    return best_j == tg->pos;
}

attn_status model_evaluate(model_eval *out, model_ws *ws, const task_dataset *d, int first, int count,
                           attn_err *err) {
    memset(out, 0, sizeof *out);
    model_target t[MODEL_MAX_LEN];
    double loss = 0.0;
    for (int i = first; i < first + count; i++) {
        const int *ids = task_example_ids(d, i);
        int nt = model_example_targets(t, d, i, ws->cfg.objective);
        attn_status st = model_forward(ws, ids, d->ex[i].n, err);
        if (st == ATTN_OK) st = model_loss(ws, ids, t, nt, 1.0, false, &loss, err);
        if (st != ATTN_OK) return st;
        task_roles_at at;
        bool kinds = d->task->referent && task_roles(d->task, ids, d->ex[i].n, &at);
        for (int k = 0; k < nt; k++) {
            bool ok = model_predict_row(ws, t[k].row) == t[k].target;
            out->right += ok;
            int kind = kinds && task_example_targets(d, i)[0].pos == at.a ? 0 : 1; // the predicate points to A, else B
            if (kinds) out->kind_rows[kind]++, out->kind_right[kind] += ok;
        }
        out->rows += nt;
        out->sentences++;
        if (d->task->referent) out->referent_right += strongest_on_referent(ws, task_example_targets(d, i));
    }
    out->loss = out->rows ? loss / out->rows : 0.0;
    out->accuracy = out->rows ? (double)out->right / out->rows : 0.0;
    out->referent_attention = out->sentences ? (double)out->referent_right / out->sentences : 0.0;
    return ATTN_OK;
}

static attn_status check_opts(const task_train_opts *o, attn_err *err) {
    if (o->steps < 0 || o->steps > 1000000)
        return attn_fail(err, ATTN_ERR_RANGE, "--train-steps must be between 0 and 1000000 (it is %d).", o->steps);
    if (o->batch < 1 || o->batch > 4096)
        return attn_fail(err, ATTN_ERR_RANGE, "--batch must be between 1 and 4096 (it is %d).", o->batch);
    if (!(o->lr > 0.0 && o->lr <= 10.0))
        return attn_fail(err, ATTN_ERR_RANGE, "--lr must be above 0 and at most 10 (it is %g).", o->lr);
    if (!(o->weight_decay >= 0.0 && o->weight_decay <= 100.0))
        return attn_fail(err, ATTN_ERR_RANGE, "--weight-decay must be between 0 and 100 (it is %g).", o->weight_decay);
    return ATTN_OK;
}

attn_status model_trainer_init(model_trainer *t, const task_info *task, const model_config *cfg,
                               const task_train_opts *o, attn_err *err) {
    memset(t, 0, sizeof *t);
    t->task = task;
    t->opts = *o;
    model_config c = *cfg;
    c.max_len = 1; // checked with the dataset's length below
    attn_status st = check_opts(o, err);
    if (st == ATTN_OK) st = model_config_check(&c, err);
    if (st == ATTN_OK) st = task_check_config(task, &c, err);
    if (st == ATTN_OK) st = task_dataset_build(&t->data, task, err);
    if (st != ATTN_OK) goto cleanup;
    c.max_len = t->data.max_len;
    st = model_create(&t->model, &c, task->vocab, task->vocab_count, task->name, task->probe, err);
    if (st != ATTN_OK) goto cleanup;
    model_init_weights(&t->model, o->seed);
    t->grad = calloc(t->model.n_params, sizeof(double));
    t->order = malloc(sizeof(int) * (size_t)t->data.n_train);
    if (!t->grad || !t->order) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to train.");
        goto cleanup;
    }
    st = model_adamw_init(&t->adam, t->model.n_params, err);
    if (st == ATTN_OK) st = model_ws_init(&t->ws, &t->model, t->grad, err);
    if (st != ATTN_OK) goto cleanup;
    t->cursor = t->data.n_train; // the first step shuffles
    model_training *r = &t->model.training;
    r->seed = o->seed;
    r->batch = o->batch;
    r->lr = o->lr;
    r->weight_decay = o->weight_decay;
    r->has_referent = task->referent;
    return ATTN_OK;
cleanup:
    model_trainer_free(t);
    return st;
}

/* A new epoch: the training examples in an order drawn from (seed, epoch) (Fisher–Yates). */
static void shuffle(model_trainer *t) {
    int n = t->data.n_train;
    for (int i = 0; i < n; i++) t->order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        double u = attn_prng_uniform(t->opts.seed, STREAM_ORDER, (uint64_t)t->epoch * (uint64_t)n + (uint64_t)i, 1.0);
        int j = (int)((u + 1.0) * 0.5 * (i + 1));
        if (j > i) j = i;
        int keep = t->order[i];
        t->order[i] = t->order[j];
        t->order[j] = keep;
    }
    t->epoch++;
    t->cursor = 0;
}

attn_status model_trainer_step(model_trainer *t, attn_err *err) {
    int batch[4096], b = t->opts.batch, targets = 0;
    for (int k = 0; k < b; k++) { // the batch, wrapping into the next epoch
        if (t->cursor >= t->data.n_train) shuffle(t);
        batch[k] = t->order[t->cursor++];
        targets += t->data.ex[batch[k]].n_targets;
    }
    // the loss is the mean over the batch's target rows, so each row's gradient is scaled by 1/targets
    memset(t->grad, 0, sizeof(double) * t->model.n_params);
    double loss = 0.0;
    model_target tg[MODEL_MAX_LEN];
    for (int k = 0; k < b; k++) {
        int i = batch[k];
        const int *ids = task_example_ids(&t->data, i);
        int nt = model_example_targets(tg, &t->data, i, t->model.cfg.objective);
        attn_status st = model_forward(&t->ws, ids, t->data.ex[i].n, err);
        if (st == ATTN_OK) st = model_loss(&t->ws, ids, tg, nt, 1.0 / targets, true, &loss, err);
        if (st != ATTN_OK) return st;
    }
    model_adamw_step(&t->adam, &t->model, t->grad, t->opts.lr, t->opts.weight_decay);
    t->step++;
    t->last_loss = loss;
    t->model.training.steps = t->step;
    return ATTN_OK;
}

attn_status model_trainer_finish(model_trainer *t, attn_err *err) {
    model_eval train, held;
    attn_status st = model_evaluate(&train, &t->ws, &t->data, 0, t->data.n_train, err);
    if (st == ATTN_OK) st = model_evaluate(&held, &t->ws, &t->data, t->data.n_train, t->data.n_heldout, err);
    if (st != ATTN_OK) return st;
    model_training *r = &t->model.training;
    r->steps = t->step;
    r->loss = train.loss;
    r->heldout_accuracy = held.accuracy;
    r->referent_attention = held.referent_attention;
    return ATTN_OK;
}

attn_status model_trainer_snapshot(const model_trainer *t, model *out, attn_err *err) {
    return model_copy(out, &t->model, err);
}

void model_trainer_free(model_trainer *t) {
    if (!t) return;
    model_ws_free(&t->ws);
    model_adamw_free(&t->adam);
    model_free(&t->model);
    task_dataset_free(&t->data);
    free(t->grad);
    free(t->order);
    memset(t, 0, sizeof *t);
}
