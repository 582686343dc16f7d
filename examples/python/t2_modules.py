"""T2 (examples/training/t2_lm.mlir) built from weft.nn modules with a
tensor-parallel plan in PyTorch's vocabulary, instead of hand-placed
weft.shard constraints (examples/python/t2_lm.py writes those).

The model is T2's: d=128, 4 heads of 32, f=512, vocabulary 512, sequence
64, batch 8, 2 pre-norm blocks with a non-parametric RMSNorm, learned
positions, GELU MLP without biases, untied output, cross-entropy. The
plan is Megatron's with sequence parallelism over `model`, the batch over
`data`: the same layouts t2_lm.mlir writes by hand. The parameters are
PyTorch-shaped (Linear weights [out, in]) and PyTorch-named
(`layers.0.attention.wq.weight`), so the argument list differs from
t2_lm.mlir's (docs/python.md compares the two).

  PYTHONPATH=python python3 examples/python/t2_modules.py > /tmp/t2m.mlir
  PYTHONPATH=python WEFT_BIN=build/bin python3 \\
      examples/python/t2_modules.py --compile /tmp/t2m  # --train=adamw
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import weft  # noqa: E402
from weft import P  # noqa: E402
from weft.parallel import (ColwiseParallel, PrepareModuleInput,  # noqa: E402
                           Replicate, RowwiseParallel, SequenceParallel,
                           Shard, parallelize_module)

B, T, D, H, F, V, LAYERS = 8, 64, 128, 4, 512, 512, 2


def plan():
    """Megatron tensor parallelism with sequence parallelism."""
    p = {"tok_embeddings": RowwiseParallel(input_layouts=Replicate(),
                                           output_layouts=Shard(1)),
         "pos_embeddings": RowwiseParallel(input_layouts=Replicate(),
                                           output_layouts=Shard(0)),
         "layers.*.attention_norm": SequenceParallel(),
         "layers.*.attention": PrepareModuleInput(
             input_layouts=Shard(1), desired_input_layouts=Replicate()),
         "layers.*.attention.wq": ColwiseParallel(),
         "layers.*.attention.wk": ColwiseParallel(),
         "layers.*.attention.wv": ColwiseParallel(),
         "layers.*.attention.wo": RowwiseParallel(output_layouts=Shard(1)),
         "layers.*.ffn_norm": SequenceParallel(),
         "layers.*.feed_forward.w1": ColwiseParallel(input_layouts=Shard(1)),
         "layers.*.feed_forward.w2": RowwiseParallel(output_layouts=Shard(1)),
         "norm": SequenceParallel(),
         # Vocabulary-parallel logits: the cross-entropy reads them split.
         "output": ColwiseParallel(input_layouts=Shard(1))}
    return p


def build(mesh=None):
    mesh = mesh or weft.Mesh({"data": 2, "model": 2})
    model = weft.nn.Transformer(V, D, LAYERS, H, T, hidden_dim=F,
                                norm="rms_plain", mlp="gelu",
                                mlp_bias=False)
    parallelize_module(model, mesh, plan(), tp_axis="model", dp_axis="data")

    def t2_lm(tokens, labels):
        return weft.cross_entropy(model(tokens), labels)

    return weft.trace(t2_lm, mesh,
                      [weft.Input("tokens", (B, T), "i32", P("data", None)),
                       weft.Input("labels", (B, T), "i32", P("data", None))],
                      out_names="loss", params=model)


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
