#!/usr/bin/env bash
# run_hf_truth.sh BIN DATA — each generated GPT-2 of DATA/hf opened in the real
# window under Xvfb (attnviz --hf), every layer and head walked, each copied
# matrix and hovered cell compared digit for digit with a headless
# --dump-json of the copied command line (tests/gui/hf_truth.py; issue 26).
set -u
bin=$1 data=$2/hf
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/config
mkdir -p "$tmp/out"
names=$(/usr/bin/python3 "$here/hf_truth.py" script "$data" "$tmp/out") || exit 1
c=0
for name in $names; do
    if ! LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --hf "$data/$name" --sentence "x" --lang en \
        --size 1280x800 --script "$tmp/out/$c.script"; then
        echo "FAIL: the session on $name did not finish"
        exit 1
    fi
    c=$((c + 1))
done
/usr/bin/python3 "$here/hf_truth.py" check "$data" "$tmp/out" "$bin"
