/* test_tasks.c — every task's generator: the sentences tokenize into their
 * ids with the task's vocabulary, the targets are right, only plausible
 * sentences are made (checked against rules written here, not the task's
 * tables), the held-out split is disjoint, the lessons' sentences and their
 * flipped variants are never trained on, the same task makes the same data,
 * labelling agrees with the generator, and the configurations a task refuses. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "task.h"

static const task_info *get(const char *name) {
    const task_info *t = task_find(name);
    assert_non_null(t);
    return t;
}

static void build(task_dataset *d, const char *name) {
    attn_err err;
    if (task_dataset_build(d, get(name), &err) != ATTN_OK) fail_msg("%s", err.msg);
}

static bool contains(const char *s, const char *part) {
    return strstr(s, part) != NULL;
}

/* Which of words occurs in s as a whole word (English) or substring (Chinese); NULL if none. */
static const char *which(const char *s, const char *const *words, bool whole) {
    for (int i = 0; words[i]; i++) {
        const char *at = strstr(s, words[i]);
        while (at && whole) {
            size_t len = strlen(words[i]);
            bool left = at == s || at[-1] == ' ', right = at[len] == ' ' || at[len] == '.';
            if (left && right) break;
            at = strstr(at + 1, words[i]);
        }
        if (at) return words[i];
    }
    return NULL;
}

static int word_at(const task_dataset *d, int i, int pos) {
    return task_example_ids(d, i)[pos];
}

static void test_every_task_builds_consistently(void **state) {
    (void)state;
    assert_int_equal(task_count(), 5);
    for (int k = 0; k < task_count(); k++) {
        const task_info *t = task_at(k);
        task_dataset a, b;
        build(&a, t->name);
        build(&b, t->name);
        assert_true(a.n_train > 100 && a.n_heldout > 50);
        assert_int_equal(a.n_train, b.n_train);
        assert_int_equal(a.n_heldout, b.n_heldout);
        int total = a.n_train + a.n_heldout, ids = 0, tg = 0;
        for (int i = 0; i < total; i++) {
            ids += a.ex[i].n;
            tg += a.ex[i].n_targets;
            assert_true(a.ex[i].n <= a.max_len && a.ex[i].n_targets >= 1);
            const task_target *tt = task_example_targets(&a, i);
            for (int q = 0; q < a.ex[i].n_targets; q++) { // both answers agree: the token stands at the position
                assert_true(tt[q].row >= 0 && tt[q].row < a.ex[i].n && tt[q].pos >= 0 && tt[q].pos < a.ex[i].n);
                if (strcmp(t->name, "induction") != 0) assert_int_equal(tt[q].tok, word_at(&a, i, tt[q].pos));
                else assert_int_equal(tt[q].tok, word_at(&a, i, tt[q].row + 1));
            }
            task_target lab[MODEL_MAX_LEN];
            int count = task_label(t, task_example_ids(&a, i), a.ex[i].n, lab);
            assert_int_equal(count, a.ex[i].n_targets);
            assert_memory_equal(lab, tt, sizeof *tt * (size_t)count);
        }
        assert_memory_equal(a.ids, b.ids, sizeof(int) * (size_t)ids); // the same task, the same data
        assert_memory_equal(a.targets, b.targets, sizeof(task_target) * (size_t)tg);
        // no held-out sentence is a training sentence
        for (int i = a.n_train; i < total; i++)
            for (int j = 0; j < a.n_train; j++)
                if (strcmp(task_example_text(&a, i), task_example_text(&a, j)) == 0)
                    fail_msg("%s: held-out \"%s\" is also training example %d", t->name, task_example_text(&a, i), j);
        task_dataset_free(&a);
        task_dataset_free(&b);
    }
    task_dataset_free(NULL);
    assert_null(task_find("nope"));
}

static const char *const zh_flyers[] = {"鸟", "蝴蝶", "蜜蜂", NULL};
static const char *const zh_state[] = {"太累了", "太困了", "太老了", "睡着了", NULL};

static void test_referent_zh_plausible_and_lessons_unseen(void **state) {
    (void)state;
    task_dataset d;
    build(&d, "referent-zh");
    const task_info *t = get("referent-zh");
    int total = d.n_train + d.n_heldout, lessons = 0, to_a = 0;
    const task_lesson_sentence *ls;
    assert_int_equal(task_lesson_sentences(t, &ls), 2);
    for (int i = 0; i < total; i++) {
        const char *s = task_example_text(&d, i);
        const task_target *tg = task_example_targets(&d, i);
        assert_int_equal(d.ex[i].n_targets, 1);
        assert_string_equal(t->vocab[word_at(&d, i, tg->row)], "它");
        // 飞 only with what flies, and the flyer is B, the one that flew
        if (contains(s, "飞得太快了")) {
            const char *b = which(strstr(s, "那只"), zh_flyers, false);
            assert_non_null(b);
            assert_int_equal(tg->pos, 7);
        }
        // the subject's state points to the subject (position 2), every other predicate to B (7)
        bool state_pred = which(s, zh_state, false) != NULL;
        assert_int_equal(tg->pos, state_pred ? 2 : 7);
        to_a += state_pred;
        bool both = contains(s, "动物") && contains(s, "鸟"); // the lessons' pair, in either order
        if (i < d.n_train) assert_false(both);
        for (int k = 0; k < 2; k++) lessons += strcmp(s, ls[k].sentence) == 0 && i >= d.n_train;
    }
    assert_int_equal(lessons, 2); // both lesson sentences are held out
    assert_true(to_a > total / 3 && to_a < 2 * total / 3);
    // every token of the lessons' sentences is in the vocabulary
    const char *need[] = {"这", "只", "动物", "没", "看见", "那", "鸟", "，", "因为", "它", "飞", "得", "太", "快", "了", "。", "累"};
    for (size_t k = 0; k < sizeof need / sizeof *need; k++) assert_true(task_word_id(t, need[k]) >= 0);
    task_dataset_free(&d);
}

