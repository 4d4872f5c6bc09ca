#!/usr/bin/env bash
# Exports every shipped lesson headless (PNG, SVG, CSV, Markdown handout): run
# in the sanitizer build too, so the whole export path is checked there.
# Usage: run_export_lessons.sh ATTNVIZ LESSONS_DIR
set -u
bin=$1
lessons=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for f in "$lessons"/*/*.lesson; do
    name=$(basename "$(dirname "$f")")-$(basename "$f" .lesson) # zh-self-attention: one folder per lesson
    if ! "$bin" --headless --lesson "$f" --export-dir "$tmp/$name" --format png,svg,csv,md >"$tmp/$name.log" 2>&1; then
        echo "FAIL: exporting $f: $(cat "$tmp/$name.log")"; fail=1; continue
    fi
    pages=$(grep -c '^=== page:' "$f")
    pngs=$(ls "$tmp/$name"/*.png 2>/dev/null | wc -l)
    [ "$pngs" -eq "$pages" ] || { echo "FAIL: $f has $pages pages but $pngs figures"; fail=1; }
    [ -s "$tmp/$name/handout.md" ] && [ -s "$tmp/$name/index.md" ] || { echo "FAIL: $f: no handout or index"; fail=1; }
    echo "$f: $pages pages, $(ls "$tmp/$name" | wc -l) files"
done
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
