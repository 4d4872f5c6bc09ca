/* cli_model_args.h — the flags of the trainable model: --train, --tasks,
 * --model, --target and the training options. Parsed beside the rest of the
 * command line (cli_args.c calls these); never prints or exits. */
#ifndef CLI_MODEL_ARGS_H
#define CLI_MODEL_ARGS_H

#include <stdbool.h>

#include "attn.h"
#include "model.h"

#define CLI_MAX_TARGETS MODEL_MAX_LEN

typedef struct {
    int pos;           /* POS of --target POS:TOKEN (from 0) */
    const char *token; /* TOKEN: everything after the first colon, borrowed from argv */
} cli_target;

typedef struct {
    const char *train_task;                                                                        /* --train TASK; NULL otherwise */
    const char *save_path;                                                                         /* --save FILE.json; NULL otherwise */
    const char *model_path;                                                                        /* --model FILE.json; NULL otherwise */
    bool tasks;                                                                                    /* --tasks */
    int layers;                                                                                    /* --layers L */
    model_pos pos;                                                                                 /* --pos */
    model_objective objective;                                                                     /* --objective */
    int train_steps;                                                                               /* --train-steps N */
    int batch;                                                                                     /* --batch B */
    double lr;                                                                                     /* --lr X */
    double weight_decay;                                                                           /* --weight-decay X */
    double rope_base;                                                                              /* --rope-base B (with --pos rope) */
    bool set_rope_base;                                                                            /* given */
    bool set_layers, set_pos, set_objective, set_train_steps, set_batch, set_lr, set_weight_decay; /* given */
    int n_targets;                                                                                 /* --target entries */
    cli_target targets[CLI_MAX_TARGETS];
    const char *hf_dir;     /* --hf DIR: a GPT-2 in Hugging Face's layout; NULL otherwise */
    bool bos;               /* --bos: <|endoftext|> first (--hf with GPT-2's tokenizer) */
    bool dump_weights;      /* --dump-weights: --hf's dump has the weights and the logits too */
    const char *print_name; /* --print STAGE's name as given (--hf has stages of its own); NULL otherwise */
    /* --explain with --model: STAGE:LAYER:HEAD:ROW:COL */
    char explain_stage[16]; /* the stage's name as given */
    int explain_layer, explain_head, explain_row, explain_col;
    int generate; /* --generate N: tokens the model adds to the sentence, with a KV cache (issue 24); 0: none */
} cli_model_opts;

/* true for the model flags that take a value. */
bool cli_model_takes_value(const char *flag);

/* Parses one of them into *m. Errors name the flag. */
attn_status cli_model_parse_valued(cli_model_opts *m, const char *flag, const char *val, attn_err *err);

/* Parses --explain's STAGE:LAYER:HEAD:ROW:COL (with --model). */
attn_status cli_model_parse_explain(cli_model_opts *m, const char *spec, attn_err *err);

/* --train takes the layer's position flags over (the one --pos): *m gets
 * the scheme of cfg when pos_given (learned came here directly) and
 * cfg's rope_base when base_given; --pos-offset (offset_given) is refused
 * (a model trains from position 0). */
attn_status cli_model_take_positions(cli_model_opts *m, bool pos_given, const attn_config *cfg, bool base_given,
                                     bool offset_given, attn_err *err);

/* The first training flag given (--layers, --pos, --objective, --train-steps,
 * --batch, --lr, --weight-decay), or NULL. */
const char *cli_model_training_flag(const cli_model_opts *m);

/* The stages --print names with --hf beyond the core's x … output:
 * "resid_pre", "resid_mid", "mlp_out", "residual", "next". Returns an index
 * from 0, or -1. */
int cli_hf_stage_from_name(const char *name);
const char *cli_hf_stage_name(int i); /* and back; "" out of range */

/* Parses --explain's STAGE:LAYER:HEAD:ROW:COL with --hf (a core stage; the
 * numbers within --hf's limits, the model's own sizes checked once it is
 * read). */
attn_status cli_hf_parse_explain(cli_model_opts *m, const char *spec, attn_err *err);

#endif
