"""The Llama-style LM of examples/training/llama_lm.mlir, written in Python:
its decoder layer a `@weft.layer` function (emitted once, called per
layer), learned RMSNorm gains, rotary q and k, SwiGLU, a vocabulary-parallel
embedding and loss, TP + SP + DP on data=2 x model=2.

  PYTHONPATH=python python3 examples/python/llama_lm.py > /tmp/llama.mlir
  PYTHONPATH=python WEFT_BIN=build/bin python3 examples/python/llama_lm.py \
      --train /tmp/llama --steps 20    # weftc --train=adamw, then train on
                                       # llama_data.py's batches
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import weft  # noqa: E402
from weft import P  # noqa: E402

# b, t, d; heads h of e = 2j (j rotary pairs of r = 2); SwiGLU f; vocab v.
B, T, D, H, J, F, V, LAYERS = 8, 32, 64, 4, 8, 128, 256, 2
E = 2 * J
mesh = weft.Mesh({"data": 2, "model": 2})
SEQ_PARALLEL = P("data", "model", None)   # the residual stream
GATHERED = P("data", None, None)          # a sub-layer's input
VOCAB_PARALLEL = P("data", None, "model")  # logits and the loss's terms


def rotary_table_and_mask():
    """[t, j, r, q]: the rotation by angle t * 10000^(-j/J) of pair j; and
    the causal mask [t, s] (0 where s <= t, -1e9 elsewhere), from the same
    positions."""
    pos, pair, r = weft.iota(T), weft.iota(J), weft.iota(2)
    freq = weft.exp(pair * (-math.log(10000.0) / J))
    theta = pos[:, None] * freq
    eye = r[:, None] == r                 # [[1, 0], [0, 1]]
    rot = r[:, None] - r                  # [[0, -1], [1, 0]]
    rope = (weft.cos(theta)[:, :, None, None] * eye +
            weft.sin(theta)[:, :, None, None] * rot)
    return rope, ((pos[:, None] >= pos) - 1.0) * 1e9


def softmax_last(s):
    mx = s.max(-1)
    ex = weft.exp(s - mx[..., None])
    return ex / ex.sum(-1)[..., None]


@weft.layer
def layer(x, rope, mask, g1, wq, wk, wv, wo, g2, w1, w3, w2):
    # Attention, heads split on model: gathered sequence in, reduce-scattered
    # sequence out.
    n = weft.shard(weft.rms_norm(x, weight=g1), GATHERED)
    q = weft.einsum("btd,dhjr->bthjr", n, wq)
    k = weft.einsum("bsd,dhjr->bshjr", n, wk)
    v = weft.einsum("bsd,dhe->bshe", n, wv)
    q = weft.einsum("bthjq,tjrq->bthjr", q, rope)
    k = weft.einsum("bshjq,sjrq->bshjr", k, rope)
    s = weft.einsum("bthjr,bshjr->bhts", q, k) * (1 / math.sqrt(E)) + mask
    o = weft.einsum("bhts,bshe->bthe", softmax_last(s), v)
    x = x + weft.shard(weft.einsum("bthe,hed->btd", o, wo), SEQ_PARALLEL)
    # SwiGLU MLP, f split on model.
    n = weft.shard(weft.rms_norm(x, weight=g2), GATHERED)
    h = (weft.silu(weft.einsum("btd,df->btf", n, w1)) *
         weft.einsum("btd,df->btf", n, w3))
    # The result annotated as the input is, so every call has one signature
    # (one callee).
    return weft.shard(
        x + weft.shard(weft.einsum("btf,fd->btd", h, w2), SEQ_PARALLEL),
        SEQ_PARALLEL)


def llama_lm(tokens, labels, Emb, *weights):
    *blocks, gf, Wout = weights
    x = weft.shard(weft.embed(tokens, Emb), SEQ_PARALLEL)
    rope, mask = rotary_table_and_mask()
    for i in range(LAYERS):
        x = layer(x, rope, mask, *blocks[9 * i:9 * i + 9])
    # Vocabulary-parallel cross-entropy (PyTorch's loss_parallel): the
    # [b, t, v] tensors stay split v on model; the max, the sum of exp and
    # the label's logit are reductions over v. The max is a shift for
    # stability that cancels: no gradient flows through it.
    logits = weft.shard(weft.einsum(
        "btd,dv->btv", weft.shard(weft.rms_norm(x, weight=gf), GATHERED),
        Wout), VOCAB_PARALLEL)
    shifted = weft.shard(
        logits - weft.stop_gradient(logits.max(-1))[..., None],
        VOCAB_PARALLEL)
    lse = weft.log(weft.shard(weft.exp(shifted), VOCAB_PARALLEL).sum(-1))
    onehot = weft.shard(weft.one_hot(labels, V), VOCAB_PARALLEL)
    picked = weft.shard(shifted * onehot, VOCAB_PARALLEL).sum(-1)
    return (lse - picked).sum() * (1.0 / (B * T))


def inputs():
    ins = [weft.Input("tokens", (B, T), "i32", P("data", None)),
           weft.Input("labels", (B, T), "i32", P("data", None)),
           weft.Param("E", (V, D), spec=P("model", None))]
    for i in range(LAYERS):
        ins += [weft.Param("g1_%d" % i, (D,), spec=P(None)),
                weft.Param("wq_%d" % i, (D, H, J, 2), spec=P(None, "model")),
                weft.Param("wk_%d" % i, (D, H, J, 2), spec=P(None, "model")),
                weft.Param("wv_%d" % i, (D, H, E), spec=P(None, "model")),
                weft.Param("wo_%d" % i, (H, E, D), spec=P("model")),
                weft.Param("g2_%d" % i, (D,), spec=P(None)),
                weft.Param("w1_%d" % i, (D, F), spec=P(None, "model")),
                weft.Param("w3_%d" % i, (D, F), spec=P(None, "model")),
                weft.Param("w2_%d" % i, (F, D), spec=P("model"))]
    ins += [weft.Param("gf", (D,), spec=P(None)),
            weft.Param("Wout", (D, V), spec=P(None, "model"))]
    return ins


def build():
    return weft.trace(llama_lm, mesh, inputs(), out_names="loss")


if __name__ == "__main__":
    import example_cli
    example_cli.main(__doc__, build, "llama_lm", "llama_data.py", 20, 3e-3)
