/* cli_args.c — parsing the command line into cli_opts. */
#include "cli_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_settings.h"
#include "attn_tiles.h"
#include "model_run.h"
#include "numparse.h"
#include "task.h"
#include "utf8.h"

/* Reads a whole decimal number in [lo, hi] for flag (s: n bytes); rejects
 * fractions, trailing junk and numbers of any size outside the range with a
 * message that names the flag. */
static attn_status parse_int_n(long long *out, const char *flag, const char *s, size_t n,
                               long long lo, long long hi, attn_err *err) {
    int shown = (int)utf8_cut(s, n, 64); // the value as given, cut on a character
    switch (attn_parse_int(s, n, lo, hi, out)) {
    case ATTN_INT_OK: return ATTN_OK;
    case ATTN_INT_NOT_WHOLE:
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_WHOLE, flag, shown, s);
    case ATTN_INT_RANGE: break;
    }
    return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_RANGE, flag, lo, hi, shown, s);
}

static attn_status parse_int(long long *out, const char *flag, const char *s, long long lo, long long hi,
                             attn_err *err) {
    return parse_int_n(out, flag, s, strlen(s), lo, hi, err);
}

/* HEAD:ROW:COL within the largest trace (a cell outside this one is refused
 * with the trace's own sizes later): rows are tokens, columns at most
 * heads·d_k. */
static attn_status parse_cell(cli_opts *o, const char *s, attn_err *err) {
    static const char *const names[] = {"--explain HEAD", "--explain ROW", "--explain COL"};
    static const long long hi[] = {ATTN_MAX_HEADS - 1, ATTN_MAX_TOKENS - 1, ATTN_MAX_HEADS * ATTN_MAX_D_K - 1};
    int *dst[] = {&o->explain_head, &o->explain_row, &o->explain_col};
    for (int i = 0; i < 3; i++) {
        const char *end = i < 2 ? strchr(s, ':') : s + strlen(s);
        long long v;
        attn_status st = parse_int_n(&v, names[i], s, (size_t)(end - s), 0, hi[i], err);
        if (st != ATTN_OK) return st;
        *dst[i] = (int)v;
        s = end + 1;
    }
    return ATTN_OK;
}

static attn_status parse_explain(cli_opts *o, const char *spec, attn_err *err) {
    char stage[16];
    const char *colon = strchr(spec, ':'), *c2 = colon ? strchr(colon + 1, ':') : NULL;
    const char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
    size_t n = colon ? (size_t)(colon - spec) : 0;
    if (!c3 || strchr(c3 + 1, ':') || n == 0 || n >= sizeof stage)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPLAIN_WRITE);
    attn_status st = parse_cell(o, colon + 1, err);
    if (st != ATTN_OK) return st;
    memcpy(stage, spec, n);
    stage[n] = '\0';
    o->explain_stage = attn_stage_from_name(stage);
    if (o->explain_stage < 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPLAIN_STAGE,
                            stage);
    o->explain = true;
    return ATTN_OK;
}

attn_status cli_check_layer_page(cli_opts *o, attn_err *err) {
    attn_status st = o->explain ? parse_explain(o, o->explain_spec, err) : ATTN_OK;
    if (st == ATTN_OK && o->print_stage >= ATTN_STAGE_COUNT)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_PRINT_MODEL_STAGE,
                            model_stage_name(o->print_stage));
    return st;
}

/* --size WxH: 320x240 .. 7680x4320. */
static attn_status parse_size(cli_opts *o, const char *val, attn_err *err) {
    const char *x = strchr(val, 'x');
    long long w = 0, h = 0;
    if (!x || attn_parse_int(val, (size_t)(x - val), 320, 7680, &w) != ATTN_INT_OK ||
        attn_parse_int(x + 1, strlen(x + 1), 240, 4320, &h) != ATTN_INT_OK || val[0] == '+' || x[1] == '+')
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_SIZE,
                            (int)utf8_cut(val, strlen(val), 64), val);
    o->width = (int)w;
    o->height = (int)h;
    return ATTN_OK;
}

