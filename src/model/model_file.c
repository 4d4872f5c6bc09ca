/* model_file.c — writing and strictly reading "attnviz-model" files (cJSON). */
#include "model_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attn_json.h"
#include "fileio.h"
#include "task.h"
#include "utf8.h"

/* What a message quotes of a file's text: its first 40 bytes, with control
 * characters and broken bytes shown as escapes (a file must not be able to
 * retitle or clear the terminal an error is printed on). */
#define QUOTE_BYTES 40
#define QUOTE_CAP (QUOTE_BYTES * 4 + 1)

static const char *quote(char buf[QUOTE_CAP], const char *s) {
    utf8_visible(buf, QUOTE_CAP, s, utf8_cut(s, strlen(s), QUOTE_BYTES));
    return buf;
}

/* The first control character (U+0000-U+001F, U+007F-U+009F) of the UTF-8
 * string s, or 0 when it has none. */
static uint32_t first_control(const char *s) {
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        int n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) return 0xFFFD; // not reached: the whole file was checked to be UTF-8
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return cp;
        i += (size_t)n;
    }
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

void model_json_matrix(attn_strbuf *b, const char *indent, const double *m, int rows, int cols) {
    attn_sb_puts(b, "[\n");
    for (int i = 0; i < rows; i++) {
        attn_sb_printf(b, "%s  [", indent);
        for (int j = 0; j < cols; j++) {
            if (j) attn_sb_puts(b, ", ");
            attn_sb_number(b, m[(size_t)i * cols + j]);
        }
        attn_sb_puts(b, i + 1 < rows ? "],\n" : "]\n");
    }
    attn_sb_printf(b, "%s]", indent);
}

void model_json_vector(attn_strbuf *b, const double *v, int len) {
    attn_sb_puts(b, "[");
    for (int i = 0; i < len; i++) {
        if (i) attn_sb_puts(b, ", ");
        attn_sb_number(b, v[i]);
    }
    attn_sb_puts(b, "]");
}

void model_json_config(attn_strbuf *b, const model_config *c) {
    char mask[32];
    attn_mask_format(mask, sizeof mask, c->mask);
    attn_sb_printf(b, "{\"d_model\": %d, \"d_k\": %d, \"heads\": %d, \"layers\": %d, \"pos\": \"%s\", "
                      "\"max_len\": %d, \"mask\": \"%s\", \"scale\": %s, \"bias\": %s, \"objective\": \"%s\"",
                   c->d_model, c->d_k, c->heads, c->layers, model_pos_name(c->pos), c->max_len, mask,
                   c->scale ? "true" : "false", c->bias ? "true" : "false", model_objective_name(c->objective));
    if (c->kv_heads && c->kv_heads != c->heads) // grouped-query attention; absent: one K, V per head (today's files)
        attn_sb_printf(b, ", \"kv_heads\": %d", c->kv_heads);
    // only when not the default, so every file without it stays as it was
    if (c->pos == MODEL_POS_ROPE && c->rope_base > 0 && c->rope_base != ATTN_ROPE_BASE)
        attn_sb_printf(b, ", \"rope_base\": %.0f", c->rope_base);
    if (c->pos_offset) // a run's (--pos-offset): never a file's, training starts at 0
        attn_sb_printf(b, ", \"pos_offset\": %d", c->pos_offset);
    attn_sb_puts(b, "}");
}

/* One tensor as "key": value, indented. */
static void write_tensor(attn_strbuf *b, const model *m, const model_tensor *t, const char *indent) {
    const double *v = m->block + t->offset;
    attn_sb_printf(b, "%s\"%s\": ", indent, t->name);
    if (t->vector) model_json_vector(b, v, t->cols);
    else model_json_matrix(b, indent, v, t->rows, t->cols);
}

static void write_layers(attn_strbuf *b, const model *m) {
    attn_sb_puts(b, "  \"layers\": [\n");
    for (int l = 0; l < m->cfg.layers; l++) {
        attn_sb_puts(b, "    {\"heads\": [\n");
        for (int h = 0; h < m->cfg.heads; h++) {
            attn_sb_puts(b, "      {\n");
            bool first = true;
            for (int i = 0; i < m->n_tensors; i++) {
                const model_tensor *t = &m->tensor[i];
                if (t->layer != l || t->head != h) continue;
                if (!first) attn_sb_puts(b, ",\n");
                write_tensor(b, m, t, "        ");
                first = false;
            }
            attn_sb_puts(b, h + 1 < m->cfg.heads ? "\n      },\n" : "\n      }\n");
        }
        attn_sb_puts(b, "    ]");
        for (int i = 0; i < m->n_tensors; i++) {
            const model_tensor *t = &m->tensor[i];
            if (t->layer != l || t->head >= 0) continue;
            attn_sb_puts(b, ",\n");
            write_tensor(b, m, t, "    ");
        }
        attn_sb_puts(b, l + 1 < m->cfg.layers ? "},\n" : "}\n");
    }
    attn_sb_puts(b, "  ]");
}

