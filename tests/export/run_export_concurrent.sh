#!/usr/bin/env bash
# Issue 25: exports started at once into one folder (a `make -j3` of course
# notes) all succeed. Each waits for DIR's lock file, then reads the manifest
# the export before it wrote, so a file another export wrote a moment
# earlier is one it may replace, not a stranger's. Afterwards the manifest
# lists every file, and no lock file or staging folder is left.
# Usage: run_export_concurrent.sh ATTNVIZ
set -u
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
d=$out/notes
for round in 1 2 3; do # the race is a matter of timing: three rounds of three
    pids=()
    for k in 1 2 3; do # each writes 05-mask.svg, as the course's three make rules did
        "$bin" --headless --steps 5,6 --format svg,csv --export-dir "$d" >"$out/$round-$k.out" 2>"$out/$round-$k.err" &
        pids+=($!)
    done
    for k in 1 2 3; do
        wait "${pids[$((k - 1))]}" || bad "round $round, export $k failed: $(cat "$out/$round-$k.err")"
    done
done
[ -s "$d/05-mask.svg" ] && [ -s "$d/06-softmax-A-head1.csv" ] || bad "files missing: $(ls -A "$d")"
grep -q '"name": "05-mask.svg"' "$d/.attnviz-export.json" || bad "the manifest does not list 05-mask.svg"
left=$(ls -A "$d" | grep -E '^\.attnviz-(staging|export\.lock)')
[ -z "$left" ] || bad "left in the folder: $left"
if [ "$fail" -eq 0 ]; then echo "concurrent exports: 9 exports into one folder, all succeeded"; fi
exit $((fail > 0))
