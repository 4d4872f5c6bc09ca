/* numparse.h — the one reader of whole numbers that people type: on the
 * command line, in scripts, lessons and settings. Strict: the whole text is
 * the number, and a number too large for any integer type is out of range,
 * never wrapped. */
#ifndef ATTN_NUMPARSE_H
#define ATTN_NUMPARSE_H

#include <stddef.h>

typedef enum {
    ATTN_INT_OK,        /* *out holds the number */
    ATTN_INT_NOT_WHOLE, /* not a whole number: empty, a fraction, junk, spaces */
    ATTN_INT_RANGE      /* a whole number outside [lo, hi] (however many digits) */
} attn_int_result;

/* Reads all of s[0..n) — an optional '-' or '+', then decimal digits — into
 * *out when it lies in [lo, hi]. *out is left alone otherwise. */
attn_int_result attn_parse_int(const char *s, size_t n, long long lo, long long hi, long long *out);

#endif