static void write_training(attn_strbuf *b, const model_training *r) {
    attn_sb_printf(b, "  \"training\": {\"seed\": %lu, \"steps\": %d, \"batch\": %d, \"lr\": ",
                   (unsigned long)r->seed, r->steps, r->batch);
    attn_sb_number(b, r->lr);
    attn_sb_puts(b, ", \"weight_decay\": ");
    attn_sb_number(b, r->weight_decay);
    attn_sb_puts(b, ", \"loss\": ");
    attn_sb_number(b, r->loss);
    attn_sb_puts(b, ", \"heldout_accuracy\": ");
    attn_sb_number(b, r->heldout_accuracy);
    if (r->has_referent) {
        attn_sb_puts(b, ", \"referent_attention\": ");
        attn_sb_number(b, r->referent_attention);
    }
    attn_sb_puts(b, "}\n");
}

char *model_file_write(const model *m) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "{\n  \"format\": \"attnviz-model\",\n  \"version\": 1,\n  \"task\": ");
    attn_sb_json_string(&b, m->task, strlen(m->task));
    attn_sb_puts(&b, ",\n  \"probe\": ");
    attn_sb_json_string(&b, m->probe, strlen(m->probe));
    attn_sb_puts(&b, ",\n  \"vocab\": [");
    for (int i = 0; i < m->vocab_count; i++) {
        if (i) attn_sb_puts(&b, ", ");
        attn_sb_json_string(&b, m->vocab[i], strlen(m->vocab[i]));
    }
    attn_sb_puts(&b, "],\n  \"config\": ");
    model_json_config(&b, &m->cfg);
    attn_sb_puts(&b, ",\n");
    for (int i = 0; i < m->n_tensors; i++) // E and P come before the layers
        if (m->tensor[i].layer < 0 && (strcmp(m->tensor[i].name, "E") == 0 || strcmp(m->tensor[i].name, "P") == 0)) {
            write_tensor(&b, m, &m->tensor[i], "  ");
            attn_sb_puts(&b, ",\n");
        }
    write_layers(&b, m);
    attn_sb_puts(&b, ",\n");
    for (int i = 0; i < m->n_tensors; i++) // U and b_U after them
        if (m->tensor[i].layer < 0 && m->tensor[i].name[0] != 'E' && m->tensor[i].name[0] != 'P') {
            write_tensor(&b, m, &m->tensor[i], "  ");
            attn_sb_puts(&b, ",\n");
        }
    write_training(&b, &m->training);
    attn_sb_puts(&b, "}\n");
    return attn_sb_take(&b);
}

/* ---- reading ------------------------------------------------------------- */

/* A key of obj, refusing repeats (cJSON keeps both; the second would win silently). */
static attn_status unique_keys(const cJSON *obj, const char *where, const char *const *known, size_t count,
                               attn_err *err) {
    const cJSON *it;
    char shown[QUOTE_CAP];
    cJSON_ArrayForEach(it, obj) {
        if (cJSON_GetObjectItemCaseSensitive(obj, it->string) != it)
            return attn_fail(err, ATTN_ERR_PARSE, "%s.%s appears more than once; give each key once.", where,
                             quote(shown, it->string));
        bool ok = false;
        for (size_t i = 0; i < count && !ok; i++) ok = strcmp(it->string, known[i]) == 0;
        if (!ok) {
            char list[256] = "";
            for (size_t i = 0; i < count; i++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", known[i]);
            }
            return attn_fail(err, ATTN_ERR_PARSE, "%s.%s is not a key attnviz knows here; the keys are %s.",
                             where, quote(shown, it->string), list);
        }
    }
    return ATTN_OK;
}

static const cJSON *need(const cJSON *obj, const char *key, const char *where, attn_err *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) attn_fail(err, ATTN_ERR_PARSE, "%s has no \"%s\"; a model file needs it.", where, key);
    return it;
}

static attn_status read_int(int *out, const cJSON *obj, const char *key, const char *where, long lo, long hi,
                            attn_err *err) {
    const cJSON *it = need(obj, key, where, err);
    if (!it) return ATTN_ERR_PARSE;
    double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(v >= lo && v <= hi) || v != floor(v))
        return attn_fail(err, ATTN_ERR_RANGE, "%s.%s must be a whole number from %ld to %ld.", where, key, lo, hi);
    *out = (int)(long)v;
    return ATTN_OK;
}

