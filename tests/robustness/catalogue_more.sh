#!/usr/bin/env bash
# The rest of the bad-input catalogue of docs/robustness.md (issue 6), row by
# row against the real binary: lesson files (--check-lesson and --headless
# --lesson), the environment (no Chinese font, no display, export folders that
# are missing, unwritable or full) and --script (under Xvfb).
#
# A refused input must exit with the documented code and print the documented
# message on standard error and nothing on standard output, and it must write
# or change nothing: nothing appears in the (empty) folder attnviz runs in, no
# --dump-json file, no export or staging folder, no settings file, and every
# input file keeps its size, mode and modification time. Odd but valid input
# must work.
# Usage: catalogue_more.sh ATTNVIZ SOURCE_DIR
# shellcheck disable=SC1111 # the messages quote with “ and ”, as attnviz writes them
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: each row runs in its own folder
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
in=$tmp/in # every input file; nothing in it may change
cfg=$tmp/config # XDG_CONFIG_HOME of every run: attnviz/settings.json must never appear
xdg=$tmp/runtime # an empty XDG_RUNTIME_DIR: no Wayland socket to find
mkdir -p "$in" "$cfg" "$xdg"
chmod 700 "$xdg"
export XDG_CONFIG_HOME=$cfg XDG_RUNTIME_DIR=$xdg LC_ALL=C.UTF-8
unset SDL_VIDEODRIVER
# In a sanitizer build: system libraries' leaks are suppressed (see the file),
# quietly, so that standard error holds only what the user would see.
[ -f "$src/tests/sanitizers/lsan.supp" ] && LSAN_OPTIONS="suppressions=$src/tests/sanitizers/lsan.supp:${LSAN_OPTIONS:-}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-}:print_suppressions=0"
pass=0
fail=0
start=$(date +%s)

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [$row]: $*"; }

# Size, mode and modification time of everything under the inputs.
fingerprint() { (cd "$in" && find . -printf '%p %s %m %T@\n' | sort); }

