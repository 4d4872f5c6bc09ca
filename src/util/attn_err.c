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
        err->id = ATTN_MSG_NONE;
    }
    return code;
}

static const char *const english[ATTN_MSG_COUNT] = {
    "",
#define ATTN_MSG(id, en) en,
#include "attn_msgs.def"
#undef ATTN_MSG
};

static const char *const names[ATTN_MSG_COUNT] = {
    "NONE",
#define ATTN_MSG(id, en) #id,
#include "attn_msgs.def"
#undef ATTN_MSG
};

const char *attn_msg_english(attn_msg id) {
    return id >= 0 && id < ATTN_MSG_COUNT ? english[id] : "";
}

const char *attn_msg_name(attn_msg id) {
    return id >= 0 && id < ATTN_MSG_COUNT ? names[id] : "NONE";
}

void attn_msg_format(char *out, size_t cap, const char *t, const char (*args)[128], int n_args) {
    size_t used = 0;
    int next = 0;
    if (!cap) return;
    for (; *t && used + 1 < cap; t++) {
        const char *put = NULL;
        char one[2] = {*t, 0};
        if (t[0] == '%' && t[1] == 's') put = next < n_args ? args[next++] : "", t++;
        else if (t[0] == '%' && t[1] == '%') put = "%", t++;
        else put = one;
        size_t n = strlen(put);
        if (n > cap - 1 - used) n = cap - 1 - used;
        memcpy(out + used, put, n);
        used += n;
    }
    out[used] = '\0';
    utf8_trim_partial(out);
}

attn_status attn_fail_msg(attn_err *err, attn_status code, attn_msg id, const char *a0, const char *a1, const char *a2) {
    if (!err) return code;
    const char *in[ATTN_MSG_ARGS] = {a0, a1, a2};
    memset(err->args, 0, sizeof err->args);
    for (int i = 0; i < ATTN_MSG_ARGS; i++) {
        snprintf(err->args[i], sizeof err->args[i], "%s", in[i] ? in[i] : "");
        utf8_trim_partial(err->args[i]);
    }
    attn_msg_format(err->msg, sizeof err->msg, attn_msg_english(id), (const char(*)[128])err->args, ATTN_MSG_ARGS);
    err->code = code;
    err->id = id;
    return code;
}

void attn_err_clear(attn_err *err) {
    if (err) {
        err->code = ATTN_OK;
        err->msg[0] = '\0';
        err->id = ATTN_MSG_NONE;
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
