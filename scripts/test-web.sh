#!/usr/bin/env bash
# test-web.sh — builds the browser site (scripts/build-web.sh; the first
# time also the libraries, about 15 minutes) and the native binary, then
# drives the site in Debian's chromium (tests/browser/web_app.test.mjs).
# scripts/test.sh runs it once per CI run (with --no-build, after build-web.sh).
# Usage: scripts/test-web.sh [--no-build]   screenshots: build-web/screenshots/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" != "--no-build" ]; then
    "$root/scripts/build-web.sh"
    cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$root/build" -j"$(nproc)" --target attnviz
fi
[ -d "$root/tests/browser/node_modules/playwright-core" ] || npm ci --prefix "$root/tests/browser" --no-audit --no-fund
cd "$root/tests/browser"
ATTNVIZ="$root/build/attnviz" ATTNVIZ_SITE="$root/build-web/site" ATTNVIZ_ROOT="$root" \
    ATTNVIZ_SHOTS="$root/build-web/screenshots" \
    exec node --test --test-concurrency=1 --test-reporter=spec web_app.test.mjs
