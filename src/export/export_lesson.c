/* export_lesson.c — a lesson as an export job: one item per page, each with
 * its own trace (sentence, settings, vocabulary, designed weights), step,
 * title and narrative (as Markdown for the handout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "page.h"
#include "viz_lesson.h"

/* Plain lesson text, escaped so Markdown shows it as written. */
static void md_plain(attn_strbuf *b, const char *s, int len, bool para_start) {
    for (int i = 0; i < len; i++) {
        char c = s[i];
        if (strchr("\\`*_[]<>", c) || (c == '#' && para_start && i == 0)) attn_sb_puts(b, "\\");
        attn_sb_append(b, &s[i], 1);
    }
}

/* A paragraph's text with its spans as <em>emphasis</em> and `code` (HTML
 * tags, because Markdown's * does not close after CJK punctuation, “）*因”)
 * and its {references} computed on the page's traces. */
static void md_spans(attn_strbuf *b, const lesson_page *pg, const lesson_para *p, const viz_ref_ctx *x) {
    int at = 0, len = (int)strlen(p->text);
    char val[128];
    for (int k = 0; k < p->n_spans; k++) {
        const lesson_span *sp = &p->spans[k];
        md_plain(b, p->text + at, sp->start - at, at == 0);
        char *inner = strndup(p->text + sp->start, (size_t)sp->len);
        if (sp->kind == LESSON_SPAN_CODE && inner) {
            ex_md_code(b, inner);
        } else if (sp->kind == LESSON_SPAN_REF && sp->ref >= 0) {
            viz_lesson_ref(val, sizeof val, &pg->refs[sp->ref], x);
            md_plain(b, val, (int)strlen(val), false);
        } else {
            attn_sb_puts(b, "<em>");
            md_plain(b, p->text + sp->start, sp->len, false);
            attn_sb_puts(b, "</em>");
        }
        free(inner);
        at = sp->start + sp->len;
    }
    md_plain(b, p->text + at, len - at, at == 0);
}

char *export_lesson_text(const lesson_page *pg, bool after_reveal, const viz_ref_ctx *x) {
    attn_strbuf b;
    attn_sb_init(&b);
    for (int i = 0; i < pg->n_paras; i++) {
        const lesson_para *p = &pg->paras[i];
        if (pg->has_reveal && p->after_reveal != after_reveal) continue; // the answer goes after the figure
        if (!pg->has_reveal && after_reveal) break;
        bool next_item = i + 1 < pg->n_paras && pg->paras[i + 1].kind == LESSON_PARA_ITEM;
        if (p->kind == LESSON_PARA_CODE) {
            ex_md_block(&b, p->code_lang, p->text);
            attn_sb_puts(&b, "\n");
        } else if (p->kind == LESSON_PARA_ITEM) {
            attn_sb_puts(&b, "- ");
            md_spans(&b, pg, p, x);
            attn_sb_puts(&b, next_item ? "\n" : "\n\n"); // a list ends with a blank line
        } else {
            md_spans(&b, pg, p, x);
            attn_sb_puts(&b, "\n\n");
        }
    }
    return attn_sb_take(&b);
}

/* Everything a lesson job owns, freed in one place. */
typedef struct {
    export_item *items;
    attn_trace *traces, *alts; /* each page's, and its @compare view's (when it has one) */
    model_result *runs;        /* a model page's run of its sentence */
    char **texts, **afters, **flags, **narratives;
    int n; /* items filled in */
} lesson_job;

static bool lesson_job_alloc(lesson_job *j, int pages) {
    memset(j, 0, sizeof *j);
    size_t n = pages > 0 ? (size_t)pages : 1;
    j->items = calloc(n, sizeof *j->items);
    j->traces = calloc(n, sizeof *j->traces);
    j->alts = calloc(n, sizeof *j->alts);
    j->runs = calloc(n, sizeof *j->runs);
    j->texts = calloc(n, sizeof *j->texts);
    j->afters = calloc(n, sizeof *j->afters);
    j->flags = calloc(n, sizeof *j->flags);
    j->narratives = calloc(n, sizeof *j->narratives);
    return j->items && j->traces && j->alts && j->runs && j->texts && j->afters && j->flags && j->narratives;
}

static void lesson_job_free(lesson_job *j) {
    for (int i = 0; i < j->n; i++) {
        attn_trace_free(&j->traces[i]);
        attn_trace_free(&j->alts[i]);
        model_result_free(&j->runs[i]);
        free(j->texts[i]);
        free(j->afters[i]);
        free(j->flags[i]);
        free(j->narratives[i]);
    }
    free(j->items);
    free(j->traces);
    free(j->alts);
    free(j->runs);
    free(j->texts);
    free(j->afters);
    free(j->flags);
    free(j->narratives);
}

/* The query a page points at (prediction or highlight), else -1. */
static int page_query(const lesson_page *pg, const attn_trace *t) {
    if (pg->predict.on) return lesson_find_token(&t->tokens, &pg->predict.query);
    if (pg->highlight.kind != LESSON_HL_NONE) return lesson_find_token(&t->tokens, &pg->highlight.a);
    return -1;
}

/* The step page i shows: its own, else the last one named before it, else
 * the app's first step (softmax), as a learner paging through would see. */
static attn_step page_step(const lesson *l, int i) {
    for (; i >= 0; i--) {
        int s = lesson_page_at(l, i)->step;
        if (s >= 0) return (attn_step)s;
    }
    return ATTN_STEP_SOFTMAX;
}

