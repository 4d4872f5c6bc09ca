/* test_model_file.c — the "attnviz-model" file: written and read back byte
 * for byte under every option, and every kind of bad file refused with a
 * message that names the key and the shapes. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"
#include "model_file.h"

static const char *const words[] = {"x", "y"};

/* A tiny token model (d_model 2, d_k 1, one layer, biases) whose every weight is 0.5. */
static char *tiny_text(void) {
    model_config c = {.d_model = 2, .d_k = 1, .heads = 1, .layers = 1, .pos = MODEL_POS_NONE, .max_len = 3, .mask = {ATTN_MASK_NONE, 1}, .scale = true, .bias = true, .objective = MODEL_OBJ_TOKEN};
    model m;
    assert_int_equal(model_create(&m, &c, words, 2, "reverse", "x y", NULL), ATTN_OK);
    for (size_t i = 0; i < m.n_params; i++) m.block[i] = 0.5;
    m.training = (model_training){.seed = 3, .steps = 10, .batch = 4, .lr = 0.01, .weight_decay = 0.1, .loss = 0.25, .heldout_accuracy = 0.75};
    char *text = model_file_write(&m);
    model_free(&m);
    assert_non_null(text);
    return text;
}

/* text with the first occurrence of from replaced by to (the caller frees it). */
static char *edit(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    if (!at) fail_msg("\"%s\" is not in the file", from);
    size_t head = (size_t)(at - text), len = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(len + 1);
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

/* The tiny file edited (from -> to) parses with status code and a message
 * holding message (code ATTN_OK: it reads). */
static void expect_error(const char *from, const char *to, attn_status code, const char *message) {
    char *base = tiny_text(), *bad = edit(base, from, to);
    model m;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = model_file_parse(&m, bad, strlen(bad), "m.json", &err);
    if (st != code || !strstr(err.msg, message))
        fail_msg("%s -> %s: status %d, \"%s\"; expected %d with \"%s\"", from, to, st, err.msg, code, message);
    for (const char *p = err.msg; *p; p++) // what the file says is quoted, never obeyed by a terminal
        if ((unsigned char)*p < 0x20 || *p == 0x7F) fail_msg("%s -> %s: a control character in \"%s\"", from, to, err.msg);
    if (code == ATTN_OK) model_free(&m);
    assert_null(m.block); // nothing half-made is left
    free(bad);
    free(base);
}

static void test_tiny_file_reads_back(void **state) {
    (void)state;
    char *text = tiny_text();
    assert_non_null(strstr(text, "\"format\": \"attnviz-model\",\n  \"version\": 1,"));
    assert_non_null(strstr(text, "\"config\": {\"d_model\": 2, \"d_k\": 1, \"heads\": 1, \"layers\": 1, \"pos\": \"none\", "
                                 "\"max_len\": 3, \"mask\": \"none\", \"scale\": true, \"bias\": true, \"objective\": \"token\"}"));
    assert_non_null(strstr(text, "\"training\": {\"seed\": 3, \"steps\": 10, \"batch\": 4, \"lr\": 0.01, "
                                 "\"weight_decay\": 0.1, \"loss\": 0.25, \"heldout_accuracy\": 0.75}"));
    assert_null(strstr(text, "\"P\""));
    model m;
    attn_err err;
    if (model_file_parse(&m, text, strlen(text), "m.json", &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *again = model_file_write(&m);
    assert_string_equal(text, again);
    model_free(&m);
    free(again);
    free(text);
}

/* Every option, random weights: write, read, write gives the same bytes. */
static void test_round_trip_every_option(void **state) {
    (void)state;
    for (int k = 0; k < 12; k++) {
        model_config c = {.d_model = 4, .d_k = 3, .heads = 1 + k % 3, .layers = 1 + k % 4, .pos = (model_pos)(k % 3), .max_len = 5, .mask = {(attn_mask_kind)(k % 4), 2}, .scale = k % 2, .bias = k % 3 == 0, .objective = (model_objective)(k % 2)};
        model m, back;
        attn_err err;
        assert_int_equal(model_create(&m, &c, words, 2, k % 2 ? "referent-zh" : "sort", "x y", NULL), ATTN_OK);
        model_init_weights(&m, (uint32_t)k);
        m.training.batch = 1;
        m.training.has_referent = k % 2;
        m.training.referent_attention = 0.5;
        char *text = model_file_write(&m);
        if (model_file_parse(&back, text, strlen(text), "m.json", &err) != ATTN_OK) fail_msg("%s", err.msg);
        assert_memory_equal(back.block, m.block, sizeof(double) * m.n_params);
        char *again = model_file_write(&back);
        assert_string_equal(text, again);
        free(text);
        free(again);
        model_free(&m);
        model_free(&back);
    }
}

static void test_bad_files_are_refused(void **state) {
    (void)state;
    expect_error("\"version\": 1,", "\"version\": 1", ATTN_ERR_PARSE, "m.json:4:3: this is not valid JSON");
    expect_error("attnviz-model", "attnviz-weights", ATTN_ERR_PARSE, "format is \"attnviz-weights\"");
    expect_error("\"version\": 1", "\"version\": 2", ATTN_ERR_PARSE, "version 2; this attnviz reads model files of version 1");
    expect_error("\"task\": \"reverse\"", "\"task\": \"copy\"", ATTN_ERR_PARSE, "task \"copy\" is not one of");
    expect_error("{\n", "{\"extra\": 1,\n", ATTN_ERR_PARSE, "m.json.extra is not a key attnviz knows here");
    expect_error("\"d_model\": 2,", "\"d_model\": 2, \"dropout\": 0,", ATTN_ERR_PARSE,
                 "m.json: config.dropout is not a key attnviz knows here");
    expect_error("\"probe\": \"x y\",", "\"probe\": \"x y\", \"probe\": \"y\",", ATTN_ERR_PARSE, "probe appears more than once");
    expect_error("\"vocab\": [\"x\", \"y\"]", "\"vocab\": [\"x\", \"y\", \"z\"]", ATTN_ERR_SHAPE,
                 "m.json: E has 2 rows but vocab has 3 words (one row per word)");
    expect_error("\"vocab\": [\"x\", \"y\"]", "\"vocab\": [\"x\", \"x\"]", ATTN_ERR_PARSE, "m.json: vocab[1] \"x\" repeats vocab[0]");
    expect_error("\"E\": [\n    [0.5, 0.5],\n    [0.5, 0.5]", "\"E\": [\n    [0.5, 0.5],\n    [0.5]", ATTN_ERR_SHAPE,
                 "m.json: E is ragged: row 1 has 1 entries, row 0 has 2");
    expect_error("\"d_k\": 1", "\"d_k\": 2", ATTN_ERR_SHAPE,
                 "m.json: layers[0].heads[0].W_Q is 2x1 but needs to be 2x2 (d_model 2 x d_k 2)");
    expect_error("\"b_U\": [0.5, 0.5]", "\"b_U\": [0.5, \"a\"]", ATTN_ERR_PARSE, "m.json: b_U[1] is not a number");
    expect_error("\"b_U\": [0.5, 0.5]", "\"b_U\": [0.5]", ATTN_ERR_SHAPE, "b_U has 1 numbers but needs 2 (2 vocab words)");
    expect_error("\"b_U\": [0.5, 0.5]", "\"b_U\": [0.5, 1e999]", ATTN_ERR_NONFINITE, "b_U[1] is too large to be a finite number");
    expect_error("\"b_U\": [0.5, 0.5]", "\"b_U\": [0.5, -2e18]", ATTN_ERR_RANGE, "b_U[1] is -2e+18; values must be at most 1e18");
    expect_error("\"b_U\": [0.5, 0.5]", "\"b_U\": [0.5, NaN]", ATTN_ERR_PARSE, "not valid JSON");
    expect_error("\"bias\": true", "\"bias\": false", ATTN_ERR_PARSE,
                 "m.json: layers[0].b_O is not a key attnviz knows here; the keys are heads, W_O.");
    expect_error("\"objective\": \"token\"", "\"objective\": \"pointer\"", ATTN_ERR_PARSE,
                 "U is only in a model whose config.objective is token");
    expect_error("\"E\":", "\"P\": [[0.5, 0.5]], \"E\":", ATTN_ERR_PARSE, "P is only in a model whose config.pos is learned");
    expect_error("\"layers\": 1", "\"layers\": 2", ATTN_ERR_SHAPE, "layers must be an array of 2 layer objects (config.layers), not 1");
    expect_error("\"mask\": \"none\"", "\"mask\": \"diagonal\"", ATTN_ERR_RANGE,
                 "m.json: config.mask is \"diagonal\"; it is none, causal, window:W or causal-window:W");
    expect_error("\"pos\": \"none\"", "\"pos\": \"alibi\"", ATTN_ERR_RANGE, "m.json: config.pos is \"alibi\"");
    expect_error("\"vocab\": [\"x\", \"y\"]", "\"vocab\": [\"x\", \"\"]", ATTN_ERR_RANGE, "m.json: vocab[1] must have 1 to 63 bytes");
    expect_error("\"scale\": true", "\"scale\": 1", ATTN_ERR_PARSE, "config.scale must be true or false");
    expect_error("\"heads\": 1,", "\"heads\": 9,", ATTN_ERR_RANGE, "config.heads must be a whole number from 1 to 8");
    expect_error(", \"heldout_accuracy\": 0.75", "", ATTN_ERR_PARSE, "training has no \"heldout_accuracy\"");
    expect_error("0.75}", "0.75, \"referent_attention\": 1}", ATTN_ERR_PARSE,
                 "training.referent_attention is not a key attnviz knows here");
    expect_error(",\n    \"b_O\": [0.5, 0.5]", "", ATTN_ERR_PARSE, "m.json: layers[0].b_O is missing");
    model m;
    attn_err err;
    assert_int_equal(model_file_parse(&m, "[1]", 3, "m.json", &err), ATTN_ERR_PARSE);
    assert_non_null(strstr(err.msg, "m.json: a model file must be a JSON object"));
}

/* A NUL byte in a word: cJSON ended the word there ("y\0z" read as "y"). */
static void expect_nul_byte(void) {
    char *base = tiny_text(), *bad = edit(base, "[\"x\", \"y\"]", "[\"x\", \"y#z\"]");
    *strchr(bad, '#') = '\0';
    model m;
    attn_err err;
    assert_int_equal(model_file_parse(&m, bad, strlen(base) + 2, "m.json", &err), ATTN_ERR_PARSE);
    assert_string_equal(err.msg, "m.json:6:20: a NUL byte; a model file is text.");
    free(bad);
    free(base);
}

/* Issue 25: read as strictly as weights files. One JSON value; UTF-8 text
 * without control characters (a word with ESC made --print retitle the
 * terminal, one not UTF-8 made --dump-json write invalid JSON); what an error
 * quotes of the file is shown as escapes. */
static void test_text_is_read_strictly(void **state) {
    (void)state;
    expect_error("\"training\"", "\"training\"", ATTN_OK, ""); // the edit itself changes nothing
    expect_error("0.75}\n}\n", "0.75}\n}\n{}\n", ATTN_ERR_PARSE,
                 "m.json:44:1: more follows the JSON object; a model file is exactly one JSON object");
    expect_error("0.75}\n}\n", "0.75}\n}\n \n\t\n", ATTN_OK, ""); // whitespace after it is fine
    expect_error("{\n", "\xef\xbb\xbf{\n", ATTN_OK, "");          // and so is a byte order mark
    expect_error("[\"x\", \"y\"]", "[\"x\", \"y\xff\"]", ATTN_ERR_PARSE,
                 "m.json:6:20: the file is not valid UTF-8: there is a byte that never appears in UTF-8");
    expect_error("[\"x\", \"y\"]", "[\"x\", \"\xc0\xaf\"]", ATTN_ERR_PARSE, "there is an overlong encoding");
    expect_error("[\"x\", \"y\"]", "[\"x\", \"y\\u001b[2J\"]", ATTN_ERR_PARSE,
                 "m.json: vocab[1] contains a control character (U+001B); a word is printable text.");
    expect_error("[\"x\", \"y\"]", "[\"x\", \"y\x1b[2J\"]", ATTN_ERR_PARSE, "vocab[1] contains a control character (U+001B)");
    expect_error("[\"x\", \"y\"]", "[\"x\", \"y\xc2\x9b\"]", ATTN_ERR_PARSE, "contains a control character (U+009B)");
    expect_error("[\"x\", \"y\"]", "[\"x\", \"y\\u0000z\"]", ATTN_ERR_PARSE,
                 "m.json:6:20: \\u0000 (the character NUL) cannot be in a model file's text.");
    expect_nul_byte();
    expect_error("[\"x\", \"y\"]", "[\"x\", \"y\\\\u0000\"]", ATTN_OK, ""); // an escaped backslash, then text
    expect_error("\"attnviz-model\"", "\"\\u001b]0;owned\\u0007attnviz-model\"", ATTN_ERR_PARSE,
                 "m.json.format contains a control character (U+001B); a model file's text has none.");
    expect_error("\"probe\": \"x y\"", "\"probe\": \"x\\ny\"", ATTN_ERR_PARSE, "probe contains a control character (U+000A)");
    expect_error("\"task\": \"reverse\"", "\"task\": \"rev\\u0085\"", ATTN_ERR_PARSE, "task contains a control character (U+0085)");
    expect_error("\"mask\": \"none\"", "\"mask\": \"\\u0007\"", ATTN_ERR_PARSE, "config.mask contains a control character");
    expect_error("{\n", "{\"\x1b[2J\\u009b\": 1,\n", ATTN_ERR_PARSE, "m.json.\\x1b[2J\\u009b is not a key attnviz knows here");
    expect_error("\"d_model\": 2,", "\"d_model\": 2, \"\\u001b]0;x\": 1,", ATTN_ERR_PARSE, "config.\\x1b]0;x is not a key");
}

/* A model with every weight v (the tiny one's shapes) for the writer's checks. */
static void tiny_model(model *m, double v) {
    char *text = tiny_text();
    attn_err err;
    if (model_file_parse(m, text, strlen(text), "m.json", &err) != ATTN_OK) fail_msg("%s", err.msg);
    free(text);
    for (size_t i = 0; i < m->n_params; i++) m->block[i] = v;
}

static void expect_unsaved(const model *m, const char *message) {
    char *text = (char *)"untouched";
    attn_err err;
    assert_int_equal(model_file_write_checked(m, &text, &err), ATTN_ERR_NONFINITE);
    assert_null(text);
    if (!strstr(err.msg, message)) fail_msg("\"%s\" lacks \"%s\"", err.msg, message);
}

/* Issue 25: --train saved a diverged model (loss 3.7e21) that --model refuses.
 * Only what model_file_parse reads back is written. */
static void test_only_readable_models_are_written(void **state) {
    (void)state;
    model m;
    tiny_model(&m, -1e18); // at the bound: written, and reads back
    char *text = NULL;
    attn_err err;
    if (model_file_write_checked(&m, &text, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *plain = model_file_write(&m);
    assert_string_equal(text, plain);
    free(plain);
    free(text);
    m.block[m.tensor[0].offset + 1] = 2e18;
    expect_unsaved(&m, "The training diverged: E[0][1] is 2e+18, beyond the finite numbers of at most 1e18");
    m.block[m.tensor[0].offset + 1] = 0.5;
    m.block[m.w.layer[0].mat[ATTN_MAT_W_Q][0] - m.block + 1] = NAN;
    expect_unsaved(&m, "layers[0].heads[0].W_Q[1][0] is nan");
    m.block[m.w.layer[0].mat[ATTN_MAT_W_Q][0] - m.block + 1] = 0.5;
    m.block[m.n_params - 1] = -INFINITY;
    expect_unsaved(&m, "b_U[1] is -inf");
    m.block[m.n_params - 1] = 0.5;
    m.training.loss = 3.7e21;
    expect_unsaved(&m, "The training diverged: training.loss is 3.7e+21");
    model_free(&m);
}

/* Issue 25: the largest --train settings saved 69 MB, past the 64 MiB --model
 * reads. The bound holds for the longest numbers, and refuses only what could
 * pass the limit. */
static void test_size_bound(void **state) {
    (void)state;
    const double longest[] = {-4.9406564584124654e-324, -1.2345678901234567e-300, -9.8765432109876543e+17};
    model_config c = {.d_model = 9, .d_k = 5, .heads = 3, .layers = 2, .pos = MODEL_POS_LEARNED, .max_len = 7, .mask = {ATTN_MASK_NONE, 1}, .scale = true, .bias = true, .objective = MODEL_OBJ_TOKEN};
    model m;
    attn_err err;
    assert_int_equal(model_create(&m, &c, words, 2, "reverse", "x y", NULL), ATTN_OK);
    for (size_t i = 0; i < m.n_params; i++) m.block[i] = longest[i % 3];
    char *text = model_file_write(&m);
    size_t bound = model_file_size_bound(&m);
    if (strlen(text) > bound || bound > 2 * strlen(text)) fail_msg("%zu bytes, bound %zu", strlen(text), bound);
    free(text);
    model_free(&m);
    c = (model_config){.d_model = 512, .d_k = 64, .heads = 8, .layers = 3, .pos = MODEL_POS_SINUSOIDAL, .max_len = 8, .mask = {ATTN_MASK_NONE, 1}, .scale = true, .objective = MODEL_OBJ_POINTER};
    assert_int_equal(model_create(&m, &c, words, 2, "sort", "x y", NULL), ATTN_OK);
    assert_int_equal(model_file_check_size(&m, &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "With these settings the model has 3146752 parameters, and its file could take"));
    assert_non_null(strstr(err.msg, "more than the 64 MiB a model file may have"));
    model_free(&m);
    c.layers = 2; // about 55 MB at the longest: allowed
    assert_int_equal(model_create(&m, &c, words, 2, "sort", "x y", NULL), ATTN_OK);
    assert_int_equal(model_file_check_size(&m, &err), ATTN_OK);
    model_free(&m);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Issue 25: --train --save replaced any file (a user's notes) with a model.
 * Only a model file, an empty file or a new name may be written. */
static void test_save_replaces_only_models(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-model-save-XXXXXX", path[128], link[128];
    assert_non_null(mkdtemp(dir));
    attn_err err;
    snprintf(path, sizeof path, "%s/new.json", dir);
    assert_int_equal(model_file_check_save(path, &err), ATTN_OK);
    assert_int_equal(model_file_check_save("-", &err), ATTN_OK);
    assert_int_equal(model_file_check_save("/dev/null", &err), ATTN_OK);
    write_text(path, "");
    assert_int_equal(model_file_check_save(path, &err), ATTN_OK);
    char *model_text = tiny_text();
    write_text(path, model_text);
    assert_int_equal(model_file_check_save(path, &err), ATTN_OK); // retraining replaces it
    free(model_text);
    const char *const others[] = {"my notes\n", "{\"format\": \"attnviz-weights\"}", "{\"X\": [[1]]}",
                                  "[\"attnviz-model\"]", "{\"format\": \"attnviz-model\"} {}"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        write_text(path, others[i]);
        assert_int_equal(model_file_check_save(path, &err), ATTN_ERR_IO);
        if (!strstr(err.msg, "new.json is there already and is not an attnviz model file"))
            fail_msg("%s: %s", others[i], err.msg);
    }
    snprintf(link, sizeof link, "%s/link.json", dir); // a link is judged by what it points to
    assert_int_equal(symlink("new.json", link), 0);
    assert_int_equal(model_file_check_save(link, &err), ATTN_ERR_IO);
    if (geteuid() != 0) { // root reads everything
        chmod(path, 0);
        assert_int_equal(model_file_check_save(path, &err), ATTN_ERR_IO);
        assert_non_null(strstr(err.msg, "attnviz cannot read it (Permission denied)"));
    }
    unlink(link);
    unlink(path);
    rmdir(dir);
}

static void test_load_errors(void **state) {
    (void)state;
    model m;
    attn_err err;
    assert_int_equal(model_file_load(&m, "/nonexistent/m.json", &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "Cannot open /nonexistent/m.json"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_file_reads_back),
        cmocka_unit_test(test_round_trip_every_option),
        cmocka_unit_test(test_bad_files_are_refused),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_text_is_read_strictly),
        cmocka_unit_test(test_only_readable_models_are_written),
        cmocka_unit_test(test_size_bound),
        cmocka_unit_test(test_save_replaces_only_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
