#!/usr/bin/python3
"""train_torch.py — the PyTorch side of bench/train_compare.sh: attnviz's
model (attention only: x0 = E[token] + sinusoids; per layer, per head
Q, K, V = x W, A = softmax(Q K^T / sqrt(d_k)), Z = A V, x + concat(Z) W_O;
the pointer loss -ln of the head-averaged last-layer weight on the target,
or the token loss through U, b_U), trained with torch.optim.AdamW (betas
0.9/0.999, eps 1e-8, weight decay on E and the W matrices, not on biases)
in float64 on one thread, on batches shaped like the task's (padded to the
longest sentence with a key mask, as a PyTorch user would batch them).

Prints one line: "torch_ms_per_step=X steps=N" (after WARMUP steps).

Usage: train_torch.py STEPS BATCH LAYERS HEADS D_MODEL D_K N VOCAB [pointer|token]
"""
import math
import sys
import time

import torch

WARMUP = 20


def sinusoids(n, d):
    pe = torch.zeros(n, d, dtype=torch.float64)
    for p in range(n):
        for c in range(d):
            angle = p / 10000 ** ((c - c % 2) / d)
            pe[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


class Model(torch.nn.Module):
    def __init__(self, layers, heads, d_model, d_k, vocab, token):
        super().__init__()
        f64 = dict(dtype=torch.float64)
        self.E = torch.nn.Parameter(torch.empty(vocab, d_model, **f64).uniform_(-1, 1))
        self.layers = torch.nn.ModuleList()
        for _ in range(layers):
            layer = torch.nn.Module()
            layer.W_Q = torch.nn.Parameter(torch.empty(heads, d_model, d_k, **f64).uniform_(-0.4, 0.4))
            layer.W_K = torch.nn.Parameter(torch.empty(heads, d_model, d_k, **f64).uniform_(-0.4, 0.4))
            layer.W_V = torch.nn.Parameter(torch.empty(heads, d_model, d_k, **f64).uniform_(-0.4, 0.4))
            layer.W_O = torch.nn.Parameter(torch.empty(heads * d_k, d_model, **f64).uniform_(-0.4, 0.4))
            self.layers.append(layer)
        self.token = token
        if token:
            self.U = torch.nn.Parameter(torch.empty(d_model, vocab, **f64).uniform_(-0.4, 0.4))
            self.b_U = torch.nn.Parameter(torch.zeros(vocab, **f64))
        self.d_k = d_k

    def forward(self, ids, pe, key_mask):
        x = self.E[ids] + pe[: ids.shape[1]]
        for layer in self.layers:
            q = torch.einsum("bnd,hdk->bhnk", x, layer.W_Q)
            k = torch.einsum("bnd,hdk->bhnk", x, layer.W_K)
            v = torch.einsum("bnd,hdk->bhnk", x, layer.W_V)
            s = q @ k.transpose(-1, -2) / math.sqrt(self.d_k)
            s = s.masked_fill(~key_mask[:, None, None, :], float("-inf"))
            a = torch.softmax(s, dim=-1)
            z = (a @ v).transpose(1, 2).reshape(x.shape[0], x.shape[1], -1)
            x = x + z @ layer.W_O
        return x, a


def main():
    steps, batch, layers, heads, d_model, d_k, n, vocab = (int(v) for v in sys.argv[1:9])
    token = len(sys.argv) > 9 and sys.argv[9] == "token"
    torch.set_num_threads(1)
    torch.manual_seed(1)
    model = Model(layers, heads, d_model, d_k, vocab, token)
    decay = [p for name, p in model.named_parameters() if not name.startswith("b_")]
    no_decay = [p for name, p in model.named_parameters() if name.startswith("b_")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=0.01, betas=(0.9, 0.999), eps=1e-8)
    pe = sinusoids(n, d_model)
    gen = torch.Generator().manual_seed(2)
    # sentences of n - 2 … n tokens (as referent-zh's 15-17), padded to n
    lengths = n - torch.randint(0, 3, (batch,), generator=gen)
    key_mask = torch.arange(n)[None, :] < lengths[:, None]
    ids = torch.randint(0, vocab, (batch, n), generator=gen)
    rows = lengths - 5
    target = torch.randint(0, 8, (batch,), generator=gen)
    arange = torch.arange(batch)
    for step in range(WARMUP + steps):
        if step == WARMUP:
            start = time.perf_counter()
        opt.zero_grad()
        x, a = model(ids, pe, key_mask)
        if token:
            logits = x[arange, rows] @ model.U + model.b_U
            loss = torch.nn.functional.cross_entropy(logits, ids[arange, target])
        else:
            avg = a.mean(dim=1)[arange, rows, target]
            loss = -torch.log(avg).mean()
        loss.backward()
        opt.step()
    ms = (time.perf_counter() - start) * 1000 / steps
    print(f"torch_ms_per_step={ms:.3f} steps={steps} torch={torch.__version__}")


if __name__ == "__main__":
    main()