/* --ui-scale S: 0.5 .. 4. */
static attn_status parse_scale(cli_opts *o, const char *val, attn_err *err) {
    char *end = NULL;
    double v = strtod(val, &end);
    if (end == val || *end != '\0' || !(v >= 0.5 && v <= 4.0))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_UI_SCALE, val);
    o->ui_scale = v;
    return ATTN_OK;
}

/* Where o records that setting id was given as a flag. */
static bool *given(cli_opts *o, int id) {
    switch (id) {
    case ATTN_SET_D_MODEL: return &o->set_d_model;
    case ATTN_SET_D_K: return &o->set_d_k;
    case ATTN_SET_HEADS: return &o->set_heads;
    case ATTN_SET_SEED: return &o->set_seed;
    case ATTN_SET_MASK: return &o->set_mask;
    case ATTN_SET_SCALE: return &o->set_scale;
    case ATTN_SET_POS_ENC: return &o->set_pos_enc;
    case ATTN_SET_BIAS: return &o->set_bias;
    case ATTN_SET_KV_HEADS: return &o->set_kv_heads;
    case ATTN_SET_POS: return &o->set_pos;
    case ATTN_SET_ROPE_BASE: return &o->set_rope_base;
    case ATTN_SET_POS_OFFSET: return &o->set_pos_offset;
    default: return &o->set_pos_dims;
    }
}

bool cli_setting_given(const cli_opts *o, int id) {
    return *given((cli_opts *)o, id); // only read
}

/* A setting's flag with its value (attn_settings.h: the range and the rule
 * are the table's; the words here are the command line's). */
static attn_status parse_setting(cli_opts *o, int id, const char *flag, const char *val, attn_err *err) {
    const attn_setting *s = attn_setting_at(id);
    int shown = (int)utf8_cut(val, strlen(val), 64); // the value as given, cut on a character
    *given(o, id) = true;
    switch (attn_setting_parse(id, val, strlen(val), &o->cfg, err)) {
    case ATTN_SETTING_OK: return ATTN_OK;
    case ATTN_SETTING_NOT_WHOLE:
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_WHOLE, flag, shown, val);
    case ATTN_SETTING_RANGE:
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_RANGE, flag, s->lo, s->hi, shown, val);
    case ATTN_SETTING_BAD: break;
    }
    if (s->kind == ATTN_SETTING_MASK || s->kind == ATTN_SETTING_POS) return ATTN_ERR_RANGE; // the parser said why
    return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_POS_DIMS,
                        flag, val);
}

static attn_status parse_lang(cli_opts *o, const char *val, attn_err *err) {
    if (strcmp(val, "en") != 0 && strcmp(val, "zh") != 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_LANG, val);
    o->lang = val;
    return ATTN_OK;
}

/* Whether the learner reads Chinese: --lang, else the locale (LC_ALL,
 * LC_MESSAGES, LANG), as the window and the exports choose. */
bool cli_lang_zh(const cli_opts *o) {
    if (o->lang) return strcmp(o->lang, "zh") == 0;
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return strncmp(v, "zh", 2) == 0;
    }
    return false;
}

/* --tiles B: 1 … ATTN_MAX_TILE, the one-layer view only; refused in the
 * learner's language (issue 24). */
