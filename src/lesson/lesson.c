/* lesson.c — pass 2 of the lesson parser, and the public API (lesson.h).
 *
 * Pass 1 (lesson_read.c) has read the file into pages, paragraphs, blocks and
 * raw directives. Here the directives of the lesson and of each page are
 * interpreted against the page's sentence (tokenized with the lesson's
 * vocabulary) and configuration. Errors are collected with their line and
 * column and sorted into file order at the end; lesson_parse reports the
 * first, lesson_check all of them. */
#include "lesson.h"

#include "lesson_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_settings.h"
#include "attn_steps.h"
#include "fileio.h"
#include "tokenize.h"

#define ARENA_SLACK (1u << 20) /* room kept for what the other pages still need */
#include "utf8.h"

/* Column of a position inside a directive's args. */
static int dir_col(const raw_dir *d, const char *at) {
    return d->col + lsn_count_chars(d->args, at);
}

/* ---- pass 2: the lesson's own settings -------------------------------------- */

/* Applies one "key=value" to c (the settings' table: attn_settings.h);
 * reports and returns false when wrong. */
static bool apply_setting(parser *p, const raw_dir *d, const char *k, size_t kn, const char *v, size_t vn,
                          attn_config *c, bool *set_d_model) {
    int key = attn_setting_by_key(k, kn);
    attn_err e;
    if (key < 0) {
        lsn_add_msg(p, d->line, dir_col(d, k), ATTN_MSG_LSN_SETTING_UNKNOWN, (int)kn, k, attn_setting_keys());
        return false;
    }
    const attn_setting *s = attn_setting_at(key);
    size_t shown = vn;
    if (s->kind == ATTN_SETTING_INT && (vn == 0 || v[0] < '0' || v[0] > '9')) vn = 0; // a lesson's numbers: digits only
    switch (attn_setting_parse(key, v, vn, c, &e)) {
    case ATTN_SETTING_OK:
        if (key == ATTN_SET_D_MODEL) *set_d_model = true;
        return true;
    case ATTN_SETTING_NOT_WHOLE:
    case ATTN_SETTING_RANGE:
        lsn_add_msg(p, d->line, dir_col(d, v), ATTN_MSG_LSN_SETTING_WHOLE, s->key,
                    s->lo, s->hi, (int)shown, v);
        return false;
    case ATTN_SETTING_BAD: break;
    }
    if (s->kind == ATTN_SETTING_MASK) lsn_add_err_of(p, d->line, dir_col(d, v), ATTN_MSG_NONE, &e);
    else if (s->kind == ATTN_SETTING_ONOFF)
        lsn_add_msg(p, d->line, dir_col(d, v), ATTN_MSG_LSN_SETTING_ONOFF, s->key, (int)vn, v);
    else
        lsn_add_msg(p, d->line, dir_col(d, v),
                    ATTN_MSG_LSN_SETTING_COLUMNS,
                    s->key, s->key, (int)vn, v);
    return false;
}

/* "key=value key=value" (for @compare also "key value"). */
static bool apply_settings(parser *p, const raw_dir *d, attn_config *c, bool *set_d_model, bool allow_pairs) {
    const char *s = d->args, *end = d->args + strlen(d->args), *w;
    size_t wn;
    bool ok = true, any = false;
    while (ok && lsn_next_word(&s, end, &w, &wn)) {
        const char *eq = memchr(w, '=', wn);
        const char *v;
        size_t vn;
        if (eq) {
            v = eq + 1;
            vn = wn - (size_t)(v - w);
            wn = (size_t)(eq - w);
        } else if (!allow_pairs || !lsn_next_word(&s, end, &v, &vn)) {
            lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_SETTINGS_KV);
            return false;
        }
        ok = apply_setting(p, d, w, wn, v, vn, c, set_d_model);
        any = true;
    }
    if (ok && !any)
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_DIR_NEEDS_SETTINGS, lsn_dir_names[d->kind]);
    return ok && any;
}

static const raw_dir *find_dir(parser *p, const scope *sc, dir_kind kind) {
    const raw_dir *found = NULL;
    for (int i = 0; i < sc->n_dirs; i++) {
        if (sc->dirs[i].kind != kind) continue;
        if (found)
            lsn_add_msg(p, sc->dirs[i].line, 1, ATTN_MSG_LSN_DIR_TWICE,
                        lsn_dir_names[kind], found->line);
        else found = &sc->dirs[i];
    }
    return found;
}

static void tokens_list(const attn_tokens *t, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->n && used + 1 < cap; i++) {
        int len;
        const char *tok = attn_token_text(t, i, &len);
        int w = snprintf(buf + used, cap - used, "%s%.*s", i ? " " : "", len, tok);
        if (w < 0 || (size_t)w >= cap - used) {
            size_t at = used < cap - 5 ? used : cap - 5;
            while (at > 0 && ((unsigned char)buf[at] & 0xC0) == 0x80) at--; // not inside a character
            snprintf(buf + at, 5, " …");
            return;
        }
        used += (size_t)w;
    }
}

/* Tokenizes a sentence with the lesson's words; reports at d when it fails. */
static bool tokenize_sentence(parser *p, const raw_dir *d, const char *s, attn_tokens *t) {
    lesson *l = p->l;
    attn_wordlist wl = {l->n_words, l->word_ptrs, l->word_order};
    attn_err e;
    if (attn_tokenize(t, s, strlen(s), l->word_ptrs ? &wl : NULL, &e) == ATTN_OK) return true;
    lsn_add_err_of(p, d ? d->line : 1, d ? d->col : 1, ATTN_MSG_LSN_SENTENCE_UNUSABLE, &e);
    return false;
}

static int by_word_then_place(const void *a, const void *b) {
    const vocab_word *x = *(const vocab_word *const *)a, *y = *(const vocab_word *const *)b;
    int d = strcmp(x->word, y->word);
    return d ? d : (x > y) - (x < y); // the words array is in file order
}

/* A word listed twice is reported at each repeat, against its first line
 * (sorted: n log n, where comparing every pair took minutes for 100,000 words). */
static void report_repeats(parser *p) {
    lesson *l = p->l;
    const vocab_word **v = malloc(sizeof *v * (size_t)(l->n_words ? l->n_words : 1));
    if (!lsn_nomem_check(p, v)) return;
    for (int i = 0; i < l->n_words; i++) v[i] = &l->words[i];
    qsort(v, (size_t)l->n_words, sizeof *v, by_word_then_place);
    for (int i = 1, first = 0; i < l->n_words; i++) {
        if (strcmp(v[i]->word, v[first]->word) != 0) first = i;
        else lsn_add_msg(p, v[i]->line, v[i]->col, ATTN_MSG_LSN_WORD_TWICE, v[i]->word, v[first]->line);
    }
    free(v);
}

/* Each vocabulary word must stay one token, and be listed once. */
static void resolve_vocab(parser *p) {
    lesson *l = p->l;
    if (l->n_features == 0) l->has_vocab = false; // empty or unreadable: already reported
    if (!l->has_vocab) return;
    l->word_ptrs =
        lsn_nomem_check(p, lsn_arena_alloc(&l->mem, sizeof *l->word_ptrs * (size_t)(l->n_words + 1)));
    l->word_order = lsn_nomem_check(p, lsn_arena_alloc(&l->mem, sizeof *l->word_order * (size_t)(l->n_words + 1)));
    if (!l->word_ptrs || !l->word_order) return;
    for (int i = 0; i < l->n_words; i++) l->word_ptrs[i] = l->words[i].word;
    attn_words_sort(l->word_order, l->word_ptrs, l->n_words); // lookups binary-search this
    report_repeats(p);
    attn_wordlist wl = {l->n_words, l->word_ptrs, l->word_order};
    for (int i = 0; i < l->n_words; i++) {
        const vocab_word *w = &l->words[i];
        attn_tokens t = {0};
        if (attn_tokenize(&t, w->word, strlen(w->word), &wl, NULL) != ATTN_OK || t.n != 1) {
            char list[200];
            tokens_list(&t, list, sizeof list);
            lsn_add_msg(p, w->line, w->col,
                        ATTN_MSG_LSN_NOT_ONE_TOKEN,
                        w->word, t.n ? list : "nothing");
        }
        attn_tokens_free(&t);
    }
    l->vocab =
        (attn_vocab){l->n_features, l->n_words, l->word_ptrs, l->vectors, (const char *const *)l->features,
                     l->word_order};
}

static const char *mat_shape_words(attn_matrix kind) {
    return kind == ATTN_MAT_W_O        ? "heads·d_k × d_model"
           : kind == ATTN_MAT_B_O      ? "1 × d_model"
           : attn_matrix_is_bias(kind) ? "1 × d_k"
                                       : "d_model × d_k";
}

static bool mat_fits(const design_mat *m, const attn_config *c) {
    int rows, cols;
    attn_matrix_shape(m->kind, c, &rows, &cols);
    return m->rows == rows && m->cols == cols;
}

/* Row labels of W_Q/W_K/W_V, when given, must name the vocabulary's features. */
static void check_labels(parser *p, const design_mat *m) {
    lesson *l = p->l;
    if (attn_matrix_is_bias(m->kind) || !attn_matrix_per_head(m->kind) || !l->has_vocab) return;
    for (int r = 0; r < m->rows && r < l->n_features; r++) {
        const row_note *n = &m->notes[r];
        if (n->label && strcmp(n->label, l->features[r]) != 0)
            lsn_add_msg(p, n->line, n->col, ATTN_MSG_LSN_ROW_LABEL_DIM, r + 1,
                        attn_matrix_name(m->kind), n->label, r + 1, l->features[r]);
    }
}

/* Checks each designed matrix of sc against c (heads: whether a head index
 * beyond c->heads is an error, as on a page, or allowed, as in the lesson). */
static bool check_mats(parser *p, const scope *sc, const attn_config *c, bool heads_strict) {
    int before = p->errs.n;
    for (int i = 0; i < sc->n_mats; i++) {
        const design_mat *m = &sc->mats[i];
        if (m->rows == 0 || m->broken) continue; // already reported
        if (heads_strict && m->head >= c->heads) {
            lsn_add_msg(p, m->line, m->col, c->heads == 1 ? ATTN_MSG_LSN_HEADS_UNUSED_1 : ATTN_MSG_LSN_HEADS_UNUSED, c->heads,
                        attn_matrix_name(m->kind), m->head);
        } else if (!mat_fits(m, c)) {
            int rows, cols;
            attn_matrix_shape(m->kind, c, &rows, &cols);
            char with[64];
            snprintf(with, sizeof with, "d_model=%d d_k=%d heads=%d", c->d_model, c->d_k, c->heads);
            attn_msg id = rows == 1 ? (m->rows == 1 ? ATTN_MSG_LSN_MAT_SHAPE_11 : ATTN_MSG_LSN_MAT_SHAPE_1N)
                                    : (m->rows == 1 ? ATTN_MSG_LSN_MAT_SHAPE_N1 : ATTN_MSG_LSN_MAT_SHAPE);
            lsn_add_msg(p, m->line, m->col, id, attn_matrix_name(m->kind), rows, cols, mat_shape_words(m->kind), with,
                        m->rows, m->cols);
        }
        check_labels(p, m);
    }
    return p->errs.n == before;
}

