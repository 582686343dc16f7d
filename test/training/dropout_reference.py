#!/usr/bin/env python3
"""numpy trainer of examples/training/dropout_mlp.mlir (plain SGD), for
test/training/dropout-steps.test.

Writes the data (x, y [steps, 32, ...], W1, W2) with --out DIR, or trains
on it with --data DIR --steps N [--save OUT] [--fixed-mask] (the interface
of t1_data.py / t1_reference.py, which scripts/gpu/bundle.py uses), printing
`step t loss L` (the loss before the step's update) per step. The dropout
mask of step t comes from test/numpy/weft_numpy.py's own Philox (written
from the paper, independent of the C++ one): uniform(seed 11, offset t) of
the hidden activation's shape, kept where u > 0.25. --fixed-mask draws
step 0's mask every step (what a program without the offset would do):
the test checks that the compiled program does NOT match that.
"""
import os
import sys

import numpy as np

import reference_cli

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "numpy"))
import weft_numpy  # noqa: E402

B, D, H, O = 32, 16, 64, 8
P, SEED, LR = 0.25, 11, 0.1


def mask(step):
    u = weft_numpy.eval_random({"shape": [B, H], "seed": SEED,
                                "dist": "uniform", "dtype": "f32"},
                               [np.float64(step)])
    return (u - P > 0).astype(np.float64)


def write_data(out):
    rng = np.random.default_rng(5)
    os.makedirs(out, exist_ok=True)
    arrays = {
        "x": rng.standard_normal((2, B, D)),
        "y": rng.standard_normal((2, B, O)),
        "W1": rng.standard_normal((D, H)) / np.sqrt(D),
        "W2": rng.standard_normal((H, O)) / np.sqrt(H),
    }
    for name, a in arrays.items():
        np.save(os.path.join(out, name + ".npy"), a.astype(np.float32))


def train(data, steps, save, fixed):
    load = lambda n: np.load(os.path.join(data, n + ".npy")).astype(np.float64)
    xs, ys, W1, W2 = load("x"), load("y"), load("W1"), load("W2")
    for t in range(1, steps + 1):
        x, y = xs[(t - 1) % len(xs)], ys[(t - 1) % len(ys)]
        keep = mask(0 if fixed else t)
        pre = x @ W1
        hid = np.maximum(pre, 0)
        drop = hid * keep / (1 - P)
        out = drop @ W2
        e = out - y
        loss = np.sum(e * e) / (B * O)
        print("step %d loss %.9g" % (t, loss), flush=True)
        dout = 2 * e / (B * O)
        dW2 = drop.T @ dout
        dpre = (dout @ W2.T) * keep / (1 - P) * (pre > 0)
        dW1 = x.T @ dpre
        W1 -= LR * dW1
        W2 -= LR * dW2
    if save:
        os.makedirs(save, exist_ok=True)
        np.save(os.path.join(save, "W1.npy"), W1)
        np.save(os.path.join(save, "W2.npy"), W2)


def main():
    p = reference_cli.parser(__doc__)
    p.add_argument("--fixed-mask", action="store_true",
                   help="step 0's mask every step (the no-offset program)")
    reference_cli.run(
        p, write_data,
        lambda a: train(a.data, a.steps, a.save, a.fixed_mask))


if __name__ == "__main__":
    main()
