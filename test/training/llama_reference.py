#!/usr/bin/env python3
"""An independent numpy (float64) forward pass of the Llama-style LM
(examples/training/llama_lm.mlir): the loss of a set of parameters on one
batch.

    llama_reference.py --params DIR --data DIR --step T [--layers L]
                       [--bf16-mixed]

reads DIR/NAME.npy for every parameter (E, g1_l, wq_l, wk_l, wv_l, wo_l,
g2_l, w1_l, w3_l, w2_l, gf, Wout) and the batch the training harness uses at
step T (1-based): tokens[(T-1) % S], labels[(T-1) % S] of --data. Prints
`step T loss L`. It shares no code with Weft: the model is written here from
its description (pre-norm blocks, RMSNorm with a learned gain, eps 1e-5;
rotary embeddings on q and k rotating each adjacent pair (2i, 2i+1) of a
head by t * 10000^(-2i/K), K the head dimension; causal softmax attention;
a SwiGLU MLP silu(x w1) * (x w3) w2; cross-entropy of the next token).
--bf16-mixed rounds every GEMM's operands and result to bf16, as
`weftc --precision=bf16-mixed` does (loss_reference_cli.py): the
projections, attention's two products, the MLP's three and the output;
the program also applies the rotary rotation as a GEMM (q and k times a
table of cos and sin), so cos, sin and the rotated q and k are rounded too.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loss_reference_cli  # noqa: E402
from loss_reference_cli import gemm, half  # noqa: E402


def rms(x, g):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * g


def rotary(q):
    """q [b, t, h, K]: pairs (2i, 2i+1) rotated by t * 10000^(-2i/K)."""
    t, k = q.shape[1], q.shape[3]
    theta = np.arange(t)[:, None] * 10000.0 ** (-np.arange(0, k, 2) / k)
    c = half(np.cos(theta))[None, :, None, :]
    s = half(np.sin(theta))[None, :, None, :]
    even, odd = q[..., 0::2], q[..., 1::2]
    out = np.empty_like(q)
    out[..., 0::2] = even * c - odd * s
    out[..., 1::2] = even * s + odd * c
    return half(out)


def loss(p, tokens, labels, layers):
    t = tokens.shape[1]
    x = p["E"][tokens]
    mask = np.where(np.arange(t)[:, None] >= np.arange(t)[None, :], 0.0, -1e9)
    for l in range(layers):
        xa = rms(x, p[f"g1_{l}"])
        wq, wk = p[f"wq_{l}"], p[f"wk_{l}"]
        d, h = wq.shape[0], wq.shape[1]
        q = rotary(gemm("btd,dhk->bthk", xa, wq.reshape(d, h, -1)))
        k = rotary(gemm("btd,dhk->bthk", xa, wk.reshape(d, h, -1)))
        v = gemm("btd,dhe->bthe", xa, p[f"wv_{l}"])
        s = gemm("bthk,bshk->bhts", q, k) / np.sqrt(q.shape[-1]) + mask
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        o = gemm("bhts,bshe->bthe", s, v)
        x = x + gemm("bthe,hed->btd", o, p[f"wo_{l}"])
        xm = rms(x, p[f"g2_{l}"])
        a = gemm("btd,df->btf", xm, p[f"w1_{l}"])
        u = a / (1 + np.exp(-a)) * gemm("btd,df->btf", xm, p[f"w3_{l}"])
        x = x + gemm("btf,fd->btd", u, p[f"w2_{l}"])
    logits = gemm("btd,dv->btv", rms(x, p["gf"]), p["Wout"])
    m = logits.max(-1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(-1)) + m[..., 0]
    target = np.take_along_axis(logits, labels[..., None], -1)[..., 0]
    return float(np.mean(lse - target))


def names(layers):
    return ["E", "gf", "Wout"] + [
        f"{w}_{l}" for l in range(layers)
        for w in ("g1", "wq", "wk", "wv", "wo", "g2", "w1", "w3", "w2")]


if __name__ == "__main__":
    sys.exit(loss_reference_cli.main(__doc__, "llama_reference.py", names, loss))
