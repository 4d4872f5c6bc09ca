/* attn_json.c — dumping a trace as JSON and reading weights files (cJSON). */
#include "attn_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_tiles.h"
#include "sha256.h"
#include "strbuf.h"
#include "utf8.h"

#define WHERE_CAP 640 /* "FILE: heads[3].KEY": a path, and a key cut to KEY_BYTES */
#define KEY_BYTES 40

/* ---- dump -------------------------------------------------------------- */

static void dump_matrix(attn_strbuf *b, const char *indent, const double *m, int rows, int cols) {
    attn_sb_puts(b, "[\n");
    for (int i = 0; i < rows; i++) {
        attn_sb_printf(b, "%s  [", indent);
        for (int j = 0; j < cols; j++) {
            if (j) attn_sb_puts(b, ", ");
            attn_sb_number(b, m[(size_t)i * cols + j]); // -inf (masked) becomes null
        }
        attn_sb_puts(b, i + 1 < rows ? "],\n" : "]\n");
    }
    attn_sb_printf(b, "%s]", indent);
}

static void dump_vector(attn_strbuf *b, const double *v, int len) {
    attn_sb_puts(b, "[");
    for (int i = 0; i < len; i++) {
        if (i) attn_sb_puts(b, ", ");
        attn_sb_number(b, v[i]);
    }
    attn_sb_puts(b, "]");
}

static void dump_config(attn_strbuf *b, const attn_config *c) {
    char mask[32];
    attn_mask_format(mask, sizeof mask, c->mask);
    attn_sb_printf(b, "  \"config\": {\"d_model\": %d, \"d_k\": %d, \"heads\": %d, \"seed\": %lu, "
                      "\"mask\": \"%s\", \"scale\": %s, \"pos_enc\": %s, \"bias\": %s",
                   c->d_model, c->d_k, c->heads, (unsigned long)c->seed, mask,
                   c->scale ? "true" : "false", c->pos_enc ? "true" : "false",
                   c->bias ? "true" : "false");
    if (c->pos_count) // only where a lesson keeps the encoding to some columns
        attn_sb_printf(b, ", \"pos_dims\": \"%d-%d\"", c->pos_first, c->pos_first + c->pos_count - 1);
    if (c->kv_heads) // grouped-query attention; absent: one K, V per head, as before
        attn_sb_printf(b, ", \"kv_heads\": %d", attn_kv_heads(c));
    if (c->rope) attn_sb_printf(b, ", \"pos\": \"rope\", \"rope_base\": %.0f", c->rope_base); // only when on: dumps
    if (c->pos_offset) attn_sb_printf(b, ", \"pos_offset\": %d", c->pos_offset);              // without them stay as they were
    attn_sb_puts(b, "},\n");
}

static void dump_key(attn_strbuf *b, const char *key, const double *m, int rows, int cols, bool first) {
    const char *in = "      ";
    attn_sb_printf(b, "%s%s\"%s\": ", first ? "" : ",\n", in, key);
    if (rows == 0) dump_vector(b, m, cols);
    else dump_matrix(b, in, m, rows, cols);
}

/* --tiles B: "Z_tiled" and "tiles" with every step of the online softmax
 * (attn_tiles.h); a masked score and a row maximum still −∞ are null. */
static void dump_tiles(attn_strbuf *b, const attn_tiles *tl) {
    const char *in = "          ";
    dump_key(b, "Z_tiled", tl->z, tl->n, tl->d, false);
    attn_sb_printf(b, ",\n      \"tiles\": {\"B\": %d, \"blocks\": %d, \"steps_skipped\": %d, "
                      "\"bytes_held_max\": %zu, \"full_bytes\": %zu, \"macs\": %lld, \"steps\": [",
                   tl->b, tl->blocks, tl->skipped, tl->max_bytes, tl->full_bytes, tl->macs);
    for (int i = 0; i < tl->count; i++) {
        const attn_tile_step *st = &tl->steps[i];
        int rows = st->r1 - st->r0, cols = st->c1 - st->c0;
        attn_sb_printf(b, "%s\n        {\"q_block\": %d, \"k_block\": %d, \"rows\": [%d, %d], \"cols\": [%d, %d], "
                          "\"skipped\": %s, \"bytes\": %zu",
                       i ? "," : "", st->qb, st->kb, st->r0, st->r1, st->c0, st->c1, st->skipped ? "true" : "false",
                       st->bytes);
        if (st->s) {
            attn_sb_puts(b, ",\n         \"scores\": ");
            dump_matrix(b, in, st->s, rows, cols);
        }
        attn_sb_puts(b, ",\n         \"m\": ");
        dump_vector(b, st->m, rows);
        attn_sb_puts(b, ", \"l\": ");
        dump_vector(b, st->l, rows);
        attn_sb_puts(b, ",\n         \"O\": ");
        dump_matrix(b, in, st->o, rows, tl->d);
        attn_sb_puts(b, "}");
    }
    attn_sb_puts(b, "\n      ]}");
}

