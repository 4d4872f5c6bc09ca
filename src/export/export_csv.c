/* export_csv.c — one matrix as RFC 4180 CSV, labelled with tokens or
 * dimension names, so a spreadsheet shows the same table as the figure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export_internal.h"

void export_csv_field(attn_strbuf *b, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        attn_sb_puts(b, s);
        return;
    }
    attn_sb_puts(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"') attn_sb_puts(b, "\"\""); // RFC 4180: a quote inside is doubled
        else attn_sb_append(b, p, 1);
    }
    attn_sb_puts(b, "\"");
}

char *export_csv(const attn_trace *t, const export_matrix *m, const char *const *features) {
    attn_strbuf b;
    char lab[256];
    attn_sb_init(&b);
    export_csv_field(&b, m->name);
    for (int j = 0; j < m->cols; j++) {
        ex_axis_label(lab, sizeof lab, t, m, m->col_axis, j, features);
        attn_sb_puts(&b, ",");
        export_csv_field(&b, lab);
    }
    attn_sb_puts(&b, "\r\n");
    for (int i = 0; i < m->rows; i++) {
        ex_axis_label(lab, sizeof lab, t, m, m->row_axis, i, NULL);
        export_csv_field(&b, lab);
        for (int j = 0; j < m->cols; j++) {
            double v = m->v[(size_t)i * m->cols + j];
            attn_sb_puts(&b, ",");
            if (v == -INFINITY) attn_sb_puts(&b, "-inf"); // a masked score
            else attn_sb_number(&b, v);
        }
        attn_sb_puts(&b, "\r\n");
    }
    return attn_sb_take(&b);
}
