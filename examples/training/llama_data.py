#!/usr/bin/env python3
"""Writes the inputs of the Llama-style training example (llama_lm.mlir).

The task is T2's (examples/training/t2_data.py): continuing a random cyclic
order of the whole vocabulary (here 256 byte values), which a small LM can
learn, so the loss falls from ln(256) = 5.55 towards 0.

Into --out DIR (C-order .npy, written atomically):

    tokens.npy, labels.npy  int32 [S, b, t]  step t (1-based) uses (t-1) % S
    E.npy       [v, d]        N(0, 0.02^2)              token embedding
    g1_l, g2_l.npy [d]        ones                      RMSNorm gains
    wq_l, wk_l.npy [d, h, j, r]  N(0, 1) / sqrt(d)      (head dim = j r)
    wv_l.npy    [d, h, e]     N(0, 1) / sqrt(d)
    wo_l.npy    [h, e, d]     N(0, 1) / sqrt(h e) / sqrt(2 L)
    w1_l, w3_l.npy [d, f]     N(0, 1) / sqrt(d)         SwiGLU
    w2_l.npy    [f, d]        N(0, 1) / sqrt(f) / sqrt(2 L)
    gf.npy      [d]           ones                      final RMSNorm gain
    Wout.npy    [d, v]        N(0, 0.02^2)

for l = 0 .. L-1. Everything is drawn from numpy's default_rng(--seed).

Example:
    llama_data.py --out /tmp/llama
"""
import argparse
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(f"llama_data.py: error: numpy is not importable by "
             f"{sys.executable}; run this script with a Python that has numpy")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from t1_data import positive_int, write_all  # noqa: E402


def generate(seed, batches, b, t, d, h, j, f, v, layers):
    """Returns the dict name -> array of the inputs (int32 data, float32
    parameters)."""
    rng = np.random.default_rng(seed)
    cycle = rng.permutation(v)
    starts = rng.integers(0, v, (batches, b, 1))
    seq = cycle[(starts + np.arange(t + 1)) % v]
    arrays = {"tokens": seq[..., :-1].astype(np.int32),
              "labels": seq[..., 1:].astype(np.int32)}
    normal = rng.standard_normal
    e = 2 * j
    arrays["E"] = 0.02 * normal((v, d))
    for l in range(layers):
        arrays[f"g1_{l}"] = np.ones(d)
        arrays[f"wq_{l}"] = normal((d, h, j, 2)) / np.sqrt(d)
        arrays[f"wk_{l}"] = normal((d, h, j, 2)) / np.sqrt(d)
        arrays[f"wv_{l}"] = normal((d, h, e)) / np.sqrt(d)
        arrays[f"wo_{l}"] = normal((h, e, d)) / np.sqrt(h * e * 2 * layers)
        arrays[f"g2_{l}"] = np.ones(d)
        arrays[f"w1_{l}"] = normal((d, f)) / np.sqrt(d)
        arrays[f"w3_{l}"] = normal((d, f)) / np.sqrt(d)
        arrays[f"w2_{l}"] = normal((f, d)) / np.sqrt(f * 2 * layers)
    arrays["gf"] = np.ones(d)
    arrays["Wout"] = 0.02 * normal((d, v))
    return arrays


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the .npy inputs (data and initial parameters) of "
                    "the Llama-style training example.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--batches", type=positive_int, default=8,
                        metavar="S", help="number of batches S")
    for name, default, what in [("b", 8, "batch size"),
                                ("t", 32, "sequence length"),
                                ("d", 64, "model dimension"),
                                ("h", 4, "attention heads"),
                                ("j", 8, "rotary pairs per head (head dim 2j)"),
                                ("f", 128, "SwiGLU hidden dimension"),
                                ("v", 256, "vocabulary size"),
                                ("layers", 2, "decoder layers")]:
        parser.add_argument("--" + name, type=positive_int, default=default,
                            help=what)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    arrays = generate(args.seed, args.batches, args.b, args.t, args.d,
                      args.h, args.j, args.f, args.v, args.layers)
    if write_all("llama_data.py", args.out, arrays):
        return 1
    print(f"wrote {len(arrays)} arrays to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
