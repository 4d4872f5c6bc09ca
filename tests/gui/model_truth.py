#!/usr/bin/python3
"""A trained model in the real window is true: drops each shipped model on the
window, types the lessons' sentences, walks every layer's steps, the backward
views and the readout with the keys a learner uses, copies each matrix shown
(Ctrl+C) and the command line that reproduces the view (Ctrl+Shift+C), then
runs that command headless and checks every copied number against its
--dump-json; checks that the strongest weight from the pronoun in the last
layer lands where the task says (鸟 / 动物, street / animal), that the badge
names the file, and that a hovered gradient cell's value is its matrix's and
equals A·(dA − Σ A·dA) recomputed here from the dump.

Usage: model_truth.py script MODELS OUT   > the script
       model_truth.py check  MODELS OUT BIN
"""
import json
import math
import os
import re
import shlex
import subprocess
import sys

# (model, sentence, the pronoun's row or None, the key the last layer's strongest weight from it must be on)
CASES = [
    ("referent-zh", "这只动物没看见那只鸟，因为它飞得太快了。", 10, "鸟"),
    ("referent-zh", "这只动物没看见那只鸟，因为它太累了。", 10, "动物"),
    ("referent-en", "The animal didn't cross the street because it was too tired.", 7, "animal"),
    ("referent-en", "The animal didn't cross the street because it was too wide.", 7, "street"),
    ("reverse", "3 1 4 1 5 9 2 6", None, None),
    ("sort", "5 3 8 1 7 2 6 4", None, None),
    ("induction", None, None, None),  # the model's own probe
]
STEPS = [1, 2, 3, 6, 7, 8]
BACKWARD_STEPS = [6, 4, 5]  # ends on a step that shows ∂L/∂T, whose cell is clicked
LAYERS = {"referent-zh": 2, "referent-en": 2, "reverse": 1, "sort": 1, "induction": 2}
CORE = {"x": "X", "q": "Q", "k": "K", "v": "V", "scores": "scores", "scaled": "scaled", "masked": "masked",
        "weights": "weights", "z": "Z", "concat": "concat", "output": "output", "residual": "residual"}


def script(models, out):
    lines = ["size 1280 800"]
    for c, (name, sentence, pronoun, _) in enumerate(CASES):
        path = f"{models}/{name}.json"
        tag = f"{out}/{c}"
        lines += [f"drop {path}", f"expect model {name}", f"expect badge from {name}.json", "expect weights model"]
        if sentence:
            lines += ["key e", "key ctrl+a", f"type {sentence}", "key Return", f"expect sentence {sentence}"]
        if pronoun is not None:
            lines.append(f"click token {pronoun}")
        lines += ["key ["] * 4  # the first layer
        for layer in range(1, LAYERS[name] + 1):
            lines.append(f"expect layer {layer}")
            for step in STEPS:
                lines += [f"key {step}", "key ctrl+c", f"save clipboard {tag}.L{layer}.{step}.tsv"]
            lines += ["hover cell residual 0 0 0", "key ctrl+c", f"save clipboard {tag}.L{layer}.res.tsv"]
            lines += ["key b", "expect backward 1"]
            for step in BACKWARD_STEPS:
                lines += [f"key {step}", "hover 1 1", "key ctrl+c", f"save clipboard {tag}.L{layer}.b{step}.tsv"]
            lines += ["click cell d_scaled 0 0 0", f"save explain_value {tag}.L{layer}.explain", "key b"]
            if layer == LAYERS[name] and pronoun is not None:
                lines += ["key 6", f"save strongest {tag}.strongest"]
            lines.append("key ]")
        lines += ["key 9", "expect readout 1", "hover 1 1", "key ctrl+c", f"save clipboard {tag}.readout.tsv",
                  f"save target {tag}.target", f"save badge {tag}.badge",
                  "key ctrl+shift+c", f"save clipboard {tag}.cmd", "key 1"]
    lines.append("quit")
    return "\n".join(lines) + "\n"


