/* attn_config.c — defaults, range checks, masks and stage names. */
#include "attn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"

void attn_config_default(attn_config *c) {
    c->d_model = 8;
    c->d_k = 4;
    c->heads = 2;
    c->seed = 1;
    c->mask.kind = ATTN_MASK_NONE;
    c->mask.window = 1;
    c->scale = true;
    c->pos_enc = false;
    c->pos_first = c->pos_count = 0;
    c->bias = false;
    c->kv_heads = 0;
    c->rope = false;
    c->rope_base = ATTN_ROPE_BASE;
    c->pos_offset = 0;
}

int attn_kv_heads(const attn_config *c) {
    return c->kv_heads > 0 && c->kv_heads <= c->heads ? c->kv_heads : c->heads;
}

int attn_kv_head_of(const attn_config *c, int h) {
    return h / (c->heads / attn_kv_heads(c)); // query heads [g·heads/G, (g+1)·heads/G) read kv-head g
}

static attn_status check_range(const char *opt, long v, long lo, long hi, attn_err *err) {
    if (v < lo || v > hi) return opt ? attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_RANGE, opt, lo, hi, v)
                                     : attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_WINDOW_RANGE, lo, hi, v);
    return ATTN_OK;
}

attn_status attn_config_check(const attn_config *c, attn_err *err) {
    attn_status st;
    if ((st = check_range("--d-model", c->d_model, 1, ATTN_MAX_D_MODEL, err))) return st;
    if ((st = check_range("--d-k", c->d_k, 1, ATTN_MAX_D_K, err))) return st;
    if ((st = check_range("--heads", c->heads, 1, ATTN_MAX_HEADS, err))) return st;
    if (c->kv_heads && (c->kv_heads < 0 || c->kv_heads > c->heads || c->heads % c->kv_heads)) {
        char h[16], g[16]; // the message has an id: the window says it in the UI's language
        snprintf(h, sizeof h, "%d", c->heads);
        snprintf(g, sizeof g, "%d", c->kv_heads);
        return attn_fail_msg(err, ATTN_ERR_RANGE, ATTN_MSG_KV_HEADS_DIVIDE, h, g, NULL);
    }
    if (c->pos_count < 0 || c->pos_first < 0 || (c->pos_count && c->pos_first + c->pos_count > c->d_model))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_POS_COLUMNS,
                            c->pos_first, c->pos_first + c->pos_count - 1, c->d_model);
    if ((st = check_range("--pos-offset", c->pos_offset, 0, ATTN_MAX_POS_OFFSET, err))) return st;
    if (c->rope && c->pos_enc)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_POS_ONE);
    if (c->rope && c->pos_count)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_POS_DIMS_ROPE);
    if (c->rope && c->d_k % 2)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_ROPE_EVEN,
                            c->d_k);
    if (c->rope && !(c->rope_base >= 2 && c->rope_base <= ATTN_MAX_ROPE_BASE))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_ROPE_BASE,
                            ATTN_MAX_ROPE_BASE, c->rope_base);
    if (c->mask.kind == ATTN_MASK_WINDOW || c->mask.kind == ATTN_MASK_CAUSAL_WINDOW)
        return check_range(NULL, c->mask.window, 1, ATTN_MAX_WINDOW, err);
    return ATTN_OK;
}

void attn_config_apply_changes(attn_config *c, const attn_config *base, const attn_config *changed) {
    if (changed->d_model != base->d_model) c->d_model = changed->d_model;
    if (changed->d_k != base->d_k) c->d_k = changed->d_k;
    if (changed->heads != base->heads) c->heads = changed->heads;
    if (changed->seed != base->seed) c->seed = changed->seed;
    if (changed->mask.kind != base->mask.kind || changed->mask.window != base->mask.window) c->mask = changed->mask;
    if (changed->scale != base->scale) c->scale = changed->scale;
    if (changed->pos_enc != base->pos_enc) c->pos_enc = changed->pos_enc;
    if (changed->pos_first != base->pos_first || changed->pos_count != base->pos_count)
        c->pos_first = changed->pos_first, c->pos_count = changed->pos_count;
    if (changed->bias != base->bias) c->bias = changed->bias;
    if (changed->kv_heads != base->kv_heads) c->kv_heads = changed->kv_heads;
    if (changed->rope != base->rope) c->rope = changed->rope;
    if (changed->rope && !base->rope) c->pos_enc = false; // one scheme
    if (changed->pos_enc && !base->pos_enc) c->rope = false;
    if (changed->rope_base != base->rope_base) c->rope_base = changed->rope_base;
    if (changed->pos_offset != base->pos_offset) c->pos_offset = changed->pos_offset;
}

