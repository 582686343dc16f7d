#!/usr/bin/env python3
"""Fused and unfused builds of one example compute the same bits.

  fusion_bitwise.py EXAMPLE.mlir --bin BIN --work DIR [--np N:MESH ...]
                    [--weftc-flag FLAG ...] [--steps S]

Builds EXAMPLE with weftc (fusion on, the default) and with --fuse=false,
prints how many weft::rt::gen::fusedMap calls the fused program makes and
how many map calls each has, then for every --np runs both on the same
random inputs (--random-inputs 1, or --steps S of training) and compares
every output file bit for bit (NaN bits included). Prints one line per
rank count and output: `np=N OUT: fused vs unfused: identical`.
Exit 1 on any difference or failed stage.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

import numpy as np

MPIRUN = ["timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe",
          "--mca", "pml", "ob1"]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        sys.exit("fusion_bitwise: failed (exit %d): %s\n%s" % (
            p.returncode, " ".join(cmd), p.stdout))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("example")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--np", action="append", default=[], metavar="N:MESH")
    ap.add_argument("--weftc-flag", action="append", default=[])
    ap.add_argument("--steps", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    weftc = os.path.join(a.bin, "weftc")
    status = 0
    counted = False
    for np_mesh in a.np or ["1:-"]:
        n, mesh = np_mesh.split(":", 1)
        mesh_flags = [] if mesh == "-" else ["--mesh", mesh]
        outs = {}
        for variant, flags in (("fused", []), ("unfused", ["--fuse=false"])):
            base = os.path.join(a.work, "%s-np%s" % (variant, n))
            common = [a.example] + a.weftc_flag + mesh_flags + flags
            if not counted:
                cpp = run([weftc] + common + ["--emit=cpp"])
                fused = len(re.findall(r"gen::fusedMap\(", cpp))
                maps = len(re.findall(r"gen::map\(", cpp))
                print("%s: %d fused ops, %d maps" % (variant, fused, maps))
            run([weftc] + common + ["-o", base])
            out_dir = base + "-out"
            args = ["--output-dir", out_dir, "--random-inputs", "1"]
            if a.steps:
                args += ["--steps", str(a.steps)]
            run(MPIRUN + ["-np", n, base] + args)
            outs[variant] = out_dir
        counted = True
        for f in sorted(glob.glob(os.path.join(outs["fused"], "*.npy"))):
            name = os.path.basename(f)[:-4]
            x = np.load(f)
            y = np.load(os.path.join(outs["unfused"], name + ".npy"))
            same = (x.shape == y.shape and x.dtype == y.dtype and
                    x.tobytes() == y.tobytes())
            print("np=%s %s: fused vs unfused: %s" % (
                n, name, "identical" if same else "DIFFERENT"))
            status |= not same
    return status


if __name__ == "__main__":
    sys.exit(main())
