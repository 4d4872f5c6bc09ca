/* attn_json.h — the JSON dump of a trace and the weights file it reads back.
 *
 * Dump shape (row-major nested arrays; in "masked" a masked entry is null):
 * {"tokens", "config": {d_model, d_k, heads, seed, mask, scale, pos_enc, bias
 *  [, pos_dims] [, pos: "rope", rope_base] [, pos_offset]},
 *  "X", "heads": [{W_Q, W_K, W_V, b_Q, b_K, b_V, Q, K, V [, q_rot, k_rot],
 *  scores, scaled, masked, weights, Z}, ...], "concat", "W_O", "b_O", "output"}
 * (the bracketed keys only when set: RoPE on, an offset other than 0).
 * A weights file uses the same shape; only X, W_*, b_* and W_O/b_O are read,
 * and config.pos_enc, to refuse RoPE over an X that already has positions. */
#ifndef ATTN_JSON_H
#define ATTN_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_decode.h"
#include "attn_tiles.h"
#include "sha256.h"

/* Writes t as JSON. Returns a NUL-terminated string the caller free()s, or NULL
 * when memory ran out. */
char *attn_json_dump(const attn_trace *t);

/* The same with --decode's keys (d may be NULL: exactly attn_json_dump):
 * each head gains "Z_decode" (n × d_k) and "decode" {cache_len, cells and,
 * under causal-window:W, evicted: one per token (the sliding cache of W
 * rows); kv_head}, and the dump gains "decode" {layers, kv_heads, d_k,
 * bytes_per_value, macs, macs_total, full_macs, full_total, cache_bytes,
 * real_bytes: one per token; real: the named configuration at its tokens}. */
char *attn_json_dump_decode(const attn_trace *t, const attn_decode *d);
/* The same, with --tiles B's record: tiles holds t->cfg.heads records
 * (attn_tiles_of_head), or is NULL (then it is attn_json_dump). Each head
 * gains "Z_tiled" and "tiles": {"B", "blocks", "steps_skipped",
 * "bytes_held_max", "full_bytes", "macs", "steps": [{"q_block", "k_block",
 * "rows": [r0, r1), "cols": [c0, c1), "skipped", "bytes", "scores" (not when
 * skipped), "m", "l", "O"}]}; a weights file's "Z_tiled" and "tiles" are
 * ignored like the other computed keys. */
char *attn_json_dump_tiles(const attn_trace *t, const attn_tiles *tiles);

/* Both records at once (either may be NULL): what the two above write. */
char *attn_json_dump_with(const attn_trace *t, const attn_tiles *tiles, const attn_decode *d);

/* The one way attnviz reads JSON (weights, settings, an export's manifest):
 * text (len bytes, after an optional UTF-8 byte order mark) must be exactly
 * one JSON value, with only whitespace after it. Returns the tree
 * (cJSON_Delete it), or NULL with *stop the byte offset in text where it
 * went wrong and *more true when that is something after a complete value
 * (two objects back to back, as `>>` makes). */
struct cJSON *attn_json_parse_one(const char *text, size_t len, size_t *stop, bool *more);

/* Line and column (from 1; columns in characters, a leading byte order mark
 * not counted) of byte at of text. */
void attn_json_position(const char *text, size_t at, int *line, int *col);

/* One matrix (or vector, rows == 1 and is_vector) read from a weights file. */
typedef struct {
    double *v;      /* (rows, cols) row-major, owned by the file; NULL when absent */
    int rows, cols; /* shape as found */
    int is_vector;  /* 1 for a flat array (a bias) */
} attn_json_mat;

typedef struct {
    char sha256[ATTN_SHA256_HEX];                      /* hex SHA-256 of the text parsed */
    attn_json_mat x;                                   /* "X" */
    bool x_has_positions;                              /* "config"."pos_enc" is true: X has the sinusoids */
    int heads;                                         /* entries in "heads" (0 when absent) */
    attn_json_mat mat[ATTN_MAT_COUNT][ATTN_MAX_HEADS]; /* [m][h]: "heads"[h]'s W_Q … b_V; "W_O", "b_O" at h 0 */
} attn_weights_file;

/* Parses a weights file (text of len bytes; name is used in messages). On
 * success *out owns every matrix (free with attn_weights_file_free). Errors
 * name the key and position: not JSON (with line and column), more than one
 * JSON value, a key that is not an array of numbers, ragged rows, NaN/Inf,
 * |v| > 1e18, unknown keys, more than ATTN_MAX_HEADS heads, a matrix larger
 * than the limits of attn.h allow (d_model, d_k, tokens). A UTF-8 byte order
 * mark at the start is skipped. */
attn_status attn_weights_file_parse(attn_weights_file *out, const char *text, size_t len,
                                    const char *name, attn_err *err);

/* Frees every matrix and zeroes f. NULL is a no-op. */
void attn_weights_file_free(attn_weights_file *f);

/* The sizes the file implies (0 where it says nothing): d_model from X, W_* rows,
 * W_O columns or b_O; d_k from W_* columns or b_*; heads from "heads". */
void attn_weights_file_dims(const attn_weights_file *f, int *d_model, int *d_k, int *heads);

/* Grouped-query attention (cfg's kv_heads): true when head *head's matrix
 * *matrix (W_K, W_V, b_K or b_V) differs from its group's first head's
 * (*first), the first such; false when the heads of every group agree. What
 * attn_weights_file_bind refuses, for a message in the UI's language. */
bool attn_weights_group_conflict(const attn_weights *w, const attn_config *cfg, int *head, int *first, int *matrix);

/* Checks every present matrix against cfg and n tokens and points w at them
 * (absent ones stay NULL). Errors name the key and both shapes. */
attn_status attn_weights_file_bind(attn_weights *w, const attn_weights_file *f,
                                   const attn_config *cfg, int n, const char *name,
                                   attn_err *err);

#endif