static attn_status read_double(double *out, const cJSON *obj, const char *key, const char *where, attn_err *err) {
    const cJSON *it = need(obj, key, where, err);
    if (!it) return ATTN_ERR_PARSE;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || fabs(it->valuedouble) > ATTN_MAX_ABS)
        return attn_fail(err, ATTN_ERR_RANGE, "%s.%s must be a finite number of at most 1e18 in size.", where, key);
    *out = it->valuedouble;
    return ATTN_OK;
}

static attn_status read_bool(bool *out, const cJSON *obj, const char *key, const char *where, attn_err *err) {
    const cJSON *it = need(obj, key, where, err);
    if (!it) return ATTN_ERR_PARSE;
    if (!cJSON_IsBool(it)) return attn_fail(err, ATTN_ERR_PARSE, "%s.%s must be true or false.", where, key);
    *out = cJSON_IsTrue(it);
    return ATTN_OK;
}

static const char *read_string(const cJSON *obj, const char *key, const char *where, attn_err *err) {
    const cJSON *it = need(obj, key, where, err);
    if (!it) return NULL;
    if (!cJSON_IsString(it)) {
        attn_fail(err, ATTN_ERR_PARSE, "%s.%s must be a string.", where, key);
        return NULL;
    }
    uint32_t cp = first_control(it->valuestring);
    if (cp) {
        attn_fail(err, ATTN_ERR_PARSE, "%s.%s contains a control character (U+%04X); a model file's text has none.",
                  where, key, (unsigned)cp);
        return NULL;
    }
    return it->valuestring;
}

static attn_status read_config(model_config *c, const cJSON *obj, const char *name, attn_err *err) {
    static const char *const keys[] = {"d_model", "d_k", "heads", "layers", "pos", "max_len",
                                       "mask", "scale", "bias", "objective", "kv_heads", "rope_base"};
    char where[300];
    snprintf(where, sizeof where, "%s: config", name);
    if (!cJSON_IsObject(obj)) return attn_fail(err, ATTN_ERR_PARSE, "%s must be an object.", where);
    attn_status st = unique_keys(obj, where, keys, sizeof keys / sizeof *keys, err);
    if (st == ATTN_OK) st = read_int(&c->d_model, obj, "d_model", where, 1, ATTN_MAX_D_MODEL, err);
    if (st == ATTN_OK) st = read_int(&c->d_k, obj, "d_k", where, 1, ATTN_MAX_D_K, err);
    if (st == ATTN_OK) st = read_int(&c->heads, obj, "heads", where, 1, ATTN_MAX_HEADS, err);
    if (st == ATTN_OK) st = read_int(&c->layers, obj, "layers", where, 1, MODEL_MAX_LAYERS, err);
    if (st == ATTN_OK) st = read_int(&c->max_len, obj, "max_len", where, 1, MODEL_MAX_LEN, err);
    if (st == ATTN_OK) st = read_bool(&c->scale, obj, "scale", where, err);
    if (st == ATTN_OK) st = read_bool(&c->bias, obj, "bias", where, err);
    c->kv_heads = 0; // optional: grouped-query attention
    if (st == ATTN_OK && cJSON_GetObjectItemCaseSensitive(obj, "kv_heads"))
        st = read_int(&c->kv_heads, obj, "kv_heads", where, 1, ATTN_MAX_HEADS, err);
    const char *s = NULL;
    char shown[QUOTE_CAP];
    if (st == ATTN_OK && (s = read_string(obj, "pos", where, err)) && model_pos_parse(&c->pos, s, NULL) != ATTN_OK)
        return attn_fail(err, ATTN_ERR_RANGE, "%s.pos is \"%s\"; it is sinusoidal, learned, none or rope.", where,
                         quote(shown, s));
    if (st == ATTN_OK && s && (s = read_string(obj, "mask", where, err)) && attn_mask_parse(&c->mask, s, NULL) != ATTN_OK)
        return attn_fail(err, ATTN_ERR_RANGE, "%s.mask is \"%s\"; it is none, causal, window:W or causal-window:W "
                                              "(W 1-%d).",
                         where, quote(shown, s), ATTN_MAX_WINDOW);
    if (st == ATTN_OK && s && (s = read_string(obj, "objective", where, err)) &&
        model_objective_parse(&c->objective, s, NULL) != ATTN_OK)
        return attn_fail(err, ATTN_ERR_RANGE, "%s.objective is \"%s\"; it is pointer or token.", where,
                         quote(shown, s));
    c->rope_base = ATTN_ROPE_BASE;
    if (st == ATTN_OK && s && cJSON_GetObjectItemCaseSensitive(obj, "rope_base")) { // optional: 10000 when left out
        int base = 0;
        if ((st = read_int(&base, obj, "rope_base", where, 2, (long)ATTN_MAX_ROPE_BASE, err)) != ATTN_OK) return st;
        if (c->pos != MODEL_POS_ROPE)
            return attn_fail(err, ATTN_ERR_RANGE, "%s.rope_base goes with pos \"rope\".", where);
        c->rope_base = base;
    }
    return st != ATTN_OK ? st : s ? ATTN_OK
                                  : ATTN_ERR_PARSE;
}

/* Reads a (rows, cols) matrix, or a flat array of cols numbers when vector. */
static attn_status read_tensor(double *dst, const cJSON *item, const char *where, const model_tensor *t,
                               const char *why, attn_err *err) {
    int rows = t->vector ? 1 : cJSON_GetArraySize(item);
    if (!cJSON_IsArray(item) || rows == 0)
        return attn_fail(err, ATTN_ERR_SHAPE, "%s must be a non-empty array of %s.", where,
                         t->vector ? "numbers" : "rows of numbers");
    const cJSON *first = t->vector ? item : cJSON_GetArrayItem(item, 0);
    int cols = cJSON_IsArray(first) ? cJSON_GetArraySize(first) : -1;
    if (cols < 0) return attn_fail(err, ATTN_ERR_SHAPE, "%s must be an array of rows of numbers (a matrix).", where);
    if (t->vector && cols != t->cols)
        return attn_fail(err, ATTN_ERR_SHAPE, "%s has %d numbers but needs %d (%s).", where, cols, t->cols, why);
    if (!t->vector && (rows != t->rows || cols != t->cols))
        return attn_fail(err, ATTN_ERR_SHAPE, "%s is %dx%d but needs to be %dx%d (%s).", where, rows, cols,
                         t->rows, t->cols, why);
    for (int i = 0; i < rows; i++) {
        const cJSON *row = t->vector ? item : cJSON_GetArrayItem(item, i);
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != cols)
            return attn_fail(err, ATTN_ERR_SHAPE, "%s is ragged: row %d has %d entries, row 0 has %d.", where, i,
                             cJSON_IsArray(row) ? cJSON_GetArraySize(row) : 0, cols);
        int j = 0;
        const cJSON *cell;
        cJSON_ArrayForEach(cell, row) {
            char pos[40];
            if (t->vector) snprintf(pos, sizeof pos, "[%d]", j);
            else snprintf(pos, sizeof pos, "[%d][%d]", i, j);
            if (!cJSON_IsNumber(cell)) return attn_fail(err, ATTN_ERR_PARSE, "%s%s is not a number.", where, pos);
            double v = cell->valuedouble;
            if (!isfinite(v))
                return attn_fail(err, ATTN_ERR_NONFINITE, "%s%s is too large to be a finite number.", where, pos);
            if (fabs(v) > ATTN_MAX_ABS)
                return attn_fail(err, ATTN_ERR_RANGE, "%s%s is %g; values must be at most 1e18 in size.", where, pos, v);
            dst[(size_t)i * cols + j++] = v;
        }
    }
    return ATTN_OK;
}

/* The sizes a tensor's shape comes from, for messages. */
static void shape_words(char *why, size_t cap, const model_tensor *t, const model *m) {
    const model_config *c = &m->cfg;
    const char *n = t->name;
    if (strcmp(n, "E") == 0) snprintf(why, cap, "%d vocab words x d_model %d", m->vocab_count, c->d_model);
    else if (strcmp(n, "P") == 0) snprintf(why, cap, "max_len %d x d_model %d", c->max_len, c->d_model);
    else if (strcmp(n, "U") == 0) snprintf(why, cap, "d_model %d x %d vocab words", c->d_model, m->vocab_count);
    else if (strcmp(n, "b_U") == 0) snprintf(why, cap, "%d vocab words", m->vocab_count);
    else if (strcmp(n, "W_O") == 0) snprintf(why, cap, "heads %d * d_k %d x d_model %d", c->heads, c->d_k, c->d_model);
    else if (strcmp(n, "b_O") == 0) snprintf(why, cap, "d_model %d", c->d_model);
    else if (t->vector) snprintf(why, cap, "d_k %d", c->d_k);
    else snprintf(why, cap, "d_model %d x d_k %d", c->d_model, c->d_k);
}

/* The JSON object that holds tensor t, and its key path for messages. */
static const cJSON *tensor_home(char *where, size_t cap, const cJSON *root, const model_tensor *t,
                                const char *name) {
    if (t->layer < 0) {
        snprintf(where, cap, "%s: %s", name, t->name);
        return root;
    }
    const cJSON *layer = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "layers"), t->layer);
    if (t->head < 0) {
        snprintf(where, cap, "%s: layers[%d].%s", name, t->layer, t->name);
        return layer;
    }
    snprintf(where, cap, "%s: layers[%d].heads[%d].%s", name, t->layer, t->head, t->name);
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(layer, "heads"), t->head);
}

