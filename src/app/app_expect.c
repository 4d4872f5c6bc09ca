/* app_expect.c — `expect NAME VALUE` in scripts: assertions on the app's
 * state and on the pixels of the frame, for end-to-end tests. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_script_run.h"
#include "attn_settings.h"
#include "attn_steps.h"
#include "fileio.h"
#include "numparse.h"
#include "strbuf.h"

static bool mismatch(app_script_runner *r, const app_script_cmd *c, const char *got) {
    fprintf(stderr, "attnviz: %s:%d: expected %s = \"%s\", got \"%s\"\n", r->name, c->line, c->name, c->text, got);
    r->exit_code = 1;
    return true; // keep going: report every failed expectation of the run
}

/* The state value named name, formatted as scripts write it; false if unknown. */
/* Issue 24: the tiles view as "off", or "B=4 step=7/25 skipped=0". */
static void tiles_text(const app_state *st, char *out, size_t cap) {
    const attn_tiles *tl = &st->view.tiles;
    if (!st->view.show_tiles || !tl->count) snprintf(out, cap, "off");
    else snprintf(out, cap, "B=%d step=%d/%d skipped=%d", tl->b, st->view.tiles_step + 1, tl->count,
                  tl->steps[st->view.tiles_step].skipped);
}

/* Its step's m and l after the step, as --dump-json writes them ("m=a,b l=c,d";
 * −∞ is null), for comparing the window with a headless dump. */
static void tiles_values(const app_state *st, char *out, size_t cap) {
    const attn_tiles *tl = &st->view.tiles;
    size_t used = 0;
    out[0] = '\0';
    if (!st->view.show_tiles || !tl->count) return;
    const attn_tile_step *s = &tl->steps[st->view.tiles_step];
    for (int k = 0; k < 2; k++) {
        const double *v = k ? s->l : s->m;
        used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s=", k ? " " : "", k ? "l" : "m");
        for (int r = 0; r < s->r1 - s->r0 && used < cap; r++) {
            char num[ATTN_DOUBLE_CHARS];
            used += (size_t)snprintf(out + used, cap - used, "%s%s", r ? "," : "",
                                     v[r] == -INFINITY ? "null" : attn_format_double(num, v[r]));
        }
    }
}

/* Issue 24: the decode view as "off", or "token=8/12 cache=8 cells=8 read=7
 * kv_heads=2 kv_head=0" for the token shown (the query) and the shown head. */
static void decode_text(const app_state *st, char *out, size_t cap) {
    const attn_decode *d = &st->src.decode;
    if (!st->view.show_decode || !d->n) {
        snprintf(out, cap, "off");
        return;
    }
    int t = st->view.query >= 0 && st->view.query < d->n ? st->view.query : d->n - 1;
    const attn_decode_step *k = &d->step[t];
    snprintf(out, cap, "token=%d/%d cache=%d cells=%d read=%d kv_heads=%d kv_head=%d", t + 1, d->n, k->cache_len,
             k->cells, k->cells_read, d->kv_heads, st->view.head / (d->heads / d->kv_heads));
}

/* Its token's costs and the shown head's z row as --decode --dump-json writes
 * them ("macs=a total=b full=c full_total=d bytes=e real=f z=z0,z1,…"). */
static void decode_values(const app_state *st, char *out, size_t cap) {
    const attn_decode *d = &st->src.decode;
    out[0] = '\0';
    if (!st->view.show_decode || !d->n) return;
    int t = st->view.query >= 0 && st->view.query < d->n ? st->view.query : d->n - 1;
    const attn_decode_step *k = &d->step[t];
    size_t used = (size_t)snprintf(out, cap, "macs=%lld total=%lld full=%lld full_total=%lld bytes=%lld real=%lld z=",
                                   k->macs, k->macs_total, k->full_macs, k->full_total, k->cache_bytes, k->real_bytes);
    const double *z = d->z[st->view.head] + (size_t)t * d->d_k;
    for (int c = 0; c < d->d_k && used < cap; c++) {
        char num[ATTN_DOUBLE_CHARS];
        used += (size_t)snprintf(out + used, cap - used, "%s%s", c ? "," : "", attn_format_double(num, z[c]));
    }
}