# run ARGS...: attnviz in a fresh, empty folder $out, behind the command
# prefix in the array pre (environment, timeout, xvfb-run); sets rc.
pre=()
run() {
    out=$tmp/out/$row
    rm -rf "$out" "${cfg:?}"/* "$cfg"/.[!.]*
    mkdir -p "$out"
    local before
    before=$(fingerprint)
    (cd "$out" && "${pre[@]}" "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
    rc=$?
    [ "$(fingerprint)" = "$before" ] || bad "the input files changed"
}

# Checks after a refused run: exit code, the whole of standard error (WANT:
# one line, exactly; "re:REGEX" for an extended regular expression; "last:"
# for the last line when a system library may print before it), nothing on
# standard output, nothing written.
refused() {
    local code=$1 want=$2 err
    err=$(cat "$tmp/stderr")
    if [ "$rc" -ne "$code" ]; then bad "exit $rc, expected $code: $err"; return 1; fi
    case $want in
    re:*) [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -Eq -- "${want#re:}" "$tmp/stderr" ||
        { bad "standard error is not one line matching '${want#re:}': $err"; return 1; } ;;
    last:*) [ "$(tail -n 1 "$tmp/stderr")" = "${want#last:}" ] ||
        { bad "the last line of standard error is not '${want#last:}': $err"; return 1; } ;;
    *) [ "$err" = "$want" ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] ||
        { bad "standard error is not the one line '$want': $err"; return 1; } ;;
    esac
    [ -s "$tmp/stdout" ] && { bad "printed to standard output: $(head -c 200 "$tmp/stdout")"; return 1; }
    [ -z "$(ls -A "$out")" ] || { bad "left files behind: $(ls -A "$out")"; return 1; }
    [ -z "$(ls -A "$cfg")" ] || { bad "wrote settings: $(ls -AR "$cfg")"; return 1; }
    return 0
}

# refuse ROW CODE WANT -- ARGS...
refuse() {
    row=$1
    local code=$2 want=$3
    shift 4
    run "$@"
    refused "$code" "$want" && ok
}

# ---- lesson files ---------------------------------------------------------------
# The complete small example of lessons/README.md (checked below to pass); each
# row changes a line or two of it. Line numbers in the rows refer to this text.
cat >"$in/base.lesson" <<'EOF'
# lesson: tiny
title: A tiny lesson
lang: en

// Settings for every page. d_model comes from the vocabulary: 4 features.
@config: d_k=2 heads=1
@sentence: the cat saw a bird

@vocab
      noun animate can-fly verb
the:  0 0 0 0
cat:  1 1 0 0
saw:  0 0 0 1
a:    0 0 0 0
bird: 1 1 1 0
@end

// Head 0. Query columns: wants-animate, wants-can-fly.
// Key columns: animate, can-fly. Value columns: noun, animate.
@weights head 0 W_Q
noun:    0 0
animate: 0 0
can-fly: 0 0
verb:    2 2
@end

@weights head 0 W_K
noun:    0 0
animate: 1 0
can-fly: 0 1
verb:    0 0
@end

@weights head 0 W_V
noun:    1 0
animate: 0 1
can-fly: 0 0
verb:    0 0
@end

// Back from the value's two columns to noun and animate.
@weights W_O
1 0 0 0
0 1 0 0
@end

=== page: look
title: Who does "saw" look at?
@step: softmax
@highlight: row saw
@predict: query=saw head=0 answer=bird

The verb *saw* was built to look for something alive that can fly:
- its query is (2, 2);
- the key of `bird` is (1, 1), the key of `cat` is (1, 0).

Click the word you think *saw* attends to most.

=== page: no-scale
title: Without scaling
@step: scale
@highlight: cell saw bird
@compare: scale=off

The right half skips the division by √d_k: the scores are larger, and
softmax(QKᵀ/√dₖ)V turns into softmax(QKᵀ)V, which is sharper.
EOF

# variant NAME SED-SCRIPT: in/NAME.lesson is base.lesson edited by sed.
variant() { sed -e "$2" "$in/base.lesson" >"$in/$1.lesson"; }

# lesson ROW FILE LINE:COL MESSAGE: --check-lesson reports MESSAGE first, as
# FILE:LINE:COL (every report line in that form), and exits 1; --headless
# --lesson refuses with the same one error, prints no tables and writes no dump.
lesson() {
    row=$1
    local f=$2 at=$3 msg=$4
    run --check-lesson "$f"
    local first
    first=$(head -n 1 "$tmp/stderr")
    if [ "$rc" -ne 1 ]; then bad "--check-lesson: exit $rc, expected 1: $(cat "$tmp/stderr")"
    elif [ "$first" != "$f:$at: $msg" ]; then bad "--check-lesson: first line is not '$f:$at: $msg': $(cat "$tmp/stderr")"
    elif grep -qv "^$f:[0-9]*:[0-9]*: " "$tmp/stderr"; then bad "--check-lesson: a line not in FILE:LINE:COL form: $(cat "$tmp/stderr")"
    elif [ -s "$tmp/stdout" ] || [ -n "$(ls -A "$out")" ]; then bad "--check-lesson printed to standard output or wrote a file"
    else
        row="$1 --lesson"
        run --headless --lesson "$f" --print --dump-json run.json
        refused 1 "attnviz: $f:$at: $msg" && ok
    fi
}

# lesson_file ROW FILE MESSAGE: a file attnviz cannot read as a lesson at all.
lesson_file() {
    row=$1
    run --check-lesson "$2"
    if refused 1 "attnviz: $3"; then
        row="$1 --lesson"
        run --headless --lesson "$2" --print --dump-json run.json
        refused 1 "attnviz: $3" && ok
    fi
}

L=$in
row=lesson-valid
run --check-lesson "$L/base.lesson"
[ $rc -eq 0 ] && [ "$(cat "$tmp/stdout")" = "$L/base.lesson: ok, 2 pages" ] && [ ! -s "$tmp/stderr" ] && ok ||
    bad "the base lesson does not pass: exit $rc: $(cat "$tmp/stdout" "$tmp/stderr")"
# a byte order mark and CRLF line ends are fine
{ printf '\xef\xbb\xbf'; sed 's/$/\r/' "$L/base.lesson"; } >"$L/bom-crlf.lesson"
row=lesson-bom-crlf
run --headless --lesson "$L/bom-crlf.lesson" --page no-scale --print weights
[ $rc -eq 0 ] && grep -q "saw   0.0416  0.1712  0.0416  0.0416  0.7040" "$tmp/stdout" && [ ! -s "$tmp/stderr" ] && ok ||
    bad "a lesson with a BOM and CRLF line ends: exit $rc: $(cat "$tmp/stderr")"

# the head
variant no-id '1d'
lesson lesson-no-id "$L/no-id.lesson" 1:1 "a lesson starts with “# lesson: ID”, e.g. # lesson: self-attention"
variant bad-id '1s/.*/# lesson: my lesson/'
lesson lesson-bad-id "$L/bad-id.lesson" 1:11 "a lesson id is letters, digits, - and _, not “my lesson”"
variant no-title '2d'
lesson lesson-no-title "$L/no-title.lesson" 1:1 "the lesson needs a “title: …” line before the first page"
variant no-lang '3d'
lesson lesson-no-lang "$L/no-lang.lesson" 1:1 "the lesson needs a “lang: …” line (e.g. lang: en) before the first page"
variant title-twice '3a title: Again'
lesson lesson-title-twice "$L/title-twice.lesson" 4:1 "title: is given twice"
variant text-first '4a Some words before any page.'
lesson lesson-text-before-page "$L/text-first.lesson" 5:1 "text before the first page; start a page with “=== page: ID”"
# pages
variant no-pages '47,$d'
lesson lesson-no-pages "$L/no-pages.lesson" 1:1 "the lesson has no pages; start one with “=== page: ID”"
variant page-sep '47s/.*/=== look/'
lesson lesson-page-separator "$L/page-sep.lesson" 47:1 "a page starts with “=== page: ID”"
variant page-id '47s/.*/=== page: look here/'
lesson lesson-page-id "$L/page-id.lesson" 47:11 "a page id is letters, digits, - and _ (e.g. === page: scores), not “look here”"
variant page-dup '59s/.*/=== page: look/'
lesson lesson-page-id-twice "$L/page-dup.lesson" 59:11 "page id “look” is already used at line 47"
variant page-untitled '48d'
lesson lesson-page-untitled "$L/page-untitled.lesson" 52:1 "a page starts with its title: write “title: …” right after === page:"
# directives
variant directive '61s/.*/@colour: red/'
lesson lesson-unknown-directive "$L/directive.lesson" 61:1 "unknown directive @colour; the directives are @sentence, @config, @step, @highlight, @predict, @reveal, @compare, @random-weights, @features, @model, @layer, @backward, @train, @try, @own, @edited, @roles, @view, @hf, @missing, @vocab and @weights (write \\@ for a line that starts with @)"
variant directive-twice '61a @step: 3'
lesson lesson-directive-twice "$L/directive-twice.lesson" 62:1 "@step is given twice here (first at line 61)"
variant directive-outside '7a @step: 3'
lesson lesson-directive-outside-page "$L/directive-outside.lesson" 8:1 "@step belongs inside a page (after === page: ID)"
variant end-alone '17a @end'
lesson lesson-end-without-block "$L/end-alone.lesson" 18:1 "@end without a block to close (@vocab, @weights, @own or @missing)"
# settings
variant setting '6s/.*/@config: d_k=2 heads=1 colour=red/'
lesson lesson-unknown-setting "$L/setting.lesson" 6:24 "unknown setting “colour”; use d_model, d_k, heads, seed, mask, scale, pos_enc, bias, pos_dims, kv_heads, pos, rope_base or pos_offset"
variant setting-range '6s/.*/@config: d_k=0 heads=1/'
lesson lesson-setting-out-of-range "$L/setting-range.lesson" 6:14 "d_k needs a whole number from 1 to 128, not “0”"
variant setting-form '6s/.*/@config: d_k 2/'
lesson lesson-setting-form "$L/setting-form.lesson" 6:10 "write settings as key=value, e.g. d_k=4 or scale=off"
variant setting-mask '6s/.*/@config: d_k=2 heads=1 mask=diagonal/'
lesson lesson-unknown-mask "$L/setting-mask.lesson" 6:29 "Unknown mask \"diagonal\": use none, causal, window:W or causal-window:W."
variant setting-onoff '6s/.*/@config: d_k=2 heads=1 scale=maybe/'
lesson lesson-setting-on-off "$L/setting-onoff.lesson" 6:30 "scale is on or off, not “maybe”"
# the vocabulary
variant vocab-length '12s/.*/cat:  1 1 0/'
lesson lesson-vocab-wrong-length "$L/vocab-length.lesson" 12:7 "“cat” has 3 numbers but the vocabulary has 4 features (one number per feature)"
variant vocab-number '12s/.*/cat:  1 x 0 0/'
lesson lesson-vocab-not-a-number "$L/vocab-number.lesson" 12:9 "“x” is not a number (write numbers like 1, -0.5 or 2.5e-3)"
variant vocab-twice '14a cat: 1 1 0 0'
lesson lesson-vocab-word-twice "$L/vocab-twice.lesson" 15:1 "“cat” is listed twice (first at line 12)"
variant vocab-two-tokens '14a ice cream: 1 1 0 0'
lesson lesson-vocab-two-tokens "$L/vocab-two-tokens.lesson" 15:1 "“ice cream” is not a single token (the tokenizer reads it as: ice cream); list single words, or CJK words such as 动物"
variant vocab-header '10s/.*/noun: animate/'
lesson lesson-vocab-header "$L/vocab-header.lesson" 10:1 "the first line of @vocab names the features (e.g. 名词 有生命 会飞), without a colon; the rows \"word: numbers\" come after it"
variant vocab-in-page '52a @vocab'
lesson lesson-vocab-in-page "$L/vocab-in-page.lesson" 53:1 "@vocab belongs before the first page: a lesson has one vocabulary"
# designed weights
variant weights-shape '43s/.*/1 0 0/;44s/.*/0 1 0/'
lesson lesson-weights-shape "$L/weights-shape.lesson" 42:10 "W_O must be 2 rows of 4 numbers (heads·d_k × d_model, with d_model=4 d_k=2 heads=1), but it has 2 rows of 3"
variant weights-ragged '44s/.*/0 1 0/'
lesson lesson-weights-ragged "$L/weights-ragged.lesson" 44:1 "this row of W_O has 3 numbers but its first row has 4"
variant weights-number '22s/.*/animate: 0 two/'
lesson lesson-weights-not-a-number "$L/weights-number.lesson" 22:12 "“two” is not a number (write numbers like 1, -0.5 or 2.5e-3)"
variant weights-label '22s/.*/wings:   0 0/'
lesson lesson-weights-label "$L/weights-label.lesson" 22:1 "row 2 of W_Q is labelled “wings” but dimension 2 is “animate”"
variant weights-name '20s/.*/@weights head 0 W_X/'
lesson lesson-weights-unknown-matrix "$L/weights-name.lesson" 20:17 "@weights needs a matrix: W_Q, W_K, W_V, b_Q, b_K or b_V with its head (@weights head 0 W_Q), or W_O or b_O without one"
variant weights-no-head '20s/.*/@weights W_Q/'
lesson lesson-weights-no-head "$L/weights-no-head.lesson" 20:10 "say which head W_Q belongs to, e.g. @weights head 0 W_Q"
variant weights-page-head '52a @weights head 1 b_Q\n1 1\n@end'
lesson lesson-weights-missing-head "$L/weights-page-head.lesson" 53:10 "this page has 1 head, so b_Q of head 1 would never be used"
variant weights-twice '27s/.*/@weights head 0 W_Q/'
lesson lesson-weights-twice "$L/weights-twice.lesson" 27:10 "W_Q of this head is already given at line 20"
# unterminated blocks and spans
variant open-weights '45d'
lesson lesson-weights-unterminated "$L/open-weights.lesson" 42:1 "this @weights block has no @end; close it with a line @end"
variant open-vocab '16d'
lesson lesson-vocab-unterminated "$L/open-vocab.lesson" 9:1 "this @vocab block has no @end; close it with a line @end"
printf '```python\nprint("the file ends here")\n' | cat "$L/base.lesson" - >"$L/open-code.lesson"
lesson lesson-code-unterminated "$L/open-code.lesson" 67:1 "this code block is not closed; end it with a line \`\`\`"
variant open-emphasis '53s/\*saw\*/*saw/'
lesson lesson-emphasis-unterminated "$L/open-emphasis.lesson" 53:10 "emphasis opened with * is not closed on this line; close it with another * (or write \\* for the character itself)"
variant open-code-span '55s/`bird`/`bird/'
lesson lesson-code-span-unterminated "$L/open-code-span.lesson" 55:46 "code opened with \` is not closed on this line; close it with another \` (or write \\\` for the character itself)"
variant empty-emphasis '57s/\*saw\*/**/'
lesson lesson-empty-emphasis "$L/empty-emphasis.lesson" 57:26 "empty emphasis **; write one * on each side of the words, like *this*"
# steps, tokens and heads that do not exist
variant step-9 '49s/.*/@step: 9/'
lesson lesson-step-9 "$L/step-9.lesson" 49:8 "there is no step “9”; the steps are 1 tokens, 2 qkv, 2b rope, 3 scores, 4 scale, 5 mask, 6 softmax, 7 sum and 8 heads"
variant step-name '49s/.*/@step: attention/'
lesson lesson-step-name "$L/step-name.lesson" 49:8 "there is no step “attention”; the steps are 1 tokens, 2 qkv, 2b rope, 3 scores, 4 scale, 5 mask, 6 softmax, 7 sum and 8 heads"
variant token '50s/.*/@highlight: row dog/'
lesson lesson-token-missing "$L/token.lesson" 50:17 "the page's sentence has no token “dog” (its tokens: the cat saw a bird)"
variant token-position '50s/.*/@highlight: row 9:saw/'
lesson lesson-token-position "$L/token-position.lesson" 50:17 "the sentence has only 5 tokens, so there is no token 9"
variant token-other '50s/.*/@highlight: row 2:saw/'
lesson lesson-token-other "$L/token-other.lesson" 50:17 "token 2 of the sentence is “cat”, not “saw”"
variant highlight '50s/.*/@highlight: circle saw/'
lesson lesson-highlight-kind "$L/highlight.lesson" 50:13 "write @highlight: token T, row T, column T or cell ROW COLUMN (tokens as written, e.g. 它, or with their position, e.g. 7:只)"
variant head '51s/.*/@predict: query=saw head=3/'
lesson lesson-head-missing "$L/head.lesson" 51:26 "head “3” does not exist: this page has 1 head, numbered from 0"
variant compare-head '63s/.*/@compare: head 0 | head 1/'
lesson lesson-compare-head-missing "$L/compare-head.lesson" 63:25 "head “1” does not exist: this page has 1 head, numbered from 0"
variant predict '51s/.*/@predict: query=saw head=0 answer=cat/'
lesson lesson-predict-answer-wrong "$L/predict.lesson" 51:11 "the answer is “cat”, but with this page's weights “saw” attends most to “bird” (0.704 against 0.171)"
variant gain '61a @random-weights: gain=0'
lesson lesson-random-gain "$L/gain.lesson" 62:18 "write @random-weights: or @random-weights: gain=G with G above 0, at most 100"
# encodings and binary files
sed '53s/saw/s\xc3\x28w/' "$L/base.lesson" >"$L/utf8-truncated.lesson"
lesson lesson-utf8-truncated "$L/utf8-truncated.lesson" 53:12 "invalid UTF-8 (a truncated sequence); save the lesson as UTF-8"
sed '53s/saw/s\xc0\xafw/' "$L/base.lesson" >"$L/utf8-overlong.lesson"
lesson lesson-utf8-overlong "$L/utf8-overlong.lesson" 53:12 "invalid UTF-8 (an overlong encoding); save the lesson as UTF-8"
sed '2s/lesson/l\xed\xa0\x80/' "$L/base.lesson" >"$L/utf8-surrogate.lesson"
lesson lesson-utf8-surrogate "$L/utf8-surrogate.lesson" 2:16 "invalid UTF-8 (a UTF-16 surrogate); save the lesson as UTF-8"
sed '2s/lesson/\xe9t\xe9/' "$L/base.lesson" >"$L/latin1.lesson"
lesson lesson-latin1 "$L/latin1.lesson" 2:15 "invalid UTF-8 (a truncated sequence); save the lesson as UTF-8"
iconv -f UTF-8 -t UTF-16 "$L/base.lesson" >"$L/utf16.lesson"
lesson lesson-utf16 "$L/utf16.lesson" 1:1 "this file is UTF-16 (it starts with a UTF-16 byte order mark); save the lesson as UTF-8"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe\x80' >"$L/junk.lesson"
lesson lesson-binary-junk "$L/junk.lesson" 2:1 "byte 0x1A is not text: this looks like a binary file, not a lesson"
{ head -n 30 "$L/base.lesson"; printf 'x\0y\n'; } >"$L/nul.lesson"
lesson lesson-nul-byte "$L/nul.lesson" 31:2 "byte 0x00 is not text: this looks like a binary file, not a lesson"
: >"$L/empty.lesson"
lesson lesson-empty "$L/empty.lesson" 1:1 "the file is empty; a lesson starts with “# lesson: ID”"
lesson_file lesson-missing "$L/none.lesson" "Cannot open $L/none.lesson: No such file or directory."
mkdir -p "$L/folder.lesson"
lesson_file lesson-folder "$L/folder.lesson" "$L/folder.lesson is a folder, not a file."
truncate -s 20M "$L/big.lesson" # sparse: nothing is written
lesson_file lesson-too-big "$L/big.lesson" "$L/big.lesson is 20971520 bytes; attnviz reads at most 1048576."
# a page that is not in the (shipped) lesson
en=$src/lessons/en/self-attention.lesson
refuse lesson-unknown-page 1 "re:^attnviz: The lesson $en has no page \"nope\"; its pages are: intro, qkv, .*, induction\.$" -- \
    --headless --lesson "$en" --page nope --print --dump-json run.json
# limits are named, with their line (not "not enough memory", not "@vocab is empty")
{ head -n 46 "$L/base.lesson"; for i in $(seq 1 257); do printf '=== page: p%d\ntitle: P\n' "$i"; done; } >"$L/pages-257.lesson"
lesson lesson-257-pages "$L/pages-257.lesson" 559:1 "a lesson has at most 256 pages; this is page 257"
{ printf '# lesson: t\ntitle: T\nlang: en\n@vocab\n'; seq -f 'f%g' -s ' ' 0 512; printf 'cat: 1\n@end\n@sentence: cat\n=== page: a\ntitle: A\n'; } >"$L/features-513.lesson"
lesson lesson-513-features "$L/features-513.lesson" 5:2451 "a vocabulary has at most 512 features (d_model is at most 512); this line names more, from here on"
variant number-too-large '12s/.*/cat:  1 1e19 0 0/'
lesson lesson-number-too-large "$L/number-too-large.lesson" 12:9 "“1e19” is too large: values must be at most 1e18 in size"
{ printf '# lesson: t\ntitle: T\nlang: en\n@sentence: a b c\n'
  for i in $(seq 1 32); do printf '=== page: p%d\ntitle: P\n@config: d_model=512 d_k=128 heads=8 seed=%d\n@random-weights: gain=2\n' "$i" "$i"; done; } >"$L/gain-pages.lesson"
lesson lesson-memory-bounded "$L/gain-pages.lesson" 20:18 "with this page the lesson would need more than 64 MiB of memory: @random-weights with a gain keeps its own copy of the weights, 16.0 MiB at d_model=512 d_k=128 heads=8; use a gain on fewer pages, the same seed and gain on such pages, or smaller settings"
{ head -n 46 "$L/base.lesson"; echo "=== page: a"; echo "title: A"; for i in $(seq 1 107); do echo "@nonsense"; done; } >"$L/errors.lesson"
row=lesson-error-list-limit
run --check-lesson "$L/errors.lesson"
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/stderr")" -eq 101 ] &&
    [ "$(tail -n 1 "$tmp/stderr")" = "$L/errors.lesson:149:1: and 7 more errors from here on; attnviz lists at most 100 at a time" ] &&
    ok || bad "exit $rc: $(tail -n 2 "$tmp/stderr")"
