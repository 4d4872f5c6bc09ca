/* viz_lesson.c — a lesson page's {references}, computed (viz_lesson.h). */
#include "viz_lesson.h"
#include "attn_steps.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_decode.h"
#include "attn_settings.h"
#include "attn_tiles.h"
#include "task.h"
#include "viz_internal.h"

/* A value as the cells show it (2 decimals), or with 3 significant digits. */
static size_t value_text(char *out, size_t cap, double v, bool exact) {
    if (!exact) viz_format_value(out, cap, v);
    else if (v == -INFINITY) snprintf(out, cap, "−∞");
    else snprintf(out, cap, "%.3g", v == 0 ? 0.0 : v);
    return strlen(out);
}

/* The trace a reference is computed on: the page's layer, or the model's layer it names. */
static const attn_trace *ref_trace(const lesson_ref *r, const viz_ref_ctx *x) {
    if (!x->model) return x->trace;
    return &x->run->layer[r->layer >= 0 ? r->layer : x->layer];
}

/* The pronoun's row of A in layer (a model page; -1: the page's) and head, and the tokens' trace. */
static const double *pronoun_row(const viz_ref_ctx *x, int layer, int head, const attn_trace **t, int *pron) {
    *t = x->model ? &x->run->layer[layer >= 0 ? layer : x->layer] : x->trace;
    *pron = *t ? attn_trace_pronoun(*t) : -1;
    const double *a = *pron >= 0 ? attn_trace_stage(*t, ATTN_ST_WEIGHTS, head) : NULL;
    return a ? a + (size_t)*pron * (*t)->n : NULL;
}

static int row_top(const double *a, int n) {
    int best = 0;
    for (int j = 1; j < n; j++)
        if (a[j] > a[best]) best = j;
    return best;
}

/* A designed sentence's first token whose row of X has feature f, but for
 * the two skipped (-1: none). */
static int with_feature(const attn_trace *t, int f, int skip, int skip2) {
    const double *xm = attn_trace_stage(t, ATTN_ST_X, 0);
    for (int i = 0; xm && f >= 0 && f < t->cfg.d_model && i < t->n; i++)
        if (i != skip && i != skip2 && t->vocab_used && t->vocab_index[i] >= 0 && xm[(size_t)i * t->cfg.d_model + f] > 0) return i;
    return -1;
}

int viz_lesson_role(const viz_ref_ctx *x, const lesson_tokref *tr, int layer, int head) {
    if (x->model && !x->run) return -1;
    const attn_trace *t;
    int pron;
    const double *row = pronoun_row(x, layer, head, &t, &pron);
    if (!row) return -1;
    if (tr->role == LESSON_ROLE_PRONOUN) return pron;
    if (tr->role == LESSON_ROLE_TOP) return row_top(row, t->n);
    task_roles_at at = {-1, -1, -1, -1};
    const task_info *task = x->model ? task_find(x->model->task) : NULL;
    bool parts = task && task_roles(task, x->run->ids, t->n, &at);
    int referent = -1;
    if (x->model) { // the model's answer at the pronoun, found in the sentence
        for (int j = 0; j < t->n && referent < 0; j++)
            if (x->run->ids[j] == x->run->predicted[pron] && j != pron) referent = j;
    } else {
        const attn_trace *own;
        int p0;
        const double *r0 = pronoun_row(x, -1, 0, &own, &p0);
        referent = r0 ? row_top(r0, own->n) : -1;
    }
    if (tr->role == LESSON_ROLE_REFERENT) return referent;
    if (tr->role == LESSON_ROLE_PREDICATE)
        return x->model ? (parts ? at.predicate : -1) : with_feature(t, tr->predicate_feature, -1, -1);
    if (x->model) return !parts ? -1 : referent == at.a ? at.b
                                                        : at.a; // the other noun
    return with_feature(t, tr->noun_feature, pron, referent);
}

/* Index of the token tr names in t (r's trace): by its text, or by its role. */
static int find(const lesson_tokref *tr, const attn_trace *t, const lesson_ref *r, const viz_ref_ctx *x) {
    if (tr->role == LESSON_ROLE_NONE) return lesson_find_token(&t->tokens, tr);
    return viz_lesson_role(x, tr, r->layer, r->head);
}

