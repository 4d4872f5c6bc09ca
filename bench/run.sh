#!/usr/bin/env bash
# run.sh — every figure of the README's "Speed, measured", on this machine:
#   1. attnviz --bench (Release build): frame times, first frame, export, RSS; then again on a
#      4K projector's window in the presenter theme (--size 3840x2160 --theme presenter);
#   2. bench/numpy_compare.sh: one full head at n = 2048, d = 64, C against numpy;
#   3. bench/export_compare.sh: eight PNGs from attnviz against one matplotlib heatmap;
#   4. attnviz --complexity --max-n 1024: the fitted slopes of full, window and linear attention;
#   5. bench/train_compare.sh: training the referent-zh model, attnviz against PyTorch.
# Installs what is missing (scripts/install-deps.sh --bench) and builds in build-bench.
# Usage: bench/run.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"
export BUILD_DIR=$build
bench_build attnviz
bench_machine
echo "==== attnviz --bench"
"$build/attnviz" --bench
echo "==== attnviz --bench --size 3840x2160 --theme presenter"
"$build/attnviz" --bench --size 3840x2160 --theme presenter
echo "==== bench/numpy_compare.sh"
bash "$root/bench/numpy_compare.sh"
echo "==== bench/export_compare.sh"
bash "$root/bench/export_compare.sh"
echo "==== attnviz --complexity --max-n 1024"
"$build/attnviz" --complexity --max-n 1024
echo "==== bench/train_compare.sh"
bash "$root/bench/train_compare.sh"