/* Checks the layers' structure: the count, the keys of each layer and head. */
static attn_status check_layers(const cJSON *layers, const model_config *c, const char *name, attn_err *err) {
    static const char *const layer_keys[] = {"heads", "W_O", "b_O"};
    static const char *const head_keys[] = {"W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"};
    char where[300];
    if (!cJSON_IsArray(layers) || cJSON_GetArraySize(layers) != c->layers)
        return attn_fail(err, ATTN_ERR_SHAPE, "%s: layers must be an array of %d layer objects (config.layers), not %d.",
                         name, c->layers, cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : 0);
    for (int l = 0; l < c->layers; l++) {
        const cJSON *layer = cJSON_GetArrayItem(layers, l);
        snprintf(where, sizeof where, "%s: layers[%d]", name, l);
        if (!cJSON_IsObject(layer)) return attn_fail(err, ATTN_ERR_SHAPE, "%s must be an object.", where);
        attn_status st = unique_keys(layer, where, layer_keys, c->bias ? 3 : 2, err);
        if (st != ATTN_OK) return st;
        const cJSON *heads = cJSON_GetObjectItemCaseSensitive(layer, "heads");
        if (!cJSON_IsArray(heads) || cJSON_GetArraySize(heads) != c->heads)
            return attn_fail(err, ATTN_ERR_SHAPE, "%s.heads must be an array of %d head objects (config.heads), not %d.",
                             where, c->heads, cJSON_IsArray(heads) ? cJSON_GetArraySize(heads) : 0);
        for (int h = 0; h < c->heads; h++) {
            char hw[320];
            snprintf(hw, sizeof hw, "%s.heads[%d]", where, h);
            const cJSON *head = cJSON_GetArrayItem(heads, h);
            if (!cJSON_IsObject(head)) return attn_fail(err, ATTN_ERR_SHAPE, "%s must be an object.", hw);
            static const char *const q_keys[] = {"W_Q", "b_Q"}; // a grouped head: its K, V are its group's first head's
            bool own_kv = !c->kv_heads || h % (c->heads / c->kv_heads) == 0;
            st = own_kv ? unique_keys(head, hw, head_keys, c->bias ? 6 : 3, err)
                        : unique_keys(head, hw, q_keys, c->bias ? 2 : 1, err);
            if (st != ATTN_OK) return st;
        }
    }
    return ATTN_OK;
}

static attn_status read_vocab(char ***words, int *count, const cJSON *arr, const char *name, attn_err *err) {
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return attn_fail(err, ATTN_ERR_PARSE, "%s: vocab must be a non-empty array of words.", name);
    *count = cJSON_GetArraySize(arr);
    if (*count > MODEL_MAX_VOCAB)
        return attn_fail(err, ATTN_ERR_RANGE, "%s: vocab has %d words; attnviz allows at most %d.", name, *count,
                         MODEL_MAX_VOCAB);
    *words = calloc((size_t)*count, sizeof **words);
    if (!*words) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to read %s.", name);
    for (int i = 0; i < *count; i++) {
        const cJSON *w = cJSON_GetArrayItem(arr, i);
        if (!cJSON_IsString(w)) return attn_fail(err, ATTN_ERR_PARSE, "%s: vocab[%d] must be a string.", name, i);
        uint32_t cp = first_control(w->valuestring);
        if (cp)
            return attn_fail(err, ATTN_ERR_PARSE, "%s: vocab[%d] contains a control character (U+%04X); a word "
                                                  "is printable text.",
                             name, i, (unsigned)cp);
        (*words)[i] = w->valuestring; // borrowed from the JSON tree until model_create copies it
    }
    return ATTN_OK;
}

static attn_status read_training(model_training *r, const cJSON *obj, bool referent, const char *name, attn_err *err) {
    static const char *const keys[] = {"seed", "steps", "batch", "lr", "weight_decay", "loss", "heldout_accuracy",
                                       "referent_attention"};
    char where[300];
    snprintf(where, sizeof where, "%s: training", name);
    if (!cJSON_IsObject(obj)) return attn_fail(err, ATTN_ERR_PARSE, "%s must be an object.", where);
    attn_status st = unique_keys(obj, where, keys, referent ? 8 : 7, err);
    double seed = 0;
    if (st == ATTN_OK) st = read_double(&seed, obj, "seed", where, err);
    if (st == ATTN_OK && (seed < 0 || seed > 4294967295.0 || seed != floor(seed)))
        st = attn_fail(err, ATTN_ERR_RANGE, "%s.seed must be a whole number from 0 to 4294967295.", where);
    r->seed = (uint32_t)seed;
    if (st == ATTN_OK) st = read_int(&r->steps, obj, "steps", where, 0, 1000000, err);
    if (st == ATTN_OK) st = read_int(&r->batch, obj, "batch", where, 1, 4096, err);
    if (st == ATTN_OK) st = read_double(&r->lr, obj, "lr", where, err);
    if (st == ATTN_OK) st = read_double(&r->weight_decay, obj, "weight_decay", where, err);
    if (st == ATTN_OK) st = read_double(&r->loss, obj, "loss", where, err);
    if (st == ATTN_OK) st = read_double(&r->heldout_accuracy, obj, "heldout_accuracy", where, err);
    r->has_referent = referent;
    if (st == ATTN_OK && referent) st = read_double(&r->referent_attention, obj, "referent_attention", where, err);
    return st;
}

