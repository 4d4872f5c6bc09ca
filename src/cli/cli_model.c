/* cli_model.c — attnviz --headless --model FILE.json: a trained model on a
 * sentence, printed, dumped as JSON or explained cell by cell, with the loss
 * and every gradient when --target names answers. */
#include "cli_model.h"

#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"
#include "cli_print.h"
#include "fileio.h"
#include "model_file.h"
#include "model_generate.h"
#include "model_run.h"
#include "strbuf.h"
#include "utf8.h"

/* ---- the JSON dump ------------------------------------------------------------ */

void cli_json_key_matrix(attn_strbuf *b, const char *indent, const char *key, const double *m, int rows, int cols,
                         bool last) {
    attn_sb_printf(b, "%s\"%s\": ", indent, key);
    if (rows == 0) model_json_vector(b, m, cols);
    else model_json_matrix(b, indent, m, rows, cols);
    attn_sb_puts(b, last ? "\n" : ",\n");
}

void cli_json_head_stages(attn_strbuf *b, const char *indent, const attn_head *hd, int n, int dk, bool rope) {
    cli_json_key_matrix(b, indent, "Q", hd->q, n, dk, false);
    cli_json_key_matrix(b, indent, "K", hd->k, n, dk, false);
    cli_json_key_matrix(b, indent, "V", hd->v, n, dk, false);
    if (rope) { // pos rope: q and k as the scores read them
        cli_json_key_matrix(b, indent, "q_rot", hd->q_rot, n, dk, false);
        cli_json_key_matrix(b, indent, "k_rot", hd->k_rot, n, dk, false);
    }
    cli_json_key_matrix(b, indent, "scores", hd->scores, n, n, false);
    cli_json_key_matrix(b, indent, "scaled", hd->scaled, n, n, false);
    cli_json_key_matrix(b, indent, "masked", hd->masked, n, n, false); // -inf (masked) is written null
    cli_json_key_matrix(b, indent, "weights", hd->weights, n, n, false);
    cli_json_key_matrix(b, indent, "Z", hd->z, n, dk, true);
}

static void dump_head(attn_strbuf *b, const attn_trace *t, int h, bool bias, bool last) {
    const attn_head *hd = &t->head[h];
    int n = t->n, dm = t->cfg.d_model, dk = t->cfg.d_k;
    const char *in = "          ";
    attn_sb_puts(b, "        {\n");
    cli_json_key_matrix(b, in, "W_Q", hd->w_q, dm, dk, false);
    cli_json_key_matrix(b, in, "W_K", hd->w_k, dm, dk, false);
    cli_json_key_matrix(b, in, "W_V", hd->w_v, dm, dk, false);
    if (bias) {
        cli_json_key_matrix(b, in, "b_Q", hd->b_q, 0, dk, false);
        cli_json_key_matrix(b, in, "b_K", hd->b_k, 0, dk, false);
        cli_json_key_matrix(b, in, "b_V", hd->b_v, 0, dk, false);
    }
    cli_json_head_stages(b, in, hd, n, dk, t->cfg.rope);
    attn_sb_puts(b, last ? "        }\n" : "        },\n");
}

static void dump_layers(attn_strbuf *b, const model_result *r, const model *m) {
    int n = r->n, dm = m->cfg.d_model, hk = m->cfg.heads * m->cfg.d_k;
    attn_sb_puts(b, "  \"layers\": [\n");
    for (int l = 0; l < m->cfg.layers; l++) {
        const attn_trace *t = &r->layer[l];
        attn_sb_puts(b, "    {\n");
        cli_json_key_matrix(b, "      ", "X", t->x, n, dm, false);
        attn_sb_puts(b, "      \"heads\": [\n");
        for (int h = 0; h < m->cfg.heads; h++) dump_head(b, t, h, m->cfg.bias, h + 1 == m->cfg.heads);
        attn_sb_puts(b, "      ],\n");
        cli_json_key_matrix(b, "      ", "concat", t->concat, n, hk, false);
        cli_json_key_matrix(b, "      ", "W_O", t->w_o, hk, dm, false);
        if (m->cfg.bias) cli_json_key_matrix(b, "      ", "b_O", t->b_o, 0, dm, false);
        cli_json_key_matrix(b, "      ", "output", t->output, n, dm, false);
        cli_json_key_matrix(b, "      ", "residual", r->residual[l], n, dm, true);
        attn_sb_puts(b, l + 1 < m->cfg.layers ? "    },\n" : "    }\n");
    }
    attn_sb_puts(b, "  ],\n");
}

