#!/usr/bin/env bash
# run_tries.sh BIN LESSONS — every @try suggestion of both lessons, clicked in
# the real window under Xvfb; the narrative after each checked against the
# figure's numbers (tests/gui/tries.py).
set -u
bin=$1 lessons=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TRIES:-}" ] || rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/config
status=0
for lang in zh en; do
    lesson=$lessons/$lang/self-attention.lesson out=$tmp/$lang
    mkdir -p "$out"
    /usr/bin/python3 "$here/tries.py" script "$lesson" "$out" >"$tmp/$lang.script"
    if ! LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --lesson "$lesson" --size 1280x800 \
        --script "$tmp/$lang.script"; then
        echo "FAIL: the $lang session did not finish"; status=1; continue
    fi
    /usr/bin/python3 "$here/tries.py" check "$lesson" "$out" || status=1
done
exit $status
