#!/usr/bin/python3
"""gen_gqa_reference.py — independent PyTorch (float64) reference for issue 24's
grouped-query attention (--kv-heads G) and decoding with a KV cache (--decode).

Written as grouped-query attention is usually written, not as a port of the C:
each layer holds G key/value projections, K and V are computed once per
kv-head and then repeat_interleave'd (heads/G times, along the head axis)
into standard multi-head attention. Decoding is a separate loop that keeps
growing K and V caches and computes one query row per token.

What it makes (under tests/data/, next to this script):

  gqa_ref_layer_h4g2_causal_bias.json    one layer, n=9, d_model 8, d_k 4, 4 heads, 2 kv-heads,
                                         causal, scale, biases
  gqa_ref_layer_h8g1_cwindow3.json       one layer, n=12, d_model 16, d_k 4, 8 heads, 1 kv-head
                                         (multi-query), causal-window:3, scale, no biases
  gqa_ref_layer_h6g3_causal_noscale.json one layer, n=7, d_model 6, d_k 2, 6 heads, 3 kv-heads,
                                         causal, NO scale, biases
      In the --dump-json shape (every head carries its group's W_K, W_V, b_K,
      b_V, K and V) with config.kv_heads, and per head "Z_decode": the rows the
      decoding loop produced, token by token.
  gqa_ref_model_token.model.json / gqa_ref_model_token.json
      a 2-layer model (4 heads, 2 kv-heads, d_model 6, d_k 3, learned
      positions, causal, biases, token objective) in attnviz's model format
      (kv tensors only in each group's first head), and PyTorch autograd's loss
      and the gradient of every parameter (the shared K, V get the sum over
      their group, by autograd through repeat_interleave).

The script checks itself: each decoded row equals the same row of the full
causal computation within |a - b| <= 1e-12 * max(1, |b|); repeating K, V
per head equals giving every head its group's weights.

Inputs are drawn from numpy.random.default_rng(case seed) and rounded to 4
decimals before use, so the files' short decimals are the exact doubles
used. Numbers are written with repr() (exact). Deterministic. Run:

    /usr/bin/python3 tests/data/gen_gqa_reference.py
"""

import functools
import math

import numpy as np
import torch

from torch_ref import allowed, model_doc, plain, r4, run, t64, token_loss, write_json

TOL = 1e-12
VOCAB = ["a", "b", "c", "d", "e", "f", "g"]
MAX_LEN = 8

LAYER_CASES = [
    # name, seed, n, d_model, d_k, heads, kv_heads, mask, scale, bias
    ("h4g2_causal_bias", 41, 9, 8, 4, 4, 2, "causal", True, True),
    ("h8g1_cwindow3", 42, 12, 16, 4, 8, 1, "causal-window:3", True, False),
    ("h6g3_causal_noscale", 43, 7, 6, 2, 6, 3, "causal", False, True),
]


def layer_params(rng, dm, dk, heads, G, bias):
    a = math.sqrt(6 / (dm + dk))
    p = {"W_Q": r4(rng.uniform(-a, a, (heads, dm, dk))),
         "W_K": r4(rng.uniform(-a, a, (G, dm, dk))),
         "W_V": r4(rng.uniform(-a, a, (G, dm, dk)))}
    if bias:
        p["b_Q"] = r4(rng.uniform(-0.3, 0.3, (heads, dk)))
        p["b_K"] = r4(rng.uniform(-0.3, 0.3, (G, dk)))
        p["b_V"] = r4(rng.uniform(-0.3, 0.3, (G, dk)))
    ao = math.sqrt(6 / (heads * dk + dm))
    p["W_O"] = r4(rng.uniform(-ao, ao, (heads * dk, dm)))
    if bias:
        p["b_O"] = r4(rng.uniform(-0.3, 0.3, dm))
    return p


