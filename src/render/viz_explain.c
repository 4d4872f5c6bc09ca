/* viz_explain.c — a cell's arithmetic in the UI's language (viz_explain.h). */
#include "viz_explain.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "viz_scene.h"

/* The words being built: the lines, their room, and what names things. */
typedef struct {
    viz_xtext *x;
    int cap;
    const attn_trace *t;
    const char *const *ui;
    const char *const *features;
    bool failed;
    const model *m; /* a model's cell: its words, and the layer to name */
    int layer;      /* the cell's layer, 0-based (with m) */
} wording;

const char *viz_stage_symbol(attn_stage s, bool scale) {
    static const char *const sym[ATTN_STAGE_COUNT] = {"X", "Q", "K", "V", "q_rot", "k_rot", "S", "S/√dₖ", "mask(S)",
                                                      "A", "Z", "concat", "out"};
    if (s == ATTN_ST_SCALED && !scale) return "S";
    return (int)s >= 0 && s < ATTN_STAGE_COUNT ? sym[s] : "?";
}

static const char *word(const wording *w, viz_str id) {
    const char *s = w->ui ? w->ui[id] : NULL;
    return s ? s : viz_str_key(id);
}

/* A number as the panel shows it: 4 significant digits, "−∞" for -inf. */
static const char *num(char *buf, size_t cap, double v) {
    if (v == -INFINITY) snprintf(buf, cap, "−∞");
    else snprintf(buf, cap, "%.4g", v == 0 ? 0.0 : v); // no "-0"
    return buf;
}

static void add(wording *w, viz_xline_kind kind, bool focus, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void add(wording *w, viz_xline_kind kind, bool focus, const char *fmt, ...) {
    if (w->failed) return;
    viz_xtext *x = w->x;
    if (x->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 32;
        viz_xline *p = realloc(x->lines, sizeof *p * (size_t)cap);
        if (!p) {
            w->failed = true;
            return;
        }
        x->lines = p;
        w->cap = cap;
    }
    viz_xline *l = &x->lines[x->n++];
    l->kind = kind;
    l->focus = focus;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text, sizeof l->text, fmt, ap);
    va_end(ap);
    // a long label may be cut inside a character: drop the partial one
    size_t bad = utf8_find_invalid(l->text, strlen(l->text));
    if (bad != (size_t)-1) l->text[bad] = '\0';
}

static const char *token(const wording *w, int i, char *buf, size_t cap) {
    attn_token_label(&w->t->tokens, i, 14, buf, cap); // as the chips label it
    return buf;
}

/* The label of index i along a matrix's columns (cols_of) or terms. */
typedef enum { AXIS_TOKENS,
               AXIS_DIMS,
               AXIS_FEATURES,
               AXIS_CONCAT } axis;

static const char *axis_label(const wording *w, axis a, int i, char *buf, size_t cap) {
    if (a == AXIS_TOKENS) return token(w, i, buf, cap);
    if (a == AXIS_FEATURES && w->features) snprintf(buf, cap, "%s", w->features[i]);
    else if (a == AXIS_CONCAT) snprintf(buf, cap, "h%d.%d", i / w->t->cfg.d_k + 1, i % w->t->cfg.d_k);
    else snprintf(buf, cap, "%d", i);
    return buf;
}

static axis col_axis(const wording *w, attn_stage s) {
    if (s >= ATTN_ST_SCORES && s <= ATTN_ST_WEIGHTS) return AXIS_TOKENS;
    if (s == ATTN_ST_X) return w->features ? AXIS_FEATURES : AXIS_DIMS;
    return s == ATTN_ST_CONCAT ? AXIS_CONCAT : AXIS_DIMS;
}

/* " · layer 2 of 2" for a model's cell, else "". */
static const char *layer_words(const wording *w) {
    static _Thread_local char buf[64];
    if (!w->m) return "";
    size_t at = (size_t)snprintf(buf, sizeof buf, " · ");
    snprintf(buf + at, sizeof buf - at, word(w, VIZ_S_XP_LAYER), w->layer + 1, w->m->cfg.layers);
    return buf;
}

