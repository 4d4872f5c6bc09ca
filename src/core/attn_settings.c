/* attn_settings.c — the table of settings (attn_settings.h). */
#include "attn_settings.h"

#include <stdio.h>
#include <string.h>

#include "numparse.h"
#include "utf8.h"

static const attn_setting table[ATTN_SETTING_COUNT] = {
    [ATTN_SET_D_MODEL] = {"d_model", "--d-model", NULL, ATTN_SETTING_INT, 1, ATTN_MAX_D_MODEL, "N", "embedding width"},
    [ATTN_SET_D_K] = {"d_k", "--d-k", NULL, ATTN_SETTING_INT, 1, ATTN_MAX_D_K, "N", "width per head"},
    [ATTN_SET_HEADS] = {"heads", "--heads", NULL, ATTN_SETTING_INT, 1, ATTN_MAX_HEADS, "H", "number of heads"},
    [ATTN_SET_SEED] = {"seed", "--seed", NULL, ATTN_SETTING_INT, 0, 4294967295LL, "N", "weight seed"},
    [ATTN_SET_MASK] = {"mask", "--mask", NULL, ATTN_SETTING_MASK, 0, 0, "M",
                       "none | causal | window:W | causal-window:W (W 1-64)"},
    [ATTN_SET_SCALE] = {"scale", "--scale", "--no-scale", ATTN_SETTING_ONOFF, 0, 0, NULL,
                        "  --no-scale            do not divide scores by sqrt(d_k) (--scale: do, over a\n"
                        "                        lesson page that does not)\n"},
    [ATTN_SET_POS_ENC] = {"pos_enc", "--pos-enc", "--no-pos-enc", ATTN_SETTING_ONOFF, 0, 0, NULL,
                          "  --pos-enc             add sinusoidal positional encoding to X (--no-pos-enc: not)\n"},
    [ATTN_SET_BIAS] = {"bias", "--bias", "--no-bias", ATTN_SETTING_ONOFF, 0, 0, NULL,
                       "  --bias                add biases b_Q, b_K, b_V, b_O (--no-bias: not)\n"},
    [ATTN_SET_POS_DIMS] = {"pos_dims", "--pos-dims", NULL, ATTN_SETTING_COLUMNS, 0, ATTN_MAX_D_MODEL - 1, "A-B",
                           "the positional encoding fills columns A to B of X (from 0;\n"
                           "                        default: all)"},
    [ATTN_SET_KV_HEADS] = {"kv_heads", "--kv-heads", NULL, ATTN_SETTING_INT, 0, ATTN_MAX_HEADS, "G",
                           "key/value heads, each shared by heads/G query heads\n"
                           "                        (grouped-query attention; G divides --heads; 1:\n"
                           "                        multi-query; 0: one per head)"},
    [ATTN_SET_POS] = {"pos", "--pos", NULL, ATTN_SETTING_POS, 0, 0, "P",
                      "positions: none | sinusoidal (added to X; --pos-enc) |\n"
                      "                        rope (q and k rotated pairwise) | learned (--train)"},
    [ATTN_SET_ROPE_BASE] = {"rope_base", "--rope-base", NULL, ATTN_SETTING_INT, 2, 1000000000, "B",
                            "RoPE's base: pair i turns by m·B^(-2i/d_k)"},
    [ATTN_SET_POS_OFFSET] = {"pos_offset", "--pos-offset", NULL, ATTN_SETTING_INT, 0, ATTN_MAX_POS_OFFSET, "K",
                             "the first token's position"},
};

static const char *const pos_names[] = {"none", "sinusoidal", "rope"};

const char *attn_pos_name(const attn_config *c) {
    return pos_names[c->rope ? 2 : c->pos_enc ? 1
                                              : 0];
}

/* none, sinusoidal or rope into c (one scheme: the others go off). */
static attn_setting_result parse_pos(const char *v, size_t n, attn_config *c, attn_err *err) {
    for (int i = 0; i < 3; i++)
        if (strlen(pos_names[i]) == n && memcmp(v, pos_names[i], n) == 0) {
            c->pos_enc = i == 1;
            c->rope = i == 2;
            return ATTN_SETTING_OK;
        }
    if (n == 7 && memcmp(v, "learned", 7) == 0)
        attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_POS_LEARNED);
    else
        attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_CFG_POS_UNKNOWN,
                     (int)utf8_cut(v, n, 40), v);
    return ATTN_SETTING_BAD;
}

const attn_setting *attn_setting_at(int id) {
    return id >= 0 && id < ATTN_SETTING_COUNT ? &table[id] : NULL;
}

