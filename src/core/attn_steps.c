/* attn_steps.c — the step table: what each step shows (attn_steps.h). */
#include "attn_steps.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *file, *tex;
    int what; /* an attn_stage, or ATTN_SM_WEIGHT + an attn_matrix */
    attn_axis rows, cols;
} matrices[ATTN_SM_COUNT] = {
#define ATTN_STEP_MAT(id, file_, tex_, what_, rows_, cols_) [ATTN_SM_##id] = {file_, tex_, what_, rows_, cols_},
#include "attn_steps.def"
#undef ATTN_STEP_MAT
};

/* A row: its key, lesson name, file stem, last stage, then the operands and
 * results ({matrix, ATTN_SHOW_* flags}). A sub-step goes between the rows it
 * sits between, with its own key and stem and optional set: RoPE's "2b"
 * after the projection (ATTN_STEP_ROPE after ATTN_STEP_QKV in the enum); the
 * keys of 1–8, and so every number a learner reads, stay. */
static const attn_step_info steps[ATTN_STEP_COUNT] = {
    [ATTN_STEP_EMBED] = {"1", "tokens", "embeddings", ATTN_ST_X, false, 0, 1, {{ATTN_SM_X, 0}}},
    [ATTN_STEP_QKV] = {"2", "qkv", "qkv", ATTN_ST_V, false, 4, 3, {{ATTN_SM_X, ATTN_SHOW_WINDOW_ONLY}, {ATTN_SM_W_Q, 0}, {ATTN_SM_W_K, 0}, {ATTN_SM_W_V, 0}, {ATTN_SM_Q, 0}, {ATTN_SM_K, 0}, {ATTN_SM_V, 0}}},
    [ATTN_STEP_ROPE] = {"2b", "rope", "rope", ATTN_ST_K_ROT, true, 2, 2, {{ATTN_SM_Q, 0}, {ATTN_SM_K, 0}, {ATTN_SM_Q_ROT, 0}, {ATTN_SM_K_ROT, 0}}},
    [ATTN_STEP_SCORES] = {"3", "scores", "scores", ATTN_ST_SCORES, false, 2, 1, {{ATTN_SM_Q, 0}, {ATTN_SM_K, ATTN_SHOW_TRANSPOSED}, {ATTN_SM_S, ATTN_SHOW_DEFINED}}},
    [ATTN_STEP_SCALE] = {"4", "scale", "scale", ATTN_ST_SCALED, false, 1, 1, {{ATTN_SM_S, 0}, {ATTN_SM_S_SCALED, 0}}},
    [ATTN_STEP_MASK] = {"5", "mask", "mask", ATTN_ST_MASKED, false, 1, 1, {{ATTN_SM_S_SCALED, 0}, {ATTN_SM_S_MASKED, 0}}},
    [ATTN_STEP_SOFTMAX] = {"6", "softmax", "softmax", ATTN_ST_WEIGHTS, false, 0, 1, {{ATTN_SM_A, ATTN_SHOW_DEFINED}}},
    [ATTN_STEP_WEIGHTED] = {"7", "sum", "weighted-sum", ATTN_ST_Z, false, 2, 1, {{ATTN_SM_A, 0}, {ATTN_SM_V, 0}, {ATTN_SM_Z, ATTN_SHOW_DEFINED}}},
    [ATTN_STEP_MULTIHEAD] = {"8", "heads", "multi-head", ATTN_ST_OUTPUT, false, 2, 1, {{ATTN_SM_CONCAT, 0}, {ATTN_SM_W_O, 0}, {ATTN_SM_OUT, ATTN_SHOW_DEFINED}}},
};

static bool step_ok(attn_step s) {
    return (int)s >= 0 && s < ATTN_STEP_COUNT;
}

static bool matrix_ok(attn_step_matrix m) {
    return (int)m >= 0 && m < ATTN_SM_COUNT;
}

const attn_step_info *attn_step_get(attn_step s) {
    return step_ok(s) ? &steps[s] : NULL;
}

bool attn_step_shown(attn_step s, const attn_config *c) {
    if (!step_ok(s)) return false;
    if (!steps[s].optional) return true;
    return s == ATTN_STEP_ROPE && c && c->rope; // the one optional step, and its setting
}

