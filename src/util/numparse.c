/* numparse.c — strict whole numbers (see numparse.h). */
#include "numparse.h"

#include <limits.h>
#include <stdbool.h>

attn_int_result attn_parse_int(const char *s, size_t n, long long lo, long long hi, long long *out) {
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == n) return ATTN_INT_NOT_WHOLE;
    // the magnitude saturates instead of wrapping: a long number is out of range, not another number
    unsigned long long mag = 0, limit = (unsigned long long)LLONG_MAX + 1;
    bool huge = false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return ATTN_INT_NOT_WHOLE;
        unsigned d = (unsigned)(s[i] - '0');
        if (mag > (limit - d) / 10) huge = true;
        else mag = mag * 10 + d;
    }
    if (huge || (!neg && mag > (unsigned long long)LLONG_MAX)) return ATTN_INT_RANGE;
    long long v = neg ? (mag == limit ? LLONG_MIN : -(long long)mag) : (long long)mag;
    if (v < lo || v > hi) return ATTN_INT_RANGE;
    *out = v;
    return ATTN_INT_OK;
}
