/* export_html_views.c — what a page swaps when its reader acts, found from
 * the display lists themselves: the figure is built once per query token;
 * the commands every build shares are written once, and each gap between
 * them is a slot whose content each query names (its highlighted row, its
 * labels, its lines). A hovered cell adds the commands the window would add
 * (its outline, the cells feeding it); its panel lines are viz_explain_text's,
 * the window's own words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_internal.h"
#include "hash.h"
#include "viz_explain.h"

/* ---- interned strings ---- */

static bool strtab_grow(ex_strtab *t) {
    int slots = t->slots ? 2 * t->slots : 256;
    int *index = calloc((size_t)slots, sizeof *index);
    char **s = realloc(t->s, sizeof *s * (size_t)(slots / 2));
    if (!index || !s) {
        free(index);
        if (s) t->s = s;
        return false;
    }
    t->s = s;
    t->cap = slots / 2;
    for (int i = 0; i < t->n; i++) { // rehash: the table stays at most half full
        size_t h = (size_t)attn_fnv1a(ATTN_FNV_OFFSET, s[i], strlen(s[i]));
        while (index[h % (size_t)slots]) h++;
        index[h % (size_t)slots] = i + 1;
    }
    free(t->index);
    t->index = index;
    t->slots = slots;
    return true;
}

int ex_strtab_add(ex_strtab *t, const char *s, size_t len) {
    if (t->n >= t->cap && !strtab_grow(t)) return -1;
    size_t h = (size_t)attn_fnv1a(ATTN_FNV_OFFSET, s, len);
    for (;; h++) {
        int at = t->index[h % (size_t)t->slots];
        if (!at) break;
        if (strlen(t->s[at - 1]) == len && memcmp(t->s[at - 1], s, len) == 0) return at - 1;
    }
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->s[t->n] = copy;
    t->index[h % (size_t)t->slots] = ++t->n;
    return t->n - 1;
}

void ex_strtab_free(ex_strtab *t) {
    if (!t) return;
    for (int i = 0; i < t->n; i++) free(t->s[i]);
    free(t->s);
    free(t->index);
    memset(t, 0, sizeof *t);
}

/* ---- markup of hit regions ---- */

void ex_html_cell_name(char *out, size_t cap, const viz_hit *h, int layer) {
    if (layer >= 0) snprintf(out, cap, "%s:%d:%d:%d:%d", model_stage_name(h->stage), layer, h->head, h->row, h->col);
    else snprintf(out, cap, "%s:%d:%d:%d", model_stage_name(h->stage), h->head, h->row, h->col);
}

/* The layer a figure's cell names carry: a model's, as --explain takes it; -1: none. */
static int cell_layer(const ex_html_fig *f) { return f && f->it->model ? f->it->layer : -1; }

void ex_html_hit(ex_svg *o, const viz_cmd *c) {
    char name[64];
    if (c->hit.kind == VIZ_HIT_CELL) ex_html_cell_name(name, sizeof name, &c->hit, cell_layer(o->ctx));
    else if (c->hit.kind == VIZ_HIT_TOKEN) snprintf(name, sizeof name, "%d", c->hit.token);
    else return; // steps, widgets and panels belong to the window
    attn_sb_puts(o->b, "<rect class=\"attnviz-hit\" x=\"");
    ex_num(o->b, c->x);
    attn_sb_puts(o->b, "\" y=\"");
    ex_num(o->b, c->y);
    attn_sb_puts(o->b, "\" width=\"");
    ex_num(o->b, c->w);
    attn_sb_puts(o->b, "\" height=\"");
    ex_num(o->b, c->h);
    attn_sb_printf(o->b, "\" data-%s=\"%s\"/>\n", c->hit.kind == VIZ_HIT_CELL ? "cell" : "token", name);
}

/* ---- views per query ---- */

/* The figure for query q (hover: a cell, or NULL). */
static bool build(ex_html_fig *f, int q, const viz_hit *hover) {
    export_item it = *f->it;
    it.query = q;
    ex_view v = {.hover.kind = VIZ_HIT_NONE};
    if (hover) v.hover = *hover;
    return ex_build_view(&f->list, f->o, &it, f->ui, f->fonts, 1, &v);
}

/* Commands [from, to) of l as one fragment; its position, -1 when empty,
 * -2 when memory ran out. */
