/* export_opts.c — export options, flag parsers, and the small text helpers
 * the formats share (numbers, shell quoting, configuration, badge). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_steps.h"
#include "export.h"
#include "export_internal.h"
#include "numparse.h"
#include "utf8.h"

void export_opts_default(export_opts *o) {
    memset(o, 0, sizeof *o);
    o->formats = EXPORT_PNG | EXPORT_SVG;
    o->pixel_scale = 1;
    o->ui_scale = 1.0f;
    o->width = 1280;
    o->height = 800;
    o->theme = VIZ_THEME_LIGHT;
    o->lang = VIZ_LANG_EN;
    o->steps = EXPORT_ALL_STEPS | EXPORT_STEP_READOUT;
    o->view = EXPORT_VIEW_FIGURE;
}

/* ---- flag parsers ---- */

/* The next comma-separated item of *p (spaces trimmed) into buf; false at the end. */
static bool next_item(const char **p, char *buf, size_t cap) {
    if (!*p) return false;
    const char *s = *p, *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    *p = comma ? comma + 1 : NULL;
    while (len > 0 && isspace((unsigned char)*s)) s++, len--;
    while (len > 0 && isspace((unsigned char)s[len - 1])) len--;
    if (len >= cap) len = cap - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

/* The formats as --format names them, bit i for EXPORT_* bit 1u << i. */
static const char *const format_names[] = {"png", "svg", "csv", "tex", "md", "html"};
#define N_FORMATS ((int)(sizeof format_names / sizeof *format_names))

void ex_format_list(attn_strbuf *b, unsigned formats) {
    bool first = true;
    for (int i = 0; i < N_FORMATS; i++)
        if (formats & (1u << i)) {
            attn_sb_printf(b, "%s%s", first ? "" : ",", format_names[i]);
            first = false;
        }
}

/* An item of a comma list as its bit, or 0 when it names nothing. */
typedef unsigned (*item_bit)(const char *item);

/* "all" (every bit of all), or items separated by commas, each named by bit.
 * bad: the message for an unknown item (%s: the item); empty: for none. */
static attn_status parse_bits(unsigned *out, const char *list, unsigned all, item_bit bit, const char *bad,
                              const char *empty, attn_err *err) {
    const char *p = list ? list : "";
    char item[32];
    unsigned bits = 0;
    if (strcmp(p, "all") == 0) {
        *out = all;
        return ATTN_OK;
    }
    while (next_item(&p, item, sizeof item)) {
        unsigned b = bit(item);
        if (!b) return attn_fail(err, ATTN_ERR_RANGE, bad, item);
        bits |= b;
        if (!p) break;
    }
    if (!bits) return attn_fail(err, ATTN_ERR_RANGE, "%s", empty);
    *out = bits;
    return ATTN_OK;
}

static unsigned format_bit(const char *item) {
    for (int i = 0; i < N_FORMATS; i++)
        if (strcmp(item, format_names[i]) == 0) return 1u << i;
    return 0;
}

static unsigned step_bit(const char *item) {
    int s = attn_step_from_key(item, strlen(item)); // the table's keys: 1 … 8 and 2b
    if (s >= 0) return 1u << s;
    return strcmp(item, "9") == 0 ? EXPORT_STEP_READOUT : 0; // 9: a model's readout
}

/* "--steps 2b": what makes step s again (static, made once). */
static const char *remake_flag(int s) {
    static char flags[ATTN_STEP_COUNT + 1][16];
    if (s < 0 || s > ATTN_STEP_COUNT) return "";
    if (!flags[s][0]) snprintf(flags[s], sizeof flags[s], "--steps %s", s == ATTN_STEP_COUNT ? "9" : attn_step_key((attn_step)s));
    return flags[s];
}

attn_status export_parse_formats(unsigned *out, const char *list, attn_err *err) {
    return parse_bits(out, list, EXPORT_ALL_FORMATS, format_bit,
                      "--format: \"%s\" is not a format; use png, svg, csv, tex, md and html, separated by commas "
                      "(for example png,svg), or all.",
                      "--format needs at least one of png, svg, csv, tex, md, html.", err);
}

attn_status export_parse_steps(unsigned *out, const char *list, attn_err *err) {
    return parse_bits(out, list, EXPORT_ALL_STEPS | EXPORT_STEP_READOUT, step_bit,
                      "--steps: \"%s\" is not a step; use numbers from 1 to 8 separated by commas (for example "
                      "3,6; 2b is RoPE's step, 9 a model's readout), or all.",
                      "--steps needs at least one step from 1 to 8, or all.", err);
}

attn_status export_parse_size(int *w, int *h, const char *s, attn_err *err) {
    const char *x = s ? strpbrk(s, "xX") : NULL;
    long long a = 0, b = 0;
    bool ok = x && isdigit((unsigned char)s[0]) && isdigit((unsigned char)x[1]) &&
              attn_parse_int(s, (size_t)(x - s), EXPORT_MIN_SIZE, EXPORT_MAX_SIZE, &a) == ATTN_INT_OK &&
              attn_parse_int(x + 1, strlen(x + 1), EXPORT_MIN_SIZE, EXPORT_MAX_SIZE, &b) == ATTN_INT_OK;
    if (!ok)
        return attn_fail(err, ATTN_ERR_RANGE, "--size: \"%s\" is not a size; write WIDTHxHEIGHT in pixels, "
                                              "each from %d to %d (for example 1280x800).",
                         s ? s : "", EXPORT_MIN_SIZE, EXPORT_MAX_SIZE);
    *w = (int)a;
    *h = (int)b;
    return ATTN_OK;
}

attn_status export_parse_theme(viz_theme_id *out, const char *s, attn_err *err) {
    for (int i = 0; i < VIZ_THEME_COUNT; i++)
        if (s && strcmp(s, viz_theme_name((viz_theme_id)i)) == 0) {
            *out = (viz_theme_id)i;
            return ATTN_OK;
        }
    return attn_fail(err, ATTN_ERR_RANGE, "--theme: \"%s\" is not a theme; use light, dark, presenter or "
                                          "high-contrast.",
                     s ? s : "");
}

attn_status export_parse_view(export_view *out, const char *s, attn_err *err) {
    if (s && strcmp(s, "figure") == 0) *out = EXPORT_VIEW_FIGURE;
    else if (s && strcmp(s, "window") == 0) *out = EXPORT_VIEW_WINDOW;
    else return attn_fail(err, ATTN_ERR_RANGE, "--view: \"%s\" is not a view; use figure (the step's figure) or "
                                               "window (the whole window).",
                          s ? s : "");
    return ATTN_OK;
}

/* ---- text helpers ---- */

void ex_num(attn_strbuf *b, double v) {
    if (!isfinite(v)) v = 0;
    if (fabs(v) >= 1e15) { // beyond what 2 decimals in a long long hold: every digit, not a clamp
        attn_sb_number(b, v);
        return;
    }
    long long q = llround(v * 100.0); // integer arithmetic: no locale, no "-0"
    unsigned long long a = (unsigned long long)(q < 0 ? -q : q);
    char frac[4] = "";
    if (a % 100) {
        snprintf(frac, sizeof frac, ".%02u", (unsigned)(a % 100));
        if (frac[2] == '0') frac[2] = '\0';
    }
    attn_sb_printf(b, "%s%llu%s", q < 0 ? "-" : "", a / 100, frac);
}

void ex_item_config_text(attn_strbuf *b, const export_item *it) {
    const model *m = it->model;
    if (!m) {
        ex_config_text(b, &it->trace->cfg);
        return;
    }
    char mask[32];
    attn_mask_format(mask, sizeof mask, m->cfg.mask);
    attn_sb_printf(b, "model=%s layer=%d/%d d_model=%d d_k=%d heads=%d pos=%s mask=%s scale=%s bias=%s objective=%s",
                   m->task, it->layer + 1, m->cfg.layers, m->cfg.d_model, m->cfg.d_k, m->cfg.heads,
                   model_pos_name(m->cfg.pos), mask, m->cfg.scale ? "on" : "off", m->cfg.bias ? "on" : "off",
                   model_objective_name(m->cfg.objective));
}

void ex_config_text(attn_strbuf *b, const attn_config *c) {
    char mask[32];
    attn_mask_format(mask, sizeof mask, c->mask);
    attn_sb_printf(b, "d_model=%d d_k=%d heads=%d seed=%lu mask=%s scale=%s pos-enc=%s bias=%s", c->d_model, c->d_k,
                   c->heads, (unsigned long)c->seed, mask, c->scale ? "on" : "off", c->pos_enc ? "on" : "off",
                   c->bias ? "on" : "off");
    if (c->kv_heads) attn_sb_printf(b, " kv_heads=%d", c->kv_heads);          // only when set: today's captions stay
    if (c->rope) attn_sb_printf(b, " pos=rope rope_base=%.0f", c->rope_base); // only when set: other indexes stay
    if (c->pos_offset) attn_sb_printf(b, " pos_offset=%d", c->pos_offset);
}

void ex_utf8_trim(char *s) {
    utf8_trim_partial(s);
}

const char *ex_str(const viz_strings *ui, viz_lang lang, viz_str id) {
    const char *s = ui && lang >= 0 && lang < VIZ_LANG_COUNT ? ui->s[lang][id] : NULL;
    return s ? s : viz_str_key(id);
}

void ex_badge(char *out, size_t cap, const export_opts *o, const viz_strings *ui, const export_item *it) {
    viz_badge(out, cap, ui && o->lang >= 0 && o->lang < VIZ_LANG_COUNT ? ui->s[o->lang] : NULL, it->trace, it->origin);
    utf8_trim_partial(out); // a long file name is cut between characters
}

char *ex_join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p) return NULL;
    memcpy(p, a, la);
    size_t k = la;
    if (k == 0 || p[k - 1] != '/') p[k++] = '/';
    memcpy(p + k, b, lb + 1);
    return p;
}

