/* test_json.c — the JSON dump, the weights loader and file I/O. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "test_common.h"
#include "attn.h"
#include "attn_json.h"
#include <cjson/cJSON.h>
#include "fileio.h"
#include "strbuf.h"

static const char *sentence = "The cat sat on the mat";

static char *dump_for(const attn_config *c, const attn_weights *w) {
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, sentence, strlen(sentence), c, NULL, w, NULL), ATTN_OK);
    char *json = attn_json_dump(&t);
    assert_non_null(json);
    attn_trace_free(&t);
    return json;
}

static void test_dump_round_trip_is_identical(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.bias = true;
    c.pos_enc = true;
    c.heads = 3;
    c.mask.kind = ATTN_MASK_WINDOW;
    c.mask.window = 2;
    char *first = dump_for(&c, NULL);
    attn_weights_file f;
    attn_err err;
    assert_int_equal(attn_weights_file_parse(&f, first, strlen(first), "dump.json", &err), ATTN_OK);
    int dm, dk, heads;
    attn_weights_file_dims(&f, &dm, &dk, &heads);
    assert_int_equal(dm, 8);
    assert_int_equal(dk, 4);
    assert_int_equal(heads, 3);
    attn_weights w;
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, 6, "dump.json", &err), ATTN_OK);
    char *second = dump_for(&c, &w);
    assert_string_equal(first, second); // every digit survives the round trip
    attn_weights_file_free(&f);
    attn_weights_file_free(NULL);
    free(first);
    free(second);
}

/* Issue 24: --tiles B's dump gains Z_tiled and "tiles" per head (valid JSON,
 * no inf or nan: −∞ is null), and a weights file that carries them is read
 * back to the plain dump byte for byte. */
static void test_dump_tiles(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.mask.kind = ATTN_MASK_CAUSAL;
    attn_trace t = {0};
    attn_err err;
    assert_int_equal(attn_trace_run(&t, sentence, strlen(sentence), &c, NULL, NULL, &err), ATTN_OK);
    attn_tiles tiles[2] = {{0}};
    for (int h = 0; h < 2; h++) assert_int_equal(attn_tiles_of_head(&tiles[h], &t, h, 4, &err), ATTN_OK);
    char *json = attn_json_dump_tiles(&t, tiles), *plain = attn_json_dump(&t);
    assert_non_null(strstr(json, "\"Z_tiled\": ["));
    assert_non_null(strstr(json, "\"tiles\": {\"B\": 4, \"blocks\": 2, \"steps_skipped\": 1, \"bytes_held_max\": 320, "
                                 "\"full_bytes\": 288"));
    assert_non_null(strstr(json, "{\"q_block\": 0, \"k_block\": 1, \"rows\": [0, 4], \"cols\": [4, 6], \"skipped\": true"));
    assert_null(strstr(json, "inf"));
    assert_null(strstr(json, "nan"));
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *steps = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "heads"), 1), "tiles"), "steps");
    assert_int_equal(cJSON_GetArraySize(steps), 4);
    cJSON_Delete(root);
    attn_weights_file f;
    assert_int_equal(attn_weights_file_parse(&f, json, strlen(json), "tiles.json", &err), ATTN_OK);
    attn_weights w;
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, 6, "tiles.json", &err), ATTN_OK);
    char *again = dump_for(&c, &w);
    assert_string_equal(again, plain);
    free(again);
    attn_weights_file_free(&f);
    for (int h = 0; h < 2; h++) attn_tiles_free(&tiles[h]);
    free(json);
    free(plain);
    attn_trace_free(&t);
}

static void test_dump_shape(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    c.mask.kind = ATTN_MASK_CAUSAL;
    char *json = dump_for(&c, NULL);
    const char *keys[] = {"\"tokens\"", "\"config\"", "\"X\"", "\"heads\"", "\"W_Q\"", "\"b_V\"",
                          "\"scores\"", "\"scaled\"", "\"masked\"", "\"weights\"", "\"Z\"",
                          "\"concat\"", "\"W_O\"", "\"b_O\"", "\"output\"", "\"mask\": \"causal\""};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) assert_non_null(strstr(json, keys[i]));
    assert_non_null(strstr(json, "null")); // masked entries
    assert_null(strstr(json, "inf"));
    assert_null(strstr(json, "nan"));
    free(json);
}

