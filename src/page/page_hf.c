/* page_hf.c — a page's real model (@hf) and its {heads …} references (page.h). */
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "utf8.h"

void page_hf_free(page_hf *h) {
    if (!h) return;
    free(h->scores);
    hf_run_free(&h->r);
    hf_tokens_free(&h->toks);
    hf_model_free(&h->m);
    memset(h, 0, sizeof *h);
}

attn_status page_hf_open(page_hf *out, const lesson_page *pg, const char *sentence, size_t len, attn_err *err) {
    memset(out, 0, sizeof *out);
    if (!pg->hf_path)
        return attn_fail(err, ATTN_ERR_IO, "Page %s reads the model folder %s, which was not found (%s).", pg->id,
                         pg->hf_name ? pg->hf_name : "(none)", pg->hf_why ? pg->hf_why : "no @hf");
    if (!sentence) {
        sentence = pg->sentence;
        len = strlen(sentence);
    }
    // pass 1: the model, the sentence's tokens, the forward
    attn_status st = hf_model_open(&out->m, pg->hf_path, err);
    if (st == ATTN_OK) st = hf_model_tokenize(&out->m, sentence, len, false, &out->toks, err);
    int *ids = st == ATTN_OK ? malloc(sizeof *ids * (size_t)out->toks.count) : NULL;
    if (st == ATTN_OK && !ids) st = attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    for (int i = 0; st == ATTN_OK && i < out->toks.count; i++) ids[i] = out->toks.v[i].id;
    if (st == ATTN_OK) st = hf_forward(&out->r, &out->m, ids, out->toks.count, err);
    free(ids);
    // pass 2: the head finder
    if (st == ATTN_OK) {
        out->n_head = out->r.n_head;
        out->count = out->r.n_layer * out->r.n_head;
        out->scores = calloc((size_t)out->count, sizeof *out->scores);
        st = out->scores ? hf_head_scores(&out->m, &out->r, HF_INDUCTION_LEN, HF_INDUCTION_SEED, out->scores, err)
                         : attn_fail(err, ATTN_ERR_NOMEM, "Out of memory.");
    }
    if (st != ATTN_OK) page_hf_free(out);
    return st;
}

const page_hf_words page_hf_words_en = {
    .none = "no head reaches %.2f (the highest is layer %d head %d, at %.2f)",
    .pass = "at least %.2f: %s",
    .head = "layer %d head %d (%.2f)",
    .list = "%s, %s",
    .more = "%s and %d more",
};

/* b's text, then b emptied: a format's %s argument ("" when out of memory). */
static char *take(attn_strbuf *b) {
    char *s = attn_sb_take(b);
    attn_sb_init(b);
    return s;
}

void page_hf_ref_text(const page_hf *h, const lesson_ref *ref, const page_hf_words *w, char *out, size_t cap) {
    if (cap) out[0] = '\0';
    if (ref->kind != LESSON_REF_HEADS || !h || !h->scores || h->count <= 0 || cap == 0) return;
    if (!w) w = &page_hf_words_en;
    int *order = malloc(sizeof *order * (size_t)h->count);
    if (!order) return;
    hf_head_rank(h->scores, h->count, ref->field, order);
    int pass = 0;
    while (pass < h->count && hf_head_score_get(&h->scores[order[pass]], ref->field) >= ref->threshold) pass++;
    attn_strbuf b;
    attn_sb_init(&b);
    if (pass == 0) // a sentence for when none passes, naming the highest
        attn_sb_printf(&b, w->none, ref->threshold, order[0] / h->n_head + 1, order[0] % h->n_head + 1,
                       hf_head_score_get(&h->scores[order[0]], ref->field));
    int named = pass < PAGE_HF_NAMED ? pass : PAGE_HF_NAMED;
    for (int k = 0; k < named; k++) { // the list grows one head at a time, through w->list
        char *so_far = take(&b), one[96];
        snprintf(one, sizeof one, w->head, order[k] / h->n_head + 1, order[k] % h->n_head + 1,
                 hf_head_score_get(&h->scores[order[k]], ref->field));
        if (k) attn_sb_printf(&b, w->list, so_far ? so_far : "", one);
        else attn_sb_puts(&b, one);
        free(so_far);
    }
    if (pass > named) {
        char *list = take(&b);
        attn_sb_printf(&b, w->more, list ? list : "", pass - named);
        free(list);
    }
    if (pass > 0) {
        char *list = take(&b);
        attn_sb_printf(&b, w->pass, ref->threshold, list ? list : "");
        free(list);
    }
    free(order);
    char *text = attn_sb_take(&b);
    if (text) {
        snprintf(out, cap, "%s", text);
        utf8_trim_partial(out); // cut on a character, never inside one
        free(text);
    }
}