/* Cell (row, col) of r's stage as the figure shows it, or NULL. */
static const double *stage_cell(const lesson_ref *r, const viz_ref_ctx *x, int row, int col) {
    const attn_trace *t = ref_trace(r, x);
    int rows, cols;
    const double *m;
    if (x->model) m = model_result_stage(x->run, x->model, r->stage, r->layer >= 0 ? r->layer : x->layer, r->head,
                                         &rows, &cols);
    else {
        attn_trace_shape(t, (attn_stage)r->stage, &rows, &cols);
        m = attn_trace_stage(t, (attn_stage)r->stage, r->head);
    }
    if (!m || row < 0 || col < 0 || row >= rows || col >= cols) return NULL;
    return &m[(size_t)row * cols + col];
}

static size_t cell(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    const attn_trace *t = ref_trace(r, x);
    int row = find(&r->row, t, r, x);
    int col = r->col_dim >= 0 ? r->col_dim : find(&r->col, t, r, x);
    const double *v = stage_cell(r, x, row, col);
    if (!v) return (size_t)snprintf(out, cap, "—");
    return value_text(out, cap, *v, r->exact);
}

/* The row of A r names (its head, its layer), and the row's index, or NULL. */
static const double *weights_row(const lesson_ref *r, const viz_ref_ctx *x, int *row) {
    const attn_trace *t = ref_trace(r, x);
    *row = find(&r->row, t, r, x);
    const double *a = attn_trace_stage(t, ATTN_ST_WEIGHTS, r->head);
    return a && *row >= 0 ? a + (size_t)*row * t->n : NULL;
}

/* The weights of a row without the keys r names. */
static size_t rest(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    const attn_trace *t = ref_trace(r, x);
    int row;
    const double *a = weights_row(r, x, &row);
    if (!a) return (size_t)snprintf(out, cap, "—");
    double sum = 0;
    for (int j = 0; j < t->n; j++) {
        bool named = false;
        for (int k = 0; k < r->n_keys; k++) named |= find(&r->keys[k], t, r, x) == j;
        if (!named) sum += a[j];
    }
    return value_text(out, cap, sum, r->exact);
}

/* The key a row attends to most (ties to the first), as the chips label it. */
static size_t top(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    const attn_trace *t = ref_trace(r, x);
    int row;
    const double *a = weights_row(r, x, &row);
    if (!a) return (size_t)snprintf(out, cap, "—");
    int best = 0;
    for (int j = 1; j < t->n; j++)
        if (a[j] > a[best]) best = j;
    attn_token_label(&t->tokens, best, 0, out, cap);
    return strlen(out);
}

/* A row's weight on the first key over its weight on the second. */
static size_t ratio(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    const attn_trace *t = ref_trace(r, x);
    int row, k0 = find(&r->keys[0], t, r, x), k1 = find(&r->keys[1], t, r, x);
    const double *a = weights_row(r, x, &row);
    if (!a || k0 < 0 || k1 < 0 || a[k1] <= 0) return (size_t)snprintf(out, cap, "—");
    return value_text(out, cap, a[k0] / a[k1], r->exact);
}

/* The model's answer at a row: the word it predicts (a pointer model: the word it points at). */
static size_t answer(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    int row = find(&r->row, &x->run->layer[0], r, x);
    if (row < 0) return (size_t)snprintf(out, cap, "—");
    return (size_t)snprintf(out, cap, "%s", x->model->vocab[x->run->predicted[row]]);
}

/* A small difference as a learner reads it: "0" when there is none, else 2 significant digits ("1.2e-13", "11"). */
static size_t tiny_text(char *out, size_t cap, double v) {
    return (size_t)(v == 0 ? snprintf(out, cap, "0") : snprintf(out, cap, "%.2g", v));
}