size_t attn_config_diff_text(char *out, size_t cap, const attn_config *a, const attn_config *b) {
    char mask[32];
    size_t used = 0;
    if (cap) out[0] = '\0';
#define PART(...) \
    do { \
        int r_ = snprintf(out + (used < cap ? used : cap ? cap - 1 \
                                                         : 0), \
                          used < cap ? cap - used : 0, \
                          "%s" __VA_ARGS__); \
        if (r_ > 0) used += (size_t)r_; \
    } while (0)
    if (b->d_model != a->d_model) PART("d_model=%d", used ? " " : "", b->d_model);
    if (b->d_k != a->d_k) PART("d_k=%d", used ? " " : "", b->d_k);
    if (b->heads != a->heads) PART("heads=%d", used ? " " : "", b->heads);
    if (b->seed != a->seed) PART("seed=%lu", used ? " " : "", (unsigned long)b->seed);
    if (b->mask.kind != a->mask.kind || b->mask.window != a->mask.window) {
        attn_mask_format(mask, sizeof mask, b->mask);
        PART("mask=%s", used ? " " : "", mask);
    }
    if (b->scale != a->scale) PART("scale=%s", used ? " " : "", b->scale ? "on" : "off");
    if (b->pos_enc != a->pos_enc) PART("pos_enc=%s", used ? " " : "", b->pos_enc ? "on" : "off");
    if (b->pos_first != a->pos_first || b->pos_count != a->pos_count)
        PART("pos_dims=%d-%d", used ? " " : "", b->pos_first, b->pos_first + b->pos_count - 1);
    if (b->bias != a->bias) PART("bias=%s", used ? " " : "", b->bias ? "on" : "off");
    if (b->kv_heads != a->kv_heads) PART("kv_heads=%d", used ? " " : "", b->kv_heads);
    if (b->rope != a->rope) PART("pos=%s", used ? " " : "", b->rope ? "rope" : b->pos_enc ? "sinusoidal"
                                                                                          : "none");
    if (b->rope_base != a->rope_base) PART("rope_base=%.0f", used ? " " : "", b->rope_base);
    if (b->pos_offset != a->pos_offset) PART("pos_offset=%d", used ? " " : "", b->pos_offset);
#undef PART
    return used;
}

static attn_status parse_window(int *w, const char *s, const char *whole, attn_err *err) {
    long long v = 0;
    attn_int_result got = *s >= '0' && *s <= '9' ? attn_parse_int(s, strlen(s), 1, ATTN_MAX_WINDOW, &v)
                                                 : ATTN_INT_NOT_WHOLE;
    if (got == ATTN_INT_NOT_WHOLE)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_MASK_NUMBER, whole);
    if (got == ATTN_INT_RANGE)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_MASK_WINDOW,
                            ATTN_MAX_WINDOW, s);
    *w = (int)v;
    return ATTN_OK;
}

attn_status attn_mask_parse(attn_mask *out, const char *s, attn_err *err) {
    attn_mask m = {ATTN_MASK_NONE, 1};
    attn_status st = ATTN_OK;
    if (strcmp(s, "none") == 0) {
        m.kind = ATTN_MASK_NONE;
    } else if (strcmp(s, "causal") == 0) {
        m.kind = ATTN_MASK_CAUSAL;
    } else if (strncmp(s, "window:", 7) == 0) {
        m.kind = ATTN_MASK_WINDOW;
        st = parse_window(&m.window, s + 7, s, err);
    } else if (strncmp(s, "causal-window:", 14) == 0) {
        m.kind = ATTN_MASK_CAUSAL_WINDOW;
        st = parse_window(&m.window, s + 14, s, err);
    } else {
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_MASK_UNKNOWN, s);
    }
    if (st == ATTN_OK) *out = m;
    return st;
}

