#!/usr/bin/python3
"""gen_model_reference.py — independent PyTorch (float64 autograd) reference
for attnviz's trainable model: forward, loss and every gradient of 2-layer
models, and three AdamW steps of torch.optim.AdamW.

What it makes (under tests/data/, next to this script), per case NAME:

  model_ref_NAME.model.json   the model, in attnviz's "attnviz-model" format
  model_ref_NAME.json         the sentence, the targets and what PyTorch computed

  token_learned_causal_bias  2 layers x 2 heads, d_model 6, d_k 3, learned positions,
                             causal mask, scaling, biases, token objective, 3 targets
  pointer_sinusoidal         2 layers x 1 head, d_model 8, d_k 4, sinusoidal positions,
                             no mask, scaling, no biases, pointer objective, 2 targets
  pointer_none_window_noscale 2 layers x 2 heads, d_model 5, d_k 2, no positions,
                             window:2, NO scaling, biases, pointer objective, 2 targets
  adamw_token                2 layers x 1 head, d_model 6, d_k 3, learned positions,
                             no mask, biases, token objective; a batch of 3 sentences and
                             three steps of AdamW (lr 0.05, weight decay 0.1): the loss
                             before each step and every parameter after the last

The model (attnviz's README, "Learned attention"): x0 = E[token] + positions;
per layer and head Q, K, V = x W (+ b), scaled = Q K^T / sqrt(d_k) (or Q K^T),
the mask sets hidden entries to -inf, A = softmax(rows), Z = A V;
output = concat(Z) W_O (+ b_O); x <- x + output. Token objective:
logits = x_L U + b_U, loss = mean over the targets of -ln softmax(logits)[target].
Pointer objective: loss = mean of -ln (mean over heads of the last layer's A)[row][target position].
Sinusoids: pe[p][c] = sin(p / 10000^((c - c%2)/d)) for even c, cos for odd c.

Inputs are drawn from numpy.random.default_rng(case seed) and rounded to 4
decimals before use, so the files' short decimals are the exact doubles used.
Numbers are written with repr() (exact). Deterministic: a rerun rewrites the
same bytes. Run with Debian's interpreter and python3-torch:

    /usr/bin/python3 tests/data/gen_model_reference.py
"""

import functools
import math

import numpy as np
import torch

from torch_ref import allowed, draw_layer, model_doc, plain, r4, run, write_json

VOCAB = ["a", "b", "c", "d", "e", "f", "g"]

CASES = [
    # name, seed, layers, heads, d_model, d_k, pos, mask, scale, bias, objective, sentence, targets
    ("token_learned_causal_bias", 11, 2, 2, 6, 3, "learned", "causal", True, True, "token",
     "a c b g e d", [[1, "d"], [3, "a"], [5, "g"]]),
    ("pointer_sinusoidal", 12, 2, 1, 8, 4, "sinusoidal", "none", True, False, "pointer",
     "b a f c e d g", [[4, "a"], [6, "c"]]),
    ("pointer_none_window_noscale", 13, 2, 2, 5, 2, "none", "window:2", False, True, "pointer",
     "g f e d c", [[2, "d"], [3, "e"]]),
]
ADAMW_BATCH = [("a b c d", [[1, "c"], [3, "a"]]), ("e d c b a f", [[0, "f"], [4, "b"]]), ("g a g", [[2, "e"]])]
MAX_LEN = 8


def make_params(rng, layers, heads, dm, dk, pos, bias, token, vocab=len(VOCAB)):
    p = {"E": r4(rng.uniform(-1, 1, (vocab, dm)))}
    if pos == "learned":
        p["P"] = r4(rng.uniform(-1, 1, (MAX_LEN, dm)))
    p["layers"] = []
    for _ in range(layers):
        p["layers"].append(draw_layer(rng, heads, dm, dk, bias))
    if token:
        au = math.sqrt(6 / (dm + vocab))
        p["U"] = r4(rng.uniform(-au, au, (dm, vocab)))
        p["b_U"] = r4(rng.uniform(-0.3, 0.3, vocab))
    return p


def to_torch(p):
    """The parameters as leaf tensors (requires_grad), same nesting."""
    def t(v):
        return torch.tensor(v, dtype=torch.float64, requires_grad=True)
    out = {k: t(v) for k, v in p.items() if k != "layers"}
    out["layers"] = [{"heads": [{k: t(v) for k, v in h.items()} for h in layer["heads"]],
                      **{k: t(v) for k, v in layer.items() if k != "heads"}} for layer in p["layers"]]
    return out


def leaves(tp):
    """(path, tensor) for every parameter, in the model file's order."""
    out = [("E", tp["E"])]
    if "P" in tp:
        out.append(("P", tp["P"]))
    for l, layer in enumerate(tp["layers"]):
        for h, head in enumerate(layer["heads"]):
            for k in ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"):
                if k in head:
                    out.append((f"layers[{l}].heads[{h}].{k}", head[k]))
        for k in ("W_O", "b_O"):
            if k in layer:
                out.append((f"layers[{l}].{k}", layer[k]))
    for k in ("U", "b_U"):
        if k in tp:
            out.append((k, tp[k]))
    return out