attn_step attn_step_next(attn_step s, int dir, const attn_config *c) {
    for (int k = (int)s + (dir < 0 ? -1 : 1); k >= 0 && k < ATTN_STEP_COUNT; k += dir < 0 ? -1 : 1)
        if (attn_step_shown((attn_step)k, c)) return (attn_step)k;
    return s;
}

const char *attn_step_key(attn_step s) {
    return step_ok(s) ? steps[s].key : "";
}

int attn_step_from_key(const char *key, size_t len) {
    for (int s = 0; s < ATTN_STEP_COUNT; s++)
        if (strlen(steps[s].key) == len && memcmp(key, steps[s].key, len) == 0) return s;
    return -1;
}

int attn_step_numbered(int k) {
    char key[12];
    int n = snprintf(key, sizeof key, "%d", k);
    return n > 0 ? attn_step_from_key(key, (size_t)n) : -1;
}

attn_step_matrix attn_step_matrix_under(attn_step_matrix m, attn_step s, const attn_config *c) {
    if (s != ATTN_STEP_SCORES || !c || !c->rope) return m;
    return m == ATTN_SM_Q ? ATTN_SM_Q_ROT : m == ATTN_SM_K ? ATTN_SM_K_ROT
                                                           : m; // the scores read the rotated q and k
}

attn_stage attn_step_result(attn_step s) {
    if (!step_ok(s)) return ATTN_ST_X;
    int stage = attn_step_matrix_stage(steps[s].shown[steps[s].operands].m); // the first result
    return stage < 0 ? ATTN_ST_X : (attn_stage)stage;
}

long long attn_step_macs(const attn_trace *t, attn_step s) {
    if (!step_ok(s)) return 0;
    int first = s == 0 ? 0 : (int)steps[s - 1].last + 1;
    long long n = 0;
    for (int k = first; k <= (int)steps[s].last; k++) n += t->macs[k];
    return n;
}

const char *attn_step_name(attn_step s) {
    return step_ok(s) ? steps[s].name : "";
}

const char *attn_step_slug(attn_step s) {
    return step_ok(s) ? steps[s].slug : "";
}

int attn_step_from_name(const char *name, size_t len) {
    for (int s = 0; s < ATTN_STEP_COUNT; s++)
        if (strlen(steps[s].name) == len && memcmp(name, steps[s].name, len) == 0) return s;
    return -1;
}

const char *attn_step_matrix_file(attn_step_matrix m) {
    return matrix_ok(m) ? matrices[m].file : "";
}

const char *attn_step_matrix_tex(attn_step_matrix m) {
    return matrix_ok(m) ? matrices[m].tex : "";
}

void attn_step_matrix_axes(attn_step_matrix m, attn_axis *rows, attn_axis *cols) {
    *rows = matrix_ok(m) ? matrices[m].rows : ATTN_AXIS_DIMS;
    *cols = matrix_ok(m) ? matrices[m].cols : ATTN_AXIS_DIMS;
}

int attn_step_matrix_stage(attn_step_matrix m) {
    return matrix_ok(m) && matrices[m].what < ATTN_SM_WEIGHT ? matrices[m].what : -1;
}

int attn_step_matrix_weight(attn_step_matrix m) {
    return matrix_ok(m) && matrices[m].what >= ATTN_SM_WEIGHT ? matrices[m].what - ATTN_SM_WEIGHT : -1;
}

bool attn_step_matrix_per_head(attn_step_matrix m) {
    int stage = attn_step_matrix_stage(m), weight = attn_step_matrix_weight(m);
    return stage >= 0 ? attn_stage_per_head((attn_stage)stage) : weight >= 0 && attn_matrix_per_head((attn_matrix)weight);
}

const double *attn_step_matrix_values(const attn_trace *t, attn_step_matrix m, int h, int *rows, int *cols) {
    int stage = attn_step_matrix_stage(m), weight = attn_step_matrix_weight(m);
    *rows = *cols = 0;
    if (!matrix_ok(m) || (attn_step_matrix_per_head(m) && (h < 0 || h >= t->cfg.heads))) return NULL;
    if (stage >= 0) {
        attn_trace_shape(t, (attn_stage)stage, rows, cols);
        return attn_trace_stage(t, (attn_stage)stage, h);
    }
    attn_matrix_shape((attn_matrix)weight, &t->cfg, rows, cols);
    return attn_trace_matrix_const(t, (attn_matrix)weight, h);
}