void ex_axis_label(char *buf, size_t cap, const attn_trace *t, const export_matrix *m, export_axis a, int i,
                   const char *const *named) {
    if (a == EXPORT_AXIS_TOKENS) attn_token_label(&t->tokens, i, 0, buf, cap);
    else if (a == EXPORT_AXIS_CONCAT) snprintf(buf, cap, "h%d.%d", i / t->cfg.d_k + 1, i % t->cfg.d_k);
    else if (a == EXPORT_AXIS_WORDS && m->words) snprintf(buf, cap, "%s", m->words[i]);
    else if (named && named[i]) {
        snprintf(buf, cap, "%s", named[i]);
        ex_utf8_trim(buf); // a long name is cut between characters
    } else snprintf(buf, cap, "d%d", i);
}

/* Which of a lesson's names label a matrix's rows or columns, as its figure shows them. */
typedef enum { NAMES_NONE,
               NAMES_FEATURES,
               NAMES_Q,
               NAMES_K,
               NAMES_V,
               NAMES_OUT } names_of;

static const struct {
    const char *matrix; /* export_matrix.name */
    names_of rows, cols;
} NAMED[] = {
    {"X", NAMES_NONE, NAMES_FEATURES},
    {"W_Q", NAMES_FEATURES, NAMES_Q},
    {"W_K", NAMES_FEATURES, NAMES_K},
    {"W_V", NAMES_FEATURES, NAMES_V},
    {"Q", NAMES_NONE, NAMES_Q},
    {"K", NAMES_NONE, NAMES_K},
    {"V", NAMES_NONE, NAMES_V},
    {"Z", NAMES_NONE, NAMES_V}, /* Z's columns are V's, mixed */
    {"W_O", NAMES_NONE, NAMES_OUT},
    {"out", NAMES_NONE, NAMES_OUT},
};

