#!/usr/bin/env python3
"""T2 in bf16-mixed against f32: the loss curves of 50 steps (issue 34).

Builds examples/training/t2_lm.mlir with the flags of its first line, in f32
and with --precision=bf16-mixed, each --unsharded (1 rank) and on the
example's own mesh (4 ranks), trains each --steps steps on the data of
examples/training/t2_data.py, and prints, from compare_training.py, the
worst relative loss difference of

  - bf16-mixed on 1 and on 4 ranks against f32 on 1 rank, after step 10
    (issue 34 asks for 2%);
  - bf16-mixed on 4 ranks against bf16-mixed on 1 rank, every step;
  - f32 on 4 ranks against f32 on 1 rank, every step (the f32 baseline
    of the same comparison);

then PASS/FAIL for the 2% check. Not a CI test (about five minutes here).

  bench/precision/t2_bf16.py --bin build/bin [--steps 50] [--work DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(SRC, "examples", "training", "t2_lm.mlir")
COMPARE = os.path.join(SRC, "test", "training", "compare_training.py")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
          "ob1"]


def run(cmd, log=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    if log:
        with open(log, "w") as f:
            f.write(p.stdout)
    if p.returncode != 0:
        sys.exit("t2_bf16.py: command failed (exit %d): %s\n%s" %
                 (p.returncode, " ".join(cmd), p.stdout[-3000:]))
    return p.stdout


def worst(a, b, steps=None):
    cmd = [sys.executable, COMPARE, a, b, "--rtol", "0.02"]
    if steps:
        cmd += ["--steps", steps]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    m = re.search(r"worst relative difference (\S+) at step (\d+)", p.stdout)
    return (m.group(1), m.group(2), p.returncode == 0) if m else \
        ("?", "?", False)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory of weftc")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="weft-bench-t2-bf16-")
    data = os.path.join(work, "data")
    run([sys.executable, os.path.join(SRC, "examples", "training",
                                      "t2_data.py"), "--out", data])
    with open(EXAMPLE) as f:
        flags = re.match(r"^// weftc: (.*)$", f.readline()).group(1).split()
    inputs = []
    for name in sorted(os.listdir(data)):
        if name.endswith(".npy"):
            inputs += ["--input", "%s=%s" % (name[:-4],
                                             os.path.join(data, name))]
    weftc = os.path.join(args.bin, "weftc")
    logs = {}
    t0 = time.time()
    for prec in ("f32", "bf16-mixed"):
        for n, extra in ((1, ["--unsharded"]), (4, [])):
            tag = "%s_np%d" % (prec, n)
            exe = os.path.join(work, tag)
            run([weftc] + flags + extra + ["--precision=" + prec, EXAMPLE,
                                           "-o", exe])
            logs[tag] = os.path.join(work, tag + ".log")
            run(MPIRUN + ["-np", str(n), exe, "--steps", str(args.steps)] +
                inputs, logs[tag])
    ok = True
    for what, a, b, steps in (
            ("bf16-mixed 1 rank vs f32 1 rank, steps 11..", "bf16-mixed_np1",
             "f32_np1", "11:%d" % args.steps),
            ("bf16-mixed 4 ranks vs f32 1 rank, steps 11..", "bf16-mixed_np4",
             "f32_np1", "11:%d" % args.steps),
            ("bf16-mixed 4 ranks vs bf16-mixed 1 rank", "bf16-mixed_np4",
             "bf16-mixed_np1", None),
            ("f32 4 ranks vs f32 1 rank", "f32_np4", "f32_np1", None)):
        w, at, passed = worst(logs[a], logs[b], steps)
        print("%-48s worst relative difference %s at step %s" % (what, w, at))
        if "vs f32" in what:
            ok &= passed
    with open(logs["f32_np1"]) as f:
        first = [l for l in f if l.startswith("step ")]
    print("f32 1 rank: %s ... %s" % (first[0].split(" lr")[0],
                                     first[-1].split(" lr")[0]))
    print("(%d steps; %.0f s in all; logs in %s)" % (args.steps,
                                                     time.time() - t0, work))
    print("t2_bf16.py: %s (bf16-mixed within 2%% of f32 after step 10)" %
          ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
