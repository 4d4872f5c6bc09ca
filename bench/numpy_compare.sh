#!/usr/bin/env bash
# numpy_compare.sh — one full attention head (scores, scale, softmax, weighted
# sum) at n = 2048, d_k = 64, float64: attnviz's C fast path against numpy, in
# the same run, on the same inputs. Prints both times and the ratio C/numpy;
# the target (issue 7) is C within 2x of numpy.
#
# Usage: bench/numpy_compare.sh [N [D [REPS]]]       (defaults 2048 64 10)
#   BUILD_DIR=…   where to build (default build-bench, Release with -O2)
#   PYTHON=…      the interpreter (default Debian's /usr/bin/python3 + python3-numpy)
#
# numpy runs twice: with the environment as it is, and with OPENBLAS_CORETYPE
# and OPENBLAS_L2_SIZE unset (this workplace sets them on some processors for
# old OpenBLAS builds; they slow a current one). Each run says which BLAS numpy
# called. C runs on one thread; an OpenBLAS numpy may use every core.
set -euo pipefail
. "$(dirname "$0")/common.sh"
n=${1:-2048} d=${2:-64} reps=${3:-10}
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench_build attn_bench_head
echo "== one head, n = $n, d = $d, float64, best of $reps runs after a warm-up"
bench_machine
"$build/bench/attn_bench_head" "$n" "$d" "$reps" "$work/z_c.bin" | tee "$work/c.txt"
c_ms=$(sed -n 's/^c: .*fast_best_ms=\([0-9.]*\).*/\1/p' "$work/c.txt")

run_numpy() { # label, then the env command prefix
    local label=$1; shift
    "$@" "$python" "$root/bench/numpy_head.py" "$n" "$d" "$reps" "$work/z_c.bin" > "$work/np.txt"
    sed -n '1,2p' "$work/np.txt"
    local np_ms blas
    np_ms=$(sed -n 's/^numpy: .*best_ms=\([0-9.]*\).*/\1/p' "$work/np.txt")
    blas=$(sed -n 's/^numpy: .*blas=\([^ ]*\).*/\1/p' "$work/np.txt")
    awk -v c="$c_ms" -v p="$np_ms" -v l="$label" -v b="$blas" 'BEGIN {
        r = c / p
        printf "ratio C/numpy (%s): %.3f  (C %.2f ms, numpy %.2f ms, %s) -> %s\n", l, r, c, p, b,
               r <= 2 ? "within the 2x target" : "OUTSIDE the 2x target"
        printf "bench: case=%s c_ms=%.3f numpy_ms=%.3f ratio=%.3f blas=%s\n", l, c, p, r, b
    }'
}

echo "-- numpy with the environment as it is"
run_numpy env-as-is env
echo "-- numpy with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset"
run_numpy openblas-vars-unset env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE
