/* model_file.h — the model file, "attnviz-model" version 1:
 *
 * {"format": "attnviz-model", "version": 1, "task", "probe", "vocab": [...],
 *  "config": {"d_model", "d_k", "heads", "layers", "pos", "max_len", "mask",
 *             "scale", "bias", "objective"},
 *  "E": vocab×d_model, "P": max_len×d_model (learned positions only),
 *  "layers": [{"heads": [{"W_Q", "W_K", "W_V": d_model×d_k,
 *                         "b_Q", "b_K", "b_V": d_k (biases only)}],
 *              "W_O": (heads·d_k)×d_model, "b_O": d_model (biases only)}],
 *  "U": d_model×vocab, "b_U": vocab (token objective only),
 *  "training": {"seed", "steps", "batch", "lr", "weight_decay", "loss",
 *               "heldout_accuracy", "referent_attention" (referent tasks)}}
 *
 * Matrices are row-major nested arrays in the core's orientation (x·W).
 * Numbers have the fewest digits that read back to the same double, and the
 * file holds no time or other run-dependent value: the same training writes
 * the same bytes. */
#ifndef MODEL_FILE_H
#define MODEL_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "strbuf.h"

#define MODEL_FILE_MAX_BYTES (64u << 20) /* the largest model file read */

/* m as a model file. Returns a NUL-terminated string the caller free()s, or
 * NULL when memory ran out. */
char *model_file_write(const model *m);

/* Parses a model file (text of len bytes; name is used in messages) into *out
 * (free with model_free). Errors name the key and the shapes: not UTF-8 or
 * not JSON (with line and column), anything after the JSON object, another
 * format or version, a missing or unknown key, wrong shapes, ragged rows,
 * non-numbers, NaN/Inf, |v| > 1e18, a vocabulary that E disagrees with, an
 * unknown task, a control character (or \u0000) in any text. What a message
 * quotes of the file shows its control characters as escapes. On error *out
 * is left empty. */
attn_status model_file_parse(model *out, const char *text, size_t len, const char *name, attn_err *err);

/* Reads and parses the file at path (attn_read_file, then model_file_parse). */
attn_status model_file_load(model *out, const char *path, attn_err *err);

/* ---- what may be written: never a file attnviz would refuse to read ---- */

/* The most bytes model_file_write can make of m (every number at its
 * longest). */
size_t model_file_size_bound(const model *m);

/* ATTN_OK when m's file fits in MODEL_FILE_MAX_BYTES whatever its values;
 * else ATTN_ERR_RANGE naming the parameter count and the size. Call it
 * before training: the shapes alone decide it. */
attn_status model_file_check_size(const model *m, attn_err *err);

/* ATTN_OK when every parameter and the training record's numbers are finite
 * and within ±1e18 (what model_file_parse accepts); else ATTN_ERR_NONFINITE
 * naming the first one by its key path (a diverged training). */
attn_status model_file_check_values(const model *m, attn_err *err);

/* m as a model file that model_file_parse reads back: the two checks above,
 * then the text, parsed once more to be sure. On ATTN_OK *out is the
 * NUL-terminated text (the caller free()s it); otherwise *out is NULL and
 * err says why. The one way to make a model file's bytes for saving. */
attn_status model_file_write_checked(const model *m, char **out, attn_err *err);

/* true when text (len bytes) is one JSON object whose "format" is
 * "attnviz-model": a file attnviz made as a model (valid or not). */
bool model_file_says_model(const char *text, size_t len);

/* Whether a model may be saved at path without losing what is there: ATTN_OK
 * for "-", a new path, an empty file, a model file (retraining replaces it)
 * and what the writer writes in place (a device, a FIFO); ATTN_ERR_IO for
 * any other regular file ("... is not an attnviz model file ..."), or one
 * attnviz cannot read to tell. A folder or a missing folder is left to the
 * writer (attn_out_open), which names it. */
attn_status model_file_check_save(const char *path, attn_err *err);

/* Appends a (rows, cols) matrix as nested arrays, one row per line indented
 * by indent, as the model file and the model dump write them. */
void model_json_matrix(attn_strbuf *b, const char *indent, const double *m, int rows, int cols);

/* Appends a flat array of len numbers. */
void model_json_vector(attn_strbuf *b, const double *v, int len);

/* Appends the "config" object's value ({"d_model": …, "objective": …}). */
void model_json_config(attn_strbuf *b, const model_config *c);

#endif