/* The key the query's row of the shown head attends to most, as the chips label it. */
static void strongest(const app_state *st, char *out, size_t cap) {
    const attn_trace *t = app_trace(st);
    const double *row = t->head[st->view.head].weights + (size_t)st->view.query * t->n;
    int best = 0;
    for (int j = 1; j < t->n; j++)
        if (row[j] > row[best]) best = j;
    attn_token_label(&t->tokens, best, 0, out, cap);
}

/* With a model: "ROW:ANSWER …" of the backward pass's targets, then "task" or "predicted". */
static void target_text(const app_state *st, char *out, size_t cap) {
    const model *m = st->model.m;
    const model_result *r = &st->model.run;
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < r->n_targets && n < cap; k++) {
        int ans = r->targets[k].target;
        const char *w = m->vocab[m->cfg.objective == MODEL_OBJ_POINTER ? r->ids[ans] : ans];
        n += (size_t)snprintf(out + n, cap - n, "%d:%s ", r->targets[k].row, w);
    }
    if (n < cap) snprintf(out + n, cap - n, "%s", st->model.target_labelled ? "task" : "predicted");
}

static bool state_value(app_ui *u, const char *name, char *out, size_t cap) {
    const app_state *st = &u->st;
    const attn_config *cfg = &app_trace(st)->cfg;
    static const char *const compares[VIZ_COMPARE_COUNT] = {"off", "scale", "heads", "page", "sentence"};
    char mask[32];
    attn_mask_format(mask, sizeof mask, cfg->mask);
    if (!strcmp(name, "step")) snprintf(out, cap, "%s", attn_step_key(st->view.step));
    else if (!strcmp(name, "query")) snprintf(out, cap, "%d", st->view.query);
    else if (!strcmp(name, "editing")) snprintf(out, cap, "%d", st->edit.ed.active);
    else if (!strcmp(name, "sentence")) snprintf(out, cap, "%s", st->src.sentence);
    else if (!strcmp(name, "tokens")) snprintf(out, cap, "%d", app_trace(st)->n);
    else if (!strcmp(name, "model")) snprintf(out, cap, "%s", st->model.m ? st->model.m->task : "none");
    else if (!strcmp(name, "layer")) snprintf(out, cap, "%d", st->model.layer + 1);
    else if (!strcmp(name, "readout")) snprintf(out, cap, "%d", st->model.readout);
    else if (!strcmp(name, "models")) snprintf(out, cap, "%d", app_hf_models_shown(st)); // F6, --hf
    else if (!strcmp(name, "computing")) snprintf(out, cap, "%d", app_hf_busy(st));      // a real model's run on the worker
    else if (!strcmp(name, "backward")) snprintf(out, cap, "%d", st->model.backward);
    else if (!strcmp(name, "target")) target_text(st, out, cap);
    else if (!strcmp(name, "strongest")) strongest(st, out, cap);
    else if (!strcmp(name, "narrative_scroll")) snprintf(out, cap, "%d", (int)st->view.narrative_scroll);
    else if (!strcmp(name, "explain_value")) { // the hovered cell's value as its arithmetic states it
        if (!st->src.explain_valid) snprintf(out, cap, "none");
        else snprintf(out, cap, "%.17g", st->model.m ? st->model.explain->value : st->src.explain->value);
    } else if (!strcmp(name, "heads")) snprintf(out, cap, "%d", cfg->heads);
    else if (!strcmp(name, "head")) snprintf(out, cap, "%d", st->view.head);
    else if (!strcmp(name, "d_k")) snprintf(out, cap, "%d", cfg->d_k);
    else if (!strcmp(name, "d_model")) snprintf(out, cap, "%d", cfg->d_model);
    else if (!strcmp(name, "seed")) snprintf(out, cap, "%lu", (unsigned long)cfg->seed);
    else if (!strcmp(name, "scale")) snprintf(out, cap, "%s", cfg->scale ? "on" : "off");
    else if (!strcmp(name, "pos_enc")) snprintf(out, cap, "%s", cfg->pos_enc ? "on" : "off");
    else if (!strcmp(name, "pos")) snprintf(out, cap, "%s", attn_pos_name(cfg)); // none, sinusoidal, rope
    else if (!strcmp(name, "pos_offset")) snprintf(out, cap, "%d", cfg->pos_offset);
    else if (!strcmp(name, "mask")) snprintf(out, cap, "%s", mask);
    else if (!strcmp(name, "compare")) snprintf(out, cap, "%s", compares[st->view.compare]);
    else if (!strcmp(name, "lang")) snprintf(out, cap, "%s", st->look.lang == VIZ_LANG_ZH ? "zh" : "en");
    else if (!strcmp(name, "theme")) snprintf(out, cap, "%s", viz_theme_name(st->look.theme));
    else if (!strcmp(name, "focus")) snprintf(out, cap, "%s", st->view.focus == VIZ_FOCUS_RAIL ? "rail" : "canvas");
    else if (!strcmp(name, "help")) snprintf(out, cap, "%d", st->view.show_help);
    else if (!strcmp(name, "figure")) snprintf(out, cap, "%d", st->view.figure_only);
    else if (!strcmp(name, "pages")) snprintf(out, cap, "%d", st->view.show_pages);
    else if (!strcmp(name, "fullscreen")) snprintf(out, cap, "%d", st->look.fullscreen);
    else if (!strcmp(name, "size")) snprintf(out, cap, "%dx%d", st->look.width, st->look.height);
    else if (!strcmp(name, "badge")) app_badge(st, out, cap);
    else if (!strcmp(name, "status")) snprintf(out, cap, "%s", st->look.status[0] ? st->look.status : "(none)");
    else if (!strcmp(name, "edit_error")) snprintf(out, cap, "%s", st->edit.ed.error);
    else if (!strcmp(name, "composition")) snprintf(out, cap, "%s", st->edit.ed.composition);
    else if (!strcmp(name, "page")) {
        const lesson *l = app_lesson(st);
        const lesson_page *pg = l ? lesson_page_at(l, st->lesson.page) : NULL;
        snprintf(out, cap, "%s", pg ? pg->id : "none");
    } else if (!strcmp(name, "weights")) { // what the trace took, not what the app meant to give it
        viz_origin o = app_origin(st);
        const char *what = o.kind == VIZ_FROM_MODEL                 ? "model"
                           : viz_weights_random(&st->src.trace, o)  ? "random"
                           : st->src.trace.source == ATTN_SRC_MIXED ? "mixed"
                           : o.kind == VIZ_FROM_FILE                ? "file"
                                                                    : "design";
        snprintf(out, cap, "%s", what);
    } else if (!strcmp(name, "predict")) snprintf(out, cap, "%d", st->lesson.predict_pending);
    else if (!strcmp(name, "lab")) snprintf(out, cap, "%s", !st->view.show_lab ? "off" : st->view.lab ? "done"
                                                                                                      : "running");
    else if (!strcmp(name, "lines_all")) snprintf(out, cap, "%d", st->view.lines_all);
    else if (!strcmp(name, "tiles")) tiles_text(st, out, cap);
    else if (!strcmp(name, "tiles_values")) tiles_values(st, out, cap);
    else if (!strcmp(name, "decode")) decode_text(st, out, cap);
    else if (!strcmp(name, "decode_values")) decode_values(st, out, cap);
    else if (!strcmp(name, "narrative")) { // as the scene would show it now
        const char *text = app_lesson_narrative(&u->st);
        snprintf(out, cap, "%s", text ? text : "");
    } else if (!strcmp(name, "hover")) {
        if (st->view.hover.kind != VIZ_HIT_CELL) snprintf(out, cap, "none");
        else snprintf(out, cap, "%s %d %d %d", model_stage_name(st->view.hover.stage), st->view.hover.head, st->view.hover.row, st->view.hover.col);
    } else if (!strncmp(name, "train_", 6)) { // the training view (app_train.h)
        char *v = app_train_value(&u->train, name);
        if (!v) return false;
        snprintf(out, cap, "%s", v);
        free(v);
    } else return false;
    return true;
}

