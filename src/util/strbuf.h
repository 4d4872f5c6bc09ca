/* strbuf.h — a growable byte buffer for building text (JSON, tables, CSV).
 *
 * Appends never fail loudly: on allocation failure the buffer marks itself
 * failed and ignores further appends; check attn_sb_ok() once at the end. */
#ifndef ATTN_STRBUF_H
#define ATTN_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *data;  /* NUL-terminated contents (NULL until the first append), owned */
    size_t len;  /* bytes used, without the NUL */
    size_t cap;  /* bytes allocated */
    bool failed; /* an allocation failed; contents are incomplete */
} attn_strbuf;

/* An empty buffer; equivalent to zero-initialising. */
void attn_sb_init(attn_strbuf *b);

/* Frees the contents and empties b. NULL is a no-op. */
void attn_sb_free(attn_strbuf *b);

/* true unless an allocation failed. */
bool attn_sb_ok(const attn_strbuf *b);

void attn_sb_append(attn_strbuf *b, const char *s, size_t len);
void attn_sb_puts(attn_strbuf *b, const char *s);
void attn_sb_printf(attn_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define ATTN_DOUBLE_CHARS 32 /* room for any attn_format_double */

/* Writes into buf the shortest "%.Ng" form of v (N from 15 to 17) that reads
 * back as exactly v, with '.' as the decimal point whatever the locale; so a
 * message can tell 1.0000000000000002e+18 from the limit 1e18. Non-finite
 * values read "inf", "-inf" or "nan". Returns buf. */
char *attn_format_double(char buf[ATTN_DOUBLE_CHARS], double v);

/* Appends the shortest "%.Ng" form of v that reads back exactly, always with
 * '.' as the decimal point whatever the locale. Non-finite values append "null". */
void attn_sb_number(attn_strbuf *b, double v);

/* Appends s (len bytes of UTF-8) as a quoted JSON string. */
void attn_sb_json_string(attn_strbuf *b, const char *s, size_t len);

/* Appends s as one word for a POSIX shell: as it is when it holds only
 * characters no shell treats specially (letters, digits, _./-=,:+@%), else
 * single-quoted (a ' inside as '\''). */
void attn_sb_shell_word(attn_strbuf *b, const char *s);

/* Gives the caller the contents (free() them) and empties b. Returns NULL if
 * the buffer failed or is empty; an empty buffer gives "" (allocated). */
char *attn_sb_take(attn_strbuf *b);

#endif
