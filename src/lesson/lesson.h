/* lesson.h — lessons: plain-text files of pages that walk a learner through
 * self-attention, each page with narrative text and directives that set up
 * the live figure (sentence, configuration, step, highlight, a question, a
 * split view). lessons/README.md documents the format for teachers.
 *
 * Ownership: lesson_parse / lesson_load allocate one lesson that owns every
 * string, page, paragraph, vocabulary word and matrix reachable from it.
 * Everything the accessors return is borrowed and lives until lesson_free.
 * Nothing here prints, exits or uses SDL; errors come back as attn_status with
 * the message "file:line:column: message" (lines and columns count from 1,
 * columns in characters).
 *
 * A page may name a trained model (@model: FILE). The parser knows no model:
 * it records the name and asks a lesson_model_source (below) to find, read
 * and describe it; src/page is the one that does, for the app, the CLI and
 * exports (page_lesson_load). Parsed without a source, a @model page says its
 * model was not read.
 *
 * Layer 3 (src/lesson): includes src/util and src/core, nothing of src/model. */
#ifndef ATTN_LESSON_H
#define ATTN_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"
#include "attn_err.h"
#include "lesson_types.h"

/* ---- parsing ------------------------------------------------------------ */

/* Parses a whole lesson (text of len bytes; filename is used in messages).
 * On success *out owns the lesson. On error *out is NULL and err holds the
 * first error in file order as "file:line:column: message"
 * (ATTN_ERR_PARSE; ATTN_ERR_NOMEM when memory ran out). */
attn_status lesson_parse(lesson **out, const char *text, size_t len, const char *filename, attn_err *err);

/* The same, with models (NULL: none; the source must outlive the lesson). */
attn_status lesson_parse_with(lesson **out, const char *text, size_t len, const char *filename,
                              const lesson_model_source *models, attn_err *err);

/* Reads path (at most LESSON_MAX_BYTES) and parses it with models (may be
 * NULL); errors as above, or ATTN_ERR_IO when the file cannot be read. */
attn_status lesson_load(lesson **out, const char *path, const lesson_model_source *models, attn_err *err);

/* Checks a lesson and collects every error (up to LESSON_MAX_ERRORS), in file
 * order. Returns the number of errors listed (0: valid). *report gets a
 * malloc'd text with one "file:line:column: message\n" line per error — and,
 * when more were found than listed, a last line saying how many more from
 * where — or NULL when there is none (or memory ran out: the count is still
 * right). *n_pages (may be NULL) gets the page count of a valid lesson, else 0. */
int lesson_check(const char *text, size_t len, const char *filename, char **report, int *n_pages);

/* The same with models (may be NULL): a model that cannot be read is an error. */
int lesson_check_with(const char *text, size_t len, const char *filename, const lesson_model_source *models,
                      char **report, int *n_pages);

/* Frees l and everything it owns. NULL is a no-op. */
void lesson_free(lesson *l);

/* ---- the lesson --------------------------------------------------------- */

const char *lesson_id(const lesson *l);
const char *lesson_title(const lesson *l);
const char *lesson_lang(const lesson *l);   /* as written after "lang:", e.g. "zh" */
const char *lesson_sha256(const lesson *l); /* hex SHA-256 of the bytes it was parsed from */
int lesson_page_count(const lesson *l);
const lesson_page *lesson_page_at(const lesson *l, int i); /* NULL when out of range */
int lesson_find_page(const lesson *l, const char *id);     /* index, or -1 */

/* The lesson's vocabulary (features named, one vector per word), or NULL when
 * it has none. Its words also make multi-character tokens (动物, 因为). */
const attn_vocab *lesson_vocab(const lesson *l);

/* Fills *out with the designed matrices of page i that fit cfg (a page's own
 * @weights first, then the lesson's; with @random-weights and a gain other
 * than 1, the seeded random weights times the gain when cfg's seed and sizes
 * are the page's). Matrices that are not designed or do not fit stay NULL, so
 * attn_trace_run draws them at random. Pointers are borrowed from l. Returns
 * how many matrices were filled in. */
int lesson_page_weights(const lesson *l, int i, const attn_config *cfg, attn_weights *out);

/* The names the lesson gives the columns of the designed matrices that
 * lesson_page_weights picks for page i under cfg (the first line of their
 * @weights blocks): out->mat[m][h] (W_Q's names Q's columns, W_V's V's and
 * Z's), NULL where a matrix is not designed, does not fit or names none.
 * Returns how many are named. */
typedef struct {
    const char *const *mat[ATTN_MAT_COUNT][ATTN_MAX_HEADS];
} lesson_names;
int lesson_page_names(const lesson *l, int i, const attn_config *cfg, lesson_names *out);

/* Runs page i: its sentence (or sentence/len when sentence is not NULL), its
 * configuration, the lesson's vocabulary and the page's weights. *out as for
 * attn_trace_run (zeroed or freed before; free with attn_trace_free). */
attn_status lesson_page_trace(attn_trace *out, const lesson *l, int i, const char *sentence, size_t len,
                              attn_err *err);

/* Runs page i's @compare view (its settings with the @compare's changes),
 * as lesson_page_trace; ATTN_ERR_RANGE when the page compares no settings. */
attn_status lesson_page_compare_trace(attn_trace *out, const lesson *l, int i, attn_err *err);

/* The layer a page's model shows: pg->layer, or the model's last. */
int lesson_page_layer(const lesson_page *pg);

/* Whether paragraph para of pg is shown on a page with @hf, as found (its
 * folder was found, or not): the @missing text only without the folder, a
 * paragraph with a {heads …} reference only with it; every other paragraph
 * as on any page. true on a page without @hf. */
bool lesson_para_hf_shown(const lesson_page *pg, const lesson_para *para, bool found);

/* Index of ref's token in t: ref->index when that token has ref's text, else
 * the first token with that text, else -1. */
int lesson_find_token(const attn_tokens *t, const lesson_tokref *ref);

#endif