static void test_number_format(void **state) {
    (void)state;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_number(&b, 0.1);
    attn_sb_puts(&b, " ");
    attn_sb_number(&b, 1.0 / 3.0);
    attn_sb_puts(&b, " ");
    attn_sb_number(&b, -INFINITY);
    attn_sb_puts(&b, " ");
    attn_sb_number(&b, 1e18);
    assert_string_equal(b.data, "0.1 0.3333333333333333 null 1e+18");
    attn_sb_json_string(&b, "a\"b\\c\n,", 7);
    assert_non_null(strstr(b.data, "\"a\\\"b\\\\c\\n,\""));
    attn_sb_free(&b);
    attn_sb_free(NULL);
}

/* Parses text and expects failure with a message containing want. */
static void expect_parse_error(const char *text, attn_status code, const char *want) {
    attn_weights_file f;
    attn_err err;
    attn_status st = attn_weights_file_parse(&f, text, strlen(text), "w.json", &err);
    if (st != code) fail_msg("parsing %s gave %d (%s), expected %d", text, st, err.msg, code);
    if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_weights_parse_errors(void **state) {
    (void)state;
    expect_parse_error("{\"X\": [[1, 2], [3]]}", ATTN_ERR_SHAPE, "ragged: row 1 has 1 entries, row 0 has 2");
    expect_parse_error("{\"X\": [[1, \"2\"]]}", ATTN_ERR_PARSE, "X[0][1] is not a number");
    expect_parse_error("{\"X\": [[1, NaN]]}", ATTN_ERR_PARSE, "w.json:1:12: this is not valid JSON");
    expect_parse_error("{\"X\": [[1, 1e400]]}", ATTN_ERR_NONFINITE, "X[0][1] is too large");
    expect_parse_error("{\"X\": [[1, 1e300]]}", ATTN_ERR_RANGE, "at most 1e18");
    expect_parse_error("{\"X\": [[1, 2]],\n \"Wq\": 3}", ATTN_ERR_PARSE, "Wq is not a key attnviz knows");
    expect_parse_error("{\"heads\": [{\"W_q\": [[1]]}]}", ATTN_ERR_PARSE, "heads[0].W_q is not a key");
    expect_parse_error("{\"heads\": [{\"b_Q\": [[1]]}]}", ATTN_ERR_PARSE, "heads[0].b_Q[0] is not a number");
    expect_parse_error("{\"X\": [1, 2]}", ATTN_ERR_SHAPE, "rows of numbers");
    expect_parse_error("{\"X\": []}", ATTN_ERR_SHAPE, "non-empty");
    expect_parse_error("{\"X\": [[1, 2]", ATTN_ERR_PARSE, "not valid JSON");
    expect_parse_error("[1, 2]", ATTN_ERR_PARSE, "must be a JSON object");
    expect_parse_error("\x01\x02\xff junk", ATTN_ERR_PARSE, "not valid JSON");
    expect_parse_error("{\"heads\": [{},{},{},{},{},{},{},{},{}]}", ATTN_ERR_RANGE, "at most 8");
    // deep nesting is refused by the parser rather than overflowing the stack
    char deep[6000];
    memset(deep, '[', 3000);
    memset(deep + 3000, ']', 2999);
    deep[5999] = '\0';
    char *text = malloc(7000);
    snprintf(text, 7000, "{\"X\": %s}", deep);
    expect_parse_error(text, ATTN_ERR_PARSE, "not valid JSON");
    free(text);
}

static void test_weights_bind_errors(void **state) {
    (void)state;
    attn_config c;
    attn_config_default(&c);
    attn_weights_file f;
    attn_weights w;
    attn_err err;
    const char *text = "{\"heads\": [{\"W_Q\": [[1, 2, 3]]}]}";
    assert_int_equal(attn_weights_file_parse(&f, text, strlen(text), "w.json", &err), ATTN_OK);
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, 5, "w.json", &err), ATTN_ERR_SHAPE);
    assert_string_equal(err.msg, "w.json: heads[0].W_Q is 1x3 but needs to be 8x4 (d_model 8 x d_k 4).");
    attn_weights_file_free(&f);
    text = "{\"X\": [[1, 2, 3, 4, 5, 6, 7, 8]]}";
    assert_int_equal(attn_weights_file_parse(&f, text, strlen(text), "w.json", &err), ATTN_OK);
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, 5, "w.json", &err), ATTN_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "X is 1x8 but needs to be 5x8 (5 tokens"));
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, 1, "w.json", &err), ATTN_OK);
    assert_non_null(w.x);
    assert_null(w.mat[ATTN_MAT_W_Q][0]);
    attn_weights_file_free(&f);
    text = "{\"b_O\": [1, 2]}";
    assert_int_equal(attn_weights_file_parse(&f, text, strlen(text), "w.json", &err), ATTN_OK);
    assert_int_equal(attn_weights_file_bind(&w, &f, &c, 1, "w.json", &err), ATTN_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "b_O has 2 numbers but needs 8"));
    attn_weights_file_free(&f);
}

