#!/usr/bin/python3
"""check_wide_numpy.py — GPT-2 small's width, and 256 tokens, through attnviz
--hf, against a NumPy float64 forward (issue 26: "a wider generated model, 1
layer, width 768, 12 heads, checked against a NumPy forward in CI"; "allow up
to 256 tokens with --hf").

    check_wide_numpy.py ATTNVIZ

Writes, in a temporary folder, a 1-layer GPT-2 with n_embd 768, 12 heads,
n_inner 3072 and GPT-2's LayerNorm epsilon, F32 weights drawn from
numpy.random.default_rng(26) (about 29 MB, so it is made here, not checked
in), a tiny byte-level vocab.json/merges.txt; runs attnviz --headless --hf
--dump-json on it and compares every stage of every head, the block's
residuals and the ten next tokens with this file's forward (and --explain
runs at this width). Then a narrow one (width 32, 4 heads) with 300
positions, on a sentence of 256 tokens (one a byte: no merges), the same
way, and 257 tokens refused with attnviz's message. The forward is written
from
GPT-2's block (pre-LayerNorm, gelu_new, causal mask, 1/sqrt(d_k)). Agreement:
|a - b| <= 1e-9 * max(1, |b|). Exit 0 when all agree, 1 with the first
difference. Needs only NumPy (Debian's python3-numpy)."""

import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

V = 300  # the byte vocabulary and <|endoftext|>, and room


def byte_vocab():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    vocab = {chr(c): i for i, c in enumerate(cs)}
    vocab["<|endoftext|>"] = len(vocab)
    return vocab


def write_folder(folder, params, D, H, P):
    header, blobs, off = {}, [], 0
    for name, t in params.items():
        raw = t.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for raw in blobs:
            f.write(raw)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": 1, "n_head": H, "n_embd": D, "n_positions": P,
                   "vocab_size": V}, f)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(byte_vocab(), f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")


def layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def forward(p, ids, H):
    n, D = len(ids), p["wte.weight"].shape[1]
    DK = D // H
    x = p["wte.weight"][ids] + p["wpe.weight"][:n]
    out = {"resid_pre": x}
    X = layer_norm(x, p["h.0.ln_1.weight"], p["h.0.ln_1.bias"])
    out["X"] = X
    qkv = X @ p["h.0.attn.c_attn.weight"] + p["h.0.attn.c_attn.bias"]
    heads, zs = [], []
    keep = np.tril(np.ones((n, n), dtype=bool))
    for h in range(H):
        q, k, v = (qkv[:, part * D + h * DK: part * D + (h + 1) * DK] for part in range(3))
        scores = q @ k.T
        scaled = scores / math.sqrt(DK)
        masked = np.where(keep, scaled, -np.inf)
        e = np.exp(masked - masked.max(axis=1, keepdims=True))
        weights = e / e.sum(axis=1, keepdims=True)
        z = weights @ v
        zs.append(z)
        heads.append({"Q": q, "K": k, "V": v, "scores": scores, "scaled": scaled, "masked": masked,
                      "weights": weights, "Z": z})
    out["heads"] = heads
    out["concat"] = np.concatenate(zs, axis=1)
    out["output"] = out["concat"] @ p["h.0.attn.c_proj.weight"] + p["h.0.attn.c_proj.bias"]
    x = x + out["output"]
    out["resid_mid"] = x
    hid = layer_norm(x, p["h.0.ln_2.weight"], p["h.0.ln_2.bias"]) @ p["h.0.mlp.c_fc.weight"] + p["h.0.mlp.c_fc.bias"]
    hid = 0.5 * hid * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (hid + 0.044715 * hid ** 3)))
    out["mlp_out"] = hid @ p["h.0.mlp.c_proj.weight"] + p["h.0.mlp.c_proj.bias"]
    x = x + out["mlp_out"]
    out["residual"] = x
    logits = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"])[-1] @ p["wte.weight"].T
    probs = np.exp(logits - logits.max())
    out["probs"] = probs / probs.sum()
    return out


def close(a, b, where):
    a = np.array([[-np.inf if v is None else v for v in row] for row in a], dtype=np.float64) \
        if isinstance(a[0], list) else np.array(a, dtype=np.float64)
    if a.shape != b.shape:
        sys.exit("%s: shape %s, NumPy %s" % (where, a.shape, b.shape))
    inf = np.isinf(b)
    if not np.array_equal(np.isinf(a), inf):
        sys.exit("%s: the masked cells differ" % where)
    a, b = np.where(inf, 0, a), np.where(inf, 0, b)  # the masked cells agree (above): compare the rest
    diff = np.abs(a - b) > 1e-9 * np.maximum(1, np.abs(b))
    if diff.any():
        i = tuple(np.argwhere(diff)[0])
        sys.exit("%s%s: attnviz %r, NumPy %r" % (where, list(i), a[i], b[i]))


