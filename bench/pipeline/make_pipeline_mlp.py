#!/usr/bin/env python3
"""Writes a GPipe-pipelined L-layer MLP training program (issue 33,
docs/pipeline.md).

The model: h_0 = x, h_i = relu(c h_{i-1} W_i) for i = 1..L, c = 1/sqrt(d),
loss = sum((h_L - y)^2) / (B d) over the whole batch of B = m * b rows.

The pipeline: S stages on the mesh axis "stage", L/S consecutive layers
each. Layer s*(L/S) + k - 1 is W_k[s]: the weights are stacked along a
leading stage dimension and split over "stage", so stage s holds exactly
its layers. The batch is m micro-batches x[m, b, d]. A rolling buffer
[S, b, d] (split over "stage") holds each stage's micro-batch; each of the
m + S - 1 ticks

  1. moves the buffer one stage on (weft.shift dim 0 by 1: one
     weft.collective_permute of the boundary activation once partitioned)
     and puts micro-batch t into stage 0's slot (t < m);
  2. applies every stage's layers to its slot at once (einsums batched
     over the stage letter s: each rank computes its own stage);
  3. adds the last stage's squared error of micro-batch t - S + 1 to the
     loss (t >= S - 1), masked to the last stage.

Slots outside [0, m) hold values that reach no loss term, so they get
zero cotangents: the gradient is the unpipelined one, and autodiff's
reverse of each shift is the backward pipeline's transfer. With a "data"
axis the micro-batch rows are split over it too (data parallelism inside
each stage; the weight gradients are all-reduced over "data").

With --model Q > 1 the mesh gets a third axis "model" = Q and the layers
inside a stage are tensor parallel (Megatron pairs): layer k = 1, 3, ...
has its output features split over "model" (its activations stay split),
layer k + 1 its input features (its result is a partial sum, all-reduced
over "model"); an unpaired last layer of the stage has its output
features split and its result gathered. The program without --model is
the same as before (no "model" axis).

usage: make_pipeline_mlp.py OUT.mlir [--stages 4] [--layers 4]
           [--micro 4] [--micro-batch 4] [--width 32] [--data 1]
           [--model 1]
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_common import (Writer, add_loss, finish_loss,  # noqa: E402
                             mesh_line, stage_layer_types, stage_masks,
                             tick_input, ty)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--stages", type=int, default=4)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--micro", type=int, default=4, help="micro-batches m")
    ap.add_argument("--micro-batch", type=int, default=4,
                    help="rows per micro-batch b")
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--data", type=int, default=1)
    ap.add_argument("--model", type=int, default=1,
                    help="tensor parallelism inside each stage")
    ap.add_argument("--lr", type=float, default=1.0)
    a = ap.parse_args()
    S, L, m, b, d = a.stages, a.layers, a.micro, a.micro_batch, a.width
    if L % S:
        ap.error("--layers must be a multiple of --stages")
    per = L // S
    c = 1 / d ** 0.5

    dat = "data"
    act = ty([S, 1, b, d], ["stage", None, dat, None])
    one = ty([1, b, d], [None, dat, None])
    batch = ty([m, b, d], [None, dat, None])
    tp = a.model > 1
    layer_types = stage_layer_types(S, b, d, per, tp)
    vec = ty([S], ["stage"])
    sb = ty([S, b], ["stage", dat])
    w = Writer()
    emit = w.emit
    emit("// weftc: --train=sgd --lr %g" % a.lr)
    emit("// A %d-layer MLP trained with a GPipe schedule over %d stages "
         "(docs/pipeline.md):" % (L, S))
    emit("// %d micro-batches of %d rows, %d ticks. Written by "
         "bench/pipeline/make_pipeline_mlp.py" % (m, b, m + S - 1))
    emit("// --stages %d --layers %d --micro %d --micro-batch %d --width %d "
         "--data %d%s --lr %g." % (S, L, m, b, d, a.data,
                                   " --model %d" % a.model if tp else "",
                                   a.lr))
    emit(mesh_line(S, a.data, a.model))
    emit("")
    args = ["    %%x: %s {weft.name = \"x\"}" % batch,
            "    %%y: %s {weft.name = \"y\"}" % batch]
    for k in range(1, per + 1):
        args.append("    %%W%d: %s {weft.param, weft.name = \"W%d\"}" %
                    (k, layer_types[k - 1][0], k))
    emit("func.func @pipeline_mlp(\n%s)\n    -> (tensor<f32> {weft.name = "
         "\"loss\"}) {" % ",\n".join(args))
    stage_masks(w, S, vec)
    acc = None
    prev = None
    for t in range(m + S - 1):
        cur = tick_input(w, t, m, prev, "%x", batch, one, act, vec, "bd")
        cur_ty = act
        for k in range(1, per + 1):
            wk, rk = layer_types[k - 1]
            emit("  %%m%d_%d = weft.einsum \"sjbd,sde->sjbe\" (%s, %%W%d) : "
                 "(%s, %s) -> %s" % (t, k, cur, k, cur_ty, wk, rk))
            emit("  %%p%d_%d = weft.map scale \"sjbd->sjbd\" (%%m%d_%d) "
                 "{scalar = %r : f64} : (%s) -> %s" % (t, k, t, k, c, rk, rk))
            emit("  %%h%d_%d = weft.map relu \"sjbd->sjbd\" (%%p%d_%d) : (%s) "
                 "-> %s" % (t, k, t, k, rk, rk))
            cur, cur_ty = "%%h%d_%d" % (t, k), rk
        prev = cur
        j = t - S + 1
        if 0 <= j < m:
            emit("  %%ys%d = weft.slice %%y dim 0 start %d : %s -> %s" %
                 (j, j, batch, one))
            emit("  %%e%d = weft.map sub \"sjbd,jbd->sjbd\" (%s, %%ys%d) : "
                 "(%s, %s) -> %s" % (t, cur, j, act, one, act))
            emit("  %%q%d = weft.map square \"sjbd->sjbd\" (%%e%d) : (%s) -> %s"
                 % (t, t, act, act))
            acc = add_loss(w, t, acc, "%%q%d" % t, act, vec, "bd", sb)
    finish_loss(w, acc, sb, 1.0 / (m * b * d))
    emit("  return %loss : tensor<f32>")
    emit("}")
    w.write(a.out)


if __name__ == "__main__":
    main()
