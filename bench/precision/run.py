#!/usr/bin/env python3
"""bf16-mixed vs f32: one training step of T1 on this CPU (issue 34).

Builds examples/training/t1_sae.mlir twice with weftc --unsharded (1 rank):
f32 (the default) and --precision=bf16-mixed, then runs each for --steps
steps, --rounds times, alternating (f32, bf16, bf16 with
WEFT_CPU_BF16_GEMM=onednn, then the reverse order next round), and prints
each run's median step time (the harness's own line), the GEMM line the
executable printed at start (which kernel the library chose) and the
median over rounds of the ratio bf16 / f32; then, from one more step
of each under ONEDNN_VERBOSE=1, the matmul kernels oneDNN ran.

  bench/precision/run.py --bin build/bin [--steps 20] [--rounds 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(SRC, "examples", "training", "t1_sae.mlir")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
          "ob1", "-np", "1"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory of weftc")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="weft-bench-precision-")
    data = os.path.join(work, "data")
    subprocess.run([sys.executable, os.path.join(
        SRC, "examples", "training", "t1_data.py"), "--out", data],
        check=True, stdout=subprocess.DEVNULL)
    inputs = []
    for n in ("x", "W_enc", "b_enc", "W_dec", "b_dec"):
        inputs += ["--input", "%s=%s" % (n, os.path.join(data, n + ".npy"))]
    weftc = os.path.join(args.bin, "weftc")
    exe = {}
    for tag, flags in (("f32", []), ("bf16", ["--precision=bf16-mixed"])):
        exe[tag] = os.path.join(work, "t1_" + tag)
        subprocess.run([weftc, "--train=adamw", "--lr", "1e-3", "--unsharded"]
                       + flags + [EXAMPLE, "-o", exe[tag]], check=True)
    runs = [("f32", "f32", {}), ("bf16", "bf16", {}),
            ("bf16-onednn", "bf16", {"WEFT_CPU_BF16_GEMM": "onednn"})]
    env0 = dict(os.environ, OPENBLAS_NUM_THREADS="1",
                OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    times = {tag: [] for tag, _, _ in runs}
    banner = {}
    for r in range(args.rounds):
        order = runs if r % 2 == 0 else list(reversed(runs))
        for tag, build, extra in order:
            p = subprocess.run(MPIRUN + [exe[build], "--steps",
                                         str(args.steps)] + inputs,
                               env=dict(env0, **extra), capture_output=True,
                               text=True, check=True)
            m = re.search(r"median step time ([0-9.]+) ms", p.stdout)
            times[tag].append(float(m.group(1)))
            g = re.search(r"^weft: cpu gemm: .*$", p.stderr, re.M)
            banner[tag] = g.group(0) if g else "?"
            print("round %d %-12s median step %.1f ms" %
                  (r + 1, tag, times[tag][-1]), flush=True)
    for tag, _, _ in runs:
        print("%-12s %s" % (tag, banner[tag]))
    # The kernels oneDNN chose, in its own words (ONEDNN_VERBOSE: one line
    # per primitive run) over one step.
    for tag, build, extra in runs:
        p = subprocess.run(MPIRUN + [exe[build], "--steps", "1"] + inputs,
                           env=dict(env0, ONEDNN_VERBOSE="1", **extra),
                           capture_output=True, text=True, check=True)
        kernels = {}
        for line in p.stdout.splitlines():
            f = line.split(",")
            if line.startswith("onednn_verbose,exec") and len(f) > 6 and \
                    f[3] == "matmul":
                key = "%s %s" % (f[4], f[6].split()[0].split(":")[0])
                kernels[key] = kernels.get(key, 0) + 1
        print("%-12s oneDNN matmuls of one step: %s" % (tag, ", ".join(
            "%d x %s" % (n, k) for k, n in sorted(kernels.items()))))
    for tag, _, _ in runs:
        ratios = [b / f for b, f in zip(times[tag], times["f32"])]
        print("%-12s median step %.1f ms, ratio to f32 %.2f (per round: %s)" %
              (tag, statistics.median(times[tag]), statistics.median(ratios),
               " ".join("%.2f" % x for x in ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