static void dump_head(attn_strbuf *b, const attn_trace *t, int h, const attn_tiles *tiles, const attn_decode *d) {
    const attn_head *hd = &t->head[h];
    int n = t->n, dk = t->cfg.d_k;
    bool first = true;
    attn_sb_puts(b, "    {\n");
    for (int m = 0; m < ATTN_MAT_COUNT; m++) { // the head's weights: W_Q, W_K, W_V, b_Q, b_K, b_V
        if (!attn_matrix_per_head((attn_matrix)m)) continue;
        int rows, cols;
        attn_matrix_shape((attn_matrix)m, &t->cfg, &rows, &cols);
        dump_key(b, attn_matrix_name((attn_matrix)m), attn_trace_matrix_const(t, (attn_matrix)m, h),
                 attn_matrix_is_bias((attn_matrix)m) ? 0 : rows, cols, first);
        first = false;
    }
    struct {
        const char *key;
        const double *m;
        int cols;
    } stages[] = {
        // what it computes, n rows each
        {"Q", hd->q, dk},
        {"K", hd->k, dk},
        {"V", hd->v, dk},
        {"scores", hd->scores, n},
        {"scaled", hd->scaled, n},
        {"masked", hd->masked, n},
        {"weights", hd->weights, n},
        {"Z", hd->z, dk},
    };
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        dump_key(b, stages[i].key, stages[i].m, n, stages[i].cols, false);
        if (i == 2 && t->cfg.rope) { // after V: q and k as the scores read them
            dump_key(b, "q_rot", hd->q_rot, n, dk, false);
            dump_key(b, "k_rot", hd->k_rot, n, dk, false);
        }
    }
    if (tiles) dump_tiles(b, &tiles[h]);
    if (d) { // --decode: the rows as produced one token at a time, and what each token computed
        dump_key(b, "Z_decode", d->z[h], n, dk, false);
        attn_sb_puts(b, ",\n      \"decode\": {\"cache_len\": [");
        for (int i = 0; i < n; i++) attn_sb_printf(b, "%s%d", i ? ", " : "", d->step[i].cache_len);
        attn_sb_puts(b, "], \"cells\": [");
        for (int i = 0; i < n; i++) attn_sb_printf(b, "%s%d", i ? ", " : "", d->step[i].cells);
        if (t->cfg.mask.kind == ATTN_MASK_CAUSAL_WINDOW) { // the sliding cache: rows dropped so far
            attn_sb_puts(b, "], \"evicted\": [");
            for (int i = 0; i < n; i++) attn_sb_printf(b, "%s%d", i ? ", " : "", d->step[i].evicted);
        }
        attn_sb_printf(b, "], \"kv_head\": %d}", attn_kv_head_of(&t->cfg, h));
    }
    attn_sb_puts(b, h + 1 < t->cfg.heads ? "\n    },\n" : "\n    }\n");
}