/* Exactly one JSON value: a BOM before it and whitespace after are fine,
 * anything more is refused at its offset. */
static void test_parse_one_value(void **state) {
    (void)state;
    size_t stop = 99;
    bool more = true;
    struct cJSON *root = attn_json_parse_one("\xEF\xBB\xBF {\"a\": 1} \r\n\t", 16, &stop, &more);
    assert_non_null(root);
    cJSON_Delete(root);
    assert_null(attn_json_parse_one("{} {}", 5, &stop, &more));
    assert_true(more);
    assert_int_equal(stop, 3);
    assert_null(attn_json_parse_one("{} x", 4, &stop, &more));
    assert_true(more);
    assert_null(attn_json_parse_one("{\"a\": }", 8, &stop, &more));
    assert_false(more);
    assert_int_equal(stop, 6);
    assert_null(attn_json_parse_one("{}\0", 3, &stop, &more)); // a NUL after the value is not whitespace
    assert_true(more);
    int line, col;
    attn_json_position("\xEF\xBB\xBF{\n  x", 7, &line, &col); // the mark is not a column
    assert_int_equal(line, 2);
    assert_int_equal(col, 3);
}

static void test_read_file_errors(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    attn_err err;
    assert_int_equal(attn_read_file("/nonexistent/attnviz.json", 100, &buf, &len, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "No such file"));
    assert_int_equal(attn_read_file("/tmp", 100, &buf, &len, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "is a folder"));
    char path[] = "/tmp/attnviz-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0123456789", 10), 10);
    close(fd);
    assert_int_equal(attn_read_file(path, 5, &buf, &len, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "at most 5"));
    assert_int_equal(attn_read_file(path, 100, &buf, &len, &err), ATTN_OK);
    assert_int_equal(len, 10);
    assert_string_equal(buf, "0123456789");
    free(buf);
    // atomic write replaces the file whole and leaves no temporary behind
    assert_int_equal(attn_write_file(path, "new", 3, NULL, &err), ATTN_OK);
    assert_int_equal(attn_read_file(path, 100, &buf, &len, &err), ATTN_OK);
    assert_string_equal(buf, "new");
    free(buf);
    unlink(path);
    assert_int_equal(attn_write_file("/nonexistent/dir/out.json", "x", 1, NULL, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "Cannot write /nonexistent/dir/out.json"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_round_trip_is_identical),
        cmocka_unit_test(test_dump_shape),
        cmocka_unit_test(test_dump_tiles),
        cmocka_unit_test(test_number_format),
        cmocka_unit_test(test_weights_parse_errors),
        cmocka_unit_test(test_weights_bind_errors),
        cmocka_unit_test(test_parse_one_value),
        cmocka_unit_test(test_read_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
