/* export.c — the batch driver: checks the job, names the files, writes every
 * format of every item into the staging folder, then the handout and the
 * index, and renames the lot into place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_steps.h"
#include "export.h"
#include "export_internal.h"

#define MAX_PIXELS (64L << 20) /* per image: 8192×8192 and more is refused */

/* One export in progress. */
typedef struct {
    export_opts o; /* with defaults filled in */
    const viz_strings *ui;
    viz_fonts *fonts;
    ex_stage st;
    viz_list list;
    attn_strbuf index, handout;
    ex_handout html; /* handout.html's sections so far */
} job;

/* ---- checks ---- */

static bool valid_id(const char *id) {
    if (!*id) return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            return false;
    return true;
}

static attn_status check_opts(const export_opts *o, viz_fonts *fonts, attn_err *err) {
    if (!o->dir || !*o->dir) return attn_fail(err, ATTN_ERR_RANGE, "Say which folder to export to (--export-dir DIR).");
    if (!(o->formats & EXPORT_ALL_FORMATS)) return attn_fail(err, ATTN_ERR_RANGE, "--format needs at least one of png, svg, csv, tex, md, html.");
    if (o->pixel_scale < 1 || o->pixel_scale > EXPORT_MAX_SCALE)
        return attn_fail(err, ATTN_ERR_RANGE, "--pixel-scale must be 1, 2 or 3 (got %d).", o->pixel_scale);
    if (o->width < EXPORT_MIN_SIZE || o->width > EXPORT_MAX_SIZE || o->height < EXPORT_MIN_SIZE || o->height > EXPORT_MAX_SIZE)
        return attn_fail(err, ATTN_ERR_RANGE, "--size must be from %d to %d pixels each way (got %dx%d).",
                         EXPORT_MIN_SIZE, EXPORT_MAX_SIZE, o->width, o->height);
    long s = o->pixel_scale;
    if ((long)o->width * s * o->height * s > MAX_PIXELS)
        return attn_fail(err, ATTN_ERR_RANGE, "%dx%d at pixel scale %ld would be %ld million pixels per image; "
                                              "attnviz makes at most %ld million. Use a smaller --size or --pixel-scale.",
                         o->width, o->height,
                         s, (long)o->width * s * o->height * s >> 20, MAX_PIXELS >> 20);
    if (!(o->ui_scale >= 0.5f && o->ui_scale <= 4.0f))
        return attn_fail(err, ATTN_ERR_RANGE, "The UI scale of an export must be from 0.5 to 4.");
    if (o->theme < 0 || o->theme >= VIZ_THEME_COUNT || o->lang < 0 || o->lang >= VIZ_LANG_COUNT)
        return attn_fail(err, ATTN_ERR_RANGE, "Unknown theme or language for the export.");
    if ((o->formats & (EXPORT_PNG | EXPORT_SVG | EXPORT_HTML)) && !fonts)
        return attn_fail(err, ATTN_ERR_RANGE, "PNG, SVG and HTML figures need the fonts, which are not open.");
    return ATTN_OK;
}

static attn_status check_items(const export_item *items, int n, attn_err *err) {
    if (n <= 0 || !items) return attn_fail(err, ATTN_ERR_RANGE, "There is nothing to export: no step or page was chosen.");
    for (int i = 0; i < n; i++) {
        const export_item *it = &items[i];
        if (!it->trace || it->trace->n <= 0) return attn_fail(err, ATTN_ERR_RANGE, "Item %d of the export has no computed sentence.", i + 1);
        if (it->step < 0 || it->step >= ATTN_STEP_COUNT) return attn_fail(err, ATTN_ERR_RANGE, "Item %d of the export has no step 1–8.", i + 1);
        if ((it->readout || it->backward) && (!it->model || !it->run))
            return attn_fail(err, ATTN_ERR_RANGE, "Item %d of the export shows a model's readout or backward pass "
                                                  "without a model.",
                             i + 1);
        if (it->id && !valid_id(it->id))
            return attn_fail(err, ATTN_ERR_RANGE, "The page id \"%s\" cannot name a file: use letters, digits, _ and -.", it->id);
    }
    return ATTN_OK;
}

/* ---- naming and commands ---- */

