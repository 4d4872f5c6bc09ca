/* task_referent.c — referent-zh and referent-en: Winograd-style sentences in
 * which the predicate decides what the pronoun refers to. A predicate of the
 * subject's state (太累了, tired) points to the subject A; a property of the
 * other (飞得太快了, wide) points to B. Only plausible sentences are made:
 * each noun has properties, each template and predicate needs some. */
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "task_part.h"
#include "task_referent.h"

enum {                  /* what a noun is or can do */
       ANIMAL = 1 << 0, /* takes the classifier 只 / can be a subject */
       FLIES = 1 << 1,
       RUNS = 1 << 2,
       SMALL = 1 << 3,
       CROSSABLE = 1 << 4, /* a street, a river … */
       WIDE = 1 << 5,
       BUSY = 1 << 6,
       DEEP = 1 << 7,
       LONG = 1 << 8,
       FAST = 1 << 9,
       SEEABLE = 1 << 10,
};

#define MAX_WORDS 16

typedef struct {
    const char *word;
    unsigned props;
} noun;

typedef struct {
    const char *words[6]; /* NULL-terminated */
    bool to_subject;      /* points to A (the subject's state), else to B */
    unsigned needs;       /* what its referent must be */
} predicate;

typedef struct {
    const char *words[MAX_WORDS]; /* with "{A}", "{B}", "{P}"; NULL-terminated */
    unsigned a_needs, b_needs;
} sentence_template;

typedef struct {
    const noun *nouns;
    int n_nouns;
    const predicate *preds;
    int n_preds;
    const sentence_template *tmpls;
    int n_tmpls;
    bool spaced;                     /* words separated by spaces (English) */
    const char *pronoun;             /* 它 / it */
    const char *lesson_a, *lesson_b; /* the lessons' pair: never trained on, in either order */
    int lesson_tmpl;                 /* the lessons' template, or -1 for every template */
    const task_lesson_sentence *lessons;
    int n_lessons;
} referent_lang;

/* ---- Chinese ------------------------------------------------------------ */

static const noun zh_nouns[] = {
    {"动物", ANIMAL | RUNS},
    {"鸟", ANIMAL | FLIES | SMALL},
    {"猫", ANIMAL | RUNS},
    {"狗", ANIMAL | RUNS},
    {"兔子", ANIMAL | RUNS | SMALL},
    {"老鼠", ANIMAL | RUNS | SMALL},
    {"蝴蝶", ANIMAL | FLIES | SMALL},
    {"蜜蜂", ANIMAL | FLIES | SMALL},
    {"松鼠", ANIMAL | RUNS | SMALL},
    {"猴子", ANIMAL | RUNS},
    {"乌龟", ANIMAL},
    {"鸭子", ANIMAL},
};

static const predicate zh_preds[] = {
    {{"太", "累", "了"}, true, ANIMAL},              /* too tired */
    {{"太", "困", "了"}, true, ANIMAL},              /* too sleepy */
    {{"太", "老", "了"}, true, ANIMAL},              /* too old (to see well) */
    {{"睡", "着", "了"}, true, ANIMAL},              /* had fallen asleep */
    {{"飞", "得", "太", "快", "了"}, false, FLIES},  /* flew too fast: only what flies */
    {{"跑", "得", "太", "快", "了"}, false, RUNS},   /* ran too fast */
    {{"太", "小", "了"}, false, SMALL},              /* too small */
    {{"藏", "得", "太", "好", "了"}, false, ANIMAL}, /* hid too well */
    {{"太", "远", "了"}, false, ANIMAL},             /* too far away */
};

static const sentence_template zh_tmpls[] = {
    {{"这", "只", "{A}", "没", "看见", "那", "只", "{B}", "，", "因为", "它", "{P}", "。"}, ANIMAL, ANIMAL},
};

static const task_lesson_sentence zh_lessons[] = {
    {"这只动物没看见那只鸟，因为它飞得太快了。", "它", "鸟"},
    {"这只动物没看见那只鸟，因为它太累了。", "它", "动物"},
};

static const char *const zh_vocab[] = {
    "这",
    "只",
    "没",
    "看见",
    "那",
    "，",
    "因为",
    "它",
    "。",
    "动物",
    "鸟",
    "猫",
    "狗",
    "兔子",
    "老鼠",
    "蝴蝶",
    "蜜蜂",
    "松鼠",
    "猴子",
    "乌龟",
    "鸭子",
    "太",
    "累",
    "了",
    "困",
    "老",
    "睡",
    "着",
    "飞",
    "得",
    "快",
    "跑",
    "小",
    "藏",
    "好",
    "远",
};

