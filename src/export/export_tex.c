/* export_tex.c — LaTeX: a bmatrix per matrix and a small standalone document
 * per step (xelatex + ctex, so Chinese tokens typeset). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_math.h"
#include "attn_steps.h"
#include "export.h"
#include "export_internal.h"

/* Math signs the step names and equations use: typeset in math mode, so
 * they do not depend on the text font having the glyph. */
static const struct {
    const char *utf8, *tex;
} math_signs[] = {
    {"ᵀ", "$^{\\top}$"},
    {"ₖ", "$_k$"},
    {"√", "$\\surd$"},
    {"÷", "$\\div$"},
    {"·", "$\\cdot$"},
    {"×", "$\\times$"},
    {"→", "$\\to$"},
    {"−", "$-$"},
    {"∞", "$\\infty$"},
    {"ℓ", "$\\ell$"},
    {"²", "$^2$"},
    {"…", "\\ldots{}"},
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
        case '#':
        case '$':
        case '%':
        case '&':
        case '_':
        case '{':
        case '}':
            attn_sb_printf(b, "\\%c", *s);
            break;
        case '\n':
        case '\r':
        case '\t': attn_sb_puts(b, " "); break;
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

/* The rows of m as "a & b \\ c & d", a row a line, each led by lead. */
static void matrix_rows(attn_strbuf *b, const export_matrix *m, const char *lead) {
    for (int i = 0; i < m->rows; i++) {
        for (int j = 0; j < m->cols; j++) {
            attn_sb_puts(b, j ? " & " : lead);
            num_fixed(b, m->v[(size_t)i * m->cols + j]);
        }
        attn_sb_puts(b, i + 1 < m->rows ? " \\\\\n" : "\n");
    }
}

void export_tex_bmatrix(attn_strbuf *b, const export_matrix *m) {
    attn_sb_puts(b, "\\begin{bmatrix}\n");
    matrix_rows(b, m, "  ");
    attn_sb_puts(b, "\\end{bmatrix}");
}

char *export_tex_snippet(const export_matrix *m) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "%% attnviz %s: %s, %d×%d, for \\input in math mode; ", ATTN_VERSION, m->name, m->rows, m->cols);
    if (m->cols <= EXPORT_TEX_BMATRIX_COLS) { // amsmath's matrices take 10 columns unless MaxMatrixCols says more
        attn_sb_puts(&b, "needs amsmath.\n");
        export_tex_bmatrix(&b, m);
    } else {
        attn_sb_puts(&b, "no package needed.\n");
        attn_sb_printf(&b, "\\left[\\begin{array}{*{%d}{r}}\n", m->cols);
        matrix_rows(&b, m, "  ");
        attn_sb_puts(&b, "\\end{array}\\right]");
    }
    attn_sb_puts(&b, "\n");
    return attn_sb_take(&b);
}

/* "(a\times b)(c\times d) \to e\times f" */
static void shapes(attn_strbuf *b, int r1, int c1, int r2, int c2) {
    attn_sb_printf(b, "\\qquad (%d\\times %d)(%d\\times %d) \\to %d\\times %d", r1, c1, r2, c2, r1, c2);
}

/* The words of a document in its language (UI strings; the key when ui is NULL). */
typedef struct {
    const viz_strings *ui;
    viz_lang lang;
} words;

static const char *word(const words *w, viz_str id) {
    return ex_str(w->ui, w->lang, id);
}

/* Appends the UI string fmt escaped, each %s in it replaced by the next of
 * args as it is (TeX). */
static void escape_filled(attn_strbuf *b, const char *fmt, const char *const *args, int n_args) {
    int k = 0;
    for (const char *p = fmt; *p;) {
        const char *q = strstr(p, "%s");
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char *piece = strndup(p, len);
        if (piece) export_tex_escape(b, piece);
        free(piece);
        if (!q) break;
        if (k < n_args) attn_sb_puts(b, args[k++]);
        p = q + 2;
    }
}

/* The TeX symbol of a matrix of the step table ("S'", "\\tilde{S}"). */
#define TEX(id) attn_step_matrix_tex(ATTN_SM_##id)