static void steps_list(attn_strbuf *b, unsigned steps) {
    bool first = true;
    for (int s = 0; s <= ATTN_STEP_COUNT; s++) // 9: the readout
        if (steps & (1u << s)) {
            attn_sb_printf(b, "%s%s", first ? "" : ",", s == ATTN_STEP_COUNT ? "9" : attn_step_key((attn_step)s));
            first = false;
        }
}

/* The command that makes these formats again: the caller's prefix plus the
 * export flags (visual ones only where they change the files). */
static void command(attn_strbuf *b, const export_opts *o, unsigned formats, const char *remake) {
    attn_sb_puts(b, o->command_prefix ? o->command_prefix : "attnviz --headless");
    attn_sb_puts(b, " --export-dir ");
    attn_sb_shell_word(b, o->dir);
    attn_sb_puts(b, " --format ");
    ex_format_list(b, formats);
    if (remake) {
        attn_sb_printf(b, " %s", remake);
    } else if ((o->steps & EXPORT_ALL_STEPS) != EXPORT_ALL_STEPS ||
               ((o->steps & EXPORT_STEP_READOUT) == 0 && o->origin.kind == VIZ_FROM_MODEL)) {
        attn_sb_puts(b, " --steps ");
        steps_list(b, o->steps);
    }
    if (formats & (EXPORT_PNG | EXPORT_SVG | EXPORT_MD | EXPORT_HTML)) {
        attn_sb_printf(b, " --pixel-scale %d --size %dx%d --theme %s --view %s%s", o->pixel_scale, o->width,
                       o->height, viz_theme_name(o->theme), o->view == EXPORT_VIEW_WINDOW ? "window" : "figure",
                       o->caption ? " --caption" : "");
        if (o->ui_scale != 1.0f) {
            attn_sb_puts(b, " --ui-scale ");
            ex_num(b, o->ui_scale);
        }
    }
    if (o->lang == VIZ_LANG_ZH) attn_sb_puts(b, " --lang zh");
}

/* "Files: `a`, `b`" then the command making them, in the index. */
static void index_files(job *j, int first, const char *ext, unsigned format, const char *remake, const char *note) {
    bool any = false;
    for (int i = first; i < j->st.n; i++) {
        const char *name = j->st.names[i], *dot = strrchr(name, '.');
        if (!dot || strcmp(dot + 1, ext) != 0) continue;
        attn_sb_puts(&j->index, any ? ", " : "");
        ex_md_code(&j->index, name);
        any = true;
    }
    if (!any) return;
    attn_strbuf cmd;
    attn_sb_init(&cmd);
    command(&cmd, &j->o, format, remake);
    attn_sb_printf(&j->index, "%s:\n\n", note ? note : "");
    ex_md_block(&j->index, "sh", cmd.data ? cmd.data : "");
    attn_sb_puts(&j->index, "\n");
    attn_sb_free(&cmd);
}

/* ---- one item ---- */

static attn_status write_text(job *j, const char *name, char *text, attn_err *err) {
    if (!text) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to write %s.", name);
    attn_status st = ex_stage_write(&j->st, name, text, strlen(text), err);
    free(text);
    return st;
}

static attn_status write_png(job *j, const export_item *it, const char *name, attn_err *err) {
    int s = j->o.pixel_scale;
    if (!export_build_list(&j->list, &j->o, it, j->ui, j->fonts, s))
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to draw %s.", name);
    SDL_Surface *surf = viz_sdl_render_surface(j->fonts, &j->list, j->o.width * s, j->o.height * s,
                                               viz_theme_get(j->o.theme)->bg);
    if (!surf) return attn_fail(err, ATTN_ERR_IO, "Cannot draw %s: %s.", name, SDL_GetError());
    attn_status st = ex_stage_png(&j->st, name, surf, err);
    SDL_FreeSurface(surf);
    return st;
}

/* SVG is vector: always the scale-1 list, so its layout is the 1× figure's. */
static attn_status write_svg(job *j, const export_item *it, const char *name, attn_err *err) {
    if (!export_build_list(&j->list, &j->o, it, j->ui, j->fonts, 1))
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to draw %s.", name);
    return write_text(j, name, export_svg(&j->list, j->o.width, j->o.height), err);
}

/* One file per matrix of the item, every head: NN-<id>-<M>[-headH].csv
 * and, for LaTeX, .tex snippets to \input. */
