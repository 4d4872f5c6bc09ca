#!/usr/bin/env bash
# compile_tex.sh BIN — every .tex an export writes compiles with xelatex:
# both lessons (self-attention and modern-attention, zh and en), the seed
# sentence (and a zh variant with every option), a model, the tiles view's
# steps and the decode view; and tests/export/beamer-example.tex, which
# \input's snippets, with
# pdflatex (the snippets need no particular engine; beamer under xelatex
# needs hyperref's pzdr font, texlive-fonts-recommended).
# Fails on any LaTeX error and on any overfull box wider than 1 pt. Run
# once per CI run, after the normal build's ctest (scripts/test.sh), not in
# the sanitizer build: xelatex takes about 2 s a file; files run in
# parallel (COMPILE_TEX_JOBS, default 2).
# compile_tex.sh --self-test BIN: proves the check fails on a broken file.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jobs=${COMPILE_TEX_JOBS:-2}
self_test=false
[ "${1:-}" = --self-test ] && { self_test=true; shift; }
bin=$(readlink -f "${1:?usage: compile_tex.sh [--self-test] BIN}")
command -v xelatex >/dev/null || { echo "compile_tex: xelatex is missing (texlive-xetex, texlive-lang-chinese)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one file, with xelatex (or pdflatex: second argument) in its own folder;
# prints "FAIL name: reason" lines
check_one() {
    local tex=$1 engine=${2:-xelatex} dir name log fast=-no-pdf
    dir=$(dirname "$tex") name=$(basename "$tex" .tex)
    [ "$engine" = pdflatex ] && fast=-draftmode
    (cd "$dir" && "$engine" -interaction=nonstopmode -halt-on-error $fast "$name.tex" >/dev/null 2>&1) ||
        { echo "FAIL $tex: $(grep -m1 -A2 '^!' "$dir/$name.log" | tr '\n' ' ')"; return 0; }
    log=$dir/$name.log
    # "Overfull \hbox (12.3pt too wide)", "Overfull \vbox (4pt too high)": more than 1 pt fails
    awk -v f="$tex" '/^Overfull \\[hv]box \(/ { v = $3; sub(/^\(/, "", v); sub(/pt$/, "", v);
                      if (v + 0 > 1) print "FAIL " f ": " $0 }' "$log"
}
export -f check_one

export_all() { # OUT: every kind of export, tex only
    local out=$1 r=0
    "$bin" --headless --lesson "$root/lessons/zh/self-attention.lesson" --lang zh --export-dir "$out/lesson-zh" --format tex >/dev/null || r=1
    "$bin" --headless --lesson "$root/lessons/en/self-attention.lesson" --lang en --export-dir "$out/lesson-en" --format tex >/dev/null || r=1
    "$bin" --headless --export-dir "$out/seed" --format tex >/dev/null || r=1
    "$bin" --headless --export-dir "$out/seed-zh" --format tex --lang zh --mask causal --bias --pos-enc >/dev/null || r=1
    "$bin" --headless --model "$root/assets/models/referent-zh.json" --export-dir "$out/model" --format tex >/dev/null || r=1
    # issue 24's views: every step of the tiles view (skipped blocks too) and the decode view, both languages
    "$bin" --headless --export-dir "$out/tiles-en" --format tex --lang en --mask causal --tiles 7 --steps 6 >/dev/null || r=1
    "$bin" --headless --export-dir "$out/tiles-zh" --format tex --lang zh --mask causal --tiles 7 --steps 6 >/dev/null || r=1
    "$bin" --headless --export-dir "$out/decode-zh" --format tex --lang zh --mask causal --decode --steps 6 >/dev/null || r=1
    # the modern-attention lessons (issue 24), whose pages show RoPE, grouped heads, tiles and decoding
    "$bin" --headless --lesson "$root/lessons/zh/modern-attention.lesson" --lang zh --export-dir "$out/modern-zh" --format tex >/dev/null || r=1
    "$bin" --headless --lesson "$root/lessons/en/modern-attention.lesson" --lang en --export-dir "$out/modern-en" --format tex >/dev/null || r=1
    return $r
}

