#include "hf_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if !defined(__EMSCRIPTEN__)
#define HF_THREADS 1 /* two threads for the big products (the browser build has one) */
#include <pthread.h>
#else
#define HF_THREADS 0
#endif

#include <cjson/cJSON.h>

#include "attn_json.h"
#include "attn_math.h"
#include "fileio.h"
#include "strbuf.h"
#include "utf8.h"

#define CONFIG_MAX ((size_t)1 << 20) /* config.json is a few hundred bytes */

/* ---- config.json -------------------------------------------------------------- */

/* An integer field: absent or null keeps *out (the default). */
static attn_status int_field(const cJSON *root, const char *key, int lo, int hi, int *out, const char *shown,
                             attn_err *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!v || cJSON_IsNull(v)) return ATTN_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_HF_CFG_WHOLE, shown, key, lo, hi);
    *out = (int)v->valuedouble;
    return ATTN_OK;
}

static attn_status bool_field(const cJSON *root, const char *key, bool *out, const char *shown, attn_err *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!v || cJSON_IsNull(v)) return ATTN_OK;
    if (!cJSON_IsBool(v)) return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_CFG_BOOL, shown, key);
    *out = cJSON_IsTrue(v);
    return ATTN_OK;
}

/* model_type and architectures name GPT-2, or say nothing. */
static attn_status check_architecture(const cJSON *root, const char *shown, attn_err *err) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (type && !(cJSON_IsString(type) && strcmp(type->valuestring, "gpt2") == 0))
        return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_CFG_MODEL_TYPE,
                            shown, cJSON_IsString(type) ? type->valuestring : "?");
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(root, "architectures"), *a;
    cJSON_ArrayForEach(a, arch) {
        if (!cJSON_IsString(a) || strncmp(a->valuestring, "GPT2", 4) != 0)
            return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_CFG_ARCH,
                                shown, cJSON_IsString(a) ? a->valuestring : "?");
    }
    return ATTN_OK;
}

static attn_status parse_tree(hf_config *c, const cJSON *root, const char *shown, attn_err *err) {
    attn_status st = check_architecture(root, shown, err);
    // Hugging Face's GPT2Config defaults (GPT-2 small)
    c->n_layer = 12, c->n_head = 12, c->n_embd = 768, c->n_positions = 1024, c->vocab_size = 50257;
    c->n_inner = 0, c->eps = 1e-5, c->act = HF_ACT_GELU_NEW, c->tie = true, c->scale = true;
    snprintf(c->act_name, sizeof c->act_name, "gelu_new");
    if (st == ATTN_OK) st = int_field(root, "n_layer", 1, HF_MAX_LAYERS, &c->n_layer, shown, err);
    if (st == ATTN_OK) st = int_field(root, "n_head", 1, HF_MAX_HEADS, &c->n_head, shown, err);
    if (st == ATTN_OK) st = int_field(root, "n_embd", 1, HF_MAX_WIDTH, &c->n_embd, shown, err);
    if (st == ATTN_OK) st = int_field(root, "n_positions", 1, 1 << 20, &c->n_positions, shown, err);
    if (st == ATTN_OK) st = int_field(root, "vocab_size", 1, 1 << 24, &c->vocab_size, shown, err);
    if (st == ATTN_OK) st = int_field(root, "n_inner", 1, HF_MAX_WIDTH, &c->n_inner, shown, err);
    if (st == ATTN_OK) st = bool_field(root, "tie_word_embeddings", &c->tie, shown, err);
    if (st == ATTN_OK) st = bool_field(root, "scale_attn_weights", &c->scale, shown, err);
    if (st != ATTN_OK) return st;
    if (c->n_inner == 0) c->n_inner = 4 * c->n_embd;
    if (c->n_embd % c->n_head != 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_HF_CFG_HEADS_DIVIDE, shown, c->n_embd,
                            c->n_head);
    const cJSON *eps = cJSON_GetObjectItemCaseSensitive(root, "layer_norm_epsilon");
    if (eps && !cJSON_IsNull(eps)) {
        if (!cJSON_IsNumber(eps) || !(eps->valuedouble > 0) || eps->valuedouble > 1)
            return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_HF_CFG_EPS,
                                shown);
        c->eps = eps->valuedouble;
    }
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(root, "activation_function");
    if (act && !cJSON_IsNull(act)) {
        const char *a = cJSON_IsString(act) ? act->valuestring : "?";
        if (strcmp(a, "gelu_new") == 0 || strcmp(a, "gelu_pytorch_tanh") == 0) c->act = HF_ACT_GELU_NEW;
        else if (strcmp(a, "relu") == 0) c->act = HF_ACT_RELU;
        else
            return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_CFG_ACT,
                                shown, a);
        snprintf(c->act_name, sizeof c->act_name, "%.31s", a);
    }
    static const char *const unsupported[] = {"scale_attn_by_inverse_layer_idx", "add_cross_attention",
                                              "reorder_and_upcast_attn"};
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
        bool on = false;
        st = bool_field(root, unsupported[i], &on, shown, err);
        if (st != ATTN_OK) return st;
        if (on && i < 2)
            return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_CFG_UNSUPPORTED,
                                shown, unsupported[i]);
    }
    return ATTN_OK;
}

