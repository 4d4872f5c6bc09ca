/* export_tex.c — LaTeX: a bmatrix per matrix and a small standalone document
 * per step (xelatex + ctex, so Chinese tokens typeset). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_steps.h"
#include "export_internal.h"

/* Math signs the step names and equations use: typeset in math mode, so
 * they do not depend on the text font having the glyph. */
static const struct {
    const char *utf8, *tex;
} math_signs[] = {
    {"ᵀ", "$^{\\top}$"}, {"ₖ", "$_k$"}, {"√", "$\\surd$"}, {"÷", "$\\div$"}, {"·", "$\\cdot$"},
    {"×", "$\\times$"}, {"→", "$\\to$"}, {"−", "$-$"}, {"∞", "$\\infty$"}, {"…", "\\ldots{}"},
};

/* Length of the math sign at s, appended to b; 0 when s starts none. */
static size_t math_sign(attn_strbuf *b, const char *s) {
    for (size_t i = 0; i < sizeof math_signs / sizeof *math_signs; i++) {
        size_t n = strlen(math_signs[i].utf8);
        if (strncmp(s, math_signs[i].utf8, n) == 0) {
            attn_sb_puts(b, math_signs[i].tex);
            return n;
        }
    }
    return 0;
}

void export_tex_escape(attn_strbuf *b, const char *s) {
    for (; *s; s++) {
        size_t sign = (unsigned char)*s >= 0x80 ? math_sign(b, s) : 0;
        if (sign) {
            s += sign - 1;
            continue;
        }
        switch (*s) {
        case '\\': attn_sb_puts(b, "\\textbackslash{}"); break;
        case '~': attn_sb_puts(b, "\\textasciitilde{}"); break;
        case '^': attn_sb_puts(b, "\\textasciicircum{}"); break;
        case '#': case '$': case '%': case '&': case '_': case '{': case '}':
            attn_sb_printf(b, "\\%c", *s);
            break;
        case '\n': case '\r': case '\t': attn_sb_puts(b, " "); break;
        default: attn_sb_append(b, s, 1); break;
        }
    }
}

/* v with exactly 2 decimals and '.', whatever the locale; from a million on
 * (where fixed decimals stop being readable, and past 9e16 cannot be
 * rounded in a long long at all) in scientific notation, 1.23\times10^{16}. */
static void num_fixed(attn_strbuf *b, double v) {
    if (v == -INFINITY) {
        attn_sb_puts(b, "-\\infty");
        return;
    }
    if (!isfinite(v)) v = 0; // the core never hands one over (masked cells are -inf)
    if (fabs(v) >= 999999.995) {
        char m[40];
        snprintf(m, sizeof m, "%.2e", v); // "1.23e+16": mantissa, then the exponent
        char *e = strchr(m, 'e');
        for (char *c = m; c < e; c++)
            if (*c == ',') *c = '.'; // a locale's decimal comma
        attn_sb_printf(b, "%.*s\\times10^{%d}", (int)(e - m), m, atoi(e + 1));
        return;
    }
    long long q = llround(v * 100.0);
    unsigned long long a = (unsigned long long)(q < 0 ? -q : q);
    attn_sb_printf(b, "%s%llu.%02u", q < 0 ? "-" : "", a / 100, (unsigned)(a % 100));
}

void export_tex_bmatrix(attn_strbuf *b, const export_matrix *m) {
    attn_sb_puts(b, "\\begin{bmatrix}\n");
    for (int i = 0; i < m->rows; i++) {
        for (int j = 0; j < m->cols; j++) {
            attn_sb_puts(b, j ? " & " : "  ");
            num_fixed(b, m->v[(size_t)i * m->cols + j]);
        }
        attn_sb_puts(b, i + 1 < m->rows ? " \\\\\n" : "\n");
    }
    attn_sb_puts(b, "\\end{bmatrix}");
}

/* "(a\times b)(c\times d) \to e\times f" */
static void shapes(attn_strbuf *b, int r1, int c1, int r2, int c2) {
    attn_sb_printf(b, "\\qquad (%d\\times %d)(%d\\times %d) \\to %d\\times %d", r1, c1, r2, c2, r1, c2);
}

