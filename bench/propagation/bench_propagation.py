#!/usr/bin/env python3
"""Propagation (and partitioning) time on an N-layer transformer of P9
blocks, N = 10, 100, 1000: time per 1000 ops and the ratio
time(N=1000) / time(N=100) (target: at most 12, i.e. near-linear).
Times are the pass's own wall time from --mlir-timing (parsing and printing
excluded), median of --repeats runs. With --instructions, also the pass's
instruction count under valgrind's callgrind (inclusive, deterministic):
the algorithmic scaling without the machine's caches. A benchmark, not a
test.
Usage: bench_propagation.py [--weft-opt PATH] [--repeats R] [--sizes 10,100,1000]
                            [--instructions]"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def pass_time(weft_opt, args, path, name):
    out = subprocess.run([weft_opt, *args, path, "--mlir-timing", "-o", os.devnull],
                         check=True, capture_output=True, text=True).stderr
    m = re.search(r"^\s*([0-9.]+) \([^)]*\)\s+" + name + r"\s*$", out, re.M)
    if not m:
        sys.exit(f"no {name} line in --mlir-timing output:\n{out}")
    return float(m.group(1))


def pass_instructions(weft_opt, path, tmp):
    """Inclusive instructions of WeftPropagatePass::runOnOperation."""
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    weft_opt, "--weft-propagate", path, "-o", os.devnull],
                   check=True, capture_output=True)
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                            check=True, capture_output=True, text=True).stdout
    m = re.search(r"^\s*([0-9,]+) .*WeftPropagatePass::runOnOperation", report, re.M)
    if not m:
        sys.exit("no WeftPropagatePass::runOnOperation in the callgrind report")
    return int(m.group(1).replace(",", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.abspath(os.path.join(HERE, "..", ".."))
    ap.add_argument("--weft-opt", default=os.path.join(root, "build", "bin", "weft-opt"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the propagation pass's instructions with callgrind")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'layers':>7} {'ops':>7} {'propagate s':>12} {'ms/1000 ops':>12} "
              f"{'partition s':>12} {'ms/1000 ops':>12}")
        for n in sizes:
            path = os.path.join(tmp, f"tf{n}.mlir")
            gen = subprocess.run([sys.executable, os.path.join(HERE, "gen_transformer.py"),
                                  str(n), path], check=True, capture_output=True, text=True)
            ops = int(re.search(r"(\d+) ops", gen.stdout).group(1))
            prop = statistics.median(
                pass_time(a.weft_opt, ["--weft-propagate"], path, "WeftPropagate")
                for _ in range(a.repeats))
            propagated = os.path.join(tmp, f"tf{n}.prop.mlir")
            subprocess.run([a.weft_opt, "--weft-propagate", path, "-o", propagated], check=True)
            part = statistics.median(
                pass_time(a.weft_opt, ["--weft-partition"], propagated, "WeftPartition")
                for _ in range(a.repeats))
            results[n] = (ops, prop, part,
                          pass_instructions(a.weft_opt, path, tmp) if a.instructions else None)
            print(f"{n:>7} {ops:>7} {prop:>12.4f} {1000 * 1000 * prop / ops:>12.2f} "
                  f"{part:>12.4f} {1000 * 1000 * part / ops:>12.2f}", flush=True)
    if 100 in results and 1000 in results:
        print(f"ratio time(N=1000)/time(N=100): propagate "
              f"{results[1000][1] / results[100][1]:.1f}, partition "
              f"{results[1000][2] / results[100][2]:.1f} (ops ratio "
              f"{results[1000][0] / results[100][0]:.0f}; target <= 12)")
        if a.instructions:
            i100, i1000 = results[100][3], results[1000][3]
            print(f"propagate instructions (callgrind): N=100 {i100:,}, N=1000 {i1000:,}, "
                  f"ratio {i1000 / i100:.2f}")


if __name__ == "__main__":
    main()
