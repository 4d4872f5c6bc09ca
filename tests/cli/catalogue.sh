#!/usr/bin/env bash
# The bad-input catalogue of docs/robustness.md, row by row, against the real
# binary. A refused input must exit with the documented code, print the
# documented message (one "attnviz: " line on standard error, nothing on
# standard output) and write nothing: no --dump-json file, no temporary file,
# nothing beside the inputs. Odd but valid input must work and write its dump.
# Usage: catalogue.sh ATTNVIZ
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: each row runs in its own folder
py=/usr/bin/python3 # Debian's interpreter; only its json module is used
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
in=$tmp/in # every input file; its listing must not change
mkdir -p "$in"
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [$row]: $*"; }

# Runs attnviz in a fresh, empty folder (so a stray relative file would show)
# with --dump-json into that folder unless the row names its own.
run() {
    out=$tmp/out/$row
    rm -rf "$out"
    mkdir -p "$out"
    local args=("$@") a own=0
    for a in "${args[@]}"; do [ "$a" = --dump-json ] && own=1; done
    [ $own -eq 0 ] && args+=(--dump-json "$out/result.json")
    local before
    before=$(ls -A "$in" | sort)
    (cd "$out" && "$bin" "${args[@]}" <"${stdin:-/dev/null}" >"$tmp/stdout" 2>"$tmp/stderr")
    rc=$?
    [ "$(ls -A "$in" | sort)" = "$before" ] || bad "files appeared beside the inputs: $(ls -A "$in")"
}