int attn_setting_by_key(const char *key, size_t n) {
    char buf[16];
    if (n >= sizeof buf) return -1;
    for (size_t i = 0; i < n; i++) buf[i] = key[i] == '-' ? '_' : key[i];
    buf[n] = '\0';
    for (int i = 0; i < ATTN_SETTING_COUNT; i++)
        if (strcmp(buf, table[i].key) == 0) return i;
    return -1;
}

int attn_setting_by_flag(const char *flag, bool *on) {
    for (int i = 0; i < ATTN_SETTING_COUNT; i++) {
        bool off = table[i].off_flag && strcmp(flag, table[i].off_flag) == 0;
        if (off || strcmp(flag, table[i].flag) == 0) {
            if (on) *on = !off;
            return i;
        }
    }
    return -1;
}

/* A whole number of digits only (no sign, no spaces) in [lo, hi]. */
static bool digits_in(const char *s, size_t n, long long lo, long long hi, long long *out) {
    return n > 0 && s[0] >= '0' && s[0] <= '9' && attn_parse_int(s, n, lo, hi, out) == ATTN_INT_OK;
}

/* FIRST-LAST (0-based, FIRST <= LAST) or all: where the positional encoding goes. */
static bool parse_columns(const attn_setting *s, const char *v, size_t n, attn_config *c) {
    const char *dash = memchr(v, '-', n);
    long long a, b;
    if (n == 3 && memcmp(v, "all", 3) == 0) {
        c->pos_first = c->pos_count = 0;
        return true;
    }
    if (!dash || !digits_in(v, (size_t)(dash - v), s->lo, s->hi, &a) ||
        !digits_in(dash + 1, n - (size_t)(dash + 1 - v), a, s->hi, &b))
        return false;
    c->pos_first = (int)a;
    c->pos_count = (int)(b - a + 1);
    return true;
}

/* Where an INT setting lives in c. */
static void set_int(int id, attn_config *c, long long v) {
    switch (id) {
    case ATTN_SET_D_MODEL: c->d_model = (int)v; break;
    case ATTN_SET_D_K: c->d_k = (int)v; break;
    case ATTN_SET_HEADS: c->heads = (int)v; break;
    case ATTN_SET_KV_HEADS: c->kv_heads = (int)v; break;
    case ATTN_SET_ROPE_BASE: c->rope_base = (double)v; break;
    case ATTN_SET_POS_OFFSET: c->pos_offset = (int)v; break;
    default: c->seed = (uint32_t)v; break;
    }
}

static bool *flag_of(int id, attn_config *c) {
    return id == ATTN_SET_SCALE ? &c->scale : id == ATTN_SET_POS_ENC ? &c->pos_enc
                                                                     : &c->bias;
}

attn_setting_result attn_setting_parse(int id, const char *value, size_t n, attn_config *c, attn_err *err) {
    const attn_setting *s = attn_setting_at(id);
    long long v;
    char buf[40];
    switch (s->kind) {
    case ATTN_SETTING_INT:
        switch (attn_parse_int(value, n, s->lo, s->hi, &v)) {
        case ATTN_INT_OK: set_int(id, c, v); return ATTN_SETTING_OK;
        case ATTN_INT_NOT_WHOLE: return ATTN_SETTING_NOT_WHOLE;
        case ATTN_INT_RANGE: return ATTN_SETTING_RANGE;
        }
        return ATTN_SETTING_BAD;
    case ATTN_SETTING_MASK:
        if (value[n] != '\0') { // a word inside a line: its first characters, whole, as the message quotes it
            snprintf(buf, sizeof buf, "%.*s", (int)utf8_cut(value, n, sizeof buf - 1), value);
            value = buf;
        }
        return attn_mask_parse(&c->mask, value, err) == ATTN_OK ? ATTN_SETTING_OK : ATTN_SETTING_BAD;
    case ATTN_SETTING_ONOFF:
        if (n == 2 && memcmp(value, "on", 2) == 0) attn_setting_set(id, c, true);
        else if (n == 3 && memcmp(value, "off", 3) == 0) attn_setting_set(id, c, false);
        else return ATTN_SETTING_BAD;
        return ATTN_SETTING_OK;
    case ATTN_SETTING_COLUMNS: return parse_columns(s, value, n, c) ? ATTN_SETTING_OK : ATTN_SETTING_BAD;
    case ATTN_SETTING_POS: return parse_pos(value, n, c, err);
    }
    return ATTN_SETTING_BAD;
}

void attn_setting_set(int id, attn_config *c, bool on) {
    if (attn_setting_at(id) && table[id].kind == ATTN_SETTING_ONOFF) *flag_of(id, c) = on;
    if (id == ATTN_SET_POS_ENC) c->rope = false; // --pos-enc is --pos sinusoidal, --no-pos-enc --pos none
}

