#!/usr/bin/env bash
# End-to-end checks of --hf through the real binary (issue 26):
#   usage: run_hf_e2e.sh ATTNVIZ DATA_DIR
# --headless --hf DIR on the generated GPT-2s of tests/data/hf: --dump-json
# against the PyTorch reference (every stage of every layer and head, the ten
# next tokens, token_ids, offsets), --dump-weights, --print, --explain, and
# the refusals: usage errors (exit 2), a bad folder or cell (exit 1, nothing
# written).
set -u
bin=$1
data=$2
py=/usr/bin/python3 # Debian's interpreter: the checks need only json
hf=$data/hf
. "$(dirname "$0")/e2e_lib.sh"

json() { $py -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# compare DUMP REFERENCE: every stage and next within 1e-9·max(1,|x|); prints "same" or the first difference
compare() {
    $py - "$1" "$2" <<'PY'
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def close(a, b, where):
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b): raise SystemExit("shape differs at " + where)
        for i, (x, y) in enumerate(zip(a, b)): close(x, y, "%s[%d]" % (where, i))
    elif b is None or a is None:
        if a != b: raise SystemExit("%s: %r vs %r" % (where, a, b))
    elif abs(a - b) > 1e-9 * max(1, abs(b)): raise SystemExit("%s: %r vs %r" % (where, a, b))
if d["token_ids"] != r["token_ids"]: raise SystemExit("token_ids %r vs %r" % (d["token_ids"], r["token_ids"]))
if len(d["layers"]) != len(r["layers"]): raise SystemExit("layer count")
for l, (a, b) in enumerate(zip(d["layers"], r["layers"])):
    for k in ("resid_pre", "X", "concat", "output", "resid_mid", "mlp_out", "residual"):
        close(a[k], b[k], "layers[%d].%s" % (l, k))
    if len(a["heads"]) != len(b["heads"]): raise SystemExit("head count")
    for h, (x, y) in enumerate(zip(a["heads"], b["heads"])):
        for k in ("Q", "K", "V", "scores", "scaled", "masked", "weights", "Z"):
            close(x[k], y[k], "layers[%d].heads[%d].%s" % (l, h, k))
if [e["id"] for e in d["next"]] != [e["id"] for e in r["next"]]: raise SystemExit("next ids differ")
close([e["p"] for e in d["next"]], [e["p"] for e in r["next"]], "next")
print("same")
PY
}

for case in f32_prefix_tied f16_bare_untied bf16_prefix_eps wordpiece_12heads; do
    sentence=$(json "$hf/$case/reference.json" 'd["sentence"]')
    "$bin" --headless --hf "$hf/$case" --sentence "$sentence" --dump-json "$tmp/$case.json" 2>"$tmp/err" \
        && ok || bad "$case: --dump-json failed: $(cat "$tmp/err")"
    res=$(compare "$tmp/$case.json" "$hf/$case/reference.json" 2>&1)
    [ "$res" = same ] && ok || bad "$case: the dump differs from PyTorch: $res"
done

# offsets: each token's bytes of the sentence; the labels show the leading space
[ "$(json "$tmp/f32_prefix_tied.json" 'd["offsets"][:3], d["tokens"][:2]')" = "([[0, 3], [3, 7], [7, 11]], ['the', '␣cat'])" ] \
    && ok || bad "offsets or labels: $(json "$tmp/f32_prefix_tied.json" 'd["offsets"], d["tokens"]')"
[ "$(json "$tmp/wordpiece_12heads.json" 'd["tokens"][0], d["offsets"][0], d["offsets"][1]')" = "('[CLS]', [0, 0], [0, 3])" ] \
    && ok || bad "[CLS] first, then 猫's three bytes"
# weights and logits only when asked
[ "$(json "$tmp/f32_prefix_tied.json" '"W_Q" in d["layers"][0]["heads"][0], "logits" in d')" = "(False, False)" ] \
    && ok || bad "the dump has weights without --dump-weights"
