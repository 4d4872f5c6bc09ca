/* export_csv.c — one matrix as RFC 4180 CSV, labelled with tokens or
 * dimension names, so a spreadsheet shows the same table as the figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* A spreadsheet runs a text cell that starts with one of these as a formula
 * (OWASP's CSV injection list, with the tab and carriage return it adds). */
static bool formula_start(const char *s) {
    return *s && strchr("=+-@\t\r", *s);
}

/* s is a whole number as a spreadsheet reads one ("-3", "+1.5"): it stays as it is. */
static bool plain_number(const char *s) {
    char *end;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(v) && strpbrk(s, "xXpP") == NULL;
}

void export_csv_field(attn_strbuf *b, const char *s) {
    // a text that would run as a formula (=HYPERLINK(…), +cmd|…, @SUM(…)) starts with ' and is quoted
    bool neutral = formula_start(s) && !plain_number(s);
    if (!neutral && !strpbrk(s, ",\"\r\n")) {
        attn_sb_puts(b, s);
        return;
    }
    attn_sb_puts(b, neutral ? "\"'" : "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"') attn_sb_puts(b, "\"\""); // RFC 4180: a quote inside is doubled
        else attn_sb_append(b, p, 1);
    }
    attn_sb_puts(b, "\"");
}

/* Which of a lesson's names label a matrix's rows or columns, as its figure shows them. */
typedef enum { NAMES_NONE, NAMES_FEATURES, NAMES_Q, NAMES_K, NAMES_V, NAMES_OUT } names_of;

static const struct {
    const char *matrix; /* export_matrix.name */
    names_of rows, cols;
} NAMED[] = {
    {"X", NAMES_NONE, NAMES_FEATURES},     {"W_Q", NAMES_FEATURES, NAMES_Q}, {"W_K", NAMES_FEATURES, NAMES_K},
    {"W_V", NAMES_FEATURES, NAMES_V},      {"Q", NAMES_NONE, NAMES_Q},       {"K", NAMES_NONE, NAMES_K},
    {"V", NAMES_NONE, NAMES_V},            {"Z", NAMES_NONE, NAMES_V}, /* Z's columns are V's, mixed */
    {"W_O", NAMES_NONE, NAMES_OUT},        {"out", NAMES_NONE, NAMES_OUT},
};

/* The names of m's rows (cols false) or columns, or NULL. */
static const char *const *axis_names(const attn_trace *t, const export_matrix *m, bool cols,
                                     const char *const *features, const viz_names *names) {
    for (size_t i = 0; i < sizeof NAMED / sizeof *NAMED; i++) {
        if (strcmp(NAMED[i].matrix, m->name) != 0) continue;
        names_of k = cols ? NAMED[i].cols : NAMED[i].rows;
        int h = m->head >= 0 && m->head < ATTN_MAX_HEADS ? m->head : 0;
        if (k == NAMES_FEATURES) return features;
        if (k == NAMES_OUT && names && names->out) return names->out;
        if (k == NAMES_OUT) return t->given[ATTN_MAT_W_O][0] ? features : NULL; // a design maps back to features
        if (k != NAMES_NONE) return names ? names->qkv[k - NAMES_Q][h] : NULL;
    }
    return NULL;
}

/* Label i of an axis: the token, the figure's name of the dimension, "d3", or "h2.1". */
static void axis_label(char *buf, size_t cap, const attn_trace *t, const export_matrix *m, export_axis a, int i,
                       const char *const *named) {
    if (a == EXPORT_AXIS_TOKENS) attn_token_label(&t->tokens, i, 0, buf, cap);
    else if (a == EXPORT_AXIS_CONCAT) snprintf(buf, cap, "h%d.%d", i / t->cfg.d_k + 1, i % t->cfg.d_k);
    else if (a == EXPORT_AXIS_WORDS && m->words) snprintf(buf, cap, "%s", m->words[i]);
    else if (named && named[i]) {
        snprintf(buf, cap, "%s", named[i]);
        ex_utf8_trim(buf); // a long name is cut between characters
    }
    else snprintf(buf, cap, "d%d", i);
}

char *ex_csv_named(const attn_trace *t, const export_matrix *m, const char *const *features, const viz_names *names) {
    attn_strbuf b;
    char lab[256];
    const char *const *rows = axis_names(t, m, false, features, names);
    const char *const *cols = axis_names(t, m, true, features, names);
    if (m->features && !cols) cols = features;
    attn_sb_init(&b);
    export_csv_field(&b, m->name);
    for (int j = 0; j < m->cols; j++) {
        axis_label(lab, sizeof lab, t, m, m->col_axis, j, cols);
        attn_sb_puts(&b, ",");
        export_csv_field(&b, lab);
    }
    attn_sb_puts(&b, "\r\n");
    for (int i = 0; i < m->rows; i++) {
        axis_label(lab, sizeof lab, t, m, m->row_axis, i, rows);
        export_csv_field(&b, lab);
        for (int j = 0; j < m->cols; j++) {
            double v = m->v[(size_t)i * m->cols + j];
            attn_sb_puts(&b, ",");
            if (v == -INFINITY) attn_sb_puts(&b, "-inf"); // a masked score: a number, left as it is
            else attn_sb_number(&b, v);
        }
        attn_sb_puts(&b, "\r\n");
    }
    return attn_sb_take(&b);
}

char *export_csv(const attn_trace *t, const export_matrix *m, const char *const *features) {
    return ex_csv_named(t, m, features, NULL);
}
