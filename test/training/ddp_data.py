"""Data for the DDP MLP examples (examples/training/ddp_mlp_b*.mlir), for
test/training/ddp-mlp-b*.test.

Writes to --out DIR: x, y [2, B, D] (step t reads batch (t-1) mod 2; y is a
linear teacher of x, so the loss can fall) and W1..W3 [D, D].
"""
import argparse
import os

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--layers", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(30)
    b, d = a.batch, a.width
    x = rng.standard_normal((2, b, d))
    teacher = rng.standard_normal((d, d)) / np.sqrt(d)
    arrays = {"x": x, "y": x @ teacher}
    for i in range(1, a.layers + 1):
        arrays["W%d" % i] = rng.standard_normal((d, d))
    os.makedirs(a.out, exist_ok=True)
    for name, v in arrays.items():
        np.save(os.path.join(a.out, name + ".npy"), v.astype(np.float32))


if __name__ == "__main__":
    main()
