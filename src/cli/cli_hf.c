/* cli_hf.c — attnviz --headless --hf DIR (issue 26). */
#include "cli_hf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"
#include "cli_model.h"
#include "cli_print.h"
#include "fileio.h"
#include "hf_heads.h"
#include "hf_model.h"
#include "hf_trace.h"
#include "model_file.h"
#include "model_run.h"
#include "numparse.h"
#include "page.h"
#include "strbuf.h"
#include "utf8.h"
#include "viz_lesson.h"
#include "viz_strings.h"

/* cli_hf_stage_from_name's order (cli_model_args.c) */
enum { HF_ST_RESID_PRE,
       HF_ST_RESID_MID,
       HF_ST_MLP_OUT,
       HF_ST_RESIDUAL,
       HF_ST_NEXT,
       HF_ST_HEADS,
       HF_ST_COUNT };

#define HF_HEADS_SHOWN 10 /* --print heads: the best ten of each ranking */

/* ---- the run ----------------------------------------------------------------------- */

typedef struct {
    hf_model m;
    hf_tokens toks;
    hf_run r;
    char *sentence_buf;
    hf_head_score *scores; /* n_layer · n_head: the head finder's, or NULL until asked */
    int induction_len;     /* the T they used */
} hf_state;

static void state_free(hf_state *s) {
    hf_run_free(&s->r);
    hf_tokens_free(&s->toks);
    hf_model_free(&s->m);
    free(s->sentence_buf);
    free(s->scores);
    memset(s, 0, sizeof *s);
}

static attn_status compute(hf_state *s, const cli_opts *o, attn_err *err) {
    memset(s, 0, sizeof *s);
    attn_status st = hf_model_open(&s->m, o->model.hf_dir, err);
    if (st != ATTN_OK) return st;
    const char *sentence = o->sentence ? o->sentence : s->m.bpe ? CLI_HF_SENTENCE_EN
                                                                : CLI_SEED_SENTENCE;
    size_t len = strlen(sentence);
    if (o->sentence_file) {
        st = attn_read_file(o->sentence_file, 16u << 20, &s->sentence_buf, &len, err);
        sentence = s->sentence_buf;
    }
    if (st == ATTN_OK) st = hf_model_tokenize(&s->m, sentence, len, o->model.bos, &s->toks, err);
    int *ids = st == ATTN_OK ? malloc(sizeof *ids * (size_t)s->toks.count) : NULL;
    if (st == ATTN_OK && !ids) st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    for (int i = 0; st == ATTN_OK && i < s->toks.count; i++) ids[i] = s->toks.v[i].id;
    if (st == ATTN_OK) st = hf_forward(&s->r, &s->m, ids, s->toks.count, err);
    free(ids);
    return st;
}

/* The head finder's scores of s's run (hf_heads.h), once. */
static attn_status find_heads(hf_state *s, attn_err *err) {
    if (s->scores) return ATTN_OK;
    s->scores = calloc((size_t)s->r.n_layer * (size_t)s->r.n_head, sizeof *s->scores);
    if (!s->scores) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    s->induction_len = hf_induction_len(&s->m, HF_INDUCTION_LEN);
    return hf_head_scores(&s->m, &s->r, HF_INDUCTION_LEN, HF_INDUCTION_SEED, s->scores, err);
}

/* Matrix of one layer by its stage; NULL for a per-head stage. */
static const double *layer_stage(const hf_layer_run *L, int hf_stage) {
    switch (hf_stage) {
    case HF_ST_RESID_PRE: return L->resid_pre;
    case HF_ST_RESID_MID: return L->resid_mid;
    case HF_ST_MLP_OUT: return L->mlp_out;
    default: return L->residual;
    }
}

/* ---- the JSON dump ------------------------------------------------------------------- */

/* The weights of one head (its columns of c_attn) or of c_proj, as doubles. */
static void key_weights(attn_strbuf *b, const char *indent, const char *key, const st_tensor *w, int col0, int rows,
                        int cols, double *buf) {
    size_t width = (size_t)(w->rank == 2 ? w->shape[1] : w->shape[0]);
    for (int r = 0; r < (rows ? rows : 1); r++) hf_tensor_read(w, (size_t)r * width + (size_t)col0, (size_t)cols, buf + (size_t)r * cols);
    cli_json_key_matrix(b, indent, key, buf, rows, cols, false);
}

