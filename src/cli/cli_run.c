/* cli_run.c — headless runs: sentence and weights in, tables or JSON out. */
#include "cli_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attn_json.h"
#include "attn_settings.h"
#include "cli_explain.h"
#include "cli_model.h"
#include "cli_print.h"
#include "fileio.h"
#include "page.h"
#include "utf8.h"

static attn_status load_sentence(cli_state *r, const cli_opts *o, attn_err *err) {
    if (o->sentence_file) {
        attn_status st = attn_read_file(o->sentence_file, CLI_MAX_SENTENCE_FILE,
                                        &r->sentence_buf, &r->sentence_len, err);
        size_t bom = st == ATTN_OK ? utf8_bom_len(r->sentence_buf, r->sentence_len) : 0;
        r->sentence = r->sentence_buf ? r->sentence_buf + bom : NULL; // an editor's mark is not a token
        r->sentence_len -= bom;
        return st;
    }
    r->sentence = o->sentence ? o->sentence
                  : r->lesson ? lesson_page_at(r->lesson, r->page)->sentence
                              : CLI_SEED_SENTENCE;
    r->sentence_len = strlen(r->sentence);
    return ATTN_OK;
}

/* Reads --weights and takes d_model, d_k and heads from it where no flag set them. */
static attn_status load_weights(cli_state *r, const cli_opts *o, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    attn_status st = attn_read_file(o->weights_path, CLI_MAX_WEIGHTS_FILE, &text, &len, err);
    if (st != ATTN_OK) return st;
    st = attn_weights_file_parse(&r->file, text, len, o->weights_path, err);
    free(text);
    if (st != ATTN_OK) return st;
    int dm, dk, heads;
    attn_weights_file_dims(&r->file, &dm, &dk, &heads);
    if (dm && !o->set_d_model) r->cfg.d_model = dm;
    if (dk && !o->set_d_k) r->cfg.d_k = dk;
    if (heads && !o->set_heads) r->cfg.heads = heads;
    return ATTN_OK;
}

static attn_status unknown_page(const lesson *l, const cli_opts *o, attn_err *err) {
    char ids[400] = "";
    for (int i = 0; i < lesson_page_count(l); i++) {
        size_t used = strlen(ids);
        snprintf(ids + used, sizeof ids - used, "%s%s", i ? ", " : "", lesson_page_at(l, i)->id);
    }
    return attn_fail(err, ATTN_ERR_INPUT, "The lesson %s has no page \"%s\"; its pages are: %s.",
                     o->lesson_path, o->page_id, ids);
}

/* --lesson: the page's configuration, with the settings flags given on top. */
static attn_status load_lesson(cli_state *r, const cli_opts *o, attn_err *err) {
    attn_status st = r->lesson ? ATTN_OK : page_lesson_load(&r->lesson, o->lesson_path, err); // a pipe is read once
    if (st != ATTN_OK) return st;
    r->page = o->page_id ? lesson_find_page(r->lesson, o->page_id) : 0;
    if (r->page < 0) return unknown_page(r->lesson, o, err);
    const lesson_page *pg = lesson_page_at(r->lesson, r->page);
    attn_config c = pg->cfg;
    const attn_config *f = &o->cfg;
    for (int id = 0; id < ATTN_SETTING_COUNT; id++) // the flags given override the page
        if (cli_setting_given(o, id)) attn_setting_copy(id, &c, f);
    r->cfg = c;
    snprintf(r->weights_name, sizeof r->weights_name, "the lesson %s, page %s", o->lesson_path, pg->id);
    return ATTN_OK;
}