# a 1 MiB lesson (the largest) of 100,000 CJK words: checked in n log n (it took minutes)
/usr/bin/python3 - "$L/vocab-1mib.lesson" <<'PY'
import random, sys
random.seed(1)
cjk = [chr(c) for c in range(0x4E00, 0x9FA5)]
out, seen, size = ["# lesson: big\ntitle: Big\nlang: en\n@sentence: 这只 动物\n@vocab\nf\n"], set(), 60
while size < (1 << 20) - 64:
    w = random.choice(cjk) + random.choice(cjk)
    if w in seen: continue
    seen.add(w); line = w + ": 1\n"; out.append(line); size += len(line.encode())
out.append("@end\n=== page: a\ntitle: A\n")
open(sys.argv[1], "w", encoding="utf-8").write("".join(out))
PY
row=lesson-1mib-vocabulary
pre=(timeout 20)
t0=$(date +%s%N)
run --check-lesson "$L/vocab-1mib.lesson"
pre=()
echo "lesson-1mib-vocabulary: $(( ($(date +%s%N) - t0) / 1000000 )) ms for $(stat -c %s "$L/vocab-1mib.lesson") bytes"
[ $rc -eq 0 ] && grep -q ": ok, 1 page" "$tmp/stdout" && ok || bad "exit $rc (124: over 20 s): $(head -c 300 "$tmp/stderr")"
# a lesson the user names may be a pipe: read once
row=lesson-pipe
run --check-lesson <(cat "$L/base.lesson")
[ $rc -eq 0 ] && grep -q ": ok, 2 pages" "$tmp/stdout" && ok || bad "exit $rc: $(cat "$tmp/stderr")"
row=lesson-pipe-headless
run --headless --lesson <(cat "$L/base.lesson") --page no-scale --print weights
[ $rc -eq 0 ] && grep -q "saw   0.0416  0.1712  0.0416  0.0416  0.7040" "$tmp/stdout" && ok || bad "exit $rc: $(cat "$tmp/stderr")"