static attn_status write_matrices(job *j, const export_item *it, const char *stem, attn_err *err) {
    export_matrix ms[EXPORT_MAX_MATRICES];
    int n = export_item_matrices(it, -1, ms, EXPORT_MAX_MATRICES);
    attn_status st = ATTN_OK;
    char name[256];
    for (int i = 0; i < n && st == ATTN_OK; i++) {
        if (ms[i].head >= 0) snprintf(name, sizeof name, "%s-%s-head%d", stem, ms[i].name, ms[i].head + 1);
        else snprintf(name, sizeof name, "%s-%s", stem, ms[i].name);
        size_t len = strlen(name);
        snprintf(name + len, sizeof name - len, ".csv");
        if (j->o.formats & EXPORT_CSV) st = write_text(j, name, ex_csv_named(it->trace, &ms[i], it->feature_names, &it->names), err);
        snprintf(name + len, sizeof name - len, ".tex");
        if (st == ATTN_OK && (j->o.formats & EXPORT_TEX)) st = write_text(j, name, export_tex_snippet(&ms[i]), err);
    }
    return st;
}

/* The item's title and text: the page's, else the step's name and hint. */
static const char *item_title(const job *j, const export_item *it) {
    if (it->title) return it->title;
    return ex_str(j->ui, j->o.lang, it->readout ? VIZ_S_STEP_READOUT : (viz_str)(VIZ_S_STEP_1 + it->step));
}

/* buf (cap bytes): where a hint with the run's values is filled in (step 2b's base). */
static const char *item_text(const job *j, const export_item *it, char *buf, size_t cap) {
    if (it->text) return it->text;
    viz_str backward = model_step_grad(it->step) == MODEL_ST_D_WEIGHTS ? VIZ_S_HINT_BACKWARD_SOFTMAX
                                                                       : VIZ_S_HINT_BACKWARD; // ∂L/∂A, or ∂L/∂T
    if (it->readout || it->backward) return ex_str(j->ui, j->o.lang, it->readout ? VIZ_S_HINT_READOUT : backward);
    return viz_step_hint(buf, cap, j->ui ? j->ui->s[j->o.lang] : NULL, it->step, &it->trace->cfg);
}

static void index_item_head(job *j, const export_item *it, const char *stem, const char *badge) {
    attn_strbuf *b = &j->index;
    attn_sb_printf(b, "## %s — ", stem);
    ex_md_line(b, item_title(j, it));
    attn_sb_printf(b, "\n\n- Step: %s, head %d shown\n", it->readout ? "9" : attn_step_key(it->step),
                   (it->head >= 0 && it->head < it->trace->cfg.heads ? it->head : 0) + 1);
    if (it->model) { // which layer of which model, and what the gradients are of
        attn_sb_puts(b, "- Model: ");
        ex_md_line(b, it->model->task);
        attn_sb_printf(b, ", layer %d of %d%s\n", it->layer + 1, it->model->cfg.layers,
                       it->backward ? ", with the backward pass" : "");
        attn_sb_puts(b, "- Targets:");
        for (int k = 0; k < it->run->n_targets; k++) {
            int ans = it->run->targets[k].target;
            bool ptr = it->model->cfg.objective == MODEL_OBJ_POINTER;
            char target[160]; // a vocabulary word may hold a backtick: a fence longer than its runs
            snprintf(target, sizeof target, "%d:%s", it->run->targets[k].row, it->model->vocab[ptr ? it->run->ids[ans] : ans]);
            ex_utf8_trim(target);
            attn_sb_puts(b, " ");
            ex_md_code(b, target);
        }
        attn_sb_printf(b, " (%s)\n", it->target == VIZ_TARGET_TASK ? "the task's own answers" : it->target == VIZ_TARGET_GIVEN ? "given with --target"
                                                                                                                               : "the model's prediction");
    }
    attn_sb_puts(b, "- Sentence: ");
    ex_md_code(b, it->trace->tokens.text);
    attn_sb_puts(b, "\n- Configuration: ");
    attn_strbuf cfg;
    attn_sb_init(&cfg);
    ex_item_config_text(&cfg, it);
    ex_md_code(b, cfg.data ? cfg.data : "");
    attn_sb_free(&cfg);
    attn_sb_printf(b, "\n- Seed: %lu\n- Weights: ", (unsigned long)it->trace->cfg.seed);
    ex_md_line(b, badge); // it names files and models
    attn_sb_puts(b, "\n\n");
}