/* The offset of the first \u0000 escape in text, or (size_t)-1: cJSON would
 * end the string there and drop the rest of it silently. */
static size_t find_nul_escape(const char *text, size_t len) {
    for (const char *p = text; (p = memchr(p, '\\', len - (size_t)(p - text))) && p + 6 <= text + len; p++) {
        if (p[1] == '\\') { // an escaped backslash: the next one starts afresh
            p++;
            continue;
        }
        if (p[1] == 'u' && memcmp(p + 2, "0000", 4) == 0) return (size_t)(p - text);
    }
    return (size_t)-1;
}

/* The text before JSON: UTF-8 throughout, no NUL byte and no \u0000 (what
 * cJSON lets through, cutting a string short). */
static attn_status check_text(const char *text, size_t len, const char *name, attn_err *err) {
    int line, col;
    size_t bad = utf8_find_invalid(text, len);
    if (bad != (size_t)-1) {
        attn_json_position(text, bad, &line, &col);
        return attn_fail(err, ATTN_ERR_PARSE, "%s:%d:%d: the file is not valid UTF-8: there is %s (a model file is "
                                              "UTF-8 text).",
                         name, line, col, utf8_problem(text, len, bad));
    }
    const char *nul = memchr(text, '\0', len); // cJSON would end a string there, as at \u0000
    if (nul) {
        attn_json_position(text, (size_t)(nul - text), &line, &col);
        return attn_fail(err, ATTN_ERR_PARSE, "%s:%d:%d: a NUL byte; a model file is text.", name, line, col);
    }
    bad = find_nul_escape(text, len);
    if (bad != (size_t)-1) {
        attn_json_position(text, bad, &line, &col);
        return attn_fail(err, ATTN_ERR_PARSE, "%s:%d:%d: \\u0000 (the character NUL) cannot be in a model file's text.",
                         name, line, col);
    }
    return ATTN_OK;
}

/* Puts "name: " before a message that came from a function that knows no file. */
static void name_the_file(attn_err *err, const char *name) {
    if (!err) return;
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    snprintf(err->msg, sizeof err->msg, "%.200s: %.300s", name, msg);
}

