#!/usr/bin/python3
"""Reference for the tiled online softmax (issue 24 part 4): standard softmax
attention in PyTorch float64, softmax(mask(Q·Kᵀ/√d))·V, written independently
of attnviz's C (torch.softmax on the whole row; masked scores are -inf).

Writes tests/data/tiles_ref.json: per case the mask, scaling, q, k, v and the
reference z. test_tiles runs attnviz's tiled pass on the same q, k, v for every
block size B in 1..n+1 and asks |z_tiled - z| <= 1e-12 * max(1, |z|).

Run with Debian's interpreter: /usr/bin/python3 tests/data/gen_tiles_reference.py
"""
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)


def allowed(kind, window, i, j):
    if kind == "none":
        return True
    if kind == "causal":
        return j <= i
    if kind == "window":
        return abs(i - j) <= window
    return i - window <= j <= i  # causal-window


def attention(q, k, v, kind, window, scale):
    n, d = q.shape
    s = q @ k.T
    if scale:
        s = s / math.sqrt(d)
    keep = torch.tensor([[allowed(kind, window, i, j) for j in range(n)] for i in range(n)])
    s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


CASES = [
    # name, n, d, mask kind, window, scale, value range
    ("none_scaled", 7, 4, "none", 0, True, 2.0),
    ("causal", 12, 8, "causal", 0, True, 2.0),
    ("window2", 16, 4, "window", 2, True, 2.0),
    ("causal_window3_noscale", 10, 3, "causal-window", 3, False, 1.5),
    ("causal_wide", 20, 16, "causal", 0, True, 4.0),
    ("none_large_scores", 9, 2, "none", 0, False, 12.0),
]


def main():
    gen = torch.Generator().manual_seed(2024)
    out = {"generator": "tests/data/gen_tiles_reference.py", "torch": torch.__version__, "cases": []}
    for name, n, d, kind, window, scale, lim in CASES:
        q, k, v = ((torch.rand(n, d, generator=gen) * 2 - 1) * lim for _ in range(3))
        z = attention(q, k, v, kind, window, scale)
        mask = kind if kind in ("none", "causal") else f"{kind}:{window}"
        out["cases"].append({
            "name": name, "n": n, "d": d, "mask": mask, "scale": scale,
            "q": q.tolist(), "k": k.tolist(), "v": v.tolist(), "z": z.tolist(),
        })
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiles_ref.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)  # Python writes the shortest repr that reads back exactly
        f.write("\n")
    print(f"wrote {path}: {len(CASES)} cases")


if __name__ == "__main__":
    main()