/* The names of m's rows (cols false) or columns as its figure shows them, or NULL. */
const char *const *ex_axis_names(const attn_trace *t, const export_matrix *m, bool cols,
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
    return cols && m->features ? features : NULL;
}

/* ---- steps and their matrices ---- */

int export_items_for_trace(export_item out[ATTN_STEP_COUNT], const attn_trace *t, unsigned steps, int head,
                           int query) {
    int n = 0;
    for (int s = 0; s < ATTN_STEP_COUNT; s++) {
        if (!(steps & (1u << s)) || !attn_step_shown((attn_step)s, &t->cfg)) continue; // 2b: only with RoPE
        memset(&out[n], 0, sizeof out[n]);
        out[n].trace = t;
        out[n].step = (attn_step)s;
        out[n].number = atoi(attn_step_key((attn_step)s)); // 2b: 2, its file 02b-rope
        out[n].head = head;
        out[n].query = query;
        out[n].remake_flags = remake_flag(s);
        out[n].origin = (viz_origin){.kind = VIZ_FROM_NONE}; // the caller says where given weights came from
        out[n].mark = (viz_mark){VIZ_MARK_NONE, -1, -1};
        n++;
    }
    return n;
}

void export_item_refs(viz_ref_ctx *x, const export_item *it, const char *const *ui) {
    *x = (viz_ref_ctx){.trace = it->trace, .alt = it->alt, .model = it->model, .run = it->model ? it->run : NULL, .layer = it->page ? lesson_page_layer(it->page) : it->layer, .ui = ui};
}