static attn_status parse_tiles(cli_opts *o, attn_err *err) {
    long long v = 0;
    const char *s = o->tiles_spec;
    bool zh = cli_lang_zh(o);
    int shown = (int)utf8_cut(s, strlen(s), 64);
    if (attn_parse_int(s, strlen(s), 1, ATTN_MAX_TILE, &v) != ATTN_INT_OK)
        return attn_fail(err, ATTN_ERR_RANGE,
                         zh ? "--tiles 的块大小 B 必须是 1 到 %d 之间的整数（现在是 \"%.*s\"）：每块 B 个查询行、B 个键列。"
                            : "--tiles needs a block size B, a whole number from 1 to %d (not \"%.*s\"): blocks of B "
                              "query rows and B key columns.",
                         ATTN_MAX_TILE, shown, s);
    if (o->model.model_path || o->model.train_task)
        return attn_fail(err, ATTN_ERR_RANGE,
                         zh ? "--tiles 只用于单层的注意力（不能与 %s 同用）。"
                            : "--tiles goes with the one-layer view, not with %s.",
                         o->model.model_path ? "--model" : "--train");
    if (o->check_lesson || (o->lesson_path && o->export_dir)) // a lesson export writes its pages, not a tiles view
        return attn_fail(err, ATTN_ERR_RANGE,
                         zh ? "--tiles 不能与 %s 同用：课程导出的是它的页面；带 @view: tiles B 的页面在窗口里显示分块视图，"
                              "--print 和 --dump-json 也可以配合 --lesson 使用 --tiles。"
                            : "--tiles does not go with %s: a lesson export writes its pages; a page with @view: tiles B "
                              "shows the tiles view in the window, and --print and --dump-json take --tiles with --lesson.",
                         o->check_lesson ? "--check-lesson" : "--lesson … --export-dir");
    o->tiles = (int)v;
    return ATTN_OK;
}

/* Flags that take a value; the value is argv[i + 1]. */
static attn_status parse_valued(cli_opts *o, const char *flag, const char *val, attn_err *err) {
    long long v = 0;
    attn_status st = ATTN_OK;
    if (strcmp(flag, "--sentence") == 0) o->sentence = val;
    else if (strcmp(flag, "--sentence-file") == 0) o->sentence_file = val;
    else if (strcmp(flag, "--weights") == 0) o->weights_path = val;
    else if (strcmp(flag, "--dump-json") == 0) o->dump_path = val;
    else if (strcmp(flag, "--explain") == 0) o->explain_spec = val, o->explain = true; // parsed once --model is known
    else if (strcmp(flag, "--lesson") == 0) o->lesson_path = val;
    else if (strcmp(flag, "--page") == 0) o->page_id = val;
    else if (strcmp(flag, "--check-lesson") == 0) o->check_lesson = val;
    else if (strcmp(flag, "--size") == 0) st = parse_size(o, val, err);
    else if (strcmp(flag, "--ui-scale") == 0) st = parse_scale(o, val, err);
    else if (strcmp(flag, "--font") == 0) o->font_path = val;
    else if (strcmp(flag, "--script") == 0) o->script_path = val;
    else if (strcmp(flag, "--shots-dir") == 0) o->shots_dir = val;
    else if (strcmp(flag, "--export-dir") == 0) o->export_dir = val;
    else if (strcmp(flag, "--format") == 0) o->formats = val;
    else if (strcmp(flag, "--steps") == 0) o->steps = val;
    else if (strcmp(flag, "--view") == 0) o->view = val;
    else if (strcmp(flag, "--theme") == 0) o->theme = val;
    else if (strcmp(flag, "--lang") == 0) st = parse_lang(o, val, err);
    else if (strcmp(flag, "--tiles") == 0) o->tiles_spec = val;
    else if (attn_setting_by_flag(flag, NULL) >= 0) st = parse_setting(o, attn_setting_by_flag(flag, NULL), flag, val, err);
    else if (strcmp(flag, "--pixel-scale") == 0) {
        st = parse_int(&v, flag, val, 1, 3, err);
        o->pixel_scale = (int)v;
    } else if (strcmp(flag, "--max-n") == 0) {
        st = parse_int(&v, flag, val, 16, 65536, err);
        o->max_n = (int)v;
    }
    return st;
}

