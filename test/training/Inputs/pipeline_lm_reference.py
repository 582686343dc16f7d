#!/usr/bin/env python3
"""Data and an independent numpy loss for the pipelined language model
(bench/pipeline/make_pipeline_lm.py), for test/training/pipeline-lm.test.

    pipeline_lm_reference.py --out DIR [sizes]
        writes tokens, labels [2, m, b, t] (step T reads batch (T-1) mod 2)
        and the initial parameters: E, P, Wout as T2's, every block weight
        stacked along a stage dimension (Wq_k [S, d, h, e], ...: block
        s*(L/S) + k of the model is Wq_k[s]), drawn by
        examples/training/t2_data.py for an L-block model;
    pipeline_lm_reference.py --params DIR --data DIR --step T [sizes]
        unstacks DIR's parameters into T2's names (Wq_l, ..., l = 0..L-1)
        and prints `step T loss X`: test/training/t2_reference.py's float64
        forward pass on the whole batch of step T (the m micro-batches as
        one batch of m*b sequences).

Sizes: --stages S --layers L --micro m --micro-batch b --seq t --width d
--heads h --hidden f --vocab v (make_pipeline_lm.py's defaults). Neither
the data nor the loss uses Weft code: the model is t2_reference.py's.
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "examples",
                                "training"))
sys.dont_write_bytecode = True
import t2_reference  # noqa: E402

BLOCK = ("Wq", "Wk", "Wv", "Wo", "W1", "W2")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", metavar="DIR")
    ap.add_argument("--params", metavar="DIR")
    ap.add_argument("--data", metavar="DIR")
    ap.add_argument("--step", type=int)
    for name, default in [("stages", 4), ("layers", 4), ("micro", 4),
                          ("micro-batch", 2), ("seq", 16), ("width", 32),
                          ("heads", 2), ("hidden", 64), ("vocab", 64)]:
        ap.add_argument("--" + name, type=int, default=default)
    a = ap.parse_args()
    S, L, per = a.stages, a.layers, a.layers // a.stages
    if a.out:
        import t2_data
        arrays = t2_data.generate(33, 2, a.micro * a.micro_batch, a.seq,
                                  a.width, a.heads, a.width // a.heads,
                                  a.hidden, a.vocab, L)
        out = {}
        for n in ("tokens", "labels"):
            out[n] = arrays[n].reshape(2, a.micro, a.micro_batch, a.seq)
        for n in ("E", "P", "Wout"):
            out[n] = arrays[n].astype(np.float32)
        for k in range(per):
            for n in BLOCK:
                out["%s_%d" % (n, k)] = np.stack(
                    [arrays["%s_%d" % (n, s * per + k)] for s in range(S)]
                ).astype(np.float32)
        os.makedirs(a.out, exist_ok=True)
        for n, v in out.items():
            np.save(os.path.join(a.out, n + ".npy"), v)
        return 0
    if not (a.params and a.data and a.step):
        ap.error("give --out DIR, or --params DIR --data DIR --step T")
    load = lambda d, n: np.load(os.path.join(d, n + ".npy"))
    p = {n: load(a.params, n).astype(np.float64) for n in ("E", "P", "Wout")}
    for k in range(per):
        for n in BLOCK:
            stacked = load(a.params, "%s_%d" % (n, k)).astype(np.float64)
            for s in range(S):
                p["%s_%d" % (n, s * per + k)] = stacked[s]
    i = (a.step - 1) % 2
    tokens = load(a.data, "tokens")[i].reshape(-1, a.seq)
    labels = load(a.data, "labels")[i].reshape(-1, a.seq)
    print("step %d loss %.9g" % (a.step, t2_reference.loss(p, tokens, labels,
                                                            L)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
