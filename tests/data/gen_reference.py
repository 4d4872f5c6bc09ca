#!/usr/bin/python3
"""gen_reference.py — independent NumPy reference for one self-attention layer.

What it makes (all under tests/data/, next to this script):

  ref_single_none.json        n=3,  d_model=4,  d_k=2,  heads=1, none,            scale, no bias
  ref_multihead_bias.json     n=6,  d_model=8,  d_k=4,  heads=2, none,            scale, bias
  ref_causal_bias.json        n=5,  d_model=6,  d_k=2,  heads=3, causal,          scale, bias
  ref_window1.json            n=7,  d_model=6,  d_k=3,  heads=2, window:1,        scale, no bias
  ref_causal_window2.json     n=8,  d_model=8,  d_k=4,  heads=2, causal-window:2, scale, bias
  ref_noscale_saturated.json  n=5,  d_model=16, d_k=16, heads=1, none,            NO scale, no bias,
                              X drawn 4x larger so the softmax is nearly one-hot
  ref_chinese_window3.json    n=20, d_model=8,  d_k=4,  heads=2, window:3,        scale, bias
                              sentence 这只动物没看见那只鸟，因为它飞得太快了。 (one token per character)
  ref_heads8_causal.json      n=10, d_model=32, d_k=8,  heads=8, causal,          scale, bias
  ref_posenc.json             sinusoidal positional encoding, n=12, d_model=10
  ref_posenc_odd.json         sinusoidal positional encoding, n=5,  d_model=7

How to rerun (from the repository root; Debian's python has python3-numpy):

    /usr/bin/python3 tests/data/gen_reference.py

The output is deterministic: every case draws from its own
numpy.random.default_rng(<case seed>) (the seeds are in CASES below), so a
rerun rewrites byte-identical files.

Attention file layout (the C program's dump format; row-major nested lists):

  {"tokens": [...], "sentence": "...",
   "config": {"d_model", "d_k", "heads", "seed": 1, "mask", "scale", "pos_enc": false, "bias"},
   "X": n x d_model,
   "heads": [{"W_Q", "W_K", "W_V": d_model x d_k, "b_Q", "b_K", "b_V": d_k,
              "Q", "K", "V": n x d_k, "scores", "scaled", "masked", "weights": n x n,
              "Z": n x d_k}, ...],
   "concat": n x (heads*d_k), "W_O": (heads*d_k) x d_model, "b_O": d_model,
   "output": n x d_model}

  "masked" holds null where the mask hides an entry (that entry is -inf).
  config.seed is always 1 and is NOT the generator seed: every input (X, all W
  and b) is written in the file, so a test must feed them in explicitly.

Math, per head h (row-major, biases are zero vectors when config.bias is false):

  Q = X W_Q + b_Q,  K = X W_K + b_K,  V = X W_V + b_V
  scores  = Q K^T
  scaled  = scores / sqrt(d_k)            (a plain copy when scale is false)
  masked  = scaled, with -inf where query i may not see key j:
              none             every j
              causal           j <= i
              window:W         |i - j| <= W
              causal-window:W  i - W <= j <= i
  weights = row softmax of masked: exp(s - rowmax) / sum; masked entries are exactly 0
  Z       = weights V
  concat  = [Z_1 ... Z_heads] side by side;  output = concat W_O + b_O

Inputs: X ~ uniform[-1, 1] (times x_scale), W ~ Xavier-uniform
[-a, a] with a = sqrt(6 / (rows + cols)), biases ~ uniform[-0.5, 0.5] when bias
is on.  Draw order per case: X, then for each head W_Q, W_K, W_V, (b_Q, b_K,
b_V if bias), then W_O, (b_O if bias).  Every input is rounded to 4 decimal
places BEFORE any computation, so the file's short decimals ("0.4372") are the
exact doubles the reference used (strtod and Python's float() agree).  Every
computed number is written with repr(), which round-trips exactly.

The script checks itself before writing: a pure-Python loop implementation
(math.fsum dot products) must agree with the NumPy one, each weights row sums
to 1, masked entries are exactly 0 (and null in "masked"), concat is the heads
side by side, and the written JSON reads back to the same numbers.
"""