/* A tensor's gradient by its file name ("W_Q" of layer l, head h). */
static void key_grad(attn_strbuf *b, const char *indent, const model *m, const model_result *r, int l, int h,
                     const char *name, bool last) {
    for (int i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensor[i];
        if (t->layer != l || t->head != h || strcmp(t->name, name) != 0) continue;
        cli_json_key_matrix(b, indent, name, r->grad_block_ + t->offset, t->vector ? 0 : t->rows, t->cols, last);
    }
}

static void dump_grads(attn_strbuf *b, const model_result *r, const model *m) {
    int n = r->n, dm = m->cfg.d_model, dk = m->cfg.d_k;
    const char *hin = "            ";
    attn_sb_puts(b, "  \"grads\": {\n");
    key_grad(b, "    ", m, r, -1, -1, "E", false);
    if (m->cfg.pos == MODEL_POS_LEARNED) key_grad(b, "    ", m, r, -1, -1, "P", false);
    attn_sb_puts(b, "    \"layers\": [\n");
    for (int l = 0; l < m->cfg.layers; l++) {
        attn_sb_puts(b, "      {\"heads\": [\n");
        for (int h = 0; h < m->cfg.heads; h++) {
            const attn_head_grad *g = model_result_head_grad(r, l, h);
            static const char *const params[] = {"W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"};
            attn_sb_puts(b, "          {\n");
            for (int k = 0; k < (m->cfg.bias ? 6 : 3); k++) key_grad(b, hin, m, r, l, h, params[k], false);
            cli_json_key_matrix(b, hin, "d_Z", g->dz, n, dk, false);
            cli_json_key_matrix(b, hin, "d_weights", g->d_weights, n, n, false);
            cli_json_key_matrix(b, hin, "d_scaled", g->d_scaled, n, n, false);
            cli_json_key_matrix(b, hin, "d_scores", g->d_scores, n, n, false);
            cli_json_key_matrix(b, hin, "d_Q", g->dq, n, dk, false);
            cli_json_key_matrix(b, hin, "d_K", g->dk, n, dk, false);
            cli_json_key_matrix(b, hin, "d_V", g->dv, n, dk, true);
            attn_sb_puts(b, h + 1 < m->cfg.heads ? "          },\n" : "          }\n");
        }
        attn_sb_puts(b, "        ],\n");
        key_grad(b, "        ", m, r, l, -1, "W_O", false);
        if (m->cfg.bias) key_grad(b, "        ", m, r, l, -1, "b_O", false);
        cli_json_key_matrix(b, "        ", "d_output", r->d_output[l], n, dm, false);
        cli_json_key_matrix(b, "        ", "d_X", r->d_x[l], n, dm, true);
        attn_sb_puts(b, l + 1 < m->cfg.layers ? "      },\n" : "      }\n");
    }
    bool token = m->cfg.objective == MODEL_OBJ_TOKEN;
    attn_sb_puts(b, token ? "    ],\n" : "    ]\n");
    if (token) {
        key_grad(b, "    ", m, r, -1, -1, "U", false);
        key_grad(b, "    ", m, r, -1, -1, "b_U", true);
    }
    attn_sb_puts(b, "  }\n");
}

