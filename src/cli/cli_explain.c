/* cli_explain.c — --explain's account of one cell: the core's terms
 * (attn_explain) worded as plain English text, aligned for a terminal. */
#include "cli_explain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "utf8.h"

/* The text being built and how: compact for narrow panels (4 significant
 * digits, no column padding). */
typedef struct {
    attn_strbuf text;
    bool compact;
} sbuf;

#define sb_printf(b, ...) attn_sb_printf(&(b)->text, __VA_ARGS__)

static const char *label(const attn_trace *t, int i, char *buf, size_t cap) {
    attn_token_label(&t->tokens, i, 16, buf, cap);
    return buf;
}

/* A token label padded with spaces to cols display columns (CJK is 2 wide). */
static const char *padded_label(const attn_trace *t, int i, int cols, char *buf, size_t cap) {
    size_t len = attn_token_label(&t->tokens, i, cols, buf, cap);
    for (int w = utf8_width(buf, len); w < cols && len + 1 < cap; w++) buf[len++] = ' ';
    buf[len] = '\0';
    return buf;
}

static void format_header(sbuf *b, const attn_explanation *e, const attn_trace *t) {
    char rl[96], cl[96];
    sb_printf(b, "%s", attn_stage_name(e->stage));
    if (attn_stage_per_head(e->stage)) sb_printf(b, " (head %d of %d)", e->head + 1, t->cfg.heads); // heads counted from 1, like tokens
    sb_printf(b, " [%d][%d]: row %d is token %d \"%s\"", e->row, e->col, e->row, e->row + 1,
              label(t, e->row, rl, sizeof rl));
    int rows, cols;
    attn_trace_shape(t, e->stage, &rows, &cols);
    if (cols == t->n && e->stage >= ATTN_ST_SCORES && e->stage <= ATTN_ST_WEIGHTS)
        sb_printf(b, ", column %d is token %d \"%s\"", e->col, e->col + 1, label(t, e->col, cl, sizeof cl));
    sb_printf(b, "\n");
}

static void format_dot(sbuf *b, const attn_explanation *e, const attn_trace *t) {
    static const char *const formula[ATTN_STAGE_COUNT] = {
        [ATTN_ST_Q] = "Q[i][c] = sum over m of X[i][m] * W_Q[m][c]",
        [ATTN_ST_K] = "K[i][c] = sum over m of X[i][m] * W_K[m][c]",
        [ATTN_ST_V] = "V[i][c] = sum over m of X[i][m] * W_V[m][c]",
        [ATTN_ST_SCORES] = "S[i][j] = sum over c of Q[i][c] * K[j][c]",
        [ATTN_ST_Z] = "Z[i][c] = sum over j of A[i][j] * V[j][c]",
        [ATTN_ST_OUTPUT] = "out[i][c] = sum over m of concat[i][m] * W_O[m][c]",
    };
    char tl[96];
    const char *f = e->stage == ATTN_ST_SCORES && t->cfg.rope ? "S[i][j] = sum over c of q_rot[i][c] * k_rot[j][c]"
                                                              : formula[e->stage];
    sb_printf(b, "  %s%s\n", f ? f : "",
              e->dot.has_bias ? " + b[c]" : "");
    double sum = 0.0;
    int w = b->compact ? 1 : 10, p = b->compact ? 4 : 6;
    for (int k = 0; k < e->n_terms; k++) {
        const attn_term *tm = &e->terms[k];
        sum += tm->value;
        if (e->stage == ATTN_ST_Z)
            sb_printf(b, "  j=%-3d %s %*.*g x %*.*g = %*.*g\n", tm->index,
                      padded_label(t, tm->index, b->compact ? 6 : 12, tl, sizeof tl), w, p, tm->a, w, p, tm->b,
                      w, p, tm->value);
        else
            sb_printf(b, "  %c=%-3d %*.*g x %*.*g = %*.*g\n", e->stage == ATTN_ST_SCORES ? 'c' : 'm', tm->index,
                      w, p, tm->a, w, p, tm->b, w, p, tm->value);
    }
    if (e->dot.has_bias) {
        sb_printf(b, "  bias = %.*g\n", p, e->dot.bias);
        sum += e->dot.bias;
    }
    sb_printf(b, "  total = %.10g\n", sum);
}

