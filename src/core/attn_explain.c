/* attn_explain.c — the arithmetic behind any one cell, term by term, mirroring
 * the loops in attn_stages.c so the shown terms add up to the stored value. */
#include "attn.h"
#include "attn_math.h"

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
    int first, width;
    attn_positional_columns(&t->cfg, &first, &width);
    if (t->cfg.pos_enc && !t->x_given && e->col >= first && e->col < first + width) {
        attn_positional_row(pe, t->cfg.pos_offset + e->row, t->cfg.d_model);
        e->input.position = pe[e->col];
    }
    e->input.embedding = e->value - e->input.position;
}

static void explain_projection(attn_explanation *e, const attn_trace *t) {
    const attn_head *hd = &t->head[e->head];
    int dm = t->cfg.d_model, dk = t->cfg.d_k;
    const double *w = e->stage == ATTN_ST_Q ? hd->w_q : e->stage == ATTN_ST_K ? hd->w_k
                                                                              : hd->w_v;
    const double *b = e->stage == ATTN_ST_Q ? hd->b_q : e->stage == ATTN_ST_K ? hd->b_k
                                                                              : hd->b_v;
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
        tm->value = (row[j] == -INFINITY || mx == -INFINITY) ? 0.0 : attn_exp(row[j] - mx);
        sum += tm->value;
    }
    e->softmax.row_max = mx;
    e->softmax.denom = sum;
}

/* The rotation of cell (row, col) of q_rot or k_rot, as attn_rope turns it. */
static void explain_rotate(attn_explanation *e, const attn_trace *t) {
    const attn_head *hd = &t->head[e->head];
    int dk = t->cfg.d_k, i = e->col / 2;
    const double *x = (e->stage == ATTN_ST_Q_ROT ? hd->q : hd->k) + (size_t)e->row * dk;
    e->kind = ATTN_EXPLAIN_ROTATE;
    e->rotate.a = x[2 * i];
    e->rotate.b = x[2 * i + 1];
    e->rotate.pair = i;
    e->rotate.pos = t->cfg.pos_offset + e->row;
    e->rotate.angle = attn_rope_angle(e->rotate.pos, i, dk, t->cfg.rope_base);
    e->rotate.cos = attn_cos(e->rotate.angle);
    e->rotate.sin = attn_sin(e->rotate.angle);
    e->rotate.odd = e->col % 2 == 1;
}

static void explain_head_stage(attn_explanation *e, const attn_trace *t) {
    const attn_head *hd = &t->head[e->head];
    int n = t->n, dk = t->cfg.d_k;
    size_t ij = (size_t)e->row * n + e->col;
    switch (e->stage) {
    case ATTN_ST_Q:
    case ATTN_ST_K:
    case ATTN_ST_V:
        explain_projection(e, t);
        break;
    case ATTN_ST_Q_ROT:
    case ATTN_ST_K_ROT:
        explain_rotate(e, t);
        break;
    case ATTN_ST_SCORES: // S[i][j] = Σ_c q[i][c]·k[j][c]
        dot_terms(e, (t->cfg.rope ? hd->q_rot : hd->q) + (size_t)e->row * dk,
                  (t->cfg.rope ? hd->k_rot : hd->k) + (size_t)e->col * dk, 1, dk); // RoPE: the rotated q and k

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
    if ((s == ATTN_ST_Q_ROT || s == ATTN_ST_K_ROT) && !t->cfg.rope)
        return attn_fail(err, ATTN_ERR_RANGE, "%s exists only with --pos rope.", attn_stage_name(s));
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