/* "Q = X W_Q" or, with biases, "Q = X W_Q + b_Q": one projection. */
static void projection(attn_strbuf *b, const attn_trace *t, attn_step_matrix result, attn_step_matrix w,
                       const char *bias) {
    attn_sb_printf(b, "%s = %s %s", attn_step_matrix_tex(result), TEX(X), attn_step_matrix_tex(w));
    if (t->cfg.bias) attn_sb_printf(b, " + %s", bias);
}

/* The step's equation in LaTeX, with its shapes; the symbols are the step
 * table's (attn_steps.def), the words w's. */
static void equation(attn_strbuf *b, const attn_trace *t, attn_step step, const words *w) {
    int n = t->n, dm = t->cfg.d_model, dk = t->cfg.d_k, hk = t->cfg.heads * dk;
    char mask[32];
    switch (step) {
    case ATTN_STEP_EMBED:
        attn_sb_printf(b, "%s%s \\qquad %d\\times %d", TEX(X), t->cfg.pos_enc && !t->x_given ? " = E + PE" : "", n, dm);
        break;
    case ATTN_STEP_QKV:
        projection(b, t, ATTN_SM_Q, ATTN_SM_W_Q, "b_Q");
        attn_sb_puts(b, ",\\; ");
        projection(b, t, ATTN_SM_K, ATTN_SM_W_K, "b_K");
        attn_sb_puts(b, ",\\; ");
        projection(b, t, ATTN_SM_V, ATTN_SM_W_V, "b_V");
        shapes(b, n, dm, dm, dk);
        break;
    case ATTN_STEP_ROPE: // each pair (2i, 2i+1) of q and k turned by m·θ_i
        attn_sb_printf(b, "{%s}_{m,(2i,2i+1)} = \\begin{pmatrix}\\cos m\\theta_i & -\\sin m\\theta_i\\\\ \\sin m\\theta_i & "
                          "\\cos m\\theta_i\\end{pmatrix} {%s}_{m,(2i,2i+1)},\\; %s \\text{ alike},\\; "
                          "\\theta_i = %.0f^{-2i/%d},\\; m = %d \\dots %d \\qquad %d\\times %d",
                       TEX(Q_ROT), TEX(Q), TEX(K_ROT), t->cfg.rope_base, dk, t->cfg.pos_offset,
                       t->cfg.pos_offset + n - 1, n, dk);
        break;
    case ATTN_STEP_SCORES:
        if (t->cfg.rope) attn_sb_printf(b, "%s = %s %s^{\\top}", TEX(S), TEX(Q_ROT), TEX(K_ROT));
        else attn_sb_printf(b, "%s = %s %s^{\\top}", TEX(S), TEX(Q), TEX(K));
        shapes(b, n, dk, dk, n);
        break;
    case ATTN_STEP_SCALE:
        if (t->cfg.scale) {
            attn_sb_printf(b, "%s = \\frac{%s}{\\sqrt{d_k}} = \\frac{%s}{\\sqrt{%d}}", TEX(S_SCALED), TEX(S), TEX(S), dk);
        } else {
            attn_sb_printf(b, "%s = %s \\quad \\text{(", TEX(S_SCALED), TEX(S));
            export_tex_escape(b, word(w, VIZ_S_SCALE_OFF_LABEL));
            attn_sb_puts(b, ")}");
        }
        attn_sb_printf(b, " \\qquad %d\\times %d", n, n);
        break;
    case ATTN_STEP_MASK: {
        static const char *const ij[] = {"$i$", "$j$"};
        attn_sb_printf(b, "%s_{ij} = \\begin{cases} %s_{ij} & \\text{", TEX(S_MASKED), TEX(S_SCALED));
        escape_filled(b, word(w, VIZ_S_TEX_MAY_SEE), ij, 2);
        attn_sb_puts(b, "}\\\\ -\\infty & \\text{");
        export_tex_escape(b, word(w, VIZ_S_TEX_OTHERWISE));
        attn_sb_puts(b, "} \\end{cases} \\qquad \\text{");
        attn_mask_format(mask, sizeof mask, t->cfg.mask);
        const char *arg[] = {mask};
        attn_strbuf m;
        attn_sb_init(&m);
        export_tex_escape(&m, mask);
        arg[0] = m.data ? m.data : "";
        escape_filled(b, word(w, VIZ_S_TEX_MASK), arg, 1);
        attn_sb_free(&m);
        attn_sb_printf(b, "} \\qquad %d\\times %d", n, n);
        break;
    }
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

/* Sentence, tokens (in row order) and configuration, in w's words. */
static void facts(attn_strbuf *b, const export_item *it, const words *w) {
    const attn_trace *t = it->trace;
    char lab[256];
    attn_strbuf cfg;
    attn_sb_init(&cfg);
    ex_item_config_text(&cfg, it);
    attn_sb_puts(b, "\\noindent ");
    export_tex_escape(b, word(w, VIZ_S_TEX_SENTENCE));
    attn_sb_puts(b, " ");
    export_tex_escape(b, t->tokens.text);
    attn_sb_puts(b, "\\\\\n");
    export_tex_escape(b, word(w, VIZ_S_TEX_TOKENS));
    attn_sb_puts(b, " ");
    for (int i = 0; i < t->n; i++) {
        attn_token_label(&t->tokens, i, 0, lab, sizeof lab);
        if (i) attn_sb_puts(b, ", ");
        attn_sb_puts(b, "\\mbox{");
        export_tex_escape(b, lab);
        attn_sb_puts(b, "}");
    }
    attn_sb_puts(b, "\\\\\n");
    export_tex_escape(b, word(w, VIZ_S_TEX_CONFIG));
    attn_sb_puts(b, " \\texttt{");
    // the configuration breaks between its settings: \texttt does not hyphenate
    for (const char *p = cfg.data ? cfg.data : ""; *p;) {
        size_t len = strcspn(p, " ");
        char *setting = strndup(p, len);
        if (setting) export_tex_escape(b, setting);
        free(setting);
        p += len;
        if (*p) attn_sb_puts(b, " \\allowbreak ");
        p += strspn(p, " ");
    }
    attn_sb_puts(b, "}\n");
    attn_sb_free(&cfg);
}

/* ---- a matrix in the document: labelled, in blocks of columns that fit ---- */

/* The page's text width (A4 landscape, 1.5 cm margins) in pt, less a margin
 * for the estimate below. */
#define TEXT_PT (0.9 * (29.7 - 3.0) / 2.54 * 72.27)
#define COLSEP_PT 3.0 /* \arraycolsep in the documents' arrays */

/* A generous estimate of the width of s typeset at px pt: digits and most
 * ASCII half an em, minus signs and capitals more, a CJK character a full em,
 * a TeX command (\times, \infty) an em. */
static double width_pt(const char *s, double px) {
    double em = 0;
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '\\') {
            em += 1.0;
            while (p[1] && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z'))) p++;
        } else if (ch == '{' || ch == '}' || ch == '^') {
            continue;
        } else if (ch >= 0xC0) {
            em += 1.0;
        } else if (ch >= 0x80) {
            continue; // a continuation byte
        } else if (ch == '.' || ch == ':' || ch == ',') {
            em += 0.3;
        } else if (ch == '-') {
            em += 0.8;
        } else if (ch >= 'A' && ch <= 'Z') {
            em += 0.75;
        } else {
            em += 0.55;
        }
    }
    return em * px;
}

/* The token of a token axis' first row and column: 0, but a step of the tiles
 * view shows a block of the matrix (set only around its displays). */
static struct {
    int row0, col0;
} token_at;

/* Label i of an axis of m, as the CSV files label it (TeX, escaped) into lab. */
static void axis_tex(attn_strbuf *lab, const export_item *it, const export_matrix *m, bool cols, int i) {
    char buf[256];
    export_axis a = cols ? m->col_axis : m->row_axis;
    if (a == EXPORT_AXIS_TOKENS) i += cols ? token_at.col0 : token_at.row0; // a block of the tiles view
    ex_axis_label(buf, sizeof buf, it->trace, m, a, i,
                  ex_axis_names(it->trace, m, cols, it->feature_names, &it->names));
    export_tex_escape(lab, buf);
}

/* One block of m's columns [c0, c1): the column labels above, the row labels
 * left, the values in a frame. */
static void block(attn_strbuf *b, const export_item *it, const export_matrix *m, const char *symbol, int c0, int c1) {
    attn_strbuf lab;
    attn_sb_init(&lab);
    attn_sb_printf(b, "\\[ %s = \\begin{array}{r|*{%d}{r}|}\n\\multicolumn{1}{c}{}", symbol, c1 - c0);
    for (int j = c0; j < c1; j++) {
        attn_sb_free(&lab);
        axis_tex(&lab, it, m, true, j);
        attn_sb_printf(b, " & \\multicolumn{1}{c}{\\text{%s}}", lab.data ? lab.data : "");
    }
    attn_sb_printf(b, " \\\\ \\cline{2-%d}\n", c1 - c0 + 1);
    for (int i = 0; i < m->rows; i++) {
        attn_sb_free(&lab);
        axis_tex(&lab, it, m, false, i);
        attn_sb_printf(b, "\\text{%s}", lab.data ? lab.data : "");
        for (int j = c0; j < c1; j++) {
            attn_sb_puts(b, " & ");
            num_fixed(b, m->v[(size_t)i * m->cols + j]);
        }
        attn_sb_puts(b, " \\\\");
        attn_sb_printf(b, i + 1 < m->rows ? "\n" : " \\cline{2-%d}\n", c1 - c0 + 1);
    }
    attn_sb_puts(b, "\\end{array} \\]\n");
    attn_sb_free(&lab);
}

/* Width in pt of column j of m (label and values) at px, or of the row labels for j = -1. */
static double column_pt(const export_item *it, const export_matrix *m, int j, double px) {
    attn_strbuf s;
    attn_sb_init(&s);
    double w = 0;
    for (int i = -1; i < m->rows; i++) {
        attn_sb_free(&s);
        if (j < 0 && i >= 0) axis_tex(&s, it, m, false, i);
        else if (i < 0 && j >= 0) axis_tex(&s, it, m, true, j);
        else if (j >= 0) num_fixed(&s, m->v[(size_t)i * m->cols + j]);
        w = fmax(w, width_pt(s.data ? s.data : "", px));
    }
    attn_sb_free(&s);
    return w + 2 * COLSEP_PT;
}

/* Where a block of m's columns from c0 ends: as many columns as the page
 * holds beside fixed pt, at most most of them (at least one). */
static int block_end(const export_item *it, const export_matrix *m, int c0, int most, double fixed, double px) {
    double used = fixed + column_pt(it, m, c0, px);
    int c1 = c0 + 1;
    for (; c1 < m->cols && c1 - c0 < most; c1++) {
        double next = column_pt(it, m, c1, px);
        if (used + next > TEXT_PT) break;
        used += next;
    }
    return c1;
}

static void matrix_display(attn_strbuf *b, const export_item *it, const export_matrix *m, int heads, const words *w) {
    bool small = m->cols <= 8;
    double px = small ? 10.0 : 8.0; // \small and \scriptsize of an 11 pt document
    char symbol[128], cols[96];
    if (m->head >= 0 && heads > 1) snprintf(symbol, sizeof symbol, "{%s}^{(%d)}", m->tex, m->head + 1);
    else snprintf(symbol, sizeof symbol, "{%s}", m->tex);
    double fixed = width_pt(symbol, px) + 3 * px + column_pt(it, m, -1, px); // the symbol, " = ", the row labels
    attn_sb_printf(b, "\\begingroup%s\\setlength{\\arraycolsep}{%gpt}\n", small ? "\\small" : "\\scriptsize", COLSEP_PT);
    int blocks = 0;
    for (int c0 = 0; c0 < m->cols; blocks++) c0 = block_end(it, m, c0, m->cols, fixed, px);
    int most = blocks ? (m->cols + blocks - 1) / blocks : 1; // blocks of even widths: 18 + 18, not 23 + 13
    for (int c0 = 0, c1; c0 < m->cols; c0 = c1) {
        c1 = block_end(it, m, c0, most, fixed, px);
        if (c0 > 0 || c1 < m->cols) { // a block of a wide matrix says which columns it holds
            snprintf(cols, sizeof cols, word(w, VIZ_S_TEX_COLUMNS), c0 + 1, c1, m->cols);
            attn_sb_puts(b, "\\par\\noindent ");
            export_tex_escape(b, cols);
            attn_sb_puts(b, "\n");
        }
        block(b, it, m, symbol, c0, c1);
    }
    attn_sb_puts(b, "\\endgroup\n");
}

/* text's paragraphs (split at blank lines) as TeX paragraphs, escaped. */
static void tex_paragraphs(attn_strbuf *b, const char *text) {
    for (const char *p = text; *p;) {
        const char *end = strstr(p, "\n\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *para = strndup(p, len);
        attn_sb_puts(b, "\\par\\medskip\\noindent ");
        if (para) export_tex_escape(b, para);
        attn_sb_puts(b, "\n");
        free(para);
        p += len;
        while (*p == '\n') p++;
    }
}
/* A model's own equations: the readout, the gradient, the residual, X = E + P. */
static void model_equation(attn_strbuf *b, const export_item *it, const words *w) {
    const model *m = it->model;
    if (it->readout && m->cfg.objective == MODEL_OBJ_TOKEN)
        attn_sb_puts(b, "\\[ p = \\operatorname{softmax}(x U + b_U) \\]\n");
    else if (it->readout)
        attn_sb_printf(b, "\\[ \\bar{A} = \\tfrac{1}{%d} \\textstyle\\sum_h A_h \\]\n", m->cfg.heads);
    if (it->backward)
        attn_sb_puts(b, "\\[ \\frac{\\partial L}{\\partial T_{ij}} = A_{ij}\\Big(\\frac{\\partial L}{\\partial A_{ij}} - "
                        "\\sum_k A_{ik}\\frac{\\partial L}{\\partial A_{ik}}\\Big) \\]\n");
    if (!it->readout && it->step == ATTN_STEP_MULTIHEAD) attn_sb_puts(b, "\\[ X' = X + \\mathrm{out} \\]\n");
    if (!it->readout && it->step == ATTN_STEP_EMBED && it->layer == 0) {
        attn_sb_puts(b, "\\[ X = E[\\text{");
        export_tex_escape(b, word(w, VIZ_S_TEX_TOKEN));
        attn_sb_puts(b, model_pos_in_x(m->cfg.pos) ? "}] + P \\]\n" : "}] \\]\n");
    }
}

char *export_tex_document(const export_item *it, const char *title, const viz_strings *ui, viz_lang lang) {
    const attn_trace *t = it->trace;
    const words w = {ui, lang};
    export_matrix ms[EXPORT_MAX_MATRICES];
    int n = export_item_matrices(it, it->head, ms, EXPORT_MAX_MATRICES);
    attn_strbuf b;
    attn_sb_init(&b);
    preamble(&b, title);
    facts(&b, it, &w);
    if (!it->readout) {
        attn_sb_puts(&b, "\\[ ");
        equation(&b, t, it->step, &w);
        attn_sb_puts(&b, " \\]\n");
    }
    if (it->model) model_equation(&b, it, &w);
    for (int i = 0; i < n; i++) matrix_display(&b, it, &ms[i], t->cfg.heads, &w);
    attn_sb_puts(&b, "\\end{document}\n");
    return attn_sb_take(&b);
}

/* The decode view's document (issue 24): the narrative of the token shown,
 * the step's equations, the per-token record as a table and the shown head's
 * Z_decode, rows as produced one token at a time. */
char *export_tex_decode(const export_item *it, const char *title, const viz_strings *ui, viz_lang lang) {
    const attn_trace *tr = it->trace;
    const attn_decode *d = it->decode;
    const words w = {ui, lang};
    int t = it->query >= 0 && it->query < tr->n ? it->query : attn_trace_default_query(tr);
    int head = it->head >= 0 && it->head < d->heads ? it->head : 0;
    char text[2048], lab[256];
    attn_strbuf b;
    attn_sb_init(&b);
    preamble(&b, title);
    facts(&b, it, &w);
    viz_decode_narrative(text, sizeof text, ui ? ui->s[lang] : NULL, d, t);
    tex_paragraphs(&b, text);
    attn_sb_puts(&b, "\\[ q_t = x_t W_Q,\\quad K \\leftarrow \\begin{bmatrix} K \\\\ x_t W_K \\end{bmatrix},\\quad "
                     "V \\leftarrow \\begin{bmatrix} V \\\\ x_t W_V \\end{bmatrix},\\quad z_t = "
                     "\\operatorname{softmax}\\Big(\\frac{q_t K^\\top}{\\sqrt{d_k}}\\Big) V \\]\n");
    attn_sb_puts(&b, "\\begin{center}\\small\\begin{tabular}{rl*{8}{r}}\n\\hline\n");
    const char *head_row = word(&w, VIZ_S_DECODE_TABLE); // columns split by '|'
    for (int col = 0; *head_row; col++) {
        size_t len = strcspn(head_row, "|");
        char *cell = strndup(head_row, len);
        if (col) attn_sb_puts(&b, " & ");
        if (col == 0) attn_sb_puts(&b, "$t$ & ");
        if (cell) export_tex_escape(&b, cell);
        free(cell);
        head_row += len;
        if (*head_row == '|') head_row++;
    }
    attn_sb_puts(&b, " \\\\\n\\hline\n");
    for (int r = 0; r < d->n; r++) {
        const attn_decode_step *k = &d->step[r];
        attn_token_label(&tr->tokens, r, 0, lab, sizeof lab);
        attn_sb_printf(&b, "%s%d & \\mbox{", r == t ? "\\bfseries " : "", r + 1);
        export_tex_escape(&b, lab);
        attn_sb_printf(&b, "} & %d & %d & %d & %lld & %lld & %lld & %lld & %lld \\\\\n", k->cache_len, k->cells,
                       k->cells_read, k->macs, k->macs_total, k->full_macs, k->full_total, k->cache_bytes);
    }
    attn_sb_puts(&b, "\\hline\n\\end{tabular}\n\\end{center}\n");
    export_matrix z = {.name = "Z_decode", .tex = "Z_{\\mathrm{decode}}", .v = d->z[head], .rows = d->n, .cols = d->d_k, .head = head, .row_axis = EXPORT_AXIS_TOKENS, .col_axis = EXPORT_AXIS_DIMS};
    matrix_display(&b, it, &z, d->heads, &w);
    attn_sb_puts(&b, "\\end{document}\n");
    return attn_sb_take(&b);
}

void ex_tiles_text(char *out, size_t cap, const export_item *it, const viz_strings *ui, viz_lang lang) {
    const attn_tiles *tl = it->tiles;
    const attn_tile_step *st = &tl->steps[it->tiles_step];
    const attn_trace *t = it->trace;
    int head = it->head >= 0 && it->head < t->cfg.heads ? it->head : 0;
    char a[32], b[32], e[32];
    size_t used = 0;
    int k = snprintf(out, cap, ex_str(ui, lang, st->skipped ? VIZ_S_TILES_STEP_SKIPPED : VIZ_S_TILES_STEP),
                     it->tiles_step + 1, tl->count, st->r0 + 1, st->r1, st->c0 + 1, st->c1);
    used += k > 0 ? (size_t)k : 0;
    viz_thousands(a, sizeof a, st->bytes), viz_thousands(b, sizeof b, tl->max_bytes), viz_thousands(e, sizeof e, tl->full_bytes);
    if (used < cap) used += (size_t)snprintf(out + used, cap - used, "\n\n");
    if (used < cap) used += (size_t)snprintf(out + used, cap - used, ex_str(ui, lang, VIZ_S_TILES_BYTES), a, b, e);
    if (used < cap) used += (size_t)snprintf(out + used, cap - used, "\n\n");
    if (used < cap)
        used += (size_t)snprintf(out + used, cap - used, ex_str(ui, lang, VIZ_S_TILES_CHECK),
                                 attn_tiles_rel_diff(tl->z, t->head[head].z, (size_t)tl->n * tl->d));
    if (st->skipped && used < cap) snprintf(out + used, cap - used, "\n\n%s", ex_str(ui, lang, VIZ_S_TILES_XP_SKIP));
}

void ex_tiles_row(const export_item *it, int r, double out[6]) {
    const attn_tile_step *st = &it->tiles->steps[it->tiles_step];
    int cols = st->c1 - st->c0;
    double m_old = st->m_old[r], m = st->m[r], sum = 0.0;
    for (int j = 0; st->s && m != -INFINITY && j < cols; j++) { // the block's own terms, with the core's exp
        double s = st->s[(size_t)r * cols + j];
        if (s != -INFINITY) sum += attn_exp(s - m);
    }
    out[0] = m_old, out[1] = m, out[2] = m_old == -INFINITY || m == -INFINITY ? 0.0 : attn_exp(m_old - m);
    out[3] = st->l_old[r], out[4] = sum, out[5] = st->l[r];
}

char *export_tex_tiles(const export_item *it, const char *title, const viz_strings *ui, viz_lang lang) {
    const attn_trace *tr = it->trace;
    const attn_tiles *tl = it->tiles;
    const attn_tile_step *st = &tl->steps[it->tiles_step];
    const words w = {ui, lang};
    int rows = st->r1 - st->r0, cols = st->c1 - st->c0, head = it->head >= 0 && it->head < tr->cfg.heads ? it->head : 0;
    char text[2048], lab[256];
    attn_strbuf b;
    attn_sb_init(&b);
    preamble(&b, title);
    facts(&b, it, &w);
    ex_tiles_text(text, sizeof text, it, ui, lang);
    tex_paragraphs(&b, text);
    attn_sb_puts(&b, "\\begin{gather*} m_i' = \\max\\big(m_i,\\ \\max_j s_{ij}\\big),\\qquad \\alpha_i = e^{m_i - m_i'},"
                     "\\qquad \\ell_i' = \\alpha_i \\ell_i + \\textstyle\\sum_j e^{s_{ij} - m_i'},\\\\ "
                     "O_i' = \\alpha_i O_i + \\textstyle\\sum_j e^{s_{ij} - m_i'}\\, v_j,\\qquad "
                     "z_i = O_i' / \\ell_i' \\end{gather*}\n");
    if (st->skipped) {
        attn_sb_puts(&b, "\\end{document}\n");
        return attn_sb_take(&b);
    }
    // per query row: m, α, ℓ before and after
    attn_sb_puts(&b, "\\begin{center}\\small\\begin{tabular}{rl*{6}{r}}\n\\hline\n$i$ & ");
    export_tex_escape(&b, word(&w, VIZ_S_TEX_TOKEN));
    static const viz_str heads[] = {VIZ_S_TILES_MAT_M_OLD, VIZ_S_TILES_MAT_M, 0, VIZ_S_TILES_MAT_L_OLD, 0, VIZ_S_TILES_MAT_L};
    for (int k = 0; k < 6; k++) {
        attn_sb_puts(&b, " & ");
        if (k == 2) attn_sb_puts(&b, "$\\alpha_i$");
        else if (k == 4) attn_sb_puts(&b, "$\\sum_j e^{s_{ij} - m_i'}$");
        else export_tex_escape(&b, word(&w, heads[k]));
    }
    attn_sb_puts(&b, " \\\\\n\\hline\n");
    for (int r = 0; r < rows; r++) {
        double v[6];
        ex_tiles_row(it, r, v);
        attn_token_label(&tr->tokens, st->r0 + r, 0, lab, sizeof lab);
        attn_sb_printf(&b, "%d & \\mbox{", st->r0 + r + 1);
        export_tex_escape(&b, lab);
        attn_sb_puts(&b, "}");
        for (int k = 0; k < 6; k++) {
            attn_sb_puts(&b, " & $");
            num_fixed(&b, v[k]);
            attn_sb_puts(&b, "$");
        }
        attn_sb_puts(&b, " \\\\\n");
    }
    attn_sb_puts(&b, "\\hline\n\\end{tabular}\n\\end{center}\n");
    export_matrix ms[4] = {
        {.name = "S_block", .tex = "S_{\\mathrm{block}}", .v = st->s, .rows = rows, .cols = cols, .head = head, .row_axis = EXPORT_AXIS_TOKENS, .col_axis = EXPORT_AXIS_TOKENS},
        {.name = "O_before", .tex = "O", .v = st->o_old, .rows = rows, .cols = tl->d, .head = head, .row_axis = EXPORT_AXIS_TOKENS, .col_axis = EXPORT_AXIS_DIMS},
        {.name = "O_after", .tex = "O'", .v = st->o, .rows = rows, .cols = tl->d, .head = head, .row_axis = EXPORT_AXIS_TOKENS, .col_axis = EXPORT_AXIS_DIMS},
        {.name = "Z_tiled", .tex = "Z_{\\mathrm{tiled}}", .v = tl->z + (size_t)st->r0 * tl->d, .rows = rows, .cols = tl->d, .head = head, .row_axis = EXPORT_AXIS_TOKENS, .col_axis = EXPORT_AXIS_DIMS},
    };
    int shown = st->kb == tl->blocks - 1 ? 4 : 3; // the last key block: z = O'/ℓ' of these rows
    for (int k = 0; k < shown; k++) {
        token_at.row0 = st->r0, token_at.col0 = k == 0 ? st->c0 : 0;
        matrix_display(&b, it, &ms[k], tr->cfg.heads, &w);
    }
    token_at.row0 = token_at.col0 = 0;
    attn_sb_puts(&b, "\\end{document}\n");
    return attn_sb_take(&b);
}