# ---- the environment --------------------------------------------------------------
S=(--sentence "它 look") # a sentence that needs a Chinese font
have_xvfb=1
command -v xvfb-run >/dev/null || { have_xvfb=0; row=xvfb; bad "xvfb-run is missing (Debian package xvfb)"; }
xvfb=(timeout 60 xvfb-run -a -s "-screen 0 1920x1200x24")

# No Chinese font: fontconfig sees only DejaVu, with an empty cache of its own.
mkdir -p "$tmp/fc/cache"
cat >"$tmp/fc/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>/usr/share/fonts/truetype/dejavu</dir>
  <cachedir>$tmp/fc/cache</cachedir>
</fontconfig>
EOF
nofont="No Chinese font found: install the Debian package fonts-wqy-microhei (sudo apt-get install fonts-wqy-microhei), or pass --font FILE."
if [ $have_xvfb -eq 1 ]; then
    pre=(env FONTCONFIG_FILE="$tmp/fc/fonts.conf" "${xvfb[@]}")
    refuse no-cjk-font-gui 1 "attnviz: $nofont" -- "${S[@]}"
fi
pre=(env FONTCONFIG_FILE="$tmp/fc/fonts.conf")
refuse no-cjk-font-export 1 "attnviz: $nofont" -- --headless "${S[@]}" --export-dir "$tmp/out/no-cjk-font-export/figs"
mkdir -p "$in/figs" && printf old >"$in/figs/06-softmax.png" # an existing folder is left as it was
refuse no-cjk-font-export-existing 1 "attnviz: $nofont" -- --headless "${S[@]}" --export-dir "$in/figs"
row=no-cjk-font-print # the tables need no font
run --headless "${S[@]}" --print x
[ $rc -eq 0 ] && grep -q "tokens (2): 1:它 2:look" "$tmp/stdout" && ok || bad "--print without a Chinese font: exit $rc: $(cat "$tmp/stderr")"