/* Whether w names a column of a design in sc. */
static bool names_column(const scope *sc, const char *w, size_t n) {
    for (int i = 0; i < sc->n_mats; i++)
        for (int k = 0; k < sc->mats[i].n_names; k++)
            if (lsn_word_is(w, n, sc->mats[i].names[k])) return true;
    return false;
}

/* "@features: NAME …": labels kept first when labels thin out, each a
 * feature of the vocabulary or a column named by a design (of page, when not
 * NULL, or of the lesson). Returns false after reporting a name that is none. */
static bool resolve_features(parser *p, const raw_dir *d, const scope *page, const char ***out, int *n_out) {
    lesson *l = p->l;
    const char *s = d->args, *end = s + strlen(s), *w;
    size_t wn;
    int n = 0, cap = 0;
    const char **keep = NULL;
    while (lsn_next_word(&s, end, &w, &wn)) {
        bool known = names_column(&l->top, w, wn) || (page && names_column(page, w, wn));
        for (int i = 0; i < l->n_features && !known; i++) known = lsn_word_is(w, wn, l->features[i]);
        if (!known) {
            lsn_add_msg(p, d->line, dir_col(d, w),
                        ATTN_MSG_LSN_NOT_FEATURE,
                        (int)wn, w);
            return false;
        }
        const char **slot = lsn_nomem_check(p, PUSH(&l->mem, keep, n, cap));
        if (slot) *slot = lsn_nomem_check(p, lsn_arena_strndup(&l->mem, w, wn));
    }
    if (n == 0) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_FEATURES);
        return false;
    }
    *out = keep;
    *n_out = n;
    return true;
}

/* The lesson's header, vocabulary, @config, @sentence and designs. */
/* "@roles: noun=FEATURE predicate=FEATURE" (before the first page): the
 * features of X that mark a designed sentence's nouns and its predicate, so
 * that $other and $predicate find them in any sentence. */
static void resolve_roles(parser *p) {
    lesson *l = p->l;
    p->role_features[0] = p->role_features[1] = -1;
    const raw_dir *d = find_dir(p, &l->top, D_ROLES);
    const char *s = d ? d->args : "", *end = s + strlen(s), *w;
    size_t n;
    while (d && lsn_next_word(&s, end, &w, &n)) {
        const char *eq = memchr(w, '=', n);
        size_t kn = eq ? (size_t)(eq - w) : n, fn = eq ? n - kn - 1 : 0;
        int k = !eq ? -1 : lsn_word_is(w, kn, "noun")    ? 0
                       : lsn_word_is(w, kn, "predicate") ? 1
                                                         : -1,
            f = -1;
        for (int i = 0; k >= 0 && i < l->n_features; i++)
            if (lsn_word_is(eq + 1, fn, l->features[i])) f = i;
        if (f < 0)
            lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_ROLES_WRITE,
                        (int)n, w);
        else p->role_features[k] = f;
    }
}

static void resolve_lesson(parser *p) {
    lesson *l = p->l;
    if (!l->id) lsn_add_msg(p, 1, 1, ATTN_MSG_LSN_NO_HEADER);
    if (!l->title) lsn_add_msg(p, 1, 1, ATTN_MSG_LSN_NO_TITLE);
    if (!l->lang)
        lsn_add_msg(p, 1, 1, ATTN_MSG_LSN_NO_LANG);
    if (l->n_pages == 0) lsn_add_msg(p, 1, 1, ATTN_MSG_LSN_NO_PAGES);
    resolve_vocab(p);
    attn_config_default(&l->cfg);
    bool set_dm = false;
    const raw_dir *cfg = find_dir(p, &l->top, D_CONFIG);
    attn_err e;
    if (cfg && !apply_settings(p, cfg, &l->cfg, &set_dm, false)) {
        p->top_config_bad = true;
    } else if (l->has_vocab && set_dm && l->n_features != l->cfg.d_model) {
        lsn_add_msg(p, cfg->line, cfg->col, l->n_features == 1 ? ATTN_MSG_LSN_DMODEL_FEATURES_1 : ATTN_MSG_LSN_DMODEL_FEATURES,
                    l->cfg.d_model, l->n_features);
        p->top_config_bad = true;
    } else {
        if (l->has_vocab) l->cfg.d_model = l->n_features;
        if (attn_config_check(&l->cfg, &e) != ATTN_OK) {
            lsn_add_err_of(p, cfg ? cfg->line : l->vocab_line, cfg ? cfg->col : 1, ATTN_MSG_NONE, &e);
            p->top_config_bad = true;
        }
    }
    const raw_dir *sent = find_dir(p, &l->top, D_SENTENCE);
    if (sent) {
        attn_tokens t = {0};
        if (tokenize_sentence(p, sent, sent->args, &t)) l->sentence = sent->args;
        else p->top_sentence_bad = true;
        attn_tokens_free(&t);
    }
    if (!p->top_config_bad) check_mats(p, &l->top, &l->cfg, false);
    const raw_dir *keep = find_dir(p, &l->top, D_FEATURES);
    if (keep) resolve_features(p, keep, NULL, &l->keep, &l->n_keep);
    resolve_roles(p);
}

/* ---- pass 2: pages ------------------------------------------------------- */

typedef struct {
    page_rec *rec;
    attn_tokens toks;
    const raw_dir *seen[D_KINDS];
} page_ctx;

static void copy_tokref(parser *p, lesson_tokref *out, const attn_tokens *t, int i) {
    int len;
    const char *tok = attn_token_text(t, i, &len);
    out->index = i;
    out->text = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, tok, (size_t)len));
}

static bool token_is(const attn_tokens *t, int i, const char *w, size_t n) {
    int len;
    const char *tok = attn_token_text(t, i, &len);
    return (size_t)len == n && memcmp(tok, w, n) == 0;
}

/* A token named as it is written (它) or with its position (7:只). */
static bool resolve_tokref(parser *p, const raw_dir *d, const char *w, size_t n, const attn_tokens *t,
                           lesson_tokref *out) {
    const char *colon = memchr(w, ':', n);
    long long pos;
    if (colon && colon > w && colon + 1 < w + n && lsn_parse_int(w, (size_t)(colon - w), 1, 1000000, &pos)) {
        const char *tw = colon + 1;
        size_t tn = n - (size_t)(tw - w);
        if (pos > t->n) {
            lsn_add_msg(p, d->line, dir_col(d, w),
                        ATTN_MSG_LSN_FEWER_TOKENS, t->n, pos);
        } else if (!token_is(t, (int)pos - 1, tw, tn)) {
            int len;
            const char *tok = attn_token_text(t, (int)pos - 1, &len);
            lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_TOKEN_IS, pos,
                        len, tok, (int)tn, tw);
        } else {
            copy_tokref(p, out, t, (int)pos - 1);
            return true;
        }
        return false;
    }
    int found = -1, count = 0;
    char where[64] = "";
    for (int i = 0; i < t->n; i++) {
        if (!token_is(t, i, w, n)) continue;
        if (found < 0) found = i;
        size_t used = strlen(where);
        snprintf(where + used, sizeof where - used, "%s%d:%.*s", count ? " or " : "", i + 1, (int)n, w);
        utf8_trim_partial(where);
        count++;
    }
    if (count == 1) {
        copy_tokref(p, out, t, found);
        return true;
    }
    char list[240];
    tokens_list(t, list, sizeof list);
    if (count == 0)
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_NO_TOKEN,
                    (int)n, w, list);
    else
        lsn_add_msg(p, d->line, dir_col(d, w),
                    ATTN_MSG_LSN_TOKEN_TIMES, (int)n, w, count,
                    where);
    return false;
}

/* The roles a reference may name a token by, as written after its $. */
static const char *const role_names[LESSON_ROLE_COUNT] = {"", "pronoun", "referent", "other", "predicate", "top"};

/* A @try sentence without a token a reference names. */
static void lesson_add_try_err(parser *p, int line, int col, const char *sentence, const char *token) {
    bool role = strcmp(token, role_names[LESSON_ROLE_PRONOUN]) == 0;
    if (role) lsn_add_msg(p, line, col, ATTN_MSG_LSN_TRY_NO_PRONOUN, sentence);
    else lsn_add_msg(p, line, col, ATTN_MSG_LSN_TRY_NO_TOKEN, sentence, token);
}

static bool referent_task(parser *p, const lesson_page *pg) {
    lesson_model_facts f;
    memset(&f, 0, sizeof f);
    p->l->src->facts(pg->model, &f);
    return f.task && strncmp(f.task, "referent", 8) == 0;
}

/* A reference's token: as written (它, 7:只), or by its role ($pronoun …),
 * which every sentence the page shows finds again. */
static bool resolve_ref_token(parser *p, page_ctx *c, const raw_dir *d, const char *w, size_t n, lesson_tokref *out) {
    if (n == 0 || w[0] != '$') return resolve_tokref(p, d, w, n, &c->toks, out);
    const lesson_page *pg = &c->rec->pub;
    int role = 0;
    for (int k = 1; k < LESSON_ROLE_COUNT; k++)
        if (lsn_word_is(w + 1, n - 1, role_names[k])) role = k;
    bool needs_nouns = role == LESSON_ROLE_OTHER || role == LESSON_ROLE_PREDICATE;
    if (!role)
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_ROLE_UNKNOWN,
                    (int)n, w);
    else if (attn_tokens_pronoun(&c->toks) < 0)
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_ROLE_PRONOUN, (int)n, w);
    else if (needs_nouns && !pg->model && p->role_features[role == LESSON_ROLE_OTHER ? 0 : 1] < 0)
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_ROLE_ROLES,
                    (int)n, w);
    else if (needs_nouns && pg->model && !referent_task(p, pg))
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_ROLE_REFERENT,
                    (int)n, w);
    else {
        *out = (lesson_tokref){-1, NULL, role, p->role_features[0], p->role_features[1]};
        return true;
    }
    return false;
}