/* {decode FIELD [TOKEN]}: the trace decoded token by token with its KV cache. */
static size_t decode_ref(char *out, size_t cap, const lesson_ref *r, const attn_trace *t, const viz_ref_ctx *x) {
    int kv = attn_kv_heads(&t->cfg);
    if (r->field == LESSON_DEC_GROUP) return (size_t)snprintf(out, cap, "%d", kv > 0 ? t->cfg.heads / kv : 0);
    if (r->field == LESSON_DEC_NAME) return (size_t)snprintf(out, cap, "%s", ATTN_DECODE_REAL_NAME);
    if (r->field == LESSON_DEC_TOKENS) return (size_t)snprintf(out, cap, "%d", ATTN_DECODE_REAL_TOKENS);
    if (r->field == LESSON_DEC_REAL)
        return (size_t)snprintf(out, cap, "%lld MiB",
                                attn_kv_cache_bytes(ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                                                    ATTN_DECODE_REAL_TOKENS, ATTN_DECODE_REAL_BYTES) /
                                    (1024 * 1024));
    int row = r->row.text || r->row.role != LESSON_ROLE_NONE ? find(&r->row, t, r, x) : t->n - 1;
    attn_decode d = {0};
    if (row < 0 || row >= t->n || attn_decode_run(&d, t, NULL) != ATTN_OK) return (size_t)snprintf(out, cap, "—");
    const attn_decode_step *k = &d.step[row];
    long long v = r->field == LESSON_DEC_CELLS ? k->cells : r->field == LESSON_DEC_MACS ? k->macs
                                                        : r->field == LESSON_DEC_FULL   ? k->full_macs
                                                                                        : k->cache_bytes;
    attn_decode_free(&d);
    return (size_t)snprintf(out, cap, "%lld", v);
}

/* {tiles FIELD B}: head r->head's online softmax in blocks of B. */
static size_t tiles_ref(char *out, size_t cap, const lesson_ref *r, const attn_trace *t) {
    attn_tiles tl = {0};
    if (attn_tiles_of_head(&tl, t, r->head, r->block, NULL) != ATTN_OK) return (size_t)snprintf(out, cap, "—");
    size_t len;
    const double *z = attn_trace_stage(t, ATTN_ST_Z, r->head);
    switch (r->field) {
    case LESSON_TILE_HELD: len = (size_t)snprintf(out, cap, "%zu", tl.max_bytes); break;
    case LESSON_TILE_FULL: len = (size_t)snprintf(out, cap, "%zu", tl.full_bytes); break;
    case LESSON_TILE_STEPS: len = (size_t)snprintf(out, cap, "%d", tl.count); break;
    case LESSON_TILE_SKIPPED: len = (size_t)snprintf(out, cap, "%d", tl.skipped); break;
    default:
        len = z ? tiny_text(out, cap, attn_tiles_rel_diff(tl.z, z, (size_t)t->n * t->cfg.d_k))
                : (size_t)snprintf(out, cap, "—");
    }
    attn_tiles_free(&tl);
    return len;
}

/* {diff STAGE}: the largest |Δ| between a stage of the page and of its
 * @compare view, over every head and cell (−∞ against −∞ is no difference). */
static size_t diff_ref(char *out, size_t cap, const lesson_ref *r, const attn_trace *t, const attn_trace *alt) {
    if (!alt || alt->n != t->n) return (size_t)snprintf(out, cap, "—");
    int rows, cols, arows, acols;
    attn_trace_shape(t, (attn_stage)r->stage, &rows, &cols);
    attn_trace_shape(alt, (attn_stage)r->stage, &arows, &acols);
    if (rows != arows || cols != acols) return (size_t)snprintf(out, cap, "—");
    double worst = 0;
    bool any = false;
    for (int h = 0; h < t->cfg.heads && h < alt->cfg.heads; h++) {
        const double *a = attn_trace_stage(t, (attn_stage)r->stage, h), *b = attn_trace_stage(alt, (attn_stage)r->stage, h);
        if (!a || !b) continue;
        any = true;
        for (size_t i = 0; i < (size_t)rows * cols; i++) {
            if (a[i] == b[i]) continue; // −∞ and −∞ too
            double dv = fabs(a[i] - b[i]);
            if (!(dv <= worst)) worst = dv; // an infinity on one side only: ∞
        }
    }
    if (!any) return (size_t)snprintf(out, cap, "—");
    return tiny_text(out, cap, worst);
}