static const referent_lang zh = {
    zh_nouns,
    sizeof zh_nouns / sizeof *zh_nouns,
    zh_preds,
    sizeof zh_preds / sizeof *zh_preds,
    zh_tmpls,
    1,
    false,
    "它",
    "动物",
    "鸟",
    -1,
    zh_lessons,
    2,
};

/* ---- English ------------------------------------------------------------ */

static const noun en_nouns[] = {
    {"animal", ANIMAL | SEEABLE | FAST},
    {"dog", ANIMAL | SEEABLE | FAST},
    {"cat", ANIMAL | SEEABLE | FAST | SMALL},
    {"horse", ANIMAL | SEEABLE | FAST},
    {"chicken", ANIMAL | SEEABLE | SMALL},
    {"child", ANIMAL | SEEABLE | SMALL},
    {"man", ANIMAL | SEEABLE},
    {"woman", ANIMAL | SEEABLE},
    {"street", CROSSABLE | WIDE | BUSY},
    {"road", CROSSABLE | WIDE | BUSY | LONG},
    {"river", CROSSABLE | WIDE | DEEP},
    {"bridge", CROSSABLE | BUSY | LONG},
    {"bird", SEEABLE | FAST | SMALL},
    {"car", SEEABLE | FAST},
    {"mouse", SEEABLE | FAST | SMALL},
    {"ball", SEEABLE | FAST | SMALL},
    {"fly", SEEABLE | FAST | SMALL},
    {"sign", SEEABLE | SMALL},
    {"rabbit", SEEABLE | FAST | SMALL},
};

static const predicate en_preds[] = {
    {{"tired"}, true, ANIMAL},
    {{"scared"}, true, ANIMAL},
    {{"sleepy"}, true, ANIMAL},
    {{"lazy"}, true, ANIMAL},
    {{"wide"}, false, WIDE},
    {{"busy"}, false, BUSY},
    {{"deep"}, false, DEEP},
    {{"long"}, false, LONG},
    {{"fast"}, false, FAST},
    {{"small"}, false, SMALL},
    {{"far"}, false, SEEABLE},
};

static const sentence_template en_tmpls[] = {
    {{"The", "{A}", "didn't", "cross", "the", "{B}", "because", "it", "was", "too", "{P}", "."}, ANIMAL, CROSSABLE},
    {{"The", "{A}", "didn't", "see", "the", "{B}", "because", "it", "was", "too", "{P}", "."}, ANIMAL, SEEABLE},
};

static const task_lesson_sentence en_lessons[] = {
    {"The animal didn't cross the street because it was too tired.", "it", "animal"},
    {"The animal didn't cross the street because it was too wide.", "it", "street"},
};

static const char *const en_vocab[] = {
    "the",
    "didn't",
    "cross",
    "see",
    "because",
    "it",
    "was",
    "too",
    ".",
    "animal",
    "dog",
    "cat",
    "horse",
    "chicken",
    "child",
    "man",
    "woman",
    "street",
    "road",
    "river",
    "bridge",
    "bird",
    "car",
    "mouse",
    "ball",
    "fly",
    "sign",
    "rabbit",
    "tired",
    "scared",
    "sleepy",
    "lazy",
    "wide",
    "busy",
    "deep",
    "long",
    "fast",
    "small",
    "far",
};

static const referent_lang en = {
    en_nouns,
    sizeof en_nouns / sizeof *en_nouns,
    en_preds,
    sizeof en_preds / sizeof *en_preds,
    en_tmpls,
    2,
    true,
    "it",
    "animal",
    "street",
    0,
    en_lessons,
    2,
};

static const referent_lang *lang_of(const task_info *t) {
    return strcmp(t->name, "referent-zh") == 0 ? &zh : &en;
}

/* ---- generating ---------------------------------------------------------- */

/* One sentence of template tm: its words (into w, returns the count), with the
 * positions of A, B and the pronoun. */
