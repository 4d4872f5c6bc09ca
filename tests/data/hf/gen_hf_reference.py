#!/usr/bin/python3
"""gen_hf_reference.py — small random GPT-2s in Hugging Face's exact folder
layout, and an independent PyTorch (float64) forward of each, for attnviz's
--hf (issue 26).

What it makes, one folder per case under tests/data/hf/ (next to this script):

  config.json          as transformers writes it (some cases omit the fields
                       that have defaults, to test the defaults)
  model.safetensors    written by hand here (8-byte length, JSON header padded
                       with spaces to a multiple of 8, raw little-endian data)
  vocab.json + merges.txt   a tiny GPT-2 byte-level BPE (256 bytes, a few
                       merges, <|endoftext|>), or
  vocab.txt            a tiny BERT vocabulary (the Chinese GPT-2 models' kind)
  reference.json       the sentence, its token ids and every stage PyTorch
                       computed, per layer: resid_pre, X (LN1's output), each
                       head's Q, K, V, scores, scaled, masked (-inf as null),
                       weights, Z; concat, output (after c_proj), resid_mid,
                       mlp_out, residual; and next: the ten most likely next
                       tokens at the last position

  f32_prefix_tied    F32, keys "transformer.h.0…", tied lm_head, the causal
                     buffer h.N.attn.bias as F32 1x1xPxP and h.N.attn.masked_bias;
                     every config field written out; 2 layers x 2 heads, d 8
  f16_bare_untied    F16, keys without the prefix, lm_head.weight of its own,
                     h.N.attn.bias as BOOL; n_inner 24 (not 4 d), no
                     layer_norm_epsilon / activation_function (defaults);
                     2 layers x 4 heads, d 16
  bf16_prefix_eps    BF16, prefix, tied, no causal buffer, layer_norm_epsilon
                     1e-3, n_inner null; 3 layers x 2 heads, d 12
  wordpiece_12heads  F32, vocab.txt, no prefix, tied; 1 layer x 12 heads,
                     d 24 (more heads than the core's toy cap of 8)
  planted_prev_head  F32, prefix, tied; 2 layers x 4 heads, d 16; layer 1
                     head 2 made a previous-token head by hand
                     (plant_prev_head) for the head finder and the
                     real-heads lesson page; reference.json adds "planted"
                     and "head_scores" (prev_token, first_token per head)

The forward is written here from the GPT-2 paper's block (pre-LayerNorm,
Radford et al. 2019) and transformers' modeling_gpt2 semantics, not from
attnviz's C: x0 = wte[id] + wpe[pos]; per layer X = LN1(x), [q k v] =
X c_attn.w + c_attn.b (Conv1D: weight (d, 3d)), head h takes columns
h*dk..(h+1)*dk of each; scores = q k^T, scaled = scores / sqrt(dk), causal
mask (-inf), softmax, Z = A v; concat; output = concat c_proj.w + c_proj.b;
resid_mid = x + output; mlp_out = gelu_new(LN2(resid_mid) c_fc.w + c_fc.b)
c_proj.w + c_proj.b; residual = resid_mid + mlp_out. Then LN_f and logits =
LN_f(x) wte^T (or lm_head.weight^T). gelu_new is the tanh form. Weights are
drawn in float32 from torch.Generator(seed), rounded to the file's dtype, and
the reference reads them back from those rounded values as float64, so the
numbers attnviz reads are exactly the ones used here.

Deterministic: a rerun rewrites the same bytes. Needs python3-torch:

    /usr/bin/python3 tests/data/hf/gen_hf_reference.py
"""

import json
import math
import os
import re
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {"F32": (torch.float32, 4), "F16": (torch.float16, 2), "BF16": (torch.bfloat16, 2)}


# ---- GPT-2's byte-level alphabet and a small BPE -----------------------------

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


BYTE_CHAR = bytes_to_unicode()
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("a", "t"), ("Ġ", "c"), ("Ġc", "at"),
          ("Ġ", "s"), ("Ġs", "at"), ("o", "n"), ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at"),
          ("t", "he"), ("i", "t"), ("Ġ", "it")]


def bpe_vocab():
    vocab = {}
    for b in range(256):
        vocab[BYTE_CHAR[b]] = len(vocab)
    for a, b in MERGES:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return vocab


# The sentences are ASCII, where GPT-2's \p{L} and \p{N} are [A-Za-z] and [0-9].
PRETOKEN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bpe_encode(vocab, text):
    ranks = {m: i for i, m in enumerate(MERGES)}
    ids = []
    for pre in PRETOKEN.findall(text):
        parts = [BYTE_CHAR[b] for b in pre.encode("utf-8")]
        while len(parts) > 1:
            best = min(range(len(parts) - 1), key=lambda i: ranks.get((parts[i], parts[i + 1]), 1 << 30))
            if (parts[best], parts[best + 1]) not in ranks:
                break
            parts[best:best + 2] = [parts[best] + parts[best + 1]]
        ids += [vocab[p] for p in parts]
    return ids


