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

static void head_name(attn_strbuf *b, int k, int n_head, double v, bool zh) {
    if (zh) attn_sb_printf(b, "第 %d 层头 %d（%.2f）", k / n_head + 1, k % n_head + 1, v);
    else attn_sb_printf(b, "layer %d head %d (%.2f)", k / n_head + 1, k % n_head + 1, v);
}

void page_hf_ref_text(const page_hf *h, const lesson_ref *ref, bool zh, char *out, size_t cap) {
    if (cap) out[0] = '\0';
    if (ref->kind != LESSON_REF_HEADS || !h->scores || cap == 0) return;
    int *order = malloc(sizeof *order * (size_t)h->count);
    if (!order) return;
    hf_head_rank(h->scores, h->count, ref->field, order);
    int pass = 0;
    while (pass < h->count && hf_head_score_get(&h->scores[order[pass]], ref->field) >= ref->threshold) pass++;
    attn_strbuf b;
    attn_sb_init(&b);
    if (pass == 0) { // a sentence for when none passes, naming the highest
        double best = h->count ? hf_head_score_get(&h->scores[order[0]], ref->field) : 0.0;
        if (zh) attn_sb_printf(&b, "没有一个头达到 %.2f（最高的是第 %d 层头 %d，%.2f）", ref->threshold,
                               order[0] / h->n_head + 1, order[0] % h->n_head + 1, best);
        else attn_sb_printf(&b, "no head reaches %.2f (the highest is layer %d head %d, at %.2f)", ref->threshold,
                            order[0] / h->n_head + 1, order[0] % h->n_head + 1, best);
    } else if (zh) attn_sb_printf(&b, "至少 %.2f 的有：", ref->threshold);
    else attn_sb_printf(&b, "at least %.2f: ", ref->threshold);
    int named = pass < PAGE_HF_NAMED ? pass : PAGE_HF_NAMED;
    for (int k = 0; k < named; k++) {
        if (k) attn_sb_puts(&b, zh ? "、" : ", ");
        head_name(&b, order[k], h->n_head, hf_head_score_get(&h->scores[order[k]], ref->field), zh);
    }
    if (pass > named) {
        if (zh) attn_sb_printf(&b, "，另有 %d 个", pass - named);
        else attn_sb_printf(&b, " and %d more", pass - named);
    }
    free(order);
    char *text = attn_sb_take(&b);
    if (text) {
        snprintf(out, cap, "%s", text);
        utf8_trim_partial(out); // cut on a character, never inside one
        free(text);
    }
}