"$bin" --headless --hf "$hf/f16_bare_untied" --sentence "It sat" --dump-json "$tmp/w.json" --dump-weights \
    && ok || bad "--dump-weights failed"
[ "$(json "$tmp/w.json" 'len(d["layers"][1]["heads"][3]["W_V"]), len(d["layers"][1]["heads"][3]["W_V"][0]), len(d["layers"][0]["W_O"]), len(d["logits"])')" = "(16, 4, 16, 272)" ] \
    && ok || bad "--dump-weights' shapes"
# --bos puts <|endoftext|> first
[ "$("$bin" --headless --hf "$hf/f32_prefix_tied" --sentence "the cat" --bos --dump-json - | $py -c 'import json,sys; print(json.load(sys.stdin)["token_ids"])')" = "[271, 268, 261]" ] \
    && ok || bad "--bos"

expect 1 "starts every sentence with [CLS]" -- --headless --hf "$hf/wordpiece_12heads" --sentence "猫" --bos --print
# the sentence from a file or standard input
printf 'the cat' >"$tmp/s.txt"
expect 0 "tokens (2): 1:the(268) 2:␣cat(261)" -- --headless --hf "$hf/f32_prefix_tied" --sentence-file "$tmp/s.txt" --print next
[ "$(printf 'the mat' | "$bin" --headless --hf "$hf/f32_prefix_tied" --sentence-file - --print next | head -1)" = "tokens (2): 1:the(268) 2:␣mat(267)" ] \
    && ok || bad "--sentence-file - with --hf"
expect 1 "no tokens" -- --headless --hf "$hf/f32_prefix_tied" --sentence "" --print

# --print: tokens, ids, every stage; one stage; next
expect 0 "tokens (6): 1:the(268) 2:␣cat(261)" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat sat on the mat" --print
expect 0 "== mlp_out   6×8" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat sat on the mat" --print
expect 0 "== weights, head 2   6×6" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat sat on the mat" --print weights
expect 0 "== next: the 10 most likely tokens" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat" --print next
expect 0 "== weights, head 12   8×8" -- --headless --hf "$hf/wordpiece_12heads" --sentence "猫坐在垫子上。" --print weights
# --explain: the core's arithmetic for a head's cell, LayerNorm's for X
expect 0 "layer 1: weights (head 2 of 2) [4][2]" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat sat on the mat" --explain weights:1:1:4:2
expect 0 "(head 12 of 12)" -- --headless --hf "$hf/wordpiece_12heads" --sentence "猫坐在垫子上。" --explain q:0:11:3:1
expect 0 "= (x − mean) / √(var + ε) · w + b" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat" --explain x:0:0:1:3
expect 1 "head 2 does not exist: heads are 0 to 1" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat" --explain q:0:2:0:0
expect 1 "outside weights: rows 0 to 1" -- --headless --hf "$hf/f32_prefix_tied" --sentence "the cat" --explain weights:0:0:2:0

# the head finder: the planted previous-token head (layer 2 head 3, counted from 1) ranks first, in en and zh;
# the dump's head_scores agree with PyTorch's weights (gen_hf_reference.py) to 1e-9
planted=$hf/planted_prev_head
psent=$(json "$planted/reference.json" 'd["sentence"]')
"$bin" --headless --hf "$planted" --sentence "$psent" --print heads --lang en >"$tmp/heads.txt" 2>&1 \
    && ok || bad "--print heads failed: $(cat "$tmp/heads.txt")"
grep -A1 "== heads by previous-token score" "$tmp/heads.txt" | grep -q "  1  layer 2 head 3    0.9992" \
    && ok || bad "--print heads: the planted head is not first: $(cat "$tmp/heads.txt")"
grep -q "== heads by induction score: a random sequence of 8 tokens, repeated" "$tmp/heads.txt" \
    && ok || bad "--print heads: no induction ranking (T cut to 16/2)"
grep -q "== heads by first-token share" "$tmp/heads.txt" && ok || bad "--print heads: no first-token ranking"
"$bin" --headless --hf "$planted" --sentence "$psent" --print heads --lang zh >"$tmp/heads_zh.txt" 2>&1 \
    && ok || bad "--print heads --lang zh failed"