# No display: X11 asked for and missing; and nothing asked for (SDL would fall
# back to its invisible offscreen driver and wait forever).
pre=(env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 timeout 30)
refuse no-display-x11 1 "attnviz: cannot open a display (x11 not available). Without a screen, use attnviz --headless." -- "${S[@]}"
pre=(env -u DISPLAY -u WAYLAND_DISPLAY timeout 30)
refuse no-display 1 "attnviz: cannot open a display (no X11 or Wayland display was found). Without a screen, use attnviz --headless." -- "${S[@]}"
pre=()

# export_ok ROW DIR ARGS...: the export works and DIR holds the batch, no staging folder.
export_ok() {
    row=$1
    local dir=$2
    shift 2
    run --headless "${S[@]}" --export-dir "$dir" "$@"
    if [ $rc -ne 0 ]; then bad "exit $rc: $(cat "$tmp/stderr")"; return; fi
    [ "$(cat "$tmp/stdout")" = "attnviz: exported to $dir (see index.md there)" ] || { bad "standard output: $(cat "$tmp/stdout")"; return; }
    [ -s "$tmp/stderr" ] && { bad "printed to standard error: $(cat "$tmp/stderr")"; return; }
    [ -s "$dir/06-softmax.png" ] && [ -s "$dir/index.md" ] || { bad "no 06-softmax.png or index.md in $dir: $(ls -A "$dir")"; return; }
    compgen -G "$dir/.attnviz-staging*" >/dev/null && { bad "a staging folder was left"; return; }
    ok
}
export_ok export-folder-missing "$tmp/out/export-folder-missing/new/figs" --steps 6
echo "a file" >"$in/notes.txt"
refuse export-through-a-file 1 "attnviz: Cannot export to $in/notes.txt/figs: $in/notes.txt is a file, not a folder." -- \
    --headless "${S[@]}" --export-dir "$in/notes.txt/figs" --steps 6
