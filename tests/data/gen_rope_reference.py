#!/usr/bin/python3
"""gen_rope_reference.py — independent PyTorch (float64) reference for
attnviz's rotary position embedding (RoPE, issue 24 part 2), written the way
LLaMA's reference code writes it: the frequencies
1 / theta^(arange(0, d, 2) / d), their angles as unit complex numbers
(torch.polar), and each head's q and k viewed as complex numbers of
consecutive pairs (torch.view_as_complex) multiplied by them. Not a port of
attnviz's C (which turns each pair with cos and sin).

What it makes (under tests/data/, next to this script):

  rope_ref_layer_NAME.json   a one-layer case in the shape of attnviz's JSON dump:
                             "tokens", "sentence", "config" (what the command line
                             would set), X and every weight, and what PyTorch
                             computed: per head Q, K, V, q_rot, k_rot, scores,
                             weights and Z, and the output
     offset3_causal          d_model 6, d_k 4, 2 heads, causal mask, offset 3, base 10000
     offset1000_base500      d_model 5, d_k 2, 1 head, no mask, biases, offset 1000, base 500

  rope_ref_model.model.json  a 2-layer, 2-head model with pos "rope" and
                             rope_base 100 (d_model 6, d_k 4, token objective,
                             causal mask), in attnviz's model format
  rope_ref_model.json        its sentence, targets and what autograd computed:
                             every stage with q_rot and k_rot, the loss and the
                             gradient of every parameter (through the rotation)
  rope_ref_trained.json      the same for rope_ref_trained.model.json, a model
                             attnviz trained (induction, pos rope, rope_base 100,
                             d_model 8, d_k 4, 2 heads, 400 steps; read, not made,
                             here): its probe, the second copy's rows as targets

Inputs come from numpy.random.default_rng(seed), rounded to 4 decimals, so
the files' short decimals are the exact doubles used. Numbers are written with
repr() (exact); a rerun rewrites the same bytes. Run with Debian's interpreter
and python3-torch:

    /usr/bin/python3 tests/data/gen_rope_reference.py
"""

import functools
import json
import math
import os

import numpy as np
import torch

from torch_ref import HERE, allowed, draw_layer, model_doc, plain, r4, run, t64, token_loss, write_json

VOCAB = ["a", "b", "c", "d", "e", "f", "g"]
MAX_LEN = 8


# ---- RoPE as LLaMA writes it ------------------------------------------------

