/* export_lesson.c — a lesson as an export job: one item per page, each with
 * its own trace (sentence, settings, vocabulary, designed weights), step,
 * title and narrative (as Markdown for the handout). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_internal.h"
#include "page.h"
#include "utf8.h"
#include "viz_lesson.h"

/* How sentences a static handout leaves out begin: they ask the reader to
 * click in the window, and the figure under them already shows the answer.
 * After a comma only the "then" forms end a guess's sentence ("Decide, then
 * click the key …", "想好了，再点一下…"); "，点一下“，”：逗号把…" explains. */
static const char *const WINDOW_ONLY[] = {"Click ", "click ", "点一下", "点击"};
static const char *const WINDOW_THEN[] = {"then click ", "再点一下", "再点击"};

/* Punctuation and spaces, which Markdown's emphasis flanking rules treat
 * alike: ASCII, general punctuation (quotes, …), CJK and fullwidth forms. */
static bool punct(uint32_t cp) {
    return (cp < 0x80 && (ispunct((int)cp) || isspace((int)cp))) || (cp >= 0x2000 && cp <= 0x206F) ||
           (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
           (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65);
}

/* *emphasis*, its end punctuation outside the stars: a "*" after "）" and
 * before "因" neither opens nor closes in CommonMark, and an emphasis of
 * nothing but punctuation is plain text. pandoc, MkDocs and GitHub agree. */
static void md_emph(attn_strbuf *b, const char *s, size_t len) {
    size_t from = len, to = 0; // the first and past the last character that is not punctuation
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        int k = utf8_decode(s + i, len - i, &cp);
        size_t step = k > 0 ? (size_t)k : 1;
        if (!punct(cp)) {
            if (from == len) from = i;
            to = i + step;
        }
        i += step;
    }
    if (from >= to) {
        ex_md_text(b, s, len, false);
        return;
    }
    ex_md_text(b, s, from, false);
    attn_sb_puts(b, "*");
    ex_md_text(b, s + from, to - from, false);
    attn_sb_puts(b, "*");
    ex_md_text(b, s + to, len - to, false);
}

/* The end of the sentence starting at `at` (past its mark and the spaces after). */
static int sentence_end(const char *s, int at, int len) {
    for (int i = at; i < len; i++) {
        int mark = s[i] == '.' || s[i] == '?' || s[i] == '!'                                                      ? 1
                   : strncmp(s + i, "。", 3) == 0 || strncmp(s + i, "？", 3) == 0 || strncmp(s + i, "！", 3) == 0 ? 3
                                                                                                                  : 0;
        if (!mark || (mark == 1 && i + 1 < len && s[i + 1] != ' ')) continue; // "2.5", "e.g." inside a word
        i += mark;
        while (i < len && s[i] == ' ') i++;
        return i;
    }
    return len;
}

/* The length of the mark ending [from, to) (".", "?", "!", "。", "？", "！"), or 0. */
static int sentence_mark(const char *s, int from, int to) {
    if (to - 1 > from && strchr(".?!", s[to - 1])) return 1;
    if (to - 3 > from && (strncmp(s + to - 3, "。", 3) == 0 || strncmp(s + to - 3, "？", 3) == 0 ||
                          strncmp(s + to - 3, "！", 3) == 0))
        return 3;
    return 0;
}

static bool window_only(const char *s) {
    for (size_t k = 0; k < sizeof WINDOW_ONLY / sizeof *WINDOW_ONLY; k++)
        if (strncmp(s, WINDOW_ONLY[k], strlen(WINDOW_ONLY[k])) == 0) return true;
    return false;
}

static bool window_then(const char *s) {
    for (size_t k = 0; k < sizeof WINDOW_THEN / sizeof *WINDOW_THEN; k++)
        if (strncmp(s, WINDOW_THEN[k], strlen(WINDOW_THEN[k])) == 0) return true;
    return false;
}

/* Where the sentence [at, end) stops making sense on paper: its start when
 * it is window-only, the colon before a window-only clause ("make a guess:
 * click the word …"), the comma before a "then click" one, else -1. */