# only files an export wrote, unchanged, are replaced (the manifest .attnviz-export.json)
export_ok export-again "$tmp/out/export-again/figs" --steps 6,7
export_ok export-again "$tmp/out/export-again/figs" --steps 6 # over its own files, keeping 07's entry
# files() DIR: every file's name, size, mode and time (a refused export may have made and
# removed its staging folder, so only the folder's own time may change)
files() { (cd "$1" && find . -type f -printf '%p %s %m %T@\n' | sort); }
mkdir -p "$tmp/site" && printf '# My course\n' >"$tmp/site/index.md"
before=$(files "$tmp/site")
refuse export-foreign-index 1 "attnviz: Cannot export to $tmp/site: index.md is already there, and no attnviz export wrote it (.attnviz-export.json does not list it); move it away or choose another folder." -- \
    --headless "${S[@]}" --export-dir "$tmp/site" --steps 6
[ "$(files "$tmp/site")" = "$before" ] && [ "$(ls -A "$tmp/site")" = index.md ] ||
    bad "export-foreign-index: the folder changed: $(ls -A "$tmp/site")"
export_ok export-edited "$tmp/edited" --steps 6 --format csv,png
printf 'my notes' >"$tmp/edited/06-softmax-A-head1.csv"
before=$(files "$tmp/edited")
refuse export-edited 1 "attnviz: Cannot export to $tmp/edited: 06-softmax-A-head1.csv was changed since an attnviz export wrote it (its SHA-256 is not the one .attnviz-export.json lists); move it away or choose another folder." -- \
    --headless "${S[@]}" --export-dir "$tmp/edited" --steps 6 --format csv,png
[ "$(files "$tmp/edited")" = "$before" ] || bad "export-edited: the folder's files changed"
# a staging folder a killed export left is removed by the next export there
gone=$(bash -c 'echo $$') # a process that has ended
figs=$tmp/out/export-stale/figs
mkdir -p "$figs/.attnviz-staging-$gone-Ab12Cd" && printf half >"$figs/.attnviz-staging-$gone-Ab12Cd/02-qkv.png"
export_ok export-stale-staging "$figs" --steps 6
# SIGINT and SIGTERM during an export remove its staging folder (with a partial PNG)
for sig in INT TERM; do
    row=export-sig$sig
    figs=$tmp/out/$row/figs
    rm -rf "$tmp/out/$row" && mkdir -p "$figs" && printf mine >"$figs/notes.txt"
    # a background job of a script ignores SIGINT; a terminal's Ctrl+C reaches a job that does not
    env --default-signal=INT "$bin" --headless "${S[@]}" --export-dir "$figs" --pixel-scale 3 --size 2400x1600 --format png >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 400); do compgen -G "$figs/.attnviz-staging-*/0*" >/dev/null && break; sleep 0.05; done
    kill -"$sig" $pid
    wait $pid
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ $rc -eq $want ] && [ "$(ls -A "$figs")" = notes.txt ] && ok || bad "exit $rc (want $want), left: $(ls -A "$figs")"
done
# inputs are read once, and the index hashes what was read: a pipe gave the hash of
# nothing, a FIFO hung the export
printf '{"X": [[1, 2], [3, 4]]}' >"$in/x.json"
sum=$(sha256sum "$in/x.json" | cut -d' ' -f1)
row=export-weights-pipe
figs=$tmp/out/$row/figs
pre=(timeout 20)
run --headless --sentence "a b" --weights <(cat "$in/x.json") --export-dir "$figs" --steps 1 --format csv
[ $rc -eq 0 ] && grep -q "SHA-256 \`$sum\`" "$figs/index.md" && ok || bad "exit $rc: $(cat "$tmp/stderr"; grep -i sha "$figs/index.md" 2>/dev/null)"
row=export-weights-fifo
figs=$tmp/out/$row/figs
mkfifo "$tmp/x.fifo"
cat "$in/x.json" >"$tmp/x.fifo" 2>/dev/null </dev/null &
writer=$!
run --headless --sentence "a b" --weights "$tmp/x.fifo" --export-dir "$figs" --steps 1 --format csv
kill $writer 2>/dev/null # a writer left waiting must not hold the test open
[ $rc -eq 0 ] && grep -q "SHA-256 \`$sum\`" "$figs/index.md" && ok || bad "exit $rc (124: it hung): $(cat "$tmp/stderr")"
row=export-lesson-pipe
figs=$tmp/out/$row/figs
run --headless --lesson <(cat "$L/base.lesson") --export-dir "$figs" --format csv
[ $rc -eq 0 ] && grep -q "SHA-256 \`$(sha256sum "$L/base.lesson" | cut -d' ' -f1)\`" "$figs/index.md" && ok ||
    bad "exit $rc: $(cat "$tmp/stderr")"
