/* cli_print.c — printing stages as tables labelled with tokens. */
#include "cli_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

#define LABEL_COLS 12 /* widest token label shown before it is shortened */

void cli_format_cell(char *buf, size_t cap, double v) {
    if (v == -INFINITY) snprintf(buf, cap, "-inf");
    else if (fabs(v) >= 1e5) snprintf(buf, cap, "%.3e", v);
    else snprintf(buf, cap, "%.4f", v);
}

static void pad_print(FILE *out, const char *s, int width, int right) {
    int w = utf8_width(s, strlen(s));
    if (right) fprintf(out, "%*s%s", width > w ? width - w : 0, "", s);
    else fprintf(out, "%s%*s", s, width > w ? width - w : 0, "");
}

/* Column label c of a stage: a token for n×n stages, else a dimension name. */
static void col_label(const attn_trace *t, attn_stage s, int c, char *buf, size_t cap) {
    if (s >= ATTN_ST_SCORES && s <= ATTN_ST_WEIGHTS)
        attn_token_label(&t->tokens, c, LABEL_COLS, buf, cap);
    else if (s == ATTN_ST_CONCAT)
        snprintf(buf, cap, "h%d.d%d", c / t->cfg.d_k, c % t->cfg.d_k);
    else
        snprintf(buf, cap, "d%d", c);
}

typedef struct {
    const attn_trace *t;
    attn_stage s;
} stage_cols;

static void stage_col_label(const void *ctx, int c, char *buf, size_t cap) {
    const stage_cols *sc = ctx;
    col_label(sc->t, sc->s, c, buf, cap);
}

static void print_table(FILE *out, const attn_trace *t, attn_stage s, const double *m) {
    int rows, cols;
    attn_trace_shape(t, s, &rows, &cols);
    stage_cols sc = {t, s};
    cli_print_matrix(out, &t->tokens, m, rows, cols, stage_col_label, &sc);
}

void cli_print_matrix(FILE *out, const attn_tokens *toks, const double *m, int rows, int cols,
                      void (*label)(const void *ctx, int c, char *buf, size_t cap), const void *ctx) {
    char buf[64];
    int lw = 0, cw = 0; // label column width, value column width
    for (int i = 0; i < rows; i++) {
        attn_token_label(toks, i, LABEL_COLS, buf, sizeof buf);
        int w = utf8_width(buf, strlen(buf));
        if (w > lw) lw = w;
    }
    for (int j = 0; j < cols; j++) {
        label(ctx, j, buf, sizeof buf);
        int w = utf8_width(buf, strlen(buf));
        if (w > cw) cw = w;
    }
    for (size_t k = 0; k < (size_t)rows * cols; k++) {
        cli_format_cell(buf, sizeof buf, m[k]);
        int w = (int)strlen(buf);
        if (w > cw) cw = w;
    }
    pad_print(out, "", lw, 0);
    for (int j = 0; j < cols; j++) {
        label(ctx, j, buf, sizeof buf);
        fputs("  ", out);
        pad_print(out, buf, cw, 1);
    }
    fputc('\n', out);
    for (int i = 0; i < rows; i++) {
        attn_token_label(toks, i, LABEL_COLS, buf, sizeof buf);
        pad_print(out, buf, lw, 0);
        for (int j = 0; j < cols; j++) {
            cli_format_cell(buf, sizeof buf, m[(size_t)i * cols + j]);
            fputs("  ", out);
            pad_print(out, buf, cw, 1);
        }
        fputc('\n', out);
    }
}

void cli_print_tokens(FILE *out, const attn_trace *t, const char *weights_name) {
    fprintf(out, "tokens (%d):", t->n);
    for (int i = 0; i < t->n; i++) {
        int len;
        const char *tok = attn_token_text(&t->tokens, i, &len);
        fprintf(out, " %d:%.*s", i + 1, len, tok); // 1-based, like the labels
    }
    fputc('\n', out);
    if (t->source == ATTN_SRC_RANDOM && !t->x_given)
        fprintf(out, "weights: random, untrained (seed %lu)\n", (unsigned long)t->cfg.seed);
    else if (t->source == ATTN_SRC_EXPLICIT)
        fprintf(out, "weights: from %s\n", weights_name ? weights_name : "the lesson");
    else
        fprintf(out, "weights: from %s, the rest random (seed %lu)\n",
                weights_name ? weights_name : "the lesson", (unsigned long)t->cfg.seed);
}

void cli_print_stage(FILE *out, const attn_trace *t, attn_stage s) {
    if ((s == ATTN_ST_Q_ROT || s == ATTN_ST_K_ROT) && !t->cfg.rope) return; // RoPE's stages: only with it
    char eq[160];
    attn_stage_equation(t, s, eq, sizeof eq);
    int heads = attn_stage_per_head(s) ? t->cfg.heads : 1;
    for (int h = 0; h < heads; h++) {
        if (attn_stage_per_head(s)) fprintf(out, "\n== %s, head %d: %s\n", attn_stage_name(s), h + 1, eq); // as the window counts
        else fprintf(out, "\n== %s: %s\n", attn_stage_name(s), eq);
        print_table(out, t, s, attn_trace_stage(t, s, h));
    }
}
