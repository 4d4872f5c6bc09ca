/* test_train.c — training: each task's default training reaches the accuracy
 * attnviz --tasks states and writes exactly the shipped assets/models/TASK.json
 * (so the shipped models are what --train makes, byte for byte); the same
 * seed gives the same bytes on 1 and on 2 threads at once, and with the
 * training paused for snapshots; AdamW decays weights and not biases; a
 * diverged or oversized model is not written; the
 * configurations a trainer refuses. Assertions on results, never on time. */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "fileio.h"
#include "model_file.h"
#include "model_train.h"

/* Trains task with its defaults (steps: -1 for the default; snapshot_every:
 * take and drop a snapshot every that many steps, 0 never) and returns the
 * model file's text (the caller frees it). */
static char *train_text(const char *task, int steps, int snapshot_every, model_training *record) {
    const task_info *t = task_find(task);
    task_train_opts o = t->train;
    if (steps >= 0) o.steps = steps;
    model_trainer tr;
    attn_err err;
    if (model_trainer_init(&tr, t, &t->cfg, &o, &err) != ATTN_OK) fail_msg("%s", err.msg);
    while (tr.step < o.steps) {
        if (model_trainer_step(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
        if (snapshot_every && tr.step % snapshot_every == 0) { // what a paused GUI does
            model snap;
            assert_int_equal(model_trainer_snapshot(&tr, &snap, NULL), ATTN_OK);
            assert_memory_equal(snap.block, tr.model.block, sizeof(double) * snap.n_params);
            model_free(&snap);
        }
    }
    if (model_trainer_finish(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (record) *record = tr.model.training;
    char *text = NULL; // as --train saves it: only what --model reads back
    if (model_file_write_checked(&tr.model, &text, &err) != ATTN_OK) fail_msg("%s", err.msg);
    model_trainer_free(&tr);
    return text;
}

static char *shipped(const char *task) {
    char path[512], *text = NULL;
    size_t len;
    attn_err err;
    snprintf(path, sizeof path, "%s/assets/models/%s.json", ATTN_SOURCE_DIR, task);
    if (attn_read_file(path, MODEL_FILE_MAX_BYTES, &text, &len, &err) != ATTN_OK) fail_msg("%s", err.msg);
    return text;
}

static void test_defaults_learn_every_task_and_match_the_shipped_models(void **state) {
    (void)state;
    for (int i = 0; i < task_count(); i++) {
        const task_info *t = task_at(i);
        model_training r;
        char *text = train_text(t->name, -1, 0, &r);
        if (r.heldout_accuracy < t->asserted_accuracy)
            fail_msg("%s: held-out accuracy %.3f, --tasks states %.2f", t->name, r.heldout_accuracy, t->asserted_accuracy);
        if (t->referent) assert_true(r.referent_attention >= 0.95); // the pointer model looks at the referent
        char *ship = shipped(t->name);
        if (strcmp(text, ship) != 0)
            fail_msg("%s: retraining with the defaults does not give the bytes of assets/models/%s.json "
                     "(remake it with attnviz --train %s --save assets/models/%s.json)",
                     t->name, t->name, t->name, t->name);
        free(ship);
        free(text);
    }
}

/* m answers the lessons' sentences of t right, both ways. */
static void check_lessons(const model *m, const task_info *t) {
    model_ws ws;
    assert_int_equal(model_ws_init(&ws, m, NULL, NULL), ATTN_OK);
    const task_lesson_sentence *ls;
    int count = task_lesson_sentences(t, &ls);
    assert_int_equal(count, 2);
    for (int s = 0; s < count; s++) {
        attn_tokens toks;
        int ids[MODEL_MAX_LEN];
        assert_int_equal(model_tokenize(m, ls[s].sentence, strlen(ls[s].sentence), &toks, ids, NULL), ATTN_OK);
        task_target tg;
        assert_int_equal(task_label(t, ids, toks.n, &tg), 1);
        assert_int_equal(model_forward(&ws, ids, toks.n, NULL), ATTN_OK);
        model_readout(&ws, tg.row, 1);
        int p = model_predict_row(&ws, tg.row);
        const char *word = m->cfg.objective == MODEL_OBJ_TOKEN ? m->vocab[p] : m->vocab[ids[p]];
        if (strcmp(word, ls[s].referent) != 0)
            fail_msg("%s (%s): %s answers %s, not %s", t->name, model_objective_name(m->cfg.objective),
                     ls[s].sentence, word, ls[s].referent);
        attn_tokens_free(&toks);
    }
    model_ws_free(&ws);
}

/* The shipped pointer models resolve the lessons' sentences both ways. */
static void test_shipped_models_resolve_the_lessons(void **state) {
    (void)state;
    const char *tasks[] = {"referent-zh", "referent-en"};
    for (int k = 0; k < 2; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/assets/models/%s.json", ATTN_SOURCE_DIR, tasks[k]);
        model m;
        assert_int_equal(model_file_load(&m, path, NULL), ATTN_OK);
        check_lessons(&m, task_find(tasks[k]));
        model_free(&m);
    }
}

/* The token objective's default training (--objective token, seed 1) also
 * learns the referent tasks and answers the lessons' sentences both ways. */
static void test_token_objective_defaults(void **state) {
    (void)state;
    const char *tasks[] = {"referent-zh", "referent-en"};
    for (int k = 0; k < 2; k++) {
        const task_info *t = task_find(tasks[k]);
        model_config c = t->cfg;
        c.objective = MODEL_OBJ_TOKEN;
        model_trainer tr;
        attn_err err;
        if (model_trainer_init(&tr, t, &c, task_default_training(t, c.objective), &err) != ATTN_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(tr.opts.steps, t->train_other.steps);
        while (tr.step < tr.opts.steps)
            if (model_trainer_step(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_int_equal(model_trainer_finish(&tr, &err), ATTN_OK);
        if (tr.model.training.heldout_accuracy < t->asserted_accuracy)
            fail_msg("%s, token objective: held-out accuracy %.3f", tasks[k], tr.model.training.heldout_accuracy);
        check_lessons(&tr.model, t);
        model_trainer_free(&tr);
    }
}

typedef struct {
    const char *task;
    char *text;
} job;

static void *train_job(void *arg) {
    job *j = arg;
    j->text = train_text(j->task, 60, 0, NULL);
    return NULL;
}

static void test_same_bytes_on_one_and_two_threads_and_when_paused(void **state) {
    (void)state;
    char *alone = train_text("referent-zh", 60, 0, NULL);
    char *paused = train_text("referent-zh", 60, 7, NULL);
    assert_string_equal(alone, paused);
    job jobs[2] = {{"referent-zh", NULL}, {"referent-zh", NULL}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, train_job, &jobs[i]), 0);
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(jobs[i].text, alone);
        free(jobs[i].text);
    }
    // another seed gives another model
    const task_info *t = task_find("referent-zh");
    task_train_opts o = t->train;
    o.steps = 1;
    o.seed = 2;
    model_trainer tr;
    assert_int_equal(model_trainer_init(&tr, t, &t->cfg, &o, NULL), ATTN_OK);
    assert_int_equal(model_trainer_step(&tr, NULL), ATTN_OK);
    char *other = model_file_write(&tr.model);
    assert_true(strcmp(other, alone) != 0);
    free(other);
    model_trainer_free(&tr);
    model_trainer_free(NULL);
    free(paused);
    free(alone);
}

/* With a zero gradient, one step shrinks every W, E, P and U by (1 − lr·wd) and leaves biases alone. */
static void test_adamw_decays_weights_not_biases(void **state) {
    (void)state;
    static const char *const words[] = {"a", "b"};
    model_config c = {.d_model = 2, .d_k = 2, .heads = 1, .layers = 1, .pos = MODEL_POS_LEARNED, .max_len = 2, .scale = true, .bias = true, .objective = MODEL_OBJ_TOKEN};
    model m;
    assert_int_equal(model_create(&m, &c, words, 2, "reverse", "a", NULL), ATTN_OK);
    for (size_t i = 0; i < m.n_params; i++) m.block[i] = 1.0;
    double *grad = calloc(m.n_params, sizeof(double));
    model_adamw a;
    assert_int_equal(model_adamw_init(&a, m.n_params, NULL), ATTN_OK);
    model_adamw_step(&a, &m, grad, 0.1, 0.5);
    for (int t = 0; t < m.n_tensors; t++)
        for (int k = 0; k < m.tensor[t].rows * m.tensor[t].cols; k++)
            assert_true(m.block[m.tensor[t].offset + (size_t)k] == (m.tensor[t].decay ? 1.0 * (1.0 - 0.1 * 0.5) : 1.0));
    assert_false(m.tensor[m.n_tensors - 1].decay); // b_U
    model_adamw_free(&a);
    free(grad);
    model_free(&m);
}

static void test_trainer_refuses(void **state) {
    (void)state;
    const task_info *t = task_find("referent-en");
    model_config c = t->cfg;
    task_train_opts o = t->train;
    model_trainer tr;
    attn_err err;
    c.mask.kind = ATTN_MASK_CAUSAL;
    assert_int_equal(model_trainer_init(&tr, t, &c, &o, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "referent-en cannot use a causal mask"));
    c = t->cfg;
    o.batch = 0;
    assert_int_equal(model_trainer_init(&tr, t, &c, &o, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--batch must be between 1 and 4096"));
    o = t->train;
    c.layers = 5;
    assert_int_equal(model_trainer_init(&tr, t, &c, &o, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--layers must be between 1 and 4"));
}

/* Issue 25: a diverging training (induction, --lr 10 --weight-decay 1, 3
 * steps: a loss of 1.6e21) was saved although --model refuses it; and the
 * largest settings make a file past the 64 MiB --model reads. The writer's
 * checks refuse both, the size before a step is taken. */
static void test_unreadable_models_are_not_written(void **state) {
    (void)state;
    const task_info *t = task_find("induction");
    task_train_opts o = t->train;
    o.steps = 3;
    o.lr = 10;
    o.weight_decay = 1;
    model_trainer tr;
    attn_err err;
    if (model_trainer_init(&tr, t, &t->cfg, &o, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_int_equal(model_file_check_size(&tr.model, &err), ATTN_OK);
    while (tr.step < o.steps)
        if (model_trainer_step(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (model_trainer_finish(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *text = (char *)"untouched";
    assert_int_equal(model_file_write_checked(&tr.model, &text, &err), ATTN_ERR_NONFINITE);
    assert_null(text);
    if (!strstr(err.msg, "The training diverged: training.loss is 1.64876e+21")) fail_msg("%s", err.msg);
    model_trainer_free(&tr);
    model_config c = task_find("sort")->cfg;
    c.d_model = 512;
    c.d_k = 64;
    c.heads = 8;
    c.layers = 3;
    o = task_find("sort")->train;
    if (model_trainer_init(&tr, task_find("sort"), &c, &o, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_int_equal(model_file_check_size(&tr.model, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "3150848 parameters"));
    model_trainer_free(&tr);
}

/* Every other shipped model (the lessons' ones) is what its own training
 * record makes: its task, configuration and record (seed, steps, batch, lr,
 * weight decay) retrain it byte for byte (scripts/make-models.sh lists the
 * flags). TASK.json, the defaults' models, are the test above's. */
static void test_every_shipped_model_is_made_by_its_record(void **state) {
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/assets/models", ATTN_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(n - 5), e->d_name);
        if (task_find(stem)) continue; // a task's default model: retrained by the test above
        char path[1024], *ship = NULL;
        size_t len;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        model m;
        attn_err err;
        if (model_file_load(&m, path, &err) != ATTN_OK) fail_msg("%s", err.msg);
        const task_info *t = task_find(m.task);
        assert_non_null(t);
        task_train_opts o = {m.training.steps, m.training.batch, m.training.lr, m.training.weight_decay, m.training.seed};
        model_trainer tr;
        if (model_trainer_init(&tr, t, &m.cfg, &o, &err) != ATTN_OK) fail_msg("%s: %s", e->d_name, err.msg);
        while (tr.step < o.steps)
            if (model_trainer_step(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
        if (model_trainer_finish(&tr, &err) != ATTN_OK) fail_msg("%s", err.msg);
        char *text = model_file_write(&tr.model);
        if (attn_read_file(path, MODEL_FILE_MAX_BYTES, &ship, &len, &err) != ATTN_OK) fail_msg("%s", err.msg);
        if (strcmp(text, ship) != 0)
            fail_msg("%s is not what its training record makes (remake it with scripts/make-models.sh)", e->d_name);
        free(text);
        free(ship);
        model_trainer_free(&tr);
        model_free(&m);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 6); // the lessons' six
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_shipped_model_is_made_by_its_record),
        cmocka_unit_test(test_adamw_decays_weights_not_biases),
        cmocka_unit_test(test_trainer_refuses),
        cmocka_unit_test(test_unreadable_models_are_not_written),
        cmocka_unit_test(test_same_bytes_on_one_and_two_threads_and_when_paused),
        cmocka_unit_test(test_shipped_models_resolve_the_lessons),
        cmocka_unit_test(test_token_objective_defaults),
        cmocka_unit_test(test_defaults_learn_every_task_and_match_the_shipped_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