pre=()
# LaTeX shows every value the core accepts (1e16 had been typeset as 0.00)
printf '{"X": [[1e16, 2.5e15], [-1e17, 1e18]]}' >"$in/big-x.json"
row=export-tex-large-values
figs=$tmp/out/$row/figs
run --headless --sentence "a b" --weights "$in/big-x.json" --export-dir "$figs" --steps 1 --format tex
[ $rc -eq 0 ] && grep -qF '1.00\times10^{16} & 2.50\times10^{15}' "$figs/01-embeddings.tex" &&
    grep -qF -- '-1.00\times10^{17} & 1.00\times10^{18}' "$figs/01-embeddings.tex" && ok || bad "exit $rc: $(cat "$tmp/stderr")"
if [ "$(id -u)" -ne 0 ]; then # root writes anywhere, so this row needs a normal user
    mkdir -p "$in/locked" && chmod 555 "$in/locked"
    refuse export-folder-unwritable 1 "attnviz: Cannot write in the folder $in/locked: Permission denied." -- \
        --headless "${S[@]}" --export-dir "$in/locked" --steps 6
    refuse export-subfolder-unwritable 1 "attnviz: Cannot create the folder $in/locked/figs: Permission denied." -- \
        --headless "${S[@]}" --export-dir "$in/locked/figs" --steps 6
fi

