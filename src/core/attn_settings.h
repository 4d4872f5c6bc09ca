/* attn_settings.h — the one table of the layer's settings (d_model … pos_dims):
 * their names on the command line and in lessons, their ranges, how a value
 * is read into an attn_config and written back, and their --help lines. The
 * CLI's flags, the lesson keys (d_model=8) and the rail's values loop over
 * it; a message that lists the settings is made from it.
 *
 * Pure C: no printing; errors come back as attn_status. */
#ifndef ATTN_SETTINGS_H
#define ATTN_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "attn.h"

typedef enum {
    ATTN_SET_D_MODEL,
    ATTN_SET_D_K,
    ATTN_SET_HEADS,
    ATTN_SET_SEED,
    ATTN_SET_MASK,
    ATTN_SET_SCALE,
    ATTN_SET_POS_ENC,
    ATTN_SET_BIAS,
    ATTN_SET_POS_DIMS,
    ATTN_SET_KV_HEADS,   /* grouped-query attention (issue 24) */
    ATTN_SET_POS,        /* the one scheme: none | sinusoidal | rope (pos_enc is its alias for sinusoidal) */
    ATTN_SET_ROPE_BASE,  /* RoPE's B */
    ATTN_SET_POS_OFFSET, /* the first token's position */
    ATTN_SETTING_COUNT
} attn_setting_id;

typedef enum {
    ATTN_SETTING_INT,     /* a whole number in [lo, hi] */
    ATTN_SETTING_MASK,    /* attn_mask_parse's spelling: none, causal, window:W, causal-window:W */
    ATTN_SETTING_ONOFF,   /* on or off (the command line: one flag each way) */
    ATTN_SETTING_COLUMNS, /* FIRST-LAST (columns of X from 0) or all */
    ATTN_SETTING_POS      /* a position scheme: none, sinusoidal, learned or rope (the layer takes all but learned) */
} attn_setting_kind;

typedef struct {
    const char *key;      /* in a lesson: "d_model" (also written "d-model") */
    const char *flag;     /* on the command line: "--d-model N"'s flag; ONOFF: the one that turns it on */
    const char *off_flag; /* ONOFF: the flag that turns it off ("--no-scale"); else NULL */
    attn_setting_kind kind;
    long long lo, hi;    /* INT: the range */
    const char *metavar; /* INT, MASK, COLUMNS: the value in --help ("N", "M", "A-B") */
    const char *help;    /* --help's words; INT: followed by ", LO-HI (default D)" */
} attn_setting;

/* The setting id (or NULL when out of range); the table is static. */
const attn_setting *attn_setting_at(int id);

/* The setting a lesson key names (n bytes; '-' and '_' alike), or -1. */
int attn_setting_by_key(const char *key, size_t n);

/* The setting a command-line flag names, or -1; *on (may be NULL) gets
 * whether an ONOFF flag turns it on. */
int attn_setting_by_flag(const char *flag, bool *on);

typedef enum {
    ATTN_SETTING_OK,
    ATTN_SETTING_NOT_WHOLE, /* INT: not a whole number */
    ATTN_SETTING_RANGE,     /* INT: a whole number outside [lo, hi] */
    ATTN_SETTING_BAD        /* MASK (err says why), ONOFF, COLUMNS: not a value of its kind */
} attn_setting_result;

/* Reads value (n bytes) of setting id into c (nothing else of c changes).
 * MASK's errors are attn_mask_parse's, in err (may be NULL); the other
 * results are for the caller to word in its own place (a flag, a lesson
 * line), with the table's range. */
attn_setting_result attn_setting_parse(int id, const char *value, size_t n, attn_config *c, attn_err *err);

/* Sets an ONOFF setting of c. */
void attn_setting_set(int id, attn_config *c, bool on);

/* Copies setting id (its fields) from src into dst. */
void attn_setting_copy(int id, attn_config *dst, const attn_config *src);

/* The value of setting id in c as a lesson or the command line writes it
 * ("8", "window:2", "on", "0-3", "all") into buf (cap bytes, cut). */
void attn_setting_format(int id, const attn_config *c, char *buf, size_t cap);

/* The position scheme of c as --pos and lessons spell it: "none",
 * "sinusoidal" or "rope" (static). */
const char *attn_pos_name(const attn_config *c);

/* "d_model, d_k, heads, seed, mask, scale, pos_enc, bias, pos_dims, kv_heads,
 * pos, rope_base or pos_offset": the
 * lesson keys, for messages (static). */
const char *attn_setting_keys(void);

/* The --help lines of every setting, in table order (static, UTF-8). */
const char *attn_setting_help(void);

#endif