static void dump_config(attn_strbuf *b, const hf_model *m) {
    const hf_config *c = &m->cfg;
    attn_sb_printf(b, "  \"config\": {\"n_layer\": %d, \"n_head\": %d, \"n_embd\": %d, \"d_k\": %d, \"n_inner\": %d, "
                      "\"n_positions\": %d, \"vocab_size\": %d, \"layer_norm_epsilon\": ",
                   c->n_layer, c->n_head, c->n_embd, c->n_embd / c->n_head, c->n_inner, c->n_positions, c->vocab_size);
    attn_sb_number(b, c->eps);
    attn_sb_puts(b, ", \"activation_function\": ");
    attn_sb_json_string(b, c->act_name, strlen(c->act_name));
    attn_sb_printf(b, ", \"tie_word_embeddings\": %s, \"mask\": \"causal\", \"scale\": %s, \"tokenizer\": \"%s\"},\n",
                   c->tie ? "true" : "false", c->scale ? "true" : "false", m->bpe ? "bpe" : "wordpiece");
}

static void dump_head(attn_strbuf *b, const hf_state *s, int l, int h, bool weights, double *buf) {
    const attn_head *hd = &s->r.layer[l].head[h];
    const hf_block *bl = &s->m.block[l];
    int n = s->r.n, d = s->r.d, dk = s->r.d_k;
    const char *in = "          ";
    attn_sb_puts(b, "        {\n");
    if (weights) {
        static const char *const w[] = {"W_Q", "W_K", "W_V"}, *const bias[] = {"b_Q", "b_K", "b_V"};
        for (int k = 0; k < 3; k++) key_weights(b, in, w[k], bl->attn_w, k * d + h * dk, d, dk, buf);
        for (int k = 0; k < 3; k++) key_weights(b, in, bias[k], bl->attn_b, k * d + h * dk, 0, dk, buf);
    }
    cli_json_head_stages(b, in, hd, n, dk, false);
    attn_sb_puts(b, h + 1 < s->r.n_head ? "        },\n" : "        }\n");
}

static char *dump(const hf_state *s, bool weights) {
    const hf_run *r = &s->r;
    int n = r->n, d = r->d;
    double *buf = weights ? malloc(sizeof(double) * (size_t)d * (size_t)d) : NULL;
    if (weights && !buf) return NULL;
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_puts(&b, "{\n  \"tokens\": [");
    for (int i = 0; i < n; i++) {
        if (i) attn_sb_puts(&b, ", ");
        attn_sb_json_string(&b, s->toks.v[i].label, strlen(s->toks.v[i].label));
    }
    attn_sb_puts(&b, "],\n  \"token_ids\": [");
    for (int i = 0; i < n; i++) attn_sb_printf(&b, i ? ", %d" : "%d", s->toks.v[i].id);
    attn_sb_puts(&b, "],\n  \"offsets\": [");
    for (int i = 0; i < n; i++)
        attn_sb_printf(&b, i ? ", [%zu, %zu]" : "[%zu, %zu]", s->toks.v[i].start, s->toks.v[i].end);
    attn_sb_puts(&b, "],\n");
    dump_config(&b, &s->m);
    attn_sb_puts(&b, "  \"layers\": [\n");
    for (int l = 0; l < r->n_layer; l++) {
        const hf_layer_run *L = &r->layer[l];
        attn_sb_puts(&b, "    {\n");
        cli_json_key_matrix(&b, "      ", "resid_pre", L->resid_pre, n, d, false);
        cli_json_key_matrix(&b, "      ", "X", L->x, n, d, false);
        attn_sb_puts(&b, "      \"heads\": [\n");
        for (int h = 0; h < r->n_head; h++) dump_head(&b, s, l, h, weights, buf);
        attn_sb_puts(&b, "      ],\n");
        cli_json_key_matrix(&b, "      ", "concat", L->concat, n, d, false);
        if (weights) {
            key_weights(&b, "      ", "W_O", s->m.block[l].attn_proj_w, 0, d, d, buf);
            key_weights(&b, "      ", "b_O", s->m.block[l].attn_proj_b, 0, 0, d, buf);
        }
        cli_json_key_matrix(&b, "      ", "output", L->output, n, d, false);
        cli_json_key_matrix(&b, "      ", "resid_mid", L->resid_mid, n, d, false);
        cli_json_key_matrix(&b, "      ", "mlp_out", L->mlp_out, n, d, false);
        cli_json_key_matrix(&b, "      ", "residual", L->residual, n, d, true);
        attn_sb_puts(&b, l + 1 < r->n_layer ? "    },\n" : "    }\n");
    }
    attn_sb_puts(&b, "  ],\n");
    // the head finder: per head (layer-major), each score as hf_heads.h defines it
    attn_sb_printf(&b, "  \"head_scores\": {\"induction_len\": %d, \"induction_seed\": %u, \"heads\": [",
                   s->induction_len, HF_INDUCTION_SEED);
    for (int k = 0; k < r->n_layer * r->n_head; k++) {
        attn_sb_printf(&b, "%s\n    {\"layer\": %d, \"head\": %d, \"prev_token\": ", k ? "," : "", k / r->n_head,
                       k % r->n_head);
        attn_sb_number(&b, s->scores[k].prev_token);
        attn_sb_puts(&b, ", \"induction\": ");
        attn_sb_number(&b, s->scores[k].induction);
        attn_sb_puts(&b, ", \"first_token\": ");
        attn_sb_number(&b, s->scores[k].first_token);
        attn_sb_puts(&b, "}");
    }
    attn_sb_puts(&b, "\n  ]},\n");
    if (weights) cli_json_key_matrix(&b, "  ", "logits", r->logits, 0, r->vocab, false); // the last position's
    attn_sb_puts(&b, "  \"next\": [");
    for (int k = 0; k < r->next_count; k++) {
        char *label = hf_model_piece_label(&s->m, r->next_id[k]);
        attn_sb_puts(&b, k ? ",\n    {\"token\": " : "\n    {\"token\": ");
        attn_sb_json_string(&b, label ? label : "", label ? strlen(label) : 0);
        attn_sb_printf(&b, ", \"id\": %d, \"p\": ", r->next_id[k]);
        attn_sb_number(&b, r->next_p[k]);
        attn_sb_puts(&b, "}");
        free(label);
    }
    attn_sb_puts(&b, "\n  ]\n}\n");
    free(buf);
    return attn_sb_take(&b);
}