# refuse ROW CODE MESSAGE -- ARGS...
refuse() {
    row=$1
    local code=$2 msg=$3
    shift 4
    run "$@"
    local err
    err=$(cat "$tmp/stderr")
    if [ "$rc" -ne "$code" ]; then bad "exit $rc, expected $code: $err"; return; fi
    grep -qF -- "$msg" <<<"$err" || { bad "message lacks '$msg': $err"; return; }
    [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && [ "${err#attnviz: }" != "$err" ] || { bad "not one 'attnviz: ' line: $err"; return; }
    [ -s "$tmp/stdout" ] && { bad "printed to standard output: $(head -c 200 "$tmp/stdout")"; return; }
    [ -z "$(ls -A "$out")" ] || { bad "left files behind: $(ls -A "$out")"; return; }
    ok
}

# accept ROW TOKENS STDOUT_TEXT -- ARGS...: works; the dump holds TOKENS tokens.
accept() {
    row=$1
    local tokens=$2 text=$3
    shift 4
    run "$@"
    if [ "$rc" -ne 0 ]; then bad "exit $rc: $(cat "$tmp/stderr")"; return; fi
    grep -qF -- "$text" "$tmp/stdout" || { bad "standard output lacks '$text': $(head -c 300 "$tmp/stdout")"; return; }
    [ -s "$tmp/stderr" ] && { bad "printed to standard error: $(cat "$tmp/stderr")"; return; }
    [ "$(ls -A "$out")" = result.json ] || { bad "expected only result.json, found: $(ls -A "$out")"; return; }
    local n
    n=$($py -c 'import json,sys; print(len(json.load(open(sys.argv[1], encoding="utf-8"))["tokens"]))' "$out/result.json") ||
        { bad "the dump is not valid JSON"; return; }
    [ "$n" = "$tokens" ] || { bad "the dump has $n tokens, expected $tokens"; return; }
    ok
}

words() { # words N: "w1 w2 ... wN"
    local i s=""
    for ((i = 1; i <= $1; i++)); do s+="w$i "; done
    printf '%s' "${s% }"
}

S=(--headless --sentence "a b") # two tokens, for the rows about other inputs

# ---- the sentence ------------------------------------------------------------
refuse sentence-empty 1 "The sentence is empty: type a few words." -- --headless --sentence ""
refuse sentence-whitespace 1 "The sentence contains only spaces, tabs or line breaks" -- --headless --sentence $' \t\n\u3000 '
refuse sentence-65-tokens 1 "The sentence has 65 tokens; attnviz shows at most 64." -- --headless --sentence "$(words 65)"
head -c 10485760 /dev/zero | tr '\0' 'a' >"$in/10mb.txt"
refuse sentence-10mb-line 1 "The sentence is 10485760 bytes long; at most 65536 are allowed." -- --headless --sentence-file "$in/10mb.txt"
truncate -s 20M "$in/20mb.txt"
refuse sentence-file-too-big 1 "20mb.txt is 20971520 bytes; attnviz reads at most 16777216." -- --headless --sentence-file "$in/20mb.txt"
printf 'ok \xc0\xaf x' >"$in/overlong.txt"
refuse utf8-overlong 1 "not valid UTF-8: at byte 3 (counting from 0) there is an overlong encoding." -- --headless --sentence-file "$in/overlong.txt"
printf 'ok \xed\xa0\x80 x' >"$in/surrogate.txt"
refuse utf8-surrogate 1 "not valid UTF-8: at byte 3 (counting from 0) there is a UTF-16 surrogate." -- --headless --sentence-file "$in/surrogate.txt"
printf 'ok \xe4\xbd' >"$in/truncated.txt"
refuse utf8-truncated 1 "not valid UTF-8: at byte 3 (counting from 0) there is a truncated sequence." -- --headless --sentence-file "$in/truncated.txt"
printf 'ok \x80 x' >"$in/stray.txt"
refuse utf8-stray 1 "not valid UTF-8: at byte 3 (counting from 0) there is a stray continuation byte." -- --headless --sentence-file "$in/stray.txt"
printf '\xef\xbb\xbfa b' >"$in/bom.txt" # an editor's byte order mark is not an invisible first token
accept sentence-file-bom 2 "tokens (2): 1:a 2:b" -- --headless --sentence-file "$in/bom.txt" --print x
printf 'a\0b' >"$in/nul.txt"
refuse sentence-nul 1 "The sentence contains a NUL byte at byte 1 (counting from 0)." -- --headless --sentence-file "$in/nul.txt"
refuse sentence-file-missing 1 "Cannot open $in/none.txt: No such file or directory." -- --headless --sentence-file "$in/none.txt"
mkdir -p "$in/folder.txt"
refuse sentence-file-folder 1 "folder.txt is a folder, not a file." -- --headless --sentence-file "$in/folder.txt"

# odd but valid: each works, and the JSON dump escapes what needs escaping
refuse control-characters 1 "The sentence contains an invisible control character (U+0001) at byte 1 (counting from 0); remove it." -- --headless --sentence $'a\x01b \x1b[31mred\x7f' --print x
refuse control-escape 1 "control character (U+001B) at byte 2" -- --headless --sentence $'a \x1b[31mred' --print x
accept emoji-zwj 4 "tokens (4): 1:👨‍👩‍👧 2:family 3:👍🏽 4:🇨🇳" -- --headless --sentence "👨‍👩‍👧 family 👍🏽 🇨🇳" --print x
accept combining-marks 2 $'tokens (2): 1:e\u0301cole 2:nai\u0308ve' -- --headless --sentence $'e\u0301cole nai\u0308ve' --print x
accept right-to-left 4 "tokens (4): 1:שלום 2:עולם 3:مرحبا 4:بالعالم" -- --headless --sentence "שלום עולם مرحبا بالعالم" --print x
accept one-token 1 "tokens (1): 1:它" -- --headless --sentence "它" --print
accept exactly-64-tokens 64 "tokens (64): 1:w1 2:w2" -- --headless --sentence "$(words 64)" --print weights
accept largest-config 64 "== weights, head 8: A = softmax" -- --headless --sentence "$(words 64)" --d-model 512 --d-k 128 --heads 8 --print weights

# ---- the configuration --------------------------------------------------------
refuse d-k-0 2 "--d-k must be between 1 and 128 (it is 0)." -- --headless --d-k 0
refuse heads-0 2 "--heads must be between 1 and 8 (it is 0)." -- --headless --heads 0
refuse heads-9 2 "--heads must be between 1 and 8 (it is 9)." -- --headless --heads 9
refuse d-model-513 2 "--d-model must be between 1 and 512 (it is 513)." -- --headless --d-model 513
refuse kv-heads-3-of-4 1 "--kv-heads must divide --heads 4 (it is 3): each key/value head serves heads/G query heads." -- --headless --heads 4 --kv-heads 3
refuse kv-heads-9 2 "--kv-heads must be between 0 and 8 (it is 9)." -- --headless --kv-heads 9
refuse kv-heads-3-of-4-zh 1 "--kv-heads 必须能整除 --heads 4（现在是 3）：每个 KV 头服务 heads/G 个查询头。" -- --headless --lang zh --heads 4 --kv-heads 3
refuse decode-mask-none-zh 1 "--decode 需要 --mask causal 或 causal-window:W（现在的掩码是 none）：正在生成的词元看不到它之后的词元。" -- --headless --lang zh --decode
refuse decode-mask-none 1 "--decode needs --mask causal or causal-window:W (the mask is none): a token being generated cannot see the tokens after it." -- --headless --decode
refuse generate-no-model 2 "--generate N goes with --model FILE.json (a trained model continues the sentence)." -- --headless --generate 3
refuse window-0 2 "The mask window W must be between 1 and 64 (it is 0)." -- --headless --mask window:0
refuse causal-window-65 2 "The mask window W must be between 1 and 64 (it is 65)." -- --headless --mask causal-window:65
refuse seed-2-32 2 "--seed must be between 0 and 4294967295 (it is 4294967296)." -- --headless --seed 4294967296
refuse not-a-number 2 "--d-model needs a whole number, not \"abc\"." -- --headless --d-model abc
refuse not-an-integer 2 "--d-k needs a whole number, not \"2.5\"." -- --headless --d-k 2.5
refuse unknown-mask 2 "Unknown mask \"diagonal\"" -- --headless --mask diagonal
refuse unknown-option 2 "Unknown option \"--nope\"; see attnviz --help." -- --headless --nope
# numbers never wrap: 4294967296 is not 0, 4294967616 is not 320
refuse explain-wraps 2 "--explain ROW must be between 0 and 63 (it is 4294967296)." -- --explain weights:0:4294967296:9
refuse explain-huge 2 "--explain COL must be between 0 and 1023 (it is 99999999999999999999)." -- --explain weights:0:0:99999999999999999999
refuse tiles-zero 2 "--tiles needs a block size B, a whole number from 1 to 64 (not \"0\"): blocks of B query rows and B key columns." -- --headless --lang en --tiles 0
refuse tiles-65-zh 2 "--tiles 的块大小 B 必须是 1 到 64 之间的整数（现在是 \"65\"）：每块 B 个查询行、B 个键列。" -- --headless --lang zh --tiles 65
refuse tiles-model 2 "--tiles goes with the one-layer view, not with --model." -- --headless --lang en --tiles 2 --model "$in/none.json"
refuse tiles-lesson 2 "--tiles does not go with --lesson … --export-dir: a lesson export writes its pages; a page with @view: tiles B shows the tiles view in the window, and --print and --dump-json take --tiles with --lesson." -- --lang en --tiles 2 --lesson "$in/any.lesson" --export-dir "$tmp/out/tiles-lesson/figs"
refuse tiles-lesson-zh 2 "--tiles 不能与 --check-lesson 同用：课程导出的是它的页面；带 @view: tiles B 的页面在窗口里显示分块视图，--print 和 --dump-json 也可以配合 --lesson 使用 --tiles。" -- --lang zh --tiles 2 --check-lesson "$in/any.lesson"
refuse size-wraps 2 "--size needs WIDTHxHEIGHT between 320x240 and 7680x4320, e.g. 1280x800 (not \"4294967616x800\")." -- --headless --size 4294967616x800 --export-dir "$tmp/out/size-wraps/figs"
refuse stdin-twice 2 "--sentence-file - and --weights - would both read standard input, which can be read only once" -- --headless --sentence-file - --weights -
# the flag is last, so the row names its own --dump-json first
refuse missing-value 2 "--heads needs a value; see attnviz --help." -- --headless --dump-json "$tmp/out/missing-value/result.json" --heads
# a cell outside the trace: no tables printed, no dump written
refuse explain-head 1 "Head 2 does not exist: heads are 0 to 1." -- "${S[@]}" --print --explain weights:2:0:0
refuse explain-row 1 "Row 2 is outside weights: rows are 0 to 1." -- "${S[@]}" --explain weights:0:2:0

# ---- the weights file ---------------------------------------------------------
printf '{"X": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]}' >"$in/rows.json"
refuse weights-wrong-shape 1 "rows.json: X is 3x3 but needs to be 2x3 (2 tokens x d_model 3)." -- "${S[@]}" --weights "$in/rows.json"
printf '{"heads": [{"W_Q": [[1, 2], [3, 4]]}]}' >"$in/wq.json"
refuse weights-wrong-shape-flag 1 "wq.json: heads[0].W_Q is 2x2 but needs to be 2x4 (d_model 2 x d_k 4)." -- "${S[@]}" --weights "$in/wq.json" --d-k 4
printf '{"X": [[1, 2], [3]]}' >"$in/ragged.json"
refuse weights-ragged 1 "ragged.json: X is ragged: row 1 has 1 entries, row 0 has 2." -- "${S[@]}" --weights "$in/ragged.json"
printf '{"X": [[NaN, 1], [2, 3]]}' >"$in/nan.json"
refuse weights-nan 1 "nan.json:1:9: this is not valid JSON (a weights file is a JSON object; JSON has no NaN or Infinity)." -- "${S[@]}" --weights "$in/nan.json"
printf '{"X": [[1], [1e400]]}' >"$in/inf.json"
refuse weights-inf 1 "inf.json: X[1][0] is too large to be a finite number." -- "${S[@]}" --weights "$in/inf.json"
printf '{"X": [[1], [1e300]]}' >"$in/1e300.json"
refuse weights-1e300 1 "1e300.json: X[1][0] is 1e+300; values must be at most 1e18 in size." -- "${S[@]}" --weights "$in/1e300.json"
printf '{"W_O": [[1, "2"]]}' >"$in/string.json"
refuse weights-string 1 "string.json: W_O[0][1] is not a number." -- "${S[@]}" --weights "$in/string.json"
$py -c 'import sys; d = 100000; sys.stdout.write("{\"X\": " + "[" * d + "]" * d + "}")' >"$in/deep.json"
refuse weights-deep-nesting 1 "deep.json:1:1006: this is not valid JSON" -- "${S[@]}" --weights "$in/deep.json"
printf '{"X": [[1, [2]], [3, 4]]}' >"$in/nested.json"
refuse weights-nested-number 1 "nested.json: X[0][1] is not a number." -- "${S[@]}" --weights "$in/nested.json"
printf '{"X": [[1, 2],\n      [3, 4' >"$in/truncated.json"
refuse weights-truncated 1 "truncated.json:2:11: this is not valid JSON" -- "${S[@]}" --weights "$in/truncated.json"
truncate -s 100M "$in/100mb.json" # sparse: no 100 MB written
refuse weights-100mb 1 "100mb.json is 104857600 bytes; attnviz reads at most 67108864." -- "${S[@]}" --weights "$in/100mb.json"
refuse weights-missing 1 "Cannot open $in/none.json: No such file or directory." -- "${S[@]}" --weights "$in/none.json"
mkdir -p "$in/folder.json"
refuse weights-folder 1 "folder.json is a folder, not a file." -- "${S[@]}" --weights "$in/folder.json"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe\x80' >"$in/junk.json"
refuse weights-binary-junk 1 "junk.json:1:1: this is not valid JSON" -- "${S[@]}" --weights "$in/junk.json"
printf '{"X": [[1], [2]], "X": [[3], [4]]}' >"$in/twice.json"
refuse weights-duplicate-key 1 "twice.json: X appears more than once; give each key once." -- "${S[@]}" --weights "$in/twice.json"
printf '{"Y": [[1]]}' >"$in/unknown.json"
refuse weights-unknown-key 1 "unknown.json: Y is not a key attnviz knows" -- "${S[@]}" --weights "$in/unknown.json"
: >"$in/empty.json"
refuse weights-empty 1 "empty.json:1:1: this is not valid JSON" -- "${S[@]}" --weights "$in/empty.json"
printf '{"X": [[1, 2], [3, 4]]}\n{"X": [[5, 6], [7, 8]]}\n' >"$in/appended.json" # what >> makes
refuse weights-two-values 1 "appended.json:2:1: more follows the JSON object; a weights file is exactly one JSON object (was a second one appended?)." -- "${S[@]}" --weights "$in/appended.json"
$py -c 'import json; print(json.dumps({"X": [[0.5] * 600] * 2}))' >"$in/wide.json"
refuse weights-too-wide 1 "wide.json: X has 600 columns, so d_model would be 600; attnviz allows at most 512." -- "${S[@]}" --weights "$in/wide.json"
$py -c 'import json; print(json.dumps({"heads": [{"W_Q": [[0.5] * 200] * 8}]}))' >"$in/wide-dk.json"
refuse weights-d-k-too-large 1 "wide-dk.json: heads[0].W_Q has 200 columns, so d_k would be 200; attnviz allows at most 128." -- "${S[@]}" --weights "$in/wide-dk.json"
printf '{"X": [[1000000000000000128, 0], [0, 0]]}' >"$in/just-above.json"
refuse weights-just-above-bound 1 "just-above.json: X[0][0] is 1.0000000000000001e+18; values must be at most 1e18 in size." -- "${S[@]}" --weights "$in/just-above.json"
printf '\xef\xbb\xbf{"X": [[1, 2], [3, 4]]}' >"$in/bom.json"
accept weights-bom 2 "weights: from $in/bom.json, the rest random (seed 1)" -- "${S[@]}" --weights "$in/bom.json" --print x
# a path the user names may be a pipe: read once
accept weights-pipe 2 "weights: from /dev/fd/" -- "${S[@]}" --weights <(cat "$in/bom.json") --print x
# a long Chinese key is quoted cut between characters: the message stays UTF-8
$py -c 'import json; print(json.dumps({"键" * 300: [[1]]}, ensure_ascii=False))' >"$in/long-key.json"
row=weights-long-key
run "${S[@]}" --weights "$in/long-key.json"
[ $rc -eq 1 ] && $py -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' <"$tmp/stderr" &&
    grep -q "long-key.json: 键键键.* is not a key attnviz knows" "$tmp/stderr" && ok ||
    bad "exit $rc, or not UTF-8: $(head -c 300 "$tmp/stderr")"
# a key that would retitle the terminal is quoted with its control characters as escapes (issue 25)
printf '{"\x1b]0;owned\x07\\u009b": [[1]]}' >"$in/escape-key.json"
refuse weights-escape-key 1 'escape-key.json: \x1b]0;owned\x07\u009b is not a key attnviz knows' -- "${S[@]}" --weights "$in/escape-key.json"
LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$tmp/stderr") && bad "a control character reached the terminal: $(cat -v "$tmp/stderr")"
printf '{"X": [[1e18, -1e18], [1e18, 1e18]], "W_O": [[1e18, 1e18], [1e18, 1e18], [1e18, 1e18], [1e18, 1e18], [1e18, 1e18], [1e18, 1e18], [1e18, 1e18], [1e18, 1e18]]}' >"$in/bound.json"
accept weights-at-the-bound 2 "weights: from $in/bound.json, the rest random (seed 1)" -- "${S[@]}" --weights "$in/bound.json" --print output

# ---- where --dump-json writes ----------------------------------------------------
row=dump-missing-folder
refuse "$row" 1 "Cannot write $tmp/out/$row/missing/out.json: No such file or directory." -- "${S[@]}" --dump-json "$tmp/out/$row/missing/out.json"
echo "a file" >"$in/plain.txt"
row=dump-through-a-file
refuse "$row" 1 "Cannot write $in/plain.txt/out.json: Not a directory." -- "${S[@]}" --dump-json "$in/plain.txt/out.json"
if [ "$(id -u)" -ne 0 ]; then # root writes anywhere, so this row needs a normal user
    mkdir -p "$in/locked" && chmod 555 "$in/locked"
    refuse dump-unwritable-folder 1 "Cannot write $in/locked/out.json: Permission denied." -- "${S[@]}" --dump-json "$in/locked/out.json"
    chmod 755 "$in/locked"
fi

# the file writer replaces only regular files (atomically) and makes new ones;
# everything else is written in place, and a symbolic link is followed
row=dump-through-a-symlink
mkdir -p "$tmp/link" && printf old >"$tmp/link/real.json" && ln -sf real.json "$tmp/link/run.json"
"$bin" "${S[@]}" --dump-json "$tmp/link/run.json" >/dev/null 2>&1
[ -L "$tmp/link/run.json" ] && grep -q '"tokens": \["a", "b"\]' "$tmp/link/real.json" &&
    [ "$(ls -A "$tmp/link" | sort | tr '\n' ' ')" = "real.json run.json " ] && ok ||
    bad "the link was replaced, or its target not written: $(ls -lA "$tmp/link")"
row=dump-into-a-fifo
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.got" 2>/dev/null </dev/null &
reader=$!
timeout 20 "$bin" "${S[@]}" --dump-json "$tmp/fifo" >/dev/null 2>&1
rc=$?
sleep 0.2
kill $reader 2>/dev/null # a reader left waiting (the FIFO replaced) must not hold the test open
[ $rc -eq 0 ] && [ -p "$tmp/fifo" ] && grep -q '"tokens": \["a", "b"\]' "$tmp/fifo.got" && ok ||
    bad "exit $rc; the reader did not get the dump, or the FIFO was replaced: $(ls -l "$tmp/fifo")"
full=/dev/full # as root a mistake would replace /dev's own node: give it a node of its own
if [ "$(id -u)" -eq 0 ]; then mknod "$tmp/full" c 1 7 && mknod "$tmp/null" c 1 3 && full=$tmp/full; fi
refuse dump-onto-a-full-device 1 "Cannot write $full: No space left on device." -- "${S[@]}" --dump-json "$full"
if [ -c "$tmp/null" ]; then
    row=dump-onto-a-device
    "$bin" "${S[@]}" --dump-json "$tmp/null" >/dev/null 2>&1 && [ -c "$tmp/null" ] && [ "$(ls -A "$tmp" | grep -c null)" = 1 ] &&
        ok || bad "the device node was replaced: $(ls -l "$tmp/null")"
fi
row=dump-dev-stdout # the standard output, in place, for a user who may not write in /dev
as_user=() # as root, a mistake would replace /dev/stdout itself: run as nobody, or not at all
[ "$(id -u)" -eq 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
if [ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null; then
    chmod 755 "$tmp" "$tmp/out" 2>/dev/null
    (cd /tmp && "${as_user[@]}" "$bin" "${S[@]}" --dump-json /dev/stdout >"$tmp/stdout" 2>"$tmp/stderr")
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$tmp/stderr" ] && $py -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/stdout" &&
        [ -L /dev/stdout ] && ok || bad "exit $rc: $(cat "$tmp/stderr")"
else
    echo "skipped [$row]: root without setpriv"
fi

# ---- output that cannot be written (standard output is a full disk) ----------------
# full_stdout ROW -- ARGS: exit 1 and the one line saying so, not 0 with nothing written
full_stdout() {
    row=$1
    shift 2
    (cd "$tmp" && "$bin" "$@" >/dev/full 2>"$tmp/stderr")
    rc=$?
    local want="attnviz: Cannot write to standard output: No space left on device."
    [ $rc -eq 1 ] && [ "$(cat "$tmp/stderr")" = "$want" ] && ok || bad "exit $rc: $(cat "$tmp/stderr")"
}
full_stdout full-print -- --headless --print
full_stdout full-explain -- --explain weights:0:13:9
full_stdout full-dump-to-stdout -- --headless --dump-json -
full_stdout full-help -- --help
full_stdout full-version -- --version
echo "# lesson: t
title: T
lang: en
@sentence: a b
=== page: p
title: P
text" >"$in/ok.lesson"
full_stdout full-check-lesson -- --check-lesson "$in/ok.lesson"

# a failed run leaves an existing dump exactly as it was
row=dump-kept-on-failure
mkdir -p "$tmp/keep"
printf 'the previous run\n' >"$tmp/keep/run.json"
(cd "$tmp/keep" && "$bin" --headless --sentence "" --dump-json run.json >/dev/null 2>&1)
[ $? -eq 1 ] && [ "$(cat "$tmp/keep/run.json")" = "the previous run" ] && [ "$(ls -A "$tmp/keep")" = run.json ] &&
    ok || bad "an existing dump was changed or a file was left: $(ls -A "$tmp/keep")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