/* The decode view's item after its PNG and SVG: its per-token record as CSV
 * (one row per token: what it computed and what the cache holds), and its
 * lines in the index. */
static attn_status write_decode_rest(job *j, const export_item *it, const char *stem, int number, int first,
                                     attn_status st, attn_err *err) {
    const attn_decode *d = it->decode;
    char name[200], badge[320], size[64];
    if (st == ATTN_OK && (j->o.formats & EXPORT_CSV)) {
        attn_strbuf b;
        attn_sb_init(&b);
        attn_sb_puts(&b, "token,word,cache_len,cells,cells_read,macs,macs_total,full_macs,full_total,cache_bytes,"
                         "real_bytes\n");
        for (int t = 0; t < d->n; t++) {
            const attn_decode_step *k = &d->step[t];
            int len;
            const char *tok = attn_token_text(&it->trace->tokens, t, &len);
            char word[ATTN_MAX_SENTENCE_BYTES < 512 ? ATTN_MAX_SENTENCE_BYTES : 512];
            snprintf(word, sizeof word, "%.*s", len, tok);
            attn_sb_printf(&b, "%d,", t);
            export_csv_field(&b, word);
            attn_sb_printf(&b, ",%d,%d,%d,%lld,%lld,%lld,%lld,%lld,%lld\n", k->cache_len, k->cells, k->cells_read,
                           k->macs, k->macs_total, k->full_macs, k->full_total, k->cache_bytes, k->real_bytes);
        }
        snprintf(name, sizeof name, "%s.csv", stem);
        st = write_text(j, name, attn_sb_take(&b), err);
    }
    if (st == ATTN_OK && (j->o.formats & EXPORT_TEX)) {
        snprintf(name, sizeof name, "%s.tex", stem);
        st = write_text(j, name, export_tex_decode(it, item_title(j, it), j->ui, j->o.lang), err);
    }
    if (st == ATTN_OK && (j->o.formats & EXPORT_HTML)) {
        st = export_build_list(&j->list, &j->o, it, j->ui, j->fonts, 1)
                 ? ex_html_write_decode(&j->st, &j->html, &j->o, it, number, stem, item_title(j, it), &j->list, j->ui,
                                        j->fonts, err)
                 : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to draw %s.html.", stem);
    }
    if (st != ATTN_OK) return st;
    ex_badge(badge, sizeof badge, &j->o, j->ui, it);
    index_item_head(j, it, stem, badge);
    snprintf(size, sizeof size, " (%d×%d px)", j->o.width * j->o.pixel_scale, j->o.height * j->o.pixel_scale);
    index_files(j, first, "png", EXPORT_PNG, it->remake_flags, size);
    index_files(j, first, "svg", EXPORT_SVG, it->remake_flags, NULL);
    index_files(j, first, "csv", EXPORT_CSV, it->remake_flags, NULL);
    index_files(j, first, "tex", EXPORT_TEX, it->remake_flags, NULL);
    index_files(j, first, "html", EXPORT_HTML, it->remake_flags, NULL);
    return ATTN_OK;
}

/* A step of the tiles view as CSV: per query row of the block its token, m,
 * l and O before and after the step (empty m where it is still −∞). */
static char *tiles_csv(const export_item *it) {
    const attn_tiles *tl = it->tiles;
    const attn_tile_step *st = &tl->steps[it->tiles_step];
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_printf(&b, "# step %d of %d, B = %d: query rows %d-%d, key columns %d-%d%s\nrow,token,m_before,m,l_before,l",
                   it->tiles_step + 1, tl->count, tl->b, st->r0, st->r1 - 1, st->c0, st->c1 - 1,
                   st->skipped ? " (skipped: the mask hides the block)" : "");
    for (int c = 0; c < tl->d; c++) attn_sb_printf(&b, ",O_before_%d", c);
    for (int c = 0; c < tl->d; c++) attn_sb_printf(&b, ",O_%d", c);
    attn_sb_puts(&b, "\n");
    for (int r = 0; r < st->r1 - st->r0; r++) {
        int len;
        const char *tok = attn_token_text(&it->trace->tokens, st->r0 + r, &len);
        attn_sb_printf(&b, "%d,\"", st->r0 + r);
        for (int k = 0; k < len; k++) attn_sb_printf(&b, tok[k] == '"' ? "\"\"" : "%c", tok[k]);
        attn_sb_puts(&b, "\"");
        const double v[4] = {st->m_old[r], st->m[r], st->l_old[r], st->l[r]};
        for (int k = 0; k < 4; k++) {
            attn_sb_puts(&b, ",");
            if (v[k] != -INFINITY) attn_sb_number(&b, v[k]);
        }
        for (int c = 0; c < tl->d; c++) attn_sb_puts(&b, ","), attn_sb_number(&b, st->o_old[(size_t)r * tl->d + c]);
        for (int c = 0; c < tl->d; c++) attn_sb_puts(&b, ","), attn_sb_number(&b, st->o[(size_t)r * tl->d + c]);
        attn_sb_puts(&b, "\n");
    }
    return attn_sb_take(&b);
}

