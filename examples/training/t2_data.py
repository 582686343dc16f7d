#!/usr/bin/env python3
"""Writes the inputs of the T2 training example (a 2-layer transformer LM).

The task is one a small language model can learn: continuing a random
repeating pattern. A fixed random cyclic order of the whole vocabulary is
drawn once; every sequence starts at a random point of the cycle and follows
it, and its labels are the next tokens. Once the model has learned the cycle
(a successor table, 512 entries) every label is predictable, so the loss can
fall from ln(512) = 6.24 towards 0.

Into --out DIR (C-order .npy, written atomically):

    tokens.npy  int32 [S, b, t]   S batches; step t (1-based) uses (t-1) % S
    labels.npy  int32 [S, b, t]   the next token of each position
    E.npy       [v, d]    N(0, 0.02^2)           token embedding
    P.npy       [t, d]    N(0, 0.02^2)           learned positions
    Wq_l, Wk_l, Wv_l.npy [d, h, k]  N(0, 1) / sqrt(d)
    Wo_l.npy    [h, k, d] N(0, 1) / sqrt(h k) / sqrt(2 L)
    W1_l.npy    [d, f]    N(0, 1) / sqrt(d)
    W2_l.npy    [f, d]    N(0, 1) / sqrt(f) / sqrt(2 L)
    Wout.npy    [d, v]    N(0, 0.02^2)

for l = 0 .. L-1. Everything is drawn from numpy's default_rng(--seed).

Example:
    t2_data.py --out /tmp/t2
"""
import argparse
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(f"t2_data.py: error: numpy is not importable by {sys.executable}; "
             "run this script with a Python that has numpy")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from t1_data import positive_int, write_all  # noqa: E402


def generate(seed, batches, b, t, d, h, k, f, v, layers):
    """Returns the dict name -> array of the T2 inputs (int32 data, float32
    parameters)."""
    rng = np.random.default_rng(seed)
    cycle = rng.permutation(v)
    starts = rng.integers(0, v, (batches, b, 1))
    pos = (starts + np.arange(t + 1)) % v
    seq = cycle[pos]
    arrays = {"tokens": seq[..., :-1].astype(np.int32),
              "labels": seq[..., 1:].astype(np.int32)}
    normal = rng.standard_normal
    arrays["E"] = 0.02 * normal((v, d))
    arrays["P"] = 0.02 * normal((t, d))
    for l in range(layers):
        for w in ("Wq", "Wk", "Wv"):
            arrays[f"{w}_{l}"] = normal((d, h, k)) / np.sqrt(d)
        arrays[f"Wo_{l}"] = normal((h, k, d)) / np.sqrt(h * k * 2 * layers)
        arrays[f"W1_{l}"] = normal((d, f)) / np.sqrt(d)
        arrays[f"W2_{l}"] = normal((f, d)) / np.sqrt(f * 2 * layers)
    arrays["Wout"] = 0.02 * normal((d, v))
    return arrays


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the .npy inputs (data and initial parameters) of "
                    "the T2 transformer training example.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--batches", type=positive_int, default=8,
                        metavar="S", help="number of batches S")
    for name, default, what in [("b", 8, "batch size"),
                                ("t", 64, "sequence length"),
                                ("d", 128, "model dimension"),
                                ("h", 4, "attention heads"),
                                ("k", 32, "head dimension"),
                                ("f", 512, "MLP hidden dimension"),
                                ("v", 512, "vocabulary size"),
                                ("layers", 2, "transformer layers")]:
        parser.add_argument("--" + name, type=positive_int, default=default,
                            help=what)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.v > 2 ** 31 - 1:
        parser.error(f"--v must fit in int32, got {args.v}")
    arrays = generate(args.seed, args.batches, args.b, args.t, args.d,
                      args.h, args.k, args.f, args.v, args.layers)
    if write_all("t2_data.py", args.out, arrays):
        return 1
    print(f"wrote {len(arrays)} arrays ({', '.join(arrays)}) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
