#!/usr/bin/env python3
"""Writes a pipelined (GPipe or 1F1B) T2-style transformer language model
training program (issue 33, docs/pipeline.md, "The language model").

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
whose loss is masked away), and the replicated weights' gradients come
from sums over "stage" of terms nonzero on one stage (weftc all-reduces
the injected slots' cotangents over "stage", then every stage computes
E's and P's gradients; Wout's over "stage" and "data"); the boundary
transfers stay one slot per tick each way.

With --data Q the micro-batch rows b are split over a "data" axis (data
parallelism inside each stage).

With --model N the mesh gets a third axis "model" and the
blocks are split over it as examples/training/t2_lm.mlir splits T2's
(Megatron): the heads h of Wq, Wk, Wv and Wo, the MLP width f of W1 and
W2, so the attention's and the MLP's outputs are partial sums over
"model" (all-reduced into the residual stream, which, like the boundary
slot, stays whole over "model"). The embedding and the head stay
replicated, computed on every model rank (docs/pipeline.md, "Tensor
parallelism inside the LM's stages"). Under 1F1B the same splits sit in
@stage's arguments, and @stage_vjp's gradient results keep their layouts
open, as without --model.

With --schedule 1f1b the schedule is make_pipeline_1f1b.py's (docs/
pipeline.md, "1F1B"): @stage holds a stage's L/S blocks and @stage_vjp,
a weft.vjp_of declaration, its backward; @head_vjp the head's, called at
the loss ticks with the loss's cotangent (1/(m b t) on the last stage).
The program returns its own gradients: the blocks' and Wout's from the
vjps, E's and P's written out (stage 0's input cotangent of each
micro-batch scattered into dE through the one-hot of its tokens, summed
over the rows into dP).

usage: make_pipeline_lm.py OUT.mlir [--stages 4] [--layers 4] [--micro 4]
           [--micro-batch 2] [--seq 16] [--width 32] [--heads 2]
           [--hidden 64] [--vocab 64] [--data 1] [--model 1] [--train sgd]
           [--lr 0.5] [--search greedy] [--schedule gpipe|1f1b]
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_common import (Writer, add_grad, add_loss,  # noqa: E402
                             finish_loss, mesh_line, saved_input,
                             stage_masks, stage_onehots, tick_input, ty)

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
    ap.add_argument("--model", type=int, default=1,
                    help="tensor parallelism inside the stages: heads and "
                    "MLP width split over a \"model\" axis")
    ap.add_argument("--train", default="sgd", help="weftc --train=")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--schedule", choices=["gpipe", "1f1b"],
                    default="gpipe")
    ap.add_argument("--search", default="greedy",
                    help="weftc --search= (greedy: the global search "
                    "finds the same plan here, much slower)")
    a = ap.parse_args()
    S, L, m, b, T = a.stages, a.layers, a.micro, a.micro_batch, a.seq
    d, H, f, V = a.width, a.heads, a.hidden, a.vocab
    if min(S, L, m, b, T, d, H, f, V, a.data, a.model) < 1:
        ap.error("every size must be at least 1")
    if L % S:
        ap.error("--layers must be a multiple of --stages")
    if d % H:
        ap.error("--width must be a multiple of --heads")
    if b % a.data:
        ap.error("--micro-batch must be a multiple of --data")
    if H % a.model or f % a.model:
        ap.error("--heads and --hidden must be multiples of --model")
    per = L // S
    e = d // H

    dat = "data"
    # Tensor parallelism inside the stages: the heads and the MLP width
    # split over "model" (None: whole).
    mdl = "model" if a.model > 1 else None
    # The rolling buffer and the per-slot values, batched over the stage s.
    act = ty([S, 1, b, T, d], ["stage", None, dat, None, None])
    row = ty([S, 1, b, T], ["stage", None, dat, None])
    hid = ty([S, 1, b, T, f], ["stage", None, dat, None, mdl])
    heads = ty([S, 1, b, H, T, e], ["stage", None, dat, mdl, None, None])
    scores = ty([S, 1, b, H, T, T], ["stage", None, dat, mdl, None, None])
    hrow = ty([S, 1, b, H, T], ["stage", None, dat, mdl, None])
    logit = ty([S, 1, b, T, V], ["stage", None, dat, None, None])
    # The micro-batches, their embeddings, one micro-batch's.
    toks = ty([m, b, T], [None, dat, None], "i32")
    tok1 = ty([1, b, T], [None, dat, None], "i32")
    emb = ty([m, b, T, d], [None, dat, None, None])
    one = ty([1, b, T, d], [None, dat, None, None])
    oneh = ty([1, b, T, V], [None, dat, None, None])
    one_row = ty([1, b, T], [None, dat, None])
    # The weights: the blocks' stacked over "stage" (and their heads and
    # MLP width split over "model"), the rest replicated.
    wty = {"Wq": ty([S, d, H, e], ["stage", None, mdl, None]),
           "Wo": ty([S, H, e, d], ["stage", mdl, None, None]),
           "W1": ty([S, d, f], ["stage", None, mdl]),
           "W2": ty([S, f, d], ["stage", mdl, None])}
    wty["Wk"] = wty["Wv"] = wty["Wq"]
    # 1F1B's gradients of them, their layouts left to propagation.
    open_ty = {"Wq": ty([S, d, H, e], [None] * 4),
               "Wo": ty([S, H, e, d], [None] * 4),
               "W1": ty([S, d, f], [None] * 3),
               "W2": ty([S, f, d], [None] * 3)}
    open_ty["Wk"] = open_ty["Wv"] = open_ty["Wq"]
    rep = lambda shape: ty(shape, [None] * len(shape))
    vec = ty([S], ["stage"])
    sb = ty([S, b], ["stage", dat])
    cm = rep([T, T])

    w = Writer()
    emit, mapop, einsum, reduce = w.emit, w.mapop, w.einsum, w.reduce
    emit("// weftc: --train=%s --lr %g --search=%s" % (a.train, a.lr,
                                                     a.search))
    f1b = a.schedule == "1f1b"
    emit("// A %d-block transformer LM (examples/training/t2_lm.mlir's model) "
         "trained with a %s" % (L, "1F1B" if f1b else "GPipe"))
    emit("// schedule over %d stages (docs/pipeline.md): %d micro-batches of "
         "%d sequences of %d tokens," % (S, m, b, T))
    emit("// %d ticks. Written by bench/pipeline/make_pipeline_lm.py "
         "--stages %d --layers %d --micro %d" %
         (m + 2 * S - 2 if f1b else m + S - 1, S, L, m))
    emit("// --micro-batch %d --seq %d --width %d --heads %d --hidden %d "
         "--vocab %d --data %d%s" % (b, T, d, H, f, V, a.data,
                                     " --model %d" % a.model
                                     if a.model > 1 else ""))
    emit("// --train %s --lr %g --search %s%s." %
         (a.train, a.lr, a.search, " --schedule 1f1b" if f1b else ""))
    emit(mesh_line(S, a.data, a.model))
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

    def block_ops(p, x, W, cmv):
        """One block of every stage on buffer `x`, batched over s (names
        prefixed by `p`, block weight n read as W(n), the causal mask
        `cmv`); returns its output."""
        xa = rms(p + "a", x)
        q = einsum(p + "q", "sjbtd,sdhe->sjbhte", [xa, W("Wq")],
                   [act, wty["Wq"]], heads)
        kk = einsum(p + "k", "sjbud,sdhe->sjbhue", [xa, W("Wk")],
                    [act, wty["Wk"]], heads)
        v = einsum(p + "v", "sjbud,sdhe->sjbhue", [xa, W("Wv")],
                   [act, wty["Wv"]], heads)
        s0 = einsum(p + "s0", "sjbhte,sjbhue->sjbhtu", [q, kk],
                    [heads, heads], scores)
        s1 = mapop(p + "s1", "scale", "sjbhtu->sjbhtu", [s0], [scores],
                   scores, 1 / e ** 0.5)
        s2 = mapop(p + "s2", "add", "sjbhtu,tu->sjbhtu", [s1, cmv],
                   [scores, cm], scores)
        mx = reduce(p + "mx", "max", "sjbhtu->sjbht", s2, scores, hrow)
        s3 = mapop(p + "s3", "sub", "sjbhtu,sjbht->sjbhtu", [s2, mx],
                   [scores, hrow], scores)
        s4 = mapop(p + "s4", "exp", "sjbhtu->sjbhtu", [s3], [scores], scores)
        z = reduce(p + "z", "sum", "sjbhtu->sjbht", s4, scores, hrow)
        pr = mapop(p + "pr", "div", "sjbhtu,sjbht->sjbhtu", [s4, z],
                   [scores, hrow], scores)
        o = einsum(p + "o", "sjbhtu,sjbhue->sjbhte", [pr, v], [scores, heads],
                   heads)
        ao = einsum(p + "ao", "sjbhte,shed->sjbtd", [o, W("Wo")],
                    [heads, wty["Wo"]], act)
        x1 = mapop(p + "x1", "add", "sjbtd,sjbtd->sjbtd", [x, ao], [act, act],
                   act)
        xm = rms(p + "m", x1)
        f1 = einsum(p + "f1", "sjbtd,sdf->sjbtf", [xm, W("W1")],
                    [act, wty["W1"]], hid)
        g = mapop(p + "g", "gelu", "sjbtf->sjbtf", [f1], [hid], hid)
        f2 = einsum(p + "f2", "sjbtf,sfd->sjbtd", [g, W("W2")],
                    [hid, wty["W2"]], act)
        return mapop(p + "x2", "add", "sjbtd,sjbtd->sjbtd", [x1, f2],
                     [act, act], act)

    def causal_mask(p):
        """The causal mask [t, u]: 0 where u <= t, -1e9 elsewhere."""
        tv = rep([T])
        emit("  %%%stpos = weft.iota : %s" % (p, tv))
        mapop(p + "cm0", "ge", "t,u->tu", ["%" + p + "tpos"] * 2, [tv, tv],
              cm)
        mapop(p + "cm1", "shift", "tu->tu", ["%" + p + "cm0"], [cm], cm, -1.0)
        return mapop(p + "cm", "scale", "tu->tu", ["%" + p + "cm1"], [cm], cm,
                     1e9)

    btys = [wty[n] for n in BLOCK_WEIGHTS]
    if a.schedule == "gpipe":
        # One block of every stage: a layer function (docs/calls.md),
        # called once per block and tick, so weftc emits shared C++ bodies
        # for the calls (weft-outline-layers; --plan-layers falls back
        # here: docs/pipeline.md, "The language model").
        emit("func.func private @block(%%x: %s, %%cm: %s, %s) -> %s {" %
             (act, cm, ", ".join("%%%s: %s" % (n, t)
                                 for n, t in zip(BLOCK_WEIGHTS, btys)), act))
        x2 = block_ops("", "%x", lambda n: "%" + n, "%cm")
        emit("  return %s : %s" % (x2, act))
        emit("}")
        emit("")
    else:
        # A stage's L/S blocks, and its vjp (weft-inline-calls writes it).
        wargs = ", ".join("%%%s_%d: %s" % (n, k, wty[n]) for k in range(per)
                          for n in BLOCK_WEIGHTS)
        emit("func.func private @stage(%s, %%x: %s) -> %s {" %
             (wargs, act, act))
        cmv = causal_mask("")
        cur = "%x"
        for k in range(per):
            cur = block_ops("b%d_" % k, cur,
                            lambda n, k=k: "%%%s_%d" % (n, k), cmv)
        emit("  return %s : %s" % (cur, act))
        emit("}")
        emit("")
        emit("func.func private @stage_vjp(%s, %s, %s) -> (%s, %s) "
             "attributes {weft.vjp_of = @stage}" %
             (", ".join(btys * per), act, act,
              ", ".join(open_ty[n] for k in range(per)
                        for n in BLOCK_WEIGHTS), act))
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
    if a.schedule == "1f1b":
        emit("func.func private @head_vjp(%s, %s, %s, %s) -> (%s, %s, %s) "
             "attributes {weft.vjp_of = @head}" %
             (act, wout, oneh, row, act, wout, oneh))
        emit("")
    def one_f_one_b(grads, gtys):
        """The entry's ticks under 1F1B (make_pipeline_1f1b.py's schedule):
        at tick t stage s forwards micro-batch t - s and backwards
        t - 2(S-1) + s. The head's cotangent comes from @head_vjp at the
        loss ticks; the embedding's gradients are written out: at the
        ticks where stage 0 backwards micro-batch j, its input cotangent
        (masked to stage 0) is scattered into dE through the one-hot of
        j's tokens, and summed over the rows into dP."""
        stage_masks(w, S, vec)
        stage_onehots(w, S, vec)
        wops = ", ".join("%%%s_%d" % (n, k) for k in range(per)
                         for n in BLOCK_WEIGHTS)
        wtys = ", ".join(btys * per)
        dtys = [open_ty[n] for k in range(per) for n in BLOCK_WEIGHTS]
        bspec = {"Wq": "sdhe", "Wk": "sdhe", "Wv": "sdhe", "Wo": "shed",
                 "W1": "sdf", "W2": "sfd"}
        acc = None
        dW = {n: None for n in grads}
        prev_h = prev_d = None
        ins = {}
        for t in range(m + 2 * S - 2):
            emit("  // tick %d" % t)
            gl = None
            if t < m + S - 1:
                # Forward half.
                cur = tick_input(w, t, m, prev_h, "%emb", emb, one, act, vec,
                                 "btd")
                emit("  %%h%d = func.call @stage(%s, %s) : (%s, %s) -> %s" %
                     (t, wops, cur, wtys, act, act))
                ins[t] = cur
                prev_h = "%%h%d" % t
                j = t - S + 1
                if 0 <= j < m:
                    emit("  %%lab%d = weft.slice %%labels dim 0 start %d : "
                         "%s -> %s" % (j, j, toks, tok1))
                    emit("  %%loh%d = weft.one_hot \"jbt->jbtv\" (%%lab%d) : "
                         "(%s) -> %s" % (j, j, tok1, oneh))
                    emit("  %%ce%d = func.call @head(%s, %%Wout, %%loh%d) : "
                         "(%s, %s, %s) -> %s" % (t, prev_h, j, act, wout,
                                                  oneh, row))
                    acc = add_loss(w, t, acc, "%%ce%d" % t, row, vec, "bt",
                                   sb)
                    # The loss's cotangent of each slot's cross-entropy:
                    # 1/(m b t) on the last stage (the one-hot's sum over v
                    # is a [1, b, t] of ones).
                    ones = reduce("ones%d" % t, "sum", "jbtv->jbt",
                                  "%%loh%d" % j, oneh, one_row)
                    cl = mapop("cl%d" % t, "mul", "s,jbt->sjbt",
                               ["%last", ones], [vec, one_row], row)
                    cs = mapop("cs%d" % t, "scale", "sjbt->sjbt", [cl], [row],
                               row, 1.0 / (m * b * T))
                    emit("  %%gl%d, %%dWout%d, %%doh%d = func.call @head_vjp("
                         "%s, %%Wout, %%loh%d, %s) : (%s, %s, %s, %s) -> "
                         "(%s, %s, %s)" % (t, t, t, prev_h, j, cs, act, wout,
                                           oneh, row, act, wout, oneh))
                    gl = "%%gl%d" % t
                    dW["Wout"] = add_grad(w, "gWout%d" % t, dW["Wout"],
                                          "%%dWout%d" % t, "dv", wout)
            if t < S - 1:
                continue
            # Backward half: the cotangents, the saved inputs, the vjp.
            g = None
            if prev_d is not None:
                emit("  %%gs%d = weft.shift %s dim 0 by -1 : %s -> %s" %
                     (t, prev_d, act, act))
                g = "%%gs%d" % t
            if gl:
                g = gl if g is None else mapop(
                    "g%d" % t, "add", "sjbtd,sjbtd->sjbtd", [g, gl],
                    [act, act], act)
            saved = saved_input(w, t, S, m, ins, act, vec, "btd")
            names = ["%%d%s_%d" % (n, t) for n in grads[2:-1]]
            emit("  %s, %%d%d = func.call @stage_vjp(%s, %s, %s) : (%s, %s, "
                 "%s) -> (%s, %s)" % (", ".join(names), t, wops, saved, g,
                                      wtys, act, act, ", ".join(dtys), act))
            for n, new, gt in zip(grads[2:-1], names, dtys):
                dW[n] = add_grad(w, "g%s_%d" % (n, t), dW[n], new,
                                 bspec[n.split("_")[0]], gt)
            prev_d = "%%d%d" % t
            jb = t - 2 * (S - 1)
            if 0 <= jb < m:
                # Stage 0's input cotangent of micro-batch jb: the
                # embedding's.
                ge = einsum("ge%d" % t, "s,sjbtd->jbtd", ["%first", prev_d],
                            [vec, act], one)
                emit("  %%tok%d = weft.slice %%tokens dim 0 start %d : %s -> "
                     "%s" % (jb, jb, toks, tok1))
                emit("  %%toh%d = weft.one_hot \"jbt->jbtv\" (%%tok%d) : "
                     "(%s) -> %s" % (jb, jb, tok1, oneh))
                dE = einsum("dE%d" % t, "jbtv,jbtd->vd", ["%%toh%d" % jb, ge],
                            [oneh, one], rep([V, d]))
                dP = reduce("dP%d" % t, "sum", "jbtd->td", ge, one,
                            rep([T, d]))
                dW["E"] = add_grad(w, "gE%d" % t, dW["E"], dE, "vd",
                                   rep([V, d]))
                dW["P"] = add_grad(w, "gP%d" % t, dW["P"], dP, "td",
                                   rep([T, d]))
        finish_loss(w, acc, sb, 1.0 / (m * b * T))
        emit("  return %%loss, %s : tensor<f32>, %s" %
             (", ".join(dW[n] for n in grads), ", ".join(gtys)))
        emit("}")

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
    res = ["tensor<f32> {weft.name = \"loss\"}"]
    if a.schedule == "1f1b":
        # The program returns its own gradients (docs/pipeline.md, "1F1B"):
        # one per parameter, in the arguments' order (argument 2 is E).
        grads = (["E", "P"] + ["%s_%d" % (n, k) for k in range(per)
                               for n in BLOCK_WEIGHTS] + ["Wout"])
        gtys = ([rep([V, d]), rep([T, d])] +
                [open_ty[n] for k in range(per) for n in BLOCK_WEIGHTS] +
                [rep([d, V])])
        for i, (n, gt) in enumerate(zip(grads, gtys)):
            res.append("%s {weft.grad_of = %d : i64, weft.name = "
                       "\"grad_%s\"}" % (gt, i + 2, n))
    emit("func.func @pipeline_lm%s(\n%s)\n    -> (%s) {" %
         ("_1f1b" if a.schedule == "1f1b" else "", ",\n".join(args),
          ",\n        ".join(res) if len(res) > 1 else res[0]))

    emit("  // The embedding of every micro-batch, on every stage.")
    emit("  %%emb0 = weft.embed \"nbt,vd->nbtd\" (%%tokens, %%E) : (%s, %s) "
         "-> %s" % (toks, rep([V, d]), emb))
    mapop("emb", "add", "nbtd,td->nbtd", ["%emb0", "%P"], [emb, rep([T, d])],
          emb)
    if a.schedule == "1f1b":
        one_f_one_b(grads, gtys)
        w.write(a.out)
        return

    emit("  // The causal mask: 0 where u <= t, -1e9 elsewhere.")
    causal_mask("")
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
