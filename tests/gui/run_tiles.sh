#!/usr/bin/env bash
# run_tiles.sh ATTNVIZ — issue 24 part 4: the tiles view (F4) in the real
# window under Xvfb, driven through the real key path (F4, → End −, V for the
# next head, Esc), its m and l at each step shown compared with a headless
# `--tiles B --dump-json` of the same sentence and settings, digit for digit.
set -u
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run is missing (Debian package xvfb)"; exit 1; }
export HOME=$out/home XDG_CONFIG_HOME=$out/home/config
mkdir -p "$HOME"
sentence="The animal didn't cross the street because it was too tired."
for b in 4 3; do
    "$bin" --headless --sentence "$sentence" --mask causal --tiles $b --dump-json "$out/b$b.json" ||
        { echo "FAIL: the headless dump with --tiles $b failed"; exit 1; }
done
/usr/bin/python3 - "$out" >"$out/tiles.script" <<'PY' || { echo "FAIL: could not write the script"; exit 1; }
import json, sys
out = sys.argv[1]
def load(b):  # the numbers as attnviz wrote them, not as Python would
    with open(f"{out}/b{b}.json") as f:
        return json.load(f, parse_float=str, parse_int=str)
def values(d, head, step):
    s = d["heads"][head]["tiles"]["steps"][step]
    txt = lambda v: "null" if v is None else v
    return "m=" + ",".join(map(txt, s["m"])) + " l=" + ",".join(map(txt, s["l"]))
def state(d, head, step):
    t = d["heads"][head]["tiles"]
    return f"B={t['B']} step={step + 1}/{len(t['steps'])} skipped={int(t['steps'][step]['skipped'])}"
b4, b3 = load(4), load(3)
lines = ["size 1280 800", "expect tiles off", "key F4"]
def check(d, head, step):
    lines.append(f"expect tiles {state(d, head, step)}")
    lines.append(f"expect tiles_values {values(d, head, step)}")
check(b4, 0, 0)
for k in range(1, 7):
    lines.append("key Right")
    check(b4, 0, k)
lines.append("key End")
check(b4, 0, len(b4["heads"][0]["tiles"]["steps"]) - 1)
lines.append("key -")  # B 4 -> 3, back to the first step
check(b3, 0, 0)
lines += ["key Right", "key Right"]
check(b3, 0, 2)
lines.append("key v")  # the next head: the view follows it (back to its step 3)
lines.append("expect head 1")
check(b3, 1, 2)
lines += ["key Escape", "expect tiles off", "quit"]
print("\n".join(lines))
PY
if ! LANG=C.UTF-8 xvfb-run -a "$bin" --sentence "$sentence" --mask causal --script "$out/tiles.script"; then
    echo "FAIL: the scripted session differs from the headless dumps (script: $(wc -l <"$out/tiles.script") lines)"
    exit 1
fi
# --tiles B in the window opens the view at B (it was ignored): the first step of head 1 at B = 3
/usr/bin/python3 - "$out" >"$out/open.script" <<'PY' || { echo "FAIL: could not write the script"; exit 1; }
import json, sys
with open(f"{sys.argv[1]}/b3.json") as f:
    t = json.load(f, parse_float=str, parse_int=str)["heads"][0]["tiles"]
print(f"size 1280 800\nexpect tiles B=3 step=1/{len(t['steps'])} skipped={int(t['steps'][0]['skipped'])}\nquit")
PY
if ! LANG=C.UTF-8 xvfb-run -a "$bin" --sentence "$sentence" --mask causal --tiles 3 --script "$out/open.script"; then
    echo "FAIL: --tiles 3 did not open the tiles view at B = 3"
    exit 1
fi
echo "ok: the tiles view's m and l equal --tiles --dump-json at $(grep -c '^expect tiles_values' "$out/tiles.script") steps"