attn_status hf_config_parse(hf_config *c, const char *text, size_t len, const char *shown, attn_err *err) {
    size_t stop = 0;
    bool more = false;
    cJSON *root = attn_json_parse_one(text, len, &stop, &more);
    if (!root || !cJSON_IsObject(root)) {
        int line = 1, col = 1;
        attn_json_position(text, stop, &line, &col);
        cJSON_Delete(root);
        return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_CFG_NOT_OBJECT,
                            shown, line, col);
    }
    attn_status st = parse_tree(c, root, shown, err);
    cJSON_Delete(root);
    return st;
}

/* ---- the tensors ---------------------------------------------------------------- */

/* The tensor name (with or without "transformer."), a float dtype, shape
 * [rows, cols] (rows 0: a vector of cols). */
static attn_status need(const hf_model *m, const char *name, uint64_t rows, uint64_t cols, const st_tensor **out,
                        attn_err *err) {
    attn_status st = st_file_require(&m->file, name, out, err);
    if (st != ATTN_OK) return st;
    const st_tensor *t = *out;
    *out = NULL;
    char shown[160]; // a key may hold control characters: shown, not obeyed
    utf8_visible(shown, sizeof shown, t->name, strlen(t->name));
    if (!st_dtype_is_float(t->dtype))
        return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_HF_TENSOR_DTYPE_WEIGHTS,
                            m->file.shown, shown, t->dtype_name);
    bool ok = rows ? t->rank == 2 && t->shape[0] == rows && t->shape[1] == cols : t->rank == 1 && t->shape[0] == cols;
    if (!ok) {
        char got[96] = "[", want[48];
        for (int i = 0; i < t->rank; i++) {
            size_t at = strlen(got);
            snprintf(got + at, sizeof got - at, "%s%llu", i ? ", " : "", (unsigned long long)t->shape[i]);
        }
        strncat(got, "]", sizeof got - strlen(got) - 1);
        if (rows) snprintf(want, sizeof want, "[%llu, %llu]", (unsigned long long)rows, (unsigned long long)cols);
        else snprintf(want, sizeof want, "[%llu]", (unsigned long long)cols);
        return attn_fail_id(err, ATTN_ERR_SHAPE, ATTN_MSG_HF_TENSOR_SHAPE, m->file.shown,
                            shown, got, want);
    }
    *out = t;
    return ATTN_OK;
}

