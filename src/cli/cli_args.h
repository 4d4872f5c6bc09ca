/* cli_args.h — the command line, parsed into one struct without side effects.
 *
 * Parsing never prints or exits: it returns ATTN_OK or an error whose message
 * a learner understands; main.c decides what to print and the exit code. */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "attn.h"
#include "cli_model_args.h"
#include "viz_strings.h"

#define CLI_SEED_SENTENCE "这只动物没看见那只鸟，因为它飞得太快了。"

typedef enum {
    CLI_MODE_GUI,        /* no headless action: open the window */
    CLI_MODE_HEADLESS,   /* compute and print / dump / explain */
    CLI_MODE_EXPORT,     /* --export-dir: write figures and tables (main.c, needs fonts) */
    CLI_MODE_COMPLEXITY, /* --complexity: time the core at growing n */
    CLI_MODE_BENCH,      /* --bench: replay a classroom session offscreen and time it */
    CLI_MODE_HELP,       /* --help */
    CLI_MODE_VERSION,    /* --version */
    CLI_MODE_TRAIN,      /* --train TASK --save FILE: train a model (cli_train.c) */
    CLI_MODE_TASKS       /* --tasks: list the tasks (cli_train.c); the last (the fuzzer's range check) */
} cli_mode;

typedef struct {
    cli_mode mode;                                                           /* what to do */
    attn_config cfg;                                                         /* configuration from the flags (defaults otherwise) */
    bool set_d_model;                                                        /* --d-model was given (a weights file may not override it) */
    bool set_d_k;                                                            /* --d-k was given */
    bool set_heads;                                                          /* --heads was given */
    bool set_seed, set_mask, set_scale, set_pos_enc, set_bias, set_pos_dims; /* given as flags (they override a lesson page) */
    bool set_kv_heads;                                                       /* --kv-heads given (issue 24) */
    bool set_pos, set_rope_base, set_pos_offset;                             /* --pos (but learned: a model's), --rope-base, --pos-offset given */
    const char *sentence;                                                    /* --sentence, borrowed from argv; NULL when not given */
    const char *sentence_file;                                               /* --sentence-file path or "-"; NULL when not given */
    const char *weights_path;                                                /* --weights FILE.json; NULL when not given */
    bool print;                                                              /* --print given */
    int print_stage;                                                         /* stage to print, or -1 for the tokens and every stage */
    const char *dump_path;                                                   /* --dump-json FILE or "-"; NULL when not given */
    int width, height;                                                       /* --size WxH of the window (0: default) */
    double ui_scale;                                                         /* --ui-scale (0: follow the display's DPI) */
    const char *font_path;                                                   /* --font FILE overriding the fontconfig match; NULL otherwise */
    const char *script_path;                                                 /* --script FILE driving the GUI; NULL otherwise */
    const char *shots_dir;                                                   /* --shots-dir DIR for screenshots; NULL: XDG pictures folder */
    const char *lesson_path;                                                 /* --lesson FILE (GUI: open it; headless: compute its page); NULL otherwise */
    const char *page_id;                                                     /* --page ID of the lesson; NULL: the first page */
    const char *check_lesson;                                                /* --check-lesson FILE: validate it and do nothing else; NULL otherwise */
    const char *export_dir;                                                  /* --export-dir DIR; NULL otherwise */
    const char *formats;                                                     /* --format list as given ("png,svg"); NULL: the export default */
    const char *steps;                                                       /* --steps "all" or "3,6"; NULL: all */
    const char *view;                                                        /* --view figure|window; NULL: figure */
    const char *theme;                                                       /* --theme NAME (GUI and export); NULL: saved or light */
    /* set by main for --headless in a zh UI: words a refusal that carries a message id in the UI's language
     * (the strings table lives above this layer); NULL: err's English msg */
    void (*word_err)(const void *ctx, const attn_err *err, char *out, size_t cap);
    const void *word_ctx;
    const viz_strings *table;                                  /* set by main for --headless: the strings table (the head finder's words), or NULL: English */
    const char *lang;                                          /* --lang en|zh (GUI and export); NULL: from the lesson, settings or LANG */
    int pixel_scale;                                           /* --pixel-scale 1..3 (0: 1) */
    bool caption;                                              /* --caption */
    int max_n;                                                 /* --max-n for --complexity (0: default) */
    bool complexity;                                           /* --complexity */
    bool bench;                                                /* --bench */
    bool explain;                                              /* --explain given */
    bool decode;                                               /* --decode: token by token with a KV cache (issue 24) */
    const char *explain_spec;                                  /* --explain's value as given, borrowed from argv */
    int explain_stage, explain_head, explain_row, explain_col; /* its cell */
    cli_model_opts model;                                      /* --train, --tasks, --model, --target and their flags */
    /* issue 24 part 4 */
    const char *tiles_spec; /* --tiles B as given (checked once --lang is known); NULL when not given */
    int tiles;              /* --tiles B: FlashAttention's blocks (attn_tiles.h), 1..ATTN_MAX_TILE; 0 when not given */
} cli_opts;

/* Whether the learner reads Chinese: --lang, else the locale (LC_ALL,
 * LC_MESSAGES, LANG), as the window and the exports choose. */
bool cli_lang_zh(const cli_opts *o);

/* Checks how the model's flags combine with the rest and sets the mode for
 * --train and --tasks. */
attn_status cli_model_finish(cli_opts *o, attn_err *err);

/* The first flag given that sets a one-layer configuration (--d-model …
 * --bias), which a trained model fixes, or NULL. */
const char *cli_model_config_flag(const cli_opts *o);

/* With --lesson, --explain's cell and a model's --print stage are checked
 * once the page is known (a model page's cells have a layer): this checks
 * them for a page of the designed layer. */
attn_status cli_check_layer_page(cli_opts *o, attn_err *err);

/* Parses argv[1..argc). Fills *o (defaults first) and returns ATTN_OK, or an
 * error naming the flag. argv strings are borrowed, not copied. */
attn_status cli_parse(cli_opts *o, int argc, char **argv, attn_err *err);

/* Whether setting id (attn_settings.h) was given as a flag. */
bool cli_setting_given(const cli_opts *o, int id);

/* The --help text (static, UTF-8; its settings' lines come from their table). */
const char *cli_help_text(void);

/* "attnviz: MESSAGE" on errf: err as o->word_err words it (main's, in a zh UI), else its msg. */
void cli_print_err(const cli_opts *o, FILE *errf, const attn_err *err);

#endif
