#!/usr/bin/env bash
# End-to-end checks of the attnviz binary: usage: run_e2e.sh ATTNVIZ DATA_DIR
set -u
bin=$1
data=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3 # Debian's interpreter: the compare script needs only json
. "$(dirname "$0")/e2e_lib.sh"

expect 0 "tokens (20): 1:这 2:只" -- --headless --print
expect 0 "== output:" -- --headless --print
expect 0 "attnviz 0." -- --version
expect 0 "--dump-json" -- --help
expect 0 "tokens (12): 1:The 2:animal 3:didn't" -- --headless --sentence "The animal didn't cross the street because it was too tired." --print x
expect 1 "The sentence is empty" -- --headless --sentence ""
expect 2 "--heads must be between 1 and 8" -- --headless --heads 9
expect 2 "Unknown option" -- --nope
expect 1 "Cannot open $tmp/missing.json" -- --headless --weights "$tmp/missing.json"
printf '{"X": [[1, 2]' >"$tmp/trunc.json"
expect 1 "trunc.json:1:" -- --headless --weights "$tmp/trunc.json"

# the sentence from standard input
out=$(printf 'a b c\n' | "$bin" --headless --sentence-file - --print tokens 2>&1)
[ $? -ne 0 ] && grep -q "unknown stage" <<<"$out" && ok || bad "--print tokens should be refused: $out"
out=$(printf 'a b c\n' | "$bin" --headless --sentence-file - --print x 2>&1)
grep -q "tokens (3): 1:a 2:b 3:c" <<<"$out" && ok || bad "--sentence-file -: $out"

# a dump fed back through --weights reproduces itself, byte for byte
flags=(--headless --sentence "The animal didn't cross the street because it was too tired." --heads 3 --bias --pos-enc --mask causal-window:3 --seed 42)
"$bin" "${flags[@]}" --dump-json "$tmp/a.json" && ok || bad "dump failed"
"$bin" "${flags[@]}" --weights "$tmp/a.json" --dump-json "$tmp/b.json" && ok || bad "dump with --weights failed"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "round trip differs"
# dimensions come from the file when no flag sets them
"$bin" --headless --sentence "The animal didn't cross the street because it was too tired." --mask causal-window:3 \
    --bias --pos-enc --seed 42 --weights "$tmp/a.json" --dump-json "$tmp/c.json" && cmp -s "$tmp/a.json" "$tmp/c.json" \
    && ok || bad "dims not inferred from the weights file"

# a failed run leaves no output file
"$bin" --headless --sentence "a b" --weights "$tmp/a.json" --dump-json "$tmp/none.json" >/dev/null 2>&1
[ $? -eq 1 ] && [ ! -e "$tmp/none.json" ] && ok || bad "failed run wrote a file"
ls "$tmp" | grep -q tmp- && bad "temporary file left behind" || ok

# --weights with each NumPy reference: every stage agrees within the tolerance
for ref in "$data"/ref_*.json; do
    case $ref in *posenc*) continue ;; esac
    sentence=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["sentence"])' "$ref")
    cfg=$($py -c 'import json,sys; c=json.load(open(sys.argv[1]))["config"]; print(" ".join(["--mask", c["mask"]] + ([] if c["scale"] else ["--no-scale"]) + (["--bias"] if c["bias"] else [])))' "$ref")
    # shellcheck disable=SC2086
    if "$bin" --headless --sentence "$sentence" $cfg --weights "$ref" --dump-json "$tmp/out.json"; then
        msg=$($py "$here/compare_dump.py" "$tmp/out.json" "$ref") && ok || bad "$(basename "$ref"): $msg"
    else
        bad "$(basename "$ref"): attnviz failed"
    fi
done

# lessons (issue 4): checking, and computing a page with its vocabulary and designed weights
lessons=$here/../../lessons
fixtures=$here/../lessons
zh=$lessons/zh/self-attention.lesson
en=$lessons/en/self-attention.lesson
pages_of() { grep -c '^=== page:' "$1"; }
expect 0 "self-attention.lesson: ok, $(pages_of "$zh") pages" -- --check-lesson "$zh"
expect 0 "self-attention.lesson: ok, $(pages_of "$en") pages" -- --check-lesson "$en"
# a page with @model computes its model, as the window shows it (the backward pass's target included)
expect 0 "weights: trained (referent-en, 300 steps, seed 1)" -- --headless --lesson "$en" --page two-layers --print weights
expect 1 "Page two-layers shows the trained model referent-en.json, whose training fixed its configuration; drop --mask." \
    -- --headless --lesson "$en" --page two-layers --mask causal --print x
expect 1 "--explain needs STAGE:HEAD:ROW:COL" -- --headless --lesson "$en" --page intro --explain weights:0:0:7:1
"$bin" --headless --lesson "$en" --page two-layers --dump-json "$tmp/page.json" >/dev/null 2>&1
"$bin" --headless --model "$here/../../assets/models/referent-en.json" --target 7:animal \
    --sentence "$(sed -n '/=== page: two-layers$/,/^$/p' "$en" | sed -n 's/^@sentence: //p')" --dump-json "$tmp/model.json" >/dev/null 2>&1
if [ -s "$tmp/page.json" ] && cmp -s "$tmp/page.json" "$tmp/model.json"; then ok
else bad "--lesson … --page two-layers --dump-json differs from its model's dump with --target 7:animal"; fi
# two sentences side by side are a trained model's (issue 23): a designed page cannot ask for them
printf '# lesson: t\ntitle: T\nlang: en\n@sentence: the cat sat .\n=== page: a\ntitle: A\n@compare: sentence the dog sat .\n\nText.\n' >"$tmp/pair.lesson"
expect 1 "pair.lesson:7:1: @compare: sentence TEXT goes with @model: FILE" -- --check-lesson "$tmp/pair.lesson"
# a handout of a page with another sentence (issue 23): that page, its model and its text, not the generic steps
expect 0 "exported to $tmp/flip" -- --headless --lesson "$en" --page two-layers-flip \
    --sentence "The animal didn't cross the street because it was too sleepy." --export-dir "$tmp/flip" --format svg,md
