#!/usr/bin/env bash
# Issue 25: the Markdown handouts of both lessons go through pandoc (Debian's)
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
for lang in en zh; do
    d=$out/$lang
    if ! "$bin" --headless --lesson "$lessons/$lang/self-attention.lesson" --lang "$lang" --export-dir "$d" \
        --format md >"$out/$lang.log" 2>&1; then bad "$lang: export failed: $(cat "$out/$lang.log")"; continue; fi
    (
        cd "$d" || exit 1
        pandoc handout.md -o handout.docx 2>"$out/$lang-docx.err" || { echo "FAIL: $lang: pandoc to DOCX: $(cat "$out/$lang-docx.err")"; exit 1; }
        [ ! -s "$out/$lang-docx.err" ] || { echo "FAIL: $lang: pandoc warned: $(cat "$out/$lang-docx.err")"; exit 1; }
        images=$(grep -c '^!\[' handout.md)
        media=$(unzip -l handout.docx 'word/media/*' | grep -c 'word/media/')
        [ "$images" -gt 0 ] && [ "$media" -eq "$images" ] || { echo "FAIL: $lang: $media images in the DOCX, $images in handout.md"; exit 1; }
        unzip -p handout.docx word/document.xml | grep -Eq '<w:i ?/>' || { echo "FAIL: $lang: no emphasis in the DOCX"; exit 1; }
        pandoc handout.md -o handout.pdf --pdf-engine=xelatex -V CJKmainfont='WenQuanYi Micro Hei' \
            -V mainfont='DejaVu Sans' -V monofont='DejaVu Sans Mono' -V geometry:margin=2cm >"$out/$lang-pdf.err" 2>&1 ||
            { echo "FAIL: $lang: pandoc to PDF with xelatex: $(tail -20 "$out/$lang-pdf.err")"; exit 1; }
        [ -s handout.pdf ] || { echo "FAIL: $lang: no PDF"; exit 1; }
        echo "$lang: handout.md → DOCX ($media images, emphasis kept) and PDF ($(wc -c <handout.pdf) bytes)"
    ) || fail=$((fail + 1))
done
exit $((fail > 0))
