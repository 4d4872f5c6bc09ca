#!/usr/bin/env bash
# Issue 25: the Markdown handouts of both lessons (self-attention and
# modern-attention, en and zh) go through pandoc (Debian's)
# to DOCX and, with xelatex, to PDF without an error, and the DOCX keeps the
# handout's emphasis (<w:i/>, which pandoc writes "<w:i />"; raw <em> was dropped) and every image. Run once
# per CI run by scripts/test.sh after the normal build's ctest: it takes a
# minute of xelatex and tests Markdown, not memory safety.
# Usage: run_pandoc_handouts.sh ATTNVIZ LESSONS_DIR
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lessons=$2
for tool in pandoc xelatex unzip; do
    command -v "$tool" >/dev/null || { echo "pandoc handouts need $tool (scripts/install-deps.sh --test)"; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
for each in en/self-attention zh/self-attention en/modern-attention zh/modern-attention; do
    lang=${each%%/*} name=${each//\//-}
    d=$out/$name
    if ! "$bin" --headless --lesson "$lessons/$each.lesson" --lang "$lang" --export-dir "$d" \
        --format md >"$out/$name.log" 2>&1; then bad "$name: export failed: $(cat "$out/$name.log")"; continue; fi
    (
        cd "$d" || exit 1
        pandoc handout.md -o handout.docx 2>"$out/$name-docx.err" || { echo "FAIL: $name: pandoc to DOCX: $(cat "$out/$name-docx.err")"; exit 1; }
        [ ! -s "$out/$name-docx.err" ] || { echo "FAIL: $name: pandoc warned: $(cat "$out/$name-docx.err")"; exit 1; }
        images=$(grep -c '^!\[' handout.md)
        media=$(unzip -l handout.docx 'word/media/*' | grep -c 'word/media/')
        [ "$images" -gt 0 ] && [ "$media" -eq "$images" ] || { echo "FAIL: $name: $media images in the DOCX, $images in handout.md"; exit 1; }
        unzip -p handout.docx word/document.xml | grep -Eq '<w:i ?/>' || { echo "FAIL: $name: no emphasis in the DOCX"; exit 1; }
        pandoc handout.md -o handout.pdf --pdf-engine=xelatex -V CJKmainfont='WenQuanYi Micro Hei' \
            -V mainfont='DejaVu Sans' -V monofont='DejaVu Sans Mono' -V geometry:margin=2cm >"$out/$name-pdf.err" 2>&1 ||
            { echo "FAIL: $name: pandoc to PDF with xelatex: $(tail -20 "$out/$name-pdf.err")"; exit 1; }
        [ -s handout.pdf ] || { echo "FAIL: $name: no PDF"; exit 1; }
        echo "$name: handout.md → DOCX ($media images, emphasis kept) and PDF ($(wc -c <handout.pdf) bytes)"
    ) || fail=$((fail + 1))
done
exit $((fail > 0))
