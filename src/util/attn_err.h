/* attn_err.h — status codes and learner-readable error messages shared by the core.
 *
 * Every fallible core function returns an attn_status and, when given a non-NULL
 * attn_err, fills it with a message written for a learner (no jargon, names the
 * option or stage at fault). The caller owns the attn_err; it holds no pointers.
 *
 * Layer 1 of the README's Layout (src/util): includes nothing of attnviz above it. */
#ifndef ATTN_ERR_H
#define ATTN_ERR_H

typedef enum {
    ATTN_OK = 0,
    ATTN_ERR_RANGE,     /* an option is outside its allowed range */
    ATTN_ERR_INPUT,     /* the sentence cannot be tokenized (empty, bad UTF-8, ...) */
    ATTN_ERR_SHAPE,     /* a matrix has the wrong shape */
    ATTN_ERR_NONFINITE, /* a value or stage result is NaN or infinite */
    ATTN_ERR_PARSE,     /* a file could not be parsed */
    ATTN_ERR_IO,        /* a file could not be read or written */
    ATTN_ERR_NOMEM      /* out of memory */
} attn_status;

typedef struct {
    attn_status code; /* same value the function returned */
    char msg[512];    /* one or two sentences, UTF-8, no trailing newline */
} attn_err;

/* Fills err (if non-NULL) with code and a printf-style message; returns code.
 * A message longer than msg is cut on a character boundary. */
attn_status attn_fail(attn_err *err, attn_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Resets err (if non-NULL) to ATTN_OK with an empty message. */
void attn_err_clear(attn_err *err);

/* A short English name for a status ("range error", ...). Never NULL. */
const char *attn_status_name(attn_status s);

#endif