if [ -f "$tmp/flip/16-two-layers-flip.svg" ] && [ ! -e "$tmp/flip/01-tokens.svg" ] &&
    grep -q "from referent-en.json" "$tmp/flip/16-two-layers-flip.svg" && grep -q ">sleepy<" "$tmp/flip/16-two-layers-flip.svg" &&
    grep -q "## Page 16 · One word flips it" "$tmp/flip/handout.md"; then ok
else bad "--lesson … --page two-layers-flip --sentence S --export-dir: not the page with its model and sentence: $(ls "$tmp/flip" 2>&1)"; fi
expect 1 "bad-several.lesson:13:8: there is no step" -- --check-lesson "$fixtures/bad-several.lesson"
expect 1 "bad-unterminated.lesson:8:1: this @weights block has no @end" -- --check-lesson "$fixtures/bad-unterminated.lesson"
expect 1 "Cannot open $tmp/missing.lesson" -- --check-lesson "$tmp/missing.lesson"
printf '# lesson: x\n\000\001\002' >"$tmp/binary.lesson"
expect 1 "binary.lesson:2:1: byte 0x00 is not text" -- --check-lesson "$tmp/binary.lesson"
expect 2 "--page needs --lesson" -- --headless --page intro
expect 0 "tokens (17): 1:这 2:只 3:动物" -- --headless --lesson "$zh" --print x
expect 0 "weights: from the lesson" -- --headless --lesson "$zh" --page multi-head --print concat
expect 0 'column 7 is token 8 "鸟"' -- --headless --lesson "$zh" --explain weights:0:10:7
expect 1 'has no page "nope"' -- --headless --lesson "$en" --page nope
expect 0 "tokens (6): 1:它 2:看见 3:那 4:只 5:猫" -- --headless --lesson "$zh" --sentence "它看见那只猫。" --print x
# the designed example, through the real binary: the pronoun's largest weight
top() { # LESSON PAGE QUERY [attnviz args...] -> the token QUERY attends to most in head 0
    local l=$1 p=$2 q=$3
    shift 3
    "$bin" --headless --lesson "$l" --page "$p" "$@" --dump-json - | $py -c '
import json, sys
d = json.load(sys.stdin); t = d["tokens"]; row = d["heads"][0]["weights"][t.index(sys.argv[1])]
print(t[row.index(max(row))])' "$q"
}
[ "$(top "$zh" intro 它)" = 鸟 ] && ok || bad "它 should attend most to 鸟"
[ "$(top "$en" intro it)" = bird ] && ok || bad "it should attend most to bird"
# one layer cannot read the context: with "too tired" the designed head still picks bird (the lesson says why)
[ "$(top "$zh" intro 它 --sentence "这只动物没看见那只鸟，因为它太累了。")" = 鸟 ] \
    && ok || bad "the designed head should not depend on the context (zh)"
[ "$(top "$en" intro it --sentence "The animal didn't see the bird because it was too tired.")" = bird ] \
    && ok || bad "the designed head should not depend on the context (en)"

# --- RoPE (issue 24): one --pos, its refusals, and the shift that keeps the scores
expect 1 "needs an even --d-k (it is 3)" -- --headless --pos rope --d-k 3
expect 2 "--pos learned is a table a model learns" -- --headless --pos learned
expect 1 "q_rot and k_rot exist only with --pos rope" -- --headless --print q_rot
expect 0 "S = q_rot·k_rotᵀ" -- --headless --pos rope --print scores
expect 0 "pair 1 (columns 2, 3) at position 1013" -- --headless --pos rope --pos-offset 1000 --explain k_rot:1:13:3
"$bin" --headless --pos rope --dump-json "$tmp/r0.json" >/dev/null 2>&1
"$bin" --headless --pos rope --pos-offset 1000 --dump-json "$tmp/r1.json" >/dev/null 2>&1
"$bin" --headless --pos sinusoidal --dump-json "$tmp/s0.json" >/dev/null 2>&1
"$bin" --headless --pos-enc --pos-offset 1000 --dump-json "$tmp/s1.json" >/dev/null 2>&1
gap() { $py -c '
import json, sys
a, b = (json.load(open(f))["heads"][0]["scores"] for f in sys.argv[1:3])
print(max(abs(x - y) / max(1, abs(y)) for ra, rb in zip(a, b) for x, y in zip(ra, rb)))' "$1" "$2"; }
$py -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1e-12 else 1)" "$(gap "$tmp/r1.json" "$tmp/r0.json")" \
    && ok || bad "RoPE's scores moved at --pos-offset 1000"
$py -c "import sys; sys.exit(0 if float(sys.argv[1]) > 1e-3 else 1)" "$(gap "$tmp/s1.json" "$tmp/s0.json")" \
    && ok || bad "the sinusoids' scores did not move at --pos-offset 1000"
"$bin" --headless --weights "$tmp/r1.json" --pos rope --pos-offset 1000 --dump-json "$tmp/r2.json" >/dev/null 2>&1
cmp -s "$tmp/r1.json" "$tmp/r2.json" && ok || bad "a RoPE dump fed back with --weights is not itself"
expect 1 "already carries sinusoidal positions" -- --headless --weights "$tmp/s0.json" --pos rope

finish