WP_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "。", "，", "上", "了", "它", "在",
            "坐", "垫", "子", "猫", "狗", "累", "为", "因", "的", "是", "the", "cat", "##s", "a", "b"]


def wp_encode(text):
    # the sentences are CJK characters and CJK punctuation only: one token each
    return [WP_VOCAB.index("[CLS]")] + [WP_VOCAB.index(ch) for ch in text]


# ---- the model ---------------------------------------------------------------

def layer_norm(x, w, b, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(p, cfg, ids):
    d, nh = cfg["n_embd"], cfg["n_head"]
    dk = d // nh
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    n = len(ids)
    x = p["wte"][ids] + p["wpe"][:n]
    layers = []
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for l in range(cfg["n_layer"]):
        g = lambda k: p["h.%d.%s" % (l, k)]
        rec = {"resid_pre": x}
        X = layer_norm(x, g("ln_1.weight"), g("ln_1.bias"), eps)
        rec["X"] = X
        qkv = X @ g("attn.c_attn.weight") + g("attn.c_attn.bias")
        heads, zs = [], []
        for h in range(nh):
            q = qkv[:, h * dk:(h + 1) * dk]
            k = qkv[:, d + h * dk:d + (h + 1) * dk]
            v = qkv[:, 2 * d + h * dk:2 * d + (h + 1) * dk]
            scores = q @ k.T
            scaled = scores / math.sqrt(dk)
            masked = torch.where(causal, scaled, torch.tensor(float("-inf"), dtype=torch.float64))
            weights = torch.softmax(masked, dim=-1)
            z = weights @ v
            zs.append(z)
            heads.append({"Q": q, "K": k, "V": v, "scores": scores, "scaled": scaled,
                          "masked": masked, "weights": weights, "Z": z})
        rec["heads"] = heads
        concat = torch.cat(zs, dim=1)
        rec["concat"] = concat
        out = concat @ g("attn.c_proj.weight") + g("attn.c_proj.bias")
        rec["output"] = out
        x = x + out
        rec["resid_mid"] = x
        h2 = layer_norm(x, g("ln_2.weight"), g("ln_2.bias"), eps)
        mlp = gelu_new(h2 @ g("mlp.c_fc.weight") + g("mlp.c_fc.bias")) @ g("mlp.c_proj.weight") + \
            g("mlp.c_proj.bias")
        rec["mlp_out"] = mlp
        x = x + mlp
        rec["residual"] = x
        layers.append(rec)
    xf = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"], eps)
    unembed = p["lm_head.weight"] if "lm_head.weight" in p else p["wte"]
    logits = xf[-1] @ unembed.T
    probs = torch.softmax(logits, dim=-1)
    return layers, probs


# ---- files -------------------------------------------------------------------

def make_params(cfg, seed, untied):
    gen = torch.Generator().manual_seed(seed)
    d, V, P = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    inner = cfg.get("n_inner") or 4 * d

    def rnd(*shape, scale=0.3, offset=0.0):
        return (torch.randn(*shape, generator=gen, dtype=torch.float32) * scale + offset)

    p = {"wte": rnd(V, d, scale=0.5), "wpe": rnd(P, d, scale=0.2)}
    for l in range(cfg["n_layer"]):
        pre = "h.%d." % l
        p[pre + "ln_1.weight"] = rnd(d, scale=0.1, offset=1.0)
        p[pre + "ln_1.bias"] = rnd(d, scale=0.1)
        p[pre + "attn.c_attn.weight"] = rnd(d, 3 * d, scale=0.5)
        p[pre + "attn.c_attn.bias"] = rnd(3 * d, scale=0.1)
        p[pre + "attn.c_proj.weight"] = rnd(d, d, scale=0.3)
        p[pre + "attn.c_proj.bias"] = rnd(d, scale=0.1)
        p[pre + "ln_2.weight"] = rnd(d, scale=0.1, offset=1.0)
        p[pre + "ln_2.bias"] = rnd(d, scale=0.1)
        p[pre + "mlp.c_fc.weight"] = rnd(d, inner, scale=0.3)
        p[pre + "mlp.c_fc.bias"] = rnd(inner, scale=0.1)
        p[pre + "mlp.c_proj.weight"] = rnd(inner, d, scale=0.3)
        p[pre + "mlp.c_proj.bias"] = rnd(d, scale=0.1)
    p["ln_f.weight"] = rnd(d, scale=0.1, offset=1.0)
    p["ln_f.bias"] = rnd(d, scale=0.1)
    if untied:
        p["lm_head.weight"] = rnd(V, d, scale=0.5)
    return p


def tensor_bytes(t, dtype):
    if dtype == "BOOL":
        return t.to(torch.uint8).numpy().tobytes(), "BOOL"
    tt, _ = DTYPES[dtype]
    t = t.to(tt)
    if tt == torch.bfloat16:  # numpy has no bfloat16: its bits are the top half of float32's
        raw = t.to(torch.float32).view(torch.int32).numpy()
        return b"".join(struct.pack("<H", (int(v) >> 16) & 0xFFFF) for v in raw.reshape(-1)), dtype
    return t.contiguous().numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes(), dtype


def write_safetensors(path, tensors):
    """tensors: list of (name, tensor, dtype) in file order."""
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t, dtype in tensors:
        raw, dt = tensor_bytes(t, dtype)
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for raw in blobs:
            f.write(raw)


def rounded(t, dtype):
    return t.to(DTYPES[dtype][0]).to(torch.float64)


def jnum(v):
    v = float(v)
    return None if math.isinf(v) else v


def jmat(t):
    return [[jnum(v) for v in row] for row in t.tolist()]


PLANT_ALPHA = 2.0 * math.pi / 24.0  # the position angle step: no wrap within 16 positions
PLANT_GAIN = 60.0                    # how sharply the planted head's query picks its angle


def plant_prev_head(p, cfg, layer, head):
    """Makes head `head` of layer `layer` a previous-token head, by hand:
    positions become angles i*alpha in dims 0,1 (and their negatives in 2,3,
    so every wpe row has mean 0 over those four and LayerNorm only rescales
    them); token embeddings live in the other dims with mean 0 per row. The
    head's key reads (cos i*alpha, sin i*alpha), its query the same turned
    back by alpha and times PLANT_GAIN, so q_i . k_j = g*cos((i-1-j)*alpha)
    is largest at j = i-1. Its other weights are zero. The earlier layers'
    outputs and the MLPs are scaled down so the angle survives to `layer`."""
    d, nh = cfg["n_embd"], cfg["n_head"]
    dk = d // nh
    P = cfg["n_positions"]
    wpe = torch.zeros(P, d)
    for i in range(P):
        c, s = math.cos(i * PLANT_ALPHA), math.sin(i * PLANT_ALPHA)
        wpe[i, 0:4] = torch.tensor([c, s, -c, -s]) * 8.0
    p["wpe"] = wpe
    wte = p["wte"].clone()
    wte[:, 0:4] = 0.0
    rest = wte[:, 4:]
    wte[:, 4:] = (rest - rest.mean(dim=1, keepdim=True)) * 0.3
    p["wte"] = wte
    for l in range(cfg["n_layer"]):
        pre = "h.%d." % l
        for k in ("attn.c_proj.weight", "attn.c_proj.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"):
            p[pre + k] = p[pre + k] * 0.05
        if l <= layer:
            # LN1 keeps dims 0..3 as they are (weight 1, bias 0) up to the planted layer
            p[pre + "ln_1.weight"][0:4] = 1.0
            p[pre + "ln_1.bias"][0:4] = 0.0
    pre = "h.%d." % layer
    w, b = p[pre + "attn.c_attn.weight"], p[pre + "attn.c_attn.bias"]
    q0, k0 = head * dk, d + head * dk
    w[:, q0:q0 + dk] = 0.0
    w[:, k0:k0 + dk] = 0.0
    b[q0:q0 + dk] = 0.0
    b[k0:k0 + dk] = 0.0
    ca, sa = math.cos(PLANT_ALPHA), math.sin(PLANT_ALPHA)
    # row vector x (cos t, sin t) times [[cos a, -sin a], [sin a, cos a]] = (cos(t-a), sin(t-a))
    w[0, q0], w[0, q0 + 1] = PLANT_GAIN * ca, -PLANT_GAIN * sa
    w[1, q0], w[1, q0 + 1] = PLANT_GAIN * sa, PLANT_GAIN * ca
    w[0, k0], w[1, k0 + 1] = 1.0, 1.0


def head_scores(layers, n):
    """prev_token and first_token of every head (means over rows 1..n-1), as
    attnviz's head finder defines them (src/hf/hf_heads.h)."""
    out = []
    for rec in layers:
        for hd in rec["heads"]:
            a = hd["weights"]
            prev = sum(float(a[i, i - 1]) for i in range(1, n)) / (n - 1)
            first = sum(float(a[i, 0]) for i in range(1, n)) / (n - 1)
            out.append({"prev_token": prev, "first_token": first})
    return out


def make_case(name, cfg_written, cfg, seed, dtype, prefix, untied, buffer_dtype, tokenizer, sentence,
              plant=None):
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    params = make_params(cfg, seed, untied)
    if plant:
        plant_prev_head(params, cfg, *plant)
    order = ["wte", "wpe"] + [k for k in params if k.startswith("h.")] + ["ln_f.weight", "ln_f.bias"]
    tensors = []
    for k in order:
        key = k + ".weight" if k in ("wte", "wpe") else k  # transformers' names: wte.weight
        tensors.append((prefix + key, params[k], dtype))
        if buffer_dtype and k.endswith("attn.c_proj.bias"):
            l = k.split(".")[1]
            P = cfg["n_positions"]
            mask = torch.tril(torch.ones(P, P)).view(1, 1, P, P)
            tensors.append((prefix + "h.%s.attn.bias" % l, mask, buffer_dtype))
            if buffer_dtype == "F32":
                tensors.append((prefix + "h.%s.attn.masked_bias" % l, torch.tensor(-1e4), "F32"))
    if untied:
        tensors.append(("lm_head.weight", params["lm_head.weight"], dtype))
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg_written, f, indent=2)
        f.write("\n")
    if tokenizer == "bpe":
        vocab = bpe_vocab()
        with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
            json.dump(vocab, f, ensure_ascii=False)
        with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n")
            for a, b in MERGES:
                f.write("%s %s\n" % (a, b))
        ids = bpe_encode(vocab, sentence)
        inv = {i: t for t, i in vocab.items()}
        byte_of = {c: b for b, c in BYTE_CHAR.items()}

        def piece(i):
            if inv[i] == "<|endoftext|>":
                return inv[i]
            return bytes(byte_of[c] for c in inv[i]).decode("utf-8", errors="replace")
    else:
        with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in WP_VOCAB))
        ids = wp_encode(sentence)

        def piece(i):
            return WP_VOCAB[i]
    p64 = {k: rounded(v, dtype) for k, v in params.items()}
    layers, probs = forward(p64, cfg, ids)
    top = torch.argsort(-probs, stable=True)[:10].tolist()
    ref = {
        "sentence": sentence,
        "token_ids": ids,
        "layers": [{
            **{k: jmat(rec[k]) for k in ("resid_pre", "X")},
            "heads": [{k: jmat(v) for k, v in hd.items()} for hd in rec["heads"]],
            **{k: jmat(rec[k]) for k in ("concat", "output", "resid_mid", "mlp_out", "residual")},
        } for rec in layers],
        "next": [{"token": piece(i), "id": i, "p": float(probs[i])} for i in top],
    }
    if plant:
        ref["planted"] = {"layer": plant[0], "head": plant[1]}
        ref["head_scores"] = head_scores(layers, len(ids))
    with open(os.path.join(folder, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")


def main():
    bpe_V = len(bpe_vocab())
    base = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "bos_token_id": bpe_V - 1,
            "eos_token_id": bpe_V - 1, "vocab_size": bpe_V, "n_ctx": 16, "n_positions": 16}
    c1 = dict(base, activation_function="gelu_new", layer_norm_epsilon=1e-5, n_embd=8, n_head=2,
              n_layer=2, n_inner=None, tie_word_embeddings=True, scale_attn_weights=True)
    make_case("f32_prefix_tied", c1, c1, 11, "F32", "transformer.", False, "F32", "bpe",
              "the cat sat on the mat")
    c2 = dict(base, n_embd=16, n_head=4, n_layer=2, n_inner=24, tie_word_embeddings=False)
    make_case("f16_bare_untied", c2, c2, 12, "F16", "", True, "BOOL", "bpe", "It sat, 42 cats!")
    c3 = dict(base, activation_function="gelu_new", layer_norm_epsilon=1e-3, n_embd=12, n_head=2,
              n_layer=3, n_inner=None)
    make_case("bf16_prefix_eps", c3, c3, 13, "BF16", "transformer.", False, None, "bpe",
              "the mat on the cat")
    c4 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": len(WP_VOCAB),
          "n_positions": 16, "n_embd": 24, "n_head": 12, "n_layer": 1, "tokenizer_class": "BertTokenizer"}
    make_case("wordpiece_12heads", c4, c4, 14, "F32", "", False, None, "wordpiece", "猫坐在垫子上，它累了。")
    c5 = dict(base, activation_function="gelu_new", layer_norm_epsilon=1e-5, n_embd=16, n_head=4,
              n_layer=2, n_inner=None, tie_word_embeddings=True)
    make_case("planted_prev_head", c5, c5, 15, "F32", "transformer.", False, None, "bpe",
              "the cat sat on the mat, then it sat on the cat", plant=(1, 2))


if __name__ == "__main__":
    main()