/* The layer's decode record: per token the cost and the cache's memory. */
static void dump_decode(attn_strbuf *b, const attn_decode *d) {
    static const char *const keys[] = {"macs", "macs_total", "full_macs", "full_total", "cache_bytes", "real_bytes"};
    attn_sb_printf(b, ",\n  \"decode\": {\"layers\": %d, \"kv_heads\": %d, \"d_k\": %d, \"bytes_per_value\": 8", d->layers,
                   d->kv_heads, d->d_k);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        attn_sb_printf(b, ",\n    \"%s\": [", keys[k]);
        for (int i = 0; i < d->n; i++) {
            const attn_decode_step *s = &d->step[i];
            long long v[] = {s->macs, s->macs_total, s->full_macs, s->full_total, s->cache_bytes, s->real_bytes};
            attn_sb_printf(b, "%s%lld", i ? ", " : "", v[k]);
        }
        attn_sb_puts(b, "]");
    }
    attn_sb_printf(b, ",\n    \"real\": {\"name\": \"%s\", \"layers\": %d, \"kv_heads\": %d, \"d_k\": %d, "
                      "\"bytes_per_value\": %d, \"tokens\": %d, \"bytes\": %lld}}",
                   ATTN_DECODE_REAL_NAME, ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                   ATTN_DECODE_REAL_BYTES, ATTN_DECODE_REAL_TOKENS,
                   attn_kv_cache_bytes(ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                                       ATTN_DECODE_REAL_TOKENS, ATTN_DECODE_REAL_BYTES));
}

char *attn_json_dump(const attn_trace *t) { return attn_json_dump_with(t, NULL, NULL); }

char *attn_json_dump_tiles(const attn_trace *t, const attn_tiles *tiles) { return attn_json_dump_with(t, tiles, NULL); }

char *attn_json_dump_decode(const attn_trace *t, const attn_decode *d) { return attn_json_dump_with(t, NULL, d); }

char *attn_json_dump_with(const attn_trace *t, const attn_tiles *tiles, const attn_decode *d) {
    attn_strbuf b;
    attn_sb_init(&b);
    int n = t->n, dm = t->cfg.d_model, hk = t->cfg.heads * t->cfg.d_k;
    attn_sb_puts(&b, "{\n  \"tokens\": [");
    for (int i = 0; i < n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        if (i) attn_sb_puts(&b, ", ");
        attn_sb_json_string(&b, tok, (size_t)len);
    }
    attn_sb_puts(&b, "],\n");
    dump_config(&b, &t->cfg);
    attn_sb_puts(&b, "  \"X\": ");
    dump_matrix(&b, "  ", t->x, n, dm);
    attn_sb_puts(&b, ",\n  \"heads\": [\n");
    for (int h = 0; h < t->cfg.heads; h++) dump_head(&b, t, h, tiles, d);
    attn_sb_puts(&b, "  ],\n  \"concat\": ");
    dump_matrix(&b, "  ", t->concat, n, hk);
    attn_sb_printf(&b, ",\n  \"%s\": ", attn_matrix_name(ATTN_MAT_W_O));
    dump_matrix(&b, "  ", t->w_o, hk, dm);
    attn_sb_printf(&b, ",\n  \"%s\": ", attn_matrix_name(ATTN_MAT_B_O));
    dump_vector(&b, t->b_o, dm);
    attn_sb_puts(&b, ",\n  \"output\": ");
    dump_matrix(&b, "  ", t->output, n, dm);
    if (d) dump_decode(&b, d);
    attn_sb_puts(&b, "\n}\n");
    return attn_sb_take(&b);
}

/* ---- weights file ------------------------------------------------------ */

/* Computed keys a dump holds; a weights file may carry them and they are ignored. */
static const char *const head_ignored[] = {"Q", "K", "V", "q_rot", "k_rot", "scores", "scaled", "masked", "weights", "Z",
                                           "Z_tiled", "tiles", "Z_decode", "decode"};
static const char *const top_ignored[] = {"tokens", "config", "concat", "output", "sentence", "decode"};

static bool in_list(const char *key, const char *const *list, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(key, list[i]) == 0) return true;
    return false;
}

static attn_status read_number(double *dst, const cJSON *item, const char *where,
                               int i, int j, attn_err *err) {
    char pos[32];
    if (j >= 0) snprintf(pos, sizeof pos, "[%d][%d]", i, j);
    else snprintf(pos, sizeof pos, "[%d]", i);
    if (!cJSON_IsNumber(item))
        return attn_fail(err, ATTN_ERR_PARSE, "%s%s is not a number.", where, pos);
    double v = item->valuedouble;
    if (!isfinite(v))
        return attn_fail(err, ATTN_ERR_NONFINITE, "%s%s is too large to be a finite number.", where, pos);
    char shown[ATTN_DOUBLE_CHARS]; // every digit it takes to tell the value from the limit
    if (fabs(v) > ATTN_MAX_ABS)
        return attn_fail(err, ATTN_ERR_RANGE, "%s%s is %s; values must be at most 1e18 in size.",
                         where, pos, attn_format_double(shown, v));
    *dst = v;
    return ATTN_OK;
}

