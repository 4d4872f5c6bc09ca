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
 * Layer 4 (src/page): includes src/util, src/core, src/model and src/lesson. */
#ifndef ATTN_PAGE_H
#define ATTN_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"
#include "model_run.h"

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

#endif