static bool takes_value(const char *flag) {
    int setting = attn_setting_by_flag(flag, NULL);
    if (setting >= 0) return attn_setting_at(setting)->kind != ATTN_SETTING_ONOFF;
    static const char *const valued[] = {
        "--sentence",
        "--sentence-file",
        "--weights",
        "--dump-json",
        "--explain",
        "--size",
        "--ui-scale",
        "--font",
        "--script",
        "--shots-dir",
        "--lesson",
        "--page",
        "--check-lesson",
        "--export-dir",
        "--format",
        "--steps",
        "--view",
        "--theme",
        "--lang",
        "--pixel-scale",
        "--max-n",
        "--tiles",
    };
    for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
        if (strcmp(flag, valued[i]) == 0) return true;
    return false;
}

/* --print takes an optional stage name as the next argument. */
static attn_status parse_print(cli_opts *o, int argc, char **argv, int *i, attn_err *err) {
    o->print = true;
    o->print_stage = -1;
    if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0) return ATTN_OK;
    const char *name = argv[++*i];
    o->print_stage = model_stage_from_name(name); // a model's stages too (checked once --model is known)
    o->model.print_name = name;
    if (o->print_stage < 0 && cli_hf_stage_from_name(name) < 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_PRINT_STAGE,
                            name);
    return ATTN_OK;
}

static attn_status parse_switch(cli_opts *o, const char *a, bool *headless, attn_err *err) {
    bool on;
    int setting = attn_setting_by_flag(a, &on); // --scale / --no-scale …: either way, over a lesson page
    if (setting >= 0) {
        attn_setting_set(setting, &o->cfg, on);
        *given(o, setting) = true;
    } else if (strcmp(a, "--headless") == 0) *headless = true;
    else if (strcmp(a, "--caption") == 0) o->caption = true;
    else if (strcmp(a, "--complexity") == 0) o->complexity = true;
    else if (strcmp(a, "--bench") == 0) o->bench = true;
    else if (strcmp(a, "--bos") == 0) o->model.bos = true;
    else if (strcmp(a, "--dump-weights") == 0) o->model.dump_weights = true;
    else if (strcmp(a, "--decode") == 0) o->decode = true;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) o->mode = CLI_MODE_HELP;
    else if (strcmp(a, "--version") == 0) o->mode = CLI_MODE_VERSION;
    else return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_UNKNOWN, a);
    return ATTN_OK;
}

/* Standard input can be read once: at most one input may be "-". */
static attn_status check_stdin(const cli_opts *o, attn_err *err) {
    const char *flags[] = {"--sentence-file", "--weights", "--lesson", "--check-lesson", "--script"};
    const char *vals[] = {o->sentence_file, o->weights_path, o->lesson_path, o->check_lesson, o->script_path};
    const char *first = NULL;
    for (int i = 0; i < 5; i++) {
        if (!vals[i] || strcmp(vals[i], "-") != 0) continue;
        if (first)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_STDIN_TWICE,
                                first, flags[i]);
        first = flags[i];
    }
    return ATTN_OK;
}

/* The lesson flags combine only in ways that mean something. */
static attn_status check_lesson_flags(const cli_opts *o, attn_err *err) {
    if (o->check_lesson && (o->lesson_path || o->print || o->dump_path || o->explain || o->weights_path))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_CHECK_LESSON_ALONE);
    if (o->page_id && !o->lesson_path)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_PAGE_LESSON);
    if (o->lesson_path && o->weights_path)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_LESSON_OR_WEIGHTS);
    return ATTN_OK;
}

/* The flags that set a one-layer configuration; a model file or a task fixes these. */
const char *cli_model_config_flag(const cli_opts *o) {
    return o->set_d_model ? "--d-model" : o->set_d_k      ? "--d-k"
                                      : o->set_heads      ? "--heads"
                                      : o->set_seed       ? "--seed"
                                      : o->set_mask       ? "--mask"
                                      : o->set_scale      ? (o->cfg.scale ? "--scale" : "--no-scale")
                                      : o->set_pos_enc    ? (o->cfg.pos_enc ? "--pos-enc" : "--no-pos-enc")
                                      : o->set_bias       ? (o->cfg.bias ? "--bias" : "--no-bias")
                                      : o->set_kv_heads   ? "--kv-heads"
                                      : o->set_pos        ? "--pos"
                                      : o->set_rope_base  ? "--rope-base"
                                      : o->set_pos_offset ? "--pos-offset"
                                                          : NULL;
}