/* Reads a flat array of numbers (want_vector) or an array of equal-length rows. */
static attn_status read_mat(attn_json_mat *m, const cJSON *item, const char *where,
                            bool want_vector, attn_err *err) {
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) == 0)
        return attn_fail(err, ATTN_ERR_SHAPE, "%s must be a non-empty array of %s.", where,
                         want_vector ? "numbers" : "rows of numbers");
    int rows = want_vector ? 1 : cJSON_GetArraySize(item);
    const cJSON *first = want_vector ? item : cJSON_GetArrayItem(item, 0);
    if (!cJSON_IsArray(first) || cJSON_GetArraySize(first) == 0)
        return attn_fail(err, ATTN_ERR_SHAPE, "%s must be an array of rows of numbers (a matrix).", where);
    int cols = cJSON_GetArraySize(first);
    m->v = malloc(sizeof(double) * (size_t)rows * cols);
    if (!m->v) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to read %s.", where);
    m->rows = rows;
    m->cols = cols;
    m->is_vector = want_vector;
    int i = 0;
    const cJSON *row;
    const cJSON *rows_of = want_vector ? (const cJSON *)NULL : item;
    cJSON_ArrayForEach(row, rows_of) {
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != cols)
            return attn_fail(err, ATTN_ERR_SHAPE, "%s is ragged: row %d has %d entries, row 0 has %d.",
                             where, i, cJSON_IsArray(row) ? cJSON_GetArraySize(row) : 0, cols);
        int j = 0;
        const cJSON *cell;
        cJSON_ArrayForEach(cell, row) {
            attn_status st = read_number(&m->v[(size_t)i * cols + j], cell, where, i, j, err);
            if (st != ATTN_OK) return st;
            j++;
        }
        i++;
    }
    if (want_vector) {
        const cJSON *cell;
        cJSON_ArrayForEach(cell, item) {
            attn_status st = read_number(&m->v[i], cell, where, i, -1, err);
            if (st != ATTN_OK) return st;
            i++;
        }
    }
    return ATTN_OK;
}

/* The sizes a matrix stands for, checked against attnviz's limits as it is
 * read, so that a message names the file and the key (kind: an attn_matrix,
 * or -1 for X). */
static attn_status check_limits(const attn_json_mat *m, int kind, const char *where, attn_err *err) {
    const char *row_dim = "d_model", *col_dim = "d_k";
    int row_max = ATTN_MAX_D_MODEL, col_max = ATTN_MAX_D_K;
    if (kind < 0) row_dim = "the number of tokens", row_max = ATTN_MAX_TOKENS;
    if (kind < 0 || kind == ATTN_MAT_W_O || kind == ATTN_MAT_B_O) col_dim = "d_model", col_max = ATTN_MAX_D_MODEL;
    if (kind == ATTN_MAT_W_O) row_dim = "heads·d_k", row_max = ATTN_MAX_HEADS * ATTN_MAX_D_K;
    if (!m->is_vector && m->rows > row_max)
        return attn_fail(err, ATTN_ERR_RANGE, "%s has %d rows, so %s would be %d; attnviz allows at most %d.",
                         where, m->rows, row_dim, m->rows, row_max);
    if (m->cols > col_max)
        return attn_fail(err, ATTN_ERR_RANGE, "%s has %d %s, so %s would be %d; attnviz allows at most %d.", where,
                         m->cols, m->is_vector ? "numbers" : "columns", col_dim, m->cols, col_max);
    return ATTN_OK;
}

/* "FILE: KEY" or "FILE: heads[H].KEY" (h < 0: a top-level key), the key cut
 * to KEY_BYTES on a character boundary, its control characters shown as
 * escapes (a key must not retitle or clear the terminal). */
