#!/usr/bin/env python3
"""Writes a GPipe-pipelined T2-style transformer language model training
program (issue 33, docs/pipeline.md, "The language model").

The model is examples/training/t2_lm.mlir's (test/training/t2_reference.py
computes its loss in numpy): x = E[tokens] + P; L pre-norm blocks, each
x += attn(rms(x)), x += W2 gelu(rms(x) W1), with a non-parametric RMSNorm
(eps 1e-5), causal softmax attention over h heads of size e and a
tanh-approximated GELU; logits = rms(x) Wout; loss = the mean over all
tokens of logsumexp(logits) - logits[label].

The pipeline is make_pipeline_mlp.py's: S stages on the mesh axis
"stage", L/S consecutive blocks each; block s*(L/S) + k is Wq_k[s], Wk_k[s],
Wv_k[s], Wo_k[s], W1_k[s], W2_k[s] (every block weight stacked along a
leading stage dimension split over "stage"); a rolling buffer
[S, 1, b, t, d] (split over "stage") holds each stage's micro-batch, moved
one stage on per tick by weft.shift. The m micro-batches are tokens and
labels [m, b, t].

The embedding and the head sit outside the stacked part (they are not
block-shaped): E, P and Wout are replicated over "stage". The embedding of
all m micro-batches is computed once, before the ticks, on every stage,
and tick t injects micro-batch t's into stage 0's slot; at the loss ticks
every stage applies the head (final RMSNorm, logits, cross-entropy) to its
own slot and the sum takes the last stage's, masked as the MLP's loss. So
the embedding is computed S times and the head S times over (on slots
whose loss is masked away), and the gradients of E, P and Wout are partial
sums over "stage" (nonzero on one stage), all-reduced over "stage" with
the data-parallel all-reduce; the boundary transfers stay one slot per
tick each way.

With --data Q the micro-batch rows b are split over a "data" axis (data
parallelism inside each stage).

usage: make_pipeline_lm.py OUT.mlir [--stages 4] [--layers 4] [--micro 4]
           [--micro-batch 2] [--seq 16] [--width 32] [--heads 2]
           [--hidden 64] [--vocab 64] [--data 1] [--train sgd] [--lr 0.5]
           [--search greedy]
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_common import (Writer, add_loss, finish_loss,  # noqa: E402
                             stage_masks, tick_input, ty)

BLOCK_WEIGHTS = ("Wq", "Wk", "Wv", "Wo", "W1", "W2")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--stages", type=int, default=4)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--micro", type=int, default=4, help="micro-batches m")
    ap.add_argument("--micro-batch", type=int, default=2,
                    help="sequences per micro-batch b")
    ap.add_argument("--seq", type=int, default=16, help="sequence length t")
    ap.add_argument("--width", type=int, default=32, help="model width d")
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64, help="MLP width f")
    ap.add_argument("--vocab", type=int, default=64)
    ap.add_argument("--data", type=int, default=1)
    ap.add_argument("--train", default="sgd", help="weftc --train=")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--search", default="greedy",
                    help="weftc --search= (greedy: the global search "
                    "finds the same plan here, much slower)")
    a = ap.parse_args()
    S, L, m, b, T = a.stages, a.layers, a.micro, a.micro_batch, a.seq
    d, H, f, V = a.width, a.heads, a.hidden, a.vocab
    if min(S, L, m, b, T, d, H, f, V, a.data) < 1:
        ap.error("every size must be at least 1")
    if L % S:
        ap.error("--layers must be a multiple of --stages")
    if d % H:
        ap.error("--width must be a multiple of --heads")
    if b % a.data:
        ap.error("--micro-batch must be a multiple of --data")
    per = L // S
    e = d // H

    dat = "data"
    # The rolling buffer and the per-slot values, batched over the stage s.
    act = ty([S, 1, b, T, d], ["stage", None, dat, None, None])
    row = ty([S, 1, b, T], ["stage", None, dat, None])
    hid = ty([S, 1, b, T, f], ["stage", None, dat, None, None])
    heads = ty([S, 1, b, H, T, e], ["stage", None, dat, None, None, None])
    scores = ty([S, 1, b, H, T, T], ["stage", None, dat, None, None, None])
    hrow = ty([S, 1, b, H, T], ["stage", None, dat, None, None])
    logit = ty([S, 1, b, T, V], ["stage", None, dat, None, None])
    # The micro-batches, their embeddings, one micro-batch's.
    toks = ty([m, b, T], [None, dat, None], "i32")
    tok1 = ty([1, b, T], [None, dat, None], "i32")
    emb = ty([m, b, T, d], [None, dat, None, None])
    one = ty([1, b, T, d], [None, dat, None, None])
    oneh = ty([1, b, T, V], [None, dat, None, None])
    # The weights: the blocks' stacked over "stage", the rest replicated.
    wty = {"Wq": ty([S, d, H, e], ["stage", None, None, None]),
           "Wo": ty([S, H, e, d], ["stage", None, None, None]),
           "W1": ty([S, d, f], ["stage", None, None]),
           "W2": ty([S, f, d], ["stage", None, None])}
    wty["Wk"] = wty["Wv"] = wty["Wq"]
    rep = lambda shape: ty(shape, [None] * len(shape))
    vec = ty([S], ["stage"])
    sb = ty([S, b], ["stage", dat])
    cm = rep([T, T])

    w = Writer()
    emit, mapop, einsum, reduce = w.emit, w.mapop, w.einsum, w.reduce
    emit("// weftc: --train=%s --lr %g --search=%s" % (a.train, a.lr,
                                                     a.search))
    emit("// A %d-block transformer LM (examples/training/t2_lm.mlir's model) "
         "trained with a GPipe" % L)
    emit("// schedule over %d stages (docs/pipeline.md): %d micro-batches of "
         "%d sequences of %d tokens," % (S, m, b, T))
    emit("// %d ticks. Written by bench/pipeline/make_pipeline_lm.py "
         "--stages %d --layers %d --micro %d" % (m + S - 1, S, L, m))
    emit("// --micro-batch %d --seq %d --width %d --heads %d --hidden %d "
         "--vocab %d --data %d" % (b, T, d, H, f, V, a.data))
    emit("// --train %s --lr %g --search %s." % (a.train, a.lr, a.search))
    emit('weft.mesh @mesh ["stage" = %d, "data" = %d]' % (S, a.data))
    emit("")

    def rms(p, x):
        """The non-parametric RMSNorm of buffer `x` over d."""
        mapop(p + "sq", "square", "sjbtd->sjbtd", [x], [act], act)
        reduce(p + "ss", "sum", "sjbtd->sjbt", "%" + p + "sq", act, row)
        mapop(p + "ms", "scale", "sjbt->sjbt", ["%" + p + "ss"], [row], row,
              1.0 / d)
        mapop(p + "me", "shift", "sjbt->sjbt", ["%" + p + "ms"], [row], row,
              1e-5)
        mapop(p + "r", "rsqrt", "sjbt->sjbt", ["%" + p + "me"], [row], row)
        return mapop(p + "n", "mul", "sjbtd,sjbt->sjbtd", [x, "%" + p + "r"],
                     [act, row], act)

    # One block of every stage, batched over s: a layer function (docs/
    # calls.md), called once per block and tick, so weftc propagates three
    # calls (--plan-layers) and emits one C++ body (weft-outline-layers).
    btys = [wty[n] for n in BLOCK_WEIGHTS]
    emit("func.func private @block(%%x: %s, %%cm: %s, %s) -> %s {" %
         (act, cm, ", ".join("%%%s: %s" % (n, t)
                             for n, t in zip(BLOCK_WEIGHTS, btys)), act))
    xa = rms("a", "%x")
    q = einsum("q", "sjbtd,sdhe->sjbhte", [xa, "%Wq"], [act, wty["Wq"]],
               heads)
    kk = einsum("k", "sjbud,sdhe->sjbhue", [xa, "%Wk"], [act, wty["Wk"]],
                heads)
    v = einsum("v", "sjbud,sdhe->sjbhue", [xa, "%Wv"], [act, wty["Wv"]],
               heads)
    s0 = einsum("s0", "sjbhte,sjbhue->sjbhtu", [q, kk], [heads, heads],
                scores)
    s1 = mapop("s1", "scale", "sjbhtu->sjbhtu", [s0], [scores], scores,
               1 / e ** 0.5)
    s2 = mapop("s2", "add", "sjbhtu,tu->sjbhtu", [s1, "%cm"], [scores, cm],
               scores)
    mx = reduce("mx", "max", "sjbhtu->sjbht", s2, scores, hrow)
    s3 = mapop("s3", "sub", "sjbhtu,sjbht->sjbhtu", [s2, mx], [scores, hrow],
               scores)
    s4 = mapop("s4", "exp", "sjbhtu->sjbhtu", [s3], [scores], scores)
    z = reduce("z", "sum", "sjbhtu->sjbht", s4, scores, hrow)
    pr = mapop("pr", "div", "sjbhtu,sjbht->sjbhtu", [s4, z], [scores, hrow],
               scores)
    o = einsum("o", "sjbhtu,sjbhue->sjbhte", [pr, v], [scores, heads], heads)
    ao = einsum("ao", "sjbhte,shed->sjbtd", [o, "%Wo"], [heads, wty["Wo"]],
                act)
    x1 = mapop("x1", "add", "sjbtd,sjbtd->sjbtd", ["%x", ao], [act, act],
               act)
    xm = rms("m", x1)
    f1 = einsum("f1", "sjbtd,sdf->sjbtf", [xm, "%W1"], [act, wty["W1"]], hid)
    g = mapop("g", "gelu", "sjbtf->sjbtf", [f1], [hid], hid)
    f2 = einsum("f2", "sjbtf,sfd->sjbtd", [g, "%W2"], [hid, wty["W2"]], act)
    x2 = mapop("x2", "add", "sjbtd,sjbtd->sjbtd", [x1, f2], [act, act], act)
    emit("  return %s : %s" % (x2, act))
    emit("}")
    emit("")
    # The head on every slot: the per-position cross-entropy of each slot
    # against one micro-batch's labels (one-hot); the caller keeps the
    # last stage's.
    wout = rep([d, V])
    emit("func.func private @head(%%x: %s, %%Wout: %s, %%oh: %s) -> %s {" %
         (act, wout, oneh, row))
    xn = rms("n", "%x")
    lg = einsum("lg", "sjbtd,dv->sjbtv", [xn, "%Wout"], [act, wout], logit)
    mx = reduce("mx", "max", "sjbtv->sjbt", lg, logit, row)
    sh = mapop("sh", "sub", "sjbtv,sjbt->sjbtv", [lg, mx], [logit, row],
               logit)
    ex = mapop("ex", "exp", "sjbtv->sjbtv", [sh], [logit], logit)
    se = reduce("se", "sum", "sjbtv->sjbt", ex, logit, row)
    lse = mapop("lse", "log", "sjbt->sjbt", [se], [row], row)
    tg = mapop("tg", "mul", "sjbtv,jbtv->sjbtv", [sh, "%oh"], [logit, oneh],
               logit)
    ts = reduce("ts", "sum", "sjbtv->sjbt", tg, logit, row)
    ce = mapop("ce", "sub", "sjbt,sjbt->sjbt", [lse, ts], [row, row], row)
    emit("  return %s : %s" % (ce, row))
    emit("}")
    emit("")
    args = ["    %%tokens: %s {weft.name = \"tokens\"}" % toks,
            "    %%labels: %s {weft.name = \"labels\"}" % toks,
            "    %%E: %s {weft.param, weft.name = \"E\"}" % rep([V, d]),
            "    %%P: %s {weft.param, weft.name = \"P\"}" % rep([T, d])]
    for k in range(per):
        for n in BLOCK_WEIGHTS:
            args.append("    %%%s_%d: %s {weft.param, weft.name = \"%s_%d\"}"
                        % (n, k, wty[n], n, k))
    args.append("    %%Wout: %s {weft.param, weft.name = \"Wout\"}" %
                rep([d, V]))
    emit("func.func @pipeline_lm(\n%s)\n    -> (tensor<f32> {weft.name = "
         "\"loss\"}) {" % ",\n".join(args))

    emit("  // The embedding of every micro-batch, on every stage.")
    emit("  %%emb0 = weft.embed \"nbt,vd->nbtd\" (%%tokens, %%E) : (%s, %s) "
         "-> %s" % (toks, rep([V, d]), emb))
    mapop("emb", "add", "nbtd,td->nbtd", ["%emb0", "%P"], [emb, rep([T, d])],
          emb)
    emit("  // The causal mask: 0 where u <= t, -1e9 elsewhere.")
    tv = rep([T])
    emit("  %%tpos = weft.iota : %s" % tv)
    mapop("cm0", "ge", "t,u->tu", ["%tpos", "%tpos"], [tv, tv], cm)
    mapop("cm1", "shift", "tu->tu", ["%cm0"], [cm], cm, -1.0)
    mapop("cm", "scale", "tu->tu", ["%cm1"], [cm], cm, 1e9)
    stage_masks(w, S, vec)

    acc = None
    prev = None
    for t in range(m + S - 1):
        emit("  // tick %d" % t)
        cur = tick_input(w, t, m, prev, "%emb", emb, one, act, vec, "btd")
        for k in range(per):
            emit("  %%x%d_%d = func.call @block(%s, %%cm, %s) : (%s, %s, %s) "
                 "-> %s" % (t, k, cur, ", ".join("%%%s_%d" % (n, k)
                                                for n in BLOCK_WEIGHTS),
                            act, cm, ", ".join(btys), act))
            cur = "%%x%d_%d" % (t, k)
        prev = cur
        j = t - S + 1
        if not 0 <= j < m:
            continue
        # The head on every slot; the last stage's holds micro-batch j.
        emit("  %%lab%d = weft.slice %%labels dim 0 start %d : %s -> %s" %
             (j, j, toks, tok1))
        emit("  %%oh%d = weft.one_hot \"jbt->jbtv\" (%%lab%d) : (%s) -> %s" %
             (j, j, tok1, oneh))
        emit("  %%ce%d = func.call @head(%s, %%Wout, %%oh%d) : (%s, %s, %s) "
             "-> %s" % (t, cur, j, act, wout, oneh, row))
        ce = "%%ce%d" % t
        acc = add_loss(w, t, acc, ce, row, vec, "bt", sb)
    finish_loss(w, acc, sb, 1.0 / (m * b * T))
    emit("  return %loss : tensor<f32>")
    emit("}")
    w.write(a.out)


if __name__ == "__main__":
    main()