static int fragment(ex_html_fig *f, const viz_list *l, int from, int to, int q) {
    if (from >= to) return -1;
    attn_strbuf b;
    char ids[96];
    attn_sb_init(&b);
    snprintf(ids, sizeof ids, "%sq%d-", f->ids, q); // clips inside a fragment stay unique per view
    ex_svg o = {.b = &b, .ids = ids, .hit = ex_html_hit, .fonts = f->fonts, .ctx = f};
    for (int i = from; i < to; i++) ex_svg_cmd(&o, l, &l->cmds[i]);
    ex_svg_close(&o);
    int at = attn_sb_ok(&b) ? ex_strtab_add(&f->frags, b.data ? b.data : "", b.len) : -1;
    attn_sb_free(&b);
    return at < 0 ? -2 : at;
}

/* The views of one figure against its base (the q0 figure). A base command
 * some view lacks is a slot of its own; the commands a view adds after base
 * command a (a kept one) go into the insertion slot before a + 1. */
typedef struct {
    viz_list base;
    int **match;    /* per view: base command -> its command, or -1; NULL: the view is left out */
    int *cmd_slot;  /* per base command: its slot, or -1 when every view keeps it */
    int *ins_slot;  /* per insertion point 0..base.count: its slot, or -1 */
    int *base_frag; /* per slot: the base's fragment (-1: empty) */
} shared;

/* A CLIP lasts until the next one, so a view that adds or drops one cannot
 * be swapped in slots; such a view (the figures have none) is left out. */
static bool clips_kept(const viz_list *base, const int *match, const viz_list *l) {
    char *kept = calloc((size_t)l->count + 1, 1);
    bool ok = kept != NULL;
    for (int i = 0; ok && i < base->count; i++) {
        if (match[i] >= 0) kept[match[i]] = 1;
        else if (base->cmds[i].kind == VIZ_CLIP) ok = false;
    }
    for (int j = 0; ok && j < l->count; j++)
        if (!kept[j] && l->cmds[j].kind == VIZ_CLIP) ok = false;
    free(kept);
    return ok;
}

/* Calls fn(sh, q, point, from, to) for each run [from, to) of commands view q
 * (built in f->list) adds at insertion point `point`. */
typedef bool (*run_fn)(ex_html_fig *f, shared *sh, int q, int point, int from, int to);

static bool each_run(ex_html_fig *f, shared *sh, int q, run_fn fn) {
    const int *m = sh->match[q];
    int from = 0, point = 0; // the run so far starts at from and goes before base command point
    for (int i = 0; i <= sh->base.count; i++) {
        if (i < sh->base.count && m[i] < 0) continue;
        int to = i < sh->base.count ? m[i] : f->list.count;
        if (to > from && !fn(f, sh, q, point, from, to)) return false;
        from = to + 1;
        point = i + 1;
    }
    return true;
}

static bool mark_point(ex_html_fig *f, shared *sh, int q, int point, int from, int to) {
    (void)f, (void)q, (void)from, (void)to;
    sh->ins_slot[point] = 0; // used: numbered later
    return true;
}

/* Pass 1: every view matched against the base; the slots they need. */
static bool find_slots(ex_html_fig *f, shared *sh) {
    int n = f->n, nb = sh->base.count;
    sh->match = calloc((size_t)n, sizeof *sh->match);
    sh->cmd_slot = malloc(sizeof(int) * (size_t)(nb + 1));
    sh->ins_slot = malloc(sizeof(int) * (size_t)(nb + 1));
    if (!sh->match || !sh->cmd_slot || !sh->ins_slot) return false;
    for (int i = 0; i <= nb; i++) sh->cmd_slot[i] = sh->ins_slot[i] = -1;
    for (int q = 0; q < n; q++) {
        int *m = malloc(sizeof(int) * (size_t)(nb + 1));
        if (!m || !build(f, q, NULL)) {
            free(m);
            return false;
        }
        if (!ex_diff(&sh->base, &f->list, m) || !clips_kept(&sh->base, m, &f->list)) {
            free(m);
            continue;
        }
        sh->match[q] = m;
        for (int i = 0; i < nb; i++)
            if (m[i] < 0) sh->cmd_slot[i] = 0;
        each_run(f, sh, q, mark_point);
    }
    return true;
}