/* The TeX symbol of a matrix of the step table ("S'", "\\tilde{S}"). */
#define TEX(id) attn_step_matrix_tex(ATTN_SM_##id)

/* The step's equation in LaTeX, with its shapes; the symbols are the step
 * table's (attn_steps.def). */
static void equation(attn_strbuf *b, const attn_trace *t, attn_step step) {
    int n = t->n, dm = t->cfg.d_model, dk = t->cfg.d_k, hk = t->cfg.heads * dk;
    const char *bias = t->cfg.bias ? " + b" : "";
    char mask[32];
    switch (step) {
    case ATTN_STEP_EMBED:
        attn_sb_printf(b, "%s%s \\qquad %d\\times %d", TEX(X), t->cfg.pos_enc && !t->x_given ? " = E + PE" : "", n, dm);
        break;
    case ATTN_STEP_QKV:
        attn_sb_printf(b, "%s = %s %s%s_Q,\\; %s = %s %s%s_K,\\; %s = %s %s%s_V", TEX(Q), TEX(X), TEX(W_Q), bias, TEX(K),
                       TEX(X), TEX(W_K), bias, TEX(V), TEX(X), TEX(W_V), bias);
        shapes(b, n, dm, dm, dk);
        break;
    case ATTN_STEP_SCORES:
        attn_sb_printf(b, "%s = %s %s^{\\top}", TEX(S), TEX(Q), TEX(K));
        shapes(b, n, dk, dk, n);
        break;
    case ATTN_STEP_SCALE:
        if (t->cfg.scale)
            attn_sb_printf(b, "%s = \\frac{%s}{\\sqrt{d_k}} = \\frac{%s}{\\sqrt{%d}}", TEX(S_SCALED), TEX(S), TEX(S), dk);
        else attn_sb_printf(b, "%s = %s \\quad \\text{(scaling off)}", TEX(S_SCALED), TEX(S));
        attn_sb_printf(b, " \\qquad %d\\times %d", n, n);
        break;
    case ATTN_STEP_MASK:
        attn_sb_printf(b, "%s_{ij} = \\begin{cases} %s_{ij} & \\text{if query } i \\text{ may see key } j\\\\"
                          " -\\infty & \\text{otherwise} \\end{cases}", TEX(S_MASKED), TEX(S_SCALED));
        attn_mask_format(mask, sizeof mask, t->cfg.mask);
        attn_sb_printf(b, " \\qquad \\text{mask: %s} \\qquad %d\\times %d", mask, n, n);
        break;
    case ATTN_STEP_SOFTMAX:
        attn_sb_printf(b, "%s_{ij} = \\frac{e^{%s_{ij}}}{\\sum_{k} e^{%s_{ik}}}", TEX(A), TEX(S_MASKED), TEX(S_MASKED));
        attn_sb_printf(b, " \\qquad %d\\times %d", n, n);
        break;
    case ATTN_STEP_WEIGHTED:
        attn_sb_printf(b, "%s = %s %s", TEX(Z), TEX(A), TEX(V));
        shapes(b, n, n, n, dk);
        break;
    case ATTN_STEP_MULTIHEAD:
        attn_sb_printf(b, "%s = \\operatorname{concat}(%s_1, \\dots, %s_{%d})\\, %s%s", TEX(OUT), TEX(Z), TEX(Z),
                       t->cfg.heads, TEX(W_O), t->cfg.bias ? " + b_O" : "");
        shapes(b, n, hk, hk, dm);
        break;
    case ATTN_STEP_COUNT:
        break;
    }
}

static void preamble(attn_strbuf *b, const char *title) {
    attn_sb_printf(b, "%% attnviz %s: compile with xelatex (needs the ctex package).\n", ATTN_VERSION);
    attn_sb_puts(b, "\\documentclass[11pt]{article}\n\\usepackage[UTF8]{ctex}\n\\usepackage{amsmath}\n"
                    "\\usepackage[a4paper,landscape,margin=1.5cm]{geometry}\n"
                    "\\setcounter{MaxMatrixCols}{80}\n\\pagestyle{empty}\n\\begin{document}\n\\section*{");
    export_tex_escape(b, title);
    attn_sb_puts(b, "}\n");
}