static void key_where(char where[WHERE_CAP], const char *name, int h, const char *key) {
    char shown[KEY_BYTES * 4 + 1];
    utf8_visible(shown, sizeof shown, key, utf8_cut(key, strlen(key), KEY_BYTES));
    if (h >= 0) snprintf(where, WHERE_CAP, "%s: heads[%d].%s", name, h, shown);
    else snprintf(where, WHERE_CAP, "%s: %s", name, shown);
    utf8_trim_partial(where); // a very long path is cut too
}

/* cJSON keeps every copy of a repeated key; reading both would leak the first
 * matrix and silently let the last one win, so a repeat is refused. */
static attn_status check_unique(const cJSON *obj, const cJSON *it, const char *where, attn_err *err) {
    if (cJSON_GetObjectItemCaseSensitive(obj, it->string) != it)
        return attn_fail(err, ATTN_ERR_PARSE, "%s appears more than once; give each key once.", where);
    return ATTN_OK;
}

static attn_status read_head(attn_weights_file *f, int h, const cJSON *obj, const char *name,
                             attn_err *err) {
    if (!cJSON_IsObject(obj))
        return attn_fail(err, ATTN_ERR_SHAPE, "%s: heads[%d] must be an object with W_Q, W_K, W_V.", name, h);
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) {
        char where[WHERE_CAP];
        key_where(where, name, h, it->string);
        attn_status st = check_unique(obj, it, where, err);
        if (st != ATTN_OK) return st;
        int k = attn_matrix_from_name(it->string, strlen(it->string));
        if (k < 0 || !attn_matrix_per_head((attn_matrix)k)) {
            if (in_list(it->string, head_ignored, sizeof head_ignored / sizeof *head_ignored)) continue;
            return attn_fail(err, ATTN_ERR_PARSE,
                             "%s is not a key attnviz knows; a head has W_Q, W_K, W_V, b_Q, b_K, b_V.", where);
        }
        st = read_mat(&f->mat[k][h], it, where, attn_matrix_is_bias((attn_matrix)k), err);
        if (st == ATTN_OK) st = check_limits(&f->mat[k][h], k, where, err);
        if (st != ATTN_OK) return st;
    }
    return ATTN_OK;
}

void attn_json_position(const char *text, size_t at, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t i = utf8_bom_len(text, at); i < at; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) (*col)++; // count code points
    }
}

cJSON *attn_json_parse_one(const char *text, size_t len, size_t *stop, bool *more) {
    size_t bom = utf8_bom_len(text, len); // an editor's byte order mark is not part of the JSON
    const char *end = NULL, *last = text + len;
    cJSON *root = cJSON_ParseWithLengthOpts(text + bom, len - bom, &end, 0);
    *more = false;
    if (!root) {
        *stop = end && end >= text + bom && end <= last ? (size_t)(end - text) : bom;
        return NULL;
    }
    while (end < last && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
    if (end < last) {
        cJSON_Delete(root);
        *stop = (size_t)(end - text);
        *more = true;
        return NULL;
    }
    return root;
}

static attn_status read_top(attn_weights_file *f, const cJSON *root, const char *name, attn_err *err) {
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        char where[WHERE_CAP];
        key_where(where, name, -1, it->string);
        attn_status st = check_unique(root, it, where, err);
        if (st != ATTN_OK) return st;
        int m = attn_matrix_from_name(it->string, strlen(it->string));
        if (strcmp(it->string, "X") == 0) {
            st = read_mat(&f->x, it, where, false, err);
            if (st == ATTN_OK) st = check_limits(&f->x, -1, where, err);
        } else if (m >= 0 && !attn_matrix_per_head((attn_matrix)m)) {
            st = read_mat(&f->mat[m][0], it, where, attn_matrix_is_bias((attn_matrix)m), err);
            if (st == ATTN_OK) st = check_limits(&f->mat[m][0], m, where, err);
        } else if (strcmp(it->string, "heads") == 0) {
            if (!cJSON_IsArray(it))
                return attn_fail(err, ATTN_ERR_SHAPE, "%s must be an array of head objects.", where);
            int count = cJSON_GetArraySize(it);
            if (count > ATTN_MAX_HEADS)
                return attn_fail(err, ATTN_ERR_RANGE, "%s has %d heads; attnviz allows at most %d.",
                                 where, count, ATTN_MAX_HEADS);
            f->heads = count;
            for (int h = 0; h < count && st == ATTN_OK; h++)
                st = read_head(f, h, cJSON_GetArrayItem(it, h), name, err);
        } else if (strcmp(it->string, "config") == 0) { // ignored, but for what X already carries
            const cJSON *pe = cJSON_GetObjectItemCaseSensitive(it, "pos_enc");
            f->x_has_positions = cJSON_IsTrue(pe);
        } else if (!in_list(it->string, top_ignored, sizeof top_ignored / sizeof *top_ignored)) {
            return attn_fail(err, ATTN_ERR_PARSE,
                             "%s is not a key attnviz knows; a weights file has X, heads, W_O and b_O.", where);
        }
        if (st != ATTN_OK) return st;
    }
    return ATTN_OK;
}