/* --train TASK --save FILE: nothing else but the training flags. */
static attn_status check_train(cli_opts *o, attn_err *err) {
    cli_model_opts *m = &o->model;
    if (!m->save_path)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TRAIN_SAVE);
    if (m->model_path || o->weights_path || o->lesson_path || o->print || o->dump_path || o->explain ||
        o->export_dir || m->n_targets || o->sentence || o->sentence_file || o->decode ||
        m->generate)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TRAIN_ONLY);
    if (o->set_pos_enc)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TRAIN_POS,
                            o->cfg.pos_enc ? "--pos-enc" : "--no-pos-enc");
    attn_status st = cli_model_take_positions(m, o->set_pos, &o->cfg, o->set_rope_base, o->set_pos_offset, err);
    if (st != ATTN_OK) return st;
    o->mode = CLI_MODE_TRAIN;
    return ATTN_OK;
}

/* Standard input is read once: --model - cannot share it with the inputs that
 * may come with --model (check_stdin above compares the others). */
static attn_status check_model_stdin(const cli_opts *o, attn_err *err) {
    const char *const flags[] = {"--sentence-file", "--script"};
    const char *const vals[] = {o->sentence_file, o->script_path};
    if (strcmp(o->model.model_path, "-") != 0) return ATTN_OK;
    for (int i = 0; i < 2; i++)
        if (vals[i] && strcmp(vals[i], "-") == 0)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_MODEL_STDIN,
                                flags[i]);
    return ATTN_OK;
}

/* --model FILE: the configuration comes from the file. */
static attn_status check_model(cli_opts *o, attn_err *err) {
    cli_model_opts *m = &o->model;
    attn_status st = check_model_stdin(o, err);
    if (st != ATTN_OK) return st;
    const char *flag = cli_model_config_flag(o);
    if (flag && o->set_pos_offset && strcmp(flag, "--pos-offset") == 0)
        flag = NULL; // the one setting a trained model takes: where its sentence starts (cli_model_compute)
    if (!flag) flag = cli_model_training_flag(m);
    if (o->weights_path || o->lesson_path || flag)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_MODEL_DROP,
                            o->weights_path ? "--weights" : o->lesson_path ? "--lesson"
                                                                           : flag);
    if (o->explain) return cli_model_parse_explain(m, o->explain_spec, err);
    return ATTN_OK;
}

/* --hf DIR: the model, its configuration and its tokenizer come from the folder. */
static attn_status check_hf(cli_opts *o, attn_err *err) {
    cli_model_opts *m = &o->model;
    const char *flag = m->model_path              ? "--model"
                       : o->weights_path          ? "--weights"
                       : o->lesson_path           ? "--lesson"
                       : m->n_targets             ? "--target"
                       : m->train_task            ? "--train"
                       : o->check_lesson          ? "--check-lesson"
                       : cli_model_config_flag(o) ? cli_model_config_flag(o)
                                                  : cli_model_training_flag(m);
    if (flag)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_HF_DROP,
                            flag);
    if (m->print_name && o->print_stage >= ATTN_STAGE_COUNT && o->print_stage != MODEL_ST_RESIDUAL &&
        cli_hf_stage_from_name(m->print_name) < 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_HF_PRINT_MODEL,
                            m->print_name);
    if (o->print_stage == ATTN_ST_Q_ROT || o->print_stage == ATTN_ST_K_ROT) // GPT-2 adds learned positions to X
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_HF_ROPE,
                            attn_stage_name((attn_stage)o->print_stage));
    if (o->explain) return cli_hf_parse_explain(m, o->explain_spec, err);
    return ATTN_OK;
}

