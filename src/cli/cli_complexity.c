/* cli_complexity.c — the complexity lab's figures as text. */
#include "cli_complexity.h"

#include <math.h>

#include "complexity.h"

/* One series as table rows: n, d, method, ms, multiply-adds, ns per MA. */
static void print_series(FILE *out, const attn_cx_series *s) {
    const char *name = attn_cx_method_name(s->method);
    for (int i = 0; i < s->count; i++) {
        const attn_cx_point *p = &s->points[i];
        double ns_per_ma = p->macs > 0 ? p->seconds * 1e9 / (double)p->macs : 0.0;
        fprintf(out, "%6d %4d  %-9s %11.4f %15lld %9.3f %14lld\n", p->n, p->d, name, p->seconds * 1e3, p->macs,
                ns_per_ma, p->bytes);
    }
    if (s->cut) {
        int next = s->count ? s->points[s->count - 1].n * 2 : 0;
        if (next) fprintf(out, "%6s %4d  %-9s stopped before n = %d: it would not fit the time budget\n",
                          "", s->d, name, next);
        else fprintf(out, "%6s %4d  %-9s not run: the time budget was spent\n", "", s->d, name);
    }
}

static void print_slope(FILE *out, double v) {
    if (isnan(v)) fputs("   —", out);
    else fprintf(out, "%4.2f", v);
}

/* The fitted exponents, one line per d. */
static void print_slopes(FILE *out, const attn_cx_result *r) {
    int from = 0; // the smallest n any fit used
    for (int i = 0; i < r->n_series; i++)
        if (r->series[i].fit_points && (!from || r->series[i].fit_from_n < from))
            from = r->series[i].fit_from_n;
    fprintf(out, "\nFitted slope of log(time) against log(n), by least squares over n ≥ %d\n"
                 "(in brackets the multiply-adds' slope, then the peak memory's; 2 means it grows\n"
                 "as n², 1 as n):\n",
            from);
    int d = -1;
    for (int i = 0; i < r->n_series; i++) {
        const attn_cx_series *s = &r->series[i];
        if (s->d != d) {
            fprintf(out, "%s  d = %-4d", d < 0 ? "" : "\n", s->d);
            d = s->d;
        }
        fprintf(out, "  %s ", attn_cx_method_name(s->method));
        print_slope(out, s->slope);
        fputs(" (", out);
        print_slope(out, s->mac_slope);
        fputs(", ", out);
        print_slope(out, s->mem_slope);
        fputs(")", out);
    }
    fputs("\n", out);
}

int cli_run_complexity(int max_n, FILE *out, FILE *errf) { return cli_run_complexity_tiles(max_n, 0, out, errf); }

int cli_run_complexity_tiles(int max_n, int tile, FILE *out, FILE *errf) {
    attn_cx_options o;
    attn_cx_default_options(&o);
    if (max_n > 0) o.max_n = max_n;
    if (tile > 0) o.tile = tile;
    attn_err err;
    attn_err_clear(&err);
    if (attn_cx_check_options(&o, &err) != ATTN_OK) {
        fprintf(errf, "attnviz: %s\n", err.msg);
        return 2;
    }
    fprintf(out, "Complexity lab: one attention head (scaled, no mask) timed on this machine,\n"
                 "n = %d … %d, d = %d and %d; window: sparse, W = %d; linear: φ(x) = elu(x) + 1;\n"
                 "tiled: FlashAttention's online softmax in blocks of B = %d.\n"
                 "Each time is the fastest of repeated runs; the whole run keeps to %.0f s.\n\n",
            o.min_n, o.max_n, o.dims[0], o.dims[1], o.window, o.tile, o.budget_s);
    fflush(out); // the measurements take a while: show what is coming first
    attn_cx_result r;
    attn_status st = attn_cx_run(&r, &o, &err);
    if (st != ATTN_OK) {
        fprintf(errf, "attnviz: %s\n", err.msg);
        return 1; // out of memory: the options were checked above
    }
    fprintf(out, "%6s %4s  %-9s %11s %15s %9s %14s\n", "n", "d", "method", "ms", "multiply-adds", "ns per MA",
            "peak bytes");
    for (int i = 0; i < r.n_series; i++) {
        if (i > 0) fputs("\n", out);
        print_series(out, &r.series[i]);
    }
    print_slopes(out, &r);
    fprintf(out, "\nfull: the reference stages (what --explain shows); full-fast: the same head,\n"
                 "blocked and vectorised (%s); tiled: the same result without the n×n matrix.\n"
                 "Peak bytes: q, k, v, z and what the method holds besides (full: the n×n scores;\n"
                 "tiled: one block's scores, m, l and O). Measured in %.1f s.\n",
            r.isa, r.elapsed_s);
    return 0;
}
