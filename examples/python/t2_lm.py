"""T2, the transformer language model of examples/training/t2_lm.mlir,
written in Python with its layer as a `@weft.layer` function (traced once,
emitted as `func.func private @layer`, called once per layer).

Mesh data=2, model=2; d=128, 4 heads of 32, f=512, vocabulary 512,
sequence 64, batch 8; pre-norm blocks with a non-parametric RMSNorm,
learned positions, a causal mask from iota. Tokens and labels split b on
data; the embedding and output split the vocabulary on model; attention
splits heads and the MLP f on model (Megatron); between sub-layers the
residual stream is sequence-parallel (t split on model).

  PYTHONPATH=python python3 examples/python/t2_lm.py > /tmp/t2.mlir
  PYTHONPATH=python WEFT_BIN=build/bin python3 examples/python/t2_lm.py \
      --compile /tmp/t2_lm      # weftc --train=adamw --lr 3e-3
  python3 examples/training/t2_data.py --out /tmp/t2
  mpirun -np 4 /tmp/t2_lm --steps 50 $(for f in /tmp/t2/*.npy; do
    n=$(basename $f .npy); echo --input $n=$f; done)
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import weft  # noqa: E402
from weft import P  # noqa: E402

B, T, D, H, K, F, V, LAYERS = 8, 64, 128, 4, 32, 512, 512, 2
mesh = weft.Mesh({"data": 2, "model": 2})

SEQ_PARALLEL = P("data", "model", None)   # the residual stream between
GATHERED = P("data", None, None)          # sub-layers, and inside them


@weft.layer
def layer(x, mask, Wq, Wk, Wv, Wo, W1, W2):
    # Attention (heads split on model): gathered sequence in,
    # reduce-scattered sequence out.
    h = weft.shard(weft.rms_norm(x), GATHERED)
    q = weft.einsum("btd,dhk->bhtk", h, Wq)
    k = weft.einsum("bsd,dhk->bhsk", h, Wk)
    v = weft.einsum("bsd,dhk->bhsk", h, Wv)
    scores = weft.einsum("bhtk,bhsk->bhts", q, k) * (1 / math.sqrt(K)) + mask
    att = weft.einsum("bhts,bhsk->bhtk", weft.softmax(scores), v)
    x = x + weft.shard(weft.einsum("bhtk,hkd->btd", att, Wo), SEQ_PARALLEL)
    # MLP (f split on model).
    h = weft.shard(weft.rms_norm(x), GATHERED)
    m = weft.einsum("btf,fd->btd",
                    weft.gelu(weft.einsum("btd,df->btf", h, W1)), W2)
    return x + weft.shard(m, SEQ_PARALLEL)


def t2_lm(tokens, labels, E, Pos, *weights):
    *blocks, Wout = weights
    x = weft.shard(weft.embed(tokens, E), SEQ_PARALLEL) + Pos
    mask = weft.causal_mask(T)
    for i in range(LAYERS):
        x = layer(x, mask, *blocks[6 * i:6 * i + 6])
    logits = weft.einsum("btd,dv->btv",
                         weft.shard(weft.rms_norm(x), GATHERED), Wout)
    return weft.cross_entropy(logits, labels)


def inputs():
    ins = [weft.Input("tokens", (B, T), "i32", P("data", None)),
           weft.Input("labels", (B, T), "i32", P("data", None)),
           weft.Param("E", (V, D), spec=P("model", None)),
           weft.Param("P", (T, D), spec=P("model", None))]
    for i in range(LAYERS):
        ins += [weft.Param("Wq_%d" % i, (D, H, K), spec=P(None, "model")),
                weft.Param("Wk_%d" % i, (D, H, K), spec=P(None, "model")),
                weft.Param("Wv_%d" % i, (D, H, K), spec=P(None, "model")),
                weft.Param("Wo_%d" % i, (H, K, D), spec=P("model")),
                weft.Param("W1_%d" % i, (D, F), spec=P(None, "model")),
                weft.Param("W2_%d" % i, (F, D), spec=P("model"))]
    ins.append(weft.Param("Wout", (D, V), spec=P(None, "model")))
    return ins


def build():
    return weft.trace(t2_lm, mesh, inputs(), out_names="loss")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", metavar="EXE",
                        help="weftc --train=adamw --lr 3e-3 to this file")
    args = parser.parse_args()
    program = build()
    if args.compile:
        print(program.compile(args.compile, train="adamw", lr=3e-3))
    else:
        print(program.mlir, end="")


if __name__ == "__main__":
    main()