static void title(wording *w, const attn_explanation *e) {
    char row[96], col[96], head[64] = "";
    const attn_config *c = &w->t->cfg;
    if (attn_stage_per_head(e->stage) && c->heads > 1) {
        size_t at = (size_t)snprintf(head, sizeof head, " · ");
        snprintf(head + at, sizeof head - at, word(w, VIZ_S_XP_HEAD), e->head + 1, c->heads);
    }
    add(w, VIZ_XL_TITLE, false, "%s[%s, %s]%s%s", viz_stage_symbol(e->stage, c->scale), token(w, e->row, row, sizeof row),
        axis_label(w, col_axis(w, e->stage), e->col, col, sizeof col), head, layer_words(w));
}

/* ---- the kinds of cell ---------------------------------------------------- */

static void input(wording *w, const attn_explanation *e) {
    char tok[96], a[32], b[32];
    const attn_trace *t = w->t;
    if (t->x_given) {
        add(w, VIZ_XL_NOTE, false, "%s", word(w, VIZ_S_XP_EMBED_GIVEN));
    } else {
        viz_str from = t->vocab_index[e->row] >= 0 ? VIZ_S_XP_EMBED_VOCAB : VIZ_S_XP_EMBED_DERIVED;
        add(w, VIZ_XL_NOTE, false, word(w, from), token(w, e->row, tok, sizeof tok));
        add(w, VIZ_XL_TERM, false, "  %s", num(a, sizeof a, e->input.embedding));
        if (t->cfg.pos_enc) {
            char pos[96];
            snprintf(pos, sizeof pos, word(w, VIZ_S_XP_POSITION), e->row + 1);
            add(w, VIZ_XL_TERM, false, "%s: %s", pos, num(b, sizeof b, e->input.position));
        }
    }
    add(w, VIZ_XL_RESULT, false, "= %s", num(a, sizeof a, e->value));
}

static void dot(wording *w, const attn_explanation *e) {
    static const char *const formula[ATTN_STAGE_COUNT] = {
        [ATTN_ST_Q] = "Q[i,c] = Σₘ X[i,m]·W_Q[m,c]",
        [ATTN_ST_K] = "K[i,c] = Σₘ X[i,m]·W_K[m,c]",
        [ATTN_ST_V] = "V[i,c] = Σₘ X[i,m]·W_V[m,c]",
        [ATTN_ST_SCORES] = "S[i,j] = Σ_c Q[i,c]·K[j,c]",
        [ATTN_ST_Z] = "Z[i,c] = Σⱼ A[i,j]·V[j,c]",
        [ATTN_ST_OUTPUT] = "out[i,c] = Σₘ concat[i,m]·W_O[m,c]",
    };
    axis a = e->stage == ATTN_ST_Z        ? AXIS_TOKENS
             : e->stage == ATTN_ST_SCORES ? AXIS_DIMS
             : e->stage == ATTN_ST_OUTPUT ? AXIS_CONCAT
             : w->features                ? AXIS_FEATURES
                                          : AXIS_DIMS;
    char lab[96], x[32], y[32], v[32];
    const char *f = e->stage == ATTN_ST_SCORES && w->t->cfg.rope ? "S[i,j] = Σ_c q_rot[i,c]·k_rot[j,c]" : formula[e->stage];
    add(w, VIZ_XL_FORMULA, false, "%s%s", f ? f : "", e->dot.has_bias ? " + b[c]" : "");
    double sum = 0, best = -1;
    w->x->first_term = w->x->n;
    for (int k = 0; k < e->n_terms; k++) {
        const attn_term *tm = &e->terms[k];
        add(w, VIZ_XL_TERM, false, "%s: %s × %s = %s", axis_label(w, a, tm->index, lab, sizeof lab),
            num(x, sizeof x, tm->a), num(y, sizeof y, tm->b), num(v, sizeof v, tm->value));
        if (fabs(tm->value) > best) best = fabs(tm->value), w->x->focus = k; // keep the largest in view
        sum += tm->value;
    }
    w->x->n_terms = e->n_terms;
    if (e->dot.has_bias) {
        add(w, VIZ_XL_RESULT, false, "%s %s", word(w, VIZ_S_XP_BIAS), num(x, sizeof x, e->dot.bias));
        sum += e->dot.bias;
    }
    add(w, VIZ_XL_RESULT, false, "%s = %s", word(w, VIZ_S_XP_SUM), num(x, sizeof x, sum));
}

