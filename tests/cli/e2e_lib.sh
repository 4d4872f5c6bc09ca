# e2e_lib.sh — sourced by the end-to-end scripts: a temporary folder, the
# pass/fail counters and expect. The script sets bin (the attnviz binary) first.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE PATTERN -- args...: the exit code and a pattern in stdout+stderr
expect() {
    local code=$1 pattern=$2
    shift 3
    local out rc
    out=$("$bin" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then bad "attnviz $* exited $rc, expected $code: $out"; return; fi
    if ! grep -qF -- "$pattern" <<<"$out"; then bad "attnviz $* did not print '$pattern': $out"; return; fi
    ok
}

# The summary line, and the exit status: 0 when nothing failed.
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
