/* viz_lesson.h — a lesson page's {references} in the words and numbers the
 * window shows: what the narrative and the handout print in their place. */
#ifndef VIZ_LESSON_H
#define VIZ_LESSON_H

#include <stddef.h>

#include "attn.h"
#include "lesson.h"
#include "strbuf.h"
#include "viz_scene.h"

/* Writes what r refers to, computed on t (and alt: the page's comparison
 * view, or NULL), into out (cap bytes, NUL-terminated), in the words of ui
 * (VIZ_STR_COUNT strings of one language): "3 · Scores QKᵀ", a cell as the
 * figure shows it ("0.81", "−∞"), "1156". A token r names that the sentence
 * no longer has (after an edit) gives "—". Returns the bytes written. */
size_t viz_lesson_ref(char *out, size_t cap, const lesson_ref *r, const attn_trace *t, const attn_trace *alt,
                      const char *const *ui);

/* What a page's @highlight points at in t (tokens found by their text, so an
 * edited sentence keeps the mark where it can): NONE for a row (the query
 * shows it) or a token that is gone. */
viz_mark viz_lesson_mark(const lesson_highlight *hl, const attn_tokens *t);

/* Page pg's text as the window's narrative shows it, appended to b:
 * paragraphs split by blank lines, list items after "• ", code blocks line by
 * line after VIZ_CODE_MARK, each {reference} computed on t (and alt) in the
 * words of ui; without the text after the page's @reveal while asked (the
 * question is still open). */
void viz_lesson_narrative(attn_strbuf *b, const lesson_page *pg, bool asked, const attn_trace *t,
                          const attn_trace *alt, const char *const *ui);

/* The names page i of l gives the columns of t's matrices (only those t was
 * given by the lesson's design) and the labels the page keeps, into out. */
void viz_lesson_names(viz_names *out, const lesson *l, int i, const attn_trace *t);

#endif