/* Everything after the JSON syntax: the header, the config, the model. */
static attn_status read_model(model *out, const cJSON *root, const char *name, attn_err *err) {
    static const char *const keys[] = {"format", "version", "task", "probe", "vocab", "config", "E", "P",
                                       "layers", "U", "b_U", "training"};
    attn_status st = unique_keys(root, name, keys, sizeof keys / sizeof *keys, err);
    if (st != ATTN_OK) return st;
    const char *format = read_string(root, "format", name, err);
    if (!format) return ATTN_ERR_PARSE;
    char shown[QUOTE_CAP];
    if (strcmp(format, "attnviz-model") != 0)
        return attn_fail(err, ATTN_ERR_PARSE, "%s: format is \"%s\"; a model file says \"attnviz-model\".", name,
                         quote(shown, format));
    int version = 0;
    if ((st = read_int(&version, root, "version", name, 0, 1000000, err)) != ATTN_OK) return st;
    if (version != 1)
        return attn_fail(err, ATTN_ERR_PARSE, "%s: version %d; this attnviz reads model files of version 1.", name, version);
    const char *task = read_string(root, "task", name, err), *probe = task ? read_string(root, "probe", name, err) : NULL;
    if (!task || !probe) return ATTN_ERR_PARSE;
    const task_info *ti = task_find(task);
    if (!ti)
        return attn_fail(err, ATTN_ERR_PARSE, "%s: task \"%s\" is not one of %s.", name, quote(shown, task), task_names());
    model_config c;
    memset(&c, 0, sizeof c);
    const cJSON *cfg = need(root, "config", name, err);
    if (!cfg || (st = read_config(&c, cfg, name, err)) != ATTN_OK) return cfg ? st : ATTN_ERR_PARSE;
    const cJSON *vocab = need(root, "vocab", name, err);
    char **words = NULL;
    int count = 0;
    st = vocab ? read_vocab(&words, &count, vocab, name, err) : ATTN_ERR_PARSE;
    if (st == ATTN_OK && (st = model_create(out, &c, (const char *const *)words, count, task, probe, err)) != ATTN_OK)
        name_the_file(err, name);
    free(words);
    if (st != ATTN_OK) return st;
    // the parts that exist only with learned positions or the token objective
    const char *opt[] = {"P", "U", "b_U"};
    bool want[] = {c.pos == MODEL_POS_LEARNED, c.objective == MODEL_OBJ_TOKEN, c.objective == MODEL_OBJ_TOKEN};
    const char *because[] = {"config.pos is learned", "config.objective is token", "config.objective is token"};
    for (int i = 0; i < 3; i++)
        if (!want[i] && cJSON_GetObjectItemCaseSensitive(root, opt[i]))
            return attn_fail(err, ATTN_ERR_PARSE, "%s: %s is only in a model whose %s.", name, opt[i], because[i]);
    const cJSON *layers = need(root, "layers", name, err);
    if (!layers || (st = check_layers(layers, &c, name, err)) != ATTN_OK) return layers ? st : ATTN_ERR_PARSE;
    for (int i = 0; i < out->n_tensors; i++) {
        const model_tensor *t = &out->tensor[i];
        char where[400], why[96];
        const cJSON *home = tensor_home(where, sizeof where, root, t, name);
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(home, t->name);
        if (!item) return attn_fail(err, ATTN_ERR_PARSE, "%s is missing; a model file needs it.", where);
        shape_words(why, sizeof why, t, out);
        if (strcmp(t->name, "E") == 0 && cJSON_IsArray(item) && cJSON_GetArraySize(item) != out->vocab_count)
            return attn_fail(err, ATTN_ERR_SHAPE, "%s has %d rows but vocab has %d words (one row per word).", where,
                             cJSON_GetArraySize(item), out->vocab_count);
        if ((st = read_tensor(out->block + t->offset, item, where, t, why, err)) != ATTN_OK) return st;
    }
    const cJSON *training = need(root, "training", name, err);
    return training ? read_training(&out->training, training, ti->referent, name, err) : ATTN_ERR_PARSE;
}

attn_status model_file_parse(model *out, const char *text, size_t len, const char *name, attn_err *err) {
    memset(out, 0, sizeof *out);
    attn_status st = check_text(text, len, name, err);
    if (st != ATTN_OK) return st;
    size_t stop = 0;
    bool more = false;
    cJSON *root = attn_json_parse_one(text, len, &stop, &more);
    if (!root) {
        int line, col;
        attn_json_position(text, stop, &line, &col);
        if (more) // e.g. two models, as `>>` makes
            return attn_fail(err, ATTN_ERR_PARSE, "%s:%d:%d: more follows the JSON object; a model file is exactly one "
                                                  "JSON object (was a second one appended?).",
                             name, line, col);
        return attn_fail(err, ATTN_ERR_PARSE,
                         "%s:%d:%d: this is not valid JSON (a model file is a JSON object; JSON has no NaN or Infinity).",
                         name, line, col);
    }
    if (!cJSON_IsObject(root)) st = attn_fail(err, ATTN_ERR_PARSE, "%s: a model file must be a JSON object {...}.", name);
    else st = read_model(out, root, name, err);
    cJSON_Delete(root);
    if (st != ATTN_OK) model_free(out);
    return st;
}

attn_status model_file_load(model *out, const char *path, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    attn_status st = attn_read_file(path, MODEL_FILE_MAX_BYTES, &text, &len, err);
    if (st == ATTN_OK) st = model_file_parse(out, text, len, path, err);
    free(text);
    return st;
}

/* ---- what may be written ------------------------------------------------------ */

/* The longest number the writer prints for a value within ±1e18: a sign, 17
 * significant digits, the point and an exponent ("-4.9406564584124654e-324"). */
#define NUMBER_CHARS 24

/* Bytes a JSON string of s takes at most (every byte escaped as \u00XX). */
static size_t string_bound(const char *s) {
    return 6 * strlen(s) + 2;
}

size_t model_file_size_bound(const model *m) {
    size_t bytes = 4096; // the keys, the config and the training record, with room to spare
    bytes += string_bound(m->task) + string_bound(m->probe);
    for (int i = 0; i < m->vocab_count; i++) bytes += string_bound(m->vocab[i]) + 2;
    for (int i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensor[i];
        size_t rows = t->vector ? 1 : (size_t)t->rows;
        bytes += 32 + rows * 16 + rows * (size_t)t->cols * (NUMBER_CHARS + 2); // key, indents, brackets, ", "
    }
    return bytes;
}