static attn_status bind_tensors(hf_model *m, attn_err *err) {
    const hf_config *c = &m->cfg;
    uint64_t d = (uint64_t)c->n_embd, in = (uint64_t)c->n_inner;
    attn_status st = need(m, "wte.weight", (uint64_t)c->vocab_size, d, &m->wte, err);
    if (st == ATTN_OK) st = need(m, "wpe.weight", (uint64_t)c->n_positions, d, &m->wpe, err);
    if (st == ATTN_OK) st = need(m, "ln_f.weight", 0, d, &m->lnf_w, err);
    if (st == ATTN_OK) st = need(m, "ln_f.bias", 0, d, &m->lnf_b, err);
    if (st == ATTN_OK && c->tie) m->unembed = m->wte;
    else if (st == ATTN_OK) st = need(m, "lm_head.weight", (uint64_t)c->vocab_size, d, &m->unembed, err);
    for (int l = 0; l < c->n_layer && st == ATTN_OK; l++) {
        hf_block *b = &m->block[l];
        struct {
            const char *name;
            uint64_t rows, cols;
            const st_tensor **out;
        } want[] = {
            {"ln_1.weight", 0, d, &b->ln1_w},
            {"ln_1.bias", 0, d, &b->ln1_b},
            {"attn.c_attn.weight", d, 3 * d, &b->attn_w},
            {"attn.c_attn.bias", 0, 3 * d, &b->attn_b},
            {"attn.c_proj.weight", d, d, &b->attn_proj_w},
            {"attn.c_proj.bias", 0, d, &b->attn_proj_b},
            {"ln_2.weight", 0, d, &b->ln2_w},
            {"ln_2.bias", 0, d, &b->ln2_b},
            {"mlp.c_fc.weight", d, in, &b->fc_w},
            {"mlp.c_fc.bias", 0, in, &b->fc_b},
            {"mlp.c_proj.weight", in, d, &b->mlp_proj_w},
            {"mlp.c_proj.bias", 0, d, &b->mlp_proj_b},
        };
        for (size_t i = 0; i < sizeof want / sizeof *want && st == ATTN_OK; i++) {
            char name[64];
            snprintf(name, sizeof name, "h.%d.%s", l, want[i].name);
            st = need(m, name, want[i].rows, want[i].cols, want[i].out, err);
        }
    }
    return st;
}

/* ---- the folder ----------------------------------------------------------------- */

static char *join(const char *dir, const char *file) {
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, file);
    return p;
}

static bool exists(const char *path) {
    struct stat sb;
    return path && stat(path, &sb) == 0;
}

static attn_status open_tokenizer(hf_model *m, attn_err *err) {
    attn_status st = ATTN_ERR_NOMEM;
    char *vj = join(m->dir, "vocab.json"), *mt = join(m->dir, "merges.txt"), *vt = join(m->dir, "vocab.txt");
    int ids = 0;
    if (!vj || !mt || !vt) st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    else if (exists(vj) && exists(mt)) {
        st = hf_bpe_load(&m->bpe, vj, mt, err);
        if (st == ATTN_OK) ids = hf_bpe_vocab_size(m->bpe);
    } else if (exists(vt)) {
        st = hf_wordpiece_load(&m->wordpiece, vt, err);
        if (st == ATTN_OK) ids = hf_wordpiece_vocab_size(m->wordpiece);
    } else
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_HF_NO_TOKENIZER,
                          m->dir);
    if (st == ATTN_OK && ids > m->cfg.vocab_size)
        st = attn_fail_id(err, ATTN_ERR_SHAPE, ATTN_MSG_HF_TOKENIZER_IDS, m->dir,
                          ids, m->cfg.vocab_size);
    free(vj), free(mt), free(vt);
    return st;
}