char *cli_model_dump(const model_result *r, const model *m) {
    attn_strbuf b;
    attn_sb_init(&b);
    const attn_tokens *toks = &r->layer[0].tokens;
    attn_sb_puts(&b, "{\n  \"tokens\": [");
    for (int i = 0; i < r->n; i++) {
        int len;
        const char *tok = attn_token_text(toks, i, &len);
        if (i) attn_sb_puts(&b, ", ");
        attn_sb_json_string(&b, tok, (size_t)len);
    }
    attn_sb_puts(&b, "],\n  \"config\": ");
    model_json_config(&b, &m->cfg);
    attn_sb_puts(&b, ",\n");
    dump_layers(&b, r, m);
    if (m->cfg.objective == MODEL_OBJ_TOKEN) {
        cli_json_key_matrix(&b, "  ", "logits", r->logits, r->n, m->vocab_count, false);
        cli_json_key_matrix(&b, "  ", "probs", r->probs, r->n, m->vocab_count, false);
    }
    cli_json_key_matrix(&b, "  ", "avg", r->avg, r->n, r->n, false); // the last layer's weights over its heads: a pointer's answer
    attn_sb_puts(&b, "  \"predicted\": [");
    for (int i = 0; i < r->n; i++) {
        if (i) attn_sb_puts(&b, ", ");
        attn_sb_json_string(&b, m->vocab[r->predicted[i]], strlen(m->vocab[r->predicted[i]]));
    }
    if (r->n_targets) {
        attn_sb_puts(&b, "],\n  \"loss\": ");
        attn_sb_number(&b, r->loss);
        attn_sb_puts(&b, ",\n");
        dump_grads(&b, r, m);
    } else {
        attn_sb_puts(&b, "]\n");
    }
    attn_sb_puts(&b, "}\n");
    return attn_sb_take(&b);
}

/* ---- printing ------------------------------------------------------------------- */

static void dim_label(const void *ctx, int c, char *buf, size_t cap) {
    (void)ctx;
    snprintf(buf, cap, "d%d", c);
}

static void word_label(const void *ctx, int c, char *buf, size_t cap) {
    const model *m = ctx;
    snprintf(buf, cap, "%s", m->vocab[c]);
}

static void token_label(const void *ctx, int c, char *buf, size_t cap) {
    attn_token_label(ctx, c, 12, buf, cap);
}

/* One stage, a core one of each layer's trace or one of the model's; all = every stage. */
static void print_stage(FILE *out, const model_result *r, const model *m, int stage) {
    const attn_tokens *toks = &r->layer[0].tokens;
    int n = r->n;
    for (int l = 0; l < m->cfg.layers && stage <= MODEL_ST_RESIDUAL; l++) {
        if (stage < ATTN_STAGE_COUNT) {
            fprintf(out, "\n=== layer %d\n", l + 1); // --print counts layers and heads from 1, as the window does
            cli_print_stage(out, &r->layer[l], (attn_stage)stage);
        } else {
            fprintf(out, "\n=== layer %d\n\n== residual: X + output   %d×%d\n", l + 1, n, m->cfg.d_model);
            cli_print_matrix(out, toks, r->residual[l], n, m->cfg.d_model, dim_label, NULL);
        }
    }
    if ((stage == MODEL_ST_LOGITS || stage == MODEL_ST_PROBS) && m->cfg.objective == MODEL_OBJ_TOKEN) {
        bool lg = stage == MODEL_ST_LOGITS;
        fprintf(out, "\n== %s: %s   %d×%d\n", lg ? "logits" : "probs", lg ? "x_L·U + b_U" : "softmax(logits)", n,
                m->vocab_count);
        cli_print_matrix(out, toks, lg ? r->logits : r->probs, n, m->vocab_count, word_label, m);
    }
    if (stage == MODEL_ST_AVG) {
        fprintf(out, "\n== avg: the last layer's weights averaged over its %d head%s   %d×%d\n", m->cfg.heads,
                m->cfg.heads == 1 ? "" : "s", n, n);
        cli_print_matrix(out, toks, r->avg, n, n, token_label, toks);
    }
    for (int l = 0; l < m->cfg.layers && r->n_targets && (stage == MODEL_ST_D_WEIGHTS || stage == MODEL_ST_D_SCALED); l++)
        for (int h = 0; h < m->cfg.heads; h++) {
            const attn_head_grad *g = model_result_head_grad(r, l, h);
            bool dw = stage == MODEL_ST_D_WEIGHTS;
            fprintf(out, "\n== %s, layer %d, head %d: %s   %d×%d\n", dw ? "d_weights" : "d_scaled", l + 1, h + 1,
                    dw ? "∂L/∂A" : "∂L/∂scaled", n, n);
            cli_print_matrix(out, toks, dw ? g->d_weights : g->d_scaled, n, n, token_label, toks);
        }
}

