/* cli_train.c — training from the command line, and the list of tasks. */
#include "cli_train.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fileio.h"
#include "model_file.h"

#define BAR_WIDTH 30

void cli_train_settings(const cli_opts *o, const task_info *task, model_config *cfg, task_train_opts *train) {
    const cli_model_opts *m = &o->model;
    *cfg = task->cfg;
    if (m->set_objective) cfg->objective = m->objective;
    *train = *task_default_training(task, cfg->objective);
    if (o->set_d_model) cfg->d_model = o->cfg.d_model;
    if (o->set_d_k) cfg->d_k = o->cfg.d_k;
    if (o->set_heads) cfg->heads = o->cfg.heads;
    if (o->set_mask) cfg->mask = o->cfg.mask;
    if (o->set_scale) cfg->scale = o->cfg.scale;
    if (o->set_bias) cfg->bias = o->cfg.bias;
    if (o->set_kv_heads) cfg->kv_heads = o->cfg.kv_heads; // grouped-query attention (issue 24)
    if (o->set_seed) train->seed = o->cfg.seed;
    if (m->set_layers) cfg->layers = m->layers;
    if (m->set_pos) cfg->pos = m->pos;
    if (m->set_rope_base) cfg->rope_base = m->rope_base;
    if (m->set_train_steps) train->steps = m->train_steps;
    if (m->set_batch) train->batch = m->batch;
    if (m->set_lr) train->lr = m->lr;
    if (m->set_weight_decay) train->weight_decay = m->weight_decay;
}

/* A bar redrawn in place on a terminal; a line every tenth otherwise. */
static void progress(FILE *out, bool tty, const model_trainer *t, int total) {
    int s = t->step;
    if (tty) {
        int fill = total ? s * BAR_WIDTH / total : BAR_WIDTH;
        fprintf(out, "\r[%.*s%*s] step %d/%d  loss %.4f", fill, "##############################",
                BAR_WIDTH - fill, "", s, total, t->last_loss);
        if (s == total) fputc('\n', out);
        fflush(out);
    } else if (total && (s == total || s % (total / 10 > 0 ? total / 10 : 1) == 0)) {
        fprintf(out, "step %d/%d  loss %.4f\n", s, total, t->last_loss);
    }
}

/* What the trained model answers for the lessons' sentences (referent tasks). */
static void lesson_report(FILE *out, model_trainer *t) {
    const task_lesson_sentence *ls;
    int count = task_lesson_sentences(t->task, &ls);
    for (int k = 0; k < count; k++) {
        attn_tokens toks;
        int ids[MODEL_MAX_LEN], pron = -1;
        if (model_tokenize(&t->model, ls[k].sentence, strlen(ls[k].sentence), &toks, ids, NULL) != ATTN_OK) continue;
        for (int i = 0; i < toks.n; i++) {
            int len;
            const char *tok = attn_token_text(&toks, i, &len);
            if ((size_t)len == strlen(ls[k].pronoun) && memcmp(tok, ls[k].pronoun, (size_t)len) == 0) pron = i;
        }
        if (pron >= 0 && model_forward(&t->ws, ids, toks.n, NULL) == ATTN_OK) {
            model_readout(&t->ws, pron, 1);
            int p = model_predict_row(&t->ws, pron);
            const char *word = t->model.cfg.objective == MODEL_OBJ_TOKEN ? t->model.vocab[p] : t->model.vocab[ids[p]];
            fprintf(out, "  %s -> %s in %s (%s)\n", ls[k].pronoun, word, ls[k].sentence,
                    strcmp(word, ls[k].referent) == 0 ? "right" : "WRONG");
        }
        attn_tokens_free(&toks);
    }
}

static attn_status train(model_trainer *t, const cli_opts *o, FILE *out, double *step_s, attn_err *err) {
    const task_info *task = task_find(o->model.train_task);
    model_config cfg;
    task_train_opts opts;
    cli_train_settings(o, task, &cfg, &opts);
    attn_status st = model_trainer_init(t, task, &cfg, &opts, err);
    if (st == ATTN_OK) st = model_file_check_size(&t->model, err); // a file --model would refuse is never made
    if (st != ATTN_OK) return st;
    fprintf(out, "training %s: %d layer%s x %d head%s, d_model %d, d_k %d, %s positions, %s objective; "
                 "%d steps of %d, lr %g, weight decay %g, seed %lu; %d training and %d held-out examples\n",
            task->name, cfg.layers, cfg.layers == 1 ? "" : "s", cfg.heads, cfg.heads == 1 ? "" : "s", cfg.d_model,
            cfg.d_k, model_pos_name(cfg.pos), model_objective_name(cfg.objective), opts.steps, opts.batch, opts.lr,
            opts.weight_decay, (unsigned long)opts.seed, t->data.n_train, t->data.n_heldout);
    bool tty = isatty(fileno(out));
    double start = attn_clock_s();
    while (st == ATTN_OK && t->step < opts.steps) {
        st = model_trainer_step(t, err);
        if (st == ATTN_OK) progress(out, tty, t, opts.steps);
    }
    *step_s = attn_clock_s() - start;
    return st == ATTN_OK ? model_trainer_finish(t, err) : st;
}

