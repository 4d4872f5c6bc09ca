#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) in build-fuzz/ and runs
# each for FUZZ_SECONDS (default 30). A crash, leak, timeout or out-of-memory
# input is copied to tests/fuzz/crashes/<harness>/, where the normal test
# suite replays it from then on, and the script fails.
#
# Usage: scripts/fuzz.sh [HARNESS...]       (default: every harness)
#   FUZZ_SECONDS=600 scripts/fuzz.sh weights_json   fuzz one harness longer
#   CC=clang-14 scripts/fuzz.sh                     pick the compiler
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build-fuzz
seconds=${FUZZ_SECONDS:-30}
all=(tokenize weights_json cli_args lesson script model_file safetensors hf_tokenizers)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")

# the largest input each harness needs: a sentence is at most 64 KiB, but
# shorter inputs mutate faster; argument lists and weights files stay small;
# 8 KiB holds a lesson's head, its vocabulary, a few matrices and pages
max_len() {
    case $1 in
    tokenize) echo 4096 ;;
    weights_json) echo 16384 ;;
    model_file) echo 16384 ;;
    safetensors) echo 4096 ;;
    hf_tokenizers) echo 4096 ;;
    cli_args) echo 1024 ;;
    lesson) echo 8192 ;;
    script) echo 4096 ;;
    *) echo 4096 ;;
    esac
}

cc=${CC:-}
if [ -z "$cc" ]; then
    for c in clang clang-14; do command -v "$c" >/dev/null && { cc=$c; break; }; done
fi
[ -n "$cc" ] || { echo "fuzz.sh: clang not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -Wall -Wextra -Werror
       -I"$root/src/util" -I"$root/src/core" -I"$root/src/model" -I"$root/src/hf" -I"$root/src/lesson" -I"$root/src/page" -I"$root/src/cli" -I"$root/src/render" -I"$root/src/app" -I"$root/tests/fuzz")
mkdir -p "$out/obj"

echo "== building the library with $cc"
objs=()
# of src/app only the script parser, of src/render only the strings table (the
# command line words the head finder with it): pure C, and the fuzz build links no SDL
for src in "$root"/src/util/*.c "$root"/src/core/*.c "$root"/src/model/*.c "$root"/src/hf/*.c "$root"/src/lesson/*.c "$root"/src/page/*.c "$root"/src/cli/*.c "$root"/src/render/viz_strings.c "$root"/src/app/app_script.c; do
    obj=$out/obj/$(basename "$(dirname "$src")")_$(basename "${src%.c}").o
    # fuzzer-no-link: coverage instrumentation without a second main()
    if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ "$0" -nt "$obj" ] ||
       [ -n "$(find "$root/src/util" "$root/src/core" "$root/src/model" "$root/src/hf" "$root/src/lesson" "$root/src/page" "$root/src/cli" "$root/src/render" "$root/src/app/app_script.h" -name '*.h' -newer "$obj" -print -quit)" ]; then
        "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
    fi
    objs+=("$obj")
done

status=0
for h in "${harnesses[@]}"; do
    harness_src=$root/tests/fuzz/fuzz_$h.c
    [ -e "$harness_src" ] || { echo "fuzz.sh: no harness $harness_src" >&2; exit 1; }
    bin=$out/fuzz_$h
    "$cc" "${flags[@]}" -fsanitize=fuzzer "$harness_src" "${objs[@]}" -lcjson -lm -o "$bin"

    work=$out/corpus/$h           # grows across runs; the seeds in git stay small
    artifacts=$out/artifacts/$h/
    rm -rf "$artifacts"
    mkdir -p "$work" "$artifacts"
    dict=()
    [ -e "$root/tests/fuzz/$h.dict" ] && dict=(-dict="$root/tests/fuzz/$h.dict")
    echo "== fuzzing $h for ${seconds}s"
    log=$out/fuzz_$h.log
    set +e
    # the seed corpus comes second: libFuzzer writes new inputs only to the first
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$bin" "$work" "$root/tests/fuzz/corpus/$h" "${dict[@]}" \
        -max_total_time="$seconds" -max_len="$(max_len "$h")" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "   $h: ${execs:-?} executions, ${cov:-cov: ?}, exit $rc (log: $log)"
    found=$(find "$artifacts" -type f | sort)
    if [ $rc -ne 0 ] || [ -n "$found" ]; then
        status=1
        mkdir -p "$root/tests/fuzz/crashes/$h"
        for f in $found; do
            cp "$f" "$root/tests/fuzz/crashes/$h/"
            echo "   FOUND: tests/fuzz/crashes/$h/$(basename "$f")"
        done
        grep -m1 -A15 -E 'ERROR: |runtime error|invariant failed' "$log" || tail -20 "$log"
    fi
done
[ $status -eq 0 ] && echo "== fuzzing found nothing" || echo "== fuzzing found problems (see above)"
exit $status
