/* page.c — the models lessons name (page.h). */
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "model_file.h"
#include "strbuf.h"
#include "task.h"

struct lesson_model {
    model m;
};

/* ---- finding and reading ------------------------------------------------ */

/* An absolute name as it is; else beside the lesson (dir), else the shipped
 * models under the data roots, the lesson's own tree (dir/../..) first. */
static bool locate(const char *dir, const char *name, char *path, size_t path_cap, char *key, size_t key_cap,
                   char *why, size_t why_cap) {
    char rel[1024], root[1024], tried[1024];
    bool found;
    if (name[0] == '/') {
        snprintf(path, path_cap, "%s", name);
        found = attn_is_regular_file(path);
        if (!found) snprintf(why, why_cap, "%s is not a file", name);
    } else {
        snprintf(path, path_cap, "%s/%s", dir, name);
        found = attn_is_regular_file(path);
        if (!found) {
            snprintf(rel, sizeof rel, "assets/models/%s", name);
            snprintf(root, sizeof root, "%s/../..", dir);
            found = attn_data_find(root, rel, path, path_cap, tried, sizeof tried);
            if (!found) snprintf(why, why_cap, "none of %s/%s; %s is a file", dir, name, tried);
        }
    }
    if (!found) return false;
    if (!attn_canonical_path(path, key, key_cap)) snprintf(key, key_cap, "%s", path); // one file, one key
    return true;
}

static lesson_model *load(const char *path, char *why, size_t why_cap) {
    lesson_model *lm = calloc(1, sizeof *lm);
    attn_err e;
    if (!lm) {
        snprintf(why, why_cap, "not enough memory");
        return NULL;
    }
    if (model_file_load(&lm->m, path, &e) != ATTN_OK) {
        snprintf(why, why_cap, "%s", e.msg);
        free(lm);
        return NULL;
    }
    return lm;
}

static void free_model(lesson_model *lm) {
    if (!lm) return;
    model_free(&lm->m);
    free(lm);
}

/* ---- what the parser asks of a model ------------------------------------- */

static void facts(const lesson_model *lm, lesson_model_facts *out) {
    model_attn_config(&out->cfg, &lm->m.cfg);
    out->cfg.seed = lm->m.training.seed;
    out->layers = lm->m.cfg.layers;
    out->probe = lm->m.probe;
    out->task = lm->m.task;
    out->bytes = sizeof *lm + sizeof(double) * lm->m.n_params + strlen(lm->m.probe) + 1;
    for (int i = 0; i < lm->m.vocab_count; i++) out->bytes += sizeof *lm->m.vocab + strlen(lm->m.vocab[i]) + 1;
}

static attn_status tokenize(const lesson_model *lm, const char *s, size_t n, attn_tokens *out, attn_err *err) {
    int ids[MODEL_MAX_LEN];
    return model_tokenize(&lm->m, s, n, out, ids, err);
}

static int word_id(const lesson_model *lm, const char *w, size_t n) {
    char word[MODEL_MAX_WORD];
    snprintf(word, sizeof word, "%.*s", (int)n, w);
    return model_word_id(&lm->m, word, strlen(word));
}

static int stage_from_name(const char *name) {
    int s = model_stage_from_name(name);
    return s >= ATTN_STAGE_COUNT ? s : -1;
}

static lesson_cols stage_cols(int stage) {
    switch (stage) {
    case MODEL_ST_D_WEIGHTS:
    case MODEL_ST_D_SCALED:
    case MODEL_ST_AVG: return LESSON_COLS_TOKENS;
    case MODEL_ST_LOGITS:
    case MODEL_ST_PROBS: return LESSON_COLS_WORDS;
    case MODEL_ST_RESIDUAL: return LESSON_COLS_D_MODEL;
    default: return LESSON_COLS_D_K;
    }
}

static attn_status weights_row(const lesson_model *lm, const char *sentence, int layer, int head, int query,
                               double *row, int cap, int *n, attn_err *err) {
    model_result run;
    bool labelled;
    memset(&run, 0, sizeof run);
    attn_status st = model_run_view(&run, &lm->m, sentence, strlen(sentence), query, &labelled, err);
    if (st != ATTN_OK) return st;
    const attn_trace *t = &run.layer[layer];
    *n = t->n < cap ? t->n : cap;
    memcpy(row, attn_trace_stage(t, ATTN_ST_WEIGHTS, head) + (size_t)query * t->n, sizeof *row * (size_t)*n);
    model_result_free(&run);
    return ATTN_OK;
}

static const char *find_task(const char *name) {
    const task_info *t = task_find(name);
    return t ? t->name : NULL;
}

/* referent-zh-steps0.json: a model of referent-zh. */
static const char *task_of_file(const char *base) {
    for (int t = 0; t < task_count(); t++)
        if (strncmp(base, task_at(t)->name, strlen(task_at(t)->name)) == 0) return task_at(t)->name;
    return NULL;
}

static char *heldout(const char *name) {
    const task_info *t = task_find(name);
    task_dataset d = {0};
    attn_err e;
    if (!t || task_dataset_build(&d, t, &e) != ATTN_OK) return NULL;
    attn_strbuf b;
    attn_sb_init(&b);
    for (int i = d.n_train; i < d.n_train + d.n_heldout; i++) attn_sb_append(&b, task_example_text(&d, i), strlen(task_example_text(&d, i)) + 1);
    attn_sb_append(&b, "", 1);
    task_dataset_free(&d);
    return attn_sb_take(&b);
}

/* @hf: FOLDER — ATTNVIZ_PAGE_MODEL when set; else an absolute name as it is;
 * else beside the lesson, else assets/models/FOLDER under the data roots. A
 * folder counts when it holds config.json. */
static bool locate_hf(const char *dir, const char *name, char *path, size_t path_cap, char *why, size_t why_cap) {
    char cfg[1200], root[1024], rel[1100], tried[1024];
    const char *over = getenv(PAGE_HF_ENV);
    if (over && *over) {
        snprintf(path, path_cap, "%s", over);
        snprintf(cfg, sizeof cfg, "%s/config.json", over);
        if (attn_is_regular_file(cfg)) return true;
        snprintf(why, why_cap, "%s (from %s) has no config.json", over, PAGE_HF_ENV);
        return false;
    }
    if (name[0] == '/') snprintf(path, path_cap, "%s", name);
    else snprintf(path, path_cap, "%s/%s", dir, name);
    snprintf(cfg, sizeof cfg, "%s/config.json", path);
    if (attn_is_regular_file(cfg)) return true;
    if (name[0] == '/') {
        snprintf(why, why_cap, "%s has no config.json", name);
        return false;
    }
    snprintf(rel, sizeof rel, "assets/models/%s/config.json", name);
    snprintf(root, sizeof root, "%s/../..", dir);
    if (attn_data_find(root, rel, cfg, sizeof cfg, tried, sizeof tried)) {
        size_t n = strlen(cfg) - strlen("/config.json");
        snprintf(path, path_cap, "%.*s", (int)n, cfg);
        return true;
    }
    snprintf(why, why_cap, "none of %s/%s/config.json; %s", dir, name, tried);
    return false;
}

static const lesson_model_source source = {
    .locate = locate,
    .load = load,
    .free_model = free_model,
    .facts = facts,
    .tokenize = tokenize,
    .word_id = word_id,
    .stage_from_name = stage_from_name,
    .stage_name = model_stage_name,
    .stage_cols = stage_cols,
    .weights_row = weights_row,
    .task_find = find_task,
    .task_of_file = task_of_file,
    .task_names = task_names,
    .heldout = heldout,
    .locate_hf = locate_hf,
};

const lesson_model_source *page_models(void) {
    return &source;
}

/* ---- the API -------------------------------------------------------------- */

attn_status page_lesson_parse(lesson **out, const char *text, size_t len, const char *filename, attn_err *err) {
    return lesson_parse_with(out, text, len, filename, &source, err);
}

attn_status page_lesson_load(lesson **out, const char *path, attn_err *err) {
    return lesson_load(out, path, &source, err);
}

int page_lesson_check(const char *text, size_t len, const char *filename, char **report, int *n_pages) {
    int errors = lesson_check_with(text, len, filename, &source, report, n_pages);
    if (errors) return errors;
    // a page whose @hf folder was found must run it (one that was not found shows its @missing text)
    lesson *l = NULL;
    if (page_lesson_parse(&l, text, len, filename, NULL) != ATTN_OK) return errors;
    attn_strbuf b;
    attn_sb_init(&b);
    for (int i = 0; i < lesson_page_count(l); i++) {
        const lesson_page *pg = lesson_page_at(l, i);
        if (!pg->hf_path) continue;
        page_hf h;
        attn_err e;
        if (page_hf_open(&h, pg, NULL, 0, &e) == ATTN_OK) {
            page_hf_free(&h);
            continue;
        }
        attn_sb_printf(&b, "%s:%d:1: page %s: the model folder %s cannot be run on the page's sentence: %s\n",
                       filename, pg->line, pg->id, pg->hf_path, e.msg);
        errors++;
    }
    lesson_free(l);
    if (errors) {
        *report = attn_sb_take(&b);
        if (n_pages) *n_pages = 0;
    } else attn_sb_free(&b);
    return errors;
}

const model *page_model(const lesson_page *pg) {
    return pg->model ? &pg->model->m : NULL;
}

attn_status page_run(model_result *out, const lesson *l, int i, const char *sentence, size_t len, int query,
                     bool *labelled, attn_err *err) {
    const lesson_page *pg = lesson_page_at(l, i);
    if (!pg || !pg->model) return attn_fail(err, ATTN_ERR_RANGE, "Page %d of the lesson has no model.", i);
    if (!sentence) {
        sentence = pg->sentence;
        len = strlen(sentence);
    }
    return model_run_view(out, &pg->model->m, sentence, len, query, labelled, err);
}
