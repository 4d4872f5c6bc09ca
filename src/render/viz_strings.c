/* viz_strings.c — loading the UI string table. */
#include "viz_strings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "strbuf.h"
#include "utf8.h"

static int find_key(const char *key) {
    for (int i = 0; i < VIZ_STR_COUNT; i++)
        if (strcmp(key, viz_str_key((viz_str)i)) == 0) return i;
    return -1;
}

/* Turns the two-character escape "\n" into a newline, in place. */
static void unescape(char *s) {
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] == 'n') {
            *w++ = '\n';
            r++;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* The printf conversions of s in order, one letter each ("%.2f %d%%" gives
 * "fd"), in out (cap bytes). Length modifiers count: "%ld" is "ld". */
static void conversions(const char *s, char *out, size_t cap) {
    size_t n = 0;
    for (const char *p = strchr(s, '%'); p; p = strchr(p, '%')) {
        p++;
        if (*p == '%') { // a literal percent sign
            p++;
            continue;
        }
        p += strspn(p, "-+ #0123456789.*"); // flags, width, precision
        while (*p && strchr("hlLqjzt", *p) && n + 1 < cap) out[n++] = *p++;
        if (*p && n + 1 < cap) out[n++] = *p++;
    }
    out[n] = '\0';
}

/* Splits one line "key\ten\tzh" in place and stores it. */
static attn_status take_line(viz_strings *t, char *line, int lineno, const char *name, attn_err *err) {
    char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab2)
        return attn_fail(err, ATTN_ERR_PARSE, "%s:%d: a line needs a key, the English and the Chinese text, "
                                              "separated by tabs.",
                         name, lineno);
    *tab1 = *tab2 = '\0';
    int id = find_key(line);
    if (id < 0) return attn_fail(err, ATTN_ERR_PARSE, "%s:%d: unknown string key \"%s\".", name, lineno, line);
    unescape(tab1 + 1);
    unescape(tab2 + 1);
    // both texts go through the same printf call: they must take the same arguments
    char en[32], zh[32];
    conversions(tab1 + 1, en, sizeof en);
    conversions(tab2 + 1, zh, sizeof zh);
    if (strcmp(en, zh) != 0)
        return attn_fail(err, ATTN_ERR_PARSE, "%s:%d: the English and the Chinese text of \"%s\" must have the same "
                                              "%%-placeholders in the same order (English \"%s\", Chinese \"%s\").",
                         name, lineno, line,
                         en, zh);
    t->s[VIZ_LANG_EN][id] = tab1 + 1;
    t->s[VIZ_LANG_ZH][id] = tab2 + 1;
    return ATTN_OK;
}

attn_status viz_strings_parse(viz_strings *out, const char *text, size_t len, const char *name, attn_err *err) {
    viz_strings t;
    memset(&t, 0, sizeof t);
    attn_status st = ATTN_OK;
    t.text_ = malloc(len + 1);
    if (!t.text_) return attn_fail(err, ATTN_ERR_NOMEM, "Not enough memory for the UI strings.");
    memcpy(t.text_, text, len);
    t.text_[len] = '\0';
    int lineno = 0;
    for (char *p = t.text_; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        lineno++;
        if (*p && *p != '#' && (st = take_line(&t, p, lineno, name, err)) != ATTN_OK) goto cleanup;
        p = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < VIZ_STR_COUNT; i++)
        if (!t.s[VIZ_LANG_EN][i]) {
            st = attn_fail(err, ATTN_ERR_PARSE, "%s: the string \"%s\" is missing.", name, viz_str_key((viz_str)i));
            goto cleanup;
        }
    *out = t;
    return ATTN_OK;
cleanup:
    free(t.text_);
    return st;
}

attn_status viz_strings_load(viz_strings *out, const char *path, attn_err *err) {
    char *text = NULL;
    size_t len = 0;
    attn_status st = attn_read_file(path, 1u << 20, &text, &len, err);
    if (st == ATTN_OK) st = viz_strings_parse(out, text, len, path, err);
    free(text);
    return st;
}

void viz_strings_free(viz_strings *t) {
    if (!t) return;
    free(t->text_);
    memset(t, 0, sizeof *t);
}

static const char *ui_or_key(const char *const *ui, viz_str id) {
    return ui && ui[id] ? ui[id] : viz_str_key(id);
}

bool viz_weights_random(const attn_trace *t, viz_origin o) {
    return t->source == ATTN_SRC_RANDOM || (o.kind == VIZ_FROM_LESSON && o.gain > 0);
}