attn_status cli_state_compute(cli_state *r, const cli_opts *o, attn_err *err) {
    r->cfg = o->cfg;
    attn_status st = o->lesson_path ? load_lesson(r, o, err) : ATTN_OK;
    if (st == ATTN_OK) st = load_sentence(r, o, err);
    if (st == ATTN_OK && o->weights_path) st = load_weights(r, o, err);
    if (st == ATTN_OK) st = attn_config_check(&r->cfg, err);
    if (st != ATTN_OK) return st;
    const attn_weights *w = NULL;
    if (o->weights_path) { // binding X needs the token count first
        attn_tokens toks = {0};
        st = attn_tokenize(&toks, r->sentence, r->sentence_len, NULL, err);
        int n = toks.n;
        attn_tokens_free(&toks);
        if (st == ATTN_OK) st = attn_weights_file_bind(&r->weights, &r->file, &r->cfg, n, o->weights_path, err);
        if (st != ATTN_OK) return st;
        w = &r->weights;
    } else if (r->lesson) { // the designs that fit the final configuration; the rest random
        lesson_page_weights(r->lesson, r->page, &r->cfg, &r->weights);
        w = &r->weights;
    }
    const attn_vocab *vocab = r->lesson ? lesson_vocab(r->lesson) : NULL;
    return attn_trace_run(&r->trace, r->sentence, r->sentence_len, &r->cfg, vocab, w, err);
}

/* The --explain cell as text (*text is the caller's to free). */
static attn_status explain(const cli_state *r, const cli_opts *o, char **text, attn_err *err) {
    attn_explanation *e = malloc(sizeof *e);
    if (!e) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to explain a cell.");
    attn_status st = attn_explain(e, &r->trace, (attn_stage)o->explain_stage, o->explain_head,
                                  o->explain_row, o->explain_col, err);
    if (st == ATTN_OK) {
        size_t need = cli_explain_format(e, &r->trace, NULL, 0) + 1;
        *text = malloc(need);
        if (*text) cli_explain_format(e, &r->trace, *text, need);
        else st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to explain a cell.");
    }
    free(e);
    return st;
}

static attn_status act(const cli_state *r, const cli_opts *o, FILE *out, attn_err *err) {
    attn_status st = ATTN_OK;
    char *why = NULL;
    // a cell that does not exist is refused before anything is written or printed
    if (o->explain && (st = explain(r, o, &why, err)) != ATTN_OK) return st;
    if (o->print && (o->print_stage == ATTN_ST_Q_ROT || o->print_stage == ATTN_ST_K_ROT) && !r->trace.cfg.rope)
        return attn_fail(err, ATTN_ERR_RANGE, "--print %s: q_rot and k_rot exist only with --pos rope.",
                         attn_stage_name((attn_stage)o->print_stage));
    if (o->dump_path) { // first, so a failed dump leaves no half-printed tables
        char *json = attn_json_dump(&r->trace);
        if (!json) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the JSON dump.");
        else st = attn_write_file(o->dump_path, json, strlen(json), NULL, err);
        free(json);
        if (st != ATTN_OK) {
            free(why);
            return st;
        }
    }
    if (o->print) {
        cli_print_tokens(out, &r->trace, r->lesson ? r->weights_name : o->weights_path);
        if (o->print_stage >= 0) {
            cli_print_stage(out, &r->trace, (attn_stage)o->print_stage);
        } else {
            for (int s = 0; s < ATTN_STAGE_COUNT; s++) cli_print_stage(out, &r->trace, (attn_stage)s);
        }
    }
    if (why) fputs(why, out);
    free(why);
    return st;
}

/* --check-lesson: "FILE: ok, N pages", or every error as file:line:column. */
static int check_lesson(const cli_opts *o, FILE *out, FILE *errf) {
    char *text = NULL, *report = NULL;
    size_t len = 0;
    int pages = 0;
    attn_err err;
    if (attn_read_file(o->check_lesson, LESSON_MAX_BYTES, &text, &len, &err) != ATTN_OK) {
        fprintf(errf, "attnviz: %s\n", err.msg);
        return 1;
    }
    int errors = page_lesson_check(text, len, o->check_lesson, &report, &pages);
    if (errors == 0) fprintf(out, "%s: ok, %d page%s\n", o->check_lesson, pages, pages == 1 ? "" : "s");
    else fputs(report ? report : "attnviz: not enough memory to report the lesson's errors\n", errf);
    free(report);
    free(text);
    return cli_finish_output(out, "standard output", errf, errors == 0 ? 0 : 1);
}