/* The step a lesson names by its name (attn_step_name: "scores", "rope") or
 * its key in the step table ("3", "2b"), or -1. */
static int lesson_step_of(const char *w, size_t n) {
    int s = attn_step_from_name(w, n);
    long long v;
    if (s < 0 && lsn_parse_int(w, n, 1, 8, &v)) s = attn_step_numbered((int)v);
    return s >= 0 ? s : attn_step_from_key(w, n);
}

/* "1 tokens, 2 qkv, 2b rope, … 7 sum and 8 heads" from the step table (each
 * row's key and name), the last two joined by last (" and ", " or "): what
 * an error about a step lists. */
static const char *step_list(char *buf, size_t cap, const char *last) {
    buf[0] = '\0';
    for (int s = 0; s < ATTN_STEP_COUNT; s++) {
        const attn_step_info *row = attn_step_get((attn_step)s);
        const char *sep = s == 0 ? "" : s == ATTN_STEP_COUNT - 1 ? last
                                                                 : ", ";
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s %s", sep, row->key, row->name);
    }
    return buf;
}

/* "1".."8", "2b" or a step name (attn_step_name). */
static void resolve_step(parser *p, page_ctx *c, const raw_dir *d) {
    size_t n = strlen(d->args);
    if (c->rec->pub.model && (lsn_word_is(d->args, n, "readout") || lsn_word_is(d->args, n, "9"))) {
        c->rec->pub.readout = true; // the model's answer, after its last layer
        return;
    }
    int s = lesson_step_of(d->args, n);
    if (s < 0) {
        char steps[160];
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_STEP_UNKNOWN, d->args,
                    step_list(steps, sizeof steps, " and "));
        return;
    }
    if (s == ATTN_STEP_ROPE && !c->rec->pub.model && !c->rec->pub.cfg.rope) { // a model's file says its own
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_STEP_ROPE);
        return;
    }
    c->rec->pub.step = s;
}

static void resolve_highlight(parser *p, page_ctx *c, const raw_dir *d) {
    static const char *const kinds[] = {"", "token", "row", "column", "cell"};
    const char *s = d->args, *end = s + strlen(s), *w, *a, *b;
    size_t wn, an, bn;
    int kind = 0;
    if (lsn_next_word(&s, end, &w, &wn))
        for (int k = 1; k <= 4; k++)
            if (lsn_word_is(w, wn, kinds[k])) kind = k;
    bool has_a = kind && lsn_next_word(&s, end, &a, &an);
    bool has_b = kind == LESSON_HL_CELL && has_a && lsn_next_word(&s, end, &b, &bn);
    if (!kind || !has_a || (kind == LESSON_HL_CELL && !has_b) || lsn_skip_spaces(s, end) != end) {
        lsn_add_msg(
            p, d->line, d->col,
            ATTN_MSG_LSN_HIGHLIGHT);
        return;
    }
    lesson_highlight *h = &c->rec->pub.highlight;
    if (!resolve_tokref(p, d, a, an, &c->toks, &h->a)) return;
    if (kind == LESSON_HL_CELL && !resolve_tokref(p, d, b, bn, &c->toks, &h->b)) return;
    h->kind = (lesson_highlight_kind)kind;
}

static bool check_head(parser *p, const raw_dir *d, const char *w, size_t n, int heads, int *out) {
    long long h;
    if (lsn_parse_int(w, n, 0, heads - 1, &h)) {
        *out = (int)h;
        return true;
    }
    lsn_add_msg(p, d->line, dir_col(d, w), heads == 1 ? ATTN_MSG_LSN_HEAD_MISSING_1 : ATTN_MSG_LSN_HEAD_MISSING, (int)n, w,
                heads);
    return false;
}

static bool check_layer(parser *p, const raw_dir *d, const char *w, size_t n, int layers, int *out) {
    long long v;
    if (lsn_parse_int(w, n, 0, layers - 1, &v)) {
        *out = (int)v;
        return true;
    }
    lsn_add_msg(p, d->line, dir_col(d, w), layers == 1 ? ATTN_MSG_LSN_LAYER_MISSING_1 : ATTN_MSG_LSN_LAYER_MISSING, (int)n,
                w, layers);
    return false;
}

/* "query=T head=H answer=T" (head defaults to 0, answer is optional; layer=L on a model page). */
static void resolve_predict(parser *p, page_ctx *c, const raw_dir *d) {
    lesson_predict pr = {.on = true, .query = LESSON_TOKREF_NONE, .layer = -1, .answer = LESSON_TOKREF_NONE};
    const char *s = d->args, *end = s + strlen(s), *w;
    size_t wn;
    while (lsn_next_word(&s, end, &w, &wn)) {
        const char *eq = memchr(w, '=', wn);
        const char *v = eq ? eq + 1 : w + wn;
        size_t vn = (size_t)(w + wn - v), kn = eq ? (size_t)(eq - w) : wn;
        bool ok;
        if (lsn_word_is(w, kn, "query") && vn) ok = resolve_tokref(p, d, v, vn, &c->toks, &pr.query);
        else if (lsn_word_is(w, kn, "answer") && vn) ok = resolve_tokref(p, d, v, vn, &c->toks, &pr.answer);
        else if (lsn_word_is(w, kn, "head") && vn)
            ok = check_head(p, d, v, vn, c->rec->pub.cfg.heads, &pr.head);
        else if (lsn_word_is(w, kn, "layer") && vn && c->rec->pub.model)
            ok = check_layer(p, d, v, vn, c->rec->pub.model_layers, &pr.layer);
        else {
            lsn_add_msg(p, d->line, dir_col(d, w),
                        ATTN_MSG_LSN_PREDICT_WRITE);
            ok = false;
        }
        if (!ok) return;
    }
    if (pr.query.index < 0) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_PREDICT_QUERY);
        return;
    }
    c->rec->pub.predict = pr;
}

/* @reveal: the paragraphs after it wait for the answer to the page's @predict. */
static void resolve_reveal(parser *p, page_ctx *c, const raw_dir *d) {
    if (d->args[0]) lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_REVEAL_ARGS);
    else if (!c->seen[D_PREDICT])
        lsn_add_msg(p, d->line, 1, ATTN_MSG_LSN_REVEAL_PREDICT);
    else c->rec->pub.has_reveal = true;
}

/* "head A | head B", or settings for the second view ("scale=off", "scale off"). */
/* Whether an @compare compares two sentences ("sentence TEXT"). */
static bool compares_sentences(const raw_dir *d) {
    const char *s0 = lsn_skip_spaces(d->args, d->args + strlen(d->args));
    return !strncmp(s0, "sentence", 8) && (s0[8] == ' ' || s0[8] == '\t' || s0[8] == '\0');
}

static void resolve_compare(parser *p, page_ctx *c, const raw_dir *d) {
    lesson_compare *cmp = &c->rec->pub.compare;
    const char *bar = strchr(d->args, '|'), *end = d->args + strlen(d->args);
    cmp->label = d->args;
    if (compares_sentences(d)) { // a trained model's two sentences
        const char *text = lsn_skip_spaces(lsn_skip_spaces(d->args, end) + 8, end);
        if (text == end) {
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_COMPARE_SENTENCE_WRITE);
            return;
        }
        cmp->sentence = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, text, (size_t)(end - text)));
        if (cmp->sentence) cmp->kind = LESSON_CMP_SENTENCE;
        return;
    }
    if (bar) {
        const char *s = d->args, *w[4];
        size_t n[4];
        int heads = c->rec->pub.cfg.heads;
        bool shape = lsn_next_word(&s, bar, &w[0], &n[0]) && lsn_next_word(&s, bar, &w[1], &n[1]) &&
                     lsn_skip_spaces(s, bar) == bar && (s = bar + 1, lsn_next_word(&s, end, &w[2], &n[2])) &&
                     lsn_next_word(&s, end, &w[3], &n[3]) && lsn_skip_spaces(s, end) == end &&
                     lsn_word_is(w[0], n[0], "head") && lsn_word_is(w[2], n[2], "head");
        if (!shape) {
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_COMPARE_HEADS);
            return;
        }
        if (check_head(p, d, w[1], n[1], heads, &cmp->head_a) &&
            check_head(p, d, w[3], n[3], heads, &cmp->head_b))
            cmp->kind = LESSON_CMP_HEADS;
        return;
    }
    bool set_dm = false;
    cmp->cfg = c->rec->pub.cfg;
    if (!apply_settings(p, d, &cmp->cfg, &set_dm, true)) return;
    attn_err e;
    if (attn_config_check(&cmp->cfg, &e) != ATTN_OK) {
        lsn_add_err_of(p, d->line, d->col, ATTN_MSG_NONE, &e);
        return;
    }
    cmp->kind = LESSON_CMP_CONFIG;
}

/* "gain=G" (optional). */
static bool resolve_random(parser *p, const raw_dir *d, double *gain) {
    const char *s = d->args, *end = s + strlen(s), *w;
    size_t wn;
    *gain = 1.0;
    if (!lsn_next_word(&s, end, &w, &wn)) return true;
    if (!lsn_starts_with(w, wn, "gain=") || lsn_parse_number(w + 5, wn - 5, gain) != LSN_NUM_OK ||
        !(*gain > 0 && *gain <= 100) || lsn_skip_spaces(s, end) != end) {
        lsn_add_msg(p, d->line, dir_col(d, w),
                    ATTN_MSG_LSN_RANDOM_WEIGHTS);
        return false;
    }
    return true;
}

/* Bytes of the gained matrices of a page with configuration c. */
static size_t gained_bytes(const attn_config *c) {
    size_t n = 0;
    for (int m = 0; m < ATTN_MAT_COUNT; m++) {
        if (attn_matrix_is_bias((attn_matrix)m)) continue;
        int rows, cols;
        attn_matrix_shape((attn_matrix)m, c, &rows, &cols);
        n += sizeof(double) * (size_t)rows * cols * (attn_matrix_per_head((attn_matrix)m) ? c->heads : 1);
    }
    return n;
}

/* An earlier page with the same sizes, seed and gain: its matrices serve this one too. */
static const page_rec *same_gain(const parser *p, const page_rec *r) {
    const attn_config *c = &r->pub.cfg;
    for (const page_rec *q = p->l->pages; q < r; q++) {
        const attn_config *qc = &q->pub.cfg;
        if (q->gained[ATTN_MAT_W_O][0] && q->pub.gain == r->pub.gain && qc->d_model == c->d_model &&
            qc->d_k == c->d_k && qc->heads == c->heads && qc->seed == c->seed)
            return q;
    }
    return NULL;
}