static void scale(wording *w, const attn_explanation *e) {
    char a[32], b[32], v[32];
    if (!w->t->cfg.scale) {
        add(w, VIZ_XL_NOTE, false, "%s", word(w, VIZ_S_XP_NOSCALE));
        add(w, VIZ_XL_RESULT, false, "= %s", num(v, sizeof v, e->value));
        return;
    }
    add(w, VIZ_XL_FORMULA, false, "S[i,j] / √dₖ");
    add(w, VIZ_XL_RESULT, false, "%s / √%d = %s / %s = %s", num(a, sizeof a, e->scale.score), w->t->cfg.d_k, a,
        num(b, sizeof b, e->scale.divisor), num(v, sizeof v, e->value));
}

static void mask(wording *w, const attn_explanation *e) {
    char v[32];
    add(w, VIZ_XL_NOTE, false, "%s", word(w, e->mask.masked ? VIZ_S_XP_MASKED : VIZ_S_XP_ALLOWED));
    add(w, VIZ_XL_RESULT, false, "= %s", num(v, sizeof v, e->value));
}

static void softmax_of(wording *w, const attn_explanation *e, bool words);

static void softmax(wording *w, const attn_explanation *e) {
    softmax_of(w, e, false);
}

/* A row's softmax at e->col: over the keys (tokens), or over the vocabulary (words). */
static void softmax_of(wording *w, const attn_explanation *e, bool words) {
    char lab[96], a[32], b[32], v[32];
    add(w, VIZ_XL_FORMULA, false, "%s", words ? "p[i,w] = exp(z[i,w] − max) / Σᵥ exp(z[i,v] − max)" : "A[i,j] = exp(sᵢⱼ − max) / Σₖ exp(sᵢₖ − max)");
    add(w, VIZ_XL_NOTE, false, "%s %s %s", word(w, VIZ_S_XP_ROWMAX), num(a, sizeof a, e->softmax.row_max),
        word(w, VIZ_S_XP_ROWMAX_WHY));
    w->x->first_term = w->x->n;
    for (int k = 0; k < e->n_terms; k++) {
        const attn_term *tm = &e->terms[k];
        bool self = tm->index == e->col;
        if (words) snprintf(lab, sizeof lab, "%s", w->m->vocab[tm->index]);
        else token(w, tm->index, lab, sizeof lab);
        if (tm->a == -INFINITY) add(w, VIZ_XL_TERM, self, "%s: %s", lab, word(w, VIZ_S_XP_TERM_MASKED));
        else
            add(w, VIZ_XL_TERM, self, "%s: exp(%s − %s) = %s%s%s", lab, num(a, sizeof a, tm->a), num(b, sizeof b, tm->b),
                num(v, sizeof v, tm->value), self ? "  " : "", self ? word(w, VIZ_S_XP_THIS) : "");
    }
    w->x->n_terms = e->n_terms;
    w->x->focus = e->col;
    add(w, VIZ_XL_RESULT, false, "%s = %s", word(w, VIZ_S_XP_DENOM), num(a, sizeof a, e->softmax.denom));
    if (e->softmax.masked) add(w, VIZ_XL_NOTE, false, "%s", word(w, VIZ_S_XP_SOFTMAX_MASKED));
    else
        add(w, VIZ_XL_RESULT, false, "%s / %s = %s", num(a, sizeof a, e->terms[e->col].value),
            num(b, sizeof b, e->softmax.denom), num(v, sizeof v, e->value));
}

