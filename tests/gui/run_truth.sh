#!/usr/bin/env bash
# run_truth.sh BIN LESSONS — every page of the shipped lessons (self-attention
# and modern-attention, zh and en), touched as a teacher
# would, in the real window under Xvfb; every copied matrix and every badge
# compared with a headless run of the copied command line (tests/gui/truth.py).
set -u
bin=$1 lessons=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/config
status=0
for name in self-attention modern-attention; do for lang in zh en; do
    lesson=$lessons/$lang/$name.lesson out=$tmp/$name-$lang
    mkdir -p "$out"
    /usr/bin/python3 "$here/truth.py" script "$lesson" "$out" >"$tmp/$name-$lang.script"
    if ! LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --lesson "$lesson" --size 1280x800 \
        --script "$tmp/$name-$lang.script"; then
        echo "FAIL: the $name $lang session did not finish"; status=1; continue
    fi
    /usr/bin/python3 "$here/truth.py" check "$lesson" "$out" "$bin" || status=1
done; done
exit $status