/* ---- printing -------------------------------------------------------------------------- */

/* A table: row i labelled with token i, columns with col_label (tokens for n×n). */
static void print_table(FILE *out, const hf_state *s, const double *m, int rows, int cols, bool token_cols) {
    char cell[48];
    fprintf(out, "%-14s", "");
    for (int c = 0; c < cols; c++) {
        if (token_cols) {
            const char *lab = s->toks.v[c].label;
            size_t cut = utf8_prefix_fitting(lab, strlen(lab), 9);
            int w = utf8_width(lab, cut);
            fprintf(out, " %*s%.*s", w < 9 ? 9 - w : 0, "", (int)cut, lab);
        } else
            fprintf(out, " %9s", (snprintf(cell, sizeof cell, "d%d", c), cell));
    }
    fputc('\n', out);
    for (int i = 0; i < rows; i++) {
        const char *lab = s->toks.v[i].label;
        size_t cut = utf8_prefix_fitting(lab, strlen(lab), 10);
        int w = utf8_width(lab, cut);
        fprintf(out, "%3d %.*s%*s", i, (int)cut, lab, w < 10 ? 10 - w : 0, "");
        for (int c = 0; c < cols; c++) {
            cli_format_cell(cell, sizeof cell, m[(size_t)i * cols + c]);
            fprintf(out, " %9s", cell);
        }
        fputc('\n', out);
    }
}

/* One stage of layer l (every head of a per-head stage); core: an attn_stage, else an HF_ST_*. */
static void print_layer_stage(FILE *out, const hf_state *s, int l, bool core, int stage) {
    const hf_run *r = &s->r;
    const hf_layer_run *L = &r->layer[l];
    int n = r->n, d = r->d, dk = r->d_k;
    if (!core) {
        fprintf(out, "\n== %s   %d×%d\n", cli_hf_stage_name(stage), n, d);
        print_table(out, s, layer_stage(L, stage), n, d, false);
    } else if (attn_stage_per_head((attn_stage)stage)) {
        for (int h = 0; h < r->n_head; h++) {
            const attn_head *hd = &L->head[h];
            const double *const by_stage[ATTN_STAGE_COUNT] = {
                [ATTN_ST_Q] = hd->q, [ATTN_ST_K] = hd->k, [ATTN_ST_V] = hd->v, [ATTN_ST_SCORES] = hd->scores, [ATTN_ST_SCALED] = hd->scaled, [ATTN_ST_MASKED] = hd->masked, [ATTN_ST_WEIGHTS] = hd->weights, [ATTN_ST_Z] = hd->z};
            bool square = stage >= ATTN_ST_SCORES && stage <= ATTN_ST_WEIGHTS;
            fprintf(out, "\n== %s, head %d   %d×%d\n", attn_stage_name((attn_stage)stage), h + 1, n, square ? n : dk);
            print_table(out, s, by_stage[stage], n, square ? n : dk, square);
        }
    } else {
        const double *m = stage == ATTN_ST_X ? L->x : stage == ATTN_ST_CONCAT ? L->concat
                                                                              : L->output;
        const char *what = stage == ATTN_ST_X ? "X = LN₁(resid_pre)" : stage == ATTN_ST_CONCAT ? "concat"
                                                                                               : "output = concat·c_proj + b";
        fprintf(out, "\n== %s   %d×%d\n", what, n, d);
        print_table(out, s, m, n, d, false);
    }
}

