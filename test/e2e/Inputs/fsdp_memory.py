#!/usr/bin/env python3
"""FSDP memory: the allocator's measured high-water mark of an FSDP-style
training step against a bound computed from the program's sizes.

  fsdp_memory.py --bin BIN --work DIR [--np N ...] [--layers 8]
                 [--width 512] [--batch 16]

Writes an L-layer MLP whose weights W_i[d, d] are split on `data` along
their first dim and whose activations keep the batch split
(bench/overlap/make_mlp.py --fsdp), compiles an SGD training step with
`weftc --remat-gathers` and without, runs each for 2 steps on N ranks
(--memory-report, the progress thread off: every collective completes in
its start call) and prints, per build:

  np=N remat: peak M bytes, bound B: within
  np=N no-remat: peak M bytes, bound B: over

The bound is the issue's (parameters / p + two layers' gathered weights
+ activations), from sizes only (nothing the runtime reports):
  P/p           the parameter shards (the step's inputs; SGD's update
                writes the new shard into the old one's buffer, in place),
  + 2 L         two layers' gathered weights (one in use, one in flight),
  + A           every activation-shaped value of the per-rank program
                (--emit=local), counted as if all were alive at once,
where L = d*d*4 bytes is one layer's weight, P = L * layers and p = N.
Exit 1 when the remat build is over its bound or a stage fails.
"""
import argparse
import os
import re
import sys

from runner import MPIRUN, run as run_stage

PEAK = re.compile(r"weft memory: peak live bytes per device: max (\d+)")


def run(cmd, env=None):
    return run_stage(cmd, "fsdp_memory", env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--np", type=int, action="append", default=[])
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    make = os.path.join(here, "..", "..", "..", "bench", "overlap",
                        "make_mlp.py")
    weftc = os.path.join(a.bin, "weftc")
    env = dict(os.environ, WEFT_RT_COMM_THREAD="0", OPENBLAS_NUM_THREADS="1")
    status = 0
    d, b = a.width, a.batch
    layer = d * d * 4
    for n in a.np or [2]:
        prog = os.path.join(a.work, "fsdp%d.mlir" % n)
        run([sys.executable, make, prog, "--layers", str(a.layers), "--width",
             str(d), "--batch", str(b), "--data", str(n), "--fsdp"])
        act_type = "tensor<%dx%dxf32>" % (b // n, d)
        for name, flags in (("remat", ["--remat-gathers"]), ("no-remat", [])):
            # The bound is FSDP's (gather, use, free): the plan the GPU
            # profile gives. Under the CPU profile (weftc's default since
            # issue 30) the search moves activations with all-to-alls
            # instead of gathering every weight, and holds more.
            common = [weftc, prog, "--train=sgd", "--backend=cuda"] + flags
            local = run(common + ["--emit=local"])
            acts = sum(1 for line in local.splitlines()
                       if re.match(r"\s*%\S+ = weft\.", line)
                       and line.rstrip().endswith(act_type))
            bound = layer * a.layers // n + 2 * layer + acts * (b // n) * d * 4
            exe = os.path.join(a.work, "%s-np%d" % (name, n))
            run(common + ["-o", exe])
            out = run(MPIRUN + ["-np", str(n), exe, "--random-inputs", "1",
                                "--steps", "2", "--memory-report"], env=env)
            m = PEAK.search(out)
            if not m:
                sys.exit("fsdp_memory: no memory report in:\n" + out)
            peak = int(m.group(1))
            within = peak <= bound
            print("np=%d %s: peak %d bytes, bound %d (%d activations): %s" % (
                n, name, peak, bound, acts, "within" if within else "over"))
            if name == "remat" and not within:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