import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT_DECIMALS = 4   # inputs are rounded to this many decimals (see docstring)
TOL = 1e-12          # |a - b| <= TOL * max(1, |b|), the project's agreement rule

# name, generator seed, sentence, d_model, d_k, heads, mask, scale, bias, x_scale
CASES = [
    ("ref_single_none", 1, "the cat sat", 4, 2, 1, "none", True, False, 1.0),
    ("ref_multihead_bias", 2, "the cat sat on the mat", 8, 4, 2, "none", True, True, 1.0),
    ("ref_causal_bias", 3, "a bird can fly high", 6, 2, 3, "causal", True, True, 1.0),
    ("ref_window1", 4, "the dog chased the ball across grass", 6, 3, 2, "window:1", True, False, 1.0),
    ("ref_causal_window2", 5, "she said that the book was very good", 8, 4, 2,
     "causal-window:2", True, True, 1.0),
    ("ref_noscale_saturated", 6, "cats chase mice all day", 16, 16, 1, "none", False, False, 4.0),
    ("ref_chinese_window3", 7, "这只动物没看见那只鸟，因为它飞得太快了。", 8, 4, 2, "window:3", True, True, 1.0),
    ("ref_heads8_causal", 8, "the animal did not cross because it was too tired", 32, 8, 8,
     "causal", True, True, 1.0),
]

CHINESE_SENTENCE = "这只动物没看见那只鸟，因为它飞得太快了。"


# ---------------------------------------------------------------- inputs --

def tokens_of(sentence):
    """ASCII cases: space-separated words. The Chinese case: one token per character."""
    if sentence == CHINESE_SENTENCE:
        return list(sentence)
    assert sentence.isascii()
    return sentence.split(" ")


def rounded(a):
    """Round to INPUT_DECIMALS places; + 0.0 turns any -0.0 into 0.0."""
    return np.round(a, INPUT_DECIMALS) + 0.0


def xavier(rng, rows, cols):
    a = math.sqrt(6.0 / (rows + cols))
    return rounded(rng.uniform(-a, a, size=(rows, cols)))


def draw_inputs(seed, n, d_model, d_k, heads, bias, x_scale):
    rng = np.random.default_rng(seed)
    x = rounded(x_scale * rng.uniform(-1.0, 1.0, size=(n, d_model)))
    per_head = []
    for _ in range(heads):
        h = {"W_Q": xavier(rng, d_model, d_k),
             "W_K": xavier(rng, d_model, d_k),
             "W_V": xavier(rng, d_model, d_k)}
        for b in ("b_Q", "b_K", "b_V"):
            h[b] = rounded(rng.uniform(-0.5, 0.5, size=d_k)) if bias else np.zeros(d_k)
        per_head.append(h)
    w_o = xavier(rng, heads * d_k, d_model)
    b_o = rounded(rng.uniform(-0.5, 0.5, size=d_model)) if bias else np.zeros(d_model)
    return x, per_head, w_o, b_o


# ------------------------------------------------------------------ math --

def mask_allows(mask, i, j):
    """True when query i may attend to key j."""
    if mask == "none":
        return True
    if mask == "causal":
        return j <= i
    kind, w = mask.split(":")
    w = int(w)
    if kind == "window":
        return abs(i - j) <= w
    if kind == "causal-window":
        return i - w <= j <= i
    raise ValueError("unknown mask " + mask)


def mask_matrix(mask, n):
    return np.array([[mask_allows(mask, i, j) for j in range(n)] for i in range(n)])


def softmax_rows(s):
    """Row softmax; -inf entries become exactly 0 (a row max is always finite
    here because every mask lets i see itself)."""
    m = s.max(axis=1, keepdims=True)
    e = np.exp(s - m)          # exp(-inf) == 0.0 exactly
    return e / e.sum(axis=1, keepdims=True)


def attention(x, per_head, w_o, b_o, d_k, mask, scale):
    n = x.shape[0]
    allowed = mask_matrix(mask, n)
    heads = []
    for w in per_head:
        q = x @ w["W_Q"] + w["b_Q"]
        k = x @ w["W_K"] + w["b_K"]
        v = x @ w["W_V"] + w["b_V"]
        scores = q @ k.T
        scaled = scores / math.sqrt(d_k) if scale else scores.copy()
        masked = np.where(allowed, scaled, -np.inf)
        weights = softmax_rows(masked)
        z = weights @ v
        heads.append(dict(w, Q=q, K=k, V=v, scores=scores, scaled=scaled,
                          masked=masked, weights=weights, Z=z))
    concat = np.concatenate([h["Z"] for h in heads], axis=1)
    output = concat @ w_o + b_o
    return heads, concat, output