static void format_softmax(sbuf *b, const attn_explanation *e, const attn_trace *t) {
    char tl[96];
    int cols = b->compact ? 6 : 12, p = b->compact ? 4 : 6;
    sb_printf(b, "  A[i][j] = exp(s[i][j] - max) / sum over j of exp(s[i][j] - max)\n");
    sb_printf(b, "  row max = %.6g (subtracted so exp never overflows)\n", e->softmax.row_max);
    for (int k = 0; k < e->n_terms; k++) {
        const attn_term *tm = &e->terms[k];
        if (tm->a == -INFINITY)
            sb_printf(b, "  j=%-3d %s masked -> 0\n", tm->index, padded_label(t, tm->index, cols, tl, sizeof tl));
        else
            sb_printf(b, "  j=%-3d %s exp(%.*g - %.*g) = %.*g%s\n", tm->index,
                      padded_label(t, tm->index, cols, tl, sizeof tl), p, tm->a, p, tm->b, p, tm->value,
                      tm->index == e->col ? "   <- this cell" : "");
    }
    sb_printf(b, "  denominator = %.10g\n", e->softmax.denom);
    if (e->softmax.masked)
        sb_printf(b, "  this key is masked, so its weight is exactly 0\n");
    else
        sb_printf(b, "  %.6g / %.6g = %.10g\n", e->terms[e->col].value, e->softmax.denom, e->value);
}

size_t cli_explain_format(const attn_explanation *e, const attn_trace *t, char *out, size_t cap) {
    return cli_explain_format_ex(e, t, false, out, cap);
}

size_t cli_explain_format_ex(const attn_explanation *e, const attn_trace *t, bool compact, char *out, size_t cap) {
    sbuf b = {.compact = compact};
    attn_sb_init(&b.text);
    format_header(&b, e, t);
    switch (e->kind) {
    case ATTN_EXPLAIN_INPUT:
        if (t->x_given) sb_printf(&b, "  X as given in the weights file = %.10g\n", e->value);
        else if (t->cfg.pos_enc)
            sb_printf(&b, "  embedding %.10g + positional encoding %.10g = %.10g\n", e->input.embedding,
                      e->input.position, e->value);
        else sb_printf(&b, "  embedding = %.10g\n", e->value);
        break;
    case ATTN_EXPLAIN_DOT: format_dot(&b, e, t); break;
    case ATTN_EXPLAIN_SCALE:
        if (t->cfg.scale)
            sb_printf(&b, "  %.10g / sqrt(%d) = %.10g / %.6g = %.10g\n", e->scale.score, t->cfg.d_k, e->scale.score,
                      e->scale.divisor, e->value);
        else sb_printf(&b, "  scaling is off: %.10g is kept as it is\n", e->value);
        break;
    case ATTN_EXPLAIN_MASK:
        if (e->mask.masked) sb_printf(&b, "  the mask hides this key: -inf (weight 0 after softmax)\n");
        else sb_printf(&b, "  the mask allows this key: %.10g is kept\n", e->mask.score);
        break;
    case ATTN_EXPLAIN_SOFTMAX: format_softmax(&b, e, t); break;
    case ATTN_EXPLAIN_COPY:
        sb_printf(&b, "  copied from Z of head %d, column %d: %.10g\n", e->copy.head, e->copy.col, e->value);
        break;
    case ATTN_EXPLAIN_ROTATE: { // RoPE: pair i of the row at position m turns by m·B^(-2i/d_k)
        const char *x = e->stage == ATTN_ST_Q_ROT ? "q" : "k";
        int i = e->rotate.pair;
        sb_printf(&b, "  pair %d (columns %d, %d) at position %d turns by %d * %.0f^(-%d/%d) = %.10g rad\n", i, 2 * i,
                  2 * i + 1, e->rotate.pos, e->rotate.pos, t->cfg.rope_base, 2 * i, t->cfg.d_k, e->rotate.angle);
        if (e->rotate.odd)
            sb_printf(&b, "  %s[%d]*sin + %s[%d]*cos = %.10g * %.10g + %.10g * %.10g = %.10g\n", x, 2 * i, x, 2 * i + 1,
                      e->rotate.a, e->rotate.sin, e->rotate.b, e->rotate.cos, e->value);
        else
            sb_printf(&b, "  %s[%d]*cos - %s[%d]*sin = %.10g * %.10g - %.10g * %.10g = %.10g\n", x, 2 * i, x, 2 * i + 1,
                      e->rotate.a, e->rotate.cos, e->rotate.b, e->rotate.sin, e->value);
        break;
    }
    }
    // snprintf's contract: as much as fits, NUL-terminated, and the length it all needs
    size_t len = attn_sb_ok(&b.text) ? b.text.len : 0; // out of memory: nothing was built
    if (cap) {
        size_t n = len < cap ? len : cap - 1;
        if (n) memcpy(out, b.text.data, n);
        out[n] = '\0';
    }
    attn_sb_free(&b.text);
    return len;
}