/* RoPE: the cell's pair turned by its position's angle. */
static void rotate(wording *w, const attn_explanation *e) {
    const char *x = e->stage == ATTN_ST_Q_ROT ? "q" : "k";
    int i = e->rotate.pair, dk = w->t->cfg.d_k;
    char th[32], a[32], b[32], cs[32], sn[32], v[32], why[160];
    add(w, VIZ_XL_FORMULA, false, e->rotate.odd ? "%s_rot[m,%d] = %s[m,%d]·sin θ + %s[m,%d]·cos θ" : "%s_rot[m,%d] = %s[m,%d]·cos θ − %s[m,%d]·sin θ",
        x, e->col, x, 2 * i, x, 2 * i + 1);
    snprintf(why, sizeof why, word(w, VIZ_S_XP_ROTATE), i, e->rotate.pos);
    add(w, VIZ_XL_NOTE, false, "%s", why);
    add(w, VIZ_XL_TERM, false, "θ = %d·%.0f^(−%d/%d) = %s", e->rotate.pos, w->t->cfg.rope_base, 2 * i, dk,
        num(th, sizeof th, e->rotate.angle));
    add(w, VIZ_XL_TERM, false, "cos θ = %s, sin θ = %s", num(cs, sizeof cs, e->rotate.cos), num(sn, sizeof sn, e->rotate.sin));
    num(a, sizeof a, e->rotate.a);
    num(b, sizeof b, e->rotate.b);
    if (e->rotate.odd) add(w, VIZ_XL_RESULT, false, "%s × %s + %s × %s = %s", a, sn, b, cs, num(v, sizeof v, e->value));
    else add(w, VIZ_XL_RESULT, false, "%s × %s − %s × %s = %s", a, cs, b, sn, num(v, sizeof v, e->value));
}

static void copy(wording *w, const attn_explanation *e) {
    char v[32];
    add(w, VIZ_XL_NOTE, false, word(w, VIZ_S_XP_COPY), e->copy.head + 1, e->copy.col);
    add(w, VIZ_XL_RESULT, false, "= %s", num(v, sizeof v, e->value));
}

bool viz_explain_text(viz_xtext *x, const attn_explanation *e, const attn_trace *t, const char *const *ui,
                      const char *const *features) {
    memset(x, 0, sizeof *x);
    wording w = {x, 0, t, ui, features, false, NULL, 0};
    title(&w, e);
    switch (e->kind) {
    case ATTN_EXPLAIN_INPUT: input(&w, e); break;
    case ATTN_EXPLAIN_DOT: dot(&w, e); break;
    case ATTN_EXPLAIN_SCALE: scale(&w, e); break;
    case ATTN_EXPLAIN_MASK: mask(&w, e); break;
    case ATTN_EXPLAIN_SOFTMAX: softmax(&w, e); break;
    case ATTN_EXPLAIN_COPY: copy(&w, e); break;
    case ATTN_EXPLAIN_ROTATE: rotate(&w, e); break;
    }
    if (w.failed) viz_xtext_free(x);
    return !w.failed;
}

bool viz_explain_ln_text(viz_xtext *x, const attn_explanation *e, const attn_trace *t, const struct viz_hf *hf,
                         const char *const *ui) {
    memset(x, 0, sizeof *x);
    wording w = {x, 0, t, ui, NULL, false, NULL, 0};
    char a[32], b[32], d[32];
    title(&w, e);
    add(&w, VIZ_XL_FORMULA, false, "X = (x − mean) / √(var + ε) · w + b");
    add(&w, VIZ_XL_NOTE, false, word(&w, VIZ_S_HF_XP_LN), hf->ln_width);
    add(&w, VIZ_XL_TERM, true, "x = %s", num(a, sizeof a, hf->ln_x));
    add(&w, VIZ_XL_TERM, false, "mean = %s,  var = %s", num(a, sizeof a, hf->ln_mean), num(b, sizeof b, hf->ln_var));
    add(&w, VIZ_XL_TERM, false, "ε = %g,  w = %s,  b = %s", hf->ln_eps, num(a, sizeof a, hf->ln_w), num(b, sizeof b, hf->ln_b));
    char f[32], g[32];
    add(&w, VIZ_XL_RESULT, false, "(%s − %s) / √(%s + %g) · %s + %s", num(a, sizeof a, hf->ln_x),
        num(b, sizeof b, hf->ln_mean), num(d, sizeof d, hf->ln_var), hf->ln_eps, num(f, sizeof f, hf->ln_w),
        num(g, sizeof g, hf->ln_b));
    add(&w, VIZ_XL_RESULT, false, "= %s", num(a, sizeof a, hf->ln_value));
    if (w.failed) viz_xtext_free(x);
    return !w.failed;
}

