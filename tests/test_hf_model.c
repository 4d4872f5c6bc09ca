/* test_hf_model.c — the GPT-2 of --hf against an independent PyTorch float64
 * forward (tests/data/hf/gen_hf_reference.py): every stage of every layer
 * and head and the ten next tokens, on F32, F16 and BF16 files, with and
 * without the "transformer." prefix, tied and untied lm_head, a vocab.txt
 * model with 12 heads. Agreement: |a - b| <= 1e-9 * max(1, |b|). And the
 * refusals: a missing tensor, a shape that disagrees with config.json, an
 * architecture other than GPT-2, a dtype the weights cannot have; and the
 * kernel's promise: F64 weights give the core's attn_matmul bit for bit. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"
#include "test_ref.h"
#include "attn.h"
#include "fileio.h"
#include "hf_model.h"

#define TOL 1e-9

static void check_case(const char *name, int want_heads) {
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/hf/%s", ATTN_TEST_DATA, name);
    snprintf(path, sizeof path, "%s/reference.json", dir);
    cJSON *ref = ref_json(path);
    hf_model m;
    attn_err err;
    if (hf_model_open(&m, dir, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_int_equal(m.cfg.n_head, want_heads);
    // the tokenizer gives the reference's ids
    const cJSON *sentence = cJSON_GetObjectItem(ref, "sentence"), *ids = cJSON_GetObjectItem(ref, "token_ids");
    hf_tokens toks = {0};
    if (hf_model_tokenize(&m, sentence->valuestring, strlen(sentence->valuestring), false, &toks, &err) != ATTN_OK)
        fail_msg("%s", err.msg);
    int n = cJSON_GetArraySize(ids), id[HF_MAX_TOKENS];
    assert_int_equal(toks.count, n);
    for (int i = 0; i < n; i++) {
        id[i] = cJSON_GetArrayItem(ids, i)->valueint;
        assert_int_equal(toks.v[i].id, id[i]);
    }
    hf_tokens_free(&toks);
    hf_run r = {0};
    if (hf_forward(&r, &m, id, n, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const cJSON *layers = cJSON_GetObjectItem(ref, "layers");
    assert_int_equal(cJSON_GetArraySize(layers), r.n_layer);
    static const char *const head_keys[] = {"Q", "K", "V", "scores", "scaled", "masked", "weights", "Z"};
    for (int l = 0; l < r.n_layer; l++) {
        const cJSON *L = cJSON_GetArrayItem(layers, l);
        hf_layer_run *R = &r.layer[l];
        char what[96];
#define LAYER(key, ptr) (snprintf(what, sizeof what, "%s layer %d %s", name, l, key), \
                         ref_compare(what, ptr, n, r.d, cJSON_GetObjectItem(L, key), TOL))
        LAYER("resid_pre", R->resid_pre);
        LAYER("X", R->x);
        LAYER("concat", R->concat);
        LAYER("output", R->output);
        LAYER("resid_mid", R->resid_mid);
        LAYER("mlp_out", R->mlp_out);
        LAYER("residual", R->residual);
#undef LAYER
        const cJSON *heads = cJSON_GetObjectItem(L, "heads");
        assert_int_equal(cJSON_GetArraySize(heads), r.n_head);
        for (int h = 0; h < r.n_head; h++) {
            const attn_head *hd = &R->head[h];
            const double *stage[] = {hd->q, hd->k, hd->v, hd->scores, hd->scaled, hd->masked, hd->weights, hd->z};
            for (int s = 0; s < 8; s++) {
                bool square = s >= 3 && s <= 6;
                snprintf(what, sizeof what, "%s layer %d head %d %s", name, l, h, head_keys[s]);
                ref_compare(what, stage[s], n, square ? n : r.d_k, cJSON_GetObjectItem(cJSON_GetArrayItem(heads, h), head_keys[s]), TOL);
            }
        }
    }
    const cJSON *next = cJSON_GetObjectItem(ref, "next");
    assert_int_equal(cJSON_GetArraySize(next), r.next_count);
    for (int k = 0; k < r.next_count; k++) {
        const cJSON *e = cJSON_GetArrayItem(next, k);
        assert_int_equal(r.next_id[k], cJSON_GetObjectItem(e, "id")->valueint);
        assert_close_tol(r.next_p[k], cJSON_GetObjectItem(e, "p")->valuedouble, TOL);
        char *label = hf_model_piece_label(&m, r.next_id[k]);
        assert_non_null(label);
        free(label);
    }
    hf_run_free(&r);
    hf_model_free(&m);
    cJSON_Delete(ref);
}

static void test_f32_prefix_tied(void **state) {
    (void)state;
    check_case("f32_prefix_tied", 2);
}

static void test_f16_bare_untied(void **state) {
    (void)state;
    check_case("f16_bare_untied", 4);
}

static void test_bf16_prefix_eps(void **state) {
    (void)state;
    check_case("bf16_prefix_eps", 2);
}

static void test_wordpiece_12heads(void **state) {
    (void)state;
    check_case("wordpiece_12heads", 12);
}

/* ---- refusals: a folder made here from a case's files --------------------- */

