/* test_model_file.c — the "attnviz-model" file: written and read back byte
 * for byte under every option, and every kind of bad file refused with a
 * message that names the key and the shapes. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "model_file.h"

static const char *const words[] = {"x", "y"};

/* A tiny token model (d_model 2, d_k 1, one layer, biases) whose every weight is 0.5. */
static char *tiny_text(void) {
    model_config c = {.d_model = 2, .d_k = 1, .heads = 1, .layers = 1, .pos = MODEL_POS_NONE, .max_len = 3,
                      .mask = {ATTN_MASK_NONE, 1}, .scale = true, .bias = true, .objective = MODEL_OBJ_TOKEN};
    model m;
    assert_int_equal(model_create(&m, &c, words, 2, "reverse", "x y", NULL), ATTN_OK);
    for (size_t i = 0; i < m.n_params; i++) m.block[i] = 0.5;
    m.training = (model_training){.seed = 3, .steps = 10, .batch = 4, .lr = 0.01, .weight_decay = 0.1,
                                  .loss = 0.25, .heldout_accuracy = 0.75};
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

static void expect_error(const char *from, const char *to, attn_status code, const char *message) {
    char *base = tiny_text(), *bad = edit(base, from, to);
    model m;
    attn_err err;
    attn_status st = model_file_parse(&m, bad, strlen(bad), "m.json", &err);
    if (st != code || !strstr(err.msg, message))
        fail_msg("%s -> %s: status %d, \"%s\"; expected %d with \"%s\"", from, to, st, err.msg, code, message);
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
        model_config c = {.d_model = 4, .d_k = 3, .heads = 1 + k % 3, .layers = 1 + k % 4, .pos = (model_pos)(k % 3),
                          .max_len = 5, .mask = {(attn_mask_kind)(k % 4), 2}, .scale = k % 2, .bias = k % 3 == 0,
                          .objective = (model_objective)(k % 2)};
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
    expect_error("\"pos\": \"none\"", "\"pos\": \"rope\"", ATTN_ERR_RANGE, "m.json: config.pos is \"rope\"");
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