/* The seeded random weights times the page's gain, for its own sizes; they
 * count against LESSON_MAX_MEMORY, and passing it is reported at d. */
static void make_gained(parser *p, page_rec *r, const raw_dir *d) {
    const attn_config *c = &r->pub.cfg;
    const page_rec *twin = same_gain(p, r);
    if (twin) {
        memcpy(r->gained, twin->gained, sizeof r->gained);
        return;
    }
    size_t need = gained_bytes(c), used = p->l->mem.total + p->l->model_bytes; // the models count too
    if (need + ARENA_SLACK > LESSON_MAX_MEMORY || used > LESSON_MAX_MEMORY - need - ARENA_SLACK) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_GAIN_MEMORY, (unsigned)(LESSON_MAX_MEMORY >> 20), (double)need / (1 << 20), c->d_model, c->d_k, c->heads);
        p->stop = true;
        return;
    }
    for (int m = 0; m < ATTN_MAT_COUNT; m++) {
        if (attn_matrix_is_bias((attn_matrix)m)) continue; // biases keep their size: gain is for the spread of scores
        int rows, cols, nh = attn_matrix_per_head((attn_matrix)m) ? c->heads : 1;
        attn_matrix_shape((attn_matrix)m, c, &rows, &cols);
        size_t size = (size_t)rows * cols;
        for (int h = 0; h < nh; h++) {
            double *w = lsn_nomem_check(p, lsn_arena_alloc(&p->l->mem, sizeof *w * size));
            if (!w) return;
            attn_seeded_matrix(w, (attn_matrix)m, h, c);
            for (size_t i = 0; i < size; i++) w[i] *= r->pub.gain;
            r->gained[m][h] = w;
        }
    }
}

/* ---- {references} in the text ---------------------------------------------- */

/* The column of a cell reference: a token for the token×token stages, else a
 * dimension 0 … cols-1 (for X also a feature's name). */
/* What the columns of stage are: the core's stages here, a model's own from its source. */
static lesson_cols stage_cols(const parser *p, int stage) {
    if (stage >= ATTN_STAGE_COUNT) return p->l->src->stage_cols(stage); // only a model page has them
    if (stage >= ATTN_ST_SCORES && stage <= ATTN_ST_WEIGHTS) return LESSON_COLS_TOKENS;
    return stage == ATTN_ST_X || stage == ATTN_ST_OUTPUT ? LESSON_COLS_D_MODEL : LESSON_COLS_D_K;
}

static const char *stage_name(const parser *p, int stage) {
    return stage < ATTN_STAGE_COUNT ? attn_stage_name((attn_stage)stage) : p->l->src->stage_name(stage);
}

static bool resolve_ref_col(parser *p, page_ctx *c, const raw_dir *d, const char *w, size_t n, lesson_ref *r) {
    const attn_config *cfg = &c->rec->pub.cfg;
    lesson_cols kind = stage_cols(p, r->stage);
    if (kind == LESSON_COLS_TOKENS) return resolve_ref_token(p, c, d, w, n, &r->col);
    if (kind == LESSON_COLS_WORDS) { // the readout's columns are the vocabulary's words
        int id = p->l->src->word_id(c->rec->pub.model, w, n);
        if (id >= 0) return r->col_dim = id, true;
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_NOT_MODEL_WORD, (int)n, w);
        return false;
    }
    int cols = kind == LESSON_COLS_D_MODEL  ? cfg->d_model
               : r->stage == ATTN_ST_CONCAT ? cfg->heads * cfg->d_k
                                            : cfg->d_k;
    long long v;
    const lesson *l = p->l;
    for (int f = 0; r->stage == ATTN_ST_X && l->has_vocab && f < l->n_features; f++)
        if (lsn_word_is(w, n, l->features[f])) return r->col_dim = f, true;
    if (lsn_parse_int(w, n, 0, cols - 1, &v)) return r->col_dim = (int)v, true;
    lsn_add_msg(p, d->line, dir_col(d, w),
                r->stage == ATTN_ST_X && l->has_vocab ? ATTN_MSG_LSN_NOT_COLUMN_FEATURE : ATTN_MSG_LSN_NOT_COLUMN, (int)n, w,
                stage_name(p, r->stage), cols - 1);
    return false;
}

/* The options after a reference's words: head=H and exact. */
static bool resolve_ref_option(parser *p, page_ctx *c, const raw_dir *d, const char *w, size_t n, lesson_ref *r) {
    if (lsn_word_is(w, n, "exact") &&
        (r->kind == LESSON_REF_CELL || r->kind == LESSON_REF_REST || r->kind == LESSON_REF_RATIO))
        return r->exact = true;
    if (lsn_word_is(w, n, "compare") &&
        (r->kind == LESSON_REF_MEAN_MAX || r->kind == LESSON_REF_CELL || r->kind == LESSON_REF_DECODE ||
         r->kind == LESSON_REF_TILES || r->kind == LESSON_REF_SETTING) &&
        !c->rec->pub.model) {
        if (c->rec->pub.compare.kind == LESSON_CMP_CONFIG) return r->compare = true;
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_COMPARE_NEEDED);
        return false;
    }
    bool per_row = r->kind != LESSON_REF_STEP && r->kind != LESSON_REF_MACS && r->kind != LESSON_REF_TOKENS &&
                   r->kind != LESSON_REF_ACCURACY && r->kind != LESSON_REF_ANSWER && r->kind != LESSON_REF_DECODE &&
                   r->kind != LESSON_REF_DIFF && r->kind != LESSON_REF_SETTING;
    if (lsn_starts_with(w, n, "head=") && per_row) return check_head(p, d, w + 5, n - 5, c->rec->pub.cfg.heads, &r->head);
    if (lsn_starts_with(w, n, "layer=") && c->rec->pub.model && r->kind != LESSON_REF_STEP &&
        r->kind != LESSON_REF_ACCURACY && r->kind != LESSON_REF_ANSWER)
        return check_layer(p, d, w + 6, n - 6, c->rec->pub.model_layers, &r->layer);
    if (lsn_starts_with(w, n, "layer=") && !c->rec->pub.model) {
        lsn_add_msg(p, d->line, dir_col(d, w), ATTN_MSG_LSN_LAYER_MODEL);
        return false;
    }
    lsn_add_msg(p, d->line, dir_col(d, w),
                ATTN_MSG_LSN_REF_OPTION, (int)n, w);
    return false;
}

/* A reference holds at most this many words (the rest is refused). */
#define REF_MAX_WORDS 8

/* What ends every reference: its words from i on are options (head=H, exact,
 * compare, layer=L), and after its REF_MAX_WORDS words (rest: where reading
 * stopped) nothing more. */
static bool parse_ref_options(parser *p, page_ctx *c, const raw_dir *d, const char *const *w, const size_t *n, int i,
                              int count, const char *rest, const char *end, lesson_ref *r) {
    for (; i < count; i++)
        if (!resolve_ref_option(p, c, d, w[i], n[i], r)) return false;
    if (count == REF_MAX_WORDS && lsn_skip_spaces(rest, end) != end) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_REF_WORDS);
        return false;
    }
    return true;
}

static const char *const decode_fields[LESSON_DEC_FIELDS] = {"cells", "macs", "full", "cache",
                                                             "real", "group", "name", "tokens"};
static const char *const tiles_fields[LESSON_TILE_FIELDS] = {"held", "full", "diff", "steps", "skipped"};

static int field_of(const char *const *names, int count, const char *w, size_t n) {
    for (int i = 0; i < count; i++)
        if (lsn_word_is(w, n, names[i])) return i;
    return -1;
}

/* The references of the modern-attention pages (issue 24): {decode FIELD
 * [TOKEN]}, {tiles FIELD B}, {diff STAGE} and {setting KEY}, each with the
 * options after them (compare, head=H). */
static bool parse_modern_ref(parser *p, page_ctx *c, const raw_dir *d, const char *const *w, const size_t *n,
                             int count, const char *s, const char *end, lesson_ref *r) {
    const lesson_page *pg = &c->rec->pub;
    int i = 2;
    if (lsn_word_is(w[0], n[0], "decode")) {
        r->kind = LESSON_REF_DECODE;
        r->field = count > 1 ? field_of(decode_fields, LESSON_DEC_FIELDS, w[1], n[1]) : -1;
        if (r->field < 0) {
            lsn_add_msg(p, d->line, count > 1 ? dir_col(d, w[1]) : d->col,
                        ATTN_MSG_LSN_DECODE_FIELD);
            return false;
        }
        attn_mask_kind mk = pg->cfg.mask.kind;
        if (mk != ATTN_MASK_CAUSAL && mk != ATTN_MASK_CAUSAL_WINDOW && r->field <= LESSON_DEC_REAL) {
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_DECODE_MASK);
            return false;
        }
        if (count > 2 && !memchr(w[2], '=', n[2]) && !lsn_word_is(w[2], n[2], "compare")) {
            if (!resolve_ref_token(p, c, d, w[2], n[2], &r->row)) return false;
            i = 3;
        }
    } else if (lsn_word_is(w[0], n[0], "tiles")) {
        r->kind = LESSON_REF_TILES;
        r->field = count > 1 ? field_of(tiles_fields, LESSON_TILE_FIELDS, w[1], n[1]) : -1;
        long long b;
        if (r->field < 0) {
            lsn_add_msg(p, d->line, count > 1 ? dir_col(d, w[1]) : d->col,
                        ATTN_MSG_LSN_TILES_FIELD);
            return false;
        }
        if (count < 3 || !lsn_parse_int(w[2], n[2], 1, ATTN_MAX_TOKENS, &b)) {
            lsn_add_msg(p, d->line, count > 2 ? dir_col(d, w[2]) : d->col,
                        ATTN_MSG_LSN_TILES_B, (int)n[1], w[1], ATTN_MAX_TOKENS);
            return false;
        }
        r->block = (int)b;
        i = 3;
    } else if (lsn_word_is(w[0], n[0], "diff")) {
        r->kind = LESSON_REF_DIFF;
        r->stage = count > 1 ? attn_stage_from_name_n(w[1], n[1]) : -1;
        if (r->stage < 0) {
            lsn_add_msg(p, d->line, count > 1 ? dir_col(d, w[1]) : d->col, ATTN_MSG_LSN_DIFF_STAGE);
            return false;
        }
        if (pg->compare.kind != LESSON_CMP_CONFIG) {
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_DIFF_COMPARE, (int)n[1], w[1]);
            return false;
        }
    } else {
        r->kind = LESSON_REF_SETTING;
        r->field = count > 1 ? attn_setting_by_key(w[1], n[1]) : -1;
        if (r->field < 0) {
            lsn_add_msg(p, d->line, count > 1 ? dir_col(d, w[1]) : d->col, ATTN_MSG_LSN_SETTING_REF,
                        attn_setting_keys());
            return false;
        }
    }
    return parse_ref_options(p, c, d, w, n, i, count, s, end, r);
}

