/* viz_lesson.c — a lesson page's {references}, computed (viz_lesson.h). */
#include "viz_lesson.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viz_internal.h"

/* A value as the cells show it (2 decimals), or with 3 significant digits. */
static size_t value_text(char *out, size_t cap, double v, bool exact) {
    if (!exact) viz_format_value(out, cap, v);
    else if (v == -INFINITY) snprintf(out, cap, "−∞");
    else snprintf(out, cap, "%.3g", v == 0 ? 0.0 : v);
    return strlen(out);
}

static size_t cell(char *out, size_t cap, const lesson_ref *r, const attn_trace *t) {
    int row = lesson_find_token(&t->tokens, &r->row), rows, cols;
    int col = r->col_dim >= 0 ? r->col_dim : lesson_find_token(&t->tokens, &r->col);
    attn_trace_shape(t, r->stage, &rows, &cols);
    const double *m = attn_trace_stage(t, r->stage, r->head);
    if (!m || row < 0 || col < 0 || row >= rows || col >= cols) return (size_t)snprintf(out, cap, "—");
    return value_text(out, cap, m[(size_t)row * cols + col], r->exact);
}

/* The weights of a row without the keys r names. */
static size_t rest(char *out, size_t cap, const lesson_ref *r, const attn_trace *t) {
    int row = lesson_find_token(&t->tokens, &r->row);
    const double *a = attn_trace_stage(t, ATTN_ST_WEIGHTS, r->head);
    if (!a || row < 0) return (size_t)snprintf(out, cap, "—");
    double sum = 0;
    for (int j = 0; j < t->n; j++) {
        bool named = false;
        for (int k = 0; k < r->n_keys; k++) named |= lesson_find_token(&t->tokens, &r->keys[k]) == j;
        if (!named) sum += a[(size_t)row * t->n + j];
    }
    return value_text(out, cap, sum, r->exact);
}

size_t viz_lesson_ref(char *out, size_t cap, const lesson_ref *r, const attn_trace *t, const attn_trace *alt,
                      const char *const *ui) {
    if (cap) out[0] = '\0';
    switch (r->kind) {
    case LESSON_REF_STEP: {
        viz_str name = (viz_str)(VIZ_S_STEP_1 + r->step);
        return (size_t)snprintf(out, cap, "%d · %s", r->step + 1, ui && ui[name] ? ui[name] : viz_str_key(name));
    }
    case LESSON_REF_CELL: return cell(out, cap, r, t);
    case LESSON_REF_REST: return rest(out, cap, r, t);
    case LESSON_REF_MACS: return (size_t)snprintf(out, cap, "%lld", attn_step_macs(t, (attn_step)r->step));
    case LESSON_REF_MEAN_MAX:
        if (r->compare && !alt) return (size_t)snprintf(out, cap, "—");
        return (size_t)snprintf(out, cap, "%.2f", attn_mean_row_max(r->compare ? alt : t, r->head));
    case LESSON_REF_TOKENS: return (size_t)snprintf(out, cap, "%d", t->n);
    }
    return 0;
}

viz_mark viz_lesson_mark(const lesson_highlight *hl, const attn_tokens *t) {
    viz_mark m = {VIZ_MARK_NONE, -1, -1};
    int a = hl->kind != LESSON_HL_NONE ? lesson_find_token(t, &hl->a) : -1;
    int b = hl->kind == LESSON_HL_CELL ? lesson_find_token(t, &hl->b) : -1;
    if (hl->kind == LESSON_HL_TOKEN && a >= 0) m = (viz_mark){VIZ_MARK_TOKEN, a, -1};
    else if (hl->kind == LESSON_HL_COLUMN && a >= 0) m = (viz_mark){VIZ_MARK_COLUMN, -1, a};
    else if (hl->kind == LESSON_HL_CELL && a >= 0 && b >= 0) m = (viz_mark){VIZ_MARK_CELL, a, b};
    return m;
}

void viz_lesson_names(viz_names *out, const lesson *l, int i, const attn_trace *t) {
    static const attn_matrix w[3] = {ATTN_MAT_W_Q, ATTN_MAT_W_K, ATTN_MAT_W_V};
    memset(out, 0, sizeof *out);
    const lesson_page *pg = l ? lesson_page_at(l, i) : NULL;
    if (!pg) return;
    out->keep = pg->keep;
    out->n_keep = pg->n_keep;
    lesson_names nm;
    lesson_page_names(l, i, &t->cfg, &nm);
    // a name describes what a design computes: random weights in its place compute something else
    for (int k = 0; k < 3; k++)
        for (int h = 0; h < t->cfg.heads && h < ATTN_MAX_HEADS; h++)
            if (t->given[w[k]][h]) out->qkv[k][h] = nm.mat[w[k]][h];
    if (t->given[ATTN_MAT_W_O][0]) out->out = nm.mat[ATTN_MAT_W_O][0];
}

/* A paragraph's text with its {references} computed. */
static void para_text(attn_strbuf *b, const lesson_page *pg, const lesson_para *p, const attn_trace *t,
                      const attn_trace *alt, const char *const *ui) {
    int at = 0, len = (int)strlen(p->text);
    char val[128];
    for (int k = 0; k < p->n_spans; k++) {
        const lesson_span *sp = &p->spans[k];
        if (sp->kind != LESSON_SPAN_REF || sp->ref < 0) continue;
        attn_sb_append(b, p->text + at, (size_t)(sp->start - at));
        viz_lesson_ref(val, sizeof val, &pg->refs[sp->ref], t, alt, ui);
        attn_sb_puts(b, val);
        at = sp->start + sp->len;
    }
    attn_sb_append(b, p->text + at, (size_t)(len - at));
}

/* A code block, each of its lines after the code mark. */
static void code_text(attn_strbuf *b, const char *text) {
    for (const char *p = text;;) {
        const char *nl = strchr(p, '\n');
        attn_sb_puts(b, VIZ_CODE_MARK);
        attn_sb_append(b, p, nl ? (size_t)(nl - p) : strlen(p));
        attn_sb_puts(b, "\n");
        if (!nl) break;
        p = nl + 1;
    }
}

void viz_lesson_narrative(attn_strbuf *b, const lesson_page *pg, bool asked, const attn_trace *t,
                          const attn_trace *alt, const char *const *ui) {
    for (int i = 0; i < pg->n_paras; i++) {
        const lesson_para *p = &pg->paras[i];
        if (pg->has_reveal && p->after_reveal && asked) break; // the answer waits
        bool item = p->kind == LESSON_PARA_ITEM, next_item = i + 1 < pg->n_paras && pg->paras[i + 1].kind == LESSON_PARA_ITEM;
        if (p->kind == LESSON_PARA_CODE) {
            code_text(b, p->text);
            attn_sb_puts(b, "\n");
            continue;
        }
        if (item) attn_sb_puts(b, "• ");
        para_text(b, pg, p, t, alt, ui);
        attn_sb_puts(b, item && next_item ? "\n" : "\n\n"); // list items stay together
    }
}
