/* app_model.c — a trained model in the walkthrough. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "model_file.h"

attn_status app_model_use(app_state *st, model *m, app_model_source source, const char *name, attn_err *err) {
    (void)st, (void)source, (void)name;
    model_free(m);
    return attn_fail(err, ATTN_ERR_RANGE, "Models in the walkthrough are not built yet.");
}

attn_status app_model_open(app_state *st, const char *path, attn_err *err) {
    (void)st, (void)path;
    return attn_fail(err, ATTN_ERR_RANGE, "Models in the walkthrough are not built yet.");
}

void app_model_close(app_state *st) {
    (void)st;
}