void attn_setting_copy(int id, attn_config *dst, const attn_config *src) {
    switch (id) {
    case ATTN_SET_D_MODEL: dst->d_model = src->d_model; break;
    case ATTN_SET_D_K: dst->d_k = src->d_k; break;
    case ATTN_SET_HEADS: dst->heads = src->heads; break;
    case ATTN_SET_SEED: dst->seed = src->seed; break;
    case ATTN_SET_MASK: dst->mask = src->mask; break;
    case ATTN_SET_SCALE: dst->scale = src->scale; break;
    case ATTN_SET_POS_ENC:
    case ATTN_SET_POS: dst->pos_enc = src->pos_enc, dst->rope = src->rope; break;
    case ATTN_SET_ROPE_BASE: dst->rope_base = src->rope_base; break;
    case ATTN_SET_POS_OFFSET: dst->pos_offset = src->pos_offset; break;
    case ATTN_SET_BIAS: dst->bias = src->bias; break;
    case ATTN_SET_POS_DIMS: dst->pos_first = src->pos_first, dst->pos_count = src->pos_count; break;
    case ATTN_SET_KV_HEADS: dst->kv_heads = src->kv_heads; break;
    default: break;
    }
}

void attn_setting_format(int id, const attn_config *c, char *buf, size_t cap) {
    static const char *const masks[] = {"none", "causal", "window", "causal-window"};
    switch (id) {
    case ATTN_SET_D_MODEL: snprintf(buf, cap, "%d", c->d_model); break;
    case ATTN_SET_D_K: snprintf(buf, cap, "%d", c->d_k); break;
    case ATTN_SET_HEADS: snprintf(buf, cap, "%d", c->heads); break;
    case ATTN_SET_KV_HEADS: snprintf(buf, cap, "%d", c->kv_heads); break;
    case ATTN_SET_SEED: snprintf(buf, cap, "%lu", (unsigned long)c->seed); break;
    case ATTN_SET_MASK:
        if (c->mask.kind == ATTN_MASK_WINDOW || c->mask.kind == ATTN_MASK_CAUSAL_WINDOW)
            snprintf(buf, cap, "%s:%d", masks[c->mask.kind], c->mask.window);
        else snprintf(buf, cap, "%s", masks[c->mask.kind]);
        break;
    case ATTN_SET_SCALE:
    case ATTN_SET_POS_ENC:
    case ATTN_SET_BIAS:
        snprintf(buf, cap, "%s", *flag_of(id, (attn_config *)c) ? "on" : "off");
        break;
    case ATTN_SET_POS_DIMS:
        if (c->pos_count == 0) snprintf(buf, cap, "all");
        else snprintf(buf, cap, "%d-%d", c->pos_first, c->pos_first + c->pos_count - 1);
        break;
    case ATTN_SET_POS: snprintf(buf, cap, "%s", attn_pos_name(c)); break;
    case ATTN_SET_ROPE_BASE: snprintf(buf, cap, "%.0f", c->rope_base); break;
    case ATTN_SET_POS_OFFSET: snprintf(buf, cap, "%d", c->pos_offset); break;
    default: snprintf(buf, cap, "?"); break;
    }
}

const char *attn_setting_keys(void) {
    static char keys[200]; // made once from the table
    if (!keys[0])
        for (int i = 0; i < ATTN_SETTING_COUNT; i++) {
            size_t used = strlen(keys);
            snprintf(keys + used, sizeof keys - used, "%s%s", i == 0 ? "" : i == ATTN_SETTING_COUNT - 1 ? " or "
                                                                                                        : ", ",
                     table[i].key);
        }
    return keys;
}

const char *attn_setting_help(void) {
    static char help[2048]; // made once from the table
    if (help[0]) return help;
    attn_config def;
    attn_config_default(&def);
    for (int i = 0; i < ATTN_SETTING_COUNT; i++) {
        const attn_setting *s = &table[i];
        size_t used = strlen(help);
        char head[40], value[24];
        if (s->kind == ATTN_SETTING_ONOFF) { // its lines as they are: one flag each way
            snprintf(help + used, sizeof help - used, "%s", s->help);
            continue;
        }
        snprintf(head, sizeof head, "%s %s", s->flag, s->metavar);
        attn_setting_format(i, &def, value, sizeof value);
        if (s->kind == ATTN_SETTING_INT)
            snprintf(help + used, sizeof help - used, "  %-20s  %s, %lld-%lld (default %s)\n", head, s->help, s->lo,
                     s->hi, value);
        else snprintf(help + used, sizeof help - used, "  %-20s  %s\n", head, s->help);
    }
    return help;
}
