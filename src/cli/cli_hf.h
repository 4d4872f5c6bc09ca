/* cli_hf.h — attnviz --headless --hf DIR: a GPT-2 from a Hugging Face folder
 * on a sentence, printed (--print [STAGE]), dumped (--dump-json F, with
 * --dump-weights the weights and the last position's logits too) or one cell
 * explained (--explain STAGE:LAYER:HEAD:ROW:COL). */
#ifndef CLI_HF_H
#define CLI_HF_H

#include <stdbool.h>
#include <stdio.h>

#include "attn_err.h"
#include "cli_args.h"
#include "lesson_types.h"

/* The default sentences: English for a GPT-2 tokenizer (the Chinese seed is
 * 44 GPT-2 tokens, most of them pieces of characters), the seed sentence for
 * a vocab.txt (Chinese) model. */
#define CLI_HF_SENTENCE_EN "The animal didn't cross the street because it was too tired."

/* Runs o's headless actions with o->model.hf_dir. Results go to out, errors
 * to errf (one line, "attnviz: "). Returns 0, or 1 when the folder, the
 * sentence, the cell or the computation failed; nothing is written to
 * --dump-json's file then. */
int cli_hf_run(const cli_opts *o, FILE *out, FILE *errf);

/* A lesson page with @hf (--headless --lesson … --page ID): with --print, the
 * page's title and text first, its {heads …} references computed on the
 * sentence (zh: the lesson is Chinese); then, when the page's folder was
 * found (o->model.hf_dir is it), what cli_hf_run does. Without the folder,
 * --print shows the page's @missing text and the rest is refused (exit 1). */
int cli_hf_run_page(const cli_opts *o, const lesson_page *pg, bool zh, FILE *out, FILE *errf);

#endif