static const char *const heads_fields[LESSON_HEADS_FIELDS] = {"prev", "induction", "first"};

/* {heads SCORE T} (issue 26): on a page with @hf, the heads whose score
 * (prev, induction or first) reaches T, 0 < T <= 1; computed by whoever
 * shows the page (src/page: page_hf_ref_text), never written by hand. */
static bool parse_heads_ref(parser *p, page_ctx *c, const raw_dir *d, const char *const *w, const size_t *n,
                            int count, lesson_ref *r) {
    r->kind = LESSON_REF_HEADS;
    r->field = count > 1 ? field_of(heads_fields, LESSON_HEADS_FIELDS, w[1], n[1]) : -1;
    if (!c->rec->pub.hf_name) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_HEADS_HF);
        return false;
    }
    if (r->field < 0) {
        lsn_add_msg(p, d->line, count > 1 ? dir_col(d, w[1]) : d->col, ATTN_MSG_LSN_HEADS_SCORE);
        return false;
    }
    double t = 0.0;
    if (count != 3 || lsn_parse_number(w[2], n[2], &t) != LSN_NUM_OK || !(t > 0.0 && t <= 1.0)) {
        lsn_add_msg(p, d->line, count > 2 ? dir_col(d, w[2]) : d->col, ATTN_MSG_LSN_HEADS_THRESHOLD, (int)n[1], w[1]);
        return false;
    }
    r->threshold = t;
    return true;
}

/* One {reference}: its words into a lesson_ref, the tokens found in the page's sentence. */
static bool parse_ref(parser *p, page_ctx *c, const raw_dir *d, const char *s, const char *end, lesson_ref *r) {
    const char *w[REF_MAX_WORDS];
    size_t n[REF_MAX_WORDS];
    int count = 0;
    while (count < REF_MAX_WORDS && lsn_next_word(&s, end, &w[count], &n[count])) count++;
    const lesson_model *m = c->rec->pub.model;
    int stage = count ? attn_stage_from_name_n(w[0], n[0]) : -1, args = 0;
    if (count && stage < 0 && p->l->src) { // a trained model's own stages
        char name[16];
        snprintf(name, sizeof name, "%.*s", (int)(n[0] < 15 ? n[0] : 15), w[0]);
        int ms = p->l->src->stage_from_name(name);
        if (ms >= 0 && !m) {
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_REF_MODEL_STAGE, name);
            return false;
        }
        stage = ms;
    }
    bool model_only = count && (lsn_word_is(w[0], n[0], "answer") || lsn_word_is(w[0], n[0], "accuracy"));
    if (model_only && !m) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_REF_MODEL, (int)n[0], w[0]);
        return false;
    }
    if (count && lsn_word_is(w[0], n[0], "step")) r->kind = LESSON_REF_STEP, args = 1;
    else if (count && lsn_word_is(w[0], n[0], "top")) r->kind = LESSON_REF_TOP, args = 2;
    else if (count && lsn_word_is(w[0], n[0], "ratio")) r->kind = LESSON_REF_RATIO, args = 2;
    else if (count && lsn_word_is(w[0], n[0], "answer")) r->kind = LESSON_REF_ANSWER, args = 2;
    else if (count && lsn_word_is(w[0], n[0], "accuracy")) r->kind = LESSON_REF_ACCURACY;
    else if (count && lsn_word_is(w[0], n[0], "word")) r->kind = LESSON_REF_WORD, args = 2;
    else if (count && lsn_word_is(w[0], n[0], "macs")) r->kind = LESSON_REF_MACS, args = 1;
    else if (count && lsn_word_is(w[0], n[0], "mean-max")) r->kind = LESSON_REF_MEAN_MAX;
    else if (count && lsn_word_is(w[0], n[0], "n")) r->kind = LESSON_REF_TOKENS;
    else if (count && lsn_word_is(w[0], n[0], "rest")) r->kind = LESSON_REF_REST, args = 2;
    else if (count && lsn_word_is(w[0], n[0], "heads")) return parse_heads_ref(p, c, d, w, n, count, r);
    else if (count && !m && (lsn_word_is(w[0], n[0], "decode") || lsn_word_is(w[0], n[0], "tiles") || lsn_word_is(w[0], n[0], "diff") || lsn_word_is(w[0], n[0], "setting")))
        return parse_modern_ref(p, c, d, w, n, count, s, end, r);
    else if (stage >= 0) r->kind = LESSON_REF_CELL, r->stage = stage, args = 2;
    else {
        lsn_add_msg(p, d->line, d->col,
                    ATTN_MSG_LSN_REF_UNKNOWN,
                    (int)(end - d->args), d->args);
        return false;
    }
    bool row_only = r->kind == LESSON_REF_TOP || r->kind == LESSON_REF_ANSWER || r->kind == LESSON_REF_WORD;
    int i = 1;
    if (r->kind == LESSON_REF_STEP || r->kind == LESSON_REF_MACS) {
        int s = count > 1 ? lesson_step_of(w[1], n[1]) : -1;
        if (s < 0) {
            char steps[160];
            lsn_add_msg(p, d->line, count > 1 ? dir_col(d, w[1]) : d->col, ATTN_MSG_LSN_REF_STEP, (int)n[0], w[0],
                        step_list(steps, sizeof steps, " or "));
            return false;
        }
        r->step = s;
        i = 2;
    } else if (args == 2) {
        if (count < (row_only ? 2 : r->kind == LESSON_REF_RATIO ? 4
                                                                : 3)) {
            lsn_add_msg(p, d->line, d->col,
                        row_only                      ? ATTN_MSG_LSN_REF_ROW
                        : r->kind == LESSON_REF_REST  ? ATTN_MSG_LSN_REF_ROW_KEY
                        : r->kind == LESSON_REF_RATIO ? ATTN_MSG_LSN_REF_ROW_KEYS
                                                      : ATTN_MSG_LSN_REF_ROW_COLUMN,
                        (int)(end - d->args), d->args);
            return false;
        }
        if (!resolve_ref_token(p, c, d, w[1], n[1], &r->row)) return false;
        for (i = 2; i < count && !memchr(w[i], '=', n[i]) && !lsn_word_is(w[i], n[i], "exact"); i++) {
            if (r->kind == LESSON_REF_CELL && i == 2) {
                if (!resolve_ref_col(p, c, d, w[i], n[i], r)) return false;
                continue;
            }
            bool full = row_only || r->kind == LESSON_REF_CELL || r->n_keys == LESSON_REF_MAX_KEYS ||
                        (r->kind == LESSON_REF_RATIO && r->n_keys == 2);
            if (full) break; // an extra word: refused below
            if (!resolve_ref_token(p, c, d, w[i], n[i], &r->keys[r->n_keys++])) return false;
        }
        if (r->kind == LESSON_REF_RATIO && r->n_keys != 2) {
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_RATIO_KEYS);
            return false;
        }
    }
    return parse_ref_options(p, c, d, w, n, i, count, s, end, r);
}

/* Every {reference} of the page's paragraphs, resolved into its refs. */
static void resolve_refs(parser *p, page_ctx *c) {
    page_rec *rec = c->rec;
    for (int k = 0; k < rec->pub.n_paras; k++) {
        lesson_para *para = &rec->paras[k];
        for (int i = 0; i < para->n_spans; i++) {
            lesson_span *sp = (lesson_span *)&para->spans[i]; // the arena's: pass 2 fills in the index
            if (sp->kind != LESSON_SPAN_REF) continue;
            raw_dir d = {D_REVEAL, para->text + sp->start, sp->line, sp->col};
            lesson_ref r = {.row = LESSON_TOKREF_NONE, .col = LESSON_TOKREF_NONE, .col_dim = -1, .layer = -1, .line = sp->line, .column = sp->col};
            if (!parse_ref(p, c, &d, para->text + sp->start, para->text + sp->start + sp->len, &r)) continue;
            lesson_ref *slot = lsn_nomem_check(p, PUSH(&p->l->mem, rec->refs, rec->pub.n_refs, rec->cap_refs));
            if (!slot) return;
            *slot = r;
            sp->ref = rec->pub.n_refs - 1;
            rec->pub.refs = rec->refs;
        }
    }
}

/* A token of a reference that sentence t does not have: what it misses, or NULL. */
static const char *missing_token(const lesson_tokref *tr, const attn_tokens *t) {
    if (tr->role != LESSON_ROLE_NONE) return attn_tokens_pronoun(t) < 0 ? role_names[LESSON_ROLE_PRONOUN] : NULL;
    return tr->text && lesson_find_token(t, tr) < 0 ? tr->text : NULL;
}

/* Every reference outside @own must stay true for a @try sentence: each token
 * it names by its text is there, each role finds its pronoun. */
static int check_try(parser *p, page_ctx *c, const char *sentence, const attn_tokens *t) {
    const page_rec *r = c->rec;
    int errors = 0;
    for (int k = 0; k < r->pub.n_paras; k++) {
        const lesson_para *para = &r->paras[k];
        for (int i = 0; i < para->n_spans && !para->own; i++) {
            const lesson_span *sp = &para->spans[i];
            if (sp->kind != LESSON_SPAN_REF || sp->ref < 0) continue;
            const lesson_ref *ref = &r->refs[sp->ref];
            const char *miss = missing_token(&ref->row, t);
            if (!miss && ref->col_dim < 0) miss = missing_token(&ref->col, t);
            for (int j = 0; j < ref->n_keys && !miss; j++) miss = missing_token(&ref->keys[j], t);
            if (miss) {
                lesson_add_try_err(p, ref->line, ref->column, sentence, miss);
                errors++;
            }
        }
    }
    return errors;
}

/* A model page that invites edits: the task's held-out sentences, which the
 * learner may as well type, are checked like its @try sentences (up to the
 * first that a reference does not hold for). */