static attn_status write_item(job *j, const export_item *it, int pos, attn_err *err) {
    const export_opts *o = &j->o;
    char stem[160], name[200], badge[320], size[64], hint[2048];
    int first = j->st.n;
    attn_status st = ATTN_OK;
    int number = it->number > 0 ? it->number : pos + 1;
    // NN has two digits at least: a page keeps its name when exported alone
    const char *key = attn_step_key(it->step), *sub = key; // a sub-step's letter: 02b-rope
    while (*sub >= '0' && *sub <= '9') sub++;
    if (it->page || it->title || it->readout || it->id || number != atoi(key)) sub = "";
    snprintf(stem, sizeof stem, "%s%02d%s-%s", it->prefix ? it->prefix : "", number, sub, it->id ? it->id : attn_step_slug(it->step));
    snprintf(name, sizeof name, "%s.png", stem);
    if (o->formats & EXPORT_PNG) st = write_png(j, it, name, err);
    snprintf(name, sizeof name, "%s.svg", stem);
    if (st == ATTN_OK && (o->formats & EXPORT_SVG)) st = write_svg(j, it, name, err);
    snprintf(name, sizeof name, "%s.csv", stem);
    if (st == ATTN_OK && it->tiles && (o->formats & EXPORT_CSV)) st = write_text(j, name, tiles_csv(it), err);
    if (it->decode) return write_decode_rest(j, it, stem, number, first, st, err);
    snprintf(name, sizeof name, "%s.tex", stem);
    if (st == ATTN_OK && (o->formats & EXPORT_TEX))
        st = write_text(j, name, it->tiles ? export_tex_tiles(it, item_title(j, it), j->ui, o->lang) : export_tex_document(it, item_title(j, it), j->ui, o->lang), err);
    if (st == ATTN_OK && !it->tiles && (o->formats & (EXPORT_CSV | EXPORT_TEX))) st = write_matrices(j, it, stem, err);
    if (st == ATTN_OK && it->tiles && (o->formats & EXPORT_HTML)) // the step's own page: words, drawing, rows
        st = export_build_list(&j->list, o, it, j->ui, j->fonts, 1)
                 ? ex_html_write_tiles(&j->st, &j->html, o, it, number, stem, item_title(j, it), &j->list, j->ui,
                                       j->fonts, err)
                 : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to draw %s.html.", stem);
    else if (st == ATTN_OK && (o->formats & EXPORT_HTML))
        st = ex_html_write(&j->st, &j->html, o, it, number, stem, item_title(j, it), item_text(j, it, hint, sizeof hint), j->ui, j->fonts,
                           err);
    if (st != ATTN_OK) return st;
    ex_badge(badge, sizeof badge, o, j->ui, it);
    index_item_head(j, it, stem, badge);
    snprintf(size, sizeof size, " (%d×%d px)", o->width * o->pixel_scale, o->height * o->pixel_scale);
    index_files(j, first, "png", EXPORT_PNG, it->remake_flags, size);
    index_files(j, first, "svg", EXPORT_SVG, it->remake_flags, NULL);
    index_files(j, first, "csv", EXPORT_CSV, it->remake_flags, NULL);
    index_files(j, first, "tex", EXPORT_TEX, it->remake_flags, NULL);
    index_files(j, first, "html", EXPORT_HTML, it->remake_flags, NULL);
    if (o->formats & EXPORT_MD) {
        snprintf(name, sizeof name, "%s.%s", stem, (o->formats & EXPORT_PNG) ? "png" : "svg");
        ex_md_page(&j->handout, it, number, item_title(j, it), item_text(j, it, hint, sizeof hint), name,
                   it->id ? ex_str(j->ui, j->o.lang, VIZ_S_HANDOUT_PAGE) : NULL);
    }
    return ATTN_OK;
}

