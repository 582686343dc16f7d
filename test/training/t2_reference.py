#!/usr/bin/env python3
"""An independent numpy (float64) forward pass of the T2 language model
(examples/training/t2_lm.mlir): the loss of a set of parameters on one batch.

    t2_reference.py --params DIR --data DIR --step T [--layers L]
                    [--bf16-mixed]

reads DIR/NAME.npy for every parameter (E, P, Wq_l, Wk_l, Wv_l, Wo_l, W1_l,
W2_l, Wout) and the batch the training harness uses at step T (1-based):
tokens[(T-1) % S], labels[(T-1) % S] of --data. Prints `step T loss L`.
It shares no code with Weft: the model is written out here from its
description (pre-norm blocks with a non-parametric RMSNorm, eps 1e-5; causal
softmax attention; a tanh-approximated GELU MLP; cross-entropy of the next
token). --bf16-mixed rounds every GEMM's operands and result to bf16, as
`weftc --precision=bf16-mixed` does (loss_reference_cli.py).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loss_reference_cli  # noqa: E402
from loss_reference_cli import gemm  # noqa: E402


def rms(x):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def loss(p, tokens, labels, layers):
    t = tokens.shape[1]
    x = p["E"][tokens] + p["P"][None]
    mask = np.where(np.arange(t)[:, None] >= np.arange(t)[None, :], 0.0, -1e9)
    for l in range(layers):
        xa = rms(x)
        q = gemm("btd,dhk->bhtk", xa, p[f"Wq_{l}"])
        k = gemm("bsd,dhk->bhsk", xa, p[f"Wk_{l}"])
        v = gemm("bsd,dhk->bhsk", xa, p[f"Wv_{l}"])
        s = gemm("bhtk,bhsk->bhts", q, k) / np.sqrt(q.shape[-1]) + mask
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        o = gemm("bhts,bhsk->bhtk", s, v)
        x = x + gemm("bhtk,hkd->btd", o, p[f"Wo_{l}"])
        x = x + gemm("btf,fd->btd", gelu(gemm("btd,df->btf", rms(x),
                                               p[f"W1_{l}"])), p[f"W2_{l}"])
    logits = gemm("btd,dv->btv", rms(x), p["Wout"])
    m = logits.max(-1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(-1)) + m[..., 0]
    target = np.take_along_axis(logits, labels[..., None], -1)[..., 0]
    return float(np.mean(lse - target))


def names(layers):
    return ["E", "P", "Wout"] + [f"{w}_{l}" for l in range(layers)
                                 for w in ("Wq", "Wk", "Wv", "Wo", "W1", "W2")]


if __name__ == "__main__":
    sys.exit(loss_reference_cli.main(__doc__, "t2_reference.py", names, loss))