grep -A1 "== 头的排名，前一个词得分" "$tmp/heads_zh.txt" | grep -q "  1  第 2 层 头 3    0.9992" \
    && ok || bad "--print heads in zh: $(cat "$tmp/heads_zh.txt")"
"$bin" --headless --hf "$planted" --sentence "$psent" --dump-json "$tmp/planted.json" && ok || bad "planted: --dump-json"
res=$($py - "$tmp/planted.json" "$planted/reference.json" <<'PY'
import json, sys
d, r = json.load(open(sys.argv[1]))["head_scores"], json.load(open(sys.argv[2]))
if d["induction_len"] != 8: raise SystemExit("induction_len %r" % d["induction_len"])
for k, (a, b) in enumerate(zip(d["heads"], r["head_scores"])):
    if (a["layer"], a["head"]) != (k // 4, k % 4): raise SystemExit("order at %d" % k)
    for key in ("prev_token", "first_token"):
        if abs(a[key] - b[key]) > 1e-9: raise SystemExit("head %d %s: %r vs %r" % (k, key, a[key], b[key]))
    if not 0 <= a["induction"] <= 1: raise SystemExit("head %d induction %r" % (k, a["induction"]))
if len(d["heads"]) != len(r["head_scores"]): raise SystemExit("count")
print("same")
PY
)
[ "$res" = same ] && ok || bad "head_scores differ from PyTorch: $res"

# the real-heads lesson page (modern-attention, zh and en): ATTNVIZ_PAGE_MODEL (the page-model override) opens the
# planted model; the page names the planted head by its computed scores, and says so when no head passes
lessons=$(dirname "$0")/../../lessons
for lang in en zh; do
    lesson=$lessons/$lang/modern-attention.lesson
    ATTNVIZ_PAGE_MODEL=$planted "$bin" --check-lesson "$lesson" >"$tmp/chk" 2>&1 && ok || bad "$lang: --check-lesson with the folder: $(cat "$tmp/chk")"
    ATTNVIZ_PAGE_MODEL= "$bin" --check-lesson "$lesson" >"$tmp/chk" 2>&1 && ok || bad "$lang: --check-lesson without it: $(cat "$tmp/chk")"
    ATTNVIZ_PAGE_MODEL=$planted "$bin" --headless --lesson "$lesson" --page real-heads --print heads >"$tmp/page_$lang.txt" 2>&1 \
        && ok || bad "$lang: the real-heads page failed: $(cat "$tmp/page_$lang.txt")"
done
grep -q "previous-token heads, by their score — at least 0.50: layer 2 head 3 (1.00);" "$tmp/page_en.txt" \
    && ok || bad "en: the page does not name the planted head: $(cat "$tmp/page_en.txt")"
grep -q "induction heads, by their score — no head reaches 0.40 (the highest is layer 2 head 1, at 0.06);" "$tmp/page_en.txt" \
    && ok || bad "en: no sentence for when no head passes"
grep -q "  1  layer 2 head 3    0.9992" "$tmp/page_en.txt" && ok || bad "en: the page's --print heads has no ranking"
grep -q "前一个词头，按得分——至少 0.50 的有：第 2 层头 3（1.00）；" "$tmp/page_zh.txt" \
    && ok || bad "zh: the page does not name the planted head: $(cat "$tmp/page_zh.txt")"
grep -q "没有一个头达到 0.60（最高的是第 2 层头 2，0.52）" "$tmp/page_zh.txt" && ok || bad "zh: no sentence for when none passes"
grep -q "huggingface-cli download" "$tmp/page_en.txt" && bad "en: the page shows its @missing text with the folder" || ok
# without the files: the page says how to get them, names no head; a dump is refused, nothing written
ATTNVIZ_PAGE_MODEL= "$bin" --headless --lesson "$lessons/en/modern-attention.lesson" --page real-heads --print >"$tmp/nofiles.txt" 2>&1 \
    && ok || bad "the page without its files failed: $(cat "$tmp/nofiles.txt")"
grep -q "huggingface-cli download gpt2" "$tmp/nofiles.txt" && ok || bad "without the files the page does not say how to get them"
grep -q "by their score" "$tmp/nofiles.txt" && bad "without the files the page still names heads" || ok
ATTNVIZ_PAGE_MODEL= expect 1 "Page real-heads reads the model folder gpt2, which was not found" -- \
    --headless --lesson "$lessons/en/modern-attention.lesson" --page real-heads --dump-json "$tmp/none.json"
ATTNVIZ_PAGE_MODEL=$planted expect 1 "whose files fix its configuration; drop --mask" -- \
    --headless --lesson "$lessons/en/modern-attention.lesson" --page real-heads --print --mask none
expect 1 "page classic has no @hf" -- --headless --lesson "$lessons/en/modern-attention.lesson" --page classic --print heads
ATTNVIZ_PAGE_MODEL=$tmp expect 1 "(from ATTNVIZ_PAGE_MODEL) has no config.json" -- \
    --headless --lesson "$lessons/en/modern-attention.lesson" --page real-heads --dump-json "$tmp/none.json"

# usage errors: exit 2
for extra in "--model x.json" "--weights w.json" "--lesson l.lesson" "--heads 2" "--no-scale" "--target 1:a"; do
    # shellcheck disable=SC2086
    expect 2 "--hf takes its weights, configuration and tokenizer from the folder; drop ${extra%% *}" -- \
        --headless --hf "$hf/f32_prefix_tied" --print $extra
done
expect 2 "--explain needs STAGE:LAYER:HEAD:ROW:COL" -- --headless --hf "$hf/f32_prefix_tied" --explain weights:0:1:2
expect 2 "--print resid_mid is a stage of a Hugging Face model; it goes with --hf DIR" -- --headless --print resid_mid
expect 2 "--dump-weights goes with --hf DIR" -- --headless --print --dump-weights
# --export-dir: every layer's steps, files L<l>-NN-…; the CSV of a head's weights is the dump's, to the digit
"$bin" --headless --hf "$hf/bf16_prefix_eps" --sentence "a cat, a mat" --export-dir "$tmp/ex" --format csv,png \
    >/dev/null 2>"$tmp/err" && "$bin" --headless --hf "$hf/bf16_prefix_eps" --sentence "a cat, a mat" \
    --dump-json "$tmp/ex.json" 2>>"$tmp/err" && [ -s "$tmp/ex/L3-08-multi-head.png" ] &&
    $py - "$tmp/ex" "$tmp/ex.json" <<'PY' && ok || bad "--hf --export-dir: $(cat "$tmp/err")"
import csv, json, sys
d = json.load(open(sys.argv[2]))
for l in range(3):
    rows = list(csv.reader(open(f"{sys.argv[1]}/L{l + 1}-06-softmax-A-head1.csv", encoding="utf-8")))
    got = [[float(v) for v in r[1:]] for r in rows[1:]]
    assert got == d["layers"][l]["heads"][0]["weights"], l
PY
expect 0 "--hf DIR" -- --help

# a bad folder or sentence: exit 1, nothing written
mkdir "$tmp/notok" && cp "$hf/f32_prefix_tied/config.json" "$hf/f32_prefix_tied/model.safetensors" "$tmp/notok/"
expect 1 "has no tokenizer" -- --headless --hf "$tmp/notok" --dump-json "$tmp/none.json"
expect 1 "config.json" -- --headless --hf "$tmp" --dump-json "$tmp/none.json"
expect 1 "config.json is not a folder" -- --headless --hf "$hf/f32_prefix_tied/config.json" --dump-json "$tmp/none.json"
expect 1 "this model reads at most 16" -- --headless --hf "$hf/f32_prefix_tied" --dump-json "$tmp/none.json"
[ -e "$tmp/none.json" ] && bad "a dump was written after a refusal" || ok

finish
