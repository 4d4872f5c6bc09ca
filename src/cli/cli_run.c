/* cli_run.c — headless runs: sentence and weights in, tables or JSON out. */
#include "cli_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attn_json.h"
#include "attn_settings.h"
#include "cli_explain.h"
#include "cli_model.h"
#include "cli_hf.h"
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
    return attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_CR_NO_PAGE,
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
    st = attn_trace_run(&r->trace, r->sentence, r->sentence_len, &r->cfg, vocab, w, err);
    if (st == ATTN_OK && o->decode) st = attn_decode_run(&r->decode, &r->trace, err);
    return st;
}

/* --decode's table: per token the cache, the cells computed and read, the
 * cost beside recomputing the whole causal attention, the cache's memory. */
static void print_decode(FILE *out, const cli_state *r) {
    const attn_decode *d = &r->decode;
    fprintf(out, "Decoding with a KV cache: %d heads reading %d kv-head%s, d_k %d, %d layer\n", d->heads, d->kv_heads,
            d->kv_heads == 1 ? "" : "s", d->d_k, d->layers);
    fprintf(out, "%5s %6s %6s %5s %10s %12s %12s %12s %12s\n", "token", "cache", "cells", "read", "macs", "macs_total",
            "full_causal", "full_total", "cache_bytes");
    for (int t = 0; t < d->n; t++) {
        const attn_decode_step *s = &d->step[t];
        fprintf(out, "%5d %6d %6d %5d %10lld %12lld %12lld %12lld %12lld\n", t, s->cache_len, s->cells, s->cells_read,
                s->macs, s->macs_total, s->full_macs, s->full_total, s->cache_bytes);
    }
    long long real = attn_kv_cache_bytes(ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
                                         ATTN_DECODE_REAL_TOKENS, ATTN_DECODE_REAL_BYTES);
    fprintf(out, "cache bytes = 2 * layers %d * kv_heads %d * d_k %d * cache rows * 8 (float64)\n", d->layers,
            d->kv_heads, d->d_k);
    if (d->window > 0) // causal-window:W: the cache a real implementation keeps slides
        fprintf(out, "sliding cache: causal-window:%d reads the %d newest keys, so the cache keeps %d rows and evicts "
                     "the older ones (%d evicted after the last token)\n",
                d->window, d->window + 1, d->window, d->step[d->n - 1].evicted);
    fprintf(out, "%s at fp16: 2 * %d layers * %d kv-heads * d_k %d * %d tokens * 2 bytes = %lld bytes (%.0f MiB)\n",
            ATTN_DECODE_REAL_NAME, ATTN_DECODE_REAL_LAYERS, ATTN_DECODE_REAL_KV_HEADS, ATTN_DECODE_REAL_D_K,
            ATTN_DECODE_REAL_TOKENS, real, real / 1048576.0);
    fprintf(out, "Z_decode vs Z: largest |difference| / max(1, |z|) = %.3g (tolerance 1e-12)\n",
            attn_decode_max_rel_diff(d, &r->trace));
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

/* --tiles B: each head's tiled pass (attn_tiles.h) into tiles[heads]. */
static attn_status run_tiles(attn_tiles *tiles, const attn_trace *t, int b, attn_err *err) {
    for (int h = 0; h < t->cfg.heads; h++) {
        attn_status st = attn_tiles_of_head(&tiles[h], t, h, b, err);
        if (st != ATTN_OK) return st;
    }
    return ATTN_OK;
}

/* --tiles B with --print: per head, the steps, the bytes held against one
 * (n, n) matrix, and how far Z_tiled is from Z. */
static void print_tiles(FILE *out, const attn_trace *t, const attn_tiles *tiles) {
    for (int h = 0; h < t->cfg.heads; h++) {
        const attn_tiles *tl = &tiles[h];
        fprintf(out,
                "tiles (head %d): B = %d, %d×%d blocks, %d steps (%d skipped, fully masked); bytes held at most "
                "%zu (one n×n matrix: n²·8 = %zu); max |Z_tiled − Z| / max(1, |Z|) = %.3g\n",
                h, tl->b, tl->blocks, tl->blocks, tl->count, tl->skipped, tl->max_bytes, tl->full_bytes,
                attn_tiles_rel_diff(tl->z, t->head[h].z, (size_t)t->n * t->cfg.d_k));
    }
}

static attn_status act(const cli_state *r, const cli_opts *o, FILE *out, attn_err *err) {
    attn_status st = ATTN_OK;
    char *why = NULL;
    attn_tiles tiles[ATTN_MAX_HEADS];
    memset(tiles, 0, sizeof tiles);
    // a cell that does not exist is refused before anything is written or printed
    if (o->explain && (st = explain(r, o, &why, err)) != ATTN_OK) return st;
    if (o->print && (o->print_stage == ATTN_ST_Q_ROT || o->print_stage == ATTN_ST_K_ROT) && !r->trace.cfg.rope)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CR_PRINT_ROPE,
                            attn_stage_name((attn_stage)o->print_stage));
    if (o->tiles && (st = run_tiles(tiles, &r->trace, o->tiles, err)) != ATTN_OK) goto done;
    if (o->dump_path) { // first, so a failed dump leaves no half-printed tables
        char *json = attn_json_dump_with(&r->trace, o->tiles ? tiles : NULL, o->decode ? &r->decode : NULL);
        if (!json) st = attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the JSON dump.");
        else st = attn_write_file(o->dump_path, json, strlen(json), NULL, err);
        free(json);
        if (st != ATTN_OK) goto done;
    }
    if (o->print) {
        cli_print_tokens(out, &r->trace, r->lesson ? r->weights_name : o->weights_path);
        if (o->print_stage >= 0) {
            cli_print_stage(out, &r->trace, (attn_stage)o->print_stage);
        } else {
            for (int s = 0; s < ATTN_STAGE_COUNT; s++) cli_print_stage(out, &r->trace, (attn_stage)s);
        }
        if (o->tiles) print_tiles(out, &r->trace, tiles);
    }
    if (o->decode && !(o->dump_path && strcmp(o->dump_path, "-") == 0)) print_decode(out, r);
    if (why) fputs(why, out);
done:
    free(why);
    for (int h = 0; h < ATTN_MAX_HEADS; h++) attn_tiles_free(&tiles[h]);
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

/* --print names a stage only --hf has (resid_pre … heads). */
static bool o_print_is_hf(const cli_opts *o) {
    return o->print_stage < 0 && cli_hf_stage_from_name(o->model.print_name) >= 0;
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
        st = attn_fail_id(err, ATTN_ERR_INPUT, ATTN_MSG_CR_PAGE_MODEL_UNREADABLE, pg->id,
                          pg->model_name, pg->model_why ? pg->model_why : "no reason given");
    else if (pg->model && flag)
        st = attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CR_PAGE_MODEL_DROP,
                          pg->id, pg->model_name, flag);
    else if (pg->hf_name && flag)
        st = attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CR_PAGE_HF_DROP,
                          pg->id, pg->hf_name, flag);
    else if (pg->hf_name) { // a real model's page: cli_hf_run_page, with the folder when it was found
        mo->model.hf_dir = pg->hf_path;
        if (!mo->sentence && !mo->sentence_file) mo->sentence = pg->sentence;
        if (mo->explain && pg->hf_path) st = cli_hf_parse_explain(&mo->model, mo->explain_spec, err);
        *keep = l;
        return st;
    } else if (mo->model.print_name && o_print_is_hf(mo))
        st = attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CR_PAGE_NO_HF,
                          mo->model.print_name, pg->id);
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
    if (o->model.hf_dir) return cli_hf_run(o, out, errf);
    attn_err err;
    attn_err_clear(&err);
    cli_opts page = *o;
    const lesson *keep = NULL;
    if (o->lesson_path) {
        attn_status st = model_page(&page, &keep, &err);
        int hf_page = st == ATTN_OK ? lesson_find_page(keep, o->page_id ? o->page_id : lesson_page_at(keep, 0)->id) : -1;
        const lesson_page *hpg = hf_page >= 0 ? lesson_page_at(keep, hf_page) : NULL;
        if (hpg && hpg->hf_name) { // @hf: the page's text and its real model
            bool zh = o->lang ? strcmp(o->lang, "zh") == 0 : strncmp(lesson_lang(keep), "zh", 2) == 0;
            page.lesson_path = page.page_id = NULL;
            int code = cli_hf_run_page(&page, hpg, zh, out, errf);
            lesson_free((lesson *)keep);
            return cli_finish_output(out, "standard output", errf, code);
        }
        int code = st != ATTN_OK ? 1 : page.model.model_path ? cli_model_run(&page, true, out, errf)
                                                             : -1;
        if (st != ATTN_OK) cli_print_err(o, errf, &err);
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
    if (st != ATTN_OK) cli_print_err(o, errf, &err);
    cli_state_free(&r);
    return cli_finish_output(out, "standard output", errf, st == ATTN_OK ? 0 : 1);
}

void cli_state_free(cli_state *r) {
    if (!r) return;
    attn_trace_free(&r->trace);
    attn_decode_free(&r->decode);
    attn_weights_file_free(&r->file);
    lesson_free(r->lesson);
    free(r->sentence_buf);
    memset(r, 0, sizeof *r);
}
