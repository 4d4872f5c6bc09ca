#include "attn_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
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
        err->at[0] = '\0';
        err->lead = ATTN_MSG_NONE;
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

/* The length of the conversion at t ("%s", "%.*s", "%zu", ...; t[0] is '%'), up to its letter. */
static size_t conversion_len(const char *t) {
    size_t i = 1;
    while (t[i] && strchr("-+ #0123456789.*hlLzjt", t[i])) i++;
    return t[i] ? i + 1 : i;
}

void attn_msg_format(char *out, size_t cap, const char *t, const char (*args)[128], int n_args) {
    size_t used = 0;
    int next = 0;
    if (!cap) return;
    while (*t && used + 1 < cap) {
        const char *put = NULL;
        char one[2] = {*t, 0};
        size_t step = 1;
        if (t[0] == '%' && t[1] == '%') put = "%", step = 2;
        else if (t[0] == '%' && t[1]) put = next < n_args ? args[next++] : "", step = conversion_len(t);
        else put = one;
        t += step;
        size_t n = strlen(put);
        if (n > cap - 1 - used) n = cap - 1 - used;
        memcpy(out + used, put, n);
        used += n;
    }
    out[used] = '\0';
    utf8_trim_partial(out);
}

attn_msg attn_errno_msg(int e) {
    static const struct {
        int e;
        attn_msg id;
    } words[] = {
        {0, ATTN_MSG_ERRNO_NONE},
        {ENOENT, ATTN_MSG_ERRNO_ENOENT},
        {EACCES, ATTN_MSG_ERRNO_EACCES},
        {EPERM, ATTN_MSG_ERRNO_EPERM},
        {EISDIR, ATTN_MSG_ERRNO_EISDIR},
        {ENOTDIR, ATTN_MSG_ERRNO_ENOTDIR},
        {ELOOP, ATTN_MSG_ERRNO_ELOOP},
        {ENAMETOOLONG, ATTN_MSG_ERRNO_ENAMETOOLONG},
        {ENOSPC, ATTN_MSG_ERRNO_ENOSPC},
        {EDQUOT, ATTN_MSG_ERRNO_EDQUOT},
        {EROFS, ATTN_MSG_ERRNO_EROFS},
        {EEXIST, ATTN_MSG_ERRNO_EEXIST},
        {EMFILE, ATTN_MSG_ERRNO_EMFILE},
        {ENFILE, ATTN_MSG_ERRNO_EMFILE},
        {ENOMEM, ATTN_MSG_ERRNO_ENOMEM},
        {EIO, ATTN_MSG_ERRNO_EIO},
        {EFBIG, ATTN_MSG_ERRNO_EFBIG},
        {EBUSY, ATTN_MSG_ERRNO_EBUSY},
        {ETXTBSY, ATTN_MSG_ERRNO_EBUSY},
        {ENXIO, ATTN_MSG_ERRNO_ENXIO},
        {ENODEV, ATTN_MSG_ERRNO_ENXIO},
        {EXDEV, ATTN_MSG_ERRNO_EXDEV},
        {ENOTEMPTY, ATTN_MSG_ERRNO_ENOTEMPTY},
        {EPIPE, ATTN_MSG_ERRNO_EPIPE},
        {EINVAL, ATTN_MSG_ERRNO_EINVAL},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (words[i].e == e) return words[i].id;
    return ATTN_MSG_NONE;
}

attn_msg attn_utf8_problem_msg(const char *s, size_t len, size_t off) {
    static const attn_msg kinds[] = {ATTN_MSG_UTF8_OK, ATTN_MSG_UTF8_OVERLONG, ATTN_MSG_UTF8_SURROGATE,
                                     ATTN_MSG_UTF8_TRUNCATED, ATTN_MSG_UTF8_STRAY, ATTN_MSG_UTF8_NEVER,
                                     ATTN_MSG_UTF8_ABOVE};
    int k = utf8_problem_kind(s, len, off);
    return k < 0 ? ATTN_MSG_UTF8_END : k < (int)(sizeof kinds / sizeof *kinds) ? kinds[k]
                                                                               : ATTN_MSG_UTF8_INVALID;
}

int attn_msg_arg_count(attn_msg id) {
    int n = 0;
    for (const char *t = attn_msg_english(id); *t; t++)
        if (t[0] == '%' && t[1] == '%') t++;
        else if (t[0] == '%') n++, t += conversion_len(t) - 1;
    return n;
}

/* Formats the conversion spec (one of the English text's, e.g. "%.*s") from ap into out. */
static void format_one(char *out, size_t cap, const char *spec, va_list *ap) {
    int star[2] = {0, 0}, n_star = 0;
    for (const char *c = spec; *c; c++)
        if (*c == '*' && n_star < 2) star[n_star++] = va_arg(*ap, int);
    size_t len = strlen(spec);
    char conv = spec[len - 1];
    bool l = len >= 3 && spec[len - 2] == 'l', ll = l && len >= 4 && spec[len - 3] == 'l',
         z = len >= 3 && spec[len - 2] == 'z';
#define ATTN_PUT(v) (n_star == 0   ? snprintf(out, cap, spec, v) \
                     : n_star == 1 ? snprintf(out, cap, spec, star[0], v) \
                                   : snprintf(out, cap, spec, star[0], star[1], v))
    if (strchr("di", conv)) {
        if (ll) ATTN_PUT(va_arg(*ap, long long));
        else if (l) ATTN_PUT(va_arg(*ap, long));
        else if (z) ATTN_PUT(va_arg(*ap, size_t));
        else ATTN_PUT(va_arg(*ap, int));
    } else if (strchr("uxXo", conv)) {
        if (ll) ATTN_PUT(va_arg(*ap, unsigned long long));
        else if (l) ATTN_PUT(va_arg(*ap, unsigned long));
        else if (z) ATTN_PUT(va_arg(*ap, size_t));
        else ATTN_PUT(va_arg(*ap, unsigned));
    } else if (strchr("eEfFgGaA", conv)) ATTN_PUT(va_arg(*ap, double));
    else if (conv == 'c') ATTN_PUT(va_arg(*ap, int));
    else if (conv == 'p') ATTN_PUT(va_arg(*ap, void *));
    else if (conv == 's') {
        const char *s = va_arg(*ap, const char *);
        ATTN_PUT(s ? s : "");
    } else snprintf(out, cap, "%s", spec);
#undef ATTN_PUT
    utf8_trim_partial(out);
}

