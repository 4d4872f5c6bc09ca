/* app_internal.h — shared by the files of src/app (not public). */
#ifndef APP_INTERNAL_H
#define APP_INTERNAL_H

#include "app.h"

/* With a model: runs text through it (with the backward pass's target) and,
 * on success, makes the run current; on error nothing changes. */
attn_status app_model_compute(app_state *st, const char *text, attn_err *err);

/* With a model, the previous/next step across layers (step 8 of a layer
 * leads to step 1 of the next, the last layer's to the readout). Returns
 * false when the move stays inside the layer (the caller does it). */
bool app_model_step(app_state *st, int delta);

/* app_model_use, with the sentence to show (not NULL: a lesson page's, and
 * the model is the page's: the lesson's text stays beside it). */
attn_status app_model_show(app_state *st, model *m, app_model_source source, const char *name, const char *sentence,
                           attn_err *err);

/* Frees the model and its run, nothing recomputed (app_free). */
void app_model_close_silently(app_state *st);

/* The lesson page whose text and marks are shown: NULL without a lesson, or
 * while a model the page did not name is in the walkthrough. */
const lesson_page *app_lesson_page_shown(const app_state *st);

#endif