static void print_all(FILE *out, const model_result *r, const model *m, const char *path, int stage) {
    const attn_tokens *toks = &r->layer[0].tokens;
    fprintf(out, "tokens (%d):", r->n);
    for (int i = 0; i < r->n; i++) {
        int len;
        const char *tok = attn_token_text(toks, i, &len);
        fprintf(out, " %d:%.*s", i + 1, len, tok);
    }
    char shown[1024]; // a file name may hold control characters too: shown, not obeyed
    utf8_visible(shown, sizeof shown, path, strlen(path));
    fprintf(out, "\nweights: trained (%s, %d steps, seed %lu), from %s\n", m->task, m->training.steps,
            (unsigned long)m->training.seed, shown);
    if (stage >= 0) print_stage(out, r, m, stage);
    for (int s = 0; s < MODEL_STAGE_COUNT && stage < 0; s++) print_stage(out, r, m, s);
    fprintf(out, "\npredicted:");
    for (int i = 0; i < r->n; i++) fprintf(out, " %s", m->vocab[r->predicted[i]]);
    fputc('\n', out);
    if (r->n_targets) fprintf(out, "loss: %.6f over %d target%s\n", r->loss, r->n_targets, r->n_targets == 1 ? "" : "s");
}

/* ---- explaining ------------------------------------------------------------------ */

static void explain_dot(FILE *out, const attn_explanation *e, const char *what, const char *a, const char *b) {
    fprintf(out, "%s = Σ_c %s·%s%s\n", what, a, b, e->dot.has_bias ? " + bias" : "");
    for (int c = 0; c < e->n_terms; c++)
        fprintf(out, "  c=%d: %.6g × %.6g = %.6g\n", e->terms[c].index, e->terms[c].a, e->terms[c].b, e->terms[c].value);
    if (e->dot.has_bias) fprintf(out, "  bias: %.6g\n", e->dot.bias);
}

static void print_explanation(FILE *out, const model_explanation *e, const model_result *r, const model *m) {
    char cell[96], head[24] = "";
    if (e->kind == MODEL_EX_D_SCALED || e->kind == MODEL_EX_D_WEIGHTS) snprintf(head, sizeof head, ", head %d", e->head);
    snprintf(cell, sizeof cell, "%s of layer %d%s [%d][%d]", model_stage_name(e->stage), e->layer, head, e->row, e->col);
    switch (e->kind) {
    case MODEL_EX_CORE: {
        size_t need = cli_explain_format(&e->core, &r->layer[e->layer], NULL, 0) + 1;
        char *text = malloc(need);
        if (!text) return;
        cli_explain_format(&e->core, &r->layer[e->layer], text, need);
        fprintf(out, "layer %d: %s", e->layer, text);
        free(text);
        return;
    }
    case MODEL_EX_EMBED:
        fprintf(out, "%s = E[%s][%d] + position[%d][%d] = %.6g + %.6g = %.6g\n", cell, m->vocab[r->ids[e->row]], e->col,
                e->row, e->col, e->a, e->b, e->value);
        return;
    case MODEL_EX_COPY:
        fprintf(out, "%s = residual of layer %d [%d][%d] = %.6g\n", cell, e->layer - 1, e->row, e->col, e->value);
        return;
    case MODEL_EX_RESIDUAL:
        fprintf(out, "%s = X + output = %.6g + %.6g = %.6g\n", cell, e->a, e->b, e->value);
        return;
    case MODEL_EX_LOGITS:
        explain_dot(out, &e->core, cell, "x_L[i][c]", "U[c][v]");
        fprintf(out, "  = %.6g (the word %s)\n", e->value, m->vocab[e->col]);
        return;
    case MODEL_EX_PROBS:
        fprintf(out, "%s = exp(logit − max) / Σ_v exp(logit_v − max) = exp(%.6g − %.6g) / %.6g = %.6g (the word %s)\n",
                cell, e->core.softmax.score, e->core.softmax.row_max, e->core.softmax.denom, e->value, m->vocab[e->col]);
        return;
    case MODEL_EX_D_WEIGHTS:
        explain_dot(out, &e->core, cell, "∂L/∂Z[i][c]", "V[j][c]");
        if (e->a != 0.0) fprintf(out, "  + the loss's own term −1/(heads·Ā_ij)/targets: %.6g\n", e->a);
        fprintf(out, "  = %.6g\n", e->value);
        return;
    case MODEL_EX_AVG:
        fprintf(out, "%s = Σ_h A_h[i][j] / %d\n", cell, m->cfg.heads);
        for (int h = 0; h < e->core.n_terms; h++)
            fprintf(out, "  head %d: %.6g / %d = %.6g\n", h, e->core.terms[h].a, m->cfg.heads, e->core.terms[h].value);
        fprintf(out, "  = %.6g\n", e->value);
        return;
    case MODEL_EX_D_SCALED: {
        const attn_softmax_grad_explanation *g = &e->grad;
        if (g->masked) {
            fprintf(out, "%s = 0: the mask hides this entry, so it does not depend on the scores\n", cell);
            return;
        }
        fprintf(out, "%s = A_ij·(dA_ij − Σ_k A_ik·dA_ik)   (dA = ∂L/∂A, the softmax's input gets this)\n", cell);
        for (int k = 0; k < g->n_terms; k++)
            fprintf(out, "  k=%d: A %.6g × dA %.6g = %.6g\n", k, g->terms[k].a, g->terms[k].b, g->terms[k].value);
        fprintf(out, "  Σ_k A_ik·dA_ik = %.6g\n  = %.6g × (%.6g − %.6g) = %.6g\n", g->dot, g->a, g->da, g->dot, e->value);
        return;
    }
    }
}

