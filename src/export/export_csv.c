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

/* Label i of an axis: the token, the feature name, "d3", or "h2.1". */
static void axis_label(char *buf, size_t cap, const attn_trace *t, const export_matrix *m, export_axis a, int i,
                       const char *const *features) {
    if (a == EXPORT_AXIS_TOKENS) attn_token_label(&t->tokens, i, 0, buf, cap);
    else if (a == EXPORT_AXIS_CONCAT) snprintf(buf, cap, "h%d.%d", i / t->cfg.d_k + 1, i % t->cfg.d_k);
    else if (a == EXPORT_AXIS_WORDS && m->words) snprintf(buf, cap, "%s", m->words[i]);
    else if (m->features && features && features[i]) {
        snprintf(buf, cap, "%s", features[i]);
        ex_utf8_trim(buf); // a long feature name is cut between characters
    }
    else snprintf(buf, cap, "d%d", i);
}

char *export_csv(const attn_trace *t, const export_matrix *m, const char *const *features) {
    attn_strbuf b;
    char lab[256];
    attn_sb_init(&b);
    export_csv_field(&b, m->name);
    for (int j = 0; j < m->cols; j++) {
        axis_label(lab, sizeof lab, t, m, m->col_axis, j, features);
        attn_sb_puts(&b, ",");
        export_csv_field(&b, lab);
    }
    attn_sb_puts(&b, "\r\n");
    for (int i = 0; i < m->rows; i++) {
        axis_label(lab, sizeof lab, t, m, m->row_axis, i, NULL);
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