/* ---- the batch ---- */

/* "- Weights file: `f`, SHA-256 `…`": the hash of the bytes that were read
 * (the file is not read again: from a pipe there would be nothing left). */
static void index_hash(attn_strbuf *b, const char *what, const char *path, const char *sha256) {
    attn_sb_printf(b, "- %s: ", what);
    ex_md_code(b, path);
    if (sha256) attn_sb_printf(b, ", SHA-256 `%s`", sha256);
    attn_sb_puts(b, "\n");
}

static void index_begin(job *j) {
    attn_strbuf *b = &j->index;
    attn_sb_puts(b, "# ");
    ex_md_line(b, j->o.title ? j->o.title : "attnviz export");
    attn_sb_printf(b, "\n\nMade by attnviz %s. Each file below is made again by the command under it, run "
                      "from the folder the export was run from. Everything in this folder:\n\n",
                   ATTN_VERSION);
    attn_strbuf cmd;
    attn_sb_init(&cmd);
    command(&cmd, &j->o, j->o.formats, NULL);
    ex_md_block(b, "sh", cmd.data ? cmd.data : "");
    attn_sb_free(&cmd);
    attn_sb_puts(b, "\n");
    if (j->o.weights_path) index_hash(b, "Weights file", j->o.weights_path, j->o.weights_sha256);
    if (j->o.lesson_path) index_hash(b, "Lesson file", j->o.lesson_path, j->o.lesson_sha256);
    if (j->o.weights_path || j->o.lesson_path) attn_sb_puts(b, "\n");
}

static attn_status finish(job *j, attn_err *err) {
    attn_status st = ATTN_OK;
    if (j->o.formats & EXPORT_MD) {
        int first = j->st.n;
        st = ex_stage_write(&j->st, "handout.md", j->handout.data ? j->handout.data : "", j->handout.len, err);
        attn_sb_puts(&j->index, "## handout.md\n\nEvery page with its text and figure.\n\n");
        index_files(j, first, "md", EXPORT_MD, NULL, NULL);
    }
    if (st == ATTN_OK && (j->o.formats & EXPORT_HTML)) {
        int first = j->st.n;
        st = ex_html_handout(&j->st, &j->html, &j->o, j->o.title ? j->o.title : "attnviz", err);
        attn_sb_printf(&j->index, "## handout.html\n\nEvery page in order, each figure interactive");
        if (j->html.over) // say why the pages are framed
            attn_sb_printf(&j->index, " (each page in an iframe: the figures together are over %zu KiB)",
                           ex_handout_budget >> 10);
        attn_sb_puts(&j->index, ".\n\n");
        index_files(j, first, "html", EXPORT_HTML, NULL, NULL);
    }
    if (!attn_sb_ok(&j->index) || !attn_sb_ok(&j->handout))
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to write the index.");
    if (st == ATTN_OK) st = ex_stage_write(&j->st, "index.md", j->index.data, j->index.len, err);
    if (st == ATTN_OK) st = ex_stage_commit(&j->st, err);
    return st;
}

static void job_init(job *j, const export_opts *o, const viz_strings *ui, viz_fonts *fonts) {
    memset(j, 0, sizeof *j);
    j->o = *o;
    if (j->o.width == 0 && j->o.height == 0) {
        j->o.width = 1280;
        j->o.height = 800;
    }
    if (j->o.pixel_scale == 0) j->o.pixel_scale = 1;
    if (j->o.ui_scale == 0) j->o.ui_scale = 1.0f;
    if ((j->o.formats & EXPORT_MD) && !(j->o.formats & (EXPORT_PNG | EXPORT_SVG)))
        j->o.formats |= EXPORT_PNG; // a handout needs its figures
    j->ui = ui;
    j->fonts = fonts;
    attn_sb_init(&j->index);
    attn_sb_init(&j->handout);
    memset(&j->html, 0, sizeof j->html);
}

static void job_free(job *j) {
    ex_stage_abort(&j->st); // after a commit only the bookkeeping is left
    viz_free(&j->list);
    attn_sb_free(&j->index);
    attn_sb_free(&j->handout);
    ex_handout_free(&j->html);
}

