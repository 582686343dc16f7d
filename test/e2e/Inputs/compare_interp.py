#!/usr/bin/env python3
"""Compares an executable's outputs with weft-interp's (the unfused oracle).

  compare_interp.py INTERP_DIR RUN_DIR NAME0,NAME1,... [--rtol R]

INTERP_DIR holds weft-interp's resultI.npy, RUN_DIR the executable's
NAME.npy; NAMEi is result i's name. Prints `NAME: vs interpreter: ok (rel
err E)` or `... MISMATCH`, E = max|run - interp| / max|interp|, and exits 1
on a mismatch (E > rtol, or shapes that differ). The interpreter computes
in float64, so E is the executable's f32 error.
"""
import os
import sys

import numpy as np


def main(argv):
    rtol = 1e-5
    args = list(argv[1:])
    if "--rtol" in args:
        i = args.index("--rtol")
        rtol = float(args[i + 1])
        del args[i:i + 2]
    interp, run, names = args[0], args[1], args[2].split(",")
    status = 0
    for i, name in enumerate(names):
        want = np.load(os.path.join(interp, "result%d.npy" % i))
        got = np.load(os.path.join(run, name + ".npy"))
        # The interpreter computes (and writes) in float64.
        if got.shape != want.shape:
            print("%s: vs interpreter: MISMATCH (shape %s vs %s)" % (
                name, got.shape, want.shape))
            status = 1
            continue
        scale = max(float(np.max(np.abs(want.astype(np.float64)))), 1e-30)
        err = float(np.max(np.abs(got.astype(np.float64) -
                                  want.astype(np.float64)))) / scale
        ok = err <= rtol
        print("%s: vs interpreter: %s (rel err %.2g)" % (
            name, "ok" if ok else "MISMATCH", err))
        status |= not ok
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