/* The pixel at (x, y) of the frame on screen, as 0xRRGGBB. */
static long pixel(const app_ui *u, float x, float y) {
    return app_ui_pixel(u, (int)x, (int)y);
}

static bool near(long px, viz_rgba c) {
    if (px < 0) return false;
    int r = (int)(px >> 16) & 255, g = (int)(px >> 8) & 255, b = (int)px & 255;
    return abs(r - c.r) <= 3 && abs(g - c.g) <= 3 && abs(b - c.b) <= 3;
}

static const viz_cmd *cell_region(const app_ui *u, int stage, int head, int row, int col) {
    for (int i = 0; i < u->list.count; i++) {
        const viz_cmd *r = &u->list.cmds[i];
        if (r->kind == VIZ_HIT && r->hit.kind == VIZ_HIT_CELL && r->hit.stage == stage && r->hit.head == head &&
            r->hit.row == row && r->hit.col == col)
            return r;
    }
    return NULL;
}

/* The next whitespace-separated whole number of *s in [0, hi] (no wrapping). */
static bool next_index(const char **s, long long hi, int *out) {
    while (**s == ' ' || **s == '\t') (*s)++;
    size_t n = strcspn(*s, " \t");
    long long v;
    bool ok = n > 0 && attn_parse_int(*s, n, 0, hi, &v) == ATTN_INT_OK;
    *s += n;
    if (ok) *out = (int)v;
    return ok;
}

