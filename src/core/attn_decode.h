/* attn_decode.h — decoding with a KV cache (issue 24, part 1): the layer of a
 * trace run again one token at a time, as a model generating text runs it.
 *
 * At step t only token t's new rows are computed: q_t = x_t·W_Q (+ b_Q) for
 * every query head, k_t and v_t for every kv-head (appended to that kv-head's
 * cache, which the heads of its group share), the 1×len scores q_t·K_cacheᵀ,
 * scaled and masked, their softmax row and z_t = a·V_cache. The rows are made
 * by the same core functions as the whole-sentence path (attn_matmul,
 * attn_scores_rows, attn_scale_count, attn_mask_allows, attn_softmax_row), so
 * each row of Z_decode equals the same row of the trace's Z (tested within
 * |Δ| ≤ 1e-12·max(1, |z|); in practice bit for bit).
 *
 * Only the causal and causal-window masks fit: a token being generated cannot
 * see the tokens after it. Under causal-window:W a token reads at most the
 * W + 1 newest keys (its own and W from the cache), so a real implementation
 * keeps a sliding cache of W rows and evicts the older ones: the record
 * counts that cache (cache_len, evicted, cache_bytes), while the arrays below
 * keep every row so that the view can show what was evicted and the rows are
 * read in the same order as the full path's (Z_decode == Z bit for bit).
 * Layer 2 (src/core): no printing, no exit. */
#ifndef ATTN_DECODE_H
#define ATTN_DECODE_H

#include "attn.h"

/* The real configuration the cache's memory is set beside: Llama 3 8B's
 * attention (32 layers, 32 query heads sharing 8 kv-heads, d_k 128), fp16
 * (2 bytes a value), at 4,096 tokens. */
#define ATTN_DECODE_REAL_NAME "Llama 3 8B"
#define ATTN_DECODE_REAL_LAYERS 32
#define ATTN_DECODE_REAL_KV_HEADS 8
#define ATTN_DECODE_REAL_D_K 128
#define ATTN_DECODE_REAL_BYTES 2 /* fp16 */
#define ATTN_DECODE_REAL_TOKENS 4096

/* What one token of decoding did. */
typedef struct {
    int cache_len;         /* rows each K and V cache keeps after this token: t + 1; causal-window:W, min(t + 1, W) */
    int first;             /* the first cache row the token's query reads (t - W for causal-window, else 0) */
    int cells;             /* score cells computed this token, per query head: t + 1 - first */
    int cells_read;        /* of them, the keys read from the cache (computed at earlier tokens): cells - 1 */
    long long macs;        /* multiply-adds this token, all heads (attn_count_macs' rules for one row) */
    long long macs_total;  /* the same summed over tokens 0..t */
    long long full_macs;   /* what recomputing the whole causal attention of t + 1 tokens costs (attn_count_macs) */
    long long full_total;  /* the same summed over tokens 0..t */
    long long cache_bytes; /* 2 · layers · kv_heads · d_k · cache_len · 8 (float64 here) */
    long long real_bytes;  /* the same formula for the real configuration at t + 1 tokens, 2 bytes a value */
    int evicted;           /* rows evicted from the sliding cache so far (tokens 0 … evicted − 1): t + 1 − cache_len */
} attn_decode_step;

typedef struct {
    int n, heads, kv_heads, d_k, layers; /* layers: 1 for the classic layer */
    attn_decode_step step[ATTN_MAX_TOKENS];
    double *z[ATTN_MAX_HEADS];       /* (n, d_k) Z_decode: row t as produced at step t */
    double *weights[ATTN_MAX_HEADS]; /* (n, n) row t: step t's softmax over cache rows [first, t]; 0 elsewhere */
    double *k_cache[ATTN_MAX_HEADS]; /* (n, d_k) kv_heads entries: the caches after the last token */
    double *v_cache[ATTN_MAX_HEADS]; /* (n, d_k) */
    double *block_;                  /* the one allocation behind the arrays */
    int window;                      /* causal-window:W's W (the sliding cache keeps W rows), else 0 */
} attn_decode;

/* One token through one layer with its KV cache: x: (d_model) is token
 * step's input row; heads: c->heads heads whose weights (w_q … b_v) are set
 * (a group's K, V are read from its first head); k_cache, v_cache:
 * attn_kv_heads(c) caches of (at least step + 1, d_k), whose row step is
 * written; z_row: (heads · d_k) gets the token's concat row; a_rows (NULL,
 * or one row per head, at least step + 1 long) gets each head's softmax over
 * the cache rows it read, at their columns. Fills rec's cache_len, evicted,
 * first, cells, cells_read and macs (the caller keeps the totals). Errors: a stage
 * that went non-finite. A model generating text calls it once per layer. */
attn_status attn_decode_token(attn_decode_step *rec, double *z_row, double *const *a_rows, double *const *k_cache,
                              double *const *v_cache, const attn_head *heads, const double *x, int step,
                              const attn_config *c, attn_err *err);

/* What recomputing the whole layer for n tokens costs under c: the sum of
 * attn_count_macs over the stages. */
long long attn_decode_full_macs(const attn_config *c, int n);

/* Decodes t's sentence token by token with t's weights and X (the trace must
 * be computed). Allocates into *out (zeroed or freed; left freed on error).
 * Errors: a mask other than causal or causal-window (ATTN_ERR_RANGE, naming
 * --decode and the mask), a non-finite stage, memory. */
attn_status attn_decode_run(attn_decode *out, const attn_trace *t, attn_err *err);

/* Frees what d owns and zeroes it. NULL is a no-op. */
void attn_decode_free(attn_decode *d);

/* The KV cache's bytes: 2 (K and V) · layers · kv_heads · d_k · tokens · bytes_per_value. */
long long attn_kv_cache_bytes(int layers, int kv_heads, int d_k, long long tokens, int bytes_per_value);

/* The largest |Δ| / max(1, |z|) between Z_decode and the trace's Z over every
 * head, row and column (0 when they agree bit for bit). */
double attn_decode_max_rel_diff(const attn_decode *d, const attn_trace *t);

#endif
