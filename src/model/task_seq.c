/* task_seq.c — reverse, sort and induction: random sequences from the
 * dataset's own PRNG. The held-out sequences never occur in training. */
#include <stdlib.h>
#include <string.h>

#include "task_part.h"
#include "task_seq.h"

#define SEQ_LEN 8       /* reverse and sort: 8 tokens; induction: at most 8, then the same again */
#define SEQ_TRAIN 4000  /* training sequences */
#define SEQ_HELDOUT 500 /* held-out sequences */

enum { STREAM_REVERSE = 101,
       STREAM_SORT = 102,
       STREAM_INDUCTION = 103 };

static const char *const digit_vocab[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
static const char *const letter_vocab[] = {"a", "b", "c", "d", "e", "f", "g", "h",
                                           "i", "j", "k", "l", "m", "n", "o", "p"};

/* The sequence as a number (base 17 fits every vocabulary here), to find repeats. */
static unsigned long long code_of(const int *ids, int n) {
    unsigned long long c = (unsigned long long)n; // wraps for long ones: equal sequences still give equal codes
    for (int i = 0; i < n; i++) c = c * 17 + (unsigned long long)ids[i];
    return c;
}

static int cmp_code(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Draws the next sequence of a task into ids and its targets into tg;
 * returns the token count and sets *count to the target count. */
typedef int (*draw_fn)(int *ids, task_target *tg, int *count, uint64_t *counter, const task_info *t);

static int draw_reverse(int *ids, task_target *tg, int *count, uint64_t *counter, const task_info *t) {
    for (int i = 0; i < SEQ_LEN; i++) ids[i] = task_draw(STREAM_REVERSE, counter, t->vocab_count);
    for (int i = 0; i < SEQ_LEN; i++) tg[i] = (task_target){i, SEQ_LEN - 1 - i, ids[SEQ_LEN - 1 - i]};
    *count = SEQ_LEN;
    return SEQ_LEN;
}

static int draw_sort(int *ids, task_target *tg, int *count, uint64_t *counter, const task_info *t) {
    // a shuffle of 1 … 8 (Fisher–Yates); row i answers where i + 1 stands
    for (int i = 0; i < SEQ_LEN; i++) ids[i] = task_part_word_id(t, digit_vocab[i + 1]);
    for (int i = SEQ_LEN - 1; i > 0; i--) {
        int j = task_draw(STREAM_SORT, counter, i + 1), keep = ids[i];
        ids[i] = ids[j];
        ids[j] = keep;
    }
    for (int i = 0; i < SEQ_LEN; i++) {
        int want = task_part_word_id(t, digit_vocab[i + 1]), at = 0;
        while (ids[at] != want) at++;
        tg[i] = (task_target){i, at, want};
    }
    *count = SEQ_LEN;
    return SEQ_LEN;
}

static int draw_induction(int *ids, task_target *tg, int *count, uint64_t *counter, const task_info *t) {
    // 4 to 8 distinct letters, then the same again; in the second copy, row i answers the
    // next letter, which stands in the first copy right after the earlier occurrence of
    // row i's. The length varies so that no fixed offset finds it: the model has to look
    // for the earlier copy of its own letter (the induction head, Olsson et al. 2022).
    int used[16] = {0}, k = 4 + task_draw(STREAM_INDUCTION, counter, SEQ_LEN - 3);
    for (int i = 0; i < k; i++) {
        int w;
        do w = task_draw(STREAM_INDUCTION, counter, t->vocab_count);
        while (used[w]);
        used[w] = 1;
        ids[i] = ids[i + k] = w;
    }
    for (int i = k; i < 2 * k - 1; i++) tg[i - k] = (task_target){i, i - k + 1, ids[i + 1]};
    *count = k - 1;
    return 2 * k;
}

static void text_of(char *out, const int *ids, int n, const task_info *t) {
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        const char *w = t->vocab[ids[i]];
        size_t len = strlen(w);
        if (i) out[used++] = ' ';
        memcpy(out + used, w, len);
        used += len;
    }
    out[used] = '\0';
}

static attn_status generate(task_dataset *d, const task_info *t, draw_fn draw, attn_err *err) {
    task_part train = {0}, held = {0};
    unsigned long long *codes = malloc(sizeof *codes * SEQ_TRAIN);
    attn_status st = codes ? ATTN_OK : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the %s dataset.", t->name);
    uint64_t counter = 0;
    int ids[2 * SEQ_LEN], n;
    task_target tg[2 * SEQ_LEN];
    char text[4 * 2 * SEQ_LEN + 1];
    for (int k = 0; k < SEQ_TRAIN && st == ATTN_OK; k++) {
        int count;
        n = draw(ids, tg, &count, &counter, t);
        codes[k] = code_of(ids, n);
        text_of(text, ids, n, t);
        st = task_part_add(&train, t, text, ids, n, tg, count, err);
    }
    if (st == ATTN_OK) qsort(codes, SEQ_TRAIN, sizeof *codes, cmp_code);
    while (st == ATTN_OK && held.count < SEQ_HELDOUT) { // new sequences only
        int count;
        n = draw(ids, tg, &count, &counter, t);
        unsigned long long c = code_of(ids, n);
        if (bsearch(&c, codes, SEQ_TRAIN, sizeof *codes, cmp_code)) continue;
        text_of(text, ids, n, t);
        st = task_part_add(&held, t, text, ids, n, tg, count, err);
    }
    if (st == ATTN_OK) st = task_parts_join(d, &train, &held, err);
    free(codes);
    task_part_free(&train);
    task_part_free(&held);
    return st;
}

static attn_status gen_reverse(task_dataset *d, const task_info *t, attn_err *err) {
    return generate(d, t, draw_reverse, err);
}

static attn_status gen_sort(task_dataset *d, const task_info *t, attn_err *err) {
    return generate(d, t, draw_sort, err);
}

static attn_status gen_induction(task_dataset *d, const task_info *t, attn_err *err) {
    return generate(d, t, draw_induction, err);
}

int task_seq_label(const task_info *t, const int *ids, int n, task_target *out) {
    if (strcmp(t->name, "reverse") == 0) {
        for (int i = 0; i < n; i++) out[i] = (task_target){i, n - 1 - i, ids[n - 1 - i]};
        return n == SEQ_LEN ? n : 0;
    }
    if (strcmp(t->name, "sort") == 0) { // a shuffle of 1 … n
        int count = 0;
        for (int i = 0; i < n; i++) {
            int want = task_part_word_id(t, i + 1 < 10 ? digit_vocab[i + 1] : "?"), at = -1;
            for (int j = 0; j < n; j++)
                if (ids[j] == want) at = at < 0 ? j : n; // n marks a repeat
            if (at < 0 || at == n) return 0;
            out[count++] = (task_target){i, at, want};
        }
        return count;
    }
    // induction: a first half repeated; the second half's rows answer the next token
    int half = n / 2;
    if (n % 2 || half < 2 || memcmp(ids, ids + half, sizeof *ids * (size_t)half) != 0) return 0;
    for (int i = half; i < n - 1; i++) out[i - half] = (task_target){i, i - half + 1, ids[i + 1]};
    return half - 1;
}

/* ---- the three tasks --------------------------------------------------------- */

const task_info task_reverse = {
    "reverse",
    "one layer learns the anti-diagonal: row i reads position 7 - i",
    "8 tokens",
    "8 digits 0-9, e.g. 3 1 4 1 5 9 2 6; every row i is a target, answered by the digit at 7 - i",
    "3 1 4 1 5 9 2 6",
    sizeof digit_vocab / sizeof *digit_vocab,
    digit_vocab,
    {.d_model = 16, .d_k = 8, .heads = 1, .layers = 1, .pos = MODEL_POS_SINUSOIDAL, .mask = {ATTN_MASK_NONE, 1}, .scale = true, .bias = false, .objective = MODEL_OBJ_TOKEN},
    {.steps = 400, .batch = 32, .lr = 0.01, .weight_decay = 0.01, .seed = 1},
    0.95,
    false,
    gen_reverse,
    {0},
    .generates = false,
};

const task_info task_sort = {
    "sort",
    "one layer learns the sorted order: row i looks at where i + 1 stands",
    "8 tokens",
    "a shuffle of 1-8, e.g. 5 3 8 1 7 2 6 4; every row i is a target, answered by the position of i + 1",
    "5 3 8 1 7 2 6 4",
    sizeof digit_vocab / sizeof *digit_vocab,
    digit_vocab,
    {.d_model = 16, .d_k = 8, .heads = 1, .layers = 1, .pos = MODEL_POS_SINUSOIDAL, .mask = {ATTN_MASK_NONE, 1}, .scale = true, .bias = false, .objective = MODEL_OBJ_POINTER},
    {.steps = 300, .batch = 32, .lr = 0.01, .weight_decay = 0.01, .seed = 1},
    0.95,
    false,
    gen_sort,
    {0},
    .generates = false,
};

const task_info task_induction = {
    "induction",
    "two layers make an induction head: find the earlier copy, read what followed it",
    "8-16 tokens",
    "4-8 distinct letters a-p, then the same again, e.g. k c h a n e k c h a n e; the rows of the second copy "
    "but its last are targets, answered by the next letter",
    "k c h a n e p f k c h a n e p f",
    sizeof letter_vocab / sizeof *letter_vocab,
    letter_vocab,
    {.d_model = 16, .d_k = 8, .heads = 1, .layers = 2, .pos = MODEL_POS_SINUSOIDAL, .mask = {ATTN_MASK_CAUSAL, 1}, .scale = true, .bias = false, .objective = MODEL_OBJ_TOKEN},
    {.steps = 600, .batch = 32, .lr = 0.01, .weight_decay = 0.01, .seed = 1},
    0.95,
    false,
    gen_induction,
    {0},
    .generates = true,
};