attn_status attn_weights_file_parse(attn_weights_file *out, const char *text, size_t len,
                                    const char *name, attn_err *err) {
    attn_weights_file f;
    memset(&f, 0, sizeof f);
    attn_status st = ATTN_OK;
    attn_sha256_hex(text, len, f.sha256); // of the bytes as read, for the export's index
    size_t stop = 0;
    bool more = false;
    int line, col;
    cJSON *root = attn_json_parse_one(text, len, &stop, &more);
    if (!root) {
        attn_json_position(text, stop, &line, &col);
        if (more) // e.g. two objects, as `>>` makes
            st = attn_fail(err, ATTN_ERR_PARSE, "%s:%d:%d: more follows the JSON object; a weights file is exactly "
                                                "one JSON object (was a second one appended?).",
                           name, line, col);
        else
            st = attn_fail(err, ATTN_ERR_PARSE, "%s:%d:%d: this is not valid JSON (a weights file is a JSON object; "
                                                "JSON has no NaN or Infinity).",
                           name, line, col);
        goto cleanup;
    }
    if (!cJSON_IsObject(root)) {
        st = attn_fail(err, ATTN_ERR_PARSE, "%s: a weights file must be a JSON object {...}.", name);
        goto cleanup;
    }
    st = read_top(&f, root, name, err);
    if (st != ATTN_OK) goto cleanup;
    *out = f;
    cJSON_Delete(root);
    return ATTN_OK;
cleanup:
    cJSON_Delete(root);
    attn_weights_file_free(&f);
    return st;
}

void attn_weights_file_free(attn_weights_file *f) {
    if (!f) return;
    free(f->x.v);
    for (int m = 0; m < ATTN_MAT_COUNT; m++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++) free(f->mat[m][h].v);
    memset(f, 0, sizeof *f);
}

void attn_weights_file_dims(const attn_weights_file *f, int *d_model, int *d_k, int *heads) {
    const attn_json_mat *wo = &f->mat[ATTN_MAT_W_O][0], *bo = &f->mat[ATTN_MAT_B_O][0];
    *d_model = f->x.v ? f->x.cols : wo->v ? wo->cols
                                : bo->v   ? bo->cols
                                          : 0;
    *d_k = 0;
    for (int h = 0; h < f->heads; h++)
        for (int m = 0; m < ATTN_MAT_COUNT; m++) { // enum order: W_Q, W_K, W_V, then b_Q, b_K, b_V
            const attn_json_mat *j = &f->mat[m][h];
            if (!attn_matrix_per_head((attn_matrix)m) || !j->v) continue;
            if (!*d_k) *d_k = j->cols;
            if (!attn_matrix_is_bias((attn_matrix)m) && !*d_model) *d_model = j->rows;
        }
    *heads = f->heads;
}

static attn_status bind_one(const double **dst, const attn_json_mat *m, int rows, int cols,
                            const char *key, const char *why, attn_err *err) {
    if (!m->v) return ATTN_OK;
    if (m->rows != rows || m->cols != cols) {
        if (m->is_vector)
            return attn_fail(err, ATTN_ERR_SHAPE, "%s has %d numbers but needs %d (%s).",
                             key, m->cols, cols, why);
        return attn_fail(err, ATTN_ERR_SHAPE, "%s is %dx%d but needs to be %dx%d (%s).",
                         key, m->rows, m->cols, rows, cols, why);
    }
    *dst = m->v;
    return ATTN_OK;
}

