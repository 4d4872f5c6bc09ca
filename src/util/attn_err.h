/* attn_err.h — status codes and learner-readable error messages shared by the core.
 *
 * Every fallible core function returns an attn_status and, when given a non-NULL
 * attn_err, fills it with a message written for a learner (no jargon, names the
 * option or stage at fault). The caller owns the attn_err; it holds no pointers.
 *
 * Layer 1 of the README's Layout (src/util): includes nothing of attnviz above it. */
#ifndef ATTN_ERR_H
#define ATTN_ERR_H

#include <stdarg.h>
#include <stddef.h>

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

/* The errors a learner may see in the window, by id (attn_msgs.def). */
typedef enum {
    ATTN_MSG_NONE, /* the message is only the English text of msg */
#define ATTN_MSG(id, en) ATTN_MSG_##id,
#include "attn_msgs.def"
#undef ATTN_MSG
    ATTN_MSG_COUNT
} attn_msg;

#define ATTN_MSG_ARGS 8

typedef struct {
    attn_status code;               /* same value the function returned */
    char msg[512];                  /* one or two sentences, UTF-8, no trailing newline */
    attn_msg id;                    /* which message (ATTN_MSG_NONE: msg is all there is) */
    char args[ATTN_MSG_ARGS][128];  /* its arguments, in order, as text */
    attn_msg arg_id[ATTN_MSG_ARGS]; /* an argument that is itself a message (a %R reason): its id, else NONE */
    attn_msg lead;                  /* a message without arguments said before it ("this sentence cannot be used:"), or NONE */
    char at[256];                   /* where it applies ("lesson.md:3:5"), said before it in every language; "" for none */
} attn_err;

/* Fills err (if non-NULL) with code and a printf-style message; returns code.
 * A message longer than msg is cut on a character boundary. */
attn_status attn_fail(attn_err *err, attn_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Fills err (if non-NULL) with code, message id and its arguments (NULL
 * for none; cut on a character boundary), and msg with the id's English
 * text; returns code. */
attn_status attn_fail_msg(attn_err *err, attn_status code, attn_msg id, const char *a0, const char *a1, const char *a2);

/* Fills err (if non-NULL) with code and message id; the arguments follow
 * the conversions of the id's English text in attn_msgs.def (printf's: %s,
 * %d, %zu, %.*s, %g, ...), each kept as text for the other languages; %R
 * takes an errno (int) and says it as a message of its own (ERRNO_*:
 * translated; libc's words for a rare one), %M an attn_msg without
 * arguments, said in the UI's language too. at
 * (NULL or "" for none) is where it applies, a file name or "file:line:col";
 * msg is "at: English". Cut on a character boundary; returns code. */
attn_status attn_fail_at(attn_err *err, attn_status code, const char *at, attn_msg id, ...);

/* attn_fail_at without a place. */
attn_status attn_fail_id(attn_err *err, attn_status code, attn_msg id, ...);

/* attn_fail_at with a va_list. */
attn_status attn_fail_vat(attn_err *err, attn_status code, const char *at, attn_msg id, va_list ap);

/* The message that says errno e ("there is no such file or folder"), or
 * ATTN_MSG_NONE for one without words of its own. */
attn_msg attn_errno_msg(int e);

/* What is wrong with the UTF-8 at s[off] (utf8_problem's phrase), as a
 * message for %M. */
attn_msg attn_utf8_problem_msg(const char *s, size_t len, size_t off);

/* How many arguments a message id takes (the conversions of its English text). */
int attn_msg_arg_count(attn_msg id);

/* The English text of a message id, with %s for its arguments ("" for NONE). */
const char *attn_msg_english(attn_msg id);

/* The id's name as the strings table's key has it after "ERR_" ("SENTENCE_EMPTY"). */
const char *attn_msg_name(attn_msg id);

/* Writes template with each conversion (%s, %d, %.*s, ...) replaced by args
 * in order (%% is a %) into out. */
void attn_msg_format(char *out, size_t cap, const char *template_, const char (*args)[128], int n_args);

/* Resets err (if non-NULL) to ATTN_OK with an empty message. */
void attn_err_clear(attn_err *err);

/* A short English name for a status ("range error", ...). Never NULL. */
const char *attn_status_name(attn_status s);

#endif