attn_status export_run(const export_opts *o, const export_item *items, int n_items, const viz_strings *ui,
                       viz_fonts *fonts, attn_err *err) {
    job j;
    job_init(&j, o, ui, fonts);
    attn_status st = check_opts(&j.o, fonts, err);
    if (st == ATTN_OK) st = check_items(items, n_items, err);
    if (st == ATTN_OK) index_begin(&j);
    if (st == ATTN_OK) st = ex_stage_open(&j.st, j.o.dir, err);
    if (st == ATTN_OK && (j.o.formats & EXPORT_MD)) {
        attn_sb_puts(&j.handout, "# ");
        ex_md_line(&j.handout, j.o.title ? j.o.title : "attnviz");
        attn_sb_puts(&j.handout, "\n\n");
    }
    for (int i = 0; st == ATTN_OK && i < n_items; i++) st = write_item(&j, &items[i], i, err);
    if (st == ATTN_OK) st = finish(&j, err);
    job_free(&j);
    return st;
}

attn_status export_sentence_tiles(const export_opts *o, const attn_trace *t, int head, int query,
                                  const attn_tiles *tiles, const viz_strings *ui, viz_fonts *fonts, attn_err *err) {
    if (!t) return attn_fail(err, ATTN_ERR_RANGE, "There is no computed sentence to export.");
    export_item *items = calloc((size_t)ATTN_STEP_COUNT + (size_t)tiles->count, sizeof *items);
    char(*ids)[40] = calloc((size_t)tiles->count + 1, sizeof *ids);
    char(*titles)[256] = calloc((size_t)tiles->count + 1, sizeof *titles);
    if (!items || !ids || !titles) {
        free(items), free(ids), free(titles);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the export.");
    }
    int n = export_items_for_trace(items, t, o->steps, head, query);
    for (int i = 0; i < tiles->count; i++) { // then every step of the tiles view, numbered on
        export_item *it = &items[n + i];
        *it = items[0];
        it->step = ATTN_STEP_SOFTMAX;
        it->number = ATTN_STEP_NUMBERED + 1 + i;
        snprintf(ids[i], sizeof ids[i], "tiles-b%d-step%02d", tiles->b, i + 1);
        char what[200]; // in the export's language: the view's own title, then the step
        snprintf(what, sizeof what, ex_str(ui, o->lang, VIZ_S_TILES_TITLE), head + 1, tiles->b < tiles->n ? tiles->b : tiles->n);
        snprintf(titles[i], sizeof titles[i], "%s · %d / %d", what, i + 1, tiles->count);
        it->id = ids[i], it->title = titles[i], it->text = "", it->remake_flags = NULL, it->page = NULL;
        it->tiles = tiles, it->tiles_step = i;
    }
    n += tiles->count;
    for (int i = 0; i < n; i++) items[i].origin = o->origin;
    attn_status st = export_run(o, items, n, ui, fonts, err);
    free(items), free(ids), free(titles);
    return st;
}

attn_status export_sentence(const export_opts *o, const attn_trace *t, int head, int query, const viz_strings *ui,
                            viz_fonts *fonts, attn_err *err) {
    return export_sentence_decode(o, t, NULL, head, query, ui, fonts, err);
}

attn_status export_sentence_decode(const export_opts *o, const attn_trace *t, const attn_decode *d, int head, int query,
                                   const viz_strings *ui, viz_fonts *fonts, attn_err *err) {
    export_item items[ATTN_STEP_COUNT + 1];
    if (!t) return attn_fail(err, ATTN_ERR_RANGE, "There is no computed sentence to export.");
    int n = export_items_for_trace(items, t, o->steps, head, query);
    if (d) { // the decode view after the steps: 09-decode
        items[n] = items[n ? n - 1 : 0];
        memset(&items[n], 0, sizeof items[n]);
        items[n].trace = t;
        items[n].step = ATTN_STEP_SOFTMAX;
        items[n].number = ATTN_STEP_NUMBERED + 1;
        items[n].head = head;
        items[n].query = query;
        items[n].id = "decode";
        items[n].title = ex_str(ui, o->lang, VIZ_S_DECODE_NARRATIVE);
        items[n].remake_flags = NULL; // no flag makes it alone: the batch again
        items[n].mark = (viz_mark){VIZ_MARK_NONE, -1, -1};
        items[n].decode = d;
        n++;
    }
    for (int i = 0; i < n; i++) items[i].origin = o->origin;
    return export_run(o, items, n, ui, fonts, err);
}