static int window_clause(const char *s, int at, int end) {
    if (window_only(s + at)) return at;
    for (int i = at; i < end; i++) {
        int colon = s[i] == ':' ? 1 : strncmp(s + i, "：", 3) == 0 ? 3
                                                                   : 0,
            k = i + colon;
        while (colon && k < end && s[k] == ' ') k++;
        if (colon && window_only(s + k)) return i;
        int comma = s[i] == ',' ? 1 : strncmp(s + i, "，", 3) == 0 ? 3
                                                                   : 0;
        for (k = i + comma; comma && k < end && s[k] == ' ';) k++;
        if (comma && window_then(s + k)) return i;
    }
    return -1;
}

/* keep[i] = false for the bytes of p's sentences the handout leaves out
 * (WINDOW_ONLY), unless a span crosses the sentence's edge. */
static void handout_keep(const lesson_para *p, int len, bool *keep) {
    for (int i = 0; i < len; i++) keep[i] = true;
    for (int at = 0; at < len;) {
        int end = sentence_end(p->text, at, len);
        bool whole = true;
        for (int k = 0; k < p->n_spans; k++) {
            int a = p->spans[k].start, z = a + p->spans[k].len;
            if ((a < at && z > at) || (a < end && z > end)) whole = false;
        }
        int from = whole ? window_clause(p->text, at, end) : -1, to = end;
        if (from > at) { // "make a guess: click …." keeps "make a guess."
            to = end;
            while (to > from && p->text[to - 1] == ' ') to--;
            to -= sentence_mark(p->text, from, to); // the clause goes, the sentence's full stop stays
        }
        for (int i = from; i >= 0 && i < to; i++) keep[i] = false;
        at = end;
    }
}

