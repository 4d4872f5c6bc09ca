#!/usr/bin/env bash
# The --format html pages in a real browser: Debian's chromium (headless),
# driven by playwright-core from tests/browser/node_modules (scripts/test.sh
# runs `npm ci` there; nothing downloads a browser).
# Usage: run_browser_tests.sh ATTNVIZ
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
missing=""
command -v node >/dev/null || missing="node (Node.js >= 20)"
[ -x "${ATTNVIZ_CHROMIUM:-/usr/bin/chromium}" ] || missing="$missing chromium (scripts/install-deps.sh --test)"
[ -d "$here/node_modules/playwright-core" ] || missing="$missing playwright-core (npm ci --prefix tests/browser)"
if [ -n "$missing" ]; then
    echo "browser tests need:$missing"
    # a developer without them is told so; CI, where scripts/test.sh installs them, fails
    if [ "${CI:-}" = "true" ]; then exit 1; fi
    exit 77
fi
cd "$here"
ATTNVIZ="$bin" exec node --test --test-concurrency=1 --test-reporter=spec html.test.mjs
