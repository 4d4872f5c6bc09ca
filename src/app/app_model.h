/* app_model.h — floor 2 of src/app: a trained model in the walkthrough (its
 * layers, readout and backward pass). Calls down only: app.h. */
#ifndef APP_MODEL_H
#define APP_MODEL_H

#include "app.h"

/* Puts *m into the walkthrough (m's contents are moved: *m is left zeroed,
 * even on error). source and name say where it came from (name: the file
 * as named, for FILE; NULL otherwise). The sentence stays when m's
 * vocabulary reads it, else m's probe is shown. Errors: the probe does not
 * run (the previous view stays). */
attn_status app_model_use(app_state *st, model *m, app_model_source source, const char *name, attn_err *err);
/* app_model_use, with the sentence to show (not NULL: a lesson page's, and
 * the model is the page's: the lesson's text stays beside it). */
attn_status app_model_show(app_state *st, model *m, app_model_source source, const char *name, const char *sentence,
                           attn_err *err);
/* Reads a model file (model_file.h) and puts it into the walkthrough. */
attn_status app_model_open(app_state *st, const char *path, attn_err *err);
/* Takes the model out: the one-layer walkthrough of the sentence again. */
void app_model_close(app_state *st);
/* [ and ]: the previous or next layer (clamped), leaving the readout. */
void app_model_layer(app_state *st, int delta);
/* 9: the readout entry after the last layer. */
void app_model_readout(app_state *st);
/* B: the backward pass on the scale, mask and softmax steps (with a model). */
void app_model_toggle_backward(app_state *st);

#endif