static export_matrix matrix(const char *name, const char *tex, const double *v, int rows, int cols, int head,
                            export_axis ra, export_axis ca) {
    export_matrix m = {name, tex, v, rows, cols, head, ra, ca, false, NULL};
    return m;
}

int export_items_for_model(export_item *out, int cap, const model *m, const model_result *r, viz_target target,
                           unsigned steps, int head, int query, viz_origin origin) {
    static const char *const prefix[MODEL_MAX_LAYERS] = {"L1-", "L2-", "L3-", "L4-"};
    static const char *const backward_id[ATTN_STEP_COUNT] = {
        [ATTN_STEP_SCALE] = "scale-backward", [ATTN_STEP_MASK] = "mask-backward", [ATTN_STEP_SOFTMAX] = "softmax-backward"};
    int n = 0, last = m->cfg.layers - 1;
    for (int l = 0; l <= last; l++)
        for (int s = 0; s <= ATTN_STEP_COUNT; s++) {
            bool readout = s == ATTN_STEP_COUNT;
            if (!(steps & (1u << s)) || (readout && l != last)) continue;
            if (!readout && !attn_step_shown((attn_step)s, &r->layer[l].cfg)) continue; // 2b: only with RoPE
            for (int back = 0; back < 2 && n < cap; back++) {
                if (back && (readout || model_step_grad((attn_step)s) < 0 || r->n_targets == 0)) break;
                export_item *it = &out[n++];
                memset(it, 0, sizeof *it);
                it->trace = &r->layer[l];
                it->step = readout ? ATTN_STEP_MULTIHEAD : (attn_step)s;                           // the readout follows the last step
                it->number = readout ? ATTN_STEP_NUMBERED + 1 : atoi(attn_step_key((attn_step)s)); // the readout is 9
                it->id = readout ? "readout" : back ? backward_id[s]
                                                    : NULL;
                it->head = head;
                it->query = query;
                it->remake_flags = remake_flag(s);
                it->origin = origin;
                it->mark = (viz_mark){VIZ_MARK_NONE, -1, -1};
                it->model = m;
                it->run = r;
                it->layer = l;
                it->readout = readout;
                it->backward = back;
                it->target = target;
                it->prefix = prefix[l];
            }
        }
    return n;
}

/* A stage of a model's run as an export matrix (NULL v when the run lacks it). */
static export_matrix run_matrix(const export_item *it, int stage, int head, const char *name, const char *tex,
                                export_axis ra, export_axis ca) {
    int rows, cols;
    const double *v = model_result_stage(it->run, it->model, stage, it->layer, head, &rows, &cols);
    export_matrix m = matrix(name, tex, v, rows, cols, model_stage_per_head(stage) ? head : -1, ra, ca);
    m.words = (const char *const *)it->model->vocab;
    return m;
}