/* cell_color STAGE HEAD ROW COL: the drawn cell has the colour its value maps to. */
static bool expect_cell_color(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    char stage[16];
    int head, row, col;
    const char *a = c->text;
    size_t sn = strcspn(a, " \t");
    if (sn >= sizeof stage) return mismatch(r, c, "bad arguments");
    memcpy(stage, a, sn);
    stage[sn] = '\0';
    a += sn;
    if (!next_index(&a, ATTN_MAX_HEADS - 1, &head) || !next_index(&a, ATTN_MAX_TOKENS - 1, &row) ||
        !next_index(&a, ATTN_MAX_TOKENS - 1, &col) || a[strspn(a, " \t")] != '\0')
        return mismatch(r, c, "bad arguments (STAGE HEAD ROW COL, each within the trace)");
    int s = attn_stage_from_name(stage);
    if (s != ATTN_ST_WEIGHTS) return mismatch(r, c, "cell_color checks cells of weights");
    const viz_cmd *reg = cell_region(u, s, head, row, col);
    if (!reg) return mismatch(r, c, "the cell is not on screen");
    int rows, cols;
    attn_trace_shape(&u->st.src.trace, (attn_stage)s, &rows, &cols);
    double v = attn_trace_stage(&u->st.src.trace, (attn_stage)s, head)[(size_t)row * cols + col];
    viz_rgba want = viz_sequential(v);
    long got = pixel(u, reg->x + reg->w * 0.2f, reg->y + reg->h * 0.2f); // off-centre: away from the value text
    char buf[64];
    snprintf(buf, sizeof buf, "#%06lx (want #%02x%02x%02x)", got, want.r, want.g, want.b);
    return near(got, want) ? true : mismatch(r, c, buf);
}

/* row_highlight: the query's row of the step's matrix is outlined. */
static bool expect_row_highlight(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    const viz_theme *th = viz_theme_get(u->st.look.theme);
    for (int i = 0; i < u->list.count; i++) { // the first cell of the query's row, leftmost
        const viz_cmd *reg = &u->list.cmds[i];
        if (reg->kind != VIZ_HIT || reg->hit.kind != VIZ_HIT_CELL || reg->hit.row != u->st.view.query || reg->hit.col != 0)
            continue;
        float t = 2.0f * u->st.look.dpi_scale * u->st.look.zoom;
        if (near(pixel(u, reg->x - t * 0.5f, reg->y + reg->h / 2), th->highlight)) return true;
    }
    return mismatch(r, c, "no highlighted row found");
}