/* Plain text [from, to) of p without the bytes left out. */
static void md_kept(attn_strbuf *b, const char *s, const bool *keep, int from, int to, bool para_start) {
    for (int i = from; i < to;) {
        if (!keep[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j < to && keep[j]) j++;
        ex_md_text(b, s + i, (size_t)(j - i), para_start && b->len == 0);
        i = j;
    }
}

/* A paragraph's text with its spans as *emphasis* and `code` and its
 * {references} computed on the page's traces, without its window-only
 * sentences. Into b, which the caller clears. */
static void md_spans(attn_strbuf *b, const lesson_page *pg, const lesson_para *p, const viz_ref_ctx *x) {
    int at = 0, len = (int)strlen(p->text);
    char val[128];
    bool *keep = malloc((size_t)len + 1);
    if (!keep) {
        b->failed = true;
        return;
    }
    handout_keep(p, len, keep);
    for (int k = 0; k < p->n_spans; k++) {
        const lesson_span *sp = &p->spans[k];
        md_kept(b, p->text, keep, at, sp->start, true);
        at = sp->start + sp->len;
        if (sp->len > 0 && !keep[sp->start]) continue; // inside a sentence left out
        char *inner = strndup(p->text + sp->start, (size_t)sp->len);
        if (sp->kind == LESSON_SPAN_CODE && inner) {
            ex_md_code(b, inner);
        } else if (sp->kind == LESSON_SPAN_REF && sp->ref >= 0) {
            viz_lesson_ref(val, sizeof val, &pg->refs[sp->ref], x);
            ex_md_text(b, val, strlen(val), b->len == 0);
        } else if (sp->kind == LESSON_SPAN_EMPH) {
            md_emph(b, p->text + sp->start, (size_t)sp->len);
        }
        free(inner);
    }
    md_kept(b, p->text, keep, at, len, true);
    while (b->len > 0 && b->data[b->len - 1] == ' ') b->data[--b->len] = '\0'; // the space before a sentence left out
    free(keep);
}

/* Whether every {reference} of p can be computed on x (none would print "—"). */
static bool refs_hold(const lesson_page *pg, const lesson_para *p, const viz_ref_ctx *x) {
    char val[128];
    if (p->kind == LESSON_PARA_CODE) return true;
    for (int k = 0; k < p->n_spans; k++)
        if (p->spans[k].kind == LESSON_SPAN_REF && p->spans[k].ref >= 0 &&
            !viz_lesson_ref_ok(val, sizeof val, &pg->refs[p->spans[k].ref], x))
            return false;
    return true;
}

bool export_para_holds(const lesson_page *pg, const lesson_para *p, const viz_ref_ctx *x) {
    bool edited = x->sentence && pg->sentence && strcmp(x->sentence, pg->sentence) != 0;
    return !(p->own && edited) && refs_hold(pg, p, x);
}

char *export_lesson_text(const lesson_page *pg, bool after_reveal, const viz_ref_ctx *x) {
    attn_strbuf b, para;
    attn_sb_init(&b);
    attn_sb_init(&para);
    // as the window's narrative (viz_lesson_narrative): with another sentence (--sentence), the
    // paragraphs that hold only for the page's own (@own), or whose numbers cannot be computed,
    // give way once to the page's @edited text, so the handout never prints "—"
    bool said = false;
    for (int i = 0; i < pg->n_paras; i++) {
        const lesson_para *p = &pg->paras[i];
        if (pg->has_reveal && p->after_reveal != after_reveal) continue; // the answer goes after the figure
        if (!pg->has_reveal && after_reveal) break;
        if (p->edited) continue; // only in place of what does not hold
        bool next_item = i + 1 < pg->n_paras && pg->paras[i + 1].kind == LESSON_PARA_ITEM;
        if (!export_para_holds(pg, p, x)) {
            for (int e = 0; e < pg->n_paras && !said; e++) {
                if (!pg->paras[e].edited || !refs_hold(pg, &pg->paras[e], x)) continue;
                para.len = 0;
                if (para.data) para.data[0] = '\0';
                md_spans(&para, pg, &pg->paras[e], x);
                attn_sb_append(&b, para.data, para.len);
                attn_sb_puts(&b, "\n\n");
            }
            said = true;
            continue;
        }
        if (p->kind == LESSON_PARA_CODE) {
            ex_md_block(&b, p->code_lang, p->text);
            attn_sb_puts(&b, "\n");
        } else {
            para.len = 0;
            if (para.data) para.data[0] = '\0';
            md_spans(&para, pg, p, x);
            if (para.len == 0 && attn_sb_ok(&para)) continue; // nothing but a window-only sentence
            attn_sb_puts(&b, p->kind == LESSON_PARA_ITEM ? "- " : "");
            attn_sb_append(&b, para.data, para.len);
            attn_sb_puts(&b, p->kind == LESSON_PARA_ITEM && next_item ? "\n" : "\n\n"); // a list ends with a blank line
        }
        if (!attn_sb_ok(&para)) b.failed = true;
    }
    attn_sb_free(&para);
    return attn_sb_take(&b);
}

/* A question's answer for a static handout, whose figure already shows it:
 * "### Answer", the query's largest weight in words, then the page's text
 * after @reveal (malloc'd; NULL when out of memory). */
static char *answered(const export_item *it, const char *after, const viz_strings *ui, viz_lang lang) {
    const attn_trace *t = it->trace;
    int h = it->head >= 0 && it->head < t->cfg.heads ? it->head : 0, best = 0;
    int q = it->query >= 0 && it->query < t->n ? it->query : attn_trace_default_query(t);
    const double *row = t->head[h].weights + (size_t)q * t->n;
    for (int j = 1; j < t->n; j++)
        if (row[j] > row[best]) best = j;
    char query[96], key[96], line[512];
    attn_token_label(&t->tokens, q, 16, query, sizeof query);
    attn_token_label(&t->tokens, best, 16, key, sizeof key);
    snprintf(line, sizeof line, ex_str(ui, lang, VIZ_S_HANDOUT_ANSWER_TEXT), query, key, row[best]);
    ex_utf8_trim(line);
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "### ");
    ex_md_line(&b, ex_str(ui, lang, VIZ_S_HANDOUT_ANSWER));
    attn_sb_puts(&b, "\n\n");
    ex_md_text(&b, line, strlen(line), true);
    attn_sb_puts(&b, "\n\n");
    attn_sb_puts(&b, after ? after : "");
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

/* The page's split view, as the window shows it: two heads, or its settings
 * beside those of its @compare (scaling alone: the C key's own view). */
static void page_compare(export_item *it, const lesson_page *pg, const viz_strings *ui, viz_lang lang) {
    if (pg->compare.kind == LESSON_CMP_HEADS) {
        it->compare = VIZ_COMPARE_HEADS;
        it->head = pg->compare.head_a;
        it->head_b = pg->compare.head_b;
    } else if (pg->compare.kind == LESSON_CMP_CONFIG && it->alt) {
        attn_config c = pg->cfg;
        c.scale = pg->compare.cfg.scale;
        bool scale_only = attn_config_diff_text(it->compare_labels[0], sizeof it->compare_labels[0], &c, &pg->compare.cfg) == 0;
        it->compare = scale_only ? VIZ_COMPARE_SCALE : VIZ_COMPARE_CONFIG;
        const char *const *words = ui ? ui->s[lang] : NULL; // the window's words for the two views
        viz_config_words(it->compare_labels[0], sizeof it->compare_labels[0], words, lang, &pg->compare.cfg, &pg->cfg);
        viz_config_words(it->compare_labels[1], sizeof it->compare_labels[1], words, lang, &pg->cfg, &pg->compare.cfg);
    }
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
    else if (pg->model) st = page_run(&j->runs[k], l, i, o->sentence, o->sentence ? strlen(o->sentence) : 0, -1, &labelled, err);
    else st = lesson_page_trace(t, l, i, o->sentence, o->sentence ? strlen(o->sentence) : 0, err);
    if (st == ATTN_OK && pg->compare.kind == LESSON_CMP_CONFIG && o->sentence) { // the other sentence, compared too
        attn_weights w;
        lesson_page_weights(l, i, &pg->compare.cfg, &w);
        st = attn_trace_run(&j->alts[k], o->sentence, strlen(o->sentence), &pg->compare.cfg, lesson_vocab(l), &w, err);
    } else if (st == ATTN_OK && pg->compare.kind == LESSON_CMP_CONFIG) {
        st = lesson_page_compare_trace(&j->alts[k], l, i, err);
    }
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
    it->head = pg->predict.on ? pg->predict.head : pg->compare.kind == LESSON_CMP_HEADS ? pg->compare.head_a
                                                                                        : 0;
    it->query = page_query(pg, t);
    it->mark = viz_lesson_mark(&pg->highlight, &t->tokens);
    it->id = pg->id;
    it->title = pg->title;
    it->page = pg;
    it->alt = j->alts[k].n ? &j->alts[k] : NULL;
    page_compare(it, pg, ui, o->lang);
    viz_ref_ctx x;
    export_item_refs(&x, it, ui ? ui->s[o->lang] : NULL);
    it->text = j->texts[k] = export_lesson_text(pg, false, &x);
    char *after = export_lesson_text(pg, true, &x);
    it->text_after = j->afters[k] = pg->predict.on && after ? answered(it, after, ui, o->lang) : after;
    if (it->text_after != after) free(after);
    attn_strbuf nb; // the window view's narrative, as the window shows the answered page
    attn_sb_init(&nb);
    viz_lesson_narrative(&nb, pg, false, &x);
    it->narrative = j->narratives[k] = attn_sb_take(&nb);
    it->origin = (viz_origin){.kind = VIZ_FROM_LESSON, .name = o->lesson_path ? o->lesson_path : lesson_id(l), .gain = pg->random_weights ? pg->gain : 0};
    if (pg->model) // the badge says which model, as in the window
        it->origin = (viz_origin){.kind = VIZ_FROM_MODEL, .name = pg->model_name, .task = page_model(pg)->task, .steps = page_model(pg)->training.steps, .seed = page_model(pg)->training.seed};
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