void viz_xtext_free(viz_xtext *x) {
    if (!x) return;
    free(x->lines);
    memset(x, 0, sizeof *x);
}

/* ---- a model's cells ---------------------------------------------------------- */

/* "residual[它, 3] · layer 1 of 2" and the like. */
static void model_title(wording *w, const model_explanation *e, const char *sym, bool word_col, bool token_col) {
    char row[96], col[96], head[64] = "";
    if (model_stage_per_head(e->stage) && w->m->cfg.heads > 1) {
        size_t at = (size_t)snprintf(head, sizeof head, " · ");
        snprintf(head + at, sizeof head - at, word(w, VIZ_S_XP_HEAD), e->head + 1, w->m->cfg.heads);
    }
    if (word_col) snprintf(col, sizeof col, "%s", w->m->vocab[e->col]);
    else if (token_col) token(w, e->col, col, sizeof col);
    else snprintf(col, sizeof col, "%d", e->col);
    add(w, VIZ_XL_TITLE, false, "%s[%s, %s]%s%s", sym, token(w, e->row, row, sizeof row), col, head, layer_words(w));
}

/* Σ terms with labels along dims (or heads), then the sum: value = Σ a·b (+ extra). */
static void model_dot(wording *w, const attn_explanation *d, const char *formula, bool heads, double extra,
                      viz_str extra_word) {
    char lab[64], x[32], y[32], v[32];
    add(w, VIZ_XL_FORMULA, false, "%s%s", formula, d->dot.has_bias ? " + b[w]" : "");
    double sum = 0, best = -1;
    w->x->first_term = w->x->n;
    for (int k = 0; k < d->n_terms; k++) {
        const attn_term *tm = &d->terms[k];
        if (heads) snprintf(lab, sizeof lab, "%s %d", word(w, VIZ_S_HEAD), tm->index + 1);
        else snprintf(lab, sizeof lab, "%d", tm->index);
        add(w, VIZ_XL_TERM, false, "%s: %s × %s = %s", lab, num(x, sizeof x, tm->a), num(y, sizeof y, tm->b),
            num(v, sizeof v, tm->value));
        if (fabs(tm->value) > best) best = fabs(tm->value), w->x->focus = k;
        sum += tm->value;
    }
    w->x->n_terms = d->n_terms;
    if (d->dot.has_bias) {
        add(w, VIZ_XL_RESULT, false, "%s %s", word(w, VIZ_S_XP_BIAS), num(x, sizeof x, d->dot.bias));
        sum += d->dot.bias;
    }
    if (extra != 0.0) {
        add(w, VIZ_XL_RESULT, false, "%s: %s", word(w, extra_word), num(x, sizeof x, extra));
        sum += extra;
    }
    add(w, VIZ_XL_RESULT, false, "%s = %s", word(w, VIZ_S_XP_SUM), num(x, sizeof x, sum));
}

static void model_grad(wording *w, const model_explanation *e) {
    const attn_softmax_grad_explanation *g = &e->grad;
    char lab[96], a[32], b[32], v[32], d[32];
    model_title(w, e, "∂L/∂T", false, true);
    if (g->masked) {
        add(w, VIZ_XL_NOTE, false, "%s", word(w, VIZ_S_XP_GRAD_MASKED));
        add(w, VIZ_XL_RESULT, false, "= 0");
        return;
    }
    add(w, VIZ_XL_FORMULA, false, "dT[i,j] = A[i,j]·(dA[i,j] − Σₖ A[i,k]·dA[i,k])");
    add(w, VIZ_XL_NOTE, false, "%s", word(w, VIZ_S_XP_SOFTMAX_INPUT));
    w->x->first_term = w->x->n;
    for (int k = 0; k < g->n_terms; k++) {
        const attn_term *tm = &g->terms[k];
        bool self = tm->index == e->col;
        add(w, VIZ_XL_TERM, self, "%s: %s × %s = %s%s%s", token(w, tm->index, lab, sizeof lab), num(a, sizeof a, tm->a),
            num(b, sizeof b, tm->b), num(v, sizeof v, tm->value), self ? "  " : "", self ? word(w, VIZ_S_XP_THIS) : "");
    }
    w->x->n_terms = g->n_terms;
    w->x->focus = e->col;
    add(w, VIZ_XL_RESULT, false, "Σₖ A·dA = %s", num(a, sizeof a, g->dot));
    add(w, VIZ_XL_RESULT, false, "%s × (%s − %s) = %s", num(a, sizeof a, g->a), num(b, sizeof b, g->da),
        num(d, sizeof d, g->dot), num(v, sizeof v, e->value));
}