# DIR's matrix snippets (export_tex_snippet: the first line says "for \input")
# into one article that \input's each in math mode, with amsmath and nothing
# else the export's documents have: a snippet must compile in any document.
wrap_snippets() {
    local dir=$1 f name any=false
    {
        printf '\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage{graphicx}\n\\begin{document}\n'
        for f in "$dir"/*.tex; do
            head -1 "$f" | grep -q 'for \\input' || continue
            name=$(basename "$f" .tex) any=true
            if head -1 "$f" | grep -q 'needs amsmath'; then printf '\\[ M = \\input{%s} \\]\n' "$name"
            else printf '\\noindent\\resizebox{\\linewidth}{!}{$ M = \\input{%s} $}\n\n' "$name"; fi
        done
        printf '\\end{document}\n'
    } >"$dir/all-snippets.tex"
    $any || rm -f "$dir/all-snippets.tex"
}

run_checks() { # DIR: every document under it, and its snippets, in parallel; prints the failures
    local d
    find "$1" -name '*.tex' -exec dirname {} + | sort -u | while read -r d; do wrap_snippets "$d"; done
    find "$1" -name '*.tex' -print0 | sort -z |
        xargs -0 -n1 bash -c 'head -1 "$1" | grep -q "for \\\\input" || printf "%s\\0" "$1"' _ |
        xargs -0 -P "$jobs" -I{} bash -c 'check_one "$1"' _ {}
}

if $self_test; then
    mkdir -p "$tmp/bad"
    printf '\\documentclass{article}\\usepackage{amsmath}\\begin{document}\\[ Q = X W_Q_Q \\]\\end{document}\n' >"$tmp/bad/double.tex"
    printf '\\documentclass{article}\\begin{document}\\noindent\\hbox to 2\\textwidth{x\\hfil}\\end{document}\n' >"$tmp/bad/wide.tex"
    printf '\\documentclass{article}\\begin{document}fine\\end{document}\n' >"$tmp/bad/fine.tex"
    printf '%% attnviz: a snippet for \\input in math mode; needs amsmath.\n\\begin{bmatrix} 1 & 2 \\\\ 3 \\end{pmatrix}\n' >"$tmp/bad/snippet.tex"
    run_checks "$tmp/bad" >"$tmp/out"
    grep -q 'double.tex: ! Double subscript' "$tmp/out" || { echo "self-test: a double subscript passed: $(cat "$tmp/out")"; exit 1; }
    grep -q 'wide.tex: Overfull' "$tmp/out" || { echo "self-test: an overfull box passed: $(cat "$tmp/out")"; exit 1; }
    grep -q 'all-snippets.tex: ' "$tmp/out" || { echo "self-test: a broken snippet passed: $(cat "$tmp/out")"; exit 1; }
    grep -q 'fine.tex' "$tmp/out" && { echo "self-test: a good file failed: $(cat "$tmp/out")"; exit 1; }
    echo "self-test: ok"
    exit 0
fi

export_all "$tmp" || { echo "compile_tex: an export failed"; exit 1; }
docs=$(grep -L 'for \\input' $(find "$tmp" -name '*.tex') | wc -l)
snippets=$(grep -l 'for \\input' $(find "$tmp" -name '*.tex') | wc -l)
run_checks "$tmp" >"$tmp/failures"
cp "$here/beamer-example.tex" "$tmp/seed/" || { echo "compile_tex: tests/export/beamer-example.tex is missing"; exit 1; }
check_one "$tmp/seed/beamer-example.tex" pdflatex >>"$tmp/failures"
if [ -s "$tmp/failures" ]; then
    cat "$tmp/failures"
    echo "compile_tex: $(wc -l <"$tmp/failures") failure(s) in $docs documents, $snippets snippets and the beamer example"
    exit 1
fi
echo "compile_tex: $docs documents, $snippets snippets (in one document per folder) and the beamer example compile, no overfull box over 1 pt"
