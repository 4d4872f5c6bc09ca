#!/usr/bin/env bash
# End-to-end checks of the headless export, run against the real binary the way
# a course author would use it:
#   attnviz --headless [--lesson FILE | --sentence S and config flags] --export-dir DIR
#           [--format png,svg,csv,tex,md] [--pixel-scale 1|2|3] [--size WxH]
#           [--theme light|dark|presenter|high-contrast] [--steps all|3,6]
#           [--view figure|window] [--caption]
# Files, sizes, well-formed SVG (xmllint) that rsvg renders, CSV as a table,
# byte-identical reruns, the index's commands remaking their files, bad flags
# (exit 2), a path through a file, a full and a read-only disk (tmpfs inside
# `unshare -m`, so it holds as root), LaTeX with xelatex when installed, the
# PNG of --view window against the GUI's own screenshot under Xvfb, and the
# Chinese lesson with its handout.
# Usage: run_export_e2e.sh ATTNVIZ
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { # description command...
    local what=$1
    shift
    if "$@"; then ok; else bad "$what"; fi
}
seed='这只动物没看见那只鸟，因为它飞得太快了。'
steps=(01-embeddings 02-qkv 03-scores 04-scale 05-mask 06-softmax 07-weighted-sum 08-multi-head)

# PNG width and height from the IHDR chunk: "W H"
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}'; }
no_staging() { ! ls -A "$1" | grep -q '^\.attnviz-staging'; }
export_run() { "$bin" --headless "$@" >"$out/stdout" 2>"$out/stderr"; }

# ---- a whole sentence, every format, pixel scale 2 ----
d=$out/all
if export_run --sentence "$seed" --export-dir "$d" --format png,svg,csv,tex,md --pixel-scale 2; then ok; else
    bad "export of every format failed: $(cat "$out/stderr")"; fi
for s in "${steps[@]}"; do
    [ -s "$d/$s.png" ] && [ -s "$d/$s.svg" ] && [ -s "$d/$s.tex" ] || bad "$s: png, svg or tex missing"
    [ "$(png_size "$d/$s.png" 2>/dev/null)" = "2560 1600" ] || bad "$s.png is $(png_size "$d/$s.png"), not 2560 1600"
done
ok
check "one CSV per matrix" test -s "$d/03-scores-S-head1.csv" -a -s "$d/03-scores-S-head2.csv" -a -s "$d/05-mask-S_masked-head1.csv" \
    -a -s "$d/08-multi-head-out.csv" -a -s "$d/02-qkv-W_Q-head2.csv"
