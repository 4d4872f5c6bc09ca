"""torch_ref.py — what the PyTorch reference generators share
(gen_rope_reference.py, gen_gqa_reference.py, gen_model_reference.py): the
rounding of drawn inputs, one layer's draw, the mask rule, tensors to JSON,
the model-file document and writing a file. Only plumbing lives here; each
generator keeps its own attention, written its own way, so the references
stay independent of each other as well as of the C.

Every writer writes the same bytes as before this module (checked by
regenerating and `git diff --exit-code tests/data`).
"""

import json
import math
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# A model file's training record: these files are written, not trained.
UNTRAINED = {"seed": 1, "steps": 0, "batch": 1, "lr": 0.01, "weight_decay": 0.01, "loss": 0.0,
             "heldout_accuracy": 0.0}


def r4(a):
    """a rounded to 4 decimals: the short decimal in the file is the exact double used."""
    return np.round(a, 4)


def draw_layer(rng, heads, dm, dk, bias):
    """One attention layer's weights drawn from rng, in this order: per head
    W_Q, W_K, W_V (Xavier-uniform, d_model×d_k) and with bias b_Q, b_K, b_V
    (±0.3); then W_O (Xavier-uniform, heads·d_k×d_model) and with bias b_O.
    {"heads": [...], "W_O": ..., "b_O": ... (with bias)}, rounded by r4."""
    a = math.sqrt(6 / (dm + dk))
    hs = []
    for _ in range(heads):
        h = {k: r4(rng.uniform(-a, a, (dm, dk))) for k in ("W_Q", "W_K", "W_V")}
        if bias:
            h.update({k: r4(rng.uniform(-0.3, 0.3, dk)) for k in ("b_Q", "b_K", "b_V")})
        hs.append(h)
    ao = math.sqrt(6 / (heads * dk + dm))
    layer = {"heads": hs, "W_O": r4(rng.uniform(-ao, ao, (heads * dk, dm)))}
    if bias:
        layer["b_O"] = r4(rng.uniform(-0.3, 0.3, dm))
    return layer


def t64(a, grad=False):
    """a (array or nested lists) as a float64 tensor, a leaf of autograd when grad."""
    return torch.tensor(np.asarray(a), dtype=torch.float64, requires_grad=grad)


def allowed(mask, i, j):
    """May row i attend to column j under attnviz's mask (none, causal, window:W, causal-window:W)?"""
    if mask == "none":
        return True
    if mask == "causal":
        return j <= i
    w = int(mask.split(":")[1])
    if mask.startswith("window:"):
        return abs(i - j) <= w
    return j <= i and i - j <= w


def _none_for_inf(v):
    if isinstance(v, list):
        return [_none_for_inf(x) for x in v]
    return None if v == float("-inf") else v


def plain(t):
    """A tensor as nested lists for JSON; a masked −∞ becomes null (what attnviz's dump writes)."""
    return _none_for_inf(t.detach().numpy().tolist())


def model_doc(probe, vocab, cfg, params):
    """An attnviz model file (format attnviz-model 1) of params' E, P (if any),
    layers, U and b_U (already plain lists), in the file's key order."""
    doc = {"format": "attnviz-model", "version": 1, "task": "reverse", "probe": probe, "vocab": vocab,
           "config": cfg}
    doc.update({k: params[k] for k in ("E", "P", "layers", "U", "b_U") if k in params})
    doc["training"] = dict(UNTRAINED)
    return doc


def write_json(name, doc):
    """doc as tests/data/name: indent 1, UTF-8 as is, a final newline."""
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


def token_loss(logits, targets, vocab):
    """The mean cross-entropy of the target tokens: targets are [row, token] pairs."""
    return sum(-torch.log_softmax(logits[row], dim=-1)[vocab.index(w)] for row, w in targets) / len(targets)


def run(*makers):
    """Calls each maker on one thread (the same sums in the same order on every machine)."""
    torch.set_num_threads(1)
    for make in makers:
        make()
    print("wrote", len(makers), "cases to", HERE)
