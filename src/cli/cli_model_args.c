/* cli_model_args.c — parsing the model's flags and checking how they combine. */
#include "cli_model_args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_model.h"
#include "model_run.h"
#include "numparse.h"
#include "task.h"
#include "utf8.h"

static const char *const valued[] = {
    "--train",
    "--save",
    "--model",
    "--layers",
    "--pos",
    "--objective",
    "--train-steps",
    "--batch",
    "--lr",
    "--weight-decay",
    "--target",
    "--hf",
    "--generate",
};

bool cli_model_takes_value(const char *flag) {
    for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
        if (strcmp(flag, valued[i]) == 0) return true;
    return false;
}

/* A whole number in [lo, hi], read by the one reader of typed numbers. */
static attn_status whole(int *out, const char *flag, const char *s, long lo, long hi, attn_err *err) {
    long long v = 0;
    if (attn_parse_int(s, strlen(s), lo, hi, &v) != ATTN_INT_OK)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_WHOLE_RANGE, flag, lo, hi,
                            (int)utf8_cut(s, strlen(s), 64), s);
    *out = (int)v;
    return ATTN_OK;
}

static attn_status real(double *out, const char *flag, const char *s, double lo, double hi, attn_err *err) {
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < lo || v > hi)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_NUMBER_RANGE, flag, lo, hi, s);
    *out = v;
    return ATTN_OK;
}

/* --target POS:TOKEN; TOKEN is everything after the first colon (it may be ":"). */
static attn_status parse_target(cli_model_opts *m, const char *val, attn_err *err) {
    const char *colon = strchr(val, ':');
    if (!colon || colon == val || !colon[1])
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TARGET_WRITE);
    if (m->n_targets >= CLI_MAX_TARGETS)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TARGET_MANY, CLI_MAX_TARGETS);
    char pos[16];
    size_t n = (size_t)(colon - val);
    if (n >= sizeof pos) return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TARGET_POS, (int)n, val);
    memcpy(pos, val, n);
    pos[n] = '\0';
    cli_target *t = &m->targets[m->n_targets];
    attn_status st = whole(&t->pos, "--target's POS", pos, 0, MODEL_MAX_LEN - 1, err);
    if (st != ATTN_OK) return st;
    t->token = colon + 1;
    m->n_targets++;
    return ATTN_OK;
}

attn_status cli_model_parse_valued(cli_model_opts *m, const char *flag, const char *val, attn_err *err) {
    if (strcmp(flag, "--train") == 0) {
        if (!task_find(val))
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TRAIN_TASK,
                                val, task_names());
        m->train_task = val;
        return ATTN_OK;
    }
    if (strcmp(flag, "--save") == 0) return m->save_path = val, ATTN_OK;
    if (strcmp(flag, "--model") == 0) return m->model_path = val, ATTN_OK;
    if (strcmp(flag, "--hf") == 0) return m->hf_dir = val, ATTN_OK;
    if (strcmp(flag, "--target") == 0) return parse_target(m, val, err);
    if (strcmp(flag, "--generate") == 0) return whole(&m->generate, flag, val, 1, MODEL_MAX_LEN, err);
    if (strcmp(flag, "--layers") == 0) return m->set_layers = true, whole(&m->layers, flag, val, 1, MODEL_MAX_LAYERS, err);
    if (strcmp(flag, "--pos") == 0) return m->set_pos = true, model_pos_parse(&m->pos, val, err);
    if (strcmp(flag, "--objective") == 0) return m->set_objective = true, model_objective_parse(&m->objective, val, err);
    if (strcmp(flag, "--train-steps") == 0)
        return m->set_train_steps = true, whole(&m->train_steps, flag, val, 0, 1000000, err);
    if (strcmp(flag, "--batch") == 0) return m->set_batch = true, whole(&m->batch, flag, val, 1, 4096, err);
    if (strcmp(flag, "--lr") == 0) return m->set_lr = true, real(&m->lr, flag, val, 1e-9, 10.0, err);
    m->set_weight_decay = true; // --weight-decay
    return real(&m->weight_decay, flag, val, 0.0, 100.0, err);
}

/* LAYER:HEAD:ROW:COL, each read whole (numparse) and within the largest model:
 * a number that would wrap (4294967303 is not 7) is refused, never cut. A
 * cell outside this model is refused with its own sizes later. */