void viz_badge(char *out, size_t cap, const char *const *ui, const attn_trace *t, viz_origin o) {
    unsigned seed = (unsigned)t->cfg.seed;
    if (o.kind == VIZ_FROM_MODEL && o.name) // a model file: its name (the status line and Ctrl+Shift+C give the path)
        snprintf(out, cap, ui_or_key(ui, VIZ_S_BADGE_FILE), strrchr(o.name, '/') ? strrchr(o.name, '/') + 1 : o.name);
    else if (o.kind == VIZ_FROM_MODEL)
        snprintf(out, cap, ui_or_key(ui, VIZ_S_BADGE_TRAINED), o.task ? o.task : "?", o.steps, o.seed);
    else if (o.kind == VIZ_FROM_LESSON && o.gain > 0 && t->source == ATTN_SRC_EXPLICIT)
        snprintf(out, cap, ui_or_key(ui, VIZ_S_BADGE_RANDOM_GAIN), seed, o.gain);
    else if (t->source == ATTN_SRC_RANDOM || o.kind == VIZ_FROM_NONE)
        snprintf(out, cap, ui_or_key(ui, VIZ_S_BADGE_RANDOM), seed);
    else if (o.kind == VIZ_FROM_LESSON)
        snprintf(out, cap, ui_or_key(ui, t->source == ATTN_SRC_EXPLICIT ? VIZ_S_BADGE_LESSON : VIZ_S_BADGE_LESSON_MIXED), seed);
    else if (t->source == ATTN_SRC_EXPLICIT)
        snprintf(out, cap, ui_or_key(ui, VIZ_S_BADGE_FILE), o.name ? o.name : "?");
    else
        snprintf(out, cap, ui_or_key(ui, VIZ_S_BADGE_MIXED), o.name ? o.name : "?", seed);
}

void viz_config_words(char *out, size_t cap, const char *const *ui, viz_lang lang, const attn_config *a,
                      const attn_config *b) {
    static const viz_str masks[] = {VIZ_S_MASK_NONE, VIZ_S_MASK_CAUSAL, VIZ_S_MASK_WINDOW, VIZ_S_MASK_CAUSAL_WINDOW};
    attn_strbuf sb;
    attn_sb_init(&sb);
    const char *sep = lang == VIZ_LANG_ZH ? "，" : ", ";
#define WORD(NAME, FMT, ...) attn_sb_printf(&sb, "%s%s " FMT, sb.len ? sep : "", ui_or_key(ui, NAME), __VA_ARGS__)
#define PHRASE(NAME, ...) /* a setting said in a phrase of its own, its value inside */ \
    do { \
        attn_sb_puts(&sb, sb.len ? sep : ""); \
        attn_sb_printf(&sb, ui_or_key(ui, NAME), __VA_ARGS__); \
    } while (0)
    static const viz_str schemes[] = {VIZ_S_POS_NONE, VIZ_S_POS_SINUSOIDAL, VIZ_S_POS_ROPE}; // attn_pos_name's order
    if (a->scale != b->scale) WORD(VIZ_S_CTRL_SCALE, "%s", ui_or_key(ui, b->scale ? VIZ_S_ON : VIZ_S_OFF));
    if (a->mask.kind != b->mask.kind) WORD(VIZ_S_CTRL_MASK, "%s", ui_or_key(ui, masks[b->mask.kind]));
    bool windowed = b->mask.kind == ATTN_MASK_WINDOW || b->mask.kind == ATTN_MASK_CAUSAL_WINDOW;
    if (windowed && (a->mask.kind != b->mask.kind || a->mask.window != b->mask.window)) WORD(VIZ_S_CTRL_WINDOW, "%d", b->mask.window);
    if (a->pos_enc != b->pos_enc || a->rope != b->rope) // one scheme, named as the rail's Positions control names it
        WORD(VIZ_S_CTRL_POSENC, "%s", ui_or_key(ui, schemes[b->rope ? 2 : b->pos_enc ? 1
                                                                                     : 0]));
    if (a->pos_first != b->pos_first || a->pos_count != b->pos_count) {
        if (b->pos_count > 0) PHRASE(VIZ_S_CFG_POS_DIMS, b->pos_first, b->pos_first + b->pos_count - 1);
        else attn_sb_printf(&sb, "%s%s", sb.len ? sep : "", ui_or_key(ui, VIZ_S_CFG_POS_DIMS_ALL));
    }
    if (a->rope_base != b->rope_base) PHRASE(VIZ_S_CFG_ROPE_BASE, b->rope_base);
    if (a->pos_offset != b->pos_offset) PHRASE(VIZ_S_CFG_POS_OFFSET, b->pos_offset);
    if (a->bias != b->bias) WORD(VIZ_S_CFG_BIAS, "%s", ui_or_key(ui, b->bias ? VIZ_S_ON : VIZ_S_OFF));
    if (attn_kv_heads(a) != attn_kv_heads(b) || a->kv_heads != b->kv_heads) PHRASE(VIZ_S_CFG_KV_HEADS, attn_kv_heads(b));
    if (a->heads != b->heads) WORD(VIZ_S_CTRL_HEADS, "%d", b->heads);
    if (a->d_k != b->d_k) WORD(VIZ_S_CTRL_DK, "%d", b->d_k);
    if (a->d_model != b->d_model) WORD(VIZ_S_CTRL_DMODEL, "%d", b->d_model);
    if (a->seed != b->seed) WORD(VIZ_S_CTRL_SEED, "%lu", (unsigned long)b->seed);
#undef WORD
#undef PHRASE
    if (!sb.len || !attn_sb_ok(&sb)) attn_config_diff_text(out, cap, a, b); // no setting differs (or no memory): the lesson's syntax
    else snprintf(out, cap, "%s", sb.data);
    utf8_trim_partial(out);
    attn_sb_free(&sb);
}