attn_status cli_model_finish(cli_opts *o, attn_err *err) {
    cli_model_opts *m = &o->model;
    if (m->hf_dir) return check_hf(o, err);
    if (m->bos || m->dump_weights) return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_GOES_WITH_HF, m->bos ? "--bos" : "--dump-weights");
    if (o->print && o->print_stage < 0 && m->print_name && !o->lesson_path) // a lesson's @hf page has them too
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_PRINT_HF_STAGE,
                            m->print_name);
    if (m->tasks) {
        if (m->train_task || m->model_path)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TASKS_ALONE);
        o->mode = CLI_MODE_TASKS;
        return ATTN_OK;
    }
    if (m->train_task) return check_train(o, err);
    if (m->save_path) return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_SAVE_TRAIN);
    if (m->model_path) return check_model(o, err);
    if (m->set_pos && m->pos == MODEL_POS_LEARNED)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_POS_LEARNED);
    if (cli_model_training_flag(m))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_GOES_WITH_TRAIN, cli_model_training_flag(m));
    if (m->n_targets) return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_TARGET_MODEL);
    return ATTN_OK;
}

attn_status cli_parse(cli_opts *o, int argc, char **argv, attn_err *err) {
    memset(o, 0, sizeof *o);
    attn_config_default(&o->cfg);
    o->print_stage = -1;
    bool headless = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        attn_status st;
        if (strcmp(a, "--pos") == 0 && i + 1 < argc && strcmp(argv[i + 1], "learned") != 0) {
            st = parse_valued(o, a, argv[++i], err); // the one scheme; --train takes it over (check_train)
        } else if (cli_model_takes_value(a)) {
            if (i + 1 >= argc)
                return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_VALUE, a);
            st = cli_model_parse_valued(&o->model, a, argv[++i], err);
        } else if (strcmp(a, "--tasks") == 0) {
            o->model.tasks = true;
            st = ATTN_OK;
        } else if (takes_value(a)) {
            if (i + 1 >= argc)
                return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_VALUE, a);
            st = parse_valued(o, a, argv[++i], err);
        } else if (strcmp(a, "--print") == 0) {
            st = parse_print(o, argc, argv, &i, err);
        } else {
            st = parse_switch(o, a, &headless, err);
        }
        if (st != ATTN_OK) return st;
    }
    if (o->sentence && o->sentence_file)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_FLAG_SENTENCE_BOTH);
    if (o->mode == CLI_MODE_HELP || o->mode == CLI_MODE_VERSION) return ATTN_OK;
    if (o->tiles_spec && parse_tiles(o, err) != ATTN_OK) return ATTN_ERR_RANGE;
    attn_status st = cli_model_finish(o, err);
    if (st != ATTN_OK || o->mode == CLI_MODE_TRAIN || o->mode == CLI_MODE_TASKS) return st;
    if (!o->model.model_path && !o->model.hf_dir && !o->lesson_path && (st = cli_check_layer_page(o, err)) != ATTN_OK)
        return st;
    st = check_lesson_flags(o, err);
    if (st == ATTN_OK) st = check_stdin(o, err);
    if (st != ATTN_OK) return st;
    if (o->decode && (o->complexity || o->bench || o->check_lesson || (o->export_dir && (o->lesson_path || o->model.model_path))))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_DECODE_WITH);
    if (o->model.generate && !o->model.model_path)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_GENERATE_MODEL);
    if ((o->decode || o->model.generate) && o->model.model_path &&
        (o->print || o->dump_path || o->explain || o->model.n_targets))
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_DECODE_SEPARATE);
    if (o->model.generate) o->decode = true; // generating decodes the sentence first
    if (o->check_lesson) {                   // validating a lesson is a headless action of its own
        o->mode = CLI_MODE_HEADLESS;
        return ATTN_OK;
    }
    if (o->export_dir) { // exports are headless; printing and dumping can come along
        o->mode = CLI_MODE_EXPORT;
        return ATTN_OK;
    }
    if (o->complexity || o->bench) {
        o->mode = o->complexity ? CLI_MODE_COMPLEXITY : CLI_MODE_BENCH;
        return ATTN_OK;
    }
    if (o->max_n) return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_MAX_N);
    if (o->formats || o->steps || o->pixel_scale || o->caption)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_EXPORT_FLAGS);
    // any headless action implies --headless; --headless alone prints everything
    if (headless || o->print || o->dump_path || o->explain || o->decode) {
        o->mode = CLI_MODE_HEADLESS;
        if (!o->print && !o->dump_path && !o->explain && !o->decode) o->print = true; // --decode alone: its table
    }
    if (o->view && o->mode == CLI_MODE_HEADLESS)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_VIEW_WITH);
    if (o->view && strcmp(o->view, "figure") != 0 && strcmp(o->view, "window") != 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CA_VIEW_UNKNOWN,
                            o->view);
    return ATTN_OK;
}