int export_item_matrices(const export_item *it, int head, export_matrix *out, int cap) {
    const export_axis T = EXPORT_AXIS_TOKENS, D = EXPORT_AXIS_DIMS, W = EXPORT_AXIS_WORDS;
    const model *md = it->model;
    export_matrix extra[2 + ATTN_TRACE_MAX_HEADS];
    int n = 0, k = 0;
    if (md && it->readout) { // the answer: no step's matrices
        if (md->cfg.objective == MODEL_OBJ_TOKEN) {
            extra[k++] = run_matrix(it, MODEL_ST_LOGITS, 0, "logits", "z", T, W);
            extra[k++] = run_matrix(it, MODEL_ST_PROBS, 0, "p", "p", T, W);
        } else {
            extra[k++] = run_matrix(it, MODEL_ST_AVG, 0, "A_avg", "\\bar{A}", T, T);
        }
    } else if (md && it->step == ATTN_STEP_EMBED && it->layer == 0) { // X = E[token] + P
        int nt = it->trace->n, dm = it->trace->cfg.d_model;
        out[n++] = matrix("E", "E", it->run->embed, nt, dm, -1, T, D);
        if (model_pos_in_x(md->cfg.pos) && n < cap) out[n++] = matrix("P", "P", it->run->pos, nt, dm, -1, T, D);
    }
    if (!(md && it->readout)) n += export_step_matrices(it->trace, it->step, head, out + n, cap - n);
    if (md && !it->readout && it->step == ATTN_STEP_MULTIHEAD) { // the residual stream
        extra[k++] = matrix("X", "X", it->trace->x, it->trace->n, it->trace->cfg.d_model, -1, T, D);
        extra[k++] = run_matrix(it, MODEL_ST_RESIDUAL, 0, "residual", "X + \\mathrm{out}", T, D);
    }
    if (md && it->backward) { // the gradient beside each head's step
        bool soft = it->step == ATTN_STEP_SOFTMAX;
        int h0 = head < 0 ? 0 : head, h1 = head < 0 ? md->cfg.heads : head + 1;
        for (int h = h0; h < h1 && k < (int)(sizeof extra / sizeof *extra); h++)
            extra[k++] = run_matrix(it, soft ? MODEL_ST_D_WEIGHTS : MODEL_ST_D_SCALED, h, soft ? "dL_dA" : "dL_dT",
                                    soft ? "\\partial L / \\partial A" : "\\partial L / \\partial T", T, T);
    }
    for (int i = 0; i < k && n < cap; i++)
        if (extra[i].v) out[n++] = extra[i];
    return n;
}

static export_axis axis(attn_axis a) {
    return a == ATTN_AXIS_TOKENS ? EXPORT_AXIS_TOKENS : a == ATTN_AXIS_CONCAT ? EXPORT_AXIS_CONCAT
                                                                              : EXPORT_AXIS_DIMS;
}

/* The step table's matrix m of t for head h (-1: a whole-layer one). */
static export_matrix step_matrix(const attn_trace *t, attn_step_matrix m, int h) {
    int rows, cols;
    const double *v = attn_step_matrix_values(t, m, h < 0 ? 0 : h, &rows, &cols);
    attn_axis ra, ca;
    attn_step_matrix_axes(m, &ra, &ca);
    export_matrix out = matrix(attn_step_matrix_file(m), attn_step_matrix_tex(m), v, rows, cols, h, axis(ra), axis(ca));
    out.features = m == ATTN_SM_X; // X's columns are its features
    return out;
}

int export_step_matrices(const attn_trace *t, attn_step step, int head, export_matrix *out, int cap) {
    const attn_step_info *info = attn_step_get(step);
    int n = 0, shown = info ? info->operands + info->results : 0;
    int h0 = head < 0 ? 0 : head, h1 = head < 0 ? t->cfg.heads : head + 1;
    for (int i = 0; i < shown && n < cap; i++) // the whole-layer matrices, then each head's
        if (!(info->shown[i].show & ATTN_SHOW_WINDOW_ONLY) && !attn_step_matrix_per_head(info->shown[i].m))
            out[n++] = step_matrix(t, info->shown[i].m, -1);
    for (int h = h0; h < h1 && h < t->cfg.heads; h++)
        for (int i = 0; i < shown && n < cap; i++)
            if (!(info->shown[i].show & ATTN_SHOW_WINDOW_ONLY) && attn_step_matrix_per_head(info->shown[i].m))
                out[n++] = step_matrix(t, attn_step_matrix_under(info->shown[i].m, step, &t->cfg), h);
    return n;
}

/* Flags the index writes itself; true in *valued when a value follows. */
static bool export_flag(const char *a, bool *valued) {
    static const char *const with_value[] = {"--export-dir", "--format", "--pixel-scale", "--size", "--theme",
                                             "--steps", "--view", "--lang", "--ui-scale"};
    *valued = false;
    if (strcmp(a, "--headless") == 0 || strcmp(a, "--caption") == 0) return true;
    for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
        if (strcmp(a, with_value[i]) == 0) return *valued = true;
    return false;
}

char *export_command_prefix(int argc, char *const *argv) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "attnviz --headless");
    for (int i = 1; i < argc; i++) {
        bool valued;
        if (export_flag(argv[i], &valued)) {
            i += valued;
            continue;
        }
        attn_sb_puts(&b, " ");
        attn_sb_shell_word(&b, argv[i]);
    }
    return attn_sb_take(&b);
}