size_t attn_mask_format(char *out, size_t cap, attn_mask m) {
    int r;
    switch (m.kind) {
    case ATTN_MASK_CAUSAL: r = snprintf(out, cap, "causal"); break;
    case ATTN_MASK_WINDOW: r = snprintf(out, cap, "window:%d", m.window); break;
    case ATTN_MASK_CAUSAL_WINDOW: r = snprintf(out, cap, "causal-window:%d", m.window); break;
    default: r = snprintf(out, cap, "none"); break;
    }
    return r < 0 ? 0 : (size_t)r;
}

bool attn_mask_allows(attn_mask m, int i, int j) {
    switch (m.kind) {
    case ATTN_MASK_NONE: return true;
    case ATTN_MASK_CAUSAL: return j <= i;
    case ATTN_MASK_WINDOW: return abs(i - j) <= m.window;
    case ATTN_MASK_CAUSAL_WINDOW: return j <= i && i - j <= m.window;
    }
    return true;
}

static const char *const stage_names[ATTN_STAGE_COUNT] = {
    "x",
    "q",
    "k",
    "v",
    "q_rot",
    "k_rot",
    "scores",
    "scaled",
    "masked",
    "weights",
    "z",
    "concat",
    "output",
};

const char *attn_stage_name(attn_stage s) {
    return (s >= 0 && s < ATTN_STAGE_COUNT) ? stage_names[s] : "?";
}

int attn_stage_from_name(const char *name) {
    return attn_stage_from_name_n(name, strlen(name));
}

int attn_stage_from_name_n(const char *name, size_t len) {
    for (int s = 0; s < ATTN_STAGE_COUNT; s++)
        if (strlen(stage_names[s]) == len && memcmp(name, stage_names[s], len) == 0) return s;
    return -1;
}

bool attn_stage_per_head(attn_stage s) {
    return s >= ATTN_ST_Q && s <= ATTN_ST_Z;
}

/* ---- matrices (the steps are attn_steps.c's) ---------------------------- */

static const char *const matrix_names[ATTN_MAT_COUNT] = {
    [ATTN_MAT_W_Q] = "W_Q",
    [ATTN_MAT_W_K] = "W_K",
    [ATTN_MAT_W_V] = "W_V",
    [ATTN_MAT_W_O] = "W_O",
    [ATTN_MAT_B_Q] = "b_Q",
    [ATTN_MAT_B_K] = "b_K",
    [ATTN_MAT_B_V] = "b_V",
    [ATTN_MAT_B_O] = "b_O",
};

const char *attn_matrix_name(attn_matrix m) {
    return (int)m >= 0 && m < ATTN_MAT_COUNT ? matrix_names[m] : "?";
}

int attn_matrix_from_name(const char *name, size_t len) {
    for (int m = 0; m < ATTN_MAT_COUNT; m++)
        if (strlen(matrix_names[m]) == len && memcmp(name, matrix_names[m], len) == 0) return m;
    return -1;
}

bool attn_matrix_is_bias(attn_matrix m) {
    return m >= ATTN_MAT_B_Q;
}

bool attn_matrix_kv(attn_matrix m) {
    return m == ATTN_MAT_W_K || m == ATTN_MAT_W_V || m == ATTN_MAT_B_K || m == ATTN_MAT_B_V;
}

bool attn_matrix_per_head(attn_matrix m) {
    return m != ATTN_MAT_W_O && m != ATTN_MAT_B_O;
}

void attn_matrix_shape(attn_matrix m, const attn_config *c, int *rows, int *cols) {
    bool out = !attn_matrix_per_head(m);
    *rows = attn_matrix_is_bias(m) ? 1 : out ? c->heads * c->d_k
                                             : c->d_model;
    *cols = out ? c->d_model : c->d_k;
}
