#!/usr/bin/python3
"""A real model (--hf) in the real window is true (issue 26): opens each
generated GPT-2 of tests/data/hf in the window, types a sentence (computed on
the worker thread), walks every layer with [ and ] and every head with V,
copies each step's matrix (Ctrl+C) and the command line of the view
(Ctrl+Shift+C), hovers a cell of X, Q and A for their arithmetic, then runs
that command headless with --dump-json and checks every copied number digit
for digit, and each hovered value against the dump.

Usage: hf_truth.py script DATA OUT   > the script (one per case: CASE.script)
       hf_truth.py check  DATA OUT BIN
"""
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_truth import read_tsv, want_matrix, same  # noqa: E402  (one reading of a copied table)

# (folder, sentence, layers, heads)
CASES = [
    ("f32_prefix_tied", "the cat sat on the mat", 2, 2),
    ("bf16_prefix_eps", "a cat, a mat", 3, 2),
    ("wordpiece_12heads", "猫坐在垫子上，它累了。", 1, 12),
]
STEPS = [1, 2, 3, 6, 7, 8]


def script(data, out, case):
    name, sentence, layers, heads = CASES[case]
    tag = f"{out}/{case}"
    lines = ["size 1280 800", "key e", "key ctrl+a", f"type {sentence}", "key Return", f"expect sentence {sentence}",
             f"expect heads {heads}", "expect layer 1"]
    for layer in range(1, layers + 1):
        lines.append(f"expect layer {layer}")
        for head in range(heads):
            lines.append(f"expect head {head}")
            for step in STEPS if head == 0 else [2, 6, 7]:
                lines += [f"key {step}", "hover 1 1", "key ctrl+c", f"save clipboard {tag}.L{layer}.h{head}.{step}.tsv"]
            lines += ["key 6", f"hover cell weights {head} 1 0", f"save explain_value {tag}.L{layer}.h{head}.a"]
            lines += ["key 2", f"hover cell q {head} 1 0", f"save explain_value {tag}.L{layer}.h{head}.q"]
            lines.append("key v")
        lines += ["key 1", "hover cell x 0 1 1", f"save explain_value {tag}.L{layer}.x"]
        lines.append("key ]")
    # the settings are the model's: H and J say so and change nothing
    lines += ["key h", "expect status_contains settings are its own", f"expect heads {heads}", "key j",
              "expect status_contains settings are its own", f"expect heads {heads}"]
    # the model view (F6): open, hide the first token, close; then the readout and the command line
    lines += ["key F6", "expect models 1", "key z", f"expect text_drawn L{layers}", "key Escape", "expect models 0"]
    # … and a click there: the toggle, then the last head opened on step 6
    last = layers * heads - 1
    lines += ["key F6", "click control hf_hide", "expect text_drawn ☐ Hide the first token and renormalise (Z)", "click control hf_hide",
              "expect text_drawn ☑ Hide the first token and renormalise (Z)", f"click control hf_head {last}", "expect models 0",
              f"expect layer {layers}", f"expect head {heads - 1}", "expect step 6", "key ["]
    lines += ["key 9", "expect readout 1", "key ctrl+c", f"save clipboard {tag}.next", "key 1", "hover 1 1",
              "key ctrl+shift+c", f"save clipboard {tag}.cmd",
              "quit"]
    return "\n".join(lines) + "\n"


def check(data, out, bin_):
    bad = checked = 0
    for case, (name, sentence, layers, heads) in enumerate(CASES):
        tag = f"{out}/{case}"
        cmd = open(tag + ".cmd", encoding="utf-8").read().strip()
        argv = shlex.split(cmd)
        if argv[:4] != ["attnviz", "--headless", "--hf", f"{data}/{name}"] or argv[-2] != "--print":
            print(f"FAIL {name}: the copied command is `{cmd}`")
            bad += 1
            continue
        run = subprocess.run([bin_] + argv[1:-2] + ["--dump-json", "-"], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL {name}: {cmd}: {run.stderr.strip()}")
            bad += 1
            continue
        dump = json.loads(run.stdout)
        files = sorted(f for f in os.listdir(out) if f.startswith(f"{case}.") and f.endswith(".tsv"))
        if len(files) != layers * (len(STEPS) + 3 * (heads - 1)):
            print(f"FAIL {name}: {len(files)} tables copied")
            bad += 1
        for f in files:
            what, got = read_tsv(f"{out}/{f}")
            checked += 1
            if not same(got, want_matrix(dump, what)):
                print(f"FAIL {name}: {f} ({what}) differs from `{cmd}`")
                bad += 1
        rows = [r.split("\t") for r in open(f"{tag}.next", encoding="utf-8").read().rstrip("\n").split("\n")]
        got = [(int(r[1]), float(r[2])) for r in rows[1:]]
        want = [(t["id"], t["p"]) for t in dump["next"]]
        checked += 1
        if rows[0] != ["next", "id", "p"] or got != want:
            print(f"FAIL {name}: the readout copied {got}, the dump's next is {want}")
            bad += 1
        for layer in range(layers):
            lay = dump["layers"][layer]
            for head in range(heads):
                for key, stage in (("a", "weights"), ("q", "Q")):
                    got = float(open(f"{tag}.L{layer + 1}.h{head}.{key}").read())
                    want = lay["heads"][head][stage][1][0]
                    checked += 1
                    if got != want:
                        print(f"FAIL {name} layer {layer + 1} head {head + 1}: {stage}[1][0] hovered {got}, dump {want}")
                        bad += 1
            got = float(open(f"{tag}.L{layer + 1}.x").read())
            checked += 1
            if got != lay["X"][1][1]:
                print(f"FAIL {name} layer {layer + 1}: X[1][1] hovered {got}, dump {lay['X'][1][1]}")
                bad += 1
    print(f"hf window: {checked} matrices and hovered cells checked, {bad} wrong")
    return bad == 0 and checked > 0


if __name__ == "__main__":
    if sys.argv[1] == "script":
        for c in range(len(CASES)):
            with open(f"{sys.argv[3]}/{c}.script", "w", encoding="utf-8") as f:
                f.write(script(sys.argv[2], sys.argv[3], c))
        print(" ".join(name for name, *_ in CASES))
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