/* {setting KEY}: as the settings show it; kv_heads as the heads are shared (0: one per head). */
static size_t setting_ref(char *out, size_t cap, const lesson_ref *r, const attn_trace *t) {
    if (r->field == ATTN_SET_KV_HEADS) return (size_t)snprintf(out, cap, "%d", attn_kv_heads(&t->cfg));
    if (r->field == ATTN_SET_POS) return (size_t)snprintf(out, cap, "%s", attn_pos_name(&t->cfg));
    attn_setting_format(r->field, &t->cfg, out, cap);
    return strlen(out);
}


/* An @hf page's {heads …}: its heads in ui's words; while the model computes, that it does; "—" without one. */
static size_t heads_ref(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    if (!x->hf_found || !x->hf) return (size_t)snprintf(out, cap, "—");
    if (!x->hf->scores) {
        const char *w = x->ui ? x->ui[VIZ_S_HF_REF_PENDING] : NULL;
        return (size_t)snprintf(out, cap, "%s", w ? w : viz_str_key(VIZ_S_HF_REF_PENDING));
    }
    page_hf_words w;
    viz_lesson_hf_words(&w, x->ui);
    page_hf_ref_text(x->hf, r, &w, out, cap);
    return strlen(out);
}

size_t viz_lesson_ref(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    if (cap) out[0] = '\0';
    if (r->kind == LESSON_REF_HEADS) return heads_ref(out, cap, r, x); // a real model's, not the trace's
    const char *const *ui = x->ui;
    const attn_trace *t = ref_trace(r, x);
    if (!t || (x->model && !x->run)) return (size_t)snprintf(out, cap, "—");
    switch (r->kind) {
    case LESSON_REF_STEP: {
        viz_str name = (viz_str)(VIZ_S_STEP_1 + r->step);
        return (size_t)snprintf(out, cap, "%s · %s", attn_step_key((attn_step)r->step), ui && ui[name] ? ui[name] : viz_str_key(name));
    }
    case LESSON_REF_CELL:
        if (r->compare) {
            if (!x->alt) return (size_t)snprintf(out, cap, "—");
            viz_ref_ctx y = *x;
            y.trace = x->alt;
            return cell(out, cap, r, &y);
        }
        return cell(out, cap, r, x);
    case LESSON_REF_DECODE:
    case LESSON_REF_TILES:
    case LESSON_REF_SETTING: {
        const attn_trace *on = r->compare ? x->alt : t;
        if (!on || x->model) return (size_t)snprintf(out, cap, "—");
        return r->kind == LESSON_REF_DECODE  ? decode_ref(out, cap, r, on, x)
               : r->kind == LESSON_REF_TILES ? tiles_ref(out, cap, r, on)
                                             : setting_ref(out, cap, r, on);
    }
    case LESSON_REF_DIFF: return x->model ? (size_t)snprintf(out, cap, "—") : diff_ref(out, cap, r, t, x->alt);
    case LESSON_REF_HEADS: return heads_ref(out, cap, r, x); // (answered above)
    case LESSON_REF_REST: return rest(out, cap, r, x);
    case LESSON_REF_MACS: return (size_t)snprintf(out, cap, "%lld", attn_step_macs(t, (attn_step)r->step));
    case LESSON_REF_MEAN_MAX:
        if (r->compare && !x->alt) return (size_t)snprintf(out, cap, "—");
        return (size_t)snprintf(out, cap, "%.2f", attn_mean_row_max(r->compare ? x->alt : t, r->head));
    case LESSON_REF_TOKENS: return (size_t)snprintf(out, cap, "%d", t->n);
    case LESSON_REF_TOP: return top(out, cap, r, x);
    case LESSON_REF_WORD: {
        int i = find(&r->row, t, r, x);
        if (i < 0) return (size_t)snprintf(out, cap, "—");
        attn_token_label(&t->tokens, i, 0, out, cap);
        return strlen(out);
    }
    case LESSON_REF_RATIO: return ratio(out, cap, r, x);
    case LESSON_REF_ANSWER: return x->model ? answer(out, cap, r, x) : (size_t)snprintf(out, cap, "—");
    case LESSON_REF_ACCURACY:
        if (!x->model) return (size_t)snprintf(out, cap, "—");
        return (size_t)snprintf(out, cap, "%.1f%%", 100.0 * x->model->training.heldout_accuracy);
    }
    return 0;
}