/* Numbers the slots in drawing order and writes the revealed figure's markup:
 * every base command, those in a slot inside a <g data-s>. */
static bool write_slots(ex_html_fig *f, shared *sh) {
    int nb = sh->base.count, k = 0;
    ex_svg o = {.b = &f->svg, .ids = f->ids, .hit = ex_html_hit, .fonts = f->fonts, .ctx = f};
    sh->base_frag = malloc(sizeof(int) * (size_t)(2 * nb + 2));
    if (!sh->base_frag) return false;
    for (int i = 0; i <= nb; i++) {
        if (sh->ins_slot[i] >= 0) {
            sh->base_frag[k] = -1;
            attn_sb_puts(&f->svg, "<g data-s=\"\"></g>\n");
            sh->ins_slot[i] = k++;
        }
        if (i == nb) break;
        if (sh->cmd_slot[i] < 0) {
            ex_svg_cmd(&o, &sh->base, &sh->base.cmds[i]);
            continue;
        }
        int at = fragment(f, &sh->base, i, i + 1, f->q0);
        if (at == -2) return false;
        sh->base_frag[k] = at;
        attn_sb_printf(&f->svg, "<g data-s=\"\">%s</g>\n", at >= 0 ? f->frags.s[at] : "");
        sh->cmd_slot[i] = k++;
    }
    ex_svg_close(&o);
    f->n_slots = k;
    return attn_sb_ok(&f->svg);
}

/* One view's content where it differs from the base: "k,frag" pairs. */
static bool put_run(ex_html_fig *f, shared *sh, int q, int point, int from, int to) {
    int at = fragment(f, &f->list, from, to, q);
    if (at == -2) return false;
    attn_sb_printf(&f->views, "%s%d,%d", f->views.data[f->views.len - 1] == '[' ? "" : ",", sh->ins_slot[point], at);
    return true;
}

/* Pass 2: each view as pairs (slot, fragment) against the base. */
static bool write_views(ex_html_fig *f, shared *sh) {
    attn_sb_puts(&f->views, "[");
    for (int q = 0; q < f->n; q++) {
        attn_sb_puts(&f->views, q ? "],\n[" : "[");
        if (!sh->match[q]) { // left out: the figure stays as it is
            attn_sb_puts(&f->views, "-1");
            continue;
        }
        if (!build(f, q, NULL)) return false;
        for (int i = 0; i < sh->base.count; i++)
            if (sh->cmd_slot[i] >= 0 && sh->match[q][i] < 0)
                attn_sb_printf(&f->views, "%s%d,-1", f->views.data[f->views.len - 1] == '[' ? "" : ",",
                               sh->cmd_slot[i]);
        if (!each_run(f, sh, q, put_run)) return false;
    }
    attn_sb_puts(&f->views, "]]");
    attn_sb_puts(&f->base_frags, "[");
    for (int k = 0; k < f->n_slots; k++) attn_sb_printf(&f->base_frags, "%s%d", k ? "," : "", sh->base_frag[k]);
    attn_sb_puts(&f->base_frags, "]");
    return attn_sb_ok(&f->views) && attn_sb_ok(&f->base_frags);
}

static void shared_free(shared *sh, int n) {
    for (int q = 0; sh->match && q < n; q++) free(sh->match[q]);
    free(sh->match);
    free(sh->cmd_slot);
    free(sh->ins_slot);
    free(sh->base_frag);
    viz_free(&sh->base);
}

/* ---- per cell: hover overlay and panel ---- */

/* A hover usually only adds commands (an outline, the cells feeding it): then
 * one walk down both lists matches every base command in order, with no
 * hashing — thousands of cells, each a list of thousands of commands. false
 * when the hovered list changed a base command (ex_diff finds the match then). */
static bool added_only(const viz_list *h, const viz_list *base, int *match) {
    int j = 0;
    for (int i = 0; i < h->count; i++) {
        bool same = j < base->count && ex_cmd_equal(h, &h->cmds[i], base, &base->cmds[j]);
        match[i] = same ? j++ : -1;
    }
    return j == base->count;
}