attn_status hf_model_open(hf_model *m, const char *dir, attn_err *err) {
    memset(m, 0, sizeof *m);
    char *text = NULL, *cfg_path = NULL, *st_path = NULL;
    size_t len = 0;
    attn_status st = ATTN_ERR_NOMEM;
    m->dir = malloc(strlen(dir) + 1);
    if (m->dir) strcpy(m->dir, dir);
    cfg_path = join(dir, "config.json"), st_path = join(dir, "model.safetensors");
    if (!m->dir || !cfg_path || !st_path) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
        goto cleanup;
    }
    struct stat sb;
    if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_HF_NOT_FOLDER,
                          dir);
        goto cleanup;
    }
    st = attn_read_regular_file(cfg_path, CONFIG_MAX, &text, &len, err);
    if (st == ATTN_OK) st = hf_config_parse(&m->cfg, text, len, cfg_path, err);
    if (st == ATTN_OK) st = st_file_open(&m->file, st_path, err);
    if (st != ATTN_OK) goto cleanup;
    m->block = calloc((size_t)m->cfg.n_layer, sizeof *m->block);
    if (!m->block) {
        st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
        goto cleanup;
    }
    st = bind_tensors(m, err);
    if (st == ATTN_OK) st = open_tokenizer(m, err);
cleanup:
    free(text), free(cfg_path), free(st_path);
    if (st != ATTN_OK) hf_model_free(m);
    return st;
}

void hf_model_free(hf_model *m) {
    if (!m) return;
    st_file_free(&m->file);
    hf_bpe_free(m->bpe);
    hf_wordpiece_free(m->wordpiece);
    free(m->block);
    free(m->dir);
    memset(m, 0, sizeof *m);
}

attn_status hf_model_tokenize(const hf_model *m, const char *s, size_t len, bool bos, hf_tokens *out,
                              attn_err *err) {
    if (bos && !m->bpe)
        return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_HF_BOS_WORDPIECE,
                            m->dir);
    attn_status st = m->bpe ? hf_bpe_encode(m->bpe, s, len, bos, out, err)
                            : hf_wordpiece_encode(m->wordpiece, s, len, out, err);
    if (st != ATTN_OK) return st;
    int cap = m->cfg.n_positions < HF_MAX_TOKENS ? m->cfg.n_positions : HF_MAX_TOKENS;
    if (out->count > cap) {
        int n = out->count;
        hf_tokens_free(out);
        return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_HF_SENTENCE_TOKENS, n, cap);
    }
    if (out->count == 0) return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_HF_SENTENCE_NO_TOKENS);
    return ATTN_OK;
}

char *hf_model_piece_label(const hf_model *m, int id) {
    if (m->wordpiece) {
        const char *p = hf_wordpiece_piece(m->wordpiece, id);
        return p ? hf_label_bytes(p, strlen(p), 0, strlen(p)) : NULL;
    }
    size_t n = 0;
    const char *p = m->bpe ? hf_bpe_piece(m->bpe, id, &n) : NULL;
    if (!p) return NULL;
    if (utf8_find_invalid(p, n) == (size_t)-1) return hf_label_bytes(p, n, 0, n);
    // a piece of a character (or of several): its bytes in hex, as token labels show them
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "‹");
    for (size_t i = 0; i < n; i++) attn_sb_printf(&b, i ? " %02x" : "%02x", (unsigned char)p[i]);
    attn_sb_puts(&b, "›");
    return attn_sb_take(&b);
}

/* ---- kernels -------------------------------------------------------------------- */