# ------------------------------------------- independent cross-check (loops) --

def dot(a, b):
    return math.fsum(p * q for p, q in zip(a, b))


def loop_matmul(a, b, bias):
    a, b = a.tolist(), b.tolist()
    cols = list(zip(*b))
    return [[dot(row, col) + bias[c] for c, col in enumerate(cols)] for row in a]


def assert_close(got, want, what):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    both_inf = np.isinf(got) & np.isinf(want) & (np.sign(got) == np.sign(want))
    lim = TOL * np.maximum(1.0, np.abs(np.where(both_inf, 0.0, want)))
    diff = np.abs(np.where(both_inf, 0.0, got - want))
    assert np.all(both_inf | (diff <= lim)), (what, float(np.nanmax(diff)))


def cross_check(name, x, heads, concat, output, w_o, b_o, d_k, mask, scale):
    n = x.shape[0]
    zs = []
    for hi, h in enumerate(heads):
        tag = "%s head %d" % (name, hi)
        q = loop_matmul(x, h["W_Q"], h["b_Q"])
        k = loop_matmul(x, h["W_K"], h["b_K"])
        v = loop_matmul(x, h["W_V"], h["b_V"])
        s = [[dot(q[i], k[j]) for j in range(n)] for i in range(n)]
        sc = [[s[i][j] / math.sqrt(d_k) if scale else s[i][j] for j in range(n)] for i in range(n)]
        a = []
        for i in range(n):
            seen = [j for j in range(n) if mask_allows(mask, i, j)]
            top = max(sc[i][j] for j in seen)
            e = {j: math.exp(sc[i][j] - top) for j in seen}
            den = math.fsum(e.values())
            a.append([e[j] / den if j in e else 0.0 for j in range(n)])
        z = [[math.fsum(a[i][j] * v[j][c] for j in range(n)) for c in range(d_k)] for i in range(n)]
        for key, val in (("Q", q), ("K", k), ("V", v), ("scores", s), ("scaled", sc),
                         ("weights", a), ("Z", z)):
            assert_close(h[key], val, tag + " " + key)
        # structural checks
        w = h["weights"]
        assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12), tag + " rows of weights sum to 1"
        for i in range(n):
            for j in range(n):
                if mask_allows(mask, i, j):
                    assert h["masked"][i, j] == h["scaled"][i, j], tag + " masked copy"
                    assert w[i, j] >= 0.0
                else:
                    assert h["masked"][i, j] == -np.inf, tag + " masked is -inf"
                    assert w[i, j] == 0.0, tag + " masked weight is exactly 0"
        if not scale:
            assert np.array_equal(h["scaled"], h["scores"]), tag + " scaled is a copy"
        zs.append(z)
    cat = [sum((zs[hi][i] for hi in range(len(heads))), []) for i in range(n)]
    assert np.array_equal(concat, np.concatenate([h["Z"] for h in heads], axis=1))
    assert_close(concat, cat, name + " concat")
    assert_close(output, loop_matmul(np.array(cat), w_o, b_o), name + " output")


# ------------------------------------------------------------------ JSON --

def jsonable(a):
    """NumPy array -> nested lists of Python floats; -inf -> None (JSON null)."""
    if isinstance(a, np.ndarray):
        return [jsonable(r) for r in a] if a.ndim > 1 else \
            [None if v == -np.inf else float(v) for v in a.tolist()]
    return a