bool viz_explain_model_text(viz_xtext *x, const model_explanation *e, const model_result *r, const model *m,
                            const char *const *ui) {
    memset(x, 0, sizeof *x);
    wording w = {x, 0, &r->layer[e->layer], ui, NULL, false, m, e->layer};
    char a[32], b[32], v[32], tok[96];
    switch (e->kind) {
    case MODEL_EX_CORE:
        title(&w, &e->core);
        switch (e->core.kind) {
        case ATTN_EXPLAIN_DOT: dot(&w, &e->core); break;
        case ATTN_EXPLAIN_SCALE: scale(&w, &e->core); break;
        case ATTN_EXPLAIN_MASK: mask(&w, &e->core); break;
        case ATTN_EXPLAIN_SOFTMAX: softmax(&w, &e->core); break;
        case ATTN_EXPLAIN_COPY: copy(&w, &e->core); break;
        case ATTN_EXPLAIN_INPUT: input(&w, &e->core); break;
        case ATTN_EXPLAIN_ROTATE: rotate(&w, &e->core); break;
        }
        break;
    case MODEL_EX_EMBED:
        model_title(&w, e, "X", false, false);
        add(&w, VIZ_XL_FORMULA, false, "X[i,c] = E[token, c] + P[i, c]");
        add(&w, VIZ_XL_NOTE, false, word(&w, VIZ_S_XP_EMBED_MODEL), token(&w, e->row, tok, sizeof tok));
        add(&w, VIZ_XL_TERM, false, "E: %s", num(a, sizeof a, e->a));
        add(&w, VIZ_XL_TERM, false, "P: %s", num(b, sizeof b, e->b));
        add(&w, VIZ_XL_RESULT, false, "%s + %s = %s", a, b, num(v, sizeof v, e->value));
        break;
    case MODEL_EX_COPY:
        model_title(&w, e, "X", false, false);
        add(&w, VIZ_XL_NOTE, false, word(&w, VIZ_S_XP_MODEL_COPY), e->layer);
        add(&w, VIZ_XL_RESULT, false, "= %s", num(v, sizeof v, e->value));
        break;
    case MODEL_EX_RESIDUAL:
        model_title(&w, e, "X + out", false, false);
        add(&w, VIZ_XL_FORMULA, false, "residual[i,c] = X[i,c] + out[i,c]");
        add(&w, VIZ_XL_RESULT, false, "%s + %s = %s", num(a, sizeof a, e->a), num(b, sizeof b, e->b),
            num(v, sizeof v, e->value));
        break;
    case MODEL_EX_LOGITS:
        model_title(&w, e, "z", true, false);
        model_dot(&w, &e->core, "z[i,w] = Σ_c x[i,c]·U[c,w]", false, 0, VIZ_S_XP_SUM);
        break;
    case MODEL_EX_PROBS:
        model_title(&w, e, "p", true, false);
        softmax_of(&w, &e->core, true);
        break;
    case MODEL_EX_D_WEIGHTS:
        model_title(&w, e, "∂L/∂A", false, true);
        model_dot(&w, &e->core, "dA[i,j] = Σ_c dZ[i,c]·V[j,c]", false, e->a, VIZ_S_XP_LOSS_TERM);
        break;
    case MODEL_EX_D_SCALED: model_grad(&w, e); break;
    case MODEL_EX_AVG:
        model_title(&w, e, "Ā", false, true);
        model_dot(&w, &e->core, "Ā[i,j] = Σₕ A_h[i,j] · 1/H", true, 0, VIZ_S_XP_SUM);
        break;
    }
    if (w.failed) viz_xtext_free(x);
    return !w.failed;
}
