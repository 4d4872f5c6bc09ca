#!/usr/bin/env bash
# Installs what is missing, builds attnviz and runs every test:
#   1. the whole CTest suite in a normal build (RelWithDebInfo), with the
#      browser tests' playwright-core installed first (npm ci, tests/browser);
#   2. every .tex an export writes compiled with xelatex, and pandoc on both
#      lessons' Markdown handouts (DOCX, and PDF with xelatex) — once per run,
#      not in the sanitizer build; the browser build (scripts/build-web.sh;
#      the first time also its libraries, about 15 minutes, cached in
#      ~/.cache/attnviz-web) driven in chromium (scripts/test-web.sh);
#      valgrind memcheck on a headless export;
#   3. the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer;
#   4. every libFuzzer harness for FUZZ_SECONDS (default 30) each.
# Usage: scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
start=$(date +%s)
"$root/scripts/install-deps.sh" --test
stamp() { echo "== [$(( $(date +%s) - start )) s] $*"; }
# ctest, where a skipped test fails the run: a skip is never counted as a pass here
ctest_all() {
    local log
    log=$(mktemp)
    ctest "$@" 2>&1 | tee "$log"
    if grep -q "The following tests did not run" "$log"; then
        rm -f "$log"
        echo "test.sh: a test was skipped (above); every test must run here" >&2
        return 1
    fi
    rm -f "$log"
}

stamp "npm ci: playwright-core for the browser tests (no browser is downloaded: Debian's chromium is used)"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$root/tests/browser" --no-audit --no-fund
npm ci --prefix "$root/tests/tokenizers" --no-audit --no-fund # GPT-2's vocabulary and two reference tokenizers

stamp "build and test (RelWithDebInfo)"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$jobs"
ctest_all --test-dir "$root/build" --output-on-failure -j"$jobs"

stamp "Release build of attnviz (what scripts/run.sh builds: -O3 warns about what -O2 does not)"
cmake -S "$root" -B "$root/build-release" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build-release" -j"$jobs" --target attnviz
"$root/build-release/attnviz" --headless --print weights >/dev/null

stamp "LaTeX: every .tex of the lessons, the seed sentence, a model and the decode view compiles (xelatex)"
bash "$root/tests/export/compile_tex.sh" --self-test "$root/build/attnviz"
COMPILE_TEX_JOBS=$jobs bash "$root/tests/export/compile_tex.sh" "$root/build/attnviz"

stamp "pandoc: the lessons' Markdown handouts to DOCX and, with xelatex, to PDF"
bash "$root/tests/export/run_pandoc_handouts.sh" "$root/build/attnviz" "$root/lessons"

stamp "the browser build (libraries from Debian's sources, cached outside the clone) and its tests in chromium"
bash "$root/scripts/build-web.sh"
bash "$root/scripts/test-web.sh" --no-build

stamp "valgrind memcheck: headless export of the English lesson"
bash "$root/tests/valgrind/run_valgrind_export.sh" "$root/build/attnviz" "$root/lessons/en/self-attention.lesson"

stamp "build and test under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DATTNVIZ_SANITIZE=ON >/dev/null
cmake --build "$root/build-asan" -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions="$root/tests/sanitizers/lsan.supp" \
    ctest_all --test-dir "$root/build-asan" --output-on-failure -j"$jobs"

stamp "fuzzing every harness for ${FUZZ_SECONDS:-30} s"
FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash "$root/scripts/fuzz.sh"
stamp "all tests passed"