static int fill_words(const referent_lang *lg, const sentence_template *tm, int a, int b, int p,
                      const char **w, int *pos_a, int *pos_b, int *pos_pron) {
    int n = 0;
    for (int i = 0; tm->words[i]; i++) {
        const char *word = tm->words[i];
        if (strcmp(word, "{A}") == 0) *pos_a = n, w[n++] = lg->nouns[a].word;
        else if (strcmp(word, "{B}") == 0) *pos_b = n, w[n++] = lg->nouns[b].word;
        else if (strcmp(word, "{P}") == 0)
            for (int k = 0; lg->preds[p].words[k]; k++) w[n++] = lg->preds[p].words[k];
        else {
            if (strcmp(word, lg->pronoun) == 0) *pos_pron = n;
            w[n++] = word;
        }
    }
    return n;
}

static void join(char *out, size_t cap, const char **w, int n, bool spaced) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        bool space = spaced && i > 0 && strcmp(w[i], ".") != 0;
        int r = snprintf(out + used, cap - used, "%s%s", space ? " " : "", w[i]);
        if (r > 0) used += (size_t)r < cap - used ? (size_t)r : cap - used - 1;
    }
}

static bool plausible(const referent_lang *lg, const sentence_template *tm, int a, int b, int p) {
    unsigned pa = lg->nouns[a].props, pb = lg->nouns[b].props, need = lg->preds[p].needs;
    if (a == b || (pa & tm->a_needs) != tm->a_needs || (pb & tm->b_needs) != tm->b_needs) return false;
    return ((lg->preds[p].to_subject ? pa : pb) & need) == need;
}

/* The lessons' nouns, in either order (and their template): never trained on. */
static bool lesson_pair(const referent_lang *lg, int tmpl, int a, int b) {
    const char *wa = lg->nouns[a].word, *wb = lg->nouns[b].word;
    bool pair = (strcmp(wa, lg->lesson_a) == 0 && strcmp(wb, lg->lesson_b) == 0) ||
                (strcmp(wa, lg->lesson_b) == 0 && strcmp(wb, lg->lesson_a) == 0);
    return pair && (lg->lesson_tmpl < 0 || lg->lesson_tmpl == tmpl);
}

static attn_status task_referent_generate(task_dataset *d, const task_info *t, attn_err *err) {
    const referent_lang *lg = lang_of(t);
    task_part train = {0}, held = {0};
    attn_status st = ATTN_OK;
    for (int tm = 0; tm < lg->n_tmpls && st == ATTN_OK; tm++)
        for (int a = 0; a < lg->n_nouns && st == ATTN_OK; a++)
            for (int b = 0; b < lg->n_nouns && st == ATTN_OK; b++)
                for (int p = 0; p < lg->n_preds && st == ATTN_OK; p++) {
                    if (!plausible(lg, &lg->tmpls[tm], a, b, p)) continue;
                    const char *w[MAX_WORDS + 8];
                    int ids[MAX_WORDS + 8], pa = 0, pb = 0, pron = 0;
                    int n = fill_words(lg, &lg->tmpls[tm], a, b, p, w, &pa, &pb, &pron);
                    for (int i = 0; i < n; i++) ids[i] = task_part_word_id(t, w[i]);
                    char text[256];
                    join(text, sizeof text, w, n, lg->spaced);
                    bool to_a = lg->preds[p].to_subject;
                    task_target tg = {pron, to_a ? pa : pb, ids[to_a ? pa : pb]};
                    // a fifth of the (template, A, B, P) combinations, chosen by a hash of the
                    // sentence, is held out; so is every sentence with the lessons' two nouns
                    bool heldout = lesson_pair(lg, tm, a, b) || attn_fnv1a(ATTN_FNV_OFFSET, text, strlen(text)) % 5 == 0;
                    st = task_part_add(heldout ? &held : &train, t, text, ids, n, &tg, 1, err);
                }
    if (st == ATTN_OK) st = task_parts_join(d, &train, &held, err);
    task_part_free(&train);
    task_part_free(&held);
    return st;
}

/* ---- labelling a sentence ------------------------------------------------- */

static bool is_noun(const referent_lang *lg, const task_info *t, int id) {
    for (int i = 0; i < lg->n_nouns; i++)
        if (task_part_word_id(t, lg->nouns[i].word) == id) return true;
    return false;
}

/* Matches ids against template tm with predicate p; fills the target (and
 * the parts' positions when roles is not NULL). */
