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


def ty(shape, dims):
    """An f32 tensor type of `shape`, split over the mesh axes `dims` (one
    axis name or None per dimension) on @mesh."""
    t = "x".join(str(n) for n in shape)
    t = (t + "xf32") if shape else "f32"
    if not any(dims):
        return "tensor<%s>" % t
    sh = ", ".join("{%s}" % ("\"%s\"" % x if x else "") for x in dims)
    return "tensor<%s, #weft.sharding<@mesh, [%s]>>" % (t, sh)


def stage_layer_types(S, b, d, per, tp):
    """(weight type, result type) of each of a stage's `per` layers, in
    order (layer k = 1..per), for the stacked [S, d, d] weights and the
    [S, 1, b, d] activation slots (rows split over "data"). Without tensor
    parallelism every weight is split over "stage" only. With it (`tp`),
    Megatron pairs: layer k = 1, 3, ... has its output features split over
    "model" (its activations stay split), layer k + 1 its input features
    (its result is a partial sum, whole once all-reduced over "model"); an
    unpaired last layer is column split with its result gathered. Shared
    by make_pipeline_1f1b.py."""
    act = ty([S, 1, b, d], ["stage", None, "data", None])
    if not tp:
        w = ty([S, d, d], ["stage", None, None])
        return [(w, act)] * per
    w_col = ty([S, d, d], ["stage", None, "model"])
    w_row = ty([S, d, d], ["stage", "model", None])
    act_split = ty([S, 1, b, d], ["stage", None, "data", "model"])
    return [(w_col, act_split if k < per else act) if k % 2 == 1 else
            (w_row, act) for k in range(1, per + 1)]


def mesh_line(S, data, model):
    """The weft.mesh line: ["stage", "data"], plus "model" when model > 1
    (a program without tensor parallelism has no "model" axis)."""
    if model > 1:
        return 'weft.mesh @mesh ["stage" = %d, "data" = %d, "model" = %d]' % (
            S, data, model)
    return 'weft.mesh @mesh ["stage" = %d, "data" = %d]' % (S, data)


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
    out = []
    emit = out.append
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
    # Masks of the first and the last stage, from positions.
    emit("  %%pos = weft.iota : %s" % vec)
    emit("  %%npos = weft.map neg \"s->s\" (%%pos) : (%s) -> %s" % (vec, vec))
    emit("  %%f0 = weft.map shift \"s->s\" (%%npos) {scalar = 0.5 : f64} : "
         "(%s) -> %s" % (vec, vec))
    emit("  %%first = weft.map step \"s->s\" (%%f0) : (%s) -> %s" % (vec, vec))
    emit("  %%l0 = weft.map shift \"s->s\" (%%pos) {scalar = %r : f64} : "
         "(%s) -> %s" % (-(S - 1.5), vec, vec))
    emit("  %%last = weft.map step \"s->s\" (%%l0) : (%s) -> %s" % (vec, vec))
    acc = None
    prev = None
    for t in range(m + S - 1):
        inj = None
        if t < m:
            emit("  %%xs%d = weft.slice %%x dim 0 start %d : %s -> %s" %
                 (t, t, batch, one))
            emit("  %%inj%d = weft.map mul \"s,jbd->sjbd\" (%%first, %%xs%d) : "
                 "(%s, %s) -> %s" % (t, t, vec, one, act))
            inj = "%%inj%d" % t
        if prev is None:
            cur = inj
        else:
            emit("  %%sh%d = weft.shift %s dim 0 by 1 : %s -> %s" %
                 (t, prev, act, act))
            cur = "%%sh%d" % t
            if inj:
                emit("  %%in%d = weft.map add \"sjbd,sjbd->sjbd\" (%s, %s) : "
                     "(%s, %s) -> %s" % (t, cur, inj, act, act, act))
                cur = "%%in%d" % t
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
            emit("  %%lt%d = weft.einsum \"s,sjbd->sb\" (%%last, %%q%d) : "
                 "(%s, %s) -> %s" % (t, t, vec, act, sb))
            if acc is None:
                acc = "%%lt%d" % t
            else:
                emit("  %%acc%d = weft.map add \"sb,sb->sb\" (%s, %%lt%d) : "
                     "(%s, %s) -> %s" % (t, acc, t, sb, sb, sb))
                acc = "%%acc%d" % t
    emit("  %%sum = weft.reduce sum \"sb->\" (%s) : (%s) -> tensor<f32>" %
         (acc, sb))
    emit("  %%loss = weft.map scale \"->\" (%%sum) {scalar = %r : f64} : "
         "(tensor<f32>) -> tensor<f32>" % (1.0 / (m * b * d)))
    emit("  return %loss : tensor<f32>")
    emit("}")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
