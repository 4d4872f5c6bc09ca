/* cli_explain.h — the arithmetic of one cell as plain English text, for
 * attnviz --explain (the window words the same terms in its own language:
 * src/render/viz_explain.h). */
#ifndef CLI_EXPLAIN_H
#define CLI_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"

/* Writes a multi-line account of e (token labels from t) into out,
 * NUL-terminated. Returns the bytes it needs (like snprintf), so a return >=
 * cap means it was cut. */
size_t cli_explain_format(const attn_explanation *e, const attn_trace *t, char *out, size_t cap);

/* The same; compact prints 4 significant digits and pads nothing.
 * cli_explain_format is cli_explain_format_ex(..., false, ...). */
size_t cli_explain_format_ex(const attn_explanation *e, const attn_trace *t, bool compact, char *out, size_t cap);

#endif