attn_status model_file_check_size(const model *m, attn_err *err) {
    size_t bound = model_file_size_bound(m);
    if (bound <= MODEL_FILE_MAX_BYTES) return ATTN_OK;
    return attn_fail(err, ATTN_ERR_RANGE,
                     "With these settings the model has %zu parameters, and its file could take %.0f MB, more than "
                     "the %u MiB a model file may have (attnviz reads no more); choose a smaller d_model, d_k, "
                     "number of heads or layers.",
                     m->n_params, bound / 1e6, MODEL_FILE_MAX_BYTES >> 20);
}

/* Where a parameter is in the file: "layers[1].heads[0].W_Q[2][3]". */
static void parameter_where(char *out, size_t cap, const model_tensor *t, size_t k) {
    char pos[48];
    if (t->vector) snprintf(pos, sizeof pos, "[%zu]", k);
    else snprintf(pos, sizeof pos, "[%zu][%zu]", k / (size_t)t->cols, k % (size_t)t->cols);
    if (t->layer < 0) snprintf(out, cap, "%s%s", t->name, pos);
    else if (t->head < 0) snprintf(out, cap, "layers[%d].%s%s", t->layer, t->name, pos);
    else snprintf(out, cap, "layers[%d].heads[%d].%s%s", t->layer, t->head, t->name, pos);
}

static bool readable_number(double v) {
    return isfinite(v) && fabs(v) <= ATTN_MAX_ABS;
}

attn_status model_file_check_values(const model *m, attn_err *err) {
    static const char *const why = "beyond the finite numbers of at most 1e18 in size a model file holds, so the "
                                   "model is not saved; a smaller learning rate helps";
    const model_training *r = &m->training;
    const double record[] = {r->loss, r->heldout_accuracy, r->referent_attention};
    const char *const record_key[] = {"training.loss", "training.heldout_accuracy", "training.referent_attention"};
    for (int i = 0; i < 3; i++)
        if (!readable_number(record[i]))
            return attn_fail(err, ATTN_ERR_NONFINITE, "The training diverged: %s is %g, %s.", record_key[i],
                             record[i], why);
    for (int i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensor[i];
        size_t count = (size_t)(t->vector ? 1 : t->rows) * (size_t)t->cols;
        for (size_t k = 0; k < count; k++) {
            double v = m->block[t->offset + k];
            if (readable_number(v)) continue;
            char where[96];
            parameter_where(where, sizeof where, t, k);
            return attn_fail(err, ATTN_ERR_NONFINITE, "The training diverged: %s is %g, %s.", where, v, why);
        }
    }
    return ATTN_OK;
}

attn_status model_file_write_checked(const model *m, char **out, attn_err *err) {
    *out = NULL;
    attn_status st = model_file_check_values(m, err);
    if (st == ATTN_OK) st = model_file_check_size(m, err);
    if (st != ATTN_OK) return st;
    char *text = model_file_write(m);
    if (!text) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to write the model.");
    model back; // what --model would make of it: never write a file attnviz refuses
    st = model_file_parse(&back, text, strlen(text), "the model", err);
    model_free(&back);
    if (st != ATTN_OK) {
        free(text);
        return st;
    }
    *out = text;
    return ATTN_OK;
}

bool model_file_says_model(const char *text, size_t len) {
    size_t stop = 0;
    bool more = false;
    cJSON *root = attn_json_parse_one(text, len, &stop, &more);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format"); // NULL root: NULL
    bool yes = cJSON_IsString(format) && strcmp(format->valuestring, "attnviz-model") == 0;
    cJSON_Delete(root);
    return yes;
}

attn_status model_file_check_save(const char *path, attn_err *err) {
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
        return ATTN_OK; // new, empty, or not a file to replace: the writer decides (and refuses a folder)
    if (access(path, R_OK) != 0)
        return attn_fail(err, ATTN_ERR_IO, "%s is there already, and attnviz cannot read it (%s) to see whether it is "
                                           "one of its model files; move it away or choose another name.",
                         path,
                         strerror(errno));
    char *text = NULL;
    size_t len = 0;
    bool ours = attn_read_regular_file(path, MODEL_FILE_MAX_BYTES, &text, &len, NULL) == ATTN_OK &&
                model_file_says_model(text, len); // a larger file is no model attnviz wrote
    free(text);
    if (ours) return ATTN_OK;
    return attn_fail(err, ATTN_ERR_IO, "%s is there already and is not an attnviz model file (its \"format\" is not "
                                       "\"attnviz-model\"); attnviz replaces only its own models. Move it away or "
                                       "choose another name.",
                     path);
}
