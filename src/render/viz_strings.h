/* viz_strings.h — the UI string table (assets/ui_strings.tsv) in both languages. */
#ifndef VIZ_STRINGS_H
#define VIZ_STRINGS_H

#include "attn_err.h"
#include "page.h"
#include "viz_scene.h"

typedef enum { VIZ_LANG_EN,
               VIZ_LANG_ZH,
               VIZ_LANG_COUNT } viz_lang;

typedef struct {
    char *text_;                                  /* owned file contents, split in place */
    const char *s[VIZ_LANG_COUNT][VIZ_STR_COUNT]; /* pointers into text_ */
} viz_strings;

/* Parses the TSV (key, English, Chinese; '#' comments; "\n" escapes). Every
 * id of viz_strings.def must be present in both languages; an unknown key or
 * a missing one is an error naming it and its line. On success *out owns its
 * copy of the text (free with viz_strings_free). */
attn_status viz_strings_parse(viz_strings *out, const char *text, size_t len, const char *name, attn_err *err);

/* Reads and parses the file at path. */
attn_status viz_strings_load(viz_strings *out, const char *path, attn_err *err);

void viz_strings_free(viz_strings *t); /* NULL is a no-op */

/* The settings in which b differs from a, as b has them, into out (cap bytes,
 * cut at a whole character): in the words of the rail's controls in ui (one
 * language's strings, or NULL for their keys), "Mask window, Window W 2", not
 * the lessons' syntax; a setting without a control as attn_config_diff_text
 * writes it. The window's compare titles and the exports' share it. */
void viz_config_words(char *out, size_t cap, const char *const *ui, viz_lang lang, const attn_config *a,
                      const attn_config *b);

/* err in lang: its message id's ERR_* row of t (attn_msgs.def) with its
 * arguments, else (no id, no table) its English msg. The window's status
 * line and the command line's refusals in a zh UI share it. */
void viz_err_text(char *out, size_t cap, const viz_strings *t, viz_lang lang, const attn_err *err);
/* The strings table's entry ERR_<ID> of a message id (NONE: APP_NAME, never looked up). */
viz_str viz_msg_str(attn_msg id);

/* The decode view's narrative for token t of d (issue 24): what decoding
 * does, then what the token costs, the cache's memory beside a real model's
 * and, with more than one head, the groups; paragraphs split by a blank line,
 * in ui's words (one language's strings, or NULL for their keys). The window's
 * narrative panel and the exports (LaTeX, HTML) share it. */
void viz_decode_narrative(char *out, size_t cap, const char *const *ui, const attn_decode *d, int t);

/* Step step's hint in ui's words (or its key) for a run of cfg: the table's
 * text, with the run's own values filled in where it names one (step 2b:
 * RoPE's base, --rope-base). Returns the text: buf (cap bytes) when filled,
 * else the table's string itself. The window's narrative and the exports
 * share it. */
const char *viz_step_hint(char *buf, size_t cap, const char *const *ui, attn_step step, const attn_config *cfg);

/* The words of a {heads …} reference from ui (one language's strings; NULL:
 * the English, page_hf_words_en), for page_hf_ref_text. Here, beside the
 * table, so the command line (and the fuzz build, which has no renderer)
 * words the head finder without the rest of render. */
void viz_lesson_hf_words(page_hf_words *w, const char *const *ui);

/* v with its thousands grouped by commas (3,200), into buf (cap bytes; cut when too small). The
 * tiles view and its exports share it. */
void viz_thousands(char *buf, size_t cap, size_t v);

#endif