int cli_finish_output(FILE *out, const char *name, FILE *errf, int code) {
    errno = 0;
    bool bad = fflush(out) != 0 || ferror(out);
    if (code != 0) return code; // the failure was said already: one message, not two
    if (!bad) return code;
    fprintf(errf, "attnviz: Cannot write to %s: %s.\n", name, errno ? strerror(errno) : "a write failed");
    fflush(errf);
    return code ? code : 1;
}

/* A page with @model (mo: o with the model in place of the lesson): as the
 * window shows it, with the page's sentence and the targets it draws the
 * backward pass for. Returns ATTN_OK with mo->model.model_path NULL for a
 * page of the designed layer. */
static attn_status model_page(cli_opts *mo, const lesson **keep, attn_err *err) {
    lesson *l = NULL;
    attn_status st = page_lesson_load(&l, mo->lesson_path, err);
    if (st != ATTN_OK) return st;
    int i = mo->page_id ? lesson_find_page(l, mo->page_id) : 0;
    const lesson_page *pg = i >= 0 ? lesson_page_at(l, i) : NULL;
    const char *flag = cli_model_config_flag(mo);
    if (!pg) st = unknown_page(l, mo, err);
    else if (pg->model_name && !pg->model)
        st = attn_fail(err, ATTN_ERR_INPUT, "Page %s shows the trained model %s, which cannot be read (%s).", pg->id,
                       pg->model_name, pg->model_why ? pg->model_why : "no reason given");
    else if (pg->model && flag)
        st = attn_fail(err, ATTN_ERR_RANGE, "Page %s shows the trained model %s, whose training fixed its "
                                            "configuration; drop %s.",
                       pg->id, pg->model_name, flag);
    else if (pg->model) {
        mo->model.model_path = pg->model_path;
        if (!mo->sentence && !mo->sentence_file) mo->sentence = pg->sentence;
        mo->lesson_path = mo->page_id = NULL;
        if (mo->explain) st = cli_model_parse_explain(&mo->model, mo->explain_spec, err);
    }
    if (st == ATTN_OK && !pg->model) st = cli_check_layer_page(mo, err);
    if (st == ATTN_OK) *keep = l; // mo borrows the page's strings
    else lesson_free(l);
    return st;
}

int cli_run_headless(const cli_opts *o, FILE *out, FILE *errf) {
    if (o->check_lesson) return check_lesson(o, out, errf);
    if (o->model.model_path) return cli_model_run(o, false, out, errf);
    attn_err err;
    attn_err_clear(&err);
    cli_opts page = *o;
    const lesson *keep = NULL;
    if (o->lesson_path) {
        attn_status st = model_page(&page, &keep, &err);
        int code = st != ATTN_OK ? 1 : page.model.model_path ? cli_model_run(&page, true, out, errf)
                                                             : -1;
        if (st != ATTN_OK) fprintf(errf, "attnviz: %s\n", err.msg);
        if (code >= 0) {
            lesson_free((lesson *)keep);
            return cli_finish_output(out, "standard output", errf, code);
        }
        o = &page;
    }
    cli_state r;
    memset(&r, 0, sizeof r);
    r.lesson = (lesson *)keep; // read once: it may have come through a pipe
    keep = NULL;
    attn_status st = cli_state_compute(&r, o, &err);
    if (st == ATTN_OK) st = act(&r, o, out, &err);
    if (st != ATTN_OK) fprintf(errf, "attnviz: %s\n", err.msg);
    cli_state_free(&r);
    return cli_finish_output(out, "standard output", errf, st == ATTN_OK ? 0 : 1);
}

void cli_state_free(cli_state *r) {
    if (!r) return;
    attn_trace_free(&r->trace);
    attn_weights_file_free(&r->file);
    lesson_free(r->lesson);
    free(r->sentence_buf);
    memset(r, 0, sizeof *r);
}