static void print_next(FILE *out, const hf_state *s) {
    const hf_run *r = &s->r;
    fprintf(out, "\n== next: the %d most likely tokens after the last one (softmax of LN_f(x)·%s)\n", r->next_count,
            s->m.cfg.tie ? "wteᵀ" : "lm_headᵀ");
    for (int k = 0; k < r->next_count; k++) {
        char *label = hf_model_piece_label(&s->m, r->next_id[k]);
        fprintf(out, "%3d  p %.6f  id %-7d %s\n", k + 1, r->next_p[k], r->next_id[k], label ? label : "?");
        free(label);
    }
}

/* --print heads: each ranking of the head finder, its best HF_HEADS_SHOWN, in
 * the learner's language (heads and layers counted from 1, as the window). */
/* Word id of the strings table in the language asked (o->table, set by main), else en: the table's English. */
static const char *word(const cli_opts *o, bool zh, viz_str id, const char *en) {
    const char *w = o->table ? o->table->s[zh ? VIZ_LANG_ZH : VIZ_LANG_EN][id] : NULL;
    return w ? w : en;
}

static void print_heads(FILE *out, const hf_state *s, const cli_opts *o, bool zh) {
    const char *title[] = {
        word(o, zh, VIZ_S_HF_HEADS_PREV, "previous-token score: mean A[i][i−1] over rows 2…n"),
        word(o, zh, VIZ_S_HF_HEADS_INDUCTION, "induction score: a random sequence of %d tokens, repeated; mean A[i][i−%d+1] over the second copy"),
        word(o, zh, VIZ_S_HF_HEADS_FIRST, "first-token share: mean A[i][0] over rows 2…n (an attention sink)")};
    const char *heads_by = word(o, zh, VIZ_S_HF_HEADS_TITLE, "heads by %s (best %d of %d)");
    const char *row = word(o, zh, VIZ_S_HF_HEADS_ROW, "layer %d head %-4d %.4f");
    int count = s->r.n_layer * s->r.n_head, shown = count < HF_HEADS_SHOWN ? count : HF_HEADS_SHOWN;
    int *order = malloc(sizeof *order * (size_t)count);
    if (!order) return;
    for (int which = 0; which < 3; which++) {
        char what[512];
        hf_head_rank(s->scores, count, which, order);
        snprintf(what, sizeof what, title[which], s->induction_len, s->induction_len);
        fputs("\n== ", out);
        fprintf(out, heads_by, what, shown, count);
        fputc('\n', out);
        for (int k = 0; k < shown; k++) {
            int i = order[k];
            fprintf(out, "%3d  ", k + 1);
            fprintf(out, row, i / s->r.n_head + 1, i % s->r.n_head + 1, hf_head_score_get(&s->scores[i], which));
            fputc('\n', out);
        }
    }
    free(order);
}

