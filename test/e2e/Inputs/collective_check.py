"""The command line shared by the local-view collective tests' drivers
(permute.py, root_collectives.py): gen, inputs and check of one program on a
two-axis mesh, against numpy's evaluation of the ops' definitions."""
import os
import sys

import numpy as np


def main(program, expected, names, seed):
    """program(a, b) -> MLIR text; expected(a, b, x) -> {name: array};
    seed(a, b) -> the inputs' random seed."""
    cmd, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if cmd == "gen":
        with open(sys.argv[4], "w") as f:
            f.write(program(a, b))
        return 0
    if cmd == "inputs":
        rng = np.random.default_rng(seed(a, b))
        np.save(os.path.join(sys.argv[4], "x.npy"),
                rng.standard_normal((2 * a * b, 3)).astype(np.float32))
        return 0
    x = np.load(os.path.join(sys.argv[4], "x.npy")).astype(np.float64)
    want = expected(a, b, x)
    bad = 0
    for run in sys.argv[5:]:
        for i, name in enumerate(names):
            path = os.path.join(run, name + ".npy")
            if not os.path.exists(path):
                path = os.path.join(run, "result%d.npy" % i)
            got = np.load(path).astype(np.float64)
            ok = got.shape == want[name].shape and np.allclose(
                got, want[name], rtol=1e-6, atol=1e-6)
            bad += not ok
            print("%s %s: %s" % (os.path.basename(run), name,
                                 "ok" if ok else "MISMATCH %s vs %s" % (
                                     got.tolist(), want[name].tolist())))
    return 1 if bad else 0