static void copy_file(const char *from_dir, const char *to_dir, const char *name) {
    char a[600], b[600], *text = NULL;
    size_t len;
    attn_err err;
    snprintf(a, sizeof a, "%s/%s", from_dir, name);
    snprintf(b, sizeof b, "%s/%s", to_dir, name);
    if (attn_read_file(a, 1u << 24, &text, &len, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (attn_write_file(b, text, len, b, &err) != ATTN_OK) fail_msg("%s", err.msg);
    free(text);
}

static void write_text(const char *dir, const char *name, const char *text) {
    char p[600];
    attn_err err;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (attn_write_file(p, text, strlen(text), p, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

/* A folder with f32_prefix_tied's tokenizer and weights and this config. */
static void make_folder(char *dir, size_t cap, const char *config) {
    char src[512];
    snprintf(src, sizeof src, "%s/hf/f32_prefix_tied", ATTN_TEST_DATA);
    snprintf(dir, cap, "/tmp/attnviz_test_hf_XXXXXX");
    assert_non_null(mkdtemp(dir));
    copy_file(src, dir, "vocab.json");
    copy_file(src, dir, "merges.txt");
    copy_file(src, dir, "model.safetensors");
    write_text(dir, "config.json", config);
}

static void remove_folder(const char *dir) {
    static const char *const names[] = {"vocab.json", "merges.txt", "model.safetensors", "config.json"};
    char p[600];
    for (size_t i = 0; i < 4; i++) snprintf(p, sizeof p, "%s/%s", dir, names[i]), unlink(p);
    rmdir(dir);
}

static void expect_refusal(const char *config, attn_status code, const char *words) {
    char dir[64];
    make_folder(dir, sizeof dir, config);
    hf_model m;
    attn_err err;
    assert_int_equal(hf_model_open(&m, dir, &err), code);
    if (!strstr(err.msg, words)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, words);
    assert_null(m.block); // left empty
    remove_folder(dir);
}

#define BASE "\"vocab_size\": 272, \"n_positions\": 16, \"n_head\": 2, \"n_inner\": null"

static void test_refuses_missing_tensor(void **state) {
    (void)state;
    expect_refusal("{" BASE ", \"n_embd\": 8, \"n_layer\": 3}", ATTN_ERR_SHAPE, "no tensor \"h.2.ln_1.weight\"");
}

static void test_refuses_shape_mismatch(void **state) {
    (void)state;
    expect_refusal("{" BASE ", \"n_embd\": 10, \"n_layer\": 2}", ATTN_ERR_SHAPE,
                   "\"transformer.wte.weight\" has shape [272, 8]; config.json says [272, 10]");
    expect_refusal("{" BASE ", \"n_embd\": 8, \"n_layer\": 2, \"tie_word_embeddings\": false}", ATTN_ERR_SHAPE,
                   "no tensor \"lm_head.weight\"");
}

static void test_refuses_architecture(void **state) {
    (void)state;
    expect_refusal("{" BASE ", \"n_embd\": 8, \"n_layer\": 2, \"model_type\": \"llama\"}", ATTN_ERR_PARSE,
                   "GPT-2 blocks only");
    expect_refusal("{" BASE ", \"n_embd\": 8, \"n_layer\": 2, \"architectures\": [\"BertModel\"]}", ATTN_ERR_PARSE,
                   "GPT-2 blocks only");
    expect_refusal("{" BASE ", \"n_embd\": 8, \"n_layer\": 2, \"activation_function\": \"gelu\"}", ATTN_ERR_PARSE,
                   "activation_function \"gelu\"");
    expect_refusal("{" BASE ", \"n_embd\": 8, \"n_layer\": 2, \"scale_attn_by_inverse_layer_idx\": true}",
                   ATTN_ERR_PARSE, "scale_attn_by_inverse_layer_idx");
    expect_refusal("{" BASE ", \"n_embd\": 9, \"n_layer\": 2}", ATTN_ERR_RANGE, "not a multiple of n_head");
    expect_refusal("[1, 2]", ATTN_ERR_PARSE, "not a model configuration");
}

/* A safetensors file whose wte is U8. */
static void test_refuses_dtype(void **state) {
    (void)state;
    char dir[64];
    make_folder(dir, sizeof dir, "{\"vocab_size\": 4, \"n_positions\": 2, \"n_embd\": 2, \"n_head\": 1, \"n_layer\": 1}");
    char header[] = "{\"wte.weight\":{\"dtype\":\"U8\",\"shape\":[4,2],\"data_offsets\":[0,8]}}";
    size_t hl = strlen(header), total = 8 + hl + 8;
    unsigned char *file = calloc(1, total);
    for (int i = 0; i < 8; i++) file[i] = (unsigned char)(hl >> (8 * i));
    memcpy(file + 8, header, hl);
    char p[600];
    attn_err err;
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    unlink(p);
    if (attn_write_file(p, file, total, p, &err) != ATTN_OK) fail_msg("%s", err.msg);
    free(file);
    hf_model m;
    assert_int_equal(hf_model_open(&m, dir, &err), ATTN_ERR_PARSE);
    if (!strstr(err.msg, "\"wte.weight\" has dtype U8")) fail_msg("message: %s", err.msg);
    remove_folder(dir);
}

static void test_config_defaults(void **state) {
    (void)state;
    hf_config c;
    attn_err err;
    const char *t = "{\"model_type\": \"gpt2\"}";
    assert_int_equal(hf_config_parse(&c, t, strlen(t), "config.json", &err), ATTN_OK);
    assert_int_equal(c.n_layer, 12);
    assert_int_equal(c.n_head, 12);
    assert_int_equal(c.n_embd, 768);
    assert_int_equal(c.n_inner, 3072);
    assert_int_equal(c.n_positions, 1024);
    assert_int_equal(c.vocab_size, 50257);
    assert_true(c.eps == 1e-5);
    assert_int_equal(c.act, HF_ACT_GELU_NEW);
    assert_true(c.tie);
}

/* F64 weights through hf_matmul equal the core's attn_matmul bit for bit. */
static void test_matmul_is_the_cores(void **state) {
    (void)state;
    enum { N = 3,
           K = 5,
           COLS = 7,
           COL0 = 2,
           M = 4 };
    double a[N * K], w[K * COLS], bias[COLS], wsub[K * M], out[N * M], core[N * M], row[M];
    for (int i = 0; i < N * K; i++) a[i] = attn_prng_uniform(3, 0, (uint64_t)i, 1.0);
    for (int i = 0; i < K * COLS; i++) w[i] = attn_prng_uniform(3, 1, (uint64_t)i, 1.0);
    for (int i = 0; i < COLS; i++) bias[i] = attn_prng_uniform(3, 2, (uint64_t)i, 1.0);
    for (int c = 0; c < K; c++)
        for (int j = 0; j < M; j++) wsub[c * M + j] = w[c * COLS + COL0 + j];
    st_tensor tw = {.dtype = ST_F64, .rank = 2, .shape = {K, COLS}, .count = K * COLS, .data = (const unsigned char *)w};
    st_tensor tb = {.dtype = ST_F64, .rank = 1, .shape = {COLS}, .count = COLS, .data = (const unsigned char *)bias};
    hf_matmul(out, a, &tw, &tb, COL0, N, K, M, row);
    attn_matmul(core, a, wsub, bias + COL0, N, K, M);
    assert_memory_equal(out, core, sizeof out);
    // a product big enough to be split between two threads: still attn_matmul's bits
    enum { BN = 16,
           BK = 256,
           BM = 258 };
    double *ba = malloc(sizeof(double) * BN * BK), *bw = malloc(sizeof(double) * BK * BM);
    double *bo = malloc(sizeof(double) * BN * BM), *bc = malloc(sizeof(double) * BN * BM), *brow = malloc(sizeof(double) * BM);
    assert_true(ba && bw && bo && bc && brow);
    for (int i = 0; i < BN * BK; i++) ba[i] = attn_prng_uniform(4, 0, (uint64_t)i, 1.0);
    for (int i = 0; i < BK * BM; i++) bw[i] = attn_prng_uniform(4, 1, (uint64_t)i, 1.0);
    st_tensor tbw = {.dtype = ST_F64, .rank = 2, .shape = {BK, BM}, .count = BK * BM, .data = (const unsigned char *)bw};
    hf_matmul(bo, ba, &tbw, NULL, 0, BN, BK, BM, brow);
    attn_matmul(bc, ba, bw, NULL, BN, BK, BM);
    assert_memory_equal(bo, bc, sizeof(double) * BN * BM);
    free(ba), free(bw), free(bo), free(bc), free(brow);
    // F16 holds 1.5 and -0.25 exactly; BF16 too
    unsigned char h[4] = {0x00, 0x3e, 0x00, 0xb4}, bf[4] = {0xc0, 0x3f, 0x80, 0xbe};
    double v[2];
    st_tensor th = {.dtype = ST_F16, .rank = 1, .shape = {2}, .count = 2, .data = h};
    st_tensor tbf = {.dtype = ST_BF16, .rank = 1, .shape = {2}, .count = 2, .data = bf};
    hf_tensor_read(&th, 0, 2, v);
    assert_true(v[0] == 1.5 && v[1] == -0.25);
    hf_tensor_read(&tbf, 0, 2, v);
    assert_true(v[0] == 1.5 && v[1] == -0.25);
}

/* Every head of a model with F16 weights equals the core's attn_head_forward
 * run on the same X with the head's weights as doubles, bit for bit: F16 to
 * double is exact, and the order of every sum is the core's. */
static void test_heads_are_the_cores(void **state) {
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/hf/f16_bare_untied", ATTN_TEST_DATA);
    hf_model m;
    attn_err err;
    if (hf_model_open(&m, dir, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int ids[5] = {3, 270, 61, 99, 12};
    hf_run r = {0};
    if (hf_forward(&r, &m, ids, 5, &err) != ATTN_OK) fail_msg("%s", err.msg);
    int n = r.n, d = r.d, dk = r.d_k;
    size_t nn = (size_t)n * n, ndk = (size_t)n * dk;
    double *buf = malloc(sizeof(double) * (3 * (size_t)d * dk + 3 * (size_t)dk + 5 * nn + 4 * ndk));
    assert_non_null(buf);
    for (int l = 0; l < r.n_layer; l++)
        for (int h = 0; h < r.n_head; h++) {
            attn_head core;
            double *p = buf, **w[] = {&core.w_q, &core.w_k, &core.w_v}, **b[] = {&core.b_q, &core.b_k, &core.b_v};
            for (int k = 0; k < 3; k++) {
                *w[k] = p;
                for (int row = 0; row < d; row++, p += dk)
                    hf_tensor_read(m.block[l].attn_w, (size_t)row * 3 * d + (size_t)(k * d + h * dk), (size_t)dk, p);
                *b[k] = p;
                hf_tensor_read(m.block[l].attn_b, (size_t)(k * d + h * dk), (size_t)dk, p);
                p += dk;
            }
            core.q = p, p += ndk, core.k = p, p += ndk, core.v = p, p += ndk, core.z = p, p += ndk;
            core.scores = p, p += nn, core.scaled = p, p += nn, core.masked = p, p += nn, core.weights = p;
            assert_int_equal(attn_head_forward(&core, r.layer[l].x, n, &r.acfg, &err), ATTN_OK);
            const attn_head *hf = &r.layer[l].head[h];
            assert_memory_equal(hf->q, core.q, sizeof(double) * ndk);
            assert_memory_equal(hf->k, core.k, sizeof(double) * ndk);
            assert_memory_equal(hf->v, core.v, sizeof(double) * ndk);
            assert_memory_equal(hf->scores, core.scores, sizeof(double) * nn);
            assert_memory_equal(hf->masked, core.masked, sizeof(double) * nn);
            assert_memory_equal(hf->weights, core.weights, sizeof(double) * nn);
            assert_memory_equal(hf->z, core.z, sizeof(double) * ndk);
        }
    free(buf);
    hf_run_free(&r);
    hf_model_free(&m);
}

static void test_gelu_and_layer_norm(void **state) {
    (void)state;
    // hand-computed: gelu_new(1) = 0.5·(1 + tanh(√(2/π)·1.044715)) = 0.8411919906082768
    assert_close_tol(hf_gelu_new(1.0), 0.8411919906082768, 1e-15);
    assert_close_tol(hf_gelu_new(-1.0), -0.15880800939172324, 1e-15);
    assert_true(hf_gelu_new(0.0) == 0.0);
    // x = (1, 3): mean 2, var 1, so (−1, 1)/√(1 + ε)
    double x[2] = {1, 3}, w[2] = {1, 2}, b[2] = {0, 0.5}, out[2];
    hf_layer_norm(out, x, w, b, 0.0, 1, 2);
    assert_true(out[0] == -1.0 && out[1] == 2.5);
}

static void test_forward_refuses_bad_ids(void **state) {
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/hf/f32_prefix_tied", ATTN_TEST_DATA);
    hf_model m;
    attn_err err;
    if (hf_model_open(&m, dir, &err) != ATTN_OK) fail_msg("%s", err.msg);
    hf_run r = {0};
    int ids[17] = {0};
    assert_int_equal(hf_forward(&r, &m, ids, 17, &err), ATTN_ERR_RANGE); // n_positions 16
    ids[0] = 272;
    assert_int_equal(hf_forward(&r, &m, ids, 1, &err), ATTN_ERR_RANGE);
    assert_null(r.block_);
    hf_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_prefix_tied),
        cmocka_unit_test(test_f16_bare_untied),
        cmocka_unit_test(test_bf16_prefix_eps),
        cmocka_unit_test(test_wordpiece_12heads),
        cmocka_unit_test(test_refuses_missing_tensor),
        cmocka_unit_test(test_refuses_shape_mismatch),
        cmocka_unit_test(test_refuses_architecture),
        cmocka_unit_test(test_refuses_dtype),
        cmocka_unit_test(test_config_defaults),
        cmocka_unit_test(test_matmul_is_the_cores),
        cmocka_unit_test(test_heads_are_the_cores),
        cmocka_unit_test(test_gelu_and_layer_norm),
        cmocka_unit_test(test_forward_refuses_bad_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
