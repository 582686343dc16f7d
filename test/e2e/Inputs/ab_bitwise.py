#!/usr/bin/env python3
"""Two builds of one example, weftc's default and one with a pass turned
off, compute the same bits.

  ab_bitwise.py EXAMPLE.mlir --bin BIN --work DIR [--np N:MESH ...]
                [--weftc-flag FLAG ...] [--steps S]
                [--off-flag --fuse=false] [--on-flag FLAG]
                [--names fused,unfused]

Builds EXAMPLE with weftc (defaults: fusion and scheduling on, plus
--on-flag if given) and with --off-flag (default --fuse=false), prints for each how many fused maps,
fused rows, maps, reductions, asynchronous collectives (start calls) and
waits its C++ calls, then for every --np runs both on the same random
inputs (--random-inputs 1, or --steps S of training) and compares every
output file bit for bit (NaN bits included). Prints one line per rank
count and output: `np=N OUT: fused vs unfused: identical` (with --names).
Exit 1 on any difference or failed stage.
"""
import argparse
import glob
import os
import re
import sys

import numpy as np

from runner import MPIRUN, run as run_stage


def run(cmd):
    return run_stage(cmd, "ab_bitwise")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("example")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--np", action="append", default=[], metavar="N:MESH")
    ap.add_argument("--weftc-flag", action="append", default=[])
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--off-flag", default="--fuse=false")
    ap.add_argument("--on-flag", default="")
    ap.add_argument("--names", default="fused,unfused")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    weftc = os.path.join(a.bin, "weftc")
    status = 0
    counted = False
    for np_mesh in a.np or ["1:-"]:
        n, mesh = np_mesh.split(":", 1)
        mesh_flags = [] if mesh == "-" else ["--mesh", mesh]
        outs = {}
        on, off = a.names.split(",")
        on_flags = [a.on_flag] if a.on_flag else []
        for variant, flags in ((on, on_flags), (off, [a.off_flag])):
            base = os.path.join(a.work, "%s-np%s" % (variant, n))
            common = [a.example] + a.weftc_flag + mesh_flags + flags
            if not counted:
                cpp = run([weftc] + common + ["--emit=cpp"])
                fused = len(re.findall(r"gen::fusedMap\(", cpp))
                rows = len(re.findall(r"gen::fusedRows\(", cpp))
                maps = len(re.findall(r"gen::map\(", cpp))
                reduces = len(re.findall(r"gen::reduce\(", cpp))
                starts = len(re.findall(r"gen::start[A-Z]\w*\(", cpp))
                waits = len(re.findall(r"gen::wait\(", cpp))
                print("%s: %d fused ops, %d fused rows, %d maps, %d reductions,"
                      " %d async collectives, %d waits"
                      % (variant, fused, rows, maps, reduces, starts, waits))
            run([weftc] + common + ["-o", base])
            out_dir = base + "-out"
            args = ["--output-dir", out_dir, "--random-inputs", "1"]
            if a.steps:
                args += ["--steps", str(a.steps)]
            run(MPIRUN + ["-np", n, base] + args)
            outs[variant] = out_dir
        counted = True
        for f in sorted(glob.glob(os.path.join(outs[on], "*.npy"))):
            name = os.path.basename(f)[:-4]
            x = np.load(f)
            y = np.load(os.path.join(outs[off], name + ".npy"))
            same = (x.shape == y.shape and x.dtype == y.dtype and
                    x.tobytes() == y.tobytes())
            print("np=%s %s: %s vs %s: %s" % (
                n, name, on, off, "identical" if same else "DIFFERENT"))
            status |= not same
    return status


if __name__ == "__main__":
    sys.exit(main())