def read_tsv(path):
    rows = [r.split("\t") for r in open(path, encoding="utf-8").read().rstrip("\n").split("\n")]
    return rows[0][0], [[float("-inf") if v == "-inf" else float(v) for v in r[1:]] for r in rows[1:]]


def headless(bin_, cmd):
    argv = shlex.split(cmd)
    assert argv[0] == "attnviz" and argv[-2] == "--print", cmd
    run = subprocess.run([bin_] + argv[1:-2] + ["--dump-json", "-"], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"FAIL: {cmd}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def want_matrix(dump, what):
    """The dump's matrix the corner of a copied table names: "weights (layer 2, head 1)" …"""
    m = re.match(r"(\w+)(?: \(layer (\d+)(?:, head (\d+))?\))?", what)
    stage, layer, head = m.group(1), int(m.group(2) or 1) - 1, int(m.group(3) or 1) - 1
    if stage in ("probs", "logits", "avg"):
        return dump[stage]
    if stage in ("d_weights", "d_scaled"):
        return dump["grads"]["layers"][layer]["heads"][head][stage]
    lay = dump["layers"][layer]
    key = CORE[stage]
    return lay[key] if key in ("X", "concat", "output", "residual") else lay["heads"][head][key]


def same(got, want):
    want = [[float("-inf") if v is None else v for v in r] for r in want]
    return got == want


def check(models, out, bin_):
    bad = checked = 0
    for c, (name, sentence, pronoun, referent) in enumerate(CASES):
        tag = f"{out}/{c}"
        cmd = open(tag + ".cmd", encoding="utf-8").read().strip()
        dump = headless(bin_, cmd)
        files = sorted(f for f in os.listdir(out) if f.startswith(f"{c}.") and f.endswith(".tsv"))
        for f in files:
            what, got = read_tsv(f"{out}/{f}")
            checked += 1
            if not same(got, want_matrix(dump, what)):
                print(f"FAIL {name}: {f} ({what}) differs from `{cmd}`")
                bad += 1
        for layer in range(1, LAYERS[name] + 1):  # the hovered gradient cell, recomputed from the dump
            got = float(open(f"{tag}.L{layer}.explain").read())
            hd = dump["layers"][layer - 1]["heads"][0]
            g = dump["grads"]["layers"][layer - 1]["heads"][0]
            a, da = hd["weights"][0], g["d_weights"][0]
            dot = sum(x * y for x, y in zip(a, da))
            mine = a[0] * (da[0] - dot)
            checked += 1
            if got != g["d_scaled"][0][0] or not math.isclose(got, mine, rel_tol=1e-9, abs_tol=1e-15):
                print(f"FAIL {name} layer {layer}: d_scaled[0][0] shown {got}, dump {g['d_scaled'][0][0]}, "
                      f"A·(dA − Σ A·dA) = {mine}")
                bad += 1
        badge = open(f"{tag}.badge", encoding="utf-8").read()
        if not badge.endswith(f"{name}.json"):
            print(f"FAIL {name}: the badge says '{badge}'")
            bad += 1
        if referent:
            shown = open(f"{tag}.strongest", encoding="utf-8").read()
            last = dump["layers"][-1]["heads"][0]["weights"][pronoun]
            key = dump["tokens"][max(range(len(last)), key=lambda j: last[j])]
            checked += 1
            if shown != referent or key != referent:
                print(f"FAIL {name} '{sentence}': the strongest weight from the pronoun is on '{shown}' on "
                      f"screen and '{key}' headless, not on '{referent}'")
                bad += 1
            target = open(f"{tag}.target", encoding="utf-8").read()
            if target != f"{pronoun}:{referent} task":
                print(f"FAIL {name}: the backward pass's target is '{target}', not the task's {referent}")
                bad += 1
    print(f"models: {checked} matrices, gradient cells and flips checked, {bad} wrong")
    return bad == 0 and checked > 0


if __name__ == "__main__":
    if sys.argv[1] == "script":
        sys.stdout.write(script(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
