"""Compares two attnviz JSON dumps entry by entry: |a - b| <= 1e-5 * max(1, |b|).

Usage: compare_dump.py OURS.json REFERENCE.json  (exit 0 when they agree)."""
import json
import sys

TOL = 1e-5
KEYS = ["X", "concat", "W_O", "b_O", "output"]
HEAD_KEYS = ["W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "Q", "K", "V",
             "scores", "scaled", "masked", "weights", "Z"]


def walk(a, b, where):
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            raise ValueError(f"{where}: shape differs")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{where}[{i}]")
    elif b is None or a is None:
        if a is not b:
            raise ValueError(f"{where}: {a} vs {b}")
    elif abs(a - b) > TOL * max(1.0, abs(b)):
        raise ValueError(f"{where}: {a!r} vs {b!r}")


def main():
    ours, ref = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
    try:
        if ours["tokens"] != ref["tokens"]:
            raise ValueError(f"tokens differ: {ours['tokens']} vs {ref['tokens']}")
        for k in KEYS:
            walk(ours[k], ref[k], k)
        if len(ours["heads"]) != len(ref["heads"]):
            raise ValueError("head count differs")
        for h, (x, y) in enumerate(zip(ours["heads"], ref["heads"])):
            for k in HEAD_KEYS:
                walk(x[k], y[k], f"heads[{h}].{k}")
    except ValueError as e:
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
