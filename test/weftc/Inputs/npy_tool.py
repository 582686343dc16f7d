"""Test helper for weftc programs: writes inputs, checks outputs.

  npy_tool.py mlp-inputs DIR          x, w1, w2 of Inputs/mlp.mlir, plus bad
                                      files (wrong shape, wrong dtype)
  npy_tool.py mlp-check DIR OUT...    each OUT/y.npy against numpy's
                                      relu(x @ w1) @ w2 (float64)
  npy_tool.py compare A B             every A/*.npy equals B/*.npy
Relative error is max|a - b| / max|ref| <= 1e-5 (f32 sums in any order).
"""
import glob
import os
import sys

import numpy as np

RTOL = 1e-5


def rel_err(a, ref):
    scale = max(float(np.abs(ref).max()), 1e-30)
    return float(np.abs(a.astype(np.float64) - ref).max()) / scale


def main(argv):
    cmd = argv[1]
    if cmd == "mlp-inputs":
        d = argv[2]
        rng = np.random.default_rng(1234)
        x = rng.uniform(-1, 1, (2, 8, 16)).astype(np.float32)
        w1 = rng.uniform(-1, 1, (16, 32)).astype(np.float32)
        w2 = rng.uniform(-1, 1, (32, 16)).astype(np.float32)
        np.save(os.path.join(d, "x.npy"), x)
        np.save(os.path.join(d, "w1.npy"), w1)
        np.save(os.path.join(d, "w2.npy"), w2)
        np.save(os.path.join(d, "x_shape.npy"), x[:, :, :15].copy())
        np.save(os.path.join(d, "x_f64.npy"), x.astype(np.float64))
        return 0
    if cmd == "mlp-check":
        d = argv[2]
        x, w1, w2 = (np.load(os.path.join(d, n + ".npy")).astype(np.float64)
                     for n in ("x", "w1", "w2"))
        ref = np.maximum(np.einsum("btd,df->btf", x, w1), 0)
        ref = np.einsum("btf,fd->btd", ref, w2)
        status = 0
        for out in argv[3:]:
            y = np.load(os.path.join(out, "y.npy"))
            err = rel_err(y, ref)
            ok = y.shape == ref.shape and y.dtype == np.float32 and err <= RTOL
            print("%s: y %s" % (os.path.basename(out),
                                "matches numpy" if ok else
                                "MISMATCH (rel err %g)" % err))
            status |= 0 if ok else 1
        return status
    if cmd == "compare":
        a, b = argv[2], argv[3]
        files = sorted(glob.glob(os.path.join(a, "*.npy")))
        if not files:
            print("no outputs in %s" % a)
            return 1
        status = 0
        for f in files:
            name = os.path.basename(f)
            x, y = np.load(f), np.load(os.path.join(b, name))
            ok = x.shape == y.shape and x.dtype == y.dtype and \
                rel_err(x, y.astype(np.float64)) <= RTOL
            print("%s: %s" % (name, "equal" if ok else "DIFFERENT"))
            status |= 0 if ok else 1
        return status
    print("unknown command %s" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