attn_status attn_fail_vat(attn_err *err, attn_status code, const char *at, attn_msg id, va_list ap) {
    if (!err) return code;
    va_list mine;
    va_copy(mine, ap);
    memset(err->args, 0, sizeof err->args);
    for (int i = 0; i < ATTN_MSG_ARGS; i++) err->arg_id[i] = ATTN_MSG_NONE;
    err->lead = ATTN_MSG_NONE;
    snprintf(err->at, sizeof err->at, "%s", at ? at : "");
    utf8_trim_partial(err->at);
    size_t used = at && *at ? (size_t)snprintf(err->msg, sizeof err->msg, "%s: ", err->at) : 0;
    if (used >= sizeof err->msg) used = sizeof err->msg - 1;
    err->msg[used] = '\0';
    int next = 0;
    for (const char *t = attn_msg_english(id); *t;) {
        char piece[512] = {*t, 0};
        size_t step = 1;
        if (t[0] == '%' && t[1] == '%') step = 2;
        else if (t[0] == '%' && t[1]) {
            char spec[32];
            step = conversion_len(t);
            snprintf(spec, sizeof spec, "%.*s", (int)(step < sizeof spec ? step : sizeof spec - 1), t);
            if (spec[step - 1] == 'R') { // a reason: an errno, said in words of its own
                int e = va_arg(mine, int);
                attn_msg why = attn_errno_msg(e);
                snprintf(piece, sizeof piece, "%s", why != ATTN_MSG_NONE ? attn_msg_english(why) : strerror(e));
                if (next < ATTN_MSG_ARGS) err->arg_id[next] = why;
            } else if (spec[step - 1] == 'M') { // a message of its own, without arguments
                attn_msg what = (attn_msg)va_arg(mine, int);
                snprintf(piece, sizeof piece, "%s", attn_msg_english(what));
                if (next < ATTN_MSG_ARGS) err->arg_id[next] = what;
            } else format_one(piece, sizeof piece, spec, &mine);
            if (next < ATTN_MSG_ARGS) {
                size_t n = strlen(piece) < sizeof err->args[next] ? strlen(piece) : sizeof err->args[next] - 1;
                memcpy(err->args[next], piece, n); // cut: never in the middle of a character
                err->args[next][n] = '\0';
                utf8_trim_partial(err->args[next++]);
            }
        }
        t += step;
        size_t n = strlen(piece);
        if (n > sizeof err->msg - 1 - used) n = sizeof err->msg - 1 - used;
        memcpy(err->msg + used, piece, n);
        used += n;
        err->msg[used] = '\0';
    }
    va_end(mine);
    utf8_trim_partial(err->msg);
    err->code = code;
    err->id = id;
    return code;
}

attn_status attn_fail_at(attn_err *err, attn_status code, const char *at, attn_msg id, ...) {
    va_list ap;
    va_start(ap, id);
    attn_fail_vat(err, code, at, id, ap);
    va_end(ap);
    return code;
}

attn_status attn_fail_id(attn_err *err, attn_status code, attn_msg id, ...) {
    va_list ap;
    va_start(ap, id);
    attn_fail_vat(err, code, NULL, id, ap);
    va_end(ap);
    return code;
}

attn_status attn_fail_msg(attn_err *err, attn_status code, attn_msg id, const char *a0, const char *a1, const char *a2) {
    if (!err) return code;
    const char *in[3] = {a0, a1, a2};
    memset(err->args, 0, sizeof err->args);
    for (int i = 0; i < ATTN_MSG_ARGS; i++) err->arg_id[i] = ATTN_MSG_NONE;
    err->at[0] = '\0';
    err->lead = ATTN_MSG_NONE;
    for (int i = 0; i < 3; i++) {
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
        err->at[0] = '\0';
        err->lead = ATTN_MSG_NONE;
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
