#!/usr/bin/env bash
# Installs what is missing, builds attnviz (Release) and runs it.
# Usage: scripts/run.sh [attnviz arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$(nproc)"
exec "$root/build/attnviz" "$@"