viz_str viz_msg_str(attn_msg id) {
    static const viz_str strs[ATTN_MSG_COUNT] = {
        VIZ_S_APP_NAME, // NONE: never looked up
#define ATTN_MSG(id, en) VIZ_S_ERR_##id,
#include "attn_msgs.def"
#undef ATTN_MSG
    };
    return id >= 0 && id < ATTN_MSG_COUNT ? strs[id] : VIZ_S_APP_NAME;
}

void viz_err_text(char *out, size_t cap, const viz_strings *t, viz_lang lang, const attn_err *err) {
    bool known = t && err->id > ATTN_MSG_NONE && err->id < ATTN_MSG_COUNT && lang >= 0 && lang < VIZ_LANG_COUNT;
    const char *words = known ? t->s[lang][viz_msg_str(err->id)] : NULL;
    if (!words) {
        snprintf(out, cap, "%s", err->msg);
        return;
    }
    char args[ATTN_MSG_ARGS][128]; // a reason (%R) is a message too: its words in this language
    for (int i = 0; i < ATTN_MSG_ARGS; i++) {
        attn_msg why = err->arg_id[i];
        const char *w = why > ATTN_MSG_NONE && why < ATTN_MSG_COUNT ? t->s[lang][viz_msg_str(why)] : NULL;
        snprintf(args[i], sizeof args[i], "%s", w ? w : err->args[i]);
        utf8_trim_partial(args[i]);
    }
    const char *lead = err->lead > ATTN_MSG_NONE && err->lead < ATTN_MSG_COUNT ? t->s[lang][viz_msg_str(err->lead)] : NULL;
    bool wide = lead && *lead && (unsigned char)lead[strlen(lead) - 1] >= 0x80; // "：" needs no space after it
    int at = snprintf(out, cap, "%s%s%s%s", err->at, err->at[0] ? ": " : "", lead ? lead : "", lead && !wide ? " " : "");
    if (at < 0 || (size_t)at >= cap) at = 0; // a place reads the same in every language
    attn_msg_format(out + at, cap - (size_t)at, words, (const char(*)[128])args, ATTN_MSG_ARGS);
}

const char *viz_step_hint(char *buf, size_t cap, const char *const *ui, attn_step step, const attn_config *cfg) {
    viz_str id = (viz_str)(VIZ_S_HINT_1 + step);
    const char *text = ui && ui[id] ? ui[id] : viz_str_key(id);
    if (step != ATTN_STEP_ROPE || !ui || !ui[id]) return text;
    char base[32]; // a whole base as the model files write it (10000), else its shortest form
    double b = cfg && cfg->rope_base > 0 ? cfg->rope_base : ATTN_ROPE_BASE;
    if (b == (double)(long long)b) snprintf(base, sizeof base, "%lld", (long long)b);
    else snprintf(base, sizeof base, "%g", b);
    snprintf(buf, cap, text, base);
    return buf;
}

void viz_thousands(char *buf, size_t cap, size_t v) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%zu", v), o = 0;
    for (int i = 0; i < n && o + 2 < (int)cap; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

void viz_lesson_hf_words(page_hf_words *w, const char *const *ui) {
    *w = page_hf_words_en;
    if (!ui) return;
    if (ui[VIZ_S_HF_REF_NONE]) w->none = ui[VIZ_S_HF_REF_NONE];
    if (ui[VIZ_S_HF_REF_PASS]) w->pass = ui[VIZ_S_HF_REF_PASS];
    if (ui[VIZ_S_HF_REF_HEAD]) w->head = ui[VIZ_S_HF_REF_HEAD];
    if (ui[VIZ_S_HF_REF_LIST]) w->list = ui[VIZ_S_HF_REF_LIST];
    if (ui[VIZ_S_HF_REF_MORE]) w->more = ui[VIZ_S_HF_REF_MORE];
}

/* The strings' keys, in viz_str order: the table's first column. */
static const char *const str_keys[VIZ_STR_COUNT] = {
#define VIZ_STR(id) #id,
#include "viz_strings.def"
#undef VIZ_STR
};

const char *viz_str_key(viz_str s) { return (s >= 0 && s < VIZ_STR_COUNT) ? str_keys[s] : "?"; }
