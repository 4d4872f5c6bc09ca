#!/usr/bin/env bash
# Issue 23: a handout of a page with another sentence (--sentence) never
# shows "—" where a value or word should be. Exports every page that
# invites edits with each of its @try sentences, in both lessons (Markdown
# handout, SVG figure and HTML page), and looks for a "—" that is not punctuation:
# " — " between words (titles, captions) and "——" (Chinese) are allowed.
# Usage: run_export_try.sh ATTNVIZ LESSONS_DIR
set -u
bin=$1
lessons=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
count=0
for f in "$lessons"/*/*.lesson; do
    lang=$(basename "$(dirname "$f")")
    page=
    while IFS= read -r line; do
        case $line in
        "=== page: "*) page=${line#=== page: } ;;
        "@try: "*)
            rest=${line#@try: }
            while [ -n "$rest" ]; do
                s=${rest%% | *}
                if [ "$s" = "$rest" ]; then rest=; else rest=${rest#* | }; fi
                s=$(printf '%s' "$s" | sed 's/^ *//; s/ *$//')
                count=$((count + 1))
                out="$tmp/$lang-$page-$count"
                if ! "$bin" --headless --lesson "$f" --page "$page" --sentence "$s" --export-dir "$out" \
                    --format svg,md,html >"$out.log" 2>&1; then
                    echo "FAIL: $lang $page \"$s\": $(cat "$out.log")"; fail=1; continue
                fi
                [ -s "$out/handout.md" ] || { echo "FAIL: $lang $page \"$s\": no handout"; fail=1; continue; }
                # lone dashes: drop the allowed punctuation, then look for what is left
                bad=$(cat "$out"/handout.md "$out"/*.svg "$out"/*.html | sed 's/——//g; s/ — / /g; s/ &#8212; / /g' | grep -n '—' | head -3)
                if [ -n "$bad" ]; then
                    echo "FAIL: $lang $page \"$s\" shows \"—\":"; echo "$bad" | cut -c1-240; fail=1
                fi
            done
            ;;
        esac
    done <"$f"
done
[ "$count" -ge 10 ] || { echo "FAIL: only $count @try sentences found"; fail=1; }
echo "$count @try sentences exported"
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
