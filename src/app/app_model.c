/* app_model.c — floor 2 of src/app: a trained model in the walkthrough:
 * putting it in and taking it out, the layer shown, the readout entry and
 * the backward toggle (its run is computed on floor 1, app.c). */
#include "app_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_file.h"

attn_status app_model_use(app_state *st, model *m, app_model_source source, const char *name, attn_err *err) {
    return app_model_show(st, m, source, name, NULL, err);
}

attn_status app_model_show(app_state *st, model *m, app_model_source source, const char *name, const char *sentence,
                           attn_err *err) {
    model *mine = malloc(sizeof *mine);
    model_explanation *ex = malloc(sizeof *ex);
    if (!mine || !ex) {
        free(mine);
        free(ex);
        model_free(m);
        return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the model.");
    }
    *mine = *m;
    memset(m, 0, sizeof *m);
    app_model_state old = st->model;
    attn_config old_cfg = st->src.cfg;
    memset(&st->model, 0, sizeof st->model);
    st->model.m = mine;
    st->model.explain = ex;
    st->model.source = source;
    st->model.layer = old.m ? old.layer : 0;
    st->model.backward = old.backward;
    snprintf(st->model.name, sizeof st->model.name, "%s", source == APP_MODEL_FILE && name ? name : "");
    st->model.saved_cfg = old.m ? old.saved_cfg : old_cfg;
    st->model.from_page = sentence != NULL;
    // a page's sentence; else the sentence stays when the model reads it, else the model's own probe
    attn_status rc = app_set_sentence(st, sentence ? sentence : st->src.sentence, &st->src.cfg, sentence ? err : NULL);
    if (rc != ATTN_OK && !sentence) rc = app_set_sentence(st, mine->probe, &st->src.cfg, err);
    if (rc != ATTN_OK) { // the view before stays
        app_model_state_free(&st->model);
        st->model = old;
        st->src.cfg = old_cfg;
        return rc;
    }
    app_model_state_free(&old);
    st->view.query = attn_trace_default_query(app_trace(st));
    if (!st->model.target_labelled) app_recompute(st); // the prediction's target is the query's
    st->lesson.predict_pending = false;                // a page's question is about the page's own weights
    app_refresh_texts(st);
    return ATTN_OK;
}

attn_status app_model_open(app_state *st, const char *path, attn_err *err) {
    model m;
    attn_status rc = model_file_load(&m, path, err);
    if (rc != ATTN_OK) return rc;
    m.cfg.pos_offset = st->src.cfg.pos_offset; // --pos-offset K: the sentence starts at position K
    rc = app_model_use(st, &m, APP_MODEL_FILE, path, err);
    if (rc == ATTN_OK) { // what it is and how to walk through it
        const model *mm = st->model.m;
        app_status(st, app_str(st, VIZ_S_STATUS_MODEL_OPENED), path, mm->cfg.layers, mm->cfg.heads, mm->task);
    }
    return rc;
}

void app_model_close(app_state *st) {
    if (!st->model.m) return;
    attn_config cfg = st->model.saved_cfg;
    app_model_state_free(&st->model);
    attn_trace_free(&st->src.alt);
    attn_err err;
    if (app_set_sentence(st, st->src.sentence, &cfg, &err) != ATTN_OK) app_status_err(st, &err);
    st->view.query = attn_trace_default_query(app_trace(st));
    app_refresh_texts(st);
}

/* ---- what is shown ---- */

void app_model_layer(app_state *st, int delta) {
    if (!st->model.m && !st->hf) return;
    int l = st->model.layer + delta, layers = st->hf ? app_hf_layers(st) : st->model.m->cfg.layers;
    l = l < 0 ? 0 : l >= layers ? layers - 1
                                : l;
    st->model.readout = false;
    if (l != st->model.layer && st->hf) { // a real model: the run has every layer
        attn_err err;
        int old = st->model.layer;
        st->model.layer = l;
        if (app_hf_show_layer(st, &err) != ATTN_OK) {
            st->model.layer = old;
            app_status_err(st, &err);
        }
    } else if (l != st->model.layer) {
        st->model.layer = l;
        app_recompute(st); // the comparison and the hovered cell belong to the layer
    }
    st->dirty = true;
}

void app_model_readout(app_state *st) {
    if (!st->model.m && !st->hf) return;
    st->model.readout = true;
    if (st->hf) { // the next tokens come after the last layer
        if (st->model.layer != app_hf_layers(st) - 1) app_model_layer(st, app_hf_layers(st));
        st->model.readout = true;
        st->dirty = true;
        return;
    }
    st->model.layer = st->model.m->cfg.layers - 1;
    if (st->view.hover.kind == VIZ_HIT_CELL) app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    st->dirty = true;
}

void app_model_toggle_backward(app_state *st) {
    if (!st->model.m) {
        app_status(st, "%s", app_str(st, VIZ_S_STATUS_NO_MODEL));
        return;
    }
    st->model.backward = !st->model.backward;
    if (st->view.hover.kind == VIZ_HIT_CELL && st->view.hover.stage >= ATTN_STAGE_COUNT && !st->model.backward)
        app_hover(st, (viz_hit){.kind = VIZ_HIT_NONE});
    st->dirty = true;
}
