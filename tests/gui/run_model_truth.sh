#!/usr/bin/env bash
# run_model_truth.sh BIN MODELS — every shipped model dropped on the real
# window under Xvfb, every layer, backward view and readout copied and
# compared with a headless run of the copied command line, the flips of the
# lessons' sentences checked on screen (tests/gui/model_truth.py).
set -u
bin=$1 models=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/config
mkdir -p "$tmp/out"
/usr/bin/python3 "$here/model_truth.py" script "$models" "$tmp/out" >"$tmp/models.script"
if ! LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --size 1280x800 --script "$tmp/models.script"; then
    echo "FAIL: the session did not finish"
    exit 1
fi
/usr/bin/python3 "$here/model_truth.py" check "$models" "$tmp/out" "$bin"
