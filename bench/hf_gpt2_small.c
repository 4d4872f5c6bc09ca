/* hf_gpt2_small.c — times hf_forward on a file with GPT-2 small's shapes
 * (12 layers, 12 heads, width 768, MLP 3072, 50,257 tokens, 1,024
 * positions, F32), written sparse (ftruncate: every weight 0, nothing
 * downloaded), at n tokens (default 20). Prints the time and the peak
 * resident memory; then the head finder (hf_head_scores: its own forward
 * of a repeated random sequence, 2·HF_INDUCTION_LEN tokens) and its time.
 * Not a test: nothing here runs under ctest (issue 26).
 *
 *   build/bench/attn_bench_hf [N]   (a Release build) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hf_heads.h"
#include "hf_model.h"
#include "strbuf.h"

enum { L = 12, D = 768, INNER = 3072, V = 50257, P = 1024 };

static void put(attn_strbuf *h, unsigned long long *off, const char *name, int rows, int cols) {
    unsigned long long bytes = 4ull * (unsigned long long)(rows ? rows : 1) * (unsigned long long)cols;
    if (h->len > 1) attn_sb_puts(h, ",");
    if (rows) attn_sb_printf(h, "\"%s\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%llu,%llu]}", name, rows, cols, *off, *off + bytes);
    else attn_sb_printf(h, "\"%s\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%llu,%llu]}", name, cols, *off, *off + bytes);
    *off += bytes;
}

static int write_folder(const char *dir) {
    char path[600];
    attn_strbuf h;
    attn_sb_init(&h);
    attn_sb_puts(&h, "{");
    unsigned long long off = 0;
    put(&h, &off, "wte.weight", V, D);
    put(&h, &off, "wpe.weight", P, D);
    for (int l = 0; l < L; l++) {
        static const struct {
            const char *n;
            int r, c;
        } t[] = {{"ln_1.weight", 0, D}, {"ln_1.bias", 0, D}, {"attn.c_attn.weight", D, 3 * D}, {"attn.c_attn.bias", 0, 3 * D}, {"attn.c_proj.weight", D, D}, {"attn.c_proj.bias", 0, D}, {"ln_2.weight", 0, D}, {"ln_2.bias", 0, D}, {"mlp.c_fc.weight", D, INNER}, {"mlp.c_fc.bias", 0, INNER}, {"mlp.c_proj.weight", INNER, D}, {"mlp.c_proj.bias", 0, D}};
        for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
            char name[64];
            snprintf(name, sizeof name, "h.%d.%s", l, t[i].n);
            put(&h, &off, name, t[i].r, t[i].c);
        }
    }
    put(&h, &off, "ln_f.weight", 0, D);
    put(&h, &off, "ln_f.bias", 0, D);
    attn_sb_puts(&h, "}");
    while (h.len % 8) attn_sb_puts(&h, " ");
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    unsigned long long hl = h.len;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(hl >> (8 * i));
    fwrite(le, 1, 8, f);
    fwrite(h.data, 1, h.len, f);
    fclose(f);
    if (truncate(path, (off_t)(8 + hl + off)) != 0) return 1;
    attn_sb_free(&h);
    snprintf(path, sizeof path, "%s/config.json", dir);
    f = fopen(path, "w");
    fprintf(f, "{\"model_type\": \"gpt2\"}\n"); // every size from GPT2Config's defaults: GPT-2 small
    fclose(f);
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    f = fopen(path, "w");
    fprintf(f, "[PAD]\n[UNK]\n[CLS]\n");
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20;
    char dir[] = "/tmp/attnviz_bench_hf_XXXXXX";
    if (!mkdtemp(dir) || write_folder(dir) != 0) return 1;
    hf_model m;
    attn_err err;
    if (hf_model_open(&m, dir, &err) != ATTN_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int ids[HF_MAX_TOKENS];
    for (int i = 0; i < n; i++) ids[i] = (i * 7919) % V;
    hf_run r = {0};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    attn_status st = hf_forward(&r, &m, ids, n, &err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("GPT-2 small shapes, %d tokens: %s, %.3f s, peak resident %.0f MB (the mapped file's pages included)\n", n,
           st == ATTN_OK ? "ok" : err.msg, (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
           ru.ru_maxrss / 1024.0);
    if (st == ATTN_OK) {
        static hf_head_score scores[L * 12];
        clock_gettime(CLOCK_MONOTONIC, &a);
        st = hf_head_scores(&m, &r, HF_INDUCTION_LEN, HF_INDUCTION_SEED, scores, &err);
        clock_gettime(CLOCK_MONOTONIC, &b);
        getrusage(RUSAGE_SELF, &ru);
        printf("head finder (a forward of %d tokens, 144 heads scored): %s, %.3f s, peak resident %.0f MB\n",
               2 * HF_INDUCTION_LEN, st == ATTN_OK ? "ok" : err.msg,
               (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, ru.ru_maxrss / 1024.0);
    }
    hf_run_free(&r);
    hf_model_free(&m);
    char path[600];
    static const char *const files[] = {"model.safetensors", "config.json", "vocab.txt"};
    for (int i = 0; i < 3; i++) snprintf(path, sizeof path, "%s/%s", dir, files[i]), unlink(path);
    rmdir(dir);
    return st == ATTN_OK ? 0 : 1;
}