bool viz_lesson_ref_ok(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x) {
    viz_lesson_ref(out, cap, r, x);
    return cap > 0 && strcmp(out, "—") != 0;
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

/* A paragraph's text with its {references} computed; false when one of them
 * cannot be computed on x (then b holds what was written so far). */
static bool para_text(attn_strbuf *b, const lesson_page *pg, const lesson_para *p, const viz_ref_ctx *x) {
    int at = 0, len = (int)strlen(p->text);
    char val[128];
    bool ok = true;
    for (int k = 0; k < p->n_spans; k++) {
        const lesson_span *sp = &p->spans[k];
        if (sp->kind != LESSON_SPAN_REF || sp->ref < 0) continue;
        attn_sb_append(b, p->text + at, (size_t)(sp->start - at));
        ok &= viz_lesson_ref_ok(val, sizeof val, &pg->refs[sp->ref], x);
        attn_sb_puts(b, val);
        at = sp->start + sp->len;
    }
    attn_sb_append(b, p->text + at, (size_t)(len - at));
    return ok;
}

/* In place of the paragraphs that hold only for the page's own sentence:
 * its @edited text (when every reference of it can be computed) and how to
 * bring the page's own back. */
static void edited_text(attn_strbuf *b, const lesson_page *pg, const viz_ref_ctx *x) {
    for (int i = 0; i < pg->n_paras; i++) {
        if (!pg->paras[i].edited) continue;
        attn_strbuf one;
        attn_sb_init(&one);
        if (para_text(&one, pg, &pg->paras[i], x) && one.len) attn_sb_append(b, one.data, one.len);
        attn_sb_free(&one);
    }
    const char *note = x->ui ? x->ui[VIZ_S_LESSON_EDITED] : NULL;
    if (!note) note = viz_str_key(VIZ_S_LESSON_EDITED);
    if (b->len && b->data[b->len - 1] != '\n' && (unsigned char)note[0] < 0x80) attn_sb_puts(b, " "); // （ needs none
    attn_sb_puts(b, note);
    attn_sb_puts(b, "\n\n");
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

void viz_lesson_narrative(attn_strbuf *b, const lesson_page *pg, bool asked, const viz_ref_ctx *x) {
    bool edited = x->sentence && pg->sentence && strcmp(x->sentence, pg->sentence) != 0, said = false;
    for (int i = 0; i < pg->n_paras; i++) {
        const lesson_para *p = &pg->paras[i];
        if (pg->has_reveal && p->after_reveal && asked) break;   // the answer waits
        if (p->edited) continue;                                 // only in place of what does not hold
        if (!lesson_para_hf_shown(pg, p, x->hf_found)) continue; // an @hf page: its heads, or how to get the files
        bool item = p->kind == LESSON_PARA_ITEM, next_item = i + 1 < pg->n_paras && pg->paras[i + 1].kind == LESSON_PARA_ITEM;
        if (p->kind == LESSON_PARA_CODE) {
            code_text(b, p->text);
            attn_sb_puts(b, "\n");
            continue;
        }
        attn_strbuf one;
        attn_sb_init(&one);
        if (item) attn_sb_puts(&one, "• ");
        bool ok = !(p->own && edited) && para_text(&one, pg, p, x);
        if (ok) {
            attn_sb_append(b, one.data, one.len);
            attn_sb_puts(b, item && next_item ? "\n" : "\n\n"); // list items stay together
        } else if (!said) {                                     // once, where the first of them stood
            if (b->len && b->data[b->len - 1] == '\n' && (b->len < 2 || b->data[b->len - 2] != '\n')) attn_sb_puts(b, "\n");
            edited_text(b, pg, x);
            said = true;
        }
        attn_sb_free(&one);
    }
}