/* ---- the run ----------------------------------------------------------------------- */

/* --print of a stage the model or the run does not have is refused, not left blank. */
static attn_status check_print(const cli_opts *o, const model *m, const model_result *r, attn_err *err) {
    int s = o->print ? o->print_stage : -1;
    if ((s == MODEL_ST_LOGITS || s == MODEL_ST_PROBS) && m->cfg.objective != MODEL_OBJ_TOKEN)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CM_PRINT_POINTER,
                            model_stage_name(s));
    if ((s == MODEL_ST_D_WEIGHTS || s == MODEL_ST_D_SCALED) && r->n_targets == 0)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CM_PRINT_GRADIENT,
                            model_stage_name(s));
    return ATTN_OK;
}

attn_status cli_model_compute(cli_model_state *s, const cli_opts *o, bool view_targets, attn_err *err) {
    const cli_model_opts *mo = &o->model;
    memset(s, 0, sizeof *s);
    attn_status st = model_file_load(&s->m, mo->model_path, err);
    if (st != ATTN_OK) return st;
    s->m.cfg.pos_offset = o->cfg.pos_offset; // --pos-offset K: the sentence starts at position K
    const char *sentence = o->sentence ? o->sentence : s->m.probe;
    size_t len = 0;
    if (o->sentence_file) {
        st = attn_read_file(o->sentence_file, 16u << 20, &s->sentence_buf, &len, err);
        sentence = s->sentence_buf;
    } else {
        len = strlen(sentence);
    }
    model_target_spec specs[CLI_MAX_TARGETS];
    for (int k = 0; k < mo->n_targets; k++) specs[k] = (model_target_spec){mo->targets[k].pos, mo->targets[k].token};
    if (st == ATTN_OK && view_targets && mo->n_targets == 0) // as the window shows it
        st = model_run_view(&s->r, &s->m, sentence, len, -1, &s->labelled, err);
    else if (st == ATTN_OK)
        st = model_run(&s->r, &s->m, sentence, len, specs, mo->n_targets, err);
    if (st != ATTN_OK) cli_model_state_free(s);
    return st;
}

void cli_model_state_free(cli_model_state *s) {
    if (!s) return;
    model_result_free(&s->r);
    model_free(&s->m);
    free(s->sentence_buf);
    memset(s, 0, sizeof *s);
}