/* The results after a saved training. */
static void report_results(FILE *out, model_trainer *t, double start, double step_s, const char *path) {
    const model_training *r = &t->model.training;
    double total = attn_clock_s() - start;
    fprintf(out, "held-out accuracy: %.1f%% of the target rows of %d held-out examples; training loss %.4f\n",
            100.0 * r->heldout_accuracy, t->data.n_heldout, r->loss);
    fprintf(out, "time: %.2f s in all, %.2f ms per step\n", total, r->steps ? 1000.0 * step_s / r->steps : 0.0);
    if (r->has_referent) {
        fprintf(out, "referent attention: in %.1f%% of held-out sentences, the last layer's head with the largest "
                     "weight from the pronoun puts it on the referent\n",
                100.0 * r->referent_attention);
        lesson_report(out, t);
    }
    fprintf(out, "saved %s\n", strcmp(path, "-") == 0 ? "to standard output" : path);
}

int cli_run_train(const cli_opts *o, FILE *out, FILE *errf) {
    const char *path = o->model.save_path;
    FILE *report = out;
    model_trainer t;
    memset(&t, 0, sizeof t);
    attn_out file;
    memset(&file, 0, sizeof file);
    file.cleanup = -1;
    attn_err err;
    attn_err_clear(&err);
    double start = attn_clock_s(), step_s = 0.0;
    char *json = NULL;
    // what would stop the save stops the run before the first step: a file that is not attnviz's, a
    // missing or unwritable folder; the temporary opened here is removed by a signal or a failure
    attn_status st = model_file_check_save(path, &err);
    if (st == ATTN_OK) st = attn_out_open(&file, path, NULL, &err);
    if (st == ATTN_OK && file.fp == stdout) report = errf; // "-", or where standard output goes: the model alone there
    if (st == ATTN_OK) st = train(&t, o, report, &step_s, &err);
    if (st == ATTN_OK) st = model_file_write_checked(&t.model, &json, &err);
    if (st == ATTN_OK) {
        fputs(json, file.fp);
        st = attn_out_close(&file, &err); // a failed write shows here
    } else {
        attn_out_abort(&file);
    }
    if (st == ATTN_OK) report_results(report, &t, start, step_s, path);
    else fprintf(errf, "attnviz: %s\n", err.msg);
    free(json);
    model_trainer_free(&t);
    fflush(report);
    return st == ATTN_OK ? 0 : 1;
}

int cli_run_tasks(FILE *out) {
    for (int i = 0; i < task_count(); i++) {
        const task_info *t = task_at(i);
        const model_config *c = &t->cfg;
        char mask[32];
        attn_mask_format(mask, sizeof mask, c->mask);
        fprintf(out, "%s — %s\n", t->name, t->summary);
        fprintf(out, "  vocabulary (%d):", t->vocab_count);
        for (int w = 0; w < t->vocab_count; w++) fprintf(out, " %s", t->vocab[w]);
        fprintf(out, "\n  lengths: %s\n  examples: %s\n", t->lengths, t->format);
        fprintf(out, "  defaults: --layers %d --heads %d --d-model %d --d-k %d --pos %s --mask %s%s%s --objective %s "
                     "--train-steps %d --batch %d --lr %g --weight-decay %g --seed %lu\n",
                c->layers, c->heads, c->d_model, c->d_k, model_pos_name(c->pos), mask, c->scale ? "" : " --no-scale",
                c->bias ? " --bias" : "", model_objective_name(c->objective), t->train.steps, t->train.batch,
                t->train.lr, t->train.weight_decay, (unsigned long)t->train.seed);
        if (t->train_other.steps > 0)
            fprintf(out, "  with --objective %s: --train-steps %d --batch %d --lr %g --weight-decay %g\n",
                    model_objective_name(c->objective == MODEL_OBJ_TOKEN ? MODEL_OBJ_POINTER : MODEL_OBJ_TOKEN),
                    t->train_other.steps, t->train_other.batch, t->train_other.lr, t->train_other.weight_decay);
        fprintf(out, "  its test asserts: held-out accuracy >= %.0f%% after the default training\n\n",
                100.0 * t->asserted_accuracy);
    }
    return 0;
}