/* The commands hovering c adds to the base, as fragments, into b (a JSON array). */
static bool hover_frags(ex_html_fig *f, const viz_list *base, const viz_hit *c, attn_strbuf *b) {
    if (!build(f, f->q0, c)) return false;
    const viz_list *h = &f->list;
    int *match = malloc(sizeof(int) * (size_t)(h->count + 1));
    if (!match) return false;
    if (!added_only(h, base, match)) ex_diff(h, base, match); // what has no partner in the base was added by the hover
    bool ok = true, first = true;
    attn_sb_puts(b, "[");
    for (int j = 0; j < h->count && ok; j++) {
        if (match[j] >= 0) continue;
        int at = fragment(f, h, j, j + 1, f->q0);
        ok = at != -2;
        if (at >= 0) attn_sb_printf(b, "%s%d", first ? "" : ",", at);
        first = first && at < 0;
    }
    attn_sb_puts(b, "]");
    free(match);
    return ok;
}

/* The panel's lines for cell c into b: [[line positions], then the focus line]. */
static bool panel_lines(ex_html_fig *f, const viz_hit *c, attn_strbuf *b) {
    const export_item *it = f->it;
    const char *const *ui = f->ui ? f->ui->s[f->o->lang] : NULL;
    viz_xtext x;
    bool ok;
    if (it->model) { // a model's cell: its layer's, or the model's own stages
        model_explanation *e = malloc(sizeof *e);
        ok = e && model_explain(e, it->run, it->model, c->stage, it->layer, c->head, c->row, c->col, NULL) == ATTN_OK &&
             viz_explain_model_text(&x, e, it->run, it->model, ui);
        free(e);
    } else {
        attn_explanation *e = malloc(sizeof *e);
        ok = e && attn_explain(e, it->trace, (attn_stage)c->stage, c->head, c->row, c->col, NULL) == ATTN_OK &&
             viz_explain_text(&x, e, it->trace, ui, it->feature_names);
        free(e);
    }
    if (!ok) return false;
    attn_strbuf line;
    attn_sb_init(&line);
    attn_sb_puts(b, "[");
    char text[sizeof x.lines[0].text + 4];
    for (int i = 0; i < x.n && ok; i++) { // "KF…": the kind and the focus flag, then the words
        snprintf(text, sizeof text, "%d%d%s", (int)x.lines[i].kind, x.lines[i].focus ? 1 : 0, x.lines[i].text);
        line.len = 0;
        attn_sb_json_string(&line, text, strlen(text));
        int at = attn_sb_ok(&line) ? ex_strtab_add(&f->lines, line.data, line.len) : -1;
        ok = at >= 0;
        attn_sb_printf(b, "%s%d", i ? "," : "", at);
    }
    attn_sb_printf(b, "],%d", x.n_terms > 0 ? x.first_term + x.focus : -1);
    attn_sb_free(&line);
    viz_xtext_free(&x);
    return ok;
}

static bool cells(ex_html_fig *f, const viz_list *base) {
    bool ok = true;
    char name[64];
    attn_strbuf *b = &f->cells;
    for (int i = 0; i < base->count && ok; i++) {
        const viz_cmd *c = &base->cmds[i];
        if (c->kind != VIZ_HIT || c->hit.kind != VIZ_HIT_CELL) continue;
        ex_html_cell_name(name, sizeof name, &c->hit, cell_layer(f));
        attn_sb_printf(b, "%s\"%s\":[", b->len ? ",\n" : "", name);
        ok = panel_lines(f, &c->hit, b);
        attn_sb_puts(b, ",");
        ok = ok && hover_frags(f, base, &c->hit, b);
        attn_sb_puts(b, "]");
    }
    return ok && attn_sb_ok(b);
}

bool ex_html_views(ex_html_fig *f) {
    shared sh;
    memset(&sh, 0, sizeof sh);
    bool ok = build(f, f->q0, NULL);
    if (ok) { // the base is kept; f->list is the scratch of every other build
        sh.base = f->list;
        memset(&f->list, 0, sizeof f->list);
    }
    ok = ok && find_slots(f, &sh) && write_slots(f, &sh) && write_views(f, &sh) && cells(f, &sh.base);
    shared_free(&sh, f->n);
    return ok;
}

void ex_html_fig_free(ex_html_fig *f) {
    if (!f) return;
    attn_sb_free(&f->svg);
    ex_strtab_free(&f->frags);
    attn_sb_free(&f->views);
    attn_sb_free(&f->base_frags);
    ex_strtab_free(&f->lines);
    attn_sb_free(&f->cells);
    viz_free(&f->list);
}