static void check_heldout(parser *p, page_ctx *c) {
    const lesson_page *pg = &c->rec->pub;
    const lesson_model_source *src = p->l->src;
    lesson_model_facts f;
    memset(&f, 0, sizeof f);
    src->facts(pg->model, &f);
    char *all = src->heldout && f.task ? src->heldout(f.task) : NULL;
    for (const char *s = all; s && *s; s += strlen(s) + 1) {
        attn_tokens t = {0};
        attn_err e;
        int bad = src->tokenize(pg->model, s, strlen(s), &t, &e) == ATTN_OK ? check_try(p, c, s, &t) : 0;
        attn_tokens_free(&t);
        if (bad) break;
    }
    free(all);
}

/* "@try: SENTENCE | SENTENCE …": the sentences the text invites; each is
 * read as the page reads its own and checked against the references. */
static void resolve_try(parser *p, page_ctx *c, const raw_dir *d) {
    page_rec *r = c->rec;
    const lesson_page *pg = &r->pub;
    const char *s = d->args, *end = s + strlen(s);
    for (bool more = true; more;) {
        const char *bar = memchr(s, '|', (size_t)(end - s)), *e = bar ? bar : end;
        const char *a = lsn_skip_spaces(s, e), *b = lsn_trim_end(a, e);
        s = bar ? bar + 1 : end;
        more = bar != NULL;
        if (a == b) {
            lsn_add_msg(p, d->line, dir_col(d, a), ATTN_MSG_LSN_TRY_EMPTY);
            continue;
        }
        char *sent = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, a, (size_t)(b - a)));
        const char **slot = sent ? lsn_nomem_check(p, PUSH(&p->l->mem, r->tries, r->pub.n_tries, r->cap_tries)) : NULL;
        if (!slot) return;
        *slot = sent;
        r->pub.tries = r->tries;
        attn_tokens t = {0};
        attn_err terr;
        raw_dir at = {D_TRY, a, d->line, dir_col(d, a)};
        bool ok = pg->model ? p->l->src->tokenize(pg->model, sent, strlen(sent), &t, &terr) == ATTN_OK
                            : tokenize_sentence(p, &at, sent, &t);
        if (pg->model && !ok)
            lsn_add_err_of(p, d->line, dir_col(d, a), ATTN_MSG_LSN_SENTENCE_MODEL, &terr);
        if (ok) check_try(p, c, sent, &t);
        attn_tokens_free(&t);
    }
}

/* With answer=, the page's own weights must make it the query's top token. */
static void check_answer(parser *p, int page) {
    const lesson_page *pg = &p->l->pages[page].pub;
    const lesson_predict *pr = &pg->predict;
    if (!pr->on || pr->answer.index < 0) return;
    attn_trace own = {0};
    double *model_row = NULL;
    const double *row = NULL;
    int n = 0;
    attn_err e;
    attn_status st;
    if (pg->model) { // the layer asked about, as the page shows it
        model_row = malloc(sizeof *model_row * ATTN_MAX_TOKENS);
        if (!lsn_nomem_check(p, model_row)) return;
        st = p->l->src->weights_row(pg->model, pg->sentence, pr->layer >= 0 ? pr->layer : lesson_page_layer(pg),
                                    pr->head, pr->query.index, model_row, ATTN_MAX_TOKENS, &n, &e);
        row = model_row;
    } else {
        st = lesson_page_trace(&own, p->l, page, NULL, 0, &e);
        if (st == ATTN_OK) n = own.n, row = attn_trace_stage(&own, ATTN_ST_WEIGHTS, pr->head) + (size_t)pr->query.index * own.n;
    }
    if (st != ATTN_OK) {
        lsn_add_err_of(p, pg->line, 1, ATTN_MSG_LSN_PAGE_UNCOMPUTABLE, &e);
        free(model_row);
        return;
    }
    int best = 0;
    for (int j = 1; j < n; j++)
        if (row[j] > row[best]) best = j;
    if (best != pr->answer.index) {
        attn_tokens toks = {0}; // the tokens as the page reads them: the model's or the lesson's
        int len = 0;
        const char *tok = "";
        if (pg->model ? p->l->src->tokenize(pg->model, pg->sentence, strlen(pg->sentence), &toks, &e) == ATTN_OK
                      : true)
            tok = attn_token_text(pg->model ? &toks : &own.tokens, best, &len);
        const raw_dir *d = NULL;
        for (int i = 0; i < p->l->pages[page].sc.n_dirs; i++)
            if (p->l->pages[page].sc.dirs[i].kind == D_PREDICT) d = &p->l->pages[page].sc.dirs[i];
        lsn_add_msg(
            p, d ? d->line : pg->line, d ? d->col : 1,
            ATTN_MSG_LSN_ANSWER_WRONG,
            pr->answer.text, pr->query.text, len, tok, row[best], row[pr->answer.index]);
        attn_tokens_free(&toks);
    }
    attn_trace_free(&own);
    free(model_row);
}

/* ---- @model: a trained model on the page ------------------------------------ */

/* The model at path (its canonical key: one file, however it is spelled),
 * read once per lesson; NULL and why when it cannot be read. */
static const lesson_model *lesson_model_at(parser *p, const char *path, const char *key, char *why, size_t cap) {
    lesson *l = p->l;
    for (int i = 0; i < l->n_models; i++)
        if (strcmp(l->models[i].key, key) == 0) return l->models[i].m;
    struct lesson_model_slot *slot = lsn_nomem_check(p, PUSH(&l->mem, l->models, l->n_models, l->cap_models));
    if (!slot) return NULL;
    slot->key = strdup(key);
    if (!lsn_nomem_check(p, slot->key) || !(slot->m = l->src->load(path, why, cap))) {
        free(slot->key);
        l->n_models--;
        return NULL;
    }
    return slot->m;
}

/* A model read for the page at d counts against LESSON_MAX_MEMORY with the
 * lesson's own memory (whatever the arena may still take shrinks by it);
 * passing the limit is said at d, and the model is let go. */
static bool model_fits(parser *p, const raw_dir *d, size_t bytes) {
    lesson *l = p->l;
    size_t used = l->mem.total + l->model_bytes;
    if (bytes + ARENA_SLACK <= LESSON_MAX_MEMORY && used <= LESSON_MAX_MEMORY - ARENA_SLACK - bytes) {
        l->model_bytes += bytes;
        l->mem.limit = LESSON_MAX_MEMORY - l->model_bytes;
        return true;
    }
    lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_MODEL_MEMORY,
                LESSON_MAX_MEMORY >> 20, (double)bytes / (1 << 20), (double)used / (1 << 20));
    p->stop = true;
    l->src->free_model(l->models[--l->n_models].m); // the last read: the one of this page
    free(l->models[l->n_models].key);
    return false;
}

/* "@model: FILE": its source finds it (beside the lesson, else among the
 * shipped models) and reads it. A file that is not there, or not a model, is
 * said by the page (and is an error for lesson_check). */
static void resolve_model(parser *p, page_ctx *c, const raw_dir *d) {
    lesson_page *pg = &c->rec->pub;
    const lesson_model_source *src = p->l->src;
    const char *name = d->args;
    char path[1024], key[1024], why[512];
    if (!*name || strpbrk(name, " \t")) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_MODEL_WRITE);
        return;
    }
    pg->model_name = name;
    if (!src) snprintf(why, sizeof why, "this lesson was read without its models");
    else if (src->locate(p->l->dir, name, path, sizeof path, key, sizeof key, why, sizeof why)) {
        int before = p->l->n_models;
        pg->model = lesson_model_at(p, path, key, why, sizeof why);
        lesson_model_facts f;
        memset(&f, 0, sizeof f);
        if (pg->model) src->facts(pg->model, &f);
        if (pg->model && p->l->n_models > before && !model_fits(p, d, f.bytes)) { // read now, not shared
            pg->model = NULL;
            return;
        }
        if (pg->model) pg->model_path = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, path, strlen(path)));
    }
    if (pg->model) {
        lesson_model_facts f;
        src->facts(pg->model, &f);
        pg->model_layers = f.layers;
        if (!pg->train_task) pg->train_task = f.task;
        return;
    }
    utf8_trim_partial(why);
    pg->model_why = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, why, strlen(why)));
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (!pg->train_task && src) pg->train_task = src->task_of_file(base); // referent-zh-steps0.json: of referent-zh
    if (p->checking) lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_MODEL_UNREADABLE, name, why);
}

/* "@train: TASK": the task the training view offers on this page (any name
 * without a model source, which knows the tasks). */
static void resolve_train(parser *p, page_ctx *c, const raw_dir *d) {
    const lesson_model_source *src = p->l->src;
    const char *t = src ? src->task_find(d->args) : d->args;
    if (t) c->rec->pub.train_task = t;
    else lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_TASK_UNKNOWN, d->args, src->task_names());
}

/* @view: decode, or @view: tiles B: the view (F5, F4) the page opens on. */
static void resolve_view(parser *p, page_ctx *c, const raw_dir *d) {
    lesson_page *pg = &c->rec->pub;
    const char *s = d->args, *end = s + strlen(s), *w[3];
    size_t n[3];
    int count = 0;
    while (count < 3 && lsn_next_word(&s, end, &w[count], &n[count])) count++;
    long long b;
    if (count == 1 && lsn_word_is(w[0], n[0], "decode")) {
        if (pg->cfg.mask.kind != ATTN_MASK_CAUSAL && pg->cfg.mask.kind != ATTN_MASK_CAUSAL_WINDOW)
            lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_VIEW_DECODE);
        else pg->view = LESSON_VIEW_DECODE;
    } else if (count == 2 && lsn_word_is(w[0], n[0], "tiles") && lsn_parse_int(w[1], n[1], 1, ATTN_MAX_TOKENS, &b)) {
        pg->view = LESSON_VIEW_TILES;
        pg->view_block = (int)b;
    } else {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_VIEW_ARGS, ATTN_MAX_TOKENS,
                    d->args);
    }
    if (pg->model_name && pg->view != LESSON_VIEW_NONE) {
        lsn_add_msg(p, d->line, 1, ATTN_MSG_LSN_VIEW_DESIGNED);
        pg->view = LESSON_VIEW_NONE;
    }
}

/* "@hf: FOLDER" (issue 26): a Hugging Face folder the page's {heads …}
 * references read, found by the source's locate_hf. A folder that is not
 * there is never an error: the page then shows its @missing text. */
