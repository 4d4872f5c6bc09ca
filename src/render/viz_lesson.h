/* viz_lesson.h — a lesson page's {references} in the words and numbers the
 * window shows: what the narrative and the handout print in their place. */
#ifndef VIZ_LESSON_H
#define VIZ_LESSON_H

#include <stddef.h>

#include "attn.h"
#include "lesson.h"
#include "page.h"
#include "strbuf.h"
#include "viz_scene.h"
#include "viz_strings.h"

/* What a page's {references} are computed on, and worded with. */
typedef struct {
    const attn_trace *trace; /* the page's one layer (a model page: unused, see run) */
    const attn_trace *alt;   /* the page's @compare view, or NULL */
    const model *model;      /* a model page: its model, else NULL */
    const model_result *run; /* and the sentence through it, with the view's targets */
    int layer;               /* a model page: the page's layer (what a reference without layer= is of) */
    const char *const *ui;   /* VIZ_STR_COUNT strings of the text's language */
    const char *sentence;    /* the sentence shown, when it may differ from the page's (an edit), else NULL */
    /* an @hf page: its model's head finder (page_hf_ref_text reads scores, count and n_head; scores NULL
     * while the model computes), and whether its folder was found and read: then the paragraphs naming
     * heads are shown, else the page's @missing text (lesson_para_hf_shown) */
    const page_hf *hf;
    bool hf_found;
} viz_ref_ctx;


/* Writes what r refers to, computed on x, into out (cap bytes,
 * NUL-terminated), in x's words: "3 · Scores QKᵀ", a cell as the figure
 * shows it ("0.81", "−∞"), "1156", a token, a word, "100.0%". A token r
 * names that the sentence no longer has (after an edit) gives "—" (the
 * narrative never shows it: see viz_lesson_narrative). Returns the bytes
 * written. */
size_t viz_lesson_ref(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x);

/* The same; false (and out "—") when r cannot be computed on x. */
bool viz_lesson_ref_ok(char *out, size_t cap, const lesson_ref *r, const viz_ref_ctx *x);

/* The token a role names in the sentence x shows (lesson_role: the pronoun,
 * the referent chosen, the other noun, the predicate, the pronoun's top key
 * in layer (-1: the page's) and head), or -1. */
int viz_lesson_role(const viz_ref_ctx *x, const lesson_tokref *tr, int layer, int head);

/* What a page's @highlight points at in t (tokens found by their text, so an
 * edited sentence keeps the mark where it can): NONE for a row (the query
 * shows it) or a token that is gone. */
viz_mark viz_lesson_mark(const lesson_highlight *hl, const attn_tokens *t);

/* Page pg's text as the window's narrative shows it, appended to b:
 * paragraphs split by blank lines, list items after "• ", code blocks line by
 * line after VIZ_CODE_MARK, each {reference} computed on x; without the text after the page's @reveal while asked (the
 * question is still open). When x shows another sentence than the page's,
 * the @own paragraphs give way to the page's @edited text and a note that R
 * brings them back; so does any paragraph with a reference the sentence
 * cannot answer, so the text never shows "—". An @hf page shows the
 * paragraphs lesson_para_hf_shown allows for x->hf_found. */
void viz_lesson_narrative(attn_strbuf *b, const lesson_page *pg, bool asked, const viz_ref_ctx *x);

/* The names page i of l gives the columns of t's matrices (only those t was
 * given by the lesson's design) and the labels the page keeps, into out. */
void viz_lesson_names(viz_names *out, const lesson *l, int i, const attn_trace *t);

#endif
