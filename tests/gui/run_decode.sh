#!/usr/bin/env bash
# run_decode.sh ATTNVIZ — issue 24 part 1: the decode view (F5) in the real
# window under Xvfb, driven through the real key path (F5, , and . for the
# token, J and Shift+J for the kv-heads, V for the next head, Esc), its cache
# length, cells, multiply-adds, bytes and the shown head's z row compared with
# a headless `--decode --kv-heads G --dump-json` of the same sentence and
# settings, digit for digit. Then O through the schemes to RoPE, and step 2b's
# q_rot and k_rot (copied with Ctrl+C) against a headless `--pos rope` dump.
set -u
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run is missing (Debian package xvfb)"; exit 1; }
export HOME=$out/home XDG_CONFIG_HOME=$out/home/config
mkdir -p "$HOME"
sentence="The animal didn't cross the street because it was too tired."
for g in 4 2 1; do
    "$bin" --headless --sentence "$sentence" --mask causal --heads 4 --kv-heads $g --decode \
        --dump-json "$out/g$g.json" >/dev/null || { echo "FAIL: the headless dump with --kv-heads $g failed"; exit 1; }
done
"$bin" --headless --sentence "$sentence" --mask causal --heads 4 --pos rope --dump-json "$out/rope.json" ||
    { echo "FAIL: the headless dump with --pos rope failed"; exit 1; }
/usr/bin/python3 - "$out" >"$out/decode.script" <<'PY' || { echo "FAIL: could not write the script"; exit 1; }
import json, sys
out = sys.argv[1]
def load(g):  # the numbers as attnviz wrote them, not as Python would
    with open(f"{out}/g{g}.json") as f:
        return json.load(f, parse_float=str, parse_int=str)
def state(d, head, t):
    rec, n = d["decode"], len(d["tokens"])
    h = d["heads"][head]["decode"]
    cells = h["cells"][t]
    return (f"token={t + 1}/{n} cache={h['cache_len'][t]} cells={cells} read={int(cells) - 1} "
            f"kv_heads={rec['kv_heads']} kv_head={h['kv_head']}")
def values(d, head, t):
    r = d["decode"]
    z = ",".join(d["heads"][head]["Z_decode"][t])
    return (f"macs={r['macs'][t]} total={r['macs_total'][t]} full={r['full_macs'][t]} "
            f"full_total={r['full_total'][t]} bytes={r['cache_bytes'][t]} real={r['real_bytes'][t]} z={z}")
g4, g2, g1 = load(4), load(2), load(1)
n = len(g4["tokens"])
lines = ["size 1280 800", "expect decode off", "key F5"]
lines += ["key ,"] * n  # to the first token whatever the query was
def check(d, head, t):
    lines.append(f"expect decode {state(d, head, t)}")
    lines.append(f"expect decode_values {values(d, head, t)}")
check(g4, 0, 0)
for t in range(1, 5):
    lines.append("key .")
    check(g4, 0, t)
lines.append("key j")  # 4 -> 2 kv-heads: the cache halves, the token stays
check(g2, 0, 4)
lines += ["key .", "key .", "key v", "expect head 1"]
check(g2, 1, 6)
lines += ["key v", "expect head 2"]
check(g2, 2, 6)
lines.append("key j")  # 2 -> 1: multi-query
check(g1, 2, 6)
lines += ["key ."] * (n + 2)  # past the end: stays on the last token
check(g1, 2, n - 1)
lines += ["key ,"]
check(g1, 2, n - 2)
lines += ["key shift+j", "key shift+j"]  # back to 4 kv-heads
check(g4, 2, n - 2)
lines += ["key Escape", "expect decode off"]
# the rail's View control: ‹ from the steps opens decoding, › from it the steps again, › the tiles view
lines += ["click control view -1", f"expect decode {state(g4, 2, n - 2)}", "click control view 1", "expect decode off",
          "expect tiles off", "click control view 1", "expect tiles_contains B=4 step=1/", "key Escape",
          "expect tiles off"]
# RoPE: O cycles none -> sinusoidal -> RoPE; step 2b (→ from 2) shows q_rot, k_rot
lines += ["expect pos none", "key o", "expect pos sinusoidal", "key o", "expect pos rope", "key 2", "key PageDown",
          "expect step 2b", "expect head 2"]
for head in (2, 3, 0, 1):  # V: the next head, wrapping
    if head != 2:
        lines += ["key v", f"expect head {head}"]
    for key in ("q_rot", "k_rot"):  # Ctrl+C copies the hovered matrix
        lines += [f"hover cell {key} {head} 0 0", "key ctrl+c", f"save clipboard {out}/rope.h{head}.{key}.tsv"]
lines.append("quit")
print("\n".join(lines))
PY
if ! LANG=C.UTF-8 xvfb-run -a "$bin" --sentence "$sentence" --mask causal --heads 4 --script "$out/decode.script"; then
    echo "FAIL: the scripted session differs from the headless dumps (script: $(wc -l <"$out/decode.script") lines)"
    exit 1
fi
/usr/bin/python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
d = json.load(open(f"{out}/rope.json"), parse_float=str, parse_int=str)
checked = 0
for head in range(4):
    for key in ("q_rot", "k_rot"):
        rows = [r.split("\t") for r in open(f"{out}/rope.h{head}.{key}.tsv", encoding="utf-8").read().rstrip("\n").split("\n")]
        want = d["heads"][head][key]
        if rows[0][0] != f"{key} (head {head + 1})" or [r[1:] for r in rows[1:]] != want:
            print(f"FAIL: head {head} {key} on screen differs from --pos rope --dump-json:\n got {rows}\nwant {want}")
            sys.exit(1)
        checked += sum(len(r) for r in want)
print(f"ok: step 2b's q_rot and k_rot equal --pos rope --dump-json ({checked} numbers)")
PY
echo "ok: the decode view's cache, cells, costs and z equal --decode --dump-json at $(grep -c '^expect decode_values' "$out/decode.script") tokens"