/* The next item from page i. */
static attn_status page_item(lesson_job *j, const lesson *l, int i, const export_opts *o, const viz_strings *ui,
                             attn_err *err) {
    const lesson_page *pg = lesson_page_at(l, i);
    int k = j->n;
    attn_trace *t = &j->traces[k];
    bool labelled = false;
    attn_status st = ATTN_OK;
    if (pg->model_name && !pg->model)
        st = attn_fail(err, ATTN_ERR_INPUT, "Page %s needs the model %s, which cannot be read: %s", pg->id,
                       pg->model_name, pg->model_why ? pg->model_why : "?");
    else if (pg->model) st = page_run(&j->runs[k], l, i, NULL, 0, -1, &labelled, err);
    else st = lesson_page_trace(t, l, i, NULL, 0, err);
    if (st == ATTN_OK && pg->compare.kind == LESSON_CMP_CONFIG) st = lesson_page_compare_trace(&j->alts[k], l, i, err);
    j->n++;
    if (st != ATTN_OK) return st;
    if (pg->model) t = &j->runs[k].layer[lesson_page_layer(pg)]; // the layer the page shows
    const attn_vocab *v = pg->model ? NULL : lesson_vocab(l);
    export_item *it = &j->items[k];
    it->trace = t;
    if (pg->model) { // a trained model: its layer, readout or backward view, as the window shows the page
        it->model = page_model(pg);
        it->run = &j->runs[k];
        it->layer = lesson_page_layer(pg);
        it->readout = pg->readout;
        it->backward = pg->backward;
        it->target = labelled ? VIZ_TARGET_TASK : VIZ_TARGET_PREDICTED;
    }
    it->step = page_step(l, i);
    it->number = i + 1; // NN is the page's place in the lesson, also when one page is remade
    it->head = pg->predict.on ? pg->predict.head : pg->compare.kind == LESSON_CMP_HEADS ? pg->compare.head_a : 0;
    it->query = page_query(pg, t);
    it->mark = viz_lesson_mark(&pg->highlight, &t->tokens);
    it->id = pg->id;
    it->title = pg->title;
    it->page = pg;
    it->alt = j->alts[k].n ? &j->alts[k] : NULL;
    viz_ref_ctx x;
    export_item_refs(&x, it, ui ? ui->s[o->lang] : NULL);
    it->text = j->texts[k] = export_lesson_text(pg, false, &x);
    it->text_after = j->afters[k] = export_lesson_text(pg, true, &x);
    attn_strbuf nb; // the window view's narrative, as the window shows the answered page
    attn_sb_init(&nb);
    viz_lesson_narrative(&nb, pg, false, &x);
    it->narrative = j->narratives[k] = attn_sb_take(&nb);
    it->origin = (viz_origin){.kind = VIZ_FROM_LESSON, .name = o->lesson_path ? o->lesson_path : lesson_id(l),
                              .gain = pg->random_weights ? pg->gain : 0};
    if (pg->model) // the badge says which model, as in the window
        it->origin = (viz_origin){.kind = VIZ_FROM_MODEL, .name = pg->model_name, .task = page_model(pg)->task,
                                  .steps = page_model(pg)->training.steps, .seed = page_model(pg)->training.seed};
    it->feature_names = v && v->dim == t->cfg.d_model && t->vocab_rows ? v->features : NULL;
    if (!pg->model) viz_lesson_names(&it->names, l, i, t);
    size_t fl = strlen(pg->id) + sizeof "--page ";
    if ((j->flags[k] = malloc(fl)) != NULL) snprintf(j->flags[k], fl, "--page %s", pg->id);
    it->remake_flags = j->flags[k];
    return j->texts[k] && j->afters[k] && j->flags[k] && j->narratives[k] ? ATTN_OK : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export the lesson.");
}

/* o's command prefix followed by --page ID (malloc'd). */
static char *page_prefix(const export_opts *o, const char *page_id) {
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "%s --page ", o->command_prefix ? o->command_prefix : "attnviz --headless");
    attn_sb_shell_word(&b, page_id);
    return attn_sb_take(&b);
}

attn_status export_lesson(const export_opts *o, const lesson *l, const char *page_id, const viz_strings *ui,
                          viz_fonts *fonts, attn_err *err) {
    int pages = lesson_page_count(l), only = page_id ? lesson_find_page(l, page_id) : -1;
    if (page_id && only < 0) return attn_fail(err, ATTN_ERR_RANGE, "The lesson has no page \"%s\".", page_id);
    lesson_job j;
    attn_status st = ATTN_OK;
    if (!lesson_job_alloc(&j, pages)) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export the lesson.");
    for (int i = 0; st == ATTN_OK && i < pages; i++)
        if (only < 0 || i == only) st = page_item(&j, l, i, o, ui, err);
    export_opts lo = *o;
    char *prefix = NULL;
    if (st == ATTN_OK && page_id) { // every command of a one-page export names the page
        prefix = page_prefix(o, page_id);
        j.items[0].remake_flags = NULL;
        lo.command_prefix = prefix;
        if (!prefix) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to export the lesson.");
    }
    if (st == ATTN_OK) {
        if (!lo.title) lo.title = lesson_title(l);
        if (!lo.lesson_sha256) lo.lesson_sha256 = lesson_sha256(l);
        st = export_run(&lo, j.items, j.n, ui, fonts, err);
    }
    free(prefix);
    lesson_job_free(&j);
    return st;
}