void hf_tensor_read(const st_tensor *t, size_t first, size_t count, double *out) {
    const unsigned char *p = t->data + first * st_dtype_size(t->dtype);
    switch (t->dtype) {
    case ST_F32:
        for (size_t i = 0; i < count; i++) {
            float x;
            memcpy(&x, p + 4 * i, sizeof x); // little-endian hosts only (as the reader)
            out[i] = x;
        }
        break;
    case ST_F16:
        for (size_t i = 0; i < count; i++) out[i] = st_half_to_double((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
        break;
    case ST_BF16:
        for (size_t i = 0; i < count; i++) out[i] = st_bfloat16_to_double((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
        break;
    default:
        for (size_t i = 0; i < count; i++) memcpy(&out[i], p + 8 * i, sizeof(double));
        break;
    }
}

/* Columns [j0, j1) of hf_matmul's out (row: j1 - j0 doubles of scratch). */
static void matmul_cols(double *out, const double *a, const st_tensor *w, const st_tensor *bias, int col0, int n,
                        int k, int m, int j0, int j1, double *row) {
    size_t cols = (size_t)(w->rank == 2 ? w->shape[1] : 0);
    int mm = j1 - j0;
    if (bias) hf_tensor_read(bias, (size_t)(col0 + j0), (size_t)mm, row);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < mm; j++) out[(size_t)i * m + j0 + j] = bias ? row[j] : 0.0;
    // c outside i: each weight row is converted once; every out[i][j] still
    // adds its terms in c order, as attn_matmul does
    for (int c = 0; c < k; c++) {
        hf_tensor_read(w, (size_t)c * cols + (size_t)(col0 + j0), (size_t)mm, row);
        for (int i = 0; i < n; i++) {
            double aic = a[(size_t)i * k + c];
            double *o = out + (size_t)i * m + j0;
            for (int j = 0; j < mm; j++) o[j] += aic * row[j];
        }
    }
}

#if HF_THREADS
typedef struct {
    double *out;
    const double *a;
    const st_tensor *w, *bias;
    int col0, n, k, m, j0, j1;
    double *row;
} cols_job;

static void *cols_thread(void *p) {
    cols_job *j = p;
    matmul_cols(j->out, j->a, j->w, j->bias, j->col0, j->n, j->k, j->m, j->j0, j->j1, j->row);
    return NULL;
}
#endif

void hf_matmul(double *out, const double *a, const st_tensor *w, const st_tensor *bias, int col0, int n, int k,
               int m, double *row) {
#if HF_THREADS
    // a big product splits its columns between two threads: each column is
    // computed whole by one of them, in the same order, so the numbers do not change
    if ((long long)n * k * m >= (1LL << 20) && m >= 2) {
        int half = m / 2;
        double *row2 = malloc(sizeof(double) * (size_t)(m - half));
        cols_job job = {out, a, w, bias, col0, n, k, m, half, m, row2};
        pthread_t t;
        if (row2 && pthread_create(&t, NULL, cols_thread, &job) == 0) {
            matmul_cols(out, a, w, bias, col0, n, k, m, 0, half, row);
            pthread_join(t, NULL);
            free(row2);
            return;
        }
        free(row2);
    }
#endif
    matmul_cols(out, a, w, bias, col0, n, k, m, 0, m, row);
}

void hf_layer_norm(double *out, const double *x, const double *w, const double *b, double eps, int n, int d) {
    for (int i = 0; i < n; i++) {
        const double *xi = x + (size_t)i * d;
        double *oi = out + (size_t)i * d;
        // pass 1: mean; pass 2: the biased variance; pass 3: normalise, scale, shift
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < d; c++) mean += xi[c];
        mean /= d;
        for (int c = 0; c < d; c++) var += (xi[c] - mean) * (xi[c] - mean);
        var /= d;
        double inv = 1.0 / sqrt(var + eps);
        for (int c = 0; c < d; c++) oi[c] = (xi[c] - mean) * inv * w[c] + b[c];
    }
}

static double tanh_exp(double u) {
    // tanh through the project's exp, on |u| so that exp never overflows
    double e = attn_exp(-2.0 * fabs(u)), t = (1.0 - e) / (1.0 + e);
    return u < 0 ? -t : t;
}

double hf_gelu_new(double x) {
    const double k = 0.7978845608028654; // √(2/π)
    return 0.5 * x * (1.0 + tanh_exp(k * (x + 0.044715 * x * x * x)));
}

/* ---- the forward ------------------------------------------------------------------ */

void hf_run_free(hf_run *r) {
    if (!r) return;
    free(r->block_);
    free(r->heads_);
    free(r->layer);
    free(r->ids);
    memset(r, 0, sizeof *r);
}

static attn_status alloc_run(hf_run *r, const hf_model *m, int n, attn_err *err) {
    const hf_config *c = &m->cfg;
    int d = c->n_embd, H = c->n_head, dk = d / H, in = c->n_inner, V = c->vocab_size;
    r->n = n, r->n_layer = c->n_layer, r->n_head = H, r->d = d, r->d_k = dk, r->n_inner = in, r->vocab = V;
    size_t nd = (size_t)n * d, nn = (size_t)n * n, ndk = (size_t)n * dk;
    size_t per_head = 4 * ndk + 4 * nn, per_layer = 8 * nd + (size_t)n * in + H * per_head;
    size_t total = per_layer * c->n_layer + nd + 2 * (size_t)V;
    r->ids = malloc(sizeof *r->ids * (size_t)n);
    r->layer = calloc((size_t)c->n_layer, sizeof *r->layer);
    r->heads_ = calloc((size_t)c->n_layer * H, sizeof *r->heads_);
    r->block_ = malloc(sizeof(double) * total);
    if (!r->ids || !r->layer || !r->heads_ || !r->block_)
        return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory for the stages of %d layers on %d tokens.", c->n_layer, n);
    double *p = r->block_;
#define TAKE(ptr, count) (ptr = p, p += (count))
    for (int l = 0; l < c->n_layer; l++) {
        hf_layer_run *L = &r->layer[l];
        TAKE(L->resid_pre, nd), TAKE(L->x, nd), TAKE(L->concat, nd), TAKE(L->output, nd);
        TAKE(L->resid_mid, nd), TAKE(L->ln2, nd), TAKE(L->hidden, (size_t)n * in), TAKE(L->mlp_out, nd);
        TAKE(L->residual, nd);
        L->head = r->heads_ + (size_t)l * H;
        for (int h = 0; h < H; h++) {
            attn_head *hd = &L->head[h];
            TAKE(hd->q, ndk), TAKE(hd->k, ndk), TAKE(hd->v, ndk), TAKE(hd->scores, nn);
            TAKE(hd->scaled, nn), TAKE(hd->masked, nn), TAKE(hd->weights, nn), TAKE(hd->z, ndk);
        }
    }
    TAKE(r->final, nd), TAKE(r->logits, (size_t)V), TAKE(r->probs, (size_t)V);
#undef TAKE
    attn_config_default(&r->acfg);
    r->acfg.d_model = d, r->acfg.d_k = dk, r->acfg.heads = H, r->acfg.scale = c->scale;
    r->acfg.mask.kind = ATTN_MASK_CAUSAL;
    return ATTN_OK;
}

/* Rows [0, n) of the vector t into a scratch of d doubles (LayerNorm's w, b). */
static void read_vec(const st_tensor *t, double *out, int d) {
    hf_tensor_read(t, 0, (size_t)d, out);
}

static attn_status nonfinite(const double *v, size_t count, int l, const char *stage, attn_err *err) {
    for (size_t i = 0; i < count; i++)
        if (!isfinite(v[i])) return attn_fail(err, ATTN_ERR_NONFINITE, "Layer %d, %s: a value is not finite.", l, stage);
    return ATTN_OK;
}

static attn_status run_block(hf_run *r, const hf_model *m, int l, const double *in, double *scratch, double *qkv,
                             attn_err *err) {
    const hf_block *b = &m->block[l];
    hf_layer_run *L = &r->layer[l];
    int n = r->n, d = r->d, dk = r->d_k, H = r->n_head, inner = r->n_inner;
    size_t nd = (size_t)n * d;
    double *w = scratch, *bb = scratch + d, *row = scratch + 2 * d; // row: up to max(3·d, inner)
    memcpy(L->resid_pre, in, sizeof(double) * nd);
    // pass 1: X = LN₁(x)
    read_vec(b->ln1_w, w, d), read_vec(b->ln1_b, bb, d);
    hf_layer_norm(L->x, L->resid_pre, w, bb, m->cfg.eps, n, d);
    // pass 2: [Q K V] = X·c_attn + b at once; head h's Q is columns h·d_k … of the
    // first third (each element summed as its own product would), then the core's attention
    hf_matmul(qkv, L->x, b->attn_w, b->attn_b, 0, n, d, 3 * d, row);
    for (int h = 0; h < H; h++) {
        attn_head *hd = &L->head[h];
        double *dst[3] = {hd->q, hd->k, hd->v};
        for (int part = 0; part < 3; part++)
            for (int i = 0; i < n; i++)
                memcpy(dst[part] + (size_t)i * dk, qkv + (size_t)i * 3 * d + (size_t)part * d + (size_t)h * dk,
                       sizeof(double) * (size_t)dk);
        attn_status st = nonfinite(hd->q, (size_t)n * dk, l, "q", err);
        if (st == ATTN_OK) st = nonfinite(hd->k, (size_t)n * dk, l, "k", err);
        if (st == ATTN_OK) st = nonfinite(hd->v, (size_t)n * dk, l, "v", err);
        if (st == ATTN_OK) st = attn_head_attend(hd, n, &r->acfg, err);
        if (st != ATTN_OK) return st;
    }
    // pass 3: concat, c_proj, the first residual
    attn_concat_heads(L->concat, L->head, H, n, dk);
    hf_matmul(L->output, L->concat, b->attn_proj_w, b->attn_proj_b, 0, n, d, d, row);
    for (size_t i = 0; i < nd; i++) L->resid_mid[i] = L->resid_pre[i] + L->output[i];
    // pass 4: the MLP on LN₂, the second residual
    read_vec(b->ln2_w, w, d), read_vec(b->ln2_b, bb, d);
    hf_layer_norm(L->ln2, L->resid_mid, w, bb, m->cfg.eps, n, d);
    hf_matmul(L->hidden, L->ln2, b->fc_w, b->fc_b, 0, n, d, inner, row);
    for (size_t i = 0; i < (size_t)n * inner; i++)
        L->hidden[i] = m->cfg.act == HF_ACT_RELU ? (L->hidden[i] > 0 ? L->hidden[i] : 0.0) : hf_gelu_new(L->hidden[i]);
    hf_matmul(L->mlp_out, L->hidden, b->mlp_proj_w, b->mlp_proj_b, 0, n, inner, d, row);
    for (size_t i = 0; i < nd; i++) L->residual[i] = L->resid_mid[i] + L->mlp_out[i];
    return nonfinite(L->residual, nd, l, "residual", err);
}

/* The HF_NEXT most likely ids of probs (ties: the lower id first). */
static void top_next(hf_run *r) {
    r->next_count = r->vocab < HF_NEXT ? r->vocab : HF_NEXT;
    for (int k = 0; k < r->next_count; k++) r->next_id[k] = -1;
    for (int v = 0; v < r->vocab; v++) {
        double p = r->probs[v];
        int at = r->next_count;
        while (at > 0 && (r->next_id[at - 1] < 0 || p > r->next_p[at - 1])) at--;
        if (at >= r->next_count) continue;
        for (int k = r->next_count - 1; k > at; k--) r->next_id[k] = r->next_id[k - 1], r->next_p[k] = r->next_p[k - 1];
        r->next_id[at] = v, r->next_p[at] = p;
    }
}

void hf_forward_job_free(hf_forward_job *j) {
    if (!j) return;
    free(j->scratch);
    free(j->qkv);
    memset(j, 0, sizeof *j);
}

/* A job that failed or ended: its buffers go, and a failed run with them. */
static attn_status job_end(hf_forward_job *j, attn_status st) {
    if (st != ATTN_OK) hf_run_free(j->r);
    hf_forward_job_free(j);
    return st;
}

attn_status hf_forward_begin(hf_forward_job *j, hf_run *r, const hf_model *m, const int *ids, int n, attn_err *err) {
    memset(j, 0, sizeof *j);
    hf_run_free(r);
    const hf_config *c = &m->cfg;
    int cap = c->n_positions < HF_MAX_TOKENS ? c->n_positions : HF_MAX_TOKENS;
    if (n < 1 || n > cap) return attn_fail(err, ATTN_ERR_RANGE, "%d tokens; this model reads 1 to %d.", n, cap);
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->vocab_size)
            return attn_fail(err, ATTN_ERR_RANGE, "Token id %d is outside the vocabulary (0 to %d).", ids[i],
                             c->vocab_size - 1);
    j->r = r, j->m = m;
    attn_status st = alloc_run(r, m, n, err);
    int d = c->n_embd, wide = c->n_inner > 3 * d ? c->n_inner : 3 * d;
    j->scratch = malloc(sizeof(double) * (2 * (size_t)d + (size_t)wide));
    j->qkv = malloc(sizeof(double) * (size_t)n * 3 * (size_t)d);
    if (st == ATTN_OK && (!j->scratch || !j->qkv)) st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    if (st != ATTN_OK) return job_end(j, st);
    memcpy(r->ids, ids, sizeof *ids * (size_t)n);
    // pass 1: x₀ = wte[id] + wpe[position], into final until the first block takes it as its input
    double *x0 = r->final, *row = j->scratch;
    for (int i = 0; i < n; i++) {
        hf_tensor_read(m->wte, (size_t)ids[i] * d, (size_t)d, x0 + (size_t)i * d);
        hf_tensor_read(m->wpe, (size_t)i * d, (size_t)d, row);
        for (int k = 0; k < d; k++) x0[(size_t)i * d + k] += row[k];
    }
    return ATTN_OK;
}

attn_status hf_forward_step(hf_forward_job *j, bool *done, attn_err *err) {
    *done = false;
    hf_run *r = j->r;
    const hf_model *m = j->m;
    const hf_config *c = &m->cfg;
    int d = c->n_embd, l = j->layer;
    // pass 2: one block, reading the one before
    if (l < c->n_layer) {
        attn_status st = run_block(r, m, l, l ? r->layer[l - 1].residual : r->final, j->scratch, j->qkv, err);
        j->layer++;
        return st == ATTN_OK ? ATTN_OK : job_end(j, st);
    }
    // pass 3: LN_f, logits of the last position against wte (or lm_head), softmax
    double *scratch = j->scratch;
    int n = r->n;
    read_vec(m->lnf_w, scratch, d), read_vec(m->lnf_b, scratch + d, d);
    hf_layer_norm(r->final, r->layer[c->n_layer - 1].residual, scratch, scratch + d, c->eps, n, d);
    const double *last = r->final + (size_t)(n - 1) * d;
    double *u = scratch + 2 * d;
    for (int v = 0; v < c->vocab_size; v++) {
        hf_tensor_read(m->unembed, (size_t)v * d, (size_t)d, u);
        double acc = 0.0;
        for (int k = 0; k < d; k++) acc += last[k] * u[k];
        r->logits[v] = acc;
    }
    attn_status st = nonfinite(r->logits, (size_t)c->vocab_size, c->n_layer - 1, "logits", err);
    if (st != ATTN_OK) return job_end(j, st);
    memcpy(r->probs, r->logits, sizeof(double) * (size_t)c->vocab_size);
    { // softmax over the vocabulary: the row max first, so exp never overflows
        double mx = -INFINITY, sum = 0.0;
        for (int v = 0; v < c->vocab_size; v++)
            if (r->logits[v] > mx) mx = r->logits[v];
        for (int v = 0; v < c->vocab_size; v++) sum += r->probs[v] = attn_exp(r->logits[v] - mx);
        for (int v = 0; v < c->vocab_size; v++) r->probs[v] /= sum;
    }
    top_next(r);
    *done = true;
    return job_end(j, ATTN_OK);
}

attn_status hf_forward(hf_run *r, const hf_model *m, const int *ids, int n, attn_err *err) {
    hf_forward_job j;
    bool done = false;
    attn_status st = hf_forward_begin(&j, r, m, ids, n, err);
    while (st == ATTN_OK && !done) st = hf_forward_step(&j, &done, err);
    return st;
}
