#!/usr/bin/python3
"""train_check.py WEIGHTS DUMP — the training view's probe attention (save
train_weights) equals a headless --model dump's, every layer and head, every
number (|a − b| <= 1e-12)."""
import json
import sys

gui = json.load(open(sys.argv[1], encoding="utf-8"))
dump = json.load(open(sys.argv[2], encoding="utf-8"))
if len(gui["layers"]) != len(dump["layers"]):
    sys.exit(f"{len(gui['layers'])} layers in the window, {len(dump['layers'])} headless")
worst, cells = 0.0, 0
for l, (gl, dl) in enumerate(zip(gui["layers"], dump["layers"])):
    if len(gl["heads"]) != len(dl["heads"]):
        sys.exit(f"layer {l}: {len(gl['heads'])} heads in the window, {len(dl['heads'])} headless")
    for h, (gh, dh) in enumerate(zip(gl["heads"], dl["heads"])):
        a, b = gh["weights"], dh["weights"]
        if len(a) != len(b) or any(len(r) != len(s) for r, s in zip(a, b)):
            sys.exit(f"layer {l} head {h}: shapes differ")
        for i, (r, s) in enumerate(zip(a, b)):
            for j, (x, y) in enumerate(zip(r, s)):
                cells += 1
                worst = max(worst, abs(x - y))
                if abs(x - y) > 1e-12:
                    sys.exit(f"layer {l} head {h} [{i}][{j}]: {x!r} in the window, {y!r} headless")
print(f"{sys.argv[1]}: {cells} weights equal to the headless dump (largest difference {worst:g})")
