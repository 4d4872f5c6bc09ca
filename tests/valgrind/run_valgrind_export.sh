#!/usr/bin/env bash
# Valgrind memcheck of a whole headless export: the lesson parsed, every page
# computed and drawn to PNG, SVG and CSV through SDL, SDL_ttf and fontconfig,
# then everything closed again. Passes when memcheck finds no errors (invalid
# reads or writes, uses of uninitialised values, bad frees) and no block is
# definitely lost. Only library internals are suppressed (system.supp beside
# this script; never attnviz's own code). Build without sanitizers for this:
#   cmake -S . -B build-vg -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   cmake --build build-vg -j2 --target attnviz
# It takes 10-20 s (the same export runs in under a second without valgrind).
#
# Usage: run_valgrind_export.sh ATTNVIZ [LESSON]
#   LESSON defaults to lessons/en/self-attention.lesson beside ATTNVIZ (the
#   build copies the lessons next to the binary, as an install does).
set -u
[ $# -ge 1 ] || { echo "usage: $0 ATTNVIZ [LESSON]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
lesson=${2:-$(dirname "$bin")/lessons/en/self-attention.lesson}
supp=$here/system.supp
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

result() { # passed failed
    echo "$1 passed, $2 failed"
    exit "$2"
}

command -v valgrind >/dev/null || { echo "FAIL: valgrind is not installed (Debian: apt-get install valgrind)"; result 0 1; }
[ -x "$bin" ] || { echo "FAIL: $bin is not an executable"; result 0 1; }
[ -f "$lesson" ] || { echo "FAIL: no lesson at $lesson"; result 0 1; }

start=$(date +%s.%N)
valgrind --tool=memcheck --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
    --suppressions="$supp" \
    "$bin" --headless --lesson "$lesson" --export-dir "$out/export" --format png,svg,csv --pixel-scale 1 \
    >"$out/stdout" 2>"$out/valgrind.log"
rc=$?
end=$(date +%s.%N)
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

errors=$(grep -E '== ERROR SUMMARY: ' "$out/valgrind.log" | tail -1)
leaks=$(grep -E '== +definitely lost: |== All heap blocks were freed -- no leaks are possible' "$out/valgrind.log" | tail -1)
echo "${errors:-no ERROR SUMMARY line}"
echo "${leaks:-no leak summary line}"
echo "valgrind export of $(basename "$lesson"): exit $rc, ${seconds}s"

fail=0
bad() { echo "FAIL: $*"; fail=1; }
echo "$errors" | grep -q 'ERROR SUMMARY: 0 errors' || bad "memcheck found errors"
echo "$leaks" | grep -qE 'definitely lost: 0 bytes|no leaks are possible' || bad "memory is definitely lost"
[ $rc -eq 0 ] || bad "attnviz exited $rc (9: memcheck errors)"
if ! [ -s "$out/export/index.md" ] || ! ls "$out/export"/*.png "$out/export"/*.svg "$out/export"/*.csv >/dev/null 2>&1; then
    bad "the export did not write its PNG, SVG, CSV and index.md files"
fi
if [ $fail -ne 0 ]; then
    grep -E '^==[0-9]+== .' "$out/valgrind.log" | head -100 # memcheck's reports, with their stacks
    grep -vE '^==[0-9]+==' "$out/valgrind.log" | head -20   # what attnviz itself printed
    result 0 1
fi
result 1 0