def sinusoids(n, d):
    pe = np.zeros((n, d))
    for p in range(n):
        for c in range(d):
            angle = p / math.pow(10000.0, (c - c % 2) / d)
            pe[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return torch.tensor(pe, dtype=torch.float64)


def forward(tp, cfg, ids, keep):
    """Every stage; keep: a dict that receives the intermediates (retain_grad)."""
    n, dm, dk = len(ids), cfg["d_model"], cfg["d_k"]
    x = tp["E"][torch.tensor(ids)]
    if cfg["pos"] == "learned":
        x = x + tp["P"][:n]
    elif cfg["pos"] == "sinusoidal":
        x = x + sinusoids(n, dm)
    hide = torch.tensor([[not allowed(cfg["mask"], i, j) for j in range(n)] for i in range(n)])
    keep["layers"] = []
    for layer in tp["layers"]:
        rec = {"X": x, "heads": []}
        zs = []
        for head in layer["heads"]:
            q = x @ head["W_Q"] + (head["b_Q"] if "b_Q" in head else 0)
            k = x @ head["W_K"] + (head["b_K"] if "b_K" in head else 0)
            v = x @ head["W_V"] + (head["b_V"] if "b_V" in head else 0)
            scores = q @ k.T
            scaled = scores / math.sqrt(dk) if cfg["scale"] else scores * 1.0
            scaled.retain_grad()
            masked = scaled.masked_fill(hide, float("-inf"))
            a = torch.softmax(masked, dim=-1)
            a.retain_grad()
            z = a @ v
            rec["heads"].append({"Q": q, "K": k, "V": v, "scores": scores, "scaled": scaled, "weights": a, "Z": z})
            zs.append(z)
        out = torch.cat(zs, dim=1) @ layer["W_O"] + (layer["b_O"] if "b_O" in layer else 0)
        x = x + out
        rec["output"], rec["residual"] = out, x
        keep["layers"].append(rec)
    return x


def loss_of(tp, cfg, ids, targets, keep):
    x = forward(tp, cfg, ids, keep)
    terms = []
    if cfg["objective"] == "token":
        logits = x @ tp["U"] + tp["b_U"]
        keep["logits"], keep["probs"] = logits, torch.softmax(logits, dim=-1)
        for row, word in targets:
            terms.append(-torch.log_softmax(logits[row], dim=-1)[VOCAB.index(word)])
    else:
        last = keep["layers"][-1]["heads"]
        avg = sum(h["weights"] for h in last) / len(last)
        for row, word in targets:
            terms.append(-torch.log(avg[row, ids.index(VOCAB.index(word))]))
    return sum(terms) / len(terms)


def model_file(name, p, cfg, probe):
    lists = {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in p.items() if k != "layers"}
    lists["layers"] = [{"heads": [{k: v.tolist() for k, v in h.items()} for h in layer["heads"]],
                        **{k: v.tolist() for k, v in layer.items() if k != "heads"}} for layer in p["layers"]]
    write_json(f"model_ref_{name}.model.json", model_doc(probe, VOCAB, cfg, lists))


def config(layers, heads, dm, dk, pos, mask, scale, bias, objective):
    return {"d_model": dm, "d_k": dk, "heads": heads, "layers": layers, "pos": pos, "max_len": MAX_LEN,
            "mask": mask, "scale": scale, "bias": bias, "objective": objective}


def make_case(case):
    name, seed, layers, heads, dm, dk, pos, mask, scale, bias, objective, sentence, targets = case
    rng = np.random.default_rng(seed)
    cfg = config(layers, heads, dm, dk, pos, mask, scale, bias, objective)
    p = make_params(rng, layers, heads, dm, dk, pos, bias, objective == "token")
    model_file(name, p, cfg, sentence)
    tp = to_torch(p)
    ids = [VOCAB.index(w) for w in sentence.split()]
    keep = {}
    loss = loss_of(tp, cfg, ids, targets, keep)
    loss.backward()
    exp = {"loss": loss.item(), "layers": []}
    for rec in keep["layers"]:
        exp["layers"].append({
            "X": plain(rec["X"]), "output": plain(rec["output"]), "residual": plain(rec["residual"]),
            "heads": [{k: plain(v) for k, v in h.items()} | {"d_weights": plain(h["weights"].grad),
                                                              "d_scaled": plain(h["scaled"].grad)}
                      for h in rec["heads"]]})
    if objective == "token":
        exp["logits"], exp["probs"] = plain(keep["logits"]), plain(keep["probs"])
    # a parameter the loss does not reach (a pointer model's last W_V, W_O) has no
    # grad in PyTorch; its gradient is 0
    exp["grads"] = {path: plain(t.grad if t.grad is not None else torch.zeros_like(t)) for path, t in leaves(tp)}
    write_json(f"model_ref_{name}.json", {"sentence": sentence, "targets": targets, "expected": exp})


def make_adamw():
    name, lr, wd = "adamw_token", 0.05, 0.1
    rng = np.random.default_rng(14)
    cfg = config(2, 1, 6, 3, "learned", "none", True, True, "token")
    p = make_params(rng, 2, 1, 6, 3, "learned", True, True)
    model_file(name, p, cfg, ADAMW_BATCH[0][0])
    tp = to_torch(p)
    params = leaves(tp)
    decay = [t for path, t in params if not path.split(".")[-1].startswith("b_")]
    no_decay = [t for path, t in params if path.split(".")[-1].startswith("b_")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.999), eps=1e-8)
    count = sum(len(t) for _, t in ADAMW_BATCH)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        total = 0.0
        for sentence, targets in ADAMW_BATCH:  # the batch's mean over all its targets
            ids = [VOCAB.index(w) for w in sentence.split()]
            loss = loss_of(tp, cfg, ids, targets, {}) * (len(targets) / count)
            loss.backward()
            total += loss.item()
        losses.append(total)
        opt.step()
    doc = {"batch": [{"sentence": s, "targets": t} for s, t in ADAMW_BATCH], "lr": lr, "weight_decay": wd,
           "expected": {"losses": losses, "params": {path: plain(t) for path, t in params}}}
    write_json(f"model_ref_{name}.json", doc)


def main():
    run(*[functools.partial(make_case, case) for case in CASES], make_adamw)


if __name__ == "__main__":
    main()