def dumps(obj, indent=0):
    """JSON with one key per line and one matrix row per line (for readable
    failures); numbers via json (float repr, round-trip exact); no NaN/inf."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(obj, dict):
        items = [inner + json.dumps(k) + ": " + dumps(v, indent + 1) for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and obj and isinstance(obj[0], (list, dict)):
        return "[\n" + ",\n".join(inner + dumps(v, indent + 1) for v in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def write(name, doc):
    path = os.path.join(HERE, name + ".json")
    text = dumps(doc) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    with open(path, encoding="utf-8") as f:
        back = json.load(f)
    assert back == doc, name + " does not read back identically"
    return path, len(text.encode("utf-8"))


def read_back_equal(path, arrays):
    """Every stored number equals the in-memory double bit for bit."""
    with open(path, encoding="utf-8") as f:
        back = json.load(f)
    for key, arr in arrays:
        node = back
        for part in key:
            node = node[part]
        got = np.array([[(-np.inf if v is None else v) for v in r] for r in node]) \
            if isinstance(node[0], list) else np.array(node, dtype=float)
        assert np.array_equal(got, arr), ("read back", key)


# ------------------------------------------------------------------- cases --

def make_case(name, seed, sentence, d_model, d_k, heads, mask, scale, bias, x_scale):
    tokens = tokens_of(sentence)
    n = len(tokens)
    x, per_head, w_o, b_o = draw_inputs(seed, n, d_model, d_k, heads, bias, x_scale)
    hs, concat, output = attention(x, per_head, w_o, b_o, d_k, mask, scale)
    cross_check(name, x, hs, concat, output, w_o, b_o, d_k, mask, scale)

    order = ["W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "Q", "K", "V",
             "scores", "scaled", "masked", "weights", "Z"]
    doc = {
        "tokens": tokens,
        "sentence": sentence,
        "config": {"d_model": d_model, "d_k": d_k, "heads": heads, "seed": 1,
                   "mask": mask, "scale": scale, "pos_enc": False, "bias": bias},
        "X": jsonable(x),
        "heads": [{k: jsonable(h[k]) for k in order} for h in hs],
        "concat": jsonable(concat),
        "W_O": jsonable(w_o),
        "b_O": jsonable(b_o),
        "output": jsonable(output),
    }
    path, size = write(name, doc)
    arrays = [(("X",), x), (("concat",), concat), (("W_O",), w_o), (("b_O",), b_o),
              (("output",), output)]
    arrays += [(("heads", hi, k), h[k]) for hi, h in enumerate(hs) for k in order]
    read_back_equal(path, arrays)

    top = min(float(h["weights"].max(axis=1).min()) for h in hs)
    print("%-28s n=%-2d d_model=%-2d d_k=%-2d heads=%d mask=%-15s scale=%-5s bias=%-5s "
          "min row-max weight=%.4f  %6d bytes"
          % (name + ".json", n, d_model, d_k, heads, mask, scale, bias, top, size))
    return hs


def positional_encoding(n, d_model):
    """pe[p][2i] = sin(p / 10000^(2i/d_model)), pe[p][2i+1] = cos(same angle);
    for odd d_model the last column is a sin column."""
    pe = np.zeros((n, d_model))
    for p in range(n):
        for c in range(d_model):
            angle = p / 10000.0 ** ((c - c % 2) / d_model)
            pe[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def make_posenc(name, n, d_model):
    pe = positional_encoding(n, d_model)
    # vectorized cross-check
    pos = np.arange(n)[:, None]
    even = np.arange(0, d_model, 2)[None, :]
    ang = pos / np.power(10000.0, even / d_model)
    assert_close(pe[:, 0::2], np.sin(ang), name + " sin")
    assert_close(pe[:, 1::2], np.cos(ang[:, : d_model // 2]), name + " cos")
    assert np.all(pe[0, 0::2] == 0.0) and np.all(pe[0, 1::2] == 1.0)
    path, size = write(name, {"n": n, "d_model": d_model, "pe": jsonable(pe)})
    read_back_equal(path, [(("pe",), pe)])
    print("%-28s n=%-2d d_model=%-2d  %6d bytes" % (name + ".json", n, d_model, size))


def main():
    results = {}
    for case in CASES:
        results[case[0]] = make_case(*case)
    # the no-scale case exists to exercise a nearly one-hot softmax
    sat = results["ref_noscale_saturated"][0]["weights"].max(axis=1)
    assert np.all(sat > 0.99), "ref_noscale_saturated is not saturated enough"
    make_posenc("ref_posenc", 12, 10)
    make_posenc("ref_posenc_odd", 5, 7)
    print("all checks passed")


if __name__ == "__main__":
    main()