/* --help with "%s" where the settings' lines go (so no other % in it). */
static const char help_format[] =
    "attnviz " ATTN_VERSION " — see self-attention compute, step by step.\n"
    "\n"
    "Usage:\n"
    "  attnviz                          open the app (the GUI)\n"
    "  attnviz --headless [options] --print [STAGE]\n"
    "  attnviz --headless [options] --dump-json FILE|-\n"
    "  attnviz --headless [options] --explain STAGE:HEAD:ROW:COL\n"
    "  attnviz --headless --lesson FILE [--page ID] [options] --print [STAGE]\n"
    "  attnviz --check-lesson FILE\n"
    "  attnviz --train TASK --save FILE.json [training options]\n"
    "  attnviz --headless --model FILE.json [--sentence S] [--target POS:TOKEN ...]\n"
    "          --print [STAGE] | --dump-json FILE|- | --explain STAGE:LAYER:HEAD:ROW:COL\n"
    "  attnviz --tasks\n"
    "  attnviz --headless --hf DIR [--sentence S] [--bos]\n"
    "          --print [STAGE] | --dump-json FILE|- [--dump-weights] | --explain STAGE:LAYER:HEAD:ROW:COL\n"
    "\n"
    "Input:\n"
    "  --sentence S          the sentence (default: " CLI_SEED_SENTENCE ")\n"
    "  --sentence-file F     read the sentence from a file (- for standard input)\n"
    "  --weights F.json      read X, W_Q/W_K/W_V, b_*, W_O, b_O from a JSON file\n"
    "                        (the --dump-json shape); missing keys use the normal source\n"
    "Configuration:\n"
    "%s" // the settings' lines, from their table (attn_setting_help)
    "Output:\n"
    "  --print [STAGE]       print the tokens and every stage, or one of:\n"
    "                        x q k v scores scaled masked weights z concat output\n"
    "                        (with --pos rope also q_rot k_rot)\n"
    "  --dump-json F         write every stage as JSON (- for standard output)\n"
    "  --explain S:H:R:C     show the arithmetic of one cell; head, row and column count\n"
    "                        from 0 (token 14 is row 13), e.g. weights:0:13:9\n"
    "  --tiles B             also compute each head by FlashAttention's online softmax\n"
    "                        in blocks of B (1-64): --print sums it up, --dump-json adds\n"
    "                        Z_tiled and every block's m, l and O\n"
    "  --decode              decode token by token with a KV cache (--mask causal or\n"
    "                        causal-window:W): each token's cache, cells and cost; with\n"
    "                        --dump-json each head gains Z_decode and decode\n"
    "Lessons:\n"
    "  --lesson FILE         open a lesson (with --headless: compute its page with the\n"
    "                        page's sentence, settings, vocabulary and designed weights;\n"
    "                        --sentence and the settings flags override the page)\n"
    "  --page ID             which page of the lesson (default: the first)\n"
    "  --check-lesson FILE   check a lesson and report every error as file:line:column\n"
    "A trained model (attention only, 1-4 layers; see the README):\n"
    "  --tasks               list the tasks: vocabulary, lengths, examples, defaults\n"
    "  --train TASK --save FILE.json  train on TASK and write the model; the task's\n"
    "                        defaults learn it. TASK is one of (the task table's names):\n"
    "                        %s\n"
    "                        Options: --layers L (1-4) --heads H --d-model N --d-k N\n"
    "                        --pos sinusoidal|learned|none|rope --rope-base B --mask M\n"
    "                        --no-scale --bias --train-steps N --batch B --lr X\n"
    "                        --weight-decay X\n"
    "                        --objective pointer|token --seed S\n"
    "  --model FILE.json     with --headless: run the model on --sentence (default: its\n"
    "                        probe); --print and --dump-json show every layer; --print\n"
    "                        and --explain also know residual logits probs d_weights d_scaled\n"
    "  --target POS:TOKEN    (repeatable) the answer at row POS (from 0): adds the loss and\n"
    "                        every gradient (a pointer model's TOKEN must occur once)\n"
    "  --generate N          with --model: continue the sentence by N tokens, each the\n"
    "                        readout's argmax fed back, with a KV cache per layer (a\n"
    "                        token model of a task that generates: induction); --decode\n"
    "                        alone decodes the sentence token by token\n"
    "A real model (GPT-2 from a Hugging Face folder; see docs/models.md):\n"
    "  --hf DIR              with --headless: run the GPT-2 in DIR (config.json,\n"
    "                        model.safetensors, vocab.json + merges.txt or vocab.txt) on\n"
    "                        --sentence; --print also knows resid_pre resid_mid mlp_out\n"
    "                        residual next, and heads: the head finder's rankings;\n"
    "                        stages of every layer and head and head_scores are dumped\n"
    "  --bos                 put <|endoftext|> first (GPT-2's tokenizer)\n"
    "  --dump-weights        --dump-json also writes each head's weights and the logits\n"
    "Export (course notes; no display needed):\n"
    "  --export-dir DIR      write every step (or every lesson page) into DIR\n"
    "  --format LIST         png,svg,csv,tex,md,html (default png,svg)\n"
    "  --pixel-scale N       1-3: render text and lines N times larger, for print\n"
    "  --steps LIST          all, or step numbers such as 3,6\n"
    "  --view figure|window  the step's figure (default) or the whole window; in the\n"
    "                        window, figure opens with the figure alone (key F)\n"
    "  --caption             burn the step, equation, sentence and settings in\n"
    "  --theme NAME          light, dark, presenter or high-contrast (also the window's)\n"
    "  --lang en|zh          UI language (also the window's)\n"
    "Measuring:\n"
    "  --complexity [--max-n N]  time full, tiled, sliding-window and linear attention for\n"
    "                        n = 16 ... N and fit the slopes (N 16-65536, default 4096)\n"
    "  --bench               replay a classroom session offscreen and print timings\n"
    "                        (with --size WxH and --theme NAME: at that size and theme)\n"
    "Window:\n"
    "  --size WxH            window size, e.g. 1280x800 (also the export size)\n"
    "  --ui-scale S          UI scale 0.5-4 (default: from the display's DPI)\n"
    "  --font FILE           use this font instead of WenQuanYi Micro Hei\n"
    "  --script FILE         drive the window from a script (see the README)\n"
    "  --shots-dir DIR       where Ctrl+S saves screenshots\n"
    "  --help, --version\n";

const char *cli_help_text(void) {
    static char text[8192];                                                                    // made once: the fixed text around the settings' lines
    if (!text[0]) snprintf(text, sizeof text, help_format, attn_setting_help(), task_names()); // the tables' words
    return text;
}

void cli_print_err(const cli_opts *o, FILE *errf, const attn_err *err) {
    char text[640];
    if (o->word_err) o->word_err(o->word_ctx, err, text, sizeof text);
    else snprintf(text, sizeof text, "%s", err->msg);
    fprintf(errf, "attnviz: %s\n", text);
}