static void resolve_hf(parser *p, page_ctx *c, const raw_dir *d) {
    lesson_page *pg = &c->rec->pub;
    const lesson_model_source *src = p->l->src;
    char path[1024], why[512];
    if (!*d->args || strpbrk(d->args, " \t")) {
        lsn_add_msg(p, d->line, d->col, ATTN_MSG_LSN_HF_WRITE);
        return;
    }
    if (c->seen[D_MODEL]) {
        lsn_add_msg(p, d->line, 1, ATTN_MSG_LSN_MODEL_AND_HF);
        return;
    }
    pg->hf_name = d->args;
    if (!src || !src->locate_hf) snprintf(why, sizeof why, "this lesson was read without its models");
    else if (src->locate_hf(p->l->dir, d->args, path, sizeof path, why, sizeof why)) {
        pg->hf_path = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, path, strlen(path)));
        return;
    }
    utf8_trim_partial(why);
    pg->hf_why = lsn_nomem_check(p, lsn_arena_strndup(&p->l->mem, why, strlen(why)));
}

/* @missing text and {heads …} references: only on a page with @hf, and not together. */
static void check_hf_paras(parser *p, page_ctx *c) {
    const page_rec *r = c->rec;
    for (int k = 0; k < r->pub.n_paras; k++) {
        const lesson_para *para = &r->paras[k];
        if (para->missing && !r->pub.hf_name) {
            lsn_add_msg(p, para->line, 1, ATTN_MSG_LSN_MISSING_HF);
            return;
        }
        for (int i = 0; i < para->n_spans && para->missing; i++)
            if (para->spans[i].kind == LESSON_SPAN_REF && para->spans[i].ref >= 0 &&
                r->refs[para->spans[i].ref].kind == LESSON_REF_HEADS)
                lsn_add_msg(p, para->spans[i].line, para->spans[i].col, ATTN_MSG_LSN_MISSING_HEADS);
    }
}

/* @layer, @backward and the page's own settings: what a model page may and may not say. */
static void resolve_model_view(parser *p, page_ctx *c) {
    lesson_page *pg = &c->rec->pub;
    const raw_dir *layer = c->seen[D_LAYER], *back = c->seen[D_BACKWARD];
    static const dir_kind one_layer[] = {D_CONFIG, D_RANDOM, D_COMPARE, D_FEATURES};
    for (size_t k = 0; k < sizeof one_layer / sizeof *one_layer && pg->model_name; k++)
        if (c->seen[one_layer[k]] && !(one_layer[k] == D_COMPARE && compares_sentences(c->seen[D_COMPARE])))
            lsn_add_msg(p, c->seen[one_layer[k]]->line, 1, ATTN_MSG_LSN_DESIGNED_ONLY,
                        lsn_dir_names[one_layer[k]]);
    if (!pg->model_name && c->seen[D_COMPARE] && compares_sentences(c->seen[D_COMPARE])) // through one trained model
        lsn_add_msg(p, c->seen[D_COMPARE]->line, 1, ATTN_MSG_LSN_COMPARE_SENTENCE_MODEL);
    if (pg->model_name && c->rec->sc.n_mats)
        lsn_add_msg(p, c->rec->sc.mats[0].line, 1, ATTN_MSG_LSN_MODEL_WEIGHTS);
    for (const raw_dir *d = layer ? layer : back; d && !pg->model_name; d = NULL)
        lsn_add_msg(p, d->line, 1, ATTN_MSG_LSN_GOES_WITH_MODEL, lsn_dir_names[d->kind]);
    if (back && back->args[0]) lsn_add_msg(p, back->line, back->col, ATTN_MSG_LSN_BACKWARD_ARGS);
    pg->backward = back && pg->model_name;
    long long v;
    if (layer && pg->model) {
        int layers = pg->model_layers;
        if (lsn_parse_int(layer->args, strlen(layer->args), 1, layers, &v)) pg->layer = (int)v - 1; // as the window counts
        else
            lsn_add_msg(p, layer->line, layer->col,
                        layers == 1 ? ATTN_MSG_LSN_LAYER_MISSING_FROM1_1 : ATTN_MSG_LSN_LAYER_MISSING_FROM1, layer->args, layers);
    }
}

int lesson_page_layer(const lesson_page *pg) {
    return pg->model ? (pg->layer >= 0 ? pg->layer : pg->model_layers - 1) : 0;
}

/* A model page's sentence, tokenized with the model's vocabulary. */
static bool model_basics(parser *p, page_ctx *c, const raw_dir *sent) {
    lesson_page *pg = &c->rec->pub;
    lesson_model_facts f;
    attn_err e;
    memset(&f, 0, sizeof f); // cfg's padding too: exports hash the configuration's bytes
    p->l->src->facts(pg->model, &f);
    memcpy(&pg->cfg, &f.cfg, sizeof pg->cfg);
    pg->sentence = sent ? sent->args : f.probe;
    if (p->l->src->tokenize(pg->model, pg->sentence, strlen(pg->sentence), &c->toks, &e) != ATTN_OK) {
        lsn_add_err_of(p, sent ? sent->line : c->seen[D_MODEL]->line, sent ? sent->col : 1, ATTN_MSG_LSN_SENTENCE_MODEL, &e);
        return false;
    }
    pg->n_tokens = c->toks.n;
    return true;
}

/* Sentence and configuration: everything else on the page depends on them. */
static bool page_basics(parser *p, page_ctx *c) {
    lesson *l = p->l;
    page_rec *r = c->rec;
    const raw_dir *cfg = c->seen[D_CONFIG], *sent = c->seen[D_SENTENCE];
    bool set_dm = false;
    attn_err e;
    if (r->pub.model) return model_basics(p, c, sent);
    if (r->pub.model_name) { // the page says the model is missing, over its sentence in one layer; nothing else is checked
        r->pub.cfg = l->cfg;
        r->pub.sentence = sent ? sent->args : l->sentence ? l->sentence
                                                          : "";
        return false;
    }
    r->pub.cfg = l->cfg;
    if (p->top_config_bad || (cfg && !apply_settings(p, cfg, &r->pub.cfg, &set_dm, false))) return false;
    if (attn_config_check(&r->pub.cfg, &e) != ATTN_OK) {
        lsn_add_err_of(p, cfg ? cfg->line : r->pub.line, cfg ? cfg->col : 1, ATTN_MSG_NONE, &e);
        return false;
    }
    r->pub.sentence = sent ? sent->args : l->sentence;
    if (!r->pub.sentence) {
        if (!p->top_sentence_bad)
            lsn_add_msg(p, r->pub.line, 1,
                        ATTN_MSG_LSN_NO_SENTENCE);
        return false;
    }
    if (!tokenize_sentence(p, sent, r->pub.sentence, &c->toks)) return false;
    r->pub.n_tokens = c->toks.n;
    return true;
}

static void resolve_page(parser *p, int index) {
    page_ctx c = {.rec = &p->l->pages[index]};
    page_rec *r = c.rec;
    int before = p->errs.n;
    for (int k = 0; k < D_KINDS; k++) c.seen[k] = find_dir(p, &r->sc, (dir_kind)k);
    r->pub.paras = r->paras;
    r->pub.keep = p->l->keep; // the lesson's, unless the page names its own
    r->pub.n_keep = p->l->n_keep;
    if (!r->pub.title[0] && !r->title_reported)
        lsn_add_msg(p, r->pub.line, 1, ATTN_MSG_LSN_NO_PAGE_TITLE);
    r->pub.layer = -1;
    if (c.seen[D_TRAIN]) resolve_train(p, &c, c.seen[D_TRAIN]);
    if (c.seen[D_MODEL]) resolve_model(p, &c, c.seen[D_MODEL]);
    if (c.seen[D_HF]) resolve_hf(p, &c, c.seen[D_HF]);
    resolve_model_view(p, &c);
    if (page_basics(p, &c)) {
        if (c.seen[D_RANDOM] && resolve_random(p, c.seen[D_RANDOM], &r->pub.gain))
            r->pub.random_weights = true;
        bool mats_ok = check_mats(p, &r->sc, &r->pub.cfg, true);
        if (c.seen[D_STEP]) resolve_step(p, &c, c.seen[D_STEP]);
        if (c.seen[D_HIGHLIGHT]) resolve_highlight(p, &c, c.seen[D_HIGHLIGHT]);
        if (c.seen[D_COMPARE]) resolve_compare(p, &c, c.seen[D_COMPARE]);
        if (c.seen[D_PREDICT]) resolve_predict(p, &c, c.seen[D_PREDICT]);
        if (c.seen[D_VIEW]) resolve_view(p, &c, c.seen[D_VIEW]);
        if (c.seen[D_REVEAL]) resolve_reveal(p, &c, c.seen[D_REVEAL]);
        const char **keep = NULL;
        int n_keep = 0;
        if (c.seen[D_FEATURES] && resolve_features(p, c.seen[D_FEATURES], &r->sc, &keep, &n_keep)) {
            r->pub.keep = keep;
            r->pub.n_keep = n_keep;
        }
        resolve_refs(p, &c);
        check_hf_paras(p, &c);
        if (c.seen[D_TRY]) resolve_try(p, &c, c.seen[D_TRY]);
        if (c.seen[D_TRY] && r->pub.model && p->checking) check_heldout(p, &c);
        for (int k = 0; k < r->pub.n_paras; k++) r->pub.has_own |= r->paras[k].own;
        if (r->pub.random_weights && r->pub.gain != 1.0 && !p->nomem) make_gained(p, r, c.seen[D_RANDOM]);
        if (mats_ok && p->errs.n == before && !p->nomem && !p->stop) check_answer(p, index);
    }
    attn_tokens_free(&c.toks);
}

/* ---- parsing: the whole --------------------------------------------------- */

