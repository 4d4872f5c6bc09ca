#include "attn_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

attn_status attn_fail(attn_err *err, attn_status code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (need >= (int)sizeof err->msg) // cut short: never in the middle of a character
            utf8_trim_partial(err->msg);
        err->code = code;
    }
    return code;
}

void attn_err_clear(attn_err *err) {
    if (err) {
        err->code = ATTN_OK;
        err->msg[0] = '\0';
    }
}

const char *attn_status_name(attn_status s) {
    switch (s) {
    case ATTN_OK: return "ok";
    case ATTN_ERR_RANGE: return "range error";
    case ATTN_ERR_INPUT: return "input error";
    case ATTN_ERR_SHAPE: return "shape error";
    case ATTN_ERR_NONFINITE: return "non-finite value";
    case ATTN_ERR_PARSE: return "parse error";
    case ATTN_ERR_IO: return "file error";
    case ATTN_ERR_NOMEM: return "out of memory";
    }
    return "unknown error";
}