static attn_status act(const cli_opts *o, bool view_targets, FILE *out, attn_err *err) {
    const cli_model_opts *mo = &o->model;
    cli_model_state s;
    char *json = NULL;
    model_explanation *e = NULL;
    attn_status st = cli_model_compute(&s, o, view_targets, err);
    if (st != ATTN_OK) return st;
    st = check_print(o, &s.m, &s.r, err);
    if (st == ATTN_OK && o->explain) { // a cell that does not exist is refused before anything is written
        e = malloc(sizeof *e);
        st = e ? model_explain(e, &s.r, &s.m, model_stage_from_name(mo->explain_stage), mo->explain_layer,
                               mo->explain_head, mo->explain_row, mo->explain_col, err)
               : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory to explain a cell.");
    }
    if (st == ATTN_OK && o->dump_path) {
        json = cli_model_dump(&s.r, &s.m);
        st = json ? attn_write_file(o->dump_path, json, strlen(json), NULL, err)
                  : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the JSON dump.");
    }
    if (st == ATTN_OK && o->print) print_all(out, &s.r, &s.m, mo->model_path, o->print_stage);
    if (st == ATTN_OK && e) print_explanation(out, e, &s.r, &s.m);
    free(e);
    free(json);
    cli_model_state_free(&s);
    return st;
}

/* --decode / --generate N with --model: the sentence token by token through
 * every layer with a KV cache per layer, then N more tokens, each the
 * readout's argmax at the last one, fed back. */
static attn_status generate_act(const cli_opts *o, FILE *out, attn_err *err) {
    model m;
    model_generation g = {0};
    char *buf = NULL;
    attn_status st = model_file_load(&m, o->model.model_path, err);
    if (st != ATTN_OK) return st;
    m.cfg.pos_offset = o->cfg.pos_offset; // --pos-offset K: the sentence starts at position K
    const char *sentence = o->sentence ? o->sentence : m.probe;
    size_t len = sentence ? strlen(sentence) : 0;
    if (o->sentence_file) {
        st = attn_read_file(o->sentence_file, 16u << 20, &buf, &len, err);
        sentence = buf;
    }
    if (st == ATTN_OK) st = model_generate(&g, &m, sentence, len, o->model.generate, err);
    if (st == ATTN_OK) {
        attn_config a;
        model_attn_config(&a, &m.cfg);
        fprintf(out, "Decoding with a KV cache per layer: %d layer%s, %d head%s reading %d kv-head%s, d_k %d\n",
                m.cfg.layers, m.cfg.layers == 1 ? "" : "s", m.cfg.heads, m.cfg.heads == 1 ? "" : "s", attn_kv_heads(&a), attn_kv_heads(&a) == 1 ? "" : "s", m.cfg.d_k);
        fprintf(out, "%5s %-12s %6s %6s %10s %12s %12s %12s %12s\n", "token", "word", "p", "cache", "macs",
                "macs_total", "full_causal", "full_total", "cache_bytes");
        for (int t = 0; t < g.n; t++) {
            const attn_decode_step *s = &g.step[t];
            char p[16] = "given";
            if (t >= g.n_prompt) snprintf(p, sizeof p, "%.3f", g.prob[t]);
            fprintf(out, "%5d %-12s %6s %6d %10lld %12lld %12lld %12lld %12lld\n", t, m.vocab[g.ids[t]], p, s->cache_len,
                    s->macs, s->macs_total, s->full_macs, s->full_total, s->cache_bytes);
        }
        fputs("sentence:", out);
        for (int t = 0; t < g.n; t++) fprintf(out, " %s%s", t == g.n_prompt ? "| " : "", m.vocab[g.ids[t]]);
        fputs("\n", out);
    }
    model_generation_free(&g);
    model_free(&m);
    free(buf);
    return st;
}

int cli_model_run(const cli_opts *o, bool view_targets, FILE *out, FILE *errf) {
    attn_err err;
    attn_err_clear(&err);
    attn_status st = o->decode || o->model.generate ? generate_act(o, out, &err) : act(o, view_targets, out, &err);
    if (st != ATTN_OK) cli_print_err(o, errf, &err);
    fflush(out);
    return st == ATTN_OK ? 0 : 1;
}