static attn_status parse_model_cell(cli_model_opts *m, const char *s, attn_err *err) {
    static const char *const names[] = {"--explain LAYER", "--explain HEAD", "--explain ROW", "--explain COL"};
    static const long long hi[] = {MODEL_MAX_LAYERS - 1, ATTN_MAX_HEADS - 1, MODEL_MAX_LEN - 1,
                                   (ATTN_MAX_HEADS * ATTN_MAX_D_K > MODEL_MAX_VOCAB ? ATTN_MAX_HEADS * ATTN_MAX_D_K
                                                                                    : MODEL_MAX_VOCAB) -
                                       1};
    int *dst[] = {&m->explain_layer, &m->explain_head, &m->explain_row, &m->explain_col};
    for (int i = 0; i < 4; i++) {
        const char *end = i < 3 ? strchr(s, ':') : s + strlen(s);
        int shown = (int)utf8_cut(s, (size_t)(end - s), 64); // the value as given, cut on a character
        long long v = 0;
        switch (attn_parse_int(s, (size_t)(end - s), 0, hi[i], &v)) {
        case ATTN_INT_OK: break;
        case ATTN_INT_NOT_WHOLE:
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_WHOLE, names[i], shown, s);
        case ATTN_INT_RANGE:
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_RANGE_FROM0, names[i], hi[i],
                                shown, s);
        }
        *dst[i] = (int)v;
        s = end + 1;
    }
    return ATTN_OK;
}

attn_status cli_model_parse_explain(cli_model_opts *m, const char *spec, attn_err *err) {
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : 0, colons = 0;
    for (const char *p = spec; (p = strchr(p, ':')); p++) colons++;
    if (colons != 4 || n == 0 || n >= sizeof m->explain_stage)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPLAIN_MODEL_WRITE);
    memcpy(m->explain_stage, spec, n);
    m->explain_stage[n] = '\0';
    if (model_stage_from_name(m->explain_stage) < 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPLAIN_MODEL_STAGE,
                            m->explain_stage);
    return parse_model_cell(m, colon + 1, err);
}

attn_status cli_model_take_positions(cli_model_opts *m, bool pos_given, const attn_config *cfg, bool base_given,
                                     bool offset_given, attn_err *err) {
    if (offset_given)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_POS_OFFSET_TRAIN);
    if (pos_given) {
        m->set_pos = true;
        m->pos = cfg->rope ? MODEL_POS_ROPE : cfg->pos_enc ? MODEL_POS_SINUSOIDAL
                                                           : MODEL_POS_NONE;
    }
    if (base_given) {
        if ((m->set_pos ? m->pos : MODEL_POS_SINUSOIDAL) != MODEL_POS_ROPE)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_ROPE_BASE_POS);
        m->set_rope_base = true;
        m->rope_base = cfg->rope_base;
    }
    return ATTN_OK;
}

/* The first training flag given (--layers …), or NULL. */
const char *cli_model_training_flag(const cli_model_opts *m) {
    return m->set_layers ? "--layers" : m->set_pos        ? "--pos"
                                    : m->set_objective    ? "--objective"
                                    : m->set_train_steps  ? "--train-steps"
                                    : m->set_batch        ? "--batch"
                                    : m->set_lr           ? "--lr"
                                    : m->set_weight_decay ? "--weight-decay"
                                                          : NULL;
}

/* ---- --hf -------------------------------------------------------------------------- */

static const char *const hf_print_stages[] = {"resid_pre", "resid_mid", "mlp_out", "residual", "next", "heads"};

int cli_hf_stage_from_name(const char *name) {
    for (int i = 0; i < (int)(sizeof hf_print_stages / sizeof *hf_print_stages); i++)
        if (strcmp(name, hf_print_stages[i]) == 0) return i;
    return -1;
}

const char *cli_hf_stage_name(int i) {
    return i >= 0 && i < (int)(sizeof hf_print_stages / sizeof *hf_print_stages) ? hf_print_stages[i] : "";
}

/* --explain STAGE:LAYER:HEAD:ROW:COL, each a whole number within --hf's limits
 * (the model's own sizes are checked once it is read). */
attn_status cli_hf_parse_explain(cli_model_opts *m, const char *spec, attn_err *err) {
    static const char *const names[] = {"--explain LAYER", "--explain HEAD", "--explain ROW", "--explain COL"};
    static const long long hi[] = {HF_MAX_LAYERS - 1, HF_MAX_HEADS - 1, HF_MAX_TOKENS - 1, HF_MAX_WIDTH - 1};
    int *dst[] = {&m->explain_layer, &m->explain_head, &m->explain_row, &m->explain_col};
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : 0, colons = 0;
    for (const char *p = spec; (p = strchr(p, ':')); p++) colons++;
    if (colons != 4 || n == 0 || n >= sizeof m->explain_stage)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPLAIN_HF_WRITE);
    memcpy(m->explain_stage, spec, n);
    m->explain_stage[n] = '\0';
    if (attn_stage_from_name(m->explain_stage) < 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPLAIN_HF_STAGE,
                            m->explain_stage);
    const char *s = colon + 1;
    for (int i = 0; i < 4; i++) {
        const char *end = i < 3 ? strchr(s, ':') : s + strlen(s);
        long long v = 0;
        if (attn_parse_int(s, (size_t)(end - s), 0, hi[i], &v) != ATTN_INT_OK)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_WHOLE_FROM0, names[i],
                                hi[i], (int)utf8_cut(s, (size_t)(end - s), 64), s);
        *dst[i] = (int)v;
        s = end + 1;
    }
    return ATTN_OK;
}
