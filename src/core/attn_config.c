/* attn_config.c — defaults, range checks, masks and stage names. */
#include "attn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void attn_config_default(attn_config *c) {
    c->d_model = 8;
    c->d_k = 4;
    c->heads = 2;
    c->seed = 1;
    c->mask.kind = ATTN_MASK_NONE;
    c->mask.window = 1;
    c->scale = true;
    c->pos_enc = false;
    c->bias = false;
}

static attn_status check_range(const char *opt, long v, long lo, long hi, attn_err *err) {
    if (v < lo || v > hi)
        return attn_fail(err, ATTN_ERR_RANGE, "%s must be between %ld and %ld (it is %ld).",
                         opt, lo, hi, v);
    return ATTN_OK;
}

attn_status attn_config_check(const attn_config *c, attn_err *err) {
    attn_status st;
    if ((st = check_range("--d-model", c->d_model, 1, ATTN_MAX_D_MODEL, err))) return st;
    if ((st = check_range("--d-k", c->d_k, 1, ATTN_MAX_D_K, err))) return st;
    if ((st = check_range("--heads", c->heads, 1, ATTN_MAX_HEADS, err))) return st;
    if (c->mask.kind == ATTN_MASK_WINDOW || c->mask.kind == ATTN_MASK_CAUSAL_WINDOW)
        return check_range("The mask window W", c->mask.window, 1, ATTN_MAX_WINDOW, err);
    return ATTN_OK;
}

static attn_status parse_window(int *w, const char *s, const char *whole, attn_err *err) {
    char *end = NULL;
    if (*s < '0' || *s > '9')
        return attn_fail(err, ATTN_ERR_RANGE,
                         "The mask \"%s\" needs a whole number after the colon, e.g. window:3.", whole);
    long v = strtol(s, &end, 10);
    if (*end != '\0')
        return attn_fail(err, ATTN_ERR_RANGE,
                         "The mask \"%s\" needs a whole number after the colon, e.g. window:3.", whole);
    if (v < 1 || v > ATTN_MAX_WINDOW)
        return attn_fail(err, ATTN_ERR_RANGE, "The mask window W must be between 1 and %d (it is %s).",
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
        return attn_fail(err, ATTN_ERR_RANGE,
                         "Unknown mask \"%s\": use none, causal, window:W or causal-window:W.", s);
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
    "x", "q", "k", "v", "scores", "scaled", "masked", "weights", "z", "concat", "output",
};

const char *attn_stage_name(attn_stage s) {
    return (s >= 0 && s < ATTN_STAGE_COUNT) ? stage_names[s] : "?";
}

int attn_stage_from_name(const char *name) {
    for (int s = 0; s < ATTN_STAGE_COUNT; s++)
        if (strcmp(name, stage_names[s]) == 0) return s;
    return -1;
}

bool attn_stage_per_head(attn_stage s) {
    return s >= ATTN_ST_Q && s <= ATTN_ST_Z;
}