static void print_all(FILE *out, const hf_state *s, const cli_opts *o, bool zh) {
    const hf_config *c = &s->m.cfg;
    fprintf(out, "tokens (%d):", s->r.n);
    for (int i = 0; i < s->r.n; i++) fprintf(out, " %d:%s(%d)", i + 1, s->toks.v[i].label, s->toks.v[i].id);
    char shown[1024]; // a folder's name may hold control characters too: shown, not obeyed
    utf8_visible(shown, sizeof shown, o->model.hf_dir, strlen(o->model.hf_dir));
    fprintf(out, "\nweights: GPT-2, %d layer%s × %d heads, width %d (d_k %d), MLP %d, %s, from %s\n", c->n_layer,
            c->n_layer == 1 ? "" : "s", c->n_head, c->n_embd, c->n_embd / c->n_head, c->n_inner, c->act_name, shown);
    const char *name = o->model.print_name;
    int hs = name ? cli_hf_stage_from_name(name) : -1;
    if (o->print_stage == MODEL_ST_RESIDUAL) hs = HF_ST_RESIDUAL;
    bool core = hs < 0 && o->print_stage >= 0;
    if (hs == HF_ST_NEXT) {
        print_next(out, s);
        return;
    }
    if (hs == HF_ST_HEADS) {
        print_heads(out, s, o, zh);
        return;
    }
    for (int l = 0; l < s->r.n_layer; l++) {
        fprintf(out, "\n=== layer %d\n", l + 1); // counted from 1, as the window counts
        if (hs >= 0 || core) {
            print_layer_stage(out, s, l, core, core ? o->print_stage : hs);
            continue;
        }
        print_layer_stage(out, s, l, false, HF_ST_RESID_PRE);
        for (int st = 0; st < ATTN_STAGE_COUNT; st++) // GPT-2 has no RoPE: no q_rot, k_rot
            if (st != ATTN_ST_Q_ROT && st != ATTN_ST_K_ROT) print_layer_stage(out, s, l, true, st);
        for (int st = HF_ST_RESID_MID; st < HF_ST_NEXT; st++) print_layer_stage(out, s, l, false, st);
    }
    if (hs < 0 && !core) print_next(out, s);
}

/* ---- explaining ---------------------------------------------------------------------------- */

/* X: LayerNorm's arithmetic, told here (the core's X is an embedding). */
static void explain_x(FILE *out, const hf_state *s, int l, int i, int c) {
    hf_ln_explanation e;
    if (hf_explain_ln1(&e, &s->m, &s->r, l, i, c, NULL) != ATTN_OK) return; // explain() checked the cell
    fprintf(out, "layer %d: X[%d][%d] (token %s) = LN₁(resid_pre)[%d][%d]\n", l, i, c, s->toks.v[i].label, i, c);
    fprintf(out, "  = (x − mean) / √(var + ε) · w + b\n");
    fprintf(out, "  = (%.10g − %.10g) / √(%.10g + %g) · %.10g + %.10g\n", e.x, e.mean, e.var, e.eps, e.w, e.b);
    fprintf(out, "  = %.10g\n", e.value);
    fprintf(out, "  (mean and var over the %d columns of resid_pre's row %d)\n", e.width, i);
}

static attn_status explain(FILE *out, const hf_state *s, const cli_model_opts *mo, bool write, attn_err *err) {
    const hf_run *r = &s->r;
    attn_stage st = (attn_stage)attn_stage_from_name(mo->explain_stage);
    int l = mo->explain_layer, h = mo->explain_head;
    if (l >= r->n_layer)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CH_EXPLAIN_LAYER, l, r->n_layer - 1);
    if (attn_stage_per_head(st) && h >= r->n_head)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CH_EXPLAIN_HEAD, h, r->n_head - 1);
    bool per_head = attn_stage_per_head(st);
    int rows = r->n, cols = per_head ? (st >= ATTN_ST_SCORES && st <= ATTN_ST_WEIGHTS ? r->n : r->d_k) : r->d;
    if (mo->explain_row >= rows || mo->explain_col >= cols)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CH_EXPLAIN_CELL,
                            mo->explain_row, mo->explain_col, attn_stage_name(st), rows - 1, cols - 1);
    if (st == ATTN_ST_X) {
        if (write) explain_x(out, s, l, mo->explain_row, mo->explain_col);
        return ATTN_OK;
    }
    attn_trace t;
    memset(&t, 0, sizeof t);
    attn_explanation *e = malloc(sizeof *e);
    attn_status status = e ? hf_trace_layer(&t, &s->m, r, &s->toks, l, err) : attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    if (status == ATTN_OK) status = attn_explain(e, &t, st, per_head ? h : 0, mo->explain_row, mo->explain_col, err);
    if (status == ATTN_OK && write) {
        size_t need = cli_explain_format(e, &t, NULL, 0) + 1;
        char *text = malloc(need);
        if (text) {
            cli_explain_format(e, &t, text, need);
            fprintf(out, "layer %d: %s", l, text);
            free(text);
        }
    }
    attn_trace_free(&t);
    free(e);
    return status;
}

