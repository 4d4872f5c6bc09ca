#!/usr/bin/env bash
# Issue 22: training gives the same bytes on every CPU. Trains shipped tasks
# with their default options twice — normally, and with glibc told to act as
# on a CPU without AVX2 and FMA (GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,
# which switches its libm to other code with other last bits) — and compares
# both with each other and with the shipped model file.
# Before attnviz had its own exp/log/pow/sin/cos (src/core/attn_math.c),
# referent-zh differed in 1,014 of its 1,603 numbers.
# Usage: train_hwcaps.sh ATTNVIZ MODELS_DIR [TASK...]   (default: referent-zh reverse)
set -u
bin=$1
models=$2
shift 2
tasks=("$@")
[ ${#tasks[@]} -gt 0 ] || tasks=(referent-zh reverse)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# The numbers of a model file, one a line, so that two files can be compared number by number.
numbers() { grep -oE -- '-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?' "$1"; }
# How many of the numbers differ between two files: "D of N".
count_differing() {
    paste -d' ' <(numbers "$1") <(numbers "$2") | awk '$1 != $2 { d++ } END { printf "%d of %d", d, NR }'
}
compare() { # compare WHAT FILE EXPECTED
    if cmp -s "$2" "$3"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: $(count_differing "$2" "$3") numbers differ"
        fails=$((fails + 1))
    fi
}

if ! grep -qw fma /proc/cpuinfo 2>/dev/null; then
    echo "note: this CPU has no FMA, so both runs take the same path in glibc; only the shipped files are compared meaningfully"
fi
for task in "${tasks[@]}"; do
    if ! "$bin" --train "$task" --save "$tmp/$task.json" >/dev/null ||
        ! GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA "$bin" --train "$task" --save "$tmp/$task-nofma.json" >/dev/null; then
        echo "FAIL: $task: attnviz --train failed"
        fails=$((fails + 1))
        continue
    fi
    compare "$task: trained without AVX2/FMA = trained normally" "$tmp/$task-nofma.json" "$tmp/$task.json"
    compare "$task: trained normally = the shipped $task.json" "$tmp/$task.json" "$models/$task.json"
done
[ "$fails" -eq 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" -eq 0 ]
