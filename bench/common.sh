# common.sh — sourced by the scripts in bench/: one Release build for all of
# them, the packages they need, and a line naming the machine.
#   bench_build TARGET...   installs what is missing, configures $build (Release, -O2), builds the targets
#   bench_machine           prints the processor and the number of cores
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}

bench_build() {
    "$root/scripts/install-deps.sh" --bench
    echo "== building $* (Release, -O2) in $build"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
          -DATTNVIZ_TESTS=OFF >/dev/null
    local t
    for t in "$@"; do cmake --build "$build" --target "$t" -j"$(nproc)" >/dev/null; done
}

bench_machine() {
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
}