/* ---- a lesson page with @hf ------------------------------------------------------------ */

/* The page's title and text, references in place (h: its heads, or NULL without the folder). */
static void print_page(FILE *out, const lesson_page *pg, const page_hf *h, const cli_opts *o, bool zh) {
    page_hf_words w = page_hf_words_en;
    if (o->table) viz_lesson_hf_words(&w, o->table->s[zh ? VIZ_LANG_ZH : VIZ_LANG_EN]);
    fprintf(out, "=== %s: %s\n", pg->id, pg->title);
    for (int k = 0; k < pg->n_paras; k++) {
        const lesson_para *para = &pg->paras[k];
        if (para->edited || !lesson_para_hf_shown(pg, para, h != NULL)) continue; // the page's own sentence: no @edited
        fputs(para->kind == LESSON_PARA_ITEM ? "\n- " : para->kind == LESSON_PARA_CODE ? "\n    "
                                                                                       : "\n",
              out);
        int at = 0;
        for (int i = 0; i <= para->n_spans; i++) {
            int start = i < para->n_spans ? para->spans[i].start : (int)strlen(para->text);
            for (int j = at; j < start; j++) {
                fputc(para->text[j], out);
                if (para->kind == LESSON_PARA_CODE && para->text[j] == '\n') fputs("    ", out);
            }
            if (i == para->n_spans) break;
            const lesson_span *sp = &para->spans[i];
            if (sp->kind == LESSON_SPAN_REF && sp->ref >= 0 && h) {
                char text[1024];
                page_hf_ref_text(h, &pg->refs[sp->ref], &w, text, sizeof text);
                fputs(text[0] ? text : "?", out);
            } else fprintf(out, sp->kind == LESSON_SPAN_REF ? "{%.*s}" : "%.*s", sp->len, para->text + sp->start);
            at = sp->start + sp->len;
        }
        fputc('\n', out);
    }
}

static attn_status act(const cli_opts *o, const lesson_page *pg, bool zh, FILE *out, attn_err *err) {
    hf_state s;
    char *json = NULL;
    attn_status st = compute(&s, o, err);
    bool heads = pg || o->dump_path || (o->print && o->model.print_name && cli_hf_stage_from_name(o->model.print_name) == HF_ST_HEADS);
    if (st == ATTN_OK && heads) st = find_heads(&s, err);
    if (st == ATTN_OK && pg && o->print) {
        page_hf h = {.scores = s.scores, .count = s.r.n_layer * s.r.n_head, .n_head = s.r.n_head};
        print_page(out, pg, &h, o, zh);
        fputc('\n', out);
    }
    if (st == ATTN_OK && o->explain) st = explain(out, &s, &o->model, false, err); // a cell that does not exist is refused first
    if (st == ATTN_OK && o->dump_path) {
        json = dump(&s, o->model.dump_weights);
        st = json ? attn_write_file(o->dump_path, json, strlen(json), NULL, err)
                  : attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the JSON dump.");
    }
    if (st == ATTN_OK && o->print) print_all(out, &s, o, zh);
    if (st == ATTN_OK && o->explain) st = explain(out, &s, &o->model, true, err);
    free(json);
    state_free(&s);
    return st;
}

int cli_hf_run_page(const cli_opts *o, const lesson_page *pg, bool zh, FILE *out, FILE *errf) {
    attn_err err;
    attn_err_clear(&err);
    attn_status st = ATTN_OK;
    if (o->model.hf_dir) st = act(o, pg, zh, out, &err);
    else if (o->dump_path || o->explain)
        st = attn_fail_id(&err, ATTN_ERR_IO, ATTN_MSG_CH_PAGE_NO_FOLDER,
                          pg->id, pg->hf_name, pg->hf_why ? pg->hf_why : "");
    else if (o->print) print_page(out, pg, NULL, o, zh);
    if (st != ATTN_OK) cli_print_err(o, errf, &err);
    fflush(out);
    return st == ATTN_OK ? 0 : 1;
}

int cli_hf_run(const cli_opts *o, FILE *out, FILE *errf) {
    attn_err err;
    attn_err_clear(&err);
    attn_status st = act(o, NULL, cli_lang_zh(o), out, &err);
    if (st != ATTN_OK) cli_print_err(o, errf, &err);
    fflush(out);
    return st == ATTN_OK ? 0 : 1;
}
