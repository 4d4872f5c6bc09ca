#!/usr/bin/env bash
# run_train.sh ATTNVIZ — the training view (F3) in the real window under Xvfb,
# driven by train.script through the real event path, compared with headless
# runs: the saved models byte for byte with `attnviz --train … --save` (a run
# left alone, one paused and stepped with '.', a snapshot and a paused one
# with --train-steps), the probe's attention in every layer and head with
# `attnviz --headless --model SAVED --sentence PROBE --dump-json -`, the
# held-out accuracy with --train's, and the heatmaps' refresh rate (>= 10/s);
# Walk through puts the model shown into the walkthrough (the badge says which).
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run is missing (Debian package xvfb)"; exit 1; }
export HOME=$out/home XDG_CONFIG_HOME=$out/home/config XDG_DATA_HOME=$out/data
mkdir -p "$HOME"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# the headless references
"$bin" --train referent-zh --save "$out/ref-300.json" >"$out/train.txt" || bad "--train failed: $(cat "$out/train.txt")"
"$bin" --train referent-zh --train-steps 5 --save "$out/ref-5.json" >/dev/null || bad "--train-steps 5 failed"
"$bin" --train referent-zh --train-steps 3 --save "$out/ref-3.json" >/dev/null || bad "--train-steps 3 failed"
heldout=$(sed -n 's/^held-out accuracy: \([0-9.]*%\).*/\1/p' "$out/train.txt")
[ -n "$heldout" ] || bad "no held-out accuracy in: $(cat "$out/train.txt")"
sed -e "s|@OUT@|$out|g" -e "s|@DATA@|$out/data|g" -e "s|@HELDOUT@|$heldout|g" "$here/train.script" >"$out/train.script"
if ! LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --sentence "这只动物没看见那只鸟，因为它飞得太快了。" --size 1280x800 \
    --script "$out/train.script"; then
    bad "the scripted session failed"
fi
models=$out/data/attnviz/models
same() { # FILE REF what
    if [ ! -s "$1" ]; then bad "$3: $1 was not saved"; elif ! cmp -s "$1" "$2"; then bad "$3: $1 differs from $2"; fi
}
same "$models/referent-zh-seed1-300steps.json" "$out/ref-300.json" "trained in the window"
same "$models/referent-zh-seed1-300steps-2.json" "$out/ref-300.json" "saved again"
same "$models/referent-zh-seed1-300steps-3.json" "$out/ref-300.json" "paused, stepped with '.', resumed"
same "$models/referent-zh-seed1-5steps.json" "$out/ref-5.json" "the snapshot at step 5"
same "$models/referent-zh-seed1-3steps.json" "$out/ref-3.json" "paused at step 3"
# the held-out accuracy to the last digit, as the file records it
want=$(/usr/bin/python3 -c 'import json,sys; print(repr(float(json.load(open(sys.argv[1]))["training"]["heldout_accuracy"])))' "$out/ref-300.json")
got=$(/usr/bin/python3 -c 'import sys; print(repr(float(open(sys.argv[1]).read())))' "$out/heldout_exact" 2>/dev/null)
[ "$got" = "$want" ] || bad "held-out accuracy in the window $got, --train's $want"
# the heatmaps against headless dumps of the saved models
check() { # WEIGHTS MODEL PROBE
    "$bin" --headless --model "$2" --sentence "$3" --dump-json "$out/dump.json" || { bad "--model $2 failed"; return; }
    /usr/bin/python3 "$here/train_check.py" "$1" "$out/dump.json" || bad "$1 differs from the headless dump of $2"
}
check "$out/weights-final.json" "$out/ref-300.json" "$(cat "$out/probe-final")"
check "$out/weights-tired.json" "$out/ref-300.json" "$(cat "$out/probe-tired")"
check "$out/weights-snap5.json" "$out/ref-5.json" "$(cat "$out/probe-final")"
# at least 10 heatmap updates a second while training
rate=$(cat "$out/update_rate" 2>/dev/null || echo 0)
awk -v r="$rate" 'BEGIN { exit !(r >= 10) }' || bad "the heatmaps were redrawn $rate times a second while training (at least 10)"
echo "heatmap updates per second while training: $rate; the evaluations cost (against the steps' time): $(cat "$out/eval_share" 2>/dev/null)"
[ ! -e "$HOME/.local/share/attnviz" ] || bad "a model was saved outside XDG_DATA_HOME"
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
