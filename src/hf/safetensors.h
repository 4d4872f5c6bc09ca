/* safetensors.h — attnviz's own reader of Hugging Face's .safetensors files.
 *
 * The format: an 8-byte little-endian header length N, N bytes of a JSON
 * object (at most ST_HEADER_MAX; "__metadata__" is accepted and ignored),
 * then raw little-endian tensor data. Each other key of the header names a
 * tensor: {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
 * the offsets counted from the start of the data. Offsets and shapes are read
 * as integers, never through doubles.
 *
 * Opening checks the whole table (offsets inside the data, no two tensors
 * overlapping, sizes that match dtype × shape); the data of a tensor whose
 * dtype attnviz does not read (the causal-mask buffer h.N.attn.bias, U8 or
 * BOOL elsewhere) is refused only when it is converted. Nothing is printed:
 * every failure is a status code with a message naming the file and the key.
 *
 * Layer 3 of the README's Layout (src/hf): uses src/util only. */
#ifndef ATTN_SAFETENSORS_H
#define ATTN_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attn_err.h"

#define ST_HEADER_MAX (16u * 1024u * 1024u) /* bytes of JSON header read at most */
#define ST_MAX_RANK 8                       /* dimensions of a tensor at most */

typedef enum {
    ST_F64,
    ST_F32,
    ST_F16,
    ST_BF16, /* the floating-point types converted to double */
    ST_F8_E5M2,
    ST_F8_E4M3,
    ST_I64,
    ST_I32,
    ST_I16,
    ST_I8,
    ST_U64,
    ST_U32,
    ST_U16,
    ST_U8,
    ST_BOOL,
    ST_OTHER /* a dtype name the format does not define */
} st_dtype;

typedef struct {
    char *name; /* the key as the file spells it (owned, NUL-terminated) */
    st_dtype dtype;
    char dtype_name[16]; /* as the file spells it (cut to fit) */
    int rank;            /* 0 for a scalar */
    uint64_t shape[ST_MAX_RANK];
    uint64_t count;            /* elements: the product of shape (1 for a scalar); 0 for
                                   ST_OTHER, whose element size is unknown */
    uint64_t begin, end;       /* data_offsets: bytes from the start of the data */
    const unsigned char *data; /* its first byte (inside the file's bytes; may be unaligned) */
} st_tensor;

typedef struct {
    char *shown;        /* the file's name in messages (owned) */
    st_tensor *tensors; /* in the header's order (owned) */
    size_t count;
    const unsigned char *bytes; /* the whole file: mapped, or borrowed (st_file_parse) */
    size_t size;
    bool mapped; /* bytes is an mmap of the file (unmapped on free) */
    bool owned;  /* bytes were handed over by st_file_provide (freed on free) */
} st_file;

/* Opens the file at path: a regular file (a pipe, FIFO, device or folder is
 * refused with "NAME is not a regular file (it is a named pipe)."), mapped
 * read-only and private. The mapping stays valid if the file is replaced by a
 * new one (rename, as downloads do); a file cut shorter in place while it is
 * mapped (truncate, or cp over it) would fault on its missing pages: that
 * one case a map cannot guard against. On success f owns the map; st_file_free releases it. On
 * error f is left empty (st_file_free on it is a no-op). Errors: ATTN_ERR_IO
 * (missing, unreadable, not a regular file), ATTN_ERR_PARSE (see
 * st_file_parse), ATTN_ERR_NOMEM. */
attn_status st_file_open(st_file *f, const char *path, attn_err *err);

/* Hands bytes[0..size) (malloc'd; owned from now on) over as the contents
 * of the file at path, for a machine with no disk to map: the browser build,
 * where the page reads a picked file in slices straight into them (one copy
 * of the weights, never a second in the page's file system). The next
 * st_file_open of exactly that path takes them instead of the disk (the
 * st_file owns them then; st_file_free frees them); a file it refuses frees
 * them at once. One file is held at a time: a second call frees the bytes of
 * a first that was never opened. bytes NULL drops what is held. */
void st_file_provide(const char *path, unsigned char *bytes, size_t size);

/* Reads the table of bytes[0..size) (a whole safetensors file) without
 * copying it: f borrows bytes, which must outlive f. shown names the file in
 * messages. Refusals (ATTN_ERR_PARSE), each naming the file and, where there
 * is one, the key: shorter than 8 bytes or than the header it announces
 * (truncated); a header over ST_HEADER_MAX; a header that is not one JSON
 * object (or that repeats a key); a tensor entry without dtype, shape or
 * data_offsets, or with a shape over ST_MAX_RANK dimensions; offsets outside
 * the data (truncated) or overlapping another tensor's; a size that differs
 * from what dtype × shape needs. On error f is left empty. */
attn_status st_file_parse(st_file *f, const unsigned char *bytes, size_t size, const char *shown,
                          attn_err *err);

/* Releases what f owns and leaves it empty. NULL or an empty f is a no-op. */
void st_file_free(st_file *f);

/* The tensor called name, or NULL. Prefix-tolerant: "h.0.ln_1.weight" also
 * finds "transformer.h.0.ln_1.weight" and the other way round. The pointer
 * belongs to f. */
const st_tensor *st_file_find(const st_file *f, const char *name);

/* Like st_file_find, but a missing tensor is refused (ATTN_ERR_SHAPE,
 * "FILE has no tensor NAME.") and *out set to NULL. */
attn_status st_file_require(const st_file *f, const char *name, const st_tensor **out, attn_err *err);

/* True for the dtypes st_tensor_to_double reads: F64, F32, F16, BF16. */
bool st_dtype_is_float(st_dtype d);

/* Bytes one element of dtype d takes, 0 for ST_OTHER. */
size_t st_dtype_size(st_dtype d);

/* Converts elements [first, first + n) of t (flattened, row-major) to double,
 * exactly, into out[0..n). F32, F16 and BF16 (and F64) are read; any other
 * dtype is refused (ATTN_ERR_PARSE, "FILE: tensor NAME has dtype U8, which
 * attnviz does not read …"), as is a range past the tensor (ATTN_ERR_RANGE).
 * f is only used for its name in messages. */
attn_status st_tensor_to_double(const st_file *f, const st_tensor *t, uint64_t first, uint64_t n,
                                double *out, attn_err *err);

/* Row r of t seen as a matrix of shape[0] rows (the other dimensions
 * flattened into its columns) into out (as many doubles as a row has). */
attn_status st_tensor_row_to_double(const st_file *f, const st_tensor *t, uint64_t row, double *out,
                                    attn_err *err);

/* IEEE 754 binary16 and bfloat16 (as little-endian bit patterns) to double,
 * exactly: subnormals, signed zeros, infinities and NaN included. */
double st_half_to_double(uint16_t bits);
double st_bfloat16_to_double(uint16_t bits);

#endif