def gqa_layer(x, p, heads, G, dk, mask, scale):
    """Grouped-query attention: K, V per kv-head, repeat_interleave'd to the heads."""
    n = x.shape[0]
    zero = torch.zeros(1, dtype=torch.float64)
    q = torch.einsum("nd,hde->hne", x, p["W_Q"]) + (p["b_Q"][:, None, :] if "b_Q" in p else zero)
    k = torch.einsum("nd,gde->gne", x, p["W_K"]) + (p["b_K"][:, None, :] if "b_K" in p else zero)
    v = torch.einsum("nd,gde->gne", x, p["W_V"]) + (p["b_V"][:, None, :] if "b_V" in p else zero)
    k_rep = k.repeat_interleave(heads // G, dim=0)  # (heads, n, dk)
    v_rep = v.repeat_interleave(heads // G, dim=0)
    scores = q @ k_rep.transpose(1, 2)
    scaled = scores / math.sqrt(dk) if scale else scores * 1.0
    hide = torch.tensor([[not allowed(mask, i, j) for j in range(n)] for i in range(n)])
    masked = scaled.masked_fill(hide, float("-inf"))
    a = torch.softmax(masked, dim=-1)
    z = a @ v_rep
    concat = z.transpose(0, 1).reshape(n, heads * dk)
    out = concat @ p["W_O"] + (p["b_O"] if "b_O" in p else 0)
    return {"Q": q, "K": k_rep, "V": v_rep, "scores": scores, "scaled": scaled, "masked": masked, "weights": a,
            "Z": z, "concat": concat, "output": out}


def decode(x, p, heads, G, dk, mask, scale):
    """Token by token: the new q row per head, k and v rows per kv-head into
    caches, one score row against the cache; returns Z_decode (heads, n, dk)."""
    n = x.shape[0]
    kc = [[] for _ in range(G)]
    vc = [[] for _ in range(G)]
    rows = [[] for _ in range(heads)]
    for t in range(n):
        xt = x[t]
        for g in range(G):
            kc[g].append(xt @ p["W_K"][g] + (p["b_K"][g] if "b_K" in p else 0))
            vc[g].append(xt @ p["W_V"][g] + (p["b_V"][g] if "b_V" in p else 0))
        for h in range(heads):
            g = h // (heads // G)
            q = xt @ p["W_Q"][h] + (p["b_Q"][h] if "b_Q" in p else 0)
            keys = [j for j in range(t + 1) if allowed(mask, t, j)]
            K = torch.stack([kc[g][j] for j in keys])
            V = torch.stack([vc[g][j] for j in keys])
            s = K @ q
            if scale:
                s = s / math.sqrt(dk)
            rows[h].append(torch.softmax(s, dim=0) @ V)
    return torch.stack([torch.stack(r) for r in rows])


def close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.all(np.abs(a - b) <= TOL * np.maximum(1, np.abs(b)))


def make_layer_case(case):
    name, seed, n, dm, dk, heads, G, mask, scale, bias = case
    rng = np.random.default_rng(seed)
    x_np = r4(rng.uniform(-1, 1, (n, dm)))
    p_np = layer_params(rng, dm, dk, heads, G, bias)
    x = t64(x_np)
    p = {k: t64(v) for k, v in p_np.items()}
    r = gqa_layer(x, p, heads, G, dk, mask, scale)
    zd = decode(x, p, heads, G, dk, mask, scale)
    assert close(zd.numpy(), r["Z"].numpy()), name + ": decoded rows differ from the causal ones"
    # self-check: every head given its group's weights (ungrouped attention) gives the same Z
    size = heads // G
    full = {"W_Q": p["W_Q"], "W_K": p["W_K"].repeat_interleave(size, 0), "W_V": p["W_V"].repeat_interleave(size, 0),
            "W_O": p["W_O"]}
    for k in ("b_Q", "b_O"):
        if k in p:
            full[k] = p[k]
    for k in ("b_K", "b_V"):
        if k in p:
            full[k] = p[k].repeat_interleave(size, 0)
    assert close(gqa_layer(x, full, heads, heads, dk, mask, scale)["Z"].numpy(), r["Z"].numpy())
    zeros = np.zeros(dk)
    doc = {"tokens": [f"t{i}" for i in range(n)], "sentence": " ".join(f"t{i}" for i in range(n)),
           "config": {"d_model": dm, "d_k": dk, "heads": heads, "seed": 1, "mask": mask, "scale": scale,
                      "pos_enc": False, "bias": bias, "kv_heads": G},
           "X": x_np.tolist(), "heads": []}
    for h in range(heads):
        g = h // size
        hd = {"W_Q": p_np["W_Q"][h].tolist(), "W_K": p_np["W_K"][g].tolist(), "W_V": p_np["W_V"][g].tolist(),
              "b_Q": (p_np["b_Q"][h] if bias else zeros).tolist(), "b_K": (p_np["b_K"][g] if bias else zeros).tolist(),
              "b_V": (p_np["b_V"][g] if bias else zeros).tolist()}
        for k in ("Q", "K", "V", "scores", "scaled", "masked", "weights", "Z"):
            hd[k] = plain(r[k][h])
        hd["Z_decode"] = plain(zd[h])
        doc["heads"].append(hd)
    doc["concat"] = plain(r["concat"])
    doc["W_O"] = p_np["W_O"].tolist()
    doc["b_O"] = (p_np["b_O"] if bias else np.zeros(dm)).tolist()
    doc["output"] = plain(r["output"])
    write_json(f"gqa_ref_layer_{name}.json", doc)


def make_model_case():
    name, seed, layers, heads, G, dm, dk = "token", 44, 2, 4, 2, 6, 3
    mask, sentence, targets = "causal", "a c b g e d", [[1, "d"], [3, "a"], [5, "g"]]
    rng = np.random.default_rng(seed)
    E = r4(rng.uniform(-1, 1, (len(VOCAB), dm)))
    P = r4(rng.uniform(-1, 1, (MAX_LEN, dm)))
    lps = [layer_params(rng, dm, dk, heads, G, True) for _ in range(layers)]
    au = math.sqrt(6 / (dm + len(VOCAB)))
    U = r4(rng.uniform(-au, au, (dm, len(VOCAB))))
    bU = r4(rng.uniform(-0.3, 0.3, len(VOCAB)))
    size = heads // G
    cfg = {"d_model": dm, "d_k": dk, "heads": heads, "layers": layers, "pos": "learned", "max_len": MAX_LEN,
           "mask": mask, "scale": True, "bias": True, "objective": "token", "kv_heads": G}
    file_layers = []
    for lp in lps:
        hs = []
        for h in range(heads):
            hd = {"W_Q": lp["W_Q"][h].tolist()}
            if h % size == 0:
                hd["W_K"], hd["W_V"] = lp["W_K"][h // size].tolist(), lp["W_V"][h // size].tolist()
            hd["b_Q"] = lp["b_Q"][h].tolist()
            if h % size == 0:
                hd["b_K"], hd["b_V"] = lp["b_K"][h // size].tolist(), lp["b_V"][h // size].tolist()
            hs.append(hd)
        file_layers.append({"heads": hs, "W_O": lp["W_O"].tolist(), "b_O": lp["b_O"].tolist()})
    doc = model_doc(sentence, VOCAB, cfg,
                    {"E": E.tolist(), "P": P.tolist(), "layers": file_layers, "U": U.tolist(), "b_U": bU.tolist()})
    write_json(f"gqa_ref_model_{name}.model.json", doc)
    # autograd: leaves in the model file's order
    tE, tP, tU, tbU = t64(E, True), t64(P, True), t64(U, True), t64(bU, True)
    tl = [{k: t64(v, True) for k, v in lp.items()} for lp in lps]
    ids = [VOCAB.index(w) for w in sentence.split()]
    n = len(ids)
    x = tE[torch.tensor(ids)] + tP[:n]
    keep = []
    for lp in tl:
        r = gqa_layer(x, lp, heads, G, dk, mask, True)
        x = x + r["output"]
        keep.append((r, x))
    logits = x @ tU + tbU
    loss = token_loss(logits, targets, VOCAB)
    loss.backward()
    grads = {"E": tE.grad.numpy().tolist(), "P": tP.grad.numpy().tolist()}
    for l, lp in enumerate(tl):
        for h in range(heads):
            base = f"layers[{l}].heads[{h}]."
            grads[base + "W_Q"] = lp["W_Q"].grad[h].numpy().tolist()
            if h % size == 0:
                grads[base + "W_K"] = lp["W_K"].grad[h // size].numpy().tolist()
                grads[base + "W_V"] = lp["W_V"].grad[h // size].numpy().tolist()
            grads[base + "b_Q"] = lp["b_Q"].grad[h].numpy().tolist()
            if h % size == 0:
                grads[base + "b_K"] = lp["b_K"].grad[h // size].numpy().tolist()
                grads[base + "b_V"] = lp["b_V"].grad[h // size].numpy().tolist()
        grads[f"layers[{l}].W_O"] = lp["W_O"].grad.numpy().tolist()
        grads[f"layers[{l}].b_O"] = lp["b_O"].grad.numpy().tolist()
    grads["U"], grads["b_U"] = tU.grad.numpy().tolist(), tbU.grad.numpy().tolist()
    exp = {"loss": loss.item(), "logits": plain(logits),
           "layers": [{"output": plain(r["output"]), "residual": plain(res),
                       "heads": [{k: plain(r[k][h]) for k in ("Q", "K", "V", "weights", "Z")} for h in range(heads)]}
                      for r, res in keep],
           "grads": grads}
    write_json(f"gqa_ref_model_{name}.json", {"sentence": sentence, "targets": targets, "expected": exp})


def main():
    run(*[functools.partial(make_layer_case, case) for case in LAYER_CASES], make_model_case)


if __name__ == "__main__":
    main()