def params(D, P):
    """A 1-layer GPT-2's F32 weights: width D (n_inner 4·D), P positions, from default_rng(26)."""
    INNER = 4 * D
    rng = np.random.default_rng(26)
    r32 = lambda *shape, s=0.1, o=0.0: (rng.standard_normal(shape) * s + o).astype(np.float32)
    p = {"wte.weight": r32(V, D, s=0.3), "wpe.weight": r32(P, D, s=0.1),
         "h.0.ln_1.weight": r32(D, o=1.0), "h.0.ln_1.bias": r32(D),
         "h.0.attn.c_attn.weight": r32(D, 3 * D, s=0.08), "h.0.attn.c_attn.bias": r32(3 * D),
         "h.0.attn.c_proj.weight": r32(D, D, s=0.05), "h.0.attn.c_proj.bias": r32(D),
         "h.0.ln_2.weight": r32(D, o=1.0), "h.0.ln_2.bias": r32(D),
         "h.0.mlp.c_fc.weight": r32(D, INNER, s=0.05), "h.0.mlp.c_fc.bias": r32(INNER),
         "h.0.mlp.c_proj.weight": r32(INNER, D, s=0.03), "h.0.mlp.c_proj.bias": r32(D),
         "ln_f.weight": r32(D, o=1.0), "ln_f.bias": r32(D)}
    return p


def check(attnviz, D, H, P, sentence, explain):
    """Every stage of a 1-layer model of width D, H heads and P positions on
    sentence, against forward(); each (spec, text) of explain printed."""
    p = params(D, P)
    with tempfile.TemporaryDirectory() as folder:
        write_folder(folder, p, D, H, P)
        dump = os.path.join(folder, "dump.json")
        subprocess.run([attnviz, "--headless", "--hf", folder, "--sentence", sentence, "--dump-json", dump],
                       check=True)
        with open(dump) as f:
            d = json.load(f)
        for spec, want in explain:
            res = subprocess.run([attnviz, "--headless", "--hf", folder, "--sentence", sentence, "--explain", spec],
                                 capture_output=True, text=True)
            if res.returncode != 0 or want not in res.stdout:
                sys.exit("--explain %s: exit %d, %s" % (spec, res.returncode, (res.stdout + res.stderr)[-300:]))
    ids = d["token_ids"]  # no merges: one token per byte, checked here
    want = [byte_vocab()[c] for c in "".join(bytes_to_char()[b] for b in sentence.encode())]
    if ids != want:
        sys.exit("token_ids %r, expected %r" % (ids, want))
    p64 = {k: v.astype(np.float64) for k, v in p.items()}
    ref = forward(p64, ids, H)
    L = d["layers"][0]
    for key in ("resid_pre", "X", "concat", "output", "resid_mid", "mlp_out", "residual"):
        close(L[key], ref[key], key)
    if len(L["heads"]) != H:
        sys.exit("%d heads, expected %d" % (len(L["heads"]), H))
    for h in range(H):
        for key, m in ref["heads"][h].items():
            close(L["heads"][h][key], m, "heads[%d].%s" % (h, key))
    top = sorted(range(V), key=lambda i: (-ref["probs"][i], i))[:10]
    if [e["id"] for e in d["next"]] != top:
        sys.exit("next %r, NumPy %r" % ([e["id"] for e in d["next"]], top))
    close([e["p"] for e in d["next"]], ref["probs"][top], "next")
    print("width %d, %d heads, %d tokens: every stage and next agree with NumPy" % (D, H, len(ids)))


def main():
    attnviz = sys.argv[1]
    # GPT-2 small's width; --explain at it: a head's 768 terms, and the output's 768
    check(attnviz, 768, 12, 32, "Heads: 12, width 768!",
          (("q:0:11:3:63", "(head 12 of 12)"), ("output:0:0:20:767", "m=767")))
    # 256 tokens, --hf's most; --explain on the last row
    words = "the cat sat on the mat and then it ran off "
    long = (words * 7)[:256]
    check(attnviz, 32, 4, 300, long, (("weights:0:3:255:0", "(head 4 of 4)"),))
    with tempfile.TemporaryDirectory() as folder:  # one more is refused, in attnviz's words
        write_folder(folder, params(32, 300), 32, 4, 300)
        res = subprocess.run([attnviz, "--headless", "--hf", folder, "--sentence", long + "x", "--print", "weights"],
                             capture_output=True, text=True)
        want = "The sentence has 257 tokens; this model reads at most 256."
        if res.returncode == 0 or want not in res.stderr:
            sys.exit("257 tokens: exit %d, %r" % (res.returncode, res.stderr[-300:]))
    print("257 tokens: refused (%s)" % want)


def bytes_to_char():
    vocab = byte_vocab()
    chars = [c for c in vocab if c != "<|endoftext|>"]
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    for b in range(256):
        if b not in bs:
            bs.append(b)
    return {b: chars[i] for i, b in enumerate(bs)}


if __name__ == "__main__":
    main()
