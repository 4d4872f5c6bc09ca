/* utf8.h — strict UTF-8 decoding and terminal display width.
 *
 * Strict means: no overlong forms, no surrogates (U+D800..DFFF), nothing above
 * U+10FFFF, no truncated sequences, no stray continuation bytes. */
#ifndef ATTN_UTF8_H
#define ATTN_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one code point from s[0..len). On success stores it in *cp and returns
 * the number of bytes used (1..4). On malformed input returns 0 and leaves *cp
 * unspecified. len == 0 returns 0. */
int utf8_decode(const char *s, size_t len, uint32_t *cp);

/* Encodes cp (<= U+10FFFF, not a surrogate) into out (at least 4 bytes).
 * Returns bytes written (1..4), or 0 for an invalid code point. */
int utf8_encode(uint32_t cp, char *out);

/* Checks the whole buffer. Returns (size_t)-1 when valid, otherwise the byte
 * offset of the first malformed sequence. A NUL byte counts as valid here. */
size_t utf8_find_invalid(const char *s, size_t len);

/* A short phrase naming what is wrong at s[off] ("an overlong encoding",
 * "a UTF-16 surrogate", "a truncated sequence", "a stray continuation byte",
 * "a byte that never appears in UTF-8", "a code point above U+10FFFF"). */
const char *utf8_problem(const char *s, size_t len, size_t off);

/* What is wrong at s[off], as a number (attn_utf8_problem_msg words it in
 * every language): -1 the end of the text, 0 a well-formed character, 1 an
 * overlong encoding, 2 a surrogate, 3 a truncated sequence, 4 a stray
 * continuation byte, 5 a byte never in UTF-8, 6 above U+10FFFF. */
int utf8_problem_kind(const char *s, size_t len, size_t off);

/* Columns a code point takes in a terminal: 0 for combining marks, ZWJ and
 * variation selectors, 2 for East Asian Wide/Fullwidth and emoji, else 1. */
int utf8_cp_width(uint32_t cp);

/* Display width of a valid UTF-8 string of len bytes (sum of utf8_cp_width). */
int utf8_width(const char *s, size_t len);

/* Longest prefix of s (valid UTF-8, len bytes) that fits in max_cols columns,
 * never splitting a code point. Returns its length in bytes. */
size_t utf8_prefix_fitting(const char *s, size_t len, int max_cols);

/* Bytes of s (len bytes) to keep when cutting it to at most max bytes: never
 * inside a code point (a cut that would split one is moved before it). */
size_t utf8_cut(const char *s, size_t len, size_t max);

/* len, less an incomplete code point at the very end of s (what a truncating
 * snprintf leaves behind). */
size_t utf8_drop_partial(const char *s, size_t len);

/* Ends the NUL-terminated s before an incomplete code point at its end: call
 * it after a snprintf that may have cut user text short. */
void utf8_trim_partial(char *s);

/* 3 when s (len bytes) starts with the UTF-8 byte order mark EF BB BF, else 0:
 * how many bytes to skip so that it is not read as text. */
size_t utf8_bom_len(const char *s, size_t len);

/* s (len bytes, any bytes) as text that cannot act on a terminal, for
 * echoing what a file says: a control character (U+0000-U+001F, U+007F) and
 * a byte that is not part of valid UTF-8 are written \xHH, a C1 control
 * (U+0080-U+009F) \uHHHH; everything else is copied. out (cap > 0 bytes)
 * gets as much as fits, never half a character or escape, NUL-terminated.
 * Returns the bytes written (without the NUL). */
size_t utf8_visible(char *out, size_t cap, const char *s, size_t len);

#endif