/* Sentence, tokens (in row order) and configuration. */
static void facts(attn_strbuf *b, const export_item *it) {
    const attn_trace *t = it->trace;
    char lab[256];
    attn_strbuf cfg;
    attn_sb_init(&cfg);
    ex_item_config_text(&cfg, it);
    attn_sb_puts(b, "\\noindent Sentence: ");
    export_tex_escape(b, t->tokens.text);
    attn_sb_puts(b, "\\\\\nTokens (rows and columns, in order): ");
    for (int i = 0; i < t->n; i++) {
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        if (i) attn_sb_puts(b, ", ");
        attn_sb_puts(b, "\\mbox{");
        export_tex_escape(b, lab);
        attn_sb_puts(b, "}");
    }
    attn_sb_puts(b, "\\\\\nConfiguration: \\texttt{");
    export_tex_escape(b, cfg.data ? cfg.data : "");
    attn_sb_puts(b, "}\n");
    attn_sb_free(&cfg);
}

static void matrix_display(attn_strbuf *b, const export_matrix *m, int heads) {
    const char *size = m->cols > 12 ? "\\tiny" : m->cols > 8 ? "\\scriptsize" : "\\small";
    attn_sb_printf(b, "\\begingroup%s\n\\[ {%s}", size, m->tex);
    if (m->head >= 0 && heads > 1) attn_sb_printf(b, "^{(%d)}", m->head + 1);
    attn_sb_puts(b, " = ");
    export_tex_bmatrix(b, m);
    attn_sb_puts(b, " \\]\n\\endgroup\n");
}

/* A model's own equations: the readout, the gradient, the residual, X = E + P. */
static void model_equation(attn_strbuf *b, const export_item *it) {
    const model *m = it->model;
    if (it->readout && m->cfg.objective == MODEL_OBJ_TOKEN)
        attn_sb_puts(b, "\\[ p = \\operatorname{softmax}(x U + b_U) \\]\n");
    else if (it->readout)
        attn_sb_printf(b, "\\[ \\bar{A} = \\tfrac{1}{%d} \\textstyle\\sum_h A_h \\]\n", m->cfg.heads);
    if (it->backward)
        attn_sb_puts(b, "\\[ \\frac{\\partial L}{\\partial T_{ij}} = A_{ij}\\Big(\\frac{\\partial L}{\\partial A_{ij}} - "
                        "\\sum_k A_{ik}\\frac{\\partial L}{\\partial A_{ik}}\\Big) \\]\n");
    if (!it->readout && it->step == ATTN_STEP_MULTIHEAD) attn_sb_puts(b, "\\[ X' = X + \\mathrm{out} \\]\n");
    if (!it->readout && it->step == ATTN_STEP_EMBED && it->layer == 0)
        attn_sb_puts(b, m->cfg.pos != MODEL_POS_NONE ? "\\[ X = E[\\text{token}] + P \\]\n" : "\\[ X = E[\\text{token}] \\]\n");
}

char *export_tex_document(const export_item *it, const char *title) {
    const attn_trace *t = it->trace;
    export_matrix ms[EXPORT_MAX_MATRICES];
    int n = export_item_matrices(it, it->head, ms, EXPORT_MAX_MATRICES);
    attn_strbuf b;
    attn_sb_init(&b);
    preamble(&b, title);
    facts(&b, it);
    if (!it->readout) {
        attn_sb_puts(&b, "\\[ ");
        equation(&b, t, it->step);
        attn_sb_puts(&b, " \\]\n");
    }
    if (it->model) model_equation(&b, it);
    for (int i = 0; i < n; i++) matrix_display(&b, &ms[i], t->cfg.heads);
    attn_sb_puts(&b, "\\end{document}\n");
    return attn_sb_take(&b);
}
