#!/usr/bin/python3
"""view_scripts.py WHAT OUT — for run_view.sh: the --script sessions that drive
the decode view (F5) and the tiles view (F4), written from the headless dumps
in OUT, and the check run after the decode session.

  decode             the decode view token by token, kv-heads 4 → 2 → 1 → 4,
                     the View control, then O to RoPE's step 2b (Ctrl+C of
                     q_rot and k_rot per head into OUT/rope.h<head>.<key>.tsv)
  decode-rope-check  those copies against OUT/rope.json
  tiles              the tiles view step by step at B = 4, then B = 3, head 2
  tiles-open         --tiles 3 opens the view at B = 3

Numbers are compared as attnviz wrote them (parse_float=str), not as Python
would print them.
"""

import json
import sys


def load(out, name):
    """OUT/NAME.json with every number as the text attnviz wrote."""
    with open(f"{out}/{name}.json", encoding="utf-8") as f:
        return json.load(f, parse_float=str, parse_int=str)


def checker(lines, view, state, values):
    """check(d, head, at): the two expect lines of the view at head and at
    (a token, a step), from dump d: its state and its values."""
    def check(d, head, at):
        lines.append(f"expect {view} {state(d, head, at)}")
        lines.append(f"expect {view}_values {values(d, head, at)}")
    return check


def decode_script(out):
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

    g4, g2, g1 = load(out, "g4"), load(out, "g2"), load(out, "g1")
    n = len(g4["tokens"])
    lines = ["size 1280 800", "expect decode off", "key F5"]
    lines += ["key ,"] * n  # to the first token whatever the query was
    check = checker(lines, "decode", state, values)
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
    lines += ["click control view -1", f"expect decode {state(g4, 2, n - 2)}", "click control view 1",
              "expect decode off", "expect tiles off", "click control view 1", "expect tiles_contains B=4 step=1/",
              "key Escape", "expect tiles off"]
    # RoPE: O cycles none -> sinusoidal -> RoPE; step 2b (→ from 2) shows q_rot, k_rot
    lines += ["expect pos none", "key o", "expect pos sinusoidal", "key o", "expect pos rope", "key 2",
              "key PageDown", "expect step 2b", "expect head 2"]
    for head in (2, 3, 0, 1):  # V: the next head, wrapping
        if head != 2:
            lines += ["key v", f"expect head {head}"]
        for key in ("q_rot", "k_rot"):  # Ctrl+C copies the hovered matrix
            lines += [f"hover cell {key} {head} 0 0", "key ctrl+c", f"save clipboard {out}/rope.h{head}.{key}.tsv"]
    lines.append("quit")
    return lines


def decode_rope_check(out):
    d = load(out, "rope")
    checked = 0
    for head in range(4):
        for key in ("q_rot", "k_rot"):
            with open(f"{out}/rope.h{head}.{key}.tsv", encoding="utf-8") as f:
                rows = [r.split("\t") for r in f.read().rstrip("\n").split("\n")]
            want = d["heads"][head][key]
            if rows[0][0] != f"{key} (head {head + 1})" or [r[1:] for r in rows[1:]] != want:
                print(f"FAIL: head {head} {key} on screen differs from --pos rope --dump-json:\n got {rows}\nwant {want}")
                sys.exit(1)
            checked += sum(len(r) for r in want)
    print(f"ok: step 2b's q_rot and k_rot equal --pos rope --dump-json ({checked} numbers)")
    return None


def tiles_script(out):
    def values(d, head, step):
        s = d["heads"][head]["tiles"]["steps"][step]
        txt = lambda v: "null" if v is None else v
        return "m=" + ",".join(map(txt, s["m"])) + " l=" + ",".join(map(txt, s["l"]))

    def state(d, head, step):
        t = d["heads"][head]["tiles"]
        return f"B={t['B']} step={step + 1}/{len(t['steps'])} skipped={int(t['steps'][step]['skipped'])}"

    b4, b3 = load(out, "b4"), load(out, "b3")
    lines = ["size 1280 800", "expect tiles off", "key F4"]
    check = checker(lines, "tiles", state, values)
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
    return lines


def tiles_open_script(out):  # the first step of head 1 at B = 3
    t = load(out, "b3")["heads"][0]["tiles"]
    return ["size 1280 800", f"expect tiles B=3 step=1/{len(t['steps'])} skipped={int(t['steps'][0]['skipped'])}",
            "quit"]


WHAT = {"decode": decode_script, "decode-rope-check": decode_rope_check, "tiles": tiles_script,
        "tiles-open": tiles_open_script}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in WHAT:
        sys.exit("usage: view_scripts.py " + "|".join(WHAT) + " OUT")
    lines = WHAT[sys.argv[1]](sys.argv[2])
    if lines is not None:
        print("\n".join(lines))
