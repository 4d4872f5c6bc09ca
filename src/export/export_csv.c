/* export_csv.c — one matrix as RFC 4180 CSV, labelled with tokens or
 * dimension names, so a spreadsheet shows the same table as the figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
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

char *ex_csv_named(const attn_trace *t, const export_matrix *m, const char *const *features, const viz_names *names) {
    attn_strbuf b;
    char lab[256];
    const char *const *rows = ex_axis_names(t, m, false, features, names);
    const char *const *cols = ex_axis_names(t, m, true, features, names);
    attn_sb_init(&b);
    export_csv_field(&b, m->name);
    for (int j = 0; j < m->cols; j++) {
        ex_axis_label(lab, sizeof lab, t, m, m->col_axis, j, cols);
        attn_sb_puts(&b, ",");
        export_csv_field(&b, lab);
    }
    attn_sb_puts(&b, "\r\n");
    for (int i = 0; i < m->rows; i++) {
        ex_axis_label(lab, sizeof lab, t, m, m->row_axis, i, rows);
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
