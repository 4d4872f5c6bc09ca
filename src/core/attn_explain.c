/* attn_explain.c — the arithmetic behind any one cell, term by term, mirroring
 * the loops in attn_stages.c so the shown terms add up to the stored value. */
#include "attn.h"
#include "strbuf.h"
#include "utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Fills DOT terms a[c]·b[c·stride] for c < count. */
static void dot_terms(attn_explanation *e, const double *a, const double *b,
                      size_t stride, int count) {
    e->kind = ATTN_EXPLAIN_DOT;
    e->n_terms = count;
    for (int c = 0; c < count; c++) {
        attn_term *tm = &e->terms[c];
        tm->index = c;
        tm->a = a[c];
        tm->b = b[(size_t)c * stride];
        tm->value = tm->a * tm->b;
    }
}

static void explain_input(attn_explanation *e, const attn_trace *t) {
    double pe[ATTN_MAX_D_MODEL];
    e->kind = ATTN_EXPLAIN_INPUT;
    e->input.position = 0.0;
    if (t->cfg.pos_enc && !t->x_given) {
        attn_positional_row(pe, e->row, t->cfg.d_model);
        e->input.position = pe[e->col];
    }
    e->input.embedding = e->value - e->input.position;
}

static void explain_projection(attn_explanation *e, const attn_trace *t) {
    const attn_head *hd = &t->head[e->head];
    int dm = t->cfg.d_model, dk = t->cfg.d_k;
    const double *w = e->stage == ATTN_ST_Q ? hd->w_q : e->stage == ATTN_ST_K ? hd->w_k : hd->w_v;
    const double *b = e->stage == ATTN_ST_Q ? hd->b_q : e->stage == ATTN_ST_K ? hd->b_k : hd->b_v;
    dot_terms(e, t->x + (size_t)e->row * dm, w + e->col, (size_t)dk, dm);
    e->dot.has_bias = t->cfg.bias;
    e->dot.bias = b[e->col];
}

static void explain_softmax(attn_explanation *e, const attn_trace *t) {
    int n = t->n;
    const double *row = t->head[e->head].masked + (size_t)e->row * n;
    e->kind = ATTN_EXPLAIN_SOFTMAX;
    e->softmax.score = row[e->col];
    e->softmax.masked = row[e->col] == -INFINITY;
    double mx = -INFINITY, sum = 0.0;
    for (int j = 0; j < n; j++)
        if (row[j] > mx) mx = row[j];
    e->n_terms = n;
    for (int j = 0; j < n; j++) {
        attn_term *tm = &e->terms[j];
        tm->index = j;
        tm->a = row[j];
        tm->b = mx;
        tm->value = (row[j] == -INFINITY || mx == -INFINITY) ? 0.0 : exp(row[j] - mx);
        sum += tm->value;
    }
    e->softmax.row_max = mx;
    e->softmax.denom = sum;
}

static void explain_head_stage(attn_explanation *e, const attn_trace *t) {
    const attn_head *hd = &t->head[e->head];
    int n = t->n, dk = t->cfg.d_k;
    size_t ij = (size_t)e->row * n + e->col;
    switch (e->stage) {
    case ATTN_ST_Q: case ATTN_ST_K: case ATTN_ST_V:
        explain_projection(e, t);
        break;
    case ATTN_ST_SCORES: // S[i][j] = Σ_c q[i][c]·k[j][c]
        dot_terms(e, hd->q + (size_t)e->row * dk, hd->k + (size_t)e->col * dk, 1, dk);
        break;
    case ATTN_ST_SCALED:
        e->kind = ATTN_EXPLAIN_SCALE;
        e->scale.score = hd->scores[ij];
        e->scale.divisor = t->cfg.scale ? sqrt((double)dk) : 1.0;
        break;
    case ATTN_ST_MASKED:
        e->kind = ATTN_EXPLAIN_MASK;
        e->mask.score = hd->scaled[ij];
        e->mask.masked = !attn_mask_allows(t->cfg.mask, e->row, e->col);
        break;
    case ATTN_ST_WEIGHTS:
        explain_softmax(e, t);
        break;
    default: // ATTN_ST_Z: Z[i][c] = Σ_j a[i][j]·v[j][c]
        dot_terms(e, hd->weights + (size_t)e->row * n, hd->v + e->col, (size_t)dk, n);
        break;
    }
}

attn_status attn_explain(attn_explanation *e, const attn_trace *t, attn_stage s,
                         int h, int row, int col, attn_err *err) {
    if ((int)s < 0 || s >= ATTN_STAGE_COUNT)
        return attn_fail(err, ATTN_ERR_RANGE, "Unknown stage number %d.", (int)s);
    bool per_head = attn_stage_per_head(s);
    if (per_head && (h < 0 || h >= t->cfg.heads))
        return attn_fail(err, ATTN_ERR_RANGE, "Head %d does not exist: heads are 0 to %d.",
                         h, t->cfg.heads - 1);
    int rows, cols;
    attn_trace_shape(t, s, &rows, &cols);
    if (row < 0 || row >= rows)
        return attn_fail(err, ATTN_ERR_RANGE, "Row %d is outside %s: rows are 0 to %d.",
                         row, attn_stage_name(s), rows - 1);
    if (col < 0 || col >= cols)
        return attn_fail(err, ATTN_ERR_RANGE, "Column %d is outside %s: columns are 0 to %d.",
                         col, attn_stage_name(s), cols - 1);
    memset(e, 0, offsetof(attn_explanation, terms));
    e->stage = s;
    e->head = per_head ? h : 0;
    e->row = row;
    e->col = col;
    e->value = attn_trace_stage(t, s, e->head)[(size_t)row * cols + col];
    int dk = t->cfg.d_k, hk = t->cfg.heads * dk;
    if (s == ATTN_ST_X) {
        explain_input(e, t);
    } else if (per_head) {
        explain_head_stage(e, t);
    } else if (s == ATTN_ST_CONCAT) {
        e->kind = ATTN_EXPLAIN_COPY;
        e->copy.head = col / dk;
        e->copy.col = col % dk;
    } else { // output[i][c] = Σ_m concat[i][m]·W_O[m][c] + b_O[c]
        dot_terms(e, t->concat + (size_t)row * hk, t->w_o + col, (size_t)t->cfg.d_model, hk);
        e->dot.has_bias = t->cfg.bias;
        e->dot.bias = t->b_o[col];
    }
    return ATTN_OK;
}

/* ---- formatting -------------------------------------------------------- */

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
    sb_printf(b, "  %s%s\n", formula[e->stage] ? formula[e->stage] : "",
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

size_t attn_explain_format(const attn_explanation *e, const attn_trace *t, char *out, size_t cap) {
    return attn_explain_format_ex(e, t, false, out, cap);
}

size_t attn_explain_format_ex(const attn_explanation *e, const attn_trace *t, bool compact, char *out, size_t cap) {
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
