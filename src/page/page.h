/* page.h — a lesson page with its model: the one place that finds the models
 * lessons name (@model: FILE), reads each file once, and runs a page's model
 * for the window, the command line and exports.
 *
 * The lesson parser (src/lesson) records the names; it reaches models only
 * through the lesson_model_source this module hands it. A name is found
 * beside the lesson's file, else as assets/models/NAME under the data roots
 * (datapath.h: the lesson's own tree, then beside the program, then an
 * install).
 *
 * A page may also name a Hugging Face folder (@hf: FOLDER, issue 26): found
 * the same way (the folder beside the lesson, else assets/models/FOLDER under
 * the data roots), or — overriding every @hf, for tests and for a learner
 * whose folder is elsewhere — the folder in the environment variable
 * ATTNVIZ_PAGE_MODEL. page_hf_open runs it and its head finder on the page's
 * sentence; page_hf_ref_text words a {heads …} reference in the caller's words.
 *
 * Layer 4 (src/page): includes src/util, src/core, src/model, src/lesson and src/hf. */
#ifndef ATTN_PAGE_H
#define ATTN_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "hf_heads.h"
#include "hf_model.h"
#include "lesson.h"
#include "model_run.h"

#define PAGE_HF_ENV "ATTNVIZ_PAGE_MODEL" /* a folder every @hf page reads instead of its own */

/* The source of the models lessons name (static; lives as long as the program). */
const lesson_model_source *page_models(void);

/* lesson_parse, lesson_load and lesson_check with the models pages name
 * (page_models); arguments, ownership and errors as there. */
attn_status page_lesson_parse(lesson **out, const char *text, size_t len, const char *filename, attn_err *err);
attn_status page_lesson_load(lesson **out, const char *path, attn_err *err);
int page_lesson_check(const char *text, size_t len, const char *filename, char **report, int *n_pages);

/* The model of pg (borrowed from its lesson: lives until lesson_free), or
 * NULL when the page names none or it was not read. */
const model *page_model(const lesson_page *pg);

/* Runs page i's model on its sentence (or sentence/len when not NULL) with
 * the targets a view shows (model_run_view; query < 0: the pronoun, else
 * the first token). *out as for model_run. ATTN_ERR_RANGE when the page has
 * no model (or it was not read). */
attn_status page_run(model_result *out, const lesson *l, int i, const char *sentence, size_t len, int query,
                     bool *labelled, attn_err *err);

/* ---- a page's real model (@hf) ---------------------------------------------- */

typedef struct {
    hf_model m;
    hf_tokens toks;
    hf_run r;              /* the page's sentence through the model */
    hf_head_score *scores; /* n_layer · n_head: the head finder's (hf_heads.h), layer-major */
    int count, n_head;
} page_hf;

/* Opens pg's folder (pg->hf_path) and runs it and the head finder
 * (HF_INDUCTION_LEN, HF_INDUCTION_SEED) on sentence (len bytes; NULL: the
 * page's). *out is zeroed first; free it with page_hf_free. ATTN_ERR_IO when
 * the page has no folder found; else hf_model_open's, hf_model_tokenize's,
 * hf_forward's errors. */
attn_status page_hf_open(page_hf *out, const lesson_page *pg, const char *sentence, size_t len, attn_err *err);
void page_hf_free(page_hf *h); /* NULL is a no-op */

/* The words of a {heads …} reference, printf formats with these arguments
 * (the strings table's HF_REF_* rows: the table lives in src/render, above
 * this layer, so the caller hands them in). */
typedef struct {
    const char *none; /* threshold, the highest's layer and head, its score: "no head reaches %.2f (…)" */
    const char *pass; /* threshold, the list: "at least %.2f: %s" */
    const char *head; /* layer, head, score: "layer %d head %d (%.2f)" */
    const char *list; /* the list so far, one more head: "%s, %s" */
    const char *more; /* the list, how many more: "%s and %d more" */
} page_hf_words;

/* The English words (the strings table's English), for a caller without the table. */
extern const page_hf_words page_hf_words_en;

/* A {heads SCORE T} reference in w's words (NULL: page_hf_words_en): the
 * heads whose score reaches T, highest first, as "at least 0.50: layer 2
 * head 3 (0.99)" (layers and heads counted from 1, as the window counts
 * them; at most PAGE_HF_NAMED, then how many more); when none does, a
 * sentence that says so and names the highest. Only h's scores, count and
 * n_head are read. Other references, or no scores: "". */
#define PAGE_HF_NAMED 6
void page_hf_ref_text(const page_hf *h, const lesson_ref *ref, const page_hf_words *w, char *out, size_t cap);

#endif