# tmpfs ROW SIZE ro|rw KEEP CODE WANT -- ARGS...: runs attnviz (ARGS may name
# the folder $mnt) in a private mount namespace where $mnt is a fresh tmpfs of
# SIZE holding the file KEEP ("old"), read-only when asked. Afterwards the
# tmpfs must hold KEEP alone, unchanged: no partial file, no staging or new
# folder, no temporary file.
mounts=0
if unshare -m true 2>/dev/null; then mounts=1; else echo "skipped: unshare -m is not allowed here (read-only and full disks); the path through a file stands in"; fi
tmpfs() {
    row=$1
    local size=$2 mode=$3 keep=$4 code=$5 want=$6
    shift 7
    out=$tmp/out/$row
    rm -rf "$out" "${cfg:?}"/* "$cfg"/.[!.]*
    mkdir -p "$out" "$tmp/res"
    unshare -m bash -c '
        mnt=$1 size=$2 mode=$3 keep=$4 res=$5 out=$6
        shift 6
        mount -t tmpfs -o size="$size" tmpfs "$mnt" || exit 77
        printf old >"$mnt/$keep"
        if [ "$mode" = ro ]; then mount -o remount,ro "$mnt" || exit 77; fi
        (cd "$out" && "$@" >"$res/stdout" 2>"$res/stderr")
        echo $? >"$res/rc"
        (cd "$mnt" && find . -mindepth 1 | sort) >"$res/listing"
        cat "$mnt/$keep" >"$res/kept"
    ' _ "$mnt" "$size" "$mode" "$keep" "$tmp/res" "$out" "$bin" "$@"
    if [ $? -eq 77 ]; then echo "skipped [$row]: no tmpfs here"; return; fi
    cp "$tmp/res/stdout" "$tmp/stdout"
    cp "$tmp/res/stderr" "$tmp/stderr"
    rc=$(cat "$tmp/res/rc")
    refused "$code" "$want" || return
    [ "$(cat "$tmp/res/listing")" = "./$keep" ] || { bad "the disk holds more than $keep: $(cat "$tmp/res/listing")"; return; }
    [ "$(cat "$tmp/res/kept")" = old ] || { bad "$keep was changed"; return; }
    ok
}
if [ $mounts -eq 1 ]; then
    mnt=$tmp/mnt
    mkdir -p "$mnt"
    tmpfs export-read-only 1m ro notes.txt 1 "attnviz: Cannot write in the folder $mnt: Read-only file system." -- \
        --headless "${S[@]}" --export-dir "$mnt"
    tmpfs export-read-only-subfolder 1m ro notes.txt 1 "attnviz: Cannot create the folder $mnt/figs: Read-only file system." -- \
        --headless "${S[@]}" --export-dir "$mnt/figs"
    tmpfs export-full-disk 64k rw notes.txt 1 "re:^attnviz: Cannot write [0-9a-z_A-Z.-]+\.png in $mnt: No space left on device\.$" -- \
        --headless "${S[@]}" --export-dir "$mnt" --pixel-scale 2
    tmpfs export-full-disk-subfolder 64k rw notes.txt 1 "re:^attnviz: Cannot write [0-9a-z_A-Z.-]+ in $mnt/figs: No space left on device\.$" -- \
        --headless "${S[@]}" --export-dir "$mnt/figs" --format csv,svg,png
    tmpfs dump-full-disk 16k rw run.json 1 "attnviz: Cannot write $mnt/run.json: No space left on device." -- \
        --headless --sentence "$(seq -s ' ' 1 40)" --dump-json "$mnt/run.json"
    tmpfs dump-read-only 1m ro run.json 1 "attnviz: Cannot write $mnt/run.json: Read-only file system." -- \
        --headless "${S[@]}" --dump-json "$mnt/run.json"
fi

# ---- --script -------------------------------------------------------------------
# script ROW TEXT CODE WANT: TEXT (printf format) as in/ROW.script, run in a
# 1280x800 window under Xvfb; CODE 0 means it must work silently.
script() {
    row=$1
    local f=$in/$1.script code=$3 want=$4
    printf "$2" >"$f"
    pre=("${xvfb[@]}")
    run "${S[@]}" --size 1280x800 --script "$f"
    pre=()
    if [ "$code" -eq 0 ]; then
        [ $rc -eq 0 ] && [ ! -s "$tmp/stderr" ] && [ ! -s "$tmp/stdout" ] && [ -z "$(ls -A "$out")" ] && [ -z "$(ls -A "$cfg")" ] && ok ||
            bad "exit $rc: $(cat "$tmp/stderr")"
    else
        refused "$code" "attnviz: ${want//FILE/$f}" && ok
    fi
}
if [ $have_xvfb -eq 1 ]; then
    script script-valid 'expect sentence 它 look\nclick 1279 799\nhover 0 0\nquit' 0 ""
    script script-unknown-command 'wait 10\njump 3 4\nquit\n' 1 \
        'FILE:2: unknown command "jump"; commands are: size, type, compose, commit, key, click, hover, wheel, wait, shot, save, drop, expect, await, quit.'
    script script-outside-x 'click 5000 10\nquit\n' 1 \
        "FILE:1: (5000, 10) is outside the window (1280x800: x from 0 to 1279, y from 0 to 799)."
    script script-outside-y 'hover 10 800\nquit\n' 1 \
        "FILE:1: (10, 800) is outside the window (1280x800: x from 0 to 1279, y from 0 to 799)."
    script script-negative 'click -5 10\nquit\n' 1 "FILE:1: click X must be 0 or more (it is -5)."
    script script-ends-mid-line 'wait 10\nclick 10' 1 "FILE:2: missing arguments for click: write click X Y, e.g. click 120 45."
    script script-ends-mid-character 'type caf\xc3' 1 \
        "FILE:1: this line is not valid UTF-8: at byte 9 (counting from 1) there is a truncated sequence."
    script script-expect-fails 'click 20 20\nexpect sentence the cat\nquit\n' 1 'FILE:2: expected sentence = "the cat", got "它 look"'
    script script-expect-unknown 'expect colour red\nquit\n' 1 'FILE:1: unknown expectation "colour"'
    script script-shot-nowhere "shot $in/none/shot.png\nquit\n" 1 "FILE:1: Cannot write $in/none/shot.png: No such file or directory."
    row=script-missing
    pre=("${xvfb[@]}")
    run "${S[@]}" --script "$in/none.script"
    pre=()
    refused 1 "attnviz: Cannot open $in/none.script: No such file or directory." && ok
fi

# window ROW TEXT ARGS...: the window under Xvfb driven by the script TEXT,
# with settings the row put in $cfg itself (run empties it); sets rc, out, ms.
window() {
    row=$1
    local f=$in/$1.script t0
    printf "$2" >"$f"
    shift 2
    out=$tmp/out/$row
    rm -rf "$out" && mkdir -p "$out"
    t0=$(date +%s%N)
    (cd "$out" && "${xvfb[@]}" "$bin" "${S[@]}" --size 1280x800 --script "$f" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
}
if [ $have_xvfb -eq 1 ]; then
    # settings.json is the user's: a typo is kept aside as settings.json.bad-N, and the status line says so
    rm -rf "${cfg:?}"/* && mkdir -p "$cfg/attnviz" && printf '{"theme": "dark",}' >"$cfg/attnviz/settings.json"
    window settings-unparsable 'expect status_contains settings.json.bad-1\nexpect status_contains line 1, column 18\nexpect theme light\nquit\n'
    [ $rc -eq 0 ] && [ "$(cat "$cfg/attnviz/settings.json.bad-1")" = '{"theme": "dark",}' ] && [ ! -e "$cfg/attnviz/settings.json" ] &&
        ok || bad "exit $rc: $(cat "$tmp/stderr"; ls -A "$cfg/attnviz")"
    # a settings.json that is a FIFO blocked the window in fopen for ever: it is neither read nor written
    rm -rf "${cfg:?}"/* && mkdir -p "$cfg/attnviz" && mkfifo "$cfg/attnviz/settings.json"
    window settings-fifo 'expect status_contains is not a regular file\nquit\n'
    [ $rc -eq 0 ] && [ -p "$cfg/attnviz/settings.json" ] && [ "$(ls -A "$cfg/attnviz")" = settings.json ] && ok ||
        bad "exit $rc (124: it hung): $(cat "$tmp/stderr")"
    rm -rf "${cfg:?}"/*
    # every Ctrl+S and Ctrl+Shift+S is a file or folder of its own, even within one second
    window shots-every-press 'key ctrl+s\nkey ctrl+s\nwait 50\nkey ctrl+shift+s\nkey ctrl+shift+s\nwait 50\nexpect status_contains attnviz-\nquit\n' \
        --shots-dir "$tmp/out/shots-every-press/shots"
    shots=$tmp/out/shots-every-press/shots
    n_png=$(find "$shots" -maxdepth 1 -name 'attnviz-*.png' -size +1k | wc -l)
    n_dirs=$(find "$shots" -mindepth 1 -maxdepth 1 -type d -name 'attnviz-*' | wc -l)
    [ $rc -eq 0 ] && [ "$n_png" -eq 2 ] && [ "$n_dirs" -eq 2 ] && [ "$(find "$shots" -name '08-multi-head.svg' | wc -l)" -eq 2 ] &&
        ok || bad "exit $rc, $n_png screenshots and $n_dirs export folders: $(ls -A "$shots"; cat "$tmp/stderr")"
    # quitting while the complexity lab measures does not wait for it (it has up to 8 s)
    window lab-baseline 'wait 200\nquit\n'
    base=$ms
    window lab-quit 'key F2\nwait 200\nexpect lab running\nquit\n'
    echo "lab-quit: the run took $ms ms, $((ms - base)) ms more than the same run without the lab"
    [ $rc -eq 0 ] && [ $((ms - base)) -lt 1000 ] && ok || bad "exit $rc, $((ms - base)) ms more: $(cat "$tmp/stderr")"
fi

echo "catalogue_more: $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