check "handout and index" test -s "$d/handout.md" -a -s "$d/index.md"
check "no staging folder left" no_staging "$d"
if command -v xmllint >/dev/null; then check "SVG is well-formed XML" xmllint --noout "$d"/*.svg; fi
if command -v rsvg-convert >/dev/null; then
    check "rsvg renders the SVG" rsvg-convert -o "$out/rsvg.png" "$d/06-softmax.svg"
    check "rsvg drew it at 1280x800" test "$(png_size "$out/rsvg.png")" = "1280 800"
fi
check "SVG text is text, in CJK-capable fonts" grep -q '>它</text>' "$d/06-softmax.svg"
check "SVG names WenQuanYi and Noto Sans CJK" grep -q "WenQuanYi Micro Hei', 'Noto Sans CJK SC'" "$d/06-softmax.svg"
# a CSV reads back as a table: the corner and 20 tokens, then 20 rows of 21 fields
if command -v python3 >/dev/null; then
    check "CSV is a 21×21 table labelled with tokens" python3 - "$d/03-scores-S-head1.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
assert len(rows) == 21 and all(len(r) == 21 for r in rows), [len(r) for r in rows]
assert rows[0][0] == "S" and rows[0][14] == "它" and rows[14][0] == "它", rows[0]
float(rows[1][1])
PY
fi
check "handout links every figure" bash -c 'cd "$1" && for f in $(grep -o "([0-9][0-9]-[a-z-]*\.png)" handout.md | tr -d "()"); do test -s "$f" || exit 1; done' _ "$d"
check "handout has the 8 steps" test "$(grep -c '^## ' "$d/handout.md")" -eq 8
check "index names the version" grep -q "attnviz $("$bin" --version | awk '{print $2}')" "$d/index.md"
check "index has the configuration" grep -q 'd_model=8 d_k=4 heads=2 seed=1 mask=none' "$d/index.md"
check "index says how to remake 03-scores.png" grep -q -- "--format png --steps 3 --pixel-scale 2 --size 1280x800" "$d/index.md"

# ---- the same again: byte-identical files, replaced in place ----
d2=$out/again
export_run --sentence "$seed" --export-dir "$d2" --format png,svg,csv,tex,md --pixel-scale 2 || bad "second export failed"
same=1
for f in "$d"/*.png "$d"/*.svg "$d"/*.csv "$d"/*.tex; do cmp -s "$f" "$d2/$(basename "$f")" || { same=0; echo "  differs: $(basename "$f")"; }; done
check "a second export is byte-identical" test $same -eq 1
n_before=$(ls "$d" | wc -l)
check "exporting again into the same folder works" export_run --sentence "$seed" --export-dir "$d" --format png,svg,csv,tex,md --pixel-scale 2
check "it replaced the files, nothing more" test "$(ls "$d" | wc -l)" -eq "$n_before"
check "and left no staging folder" no_staging "$d"

# ---- the index's command for one file makes that file again ----
mkdir -p "$out/path" && ln -sf "$bin" "$out/path/attnviz"
cmd=$(awk '/^`03-scores.png`/ {f = 1; next} f && /^attnviz / {print; exit}' "$d/index.md")
cp "$d/03-scores.png" "$out/kept.png"
rm "$d/03-scores.png"
if [ -n "$cmd" ] && PATH="$out/path:$PATH" bash -c "$cmd" >/dev/null 2>&1; then
    check "the index's command remade 03-scores.png identically" cmp -s "$d/03-scores.png" "$out/kept.png"
else
    bad "the index's command for 03-scores.png did not run: $cmd"
fi

# ---- options ----
d=$out/some
check "--steps 3,6" export_run --sentence "$seed" --export-dir "$d" --steps 3,6 --format png
check "--steps 3,6 makes 03 and 06 only" test "$(ls "$d" | tr '\n' ' ')" = "03-scores.png 06-softmax.png index.md "
d=$out/window
check "--view window --caption --theme dark --size 640x400" export_run --sentence "$seed" --export-dir "$d" --steps 6 \
    --format png,svg --view window --caption --theme dark --size 640x400
check "window PNG is 640x400" test "$(png_size "$d/06-softmax.png")" = "640 400"
check "the caption carries the sentence" grep -q "$seed" "$d/06-softmax.svg"
for bad_flag in "--format gif" "--pixel-scale 4" "--steps 9" "--size 10x10" "--theme pink" "--view page"; do
    # shellcheck disable=SC2086
    "$bin" --headless --sentence "$seed" --export-dir "$out/flags" $bad_flag >/dev/null 2>"$out/stderr"
    rc=$?
    check "$bad_flag exits with 2 (got $rc)" test $rc -eq 2
done
check "bad flags wrote nothing" test ! -e "$out/flags"

# ---- a folder path through a regular file ----
echo notes >"$out/notes.txt"
"$bin" --headless --sentence "$seed" --export-dir "$out/notes.txt/figs" --format png >/dev/null 2>"$out/stderr"
rc=$?
check "a path through a file exits with 1 (got $rc)" test $rc -eq 1
check "and says so" grep -q "is a file, not a folder" "$out/stderr"

# ---- a full disk and a read-only folder, for real (as root too) ----
if unshare -m true 2>/dev/null; then
    for fs in "size=96k" "ro"; do
        t=$out/fs-$fs
        mkdir -p "$t"
        unshare -m bash -c '
            t=$1 fs=$2 bin=$3 seed=$4
            mount -t tmpfs -o size=1m tmpfs "$t" || exit 77
            echo old >"$t/06-softmax.png"
            mount -o remount,$fs "$t" || exit 77
            "$bin" --headless --sentence "$seed" --export-dir "$t" --format png,svg,csv --pixel-scale 2 2>"$t.err"
            rc=$?
            [ $rc -eq 1 ] || { echo "exit $rc"; exit 1; }
            [ "$(ls -A "$t")" = "06-softmax.png" ] || { echo "left: $(ls -A "$t")"; exit 1; }
            [ "$(cat "$t/06-softmax.png")" = old ] || { echo "old file changed"; exit 1; }
        ' _ "$t" "$fs" "$bin" "$seed"
        rc=$?
        if [ $rc -eq 77 ]; then echo "skipped: no tmpfs here ($fs)"; else check "tmpfs $fs: clean failure ($(cat "$t.err" 2>/dev/null))" test $rc -eq 0; fi
    done
else
    echo "skipped: unshare -m is not allowed here (full and read-only disk)"
fi

# ---- LaTeX, where a TeX toolchain exists ----
if command -v xelatex >/dev/null && kpsewhich ctex.sty >/dev/null 2>&1; then
    check "03-scores.tex compiles with xelatex" bash -c 'cd "$1" && xelatex -interaction=nonstopmode -halt-on-error 03-scores.tex >/dev/null && test -s 03-scores.pdf' _ "$out/all"
else
    echo "skipped: xelatex with ctex is not installed"
fi

# ---- --view window is the window, pixel for pixel (Xvfb) ----
if command -v xvfb-run >/dev/null; then
    # the pointer off the canvas and no cell hovered (Xvfb puts it on the window's centre, where a cell may lie)
    printf 'size 1280 800\nwait 300\nhover 5 795\nkey 5\nkey 6\nshot %s\nquit\n' "$out/gui.png" >"$out/shot.script"
    XDG_CONFIG_HOME="$out/config" xvfb-run -a -s "-screen 0 1920x1200x24" \
        "$bin" --sentence "$seed" --ui-scale 1 --size 1280x800 --script "$out/shot.script" >/dev/null 2>&1
    export_run --sentence "$seed" --export-dir "$out/win1" --steps 6 --format png --view window --size 1280x800
    check "--view window PNG equals the window's screenshot" cmp -s "$out/gui.png" "$out/win1/06-softmax.png"
else
    echo "skipped: xvfb-run is missing (window comparison)"
fi

# ---- the Chinese lesson: figures at pixel scale 2, CSV and the handout ----
lesson=$root/lessons/zh/self-attention.lesson
if [ -f "$lesson" ]; then
    d=$out/lesson
    if export_run --lesson "$lesson" --export-dir "$d" --format png,svg,csv,md --pixel-scale 2; then ok; else
        bad "lesson export failed: $(cat "$out/stderr")"; fi
    check "one figure per page, named by page id" test -s "$d/01-intro.png" -a -s "$d/01-intro.svg"
    check "the handout has the lesson's title" grep -q '^# 自注意力' "$d/handout.md"
    check "handout links every page's figure" bash -c 'cd "$1" && n=0 && for f in $(grep -o "([0-9][0-9]-[A-Za-z0-9_-]*\.png)" handout.md | tr -d "()"); do test -s "$f" || exit 1; n=$((n+1)); done; test $n -eq $(grep -c "^## " handout.md)' _ "$d"
    check "the index has the lesson's SHA-256" grep -q "$(sha256sum "$lesson" | cut -d' ' -f1)" "$d/index.md"
    if command -v xmllint >/dev/null; then check "lesson SVGs are well-formed" xmllint --noout "$d"/*.svg; fi
else
    echo "skipped: no Chinese lesson at $lesson"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