def precompute_freqs_cis(dim, end, theta, offset):
    """Unit complex numbers e^(i·m·theta_j) for positions offset .. offset + end - 1."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64)[: dim // 2] / dim))
    t = torch.arange(offset, offset + end, dtype=torch.float64)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def apply_rotary_emb(x, freqs_cis):
    """x: (n, d) real; consecutive pairs (2j, 2j+1) as one complex number each."""
    x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(x_ * freqs_cis).flatten(-2)


def attention_layer(x, heads, w_o, b_o, cfg, freqs, rec):
    """One layer of multi-head attention with RoPE; rec gets every stage."""
    n, dk = x.shape[0], cfg["d_k"]
    hide = torch.tensor([[not allowed(cfg["mask"], i, j) for j in range(n)] for i in range(n)])
    zs = []
    for head in heads:
        q = x @ head["W_Q"] + (head["b_Q"] if "b_Q" in head else 0)
        k = x @ head["W_K"] + (head["b_K"] if "b_K" in head else 0)
        v = x @ head["W_V"] + (head["b_V"] if "b_V" in head else 0)
        q_rot, k_rot = apply_rotary_emb(q, freqs), apply_rotary_emb(k, freqs)
        scores = q_rot @ k_rot.T
        scaled = scores / math.sqrt(dk) if cfg["scale"] else scores * 1.0
        masked = scaled.masked_fill(hide, float("-inf"))
        a = torch.softmax(masked, dim=-1)
        z = a @ v
        rec.append({"Q": q, "K": k, "V": v, "q_rot": q_rot, "k_rot": k_rot, "scores": scores,
                    "weights": a, "Z": z})
        zs.append(z)
    return torch.cat(zs, dim=1) @ w_o + (b_o if b_o is not None else 0)


# ---- one layer, through --weights ---------------------------------------------

LAYER_CASES = [
    # name, seed, sentence, d_model, d_k, heads, mask, bias, offset, base
    ("offset3_causal", 31, "the cat sat on the mat", 6, 4, 2, "causal", False, 3, 10000),
    ("offset1000_base500", 32, "x y z w", 5, 2, 1, "none", True, 1000, 500),
]


def make_layer_case(case):
    name, seed, sentence, dm, dk, heads, mask, bias, offset, base = case
    rng = np.random.default_rng(seed)
    n = len(sentence.split())
    x = r4(rng.uniform(-1, 1, (n, dm)))
    layer = draw_layer(rng, heads, dm, dk, bias)
    hs, w_o, b_o = layer["heads"], layer["W_O"], layer.get("b_O")
    cfg = {"d_model": dm, "d_k": dk, "heads": heads, "mask": mask, "scale": True, "bias": bias,
           "pos": "rope", "rope_base": base, "pos_offset": offset}
    t = lambda v: torch.tensor(v, dtype=torch.float64)
    rec = []
    out = attention_layer(t(x), [{k: t(v) for k, v in h.items()} for h in hs], t(w_o),
                          t(b_o) if bias else None, cfg, precompute_freqs_cis(dk, n, float(base), offset), rec)
    # the dump's shape, so the real --weights loader reads it (it ignores the computed keys)
    doc = {"tokens": sentence.split(), "sentence": sentence, "config": cfg | {"pos_enc": False}, "X": x.tolist(),
           "heads": [{k: v.tolist() for k, v in h.items()} | {k: plain(v) for k, v in r.items()}
                     for h, r in zip(hs, rec)],
           "W_O": w_o.tolist()}
    if bias:
        doc["b_O"] = b_o.tolist()
    doc["output"] = plain(out)
    write_json(f"rope_ref_layer_{name}.json", doc)


# ---- a model with pos "rope": forward and backward ---------------------------

def model_reference(doc, sentence, targets):
    """Every stage, the loss and every gradient of a pos "rope" model file's doc
    (no biases, token objective) on sentence, by autograd."""
    cfg, vocab = doc["config"], doc["vocab"]
    dk, base = cfg["d_k"], float(cfg.get("rope_base", 10000))
    tp = {"E": t64(doc["E"], True), "U": t64(doc["U"], True), "b_U": t64(doc["b_U"], True),
          "layers": [{"heads": [{k: t64(h[k], True) for k in ("W_Q", "W_K", "W_V")} for h in layer["heads"]],
                      "W_O": t64(layer["W_O"], True)} for layer in doc["layers"]]}
    ids = [vocab.index(w) for w in sentence.split()]
    freqs = precompute_freqs_cis(dk, len(ids), base, 0)
    x = tp["E"][torch.tensor(ids)]  # RoPE: nothing is added to x0
    recs = []
    for layer in tp["layers"]:
        rec = {"X": x, "heads": []}
        out = attention_layer(x, layer["heads"], layer["W_O"], None, cfg, freqs, rec["heads"])
        x = x + out
        rec["output"], rec["residual"] = out, x
        recs.append(rec)
    logits = x @ tp["U"] + tp["b_U"]
    loss = token_loss(logits, targets, vocab)
    loss.backward()
    grads = {"E": plain(tp["E"].grad)}
    for l, layer in enumerate(tp["layers"]):
        for h, head in enumerate(layer["heads"]):
            for k in ("W_Q", "W_K", "W_V"):
                g = head[k].grad
                grads[f"layers[{l}].heads[{h}].{k}"] = plain(g if g is not None else torch.zeros_like(head[k]))
        grads[f"layers[{l}].W_O"] = plain(layer["W_O"].grad)
    grads["U"], grads["b_U"] = plain(tp["U"].grad), plain(tp["b_U"].grad)
    return {"loss": loss.item(), "logits": plain(logits), "grads": grads,
            "layers": [{"X": plain(r["X"]), "output": plain(r["output"]), "residual": plain(r["residual"]),
                        "heads": [{k: plain(v) for k, v in h.items()} for h in r["heads"]]} for r in recs]}


def make_trained_case():
    """A model attnviz trained (--train induction --pos rope --rope-base 100 --d-model 8 --d-k 4
    --heads 2 --train-steps 400, checked in as rope_ref_trained.model.json): its probe, the second
    copy's rows as targets (each answered by the letter that followed it in the first copy)."""
    with open(os.path.join(HERE, "rope_ref_trained.model.json")) as f:
        doc = json.load(f)
    words = doc["probe"].split()
    half = len(words) // 2
    targets = [[row, words[row - half + 1]] for row in range(half, len(words) - 1)]
    exp = model_reference(doc, doc["probe"], targets)
    write_json("rope_ref_trained.json", {"sentence": doc["probe"], "targets": targets, "expected": exp})


def make_model_case():
    name, seed, layers, heads, dm, dk, base = "model", 33, 2, 2, 6, 4, 100
    sentence, targets = "a c b g e d", [[1, "d"], [3, "a"], [5, "g"]]
    cfg = {"d_model": dm, "d_k": dk, "heads": heads, "layers": layers, "pos": "rope", "max_len": MAX_LEN,
           "mask": "causal", "scale": True, "bias": False, "objective": "token", "rope_base": base}
    rng = np.random.default_rng(seed)
    p = {"E": r4(rng.uniform(-1, 1, (len(VOCAB), dm))), "layers": []}
    for _ in range(layers):
        p["layers"].append(draw_layer(rng, heads, dm, dk, False))
    au = math.sqrt(6 / (dm + len(VOCAB)))
    p["U"] = r4(rng.uniform(-au, au, (dm, len(VOCAB))))
    p["b_U"] = r4(rng.uniform(-0.3, 0.3, len(VOCAB)))

    doc = model_doc(sentence, VOCAB, cfg,
                    {"E": p["E"].tolist(),
                     "layers": [{"heads": [{k: v.tolist() for k, v in h.items()} for h in layer["heads"]],
                                 "W_O": layer["W_O"].tolist()} for layer in p["layers"]],
                     "U": p["U"].tolist(), "b_U": p["b_U"].tolist()})
    write_json(f"rope_ref_{name}.model.json", doc)
    exp = model_reference(doc, sentence, targets)
    write_json(f"rope_ref_{name}.json", {"sentence": sentence, "targets": targets, "expected": exp})


def main():
    run(*[functools.partial(make_layer_case, case) for case in LAYER_CASES], make_model_case, make_trained_case)


if __name__ == "__main__":
    main()