static int cmp_err(const void *a, const void *b) {
    const lerr *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Runs both passes; the lesson is returned even with errors (free it). */
/* The folder of filename ("." when it names none): where @model looks first. */
static const char *file_dir(arena *a, const char *filename) {
    const char *slash = filename ? strrchr(filename, '/') : NULL;
    if (!slash) return ".";
    return lsn_arena_strndup(a, filename, slash == filename ? 1 : (size_t)(slash - filename));
}

static lesson *run_parser(parser *p, const char *text, size_t len, const char *filename,
                          const lesson_model_source *models, bool checking) {
    memset(p, 0, sizeof *p);
    p->checking = checking;
    lesson *l = calloc(1, sizeof *l);
    if (!l) {
        p->nomem = true;
        return NULL;
    }
    p->l = l;
    l->src = models;
    l->mem.limit = LESSON_MAX_MEMORY;
    l->dir = file_dir(&l->mem, filename);
    if (!l->dir) l->dir = ".";
    attn_sha256_hex(text, len, l->sha256);
    if (len == 0) lsn_add_msg(p, 1, 1, ATTN_MSG_LSN_FILE_EMPTY);
    else if (len > LESSON_MAX_BYTES)
        lsn_add_msg(p, 1, 1, ATTN_MSG_LSN_FILE_BIG, LESSON_MAX_BYTES);
    else if (lsn_check_encoding(p, text, len)) {
        lsn_read_lines(p, text, len);
        if (!p->nomem) resolve_lesson(p);
        for (int i = 0; i < l->n_pages && !p->nomem && !p->stop; i++) resolve_page(p, i);
    }
    if (l->mem.over_limit && !p->stop) // the limit passed elsewhere: say so, at the line last read
        lsn_add_msg(p, p->line > 0 ? p->line : 1, 1, ATTN_MSG_LSN_MEMORY,
                    LESSON_MAX_MEMORY >> 20);
    else if (l->mem.failed) p->nomem = true;
    free(p->spans);
    attn_sb_free(&p->para);
    if (p->errs.n > 1) qsort(p->errs.v, (size_t)p->errs.n, sizeof *p->errs.v, cmp_err);
    return l;
}

attn_status lesson_parse(lesson **out, const char *text, size_t len, const char *filename, attn_err *err) {
    return lesson_parse_with(out, text, len, filename, NULL, err);
}

attn_status lesson_parse_with(lesson **out, const char *text, size_t len, const char *filename,
                              const lesson_model_source *models, attn_err *err) {
    parser p;
    *out = NULL;
    lesson *l = run_parser(&p, text, len, filename, models, false);
    attn_status st = ATTN_OK;
    if (p.nomem && !p.errs.n) st = attn_fail(err, ATTN_ERR_NOMEM, "%s: not enough memory to read the lesson", filename);
    else if (p.errs.n) {
        const lerr *first = &p.errs.v[0];
        st = ATTN_ERR_PARSE;
        if (err) { // the message as its id says it in every language, after the place
            *err = first->e;
            snprintf(err->at, sizeof err->at, "%s:%d:%d", filename, first->line, first->col);
            attn_strbuf m;
            attn_sb_init(&m);
            attn_sb_printf(&m, "%s: %s", err->at, first->e.msg);
            snprintf(err->msg, sizeof err->msg, "%s", attn_sb_ok(&m) && m.data ? m.data : first->e.msg);
            attn_sb_free(&m);
            err->code = st;
        }
    }
    if (st != ATTN_OK && err) { // a long path may push the end out, maybe inside a character
        size_t bad = utf8_find_invalid(err->msg, strlen(err->msg));
        if (bad != (size_t)-1) err->msg[bad] = '\0';
    }
    free(p.errs.v);
    if (st != ATTN_OK) lesson_free(l);
    else *out = l;
    return st;
}

attn_status lesson_load(lesson **out, const char *path, const lesson_model_source *models, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    attn_status st = attn_read_file(path, LESSON_MAX_BYTES, &text, &len, err);
    if (st == ATTN_OK) st = lesson_parse_with(out, text, len, path, models, err);
    free(text);
    return st;
}

int lesson_check(const char *text, size_t len, const char *filename, char **report, int *n_pages) {
    return lesson_check_with(text, len, filename, NULL, report, n_pages);
}

int lesson_check_with(const char *text, size_t len, const char *filename, const lesson_model_source *models,
                      char **report, int *n_pages) {
    parser p;
    lesson *l = run_parser(&p, text, len, filename, models, true);
    if (p.nomem) lsn_add_msg(&p, 1, 1, ATTN_MSG_LSN_NOMEM_CHECK);
    int count = p.errs.n > 0 ? p.errs.n : p.nomem;
    attn_strbuf sb;
    attn_sb_init(&sb);
    for (int i = 0; i < p.errs.n; i++)
        attn_sb_printf(&sb, "%s:%d:%d: %s\n", filename, p.errs.v[i].line, p.errs.v[i].col, p.errs.v[i].e.msg);
    if (p.errs.dropped) // the limit of the list, said where the first left out was found
        attn_sb_printf(&sb, "%s:%d:%d: and %d more error%s from here on; attnviz lists at most %d at a time\n",
                       filename, p.errs.drop_line, p.errs.drop_col, p.errs.dropped, p.errs.dropped == 1 ? "" : "s",
                       LESSON_MAX_ERRORS);
    *report = count ? attn_sb_take(&sb) : NULL;
    attn_sb_free(&sb);
    if (n_pages) *n_pages = count == 0 && l ? l->n_pages : 0;
    free(p.errs.v);
    lesson_free(l);
    return count;
}

void lesson_free(lesson *l) {
    if (!l) return;
    for (int i = 0; i < l->n_models; i++) {
        l->src->free_model(l->models[i].m);
        free(l->models[i].key);
    }
    lsn_arena_free(&l->mem);
    free(l);
}

/* ---- accessors ------------------------------------------------------------ */

const char *lesson_id(const lesson *l) {
    return l->id;
}
const char *lesson_title(const lesson *l) {
    return l->title;
}
const char *lesson_lang(const lesson *l) {
    return l->lang;
}
const char *lesson_sha256(const lesson *l) {
    return l->sha256;
}
int lesson_page_count(const lesson *l) {
    return l->n_pages;
}

const lesson_page *lesson_page_at(const lesson *l, int i) {
    return i >= 0 && i < l->n_pages ? &l->pages[i].pub : NULL;
}

int lesson_find_page(const lesson *l, const char *id) {
    for (int i = 0; i < l->n_pages; i++)
        if (strcmp(l->pages[i].pub.id, id) == 0) return i;
    return -1;
}

const attn_vocab *lesson_vocab(const lesson *l) {
    return l->has_vocab ? &l->vocab : NULL;
}

/* Fills the empty slots of w with sc's matrices that fit c. */
static int bind_scope(const scope *sc, const attn_config *c, attn_weights *w) {
    int n = 0;
    for (int i = 0; i < sc->n_mats; i++) {
        const design_mat *m = &sc->mats[i];
        if (m->head >= c->heads || !mat_fits(m, c)) continue;
        const double **slot = &w->mat[m->kind][m->head < 0 ? 0 : m->head];
        if (!*slot) *slot = m->v, n++;
    }
    return n;
}

static int bind_gained(const page_rec *r, const attn_config *c, attn_weights *w) {
    const attn_config *pc = &r->pub.cfg;
    if (!r->gained[ATTN_MAT_W_O][0] || c->d_model != pc->d_model || c->d_k != pc->d_k || c->heads != pc->heads ||
        c->seed != pc->seed)
        return 0;
    int n = 0;
    for (int m = 0; m < ATTN_MAT_COUNT; m++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++) {
            const double **slot = &w->mat[m][h];
            if (r->gained[m][h] && !*slot) *slot = r->gained[m][h], n++;
        }
    return n;
}

int lesson_page_weights(const lesson *l, int i, const attn_config *cfg, attn_weights *out) {
    memset(out, 0, sizeof *out);
    if (i < 0 || i >= l->n_pages) return 0;
    const page_rec *r = &l->pages[i];
    int n = bind_scope(&r->sc, cfg, out);
    n += r->pub.random_weights ? bind_gained(r, cfg, out) : bind_scope(&l->top, cfg, out);
    return n;
}

/* Fills the empty slots of out with the column names of sc's matrices that fit c. */
static int bind_names(const scope *sc, const attn_config *c, lesson_names *out) {
    int n = 0;
    for (int i = 0; i < sc->n_mats; i++) {
        const design_mat *m = &sc->mats[i];
        if (m->head >= c->heads || !mat_fits(m, c) || m->broken) continue;
        const char *const **slot = &out->mat[m->kind][m->head < 0 ? 0 : m->head];
        if (!*slot && m->names && m->n_names == m->cols) *slot = m->names, n++;
    }
    return n;
}

int lesson_page_names(const lesson *l, int i, const attn_config *cfg, lesson_names *out) {
    memset(out, 0, sizeof *out);
    if (i < 0 || i >= l->n_pages) return 0;
    const page_rec *r = &l->pages[i];
    attn_weights own;
    memset(&own, 0, sizeof own);
    bind_scope(&r->sc, cfg, &own); // a page's matrix hides the lesson's of the same slot, named or not
    int n = bind_names(&r->sc, cfg, out);
    if (r->pub.random_weights) return n;
    lesson_names top;
    memset(&top, 0, sizeof top);
    bind_names(&l->top, cfg, &top);
    for (int m = 0; m < ATTN_MAT_COUNT; m++)
        for (int h = 0; h < ATTN_MAX_HEADS; h++)
            if (!own.mat[m][h] && top.mat[m][h]) out->mat[m][h] = top.mat[m][h], n++;
    return n;
}

attn_status lesson_page_trace(attn_trace *out, const lesson *l, int i, const char *sentence, size_t len,
                              attn_err *err) {
    const lesson_page *pg = lesson_page_at(l, i);
    if (!pg) return attn_fail(err, ATTN_ERR_RANGE, "The lesson has no page %d.", i);
    attn_weights w;
    lesson_page_weights(l, i, &pg->cfg, &w);
    if (!sentence) {
        sentence = pg->sentence;
        len = strlen(sentence);
    }
    return attn_trace_run(out, sentence, len, &pg->cfg, lesson_vocab(l), &w, err);
}

attn_status lesson_page_compare_trace(attn_trace *out, const lesson *l, int i, attn_err *err) {
    const lesson_page *pg = lesson_page_at(l, i);
    if (!pg || pg->compare.kind != LESSON_CMP_CONFIG)
        return attn_fail(err, ATTN_ERR_RANGE, "Page %d of the lesson compares no settings.", i);
    attn_weights w;
    lesson_page_weights(l, i, &pg->compare.cfg, &w);
    return attn_trace_run(out, pg->sentence, strlen(pg->sentence), &pg->compare.cfg, lesson_vocab(l), &w, err);
}

int lesson_find_token(const attn_tokens *t, const lesson_tokref *ref) {
    if (!ref->text) return -1;
    size_t n = strlen(ref->text);
    if (ref->index >= 0 && ref->index < t->n && token_is(t, ref->index, ref->text, n)) return ref->index;
    for (int i = 0; i < t->n; i++)
        if (token_is(t, i, ref->text, n)) return i;
    return -1;
}

bool lesson_para_hf_shown(const lesson_page *pg, const lesson_para *para, bool found) {
    if (!pg->hf_name) return true;
    if (para->missing) return !found;
    for (int i = 0; i < para->n_spans; i++)
        if (para->spans[i].kind == LESSON_SPAN_REF && para->spans[i].ref >= 0 &&
            pg->refs[para->spans[i].ref].kind == LESSON_REF_HEADS)
            return found;
    return true;
}