/* detail_shows TEXT: a drawn text contains TEXT and its box is not blank. */
static bool expect_text(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    const viz_theme *th = viz_theme_get(u->st.look.theme);
    for (int i = 0; i < u->list.count; i++) {
        const viz_cmd *reg = &u->list.cmds[i];
        if (reg->kind != VIZ_TEXT || !strstr(viz_cmd_text(&u->list, reg), c->text)) continue;
        for (float y = reg->y; y < reg->y + reg->h; y += 1)
            for (float x = reg->x; x < reg->x + reg->w && x < reg->x + 400; x += 1) {
                long p = pixel(u, x, y);
                if (p >= 0 && !near(p, th->panel) && !near(p, th->bg)) return true;
            }
    }
    return mismatch(r, c, "not drawn");
}

/* Resident memory in KiB (/proc/self/statm), or -1. */
static long rss_kb(void) {
    long pages_total = 0, pages_rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    int ok = fscanf(f, "%ld %ld", &pages_total, &pages_rss) == 2;
    fclose(f);
    return ok ? pages_rss * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

/* rss_mark now / rss_growth_below KIB: memory must not creep during a soak. */
static bool expect_rss(app_script_runner *r, const app_script_cmd *c) {
    long now = rss_kb();
    if (!strcmp(c->name, "rss_mark")) {
        r->rss_mark_kb = now;
        return true;
    }
    long long limit = -1;
    if (attn_parse_int(c->text, strlen(c->text), 0, LLONG_MAX, &limit) != ATTN_INT_OK)
        return mismatch(r, c, "rss_growth_below needs a whole number of KiB");
    long grew = now - r->rss_mark_kb;
    fprintf(stderr, "attnviz: resident memory %ld KiB, %+ld KiB since the mark\n", now, grew);
    if (now >= 0 && grew <= limit) return true;
    char buf[64];
    snprintf(buf, sizeof buf, "%ld KiB more", grew);
    return mismatch(r, c, buf);
}

bool app_expect(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    if (!strncmp(c->name, "rss_", 4)) return expect_rss(r, c);
    app_ui_frame(u);
    if (!strcmp(c->name, "cell_color")) return expect_cell_color(r, u, c);
    if (!strcmp(c->name, "row_highlight")) return expect_row_highlight(r, u, c);
    if (!strcmp(c->name, "text_drawn")) return expect_text(r, u, c);
    char got[2048];
    size_t n = strlen(c->name);
    bool contains = n > 9 && !strcmp(c->name + n - 9, "_contains");
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(contains ? n - 9 : n), c->name);
    if (!state_value(u, name, got, sizeof got)) {
        return app_runner_fail(r, u, c, "unknown expectation \"%s\"", c->name);
    }
    if (contains ? strstr(got, c->text) != NULL : strcmp(got, c->text) == 0) return true;
    return mismatch(r, c, got);
}

bool app_expect_holds(app_ui *u, const app_script_cmd *c) {
    char got[2048], name[32];
    size_t n = strlen(c->name);
    bool contains = n > 9 && !strcmp(c->name + n - 9, "_contains");
    snprintf(name, sizeof name, "%.*s", (int)(contains ? n - 9 : n), c->name);
    if (!state_value(u, name, got, sizeof got)) return true;
    return contains ? strstr(got, c->text) != NULL : strcmp(got, c->text) == 0;
}

bool app_save(app_script_runner *r, app_ui *u, const app_script_cmd *c) {
    char value[8192];
    char *text = NULL;
    attn_err err;
    app_ui_frame(u);
    char *train = !strncmp(c->name, "train_", 6) ? app_train_value(&u->train, c->name) : NULL; // may be long
    if (!strcmp(c->name, "clipboard")) text = SDL_GetClipboardText();                          // what Ctrl+C or Ctrl+Shift+C put there
    else if (!train && !state_value(u, c->name, value, sizeof value))
        return app_runner_fail(r, u, c, "unknown value \"%s\" to save", c->name);
    const char *data = text ? text : train ? train
                                           : value;
    attn_status st = attn_write_file(c->text, data, strlen(data), NULL, &err);
    SDL_free(text);
    free(train);
    return st == ATTN_OK ? true : app_runner_fail(r, u, c, "%s", err.msg);
}