static const char *const en_agents[] = {"animal", "dog", "cat", "horse", "chicken", "child", "man", "woman", NULL};
static const char *const en_crossable[] = {"street", "road", "river", "bridge", NULL};
static const char *const en_state[] = {"too tired", "too scared", "too sleepy", "too lazy", NULL};

static void test_referent_en_plausible_and_lessons_unseen(void **state) {
    (void)state;
    task_dataset d;
    build(&d, "referent-en");
    const task_info *t = get("referent-en");
    int total = d.n_train + d.n_heldout, lessons = 0;
    const task_lesson_sentence *ls;
    assert_int_equal(task_lesson_sentences(t, &ls), 2);
    for (int i = 0; i < total; i++) {
        const char *s = task_example_text(&d, i);
        const task_target *tg = task_example_targets(&d, i);
        char a[32], b[32], verb[16];
        assert_int_equal(sscanf(s, "The %31s didn't %15s the %31s", a, verb, b), 3);
        bool found = false;
        for (int k = 0; en_agents[k]; k++) found |= strcmp(a, en_agents[k]) == 0;
        assert_true(found);
        bool crossable = false;
        for (int k = 0; en_crossable[k]; k++) crossable |= strcmp(b, en_crossable[k]) == 0;
        assert_int_equal(strcmp(verb, "cross") == 0, crossable); // one crosses streets, sees the rest
        if (contains(s, "too wide")) assert_true(strcmp(b, "street") == 0 || strcmp(b, "road") == 0 || strcmp(b, "river") == 0);
        if (contains(s, "too deep")) assert_string_equal(b, "river");
        assert_int_equal(tg->pos, which(s, en_state, false) ? 1 : 5);
        assert_string_equal(t->vocab[word_at(&d, i, tg->row)], "it");
        if (i < d.n_train) assert_false(strcmp(a, "animal") == 0 && strcmp(b, "street") == 0 && strcmp(verb, "cross") == 0);
        for (int k = 0; k < 2; k++) lessons += strcmp(s, ls[k].sentence) == 0 && i >= d.n_train;
    }
    assert_int_equal(lessons, 2);
    // "The" is "the": the vocabulary is lower case and looked up case-insensitively
    const char *need[] = {"The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired",
                          "wide", "."};
    for (size_t k = 0; k < sizeof need / sizeof *need; k++) assert_true(task_word_id(t, need[k]) >= 0);
    assert_int_equal(task_word_id(t, "The"), task_word_id(t, "the"));
    task_dataset_free(&d);
}

static void test_sequence_tasks(void **state) {
    (void)state;
    task_dataset d;
    build(&d, "sort");
    for (int i = 0; i < d.n_train + d.n_heldout; i++) { // a shuffle of 1 … 8: every digit once
        int seen[10] = {0};
        for (int k = 0; k < 8; k++) seen[word_at(&d, i, k)]++;
        for (int v = 1; v <= 8; v++) assert_int_equal(seen[v], 1);
    }
    task_dataset_free(&d);
    build(&d, "induction");
    int lengths[17] = {0};
    for (int i = 0; i < d.n_train + d.n_heldout; i++) { // a first half repeated, with distinct letters
        int n = d.ex[i].n, h = n / 2;
        lengths[n]++;
        assert_memory_equal(task_example_ids(&d, i), task_example_ids(&d, i) + h, sizeof(int) * (size_t)h);
        assert_int_equal(d.ex[i].n_targets, h - 1);
    }
    for (int n = 8; n <= 16; n += 2) assert_true(lengths[n] > 100); // every length occurs
    task_dataset_free(&d);
    build(&d, "reverse");
    const task_target *tg = task_example_targets(&d, 0);
    for (int k = 0; k < 8; k++) assert_int_equal(tg[k].pos, 7 - k);
    task_dataset_free(&d);
}

static void test_configurations_refused(void **state) {
    (void)state;
    attn_err err;
    model_config c = get("referent-zh")->cfg;
    c.mask.kind = ATTN_MASK_CAUSAL;
    assert_int_equal(task_check_config(get("referent-zh"), &c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "comes after the pronoun"));
    c.mask.kind = ATTN_MASK_NONE;
    assert_int_equal(task_check_config(get("referent-en"), &c, &err), ATTN_OK);
    assert_int_equal(task_check_config(get("induction"), &c, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "induction needs --mask causal"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_task_builds_consistently),
        cmocka_unit_test(test_referent_zh_plausible_and_lessons_unseen),
        cmocka_unit_test(test_referent_en_plausible_and_lessons_unseen),
        cmocka_unit_test(test_sequence_tasks),
        cmocka_unit_test(test_configurations_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