static bool match(const referent_lang *lg, const task_info *t, const sentence_template *tm, int p,
                  const int *ids, int n, task_target *out, task_roles_at *roles) {
    int k = 0, pa = -1, pb = -1, pron = -1, pred = -1;
    for (int i = 0; tm->words[i]; i++) {
        const char *word = tm->words[i];
        if (strcmp(word, "{A}") == 0 || strcmp(word, "{B}") == 0) {
            if (k >= n || !is_noun(lg, t, ids[k])) return false;
            *(word[1] == 'A' ? &pa : &pb) = k++;
        } else if (strcmp(word, "{P}") == 0) {
            for (int j = 0; lg->preds[p].words[j]; j++, k++) {
                if (k >= n || ids[k] != task_part_word_id(t, lg->preds[p].words[j])) return false;
                if (pred < 0 && strcmp(lg->preds[p].words[j], "太") != 0) pred = k; // 飞得太快了: 飞; 太累了: 累
            }
        } else {
            if (k >= n || ids[k] != task_part_word_id(t, word)) return false;
            if (strcmp(word, lg->pronoun) == 0) pron = k;
            k++;
        }
    }
    if (k != n) return false;
    int pos = lg->preds[p].to_subject ? pa : pb;
    *out = (task_target){pron, pos, ids[pos]};
    if (roles) *roles = (task_roles_at){pa, pb, pron, pred};
    return true;
}

int task_referent_label(const task_info *t, const int *ids, int n, task_target *out) {
    const referent_lang *lg = lang_of(t);
    for (int tm = 0; tm < lg->n_tmpls; tm++)
        for (int p = 0; p < lg->n_preds; p++)
            if (match(lg, t, &lg->tmpls[tm], p, ids, n, out, NULL)) return 1;
    return 0;
}

bool task_referent_roles(const task_info *t, const int *ids, int n, task_roles_at *out) {
    const referent_lang *lg = lang_of(t);
    task_target tg;
    for (int tm = 0; tm < lg->n_tmpls; tm++)
        for (int p = 0; p < lg->n_preds; p++)
            if (match(lg, t, &lg->tmpls[tm], p, ids, n, &tg, out)) return true;
    return false;
}

int task_referent_lessons(const task_info *t, const task_lesson_sentence **out) {
    const referent_lang *lg = lang_of(t);
    *out = lg->lessons;
    return lg->n_lessons;
}

/* ---- the two tasks ---------------------------------------------------------- */

/* 2 layers × 1 head, d_model 16, d_k 8, sinusoidal positions, no mask, the
 * pointer objective: the shape the PyTorch prototype resolved the lessons with. */
#define REFERENT_CFG \
    { .d_model = 16, .d_k = 8, .heads = 1, .layers = 2, .pos = MODEL_POS_SINUSOIDAL, \
      .max_len = 0, .mask = {ATTN_MASK_NONE, 1}, .scale = true, .bias = false, \
      .objective = MODEL_OBJ_POINTER }
#define REFERENT_TRAIN \
    { .steps = 300, .batch = 64, .lr = 0.01, .weight_decay = 0.01, .seed = 1 }
/* The token objective learns more slowly and needs the stronger weight decay
 * (the prototype's 1.0) to answer the lessons' pairs across seeds. */
#define REFERENT_TOKEN_TRAIN \
    { .steps = 600, .batch = 64, .lr = 0.01, .weight_decay = 1.0, .seed = 1 }

const task_info task_referent_zh = {
    "referent-zh",
    "what 它 refers to: 太累了 points to the subject, 飞得太快了 to the other animal",
    "15-17 tokens",
    "这只{A}没看见那只{B}，因为它{P}。 (12 animals, 9 predicates); one target row: 它, answered by {A} or {B}",
    "这只动物没看见那只鸟，因为它飞得太快了。",
    sizeof zh_vocab / sizeof *zh_vocab,
    zh_vocab,
    REFERENT_CFG,
    REFERENT_TRAIN,
    0.95,
    true,
    task_referent_generate,
    .train_other = REFERENT_TOKEN_TRAIN,
};

const task_info task_referent_en = {
    "referent-en",
    "what \"it\" refers to: tired points to the subject, wide to the street",
    "12 tokens",
    "The {A} didn't cross|see the {B} because it was too {P}. (19 nouns, 11 predicates); one target row: it, "
    "answered by {A} or {B}",
    "The animal didn't cross the street because it was too tired.",
    sizeof en_vocab / sizeof *en_vocab,
    en_vocab,
    REFERENT_CFG,
    REFERENT_TRAIN,
    0.95,
    true,
    task_referent_generate,
    .train_other = REFERENT_TOKEN_TRAIN,
};