/* "d_model 8 x d_k 4": the sizes matrix m's shape comes from, for messages. */
static void shape_words(char *why, size_t cap, attn_matrix m, const attn_config *c) {
    if (m == ATTN_MAT_W_O) snprintf(why, cap, "heads %d * d_k %d x d_model %d", c->heads, c->d_k, c->d_model);
    else if (m == ATTN_MAT_B_O) snprintf(why, cap, "d_model %d", c->d_model);
    else if (attn_matrix_is_bias(m)) snprintf(why, cap, "d_k %d", c->d_k);
    else snprintf(why, cap, "d_model %d x d_k %d", c->d_model, c->d_k);
}

bool attn_weights_group_conflict(const attn_weights *w, const attn_config *cfg, int *head, int *first, int *matrix) {
    int size = cfg->heads / attn_kv_heads(cfg);
    for (int m = 0; m < ATTN_MAT_COUNT; m++) {
        if (!attn_matrix_kv((attn_matrix)m)) continue;
        int rows, cols;
        attn_matrix_shape((attn_matrix)m, cfg, &rows, &cols);
        for (int h = 0; h < cfg->heads; h++) {
            int f = h / size * size;
            const double *a = w->mat[m][f], *b = w->mat[m][h];
            if (h == f || (!a && !b) || (a && b && memcmp(a, b, sizeof(double) * (size_t)rows * cols) == 0)) continue;
            *head = h, *first = f, *matrix = m;
            return true;
        }
    }
    return false;
}

/* Grouped-query attention: the heads of one group share W_K, W_V, b_K and
 * b_V, so a file that gives a group's heads different ones is refused. */
static attn_status check_groups(const attn_weights *w, const attn_config *cfg, const char *name, attn_err *err) {
    int h, first, m;
    if (!attn_weights_group_conflict(w, cfg, &h, &first, &m)) return ATTN_OK;
    const char *key = attn_matrix_name((attn_matrix)m);
    return attn_fail(err, ATTN_ERR_SHAPE,
                     "%s: heads[%d].%s differs from heads[%d].%s, but with --kv-heads %d heads[%d] to heads[%d] "
                     "share one key/value head.",
                     name, h, key, first, key, attn_kv_heads(cfg), first, first + cfg->heads / attn_kv_heads(cfg) - 1);
}

attn_status attn_weights_file_bind(attn_weights *w, const attn_weights_file *f,
                                   const attn_config *cfg, int n, const char *name,
                                   attn_err *err) {
    memset(w, 0, sizeof *w);
    if (f->heads > cfg->heads)
        return attn_fail(err, ATTN_ERR_SHAPE, "%s has %d heads but --heads is %d.", name, f->heads, cfg->heads);
    char key[96], why[64];
    snprintf(key, sizeof key, "%s: X", name);
    snprintf(why, sizeof why, "%d tokens x d_model %d", n, cfg->d_model);
    attn_status st = bind_one(&w->x, &f->x, n, cfg->d_model, key, why, err);
    if (st == ATTN_OK && cfg->rope && f->x.v && f->x_has_positions)
        return attn_fail(err, ATTN_ERR_RANGE, "%s: its X already carries sinusoidal positions (config.pos_enc is "
                                              "true); --pos rope would add a second scheme. Leave X out of the file, "
                                              "or drop --pos rope.",
                         name);
    // in the dump's order: each head's W_Q … b_V, then W_O and b_O
    for (int h = 0; h <= f->heads && st == ATTN_OK; h++)
        for (int m = 0; m < ATTN_MAT_COUNT && st == ATTN_OK; m++) {
            bool per_head = attn_matrix_per_head((attn_matrix)m);
            if (per_head != (h < f->heads)) continue; // the last round binds W_O and b_O
            int rows, cols, slot = per_head ? h : 0;
            attn_matrix_shape((attn_matrix)m, cfg, &rows, &cols);
            shape_words(why, sizeof why, (attn_matrix)m, cfg);
            if (per_head) snprintf(key, sizeof key, "%s: heads[%d].%s", name, h, attn_matrix_name((attn_matrix)m));
            else snprintf(key, sizeof key, "%s: %s", name, attn_matrix_name((attn_matrix)m));
            st = bind_one(&w->mat[m][slot], &f->mat[m][slot], rows, cols, key, why, err);
        }
    return st == ATTN_OK ? check_groups(w, cfg, name, err) : st;
}
