#!/usr/bin/env bash
# export_compare.sh — issue 7's export budget, measured on this machine in one
# run: attnviz exporting every step of the seed sentence as PNG at pixel
# scale 2 (eight figures, one process) against matplotlib saving one annotated
# 20×20 heatmap at 200 dpi (bench/matplotlib_heatmap.py, one process). Both are
# timed as a user waits for them, from the command to the files on disk, best
# and median of REPS runs after one warm-up each (fontconfig's and matplotlib's
# font caches are built then). Prints the ratio attnviz/matplotlib; the target
# is below 1.
#
# Usage: bench/export_compare.sh [REPS]                  (default 5)
#   BUILD_DIR=…   where to build attnviz (default build-bench, Release with -O2)
#   PYTHON=…      the interpreter (default Debian's /usr/bin/python3 + python3-matplotlib)
set -euo pipefail
. "$(dirname "$0")/common.sh"
reps=${1:-5}
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench_build attnviz
bench_machine

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# Runs "$@" once to warm up, then reps times; prints "best median" in ms.
time_runs() {
    "$@" >/dev/null 2>&1
    local times=() t0 t1
    for ((i = 0; i < reps; i++)); do
        t0=$(now_ms)
        "$@" >/dev/null 2>&1
        t1=$(now_ms)
        times+=($((t1 - t0)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d\n", v[1], v[int((NR + 1) / 2)] }'
}

attnviz_export() {
    rm -rf "$work/out"
    "$build/attnviz" --headless --export-dir "$work/out" --format png --pixel-scale 2
}
mpl_heatmap() { "$python" "$root/bench/matplotlib_heatmap.py" "$work/mpl.png"; }

attnviz_export >/dev/null
count=$(ls "$work/out"/*.png | wc -l)
echo "== attnviz: every step of the seed sentence as PNG at pixel scale 2 ($count files, one process)"
read -r a_best a_med < <(time_runs attnviz_export)
echo "attnviz export: best $a_best ms, median $a_med ms over $reps runs"
echo "== matplotlib: one annotated 20x20 heatmap at 200 dpi (one process)"
mpl_heatmap | head -1
read -r m_best m_med < <(time_runs mpl_heatmap)
echo "matplotlib heatmap: best $m_best ms, median $m_med ms over $reps runs"
awk -v a="$a_best" -v m="$m_best" -v n="$count" 'BEGIN {
    r = a / m
    printf "ratio attnviz (%d PNGs) / matplotlib (1 PNG): %.2f -> %s\n", n, r, r < 1 ? "within the target" : "OUTSIDE the target"
    printf "bench: attnviz_export_ms=%d matplotlib_ms=%d ratio=%.3f files=%d\n", a, m, r, n
}'
