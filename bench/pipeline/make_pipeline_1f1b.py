#!/usr/bin/env python3
"""Writes a 1F1B-pipelined L-layer MLP training program (issue 33,
docs/pipeline.md, "1F1B").

The model is make_pipeline_mlp.py's: h_0 = x, h_i = relu(c h_{i-1} W_i),
c = 1/sqrt(d), loss = sum((h_L - y)^2) / (B d), layer s*(L/S) + k - 1 is
W_k[s] (weights stacked along a stage dimension split over "stage").

The schedule, in lockstep ticks over two rolling buffers split over
"stage": at tick t stage s runs the forward of micro-batch t - s and the
backward of micro-batch t - 2(S-1) + s, each when it lies in [0, m).

  forward (ticks 0 .. m+S-2): in_t = shift(h_{t-1}, +1) + x_t in slot 0;
      h_t = call @stage(W, in_t); the last stage's loss term of
      micro-batch t-S+1 and its cotangent 2 (h_t - y) / (B d), masked to
      the last stage;
  backward (ticks S-1 .. m+2S-3): g_t = shift(d_{t-1}, -1) + the loss
      cotangent of tick t; saved_t = sum over the stages s whose backward
      micro-batch is in [0, m) of onehot_s * in_{t-2(S-1-s)} (stage s's
      own input of that micro-batch); (dW_t, d_t) = call @stage_vjp(W,
      saved_t, g_t); dW += dW_t.

@stage_vjp is a declaration marked weft.vjp_of = @stage: weft-inline-calls
writes its body (the stage's forward recomputed from saved_t, then its
reverse). The program returns the loss and its own gradients (weft.grad_of
results), so weftc --train applies the optimizer without differentiating
again. With --data Q the micro-batch rows are split over a "data" axis.
With --model Q > 1 the mesh gets a third axis "model" = Q and each stage's
layers are Megatron pairs, exactly as make_pipeline_mlp.py --model writes
them (its stage_layer_types): @stage and @stage_vjp take the split weights,
the stage boundary (in_t, h_t, g_t, d_t) stays whole over "model", and the
weight gradients are left open (propagation gives them their parameters'
layouts).

usage: make_pipeline_1f1b.py OUT.mlir [--stages 4] [--layers 4]
           [--micro 4] [--micro-batch 4] [--width 32] [--data 1]
           [--model 1] [--lr 1]
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_common import (Writer, add_grad, add_loss,  # noqa: E402
                             finish_loss, mesh_line, saved_input,
                             stage_layer_types, stage_masks, stage_onehots,
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

    act = ty([S, 1, b, d], ["stage", None, "data", None])
    one = ty([1, b, d], [None, "data", None])
    batch = ty([m, b, d], [None, "data", None])
    layer_types = stage_layer_types(S, b, d, per, a.model > 1)
    w_open = ty([S, d, d], [None, None, None])  # a gradient's, left open
    vec = ty([S], ["stage"])
    sb = ty([S, b], ["stage", "data"])
    wr = Writer()
    emit, mapop = wr.emit, wr.mapop
    emit("// weftc: --train=sgd --lr %g" % a.lr)
    emit("// A %d-layer MLP trained with a 1F1B schedule over %d stages "
         "(docs/pipeline.md, \"1F1B\"):" % (L, S))
    emit("// %d micro-batches of %d rows, %d ticks. Written by "
         "bench/pipeline/make_pipeline_1f1b.py" % (m, b, m + 2 * S - 2))
    emit("// --stages %d --layers %d --micro %d --micro-batch %d --width %d "
         "--data %d%s --lr %g." % (S, L, m, b, d, a.data,
                                   " --model %d" % a.model if a.model > 1
                                   else "", a.lr))
    emit(mesh_line(S, a.data, a.model))
    emit("")
    # One stage's layers, batched over the stage letter s.
    wargs = ", ".join("%%W%d: %s" % (k, layer_types[k - 1][0])
                      for k in range(1, per + 1))
    emit("func.func private @stage(%s, %%in: %s) -> %s {" % (wargs, act, act))
    cur, cur_ty = "%in", act
    for k in range(1, per + 1):
        wk, rk = layer_types[k - 1]
        emit("  %%m%d = weft.einsum \"sjbd,sde->sjbe\" (%s, %%W%d) : "
             "(%s, %s) -> %s" % (k, cur, k, cur_ty, wk, rk))
        emit("  %%p%d = weft.map scale \"sjbd->sjbd\" (%%m%d) {scalar = %r : "
             "f64} : (%s) -> %s" % (k, k, c, rk, rk))
        emit("  %%h%d = weft.map relu \"sjbd->sjbd\" (%%p%d) : (%s) -> %s" %
             (k, k, rk, rk))
        cur, cur_ty = "%%h%d" % k, rk
    emit("  return %s : %s" % (cur, cur_ty))
    emit("}")
    emit("")
    wtypes = ", ".join(wk for wk, _ in layer_types)
    emit("// Its vector-Jacobian product: weft-inline-calls writes the body.")
    emit("func.func private @stage_vjp(%s, %s, %s) -> (%s, %s) attributes "
         "{weft.vjp_of = @stage}" % (wtypes, act, act,
                                     ", ".join([w_open] * per), act))
    emit("")
    args = ["    %%x: %s {weft.name = \"x\"}" % batch,
            "    %%y: %s {weft.name = \"y\"}" % batch]
    for k in range(1, per + 1):
        args.append("    %%W%d: %s {weft.param, weft.name = \"W%d\"}" %
                    (k, layer_types[k - 1][0], k))
    res = ["tensor<f32> {weft.name = \"loss\"}"]
    for k in range(1, per + 1):
        res.append("%s {weft.grad_of = %d : i64, weft.name = \"grad_W%d\"}"
                   % (w_open, k + 1, k))
    emit("func.func @pipeline_mlp_1f1b(\n%s)\n    -> (%s) {" %
         (",\n".join(args), ", ".join(res)))

    # Stage masks from positions: first, last, and one-hot per stage.
    stage_masks(wr, S, vec)
    stage_onehots(wr, S, vec)
    wops = ", ".join("%%W%d" % k for k in range(1, per + 1))
    fwd_ticks = m + S - 1
    acc = None  # the loss terms
    dW = [None] * per
    prev_h = prev_d = None
    ins = {}  # tick -> the stage input buffer of that tick
    for t in range(m + 2 * S - 2):
        emit("  // tick %d" % t)
        gl = None
        if t < fwd_ticks:
            # Forward half.
            cur = tick_input(wr, t, m, prev_h, "%x", batch, one, act, vec,
                             "bd")
            emit("  %%h%d = func.call @stage(%s, %s) : (%s, %s) -> %s" %
                 (t, wops, cur, wtypes, act, act))
            ins[t] = cur  # stage inputs, read again by the backward half
            prev_h = "%%h%d" % t
            j = t - S + 1
            if 0 <= j < m:
                emit("  %%ys%d = weft.slice %%y dim 0 start %d : %s -> %s" %
                     (j, j, batch, one))
                mapop("e%d" % t, "sub", "sjbd,jbd->sjbd",
                      [prev_h, "%%ys%d" % j], [act, one], act)
                mapop("q%d" % t, "square", "sjbd->sjbd", ["%%e%d" % t],
                      [act], act)
                acc = add_loss(wr, t, acc, "%%q%d" % t, act, vec, "bd", sb)
                # d loss / d h_t: 2 e / (B d), on the last stage only.
                mapop("el%d" % t, "mul", "s,sjbd->sjbd", ["%last", "%%e%d" % t],
                      [vec, act], act)
                mapop("gl%d" % t, "scale", "sjbd->sjbd", ["%%el%d" % t],
                      [act], act, 2.0 / (m * b * d))
                gl = "%%gl%d" % t
        if t >= S - 1:
            # Backward half: the cotangents, the saved inputs, the vjp.
            g = None
            if prev_d is not None:
                emit("  %%gs%d = weft.shift %s dim 0 by -1 : %s -> %s" %
                     (t, prev_d, act, act))
                g = "%%gs%d" % t
            if gl:
                if g:
                    mapop("g%d" % t, "add", "sjbd,sjbd->sjbd", [g, gl],
                          [act, act], act)
                    g = "%%g%d" % t
                else:
                    g = gl
            saved = saved_input(wr, t, S, m, ins, act, vec, "bd")
            names = ", ".join(["%%dW%d_%d" % (t, k) for k in range(1, per + 1)]
                              + ["%%d%d" % t])
            emit("  %s = func.call @stage_vjp(%s, %s, %s) : (%s, %s, %s) -> "
                 "(%s, %s)" % (names, wops, saved, g, wtypes, act, act,
                               ", ".join([w_open] * per), act))
            for k in range(per):
                dW[k] = add_grad(wr, "gW%d_%d" % (t, k + 1), dW[k],
                                 "%%dW%d_%d" % (t, k + 1), "sde", w_open)
            prev_d = "%%d%d" % t
    finish_loss(wr, acc, sb, 1.0 / (m * b * d))
    emit("  return %%loss, %s : tensor<f32>, %s" %
         (", ".join(dW), ", ".join([w_open] * per)))
    emit("}")
    wr.write(a.out)


if __name__ == "__main__":
    main()
