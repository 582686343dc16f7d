#!/usr/bin/env python3
"""Overlap benchmark (issue 13): a data-parallel training step with and
without scheduling and bucketing, on 2 CPU ranks, measured in one run.

Programs:
  mlp12  bench/overlap/make_mlp.py: 12 layers, width 256, batch 16 (8 per
         rank), sized so that the gradient all-reduces (12 x 256 KiB) and
         the compute take similar time on 2 ranks of these machines
  t1     examples/training/t1_sae.mlir on a data=2 mesh (AdamW)

Variants, each compiled by weftc and run with mpirun -np 2:
  sync         --schedule=false --combine-bytes=0: every gradient alone,
               synchronous where the partitioner put it
  buckets      --schedule=false (weftc's buckets, synchronous)
  scheduled    the default: buckets, started early, waited for late; the
               runtime gives MPI a progress thread only when a core is free
               (fewer ranks than cores on the node), so on a node whose
               every core runs a rank the collectives run at their start
  sched+thread the same with the progress thread forced on
               (WEFT_RT_COMM_THREAD=1): the overlap a free core would give,
               paid for here by the compute
  sched-25MiB  sched+thread with DDP's 25 MiB buckets
The variants run interleaved, R rounds, each a `--steps S --profile` run
(the first step warms up and is not profiled); the table gives the median
step time over rounds [min, max], the ratio to `sync`, and from the
profile the per-step communication and the share of it hidden behind
compute (median over rounds). A benchmark, not a test: nothing here passes
or fails on timing.

usage: bench/overlap/run.py [--rounds R] [--steps S] [--programs mlp12,t1]
                            [--np 2] [--no-build]
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
          "ob1", "--bind-to", "none"]
VARIANTS = [  # name, weftc flags, environment of the run
    ("sync", ["--schedule=false", "--combine-bytes=0"], {}),
    ("buckets", ["--schedule=false"], {}),
    ("scheduled", [], {}),
    ("sched+thread", [], {"WEFT_RT_COMM_THREAD": "1"}),
    ("sched-25MiB", ["--combine-bytes=26214400"], {"WEFT_RT_COMM_THREAD": "1"}),
]
STEP_RE = re.compile(r"median step time ([0-9.]+) ms")
OVERLAP_RE = re.compile(
    r"per step: compute ([0-9.]+) ms, communication ([0-9.]+) ms, of which "
    r"hidden behind compute ([0-9.]+) ms \(([0-9.]+)%\), exposed ([0-9.]+) ms")


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("failed (%d): %s\n%s\n%s" % (r.returncode, " ".join(cmd),
                                              r.stdout, r.stderr))
    return r.stdout + r.stderr


def rng(vals, digits=3):
    return "%.*f [%.*f, %.*f]" % (digits, statistics.median(vals), digits,
                                  min(vals), digits, max(vals))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--programs", default="mlp12,t1")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    build = os.environ.get("WEFT_BUILD_DIR", os.path.join(ROOT, "build"))
    if not a.no_build:
        sh(["ninja", "-C", build, "weftc", "weft_rt_main"])
    weftc = os.path.join(build, "bin", "weftc")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with tempfile.TemporaryDirectory() as work:
        programs = []
        for prog in a.programs.split(","):
            if prog == "mlp12":
                src = os.path.join(work, "mlp12.mlir")
                sh([sys.executable, os.path.join(HERE, "make_mlp.py"), src,
                    "--layers", "12", "--width", "256", "--batch", "16",
                    "--data", str(a.np)])
                flags = ["--train=sgd", "--search=greedy"]
            elif prog == "t1":
                src = os.path.join(ROOT, "examples", "training", "t1_sae.mlir")
                flags = ["--train=adamw", "--mesh", "data=%d,model=1" % a.np]
            else:
                sys.exit("unknown program %r (mlp12, t1)" % prog)
            exes = {}
            for name, vflags, venv in VARIANTS:
                exe = os.path.join(work, "%s-%s" % (prog, name))
                sh([weftc, src, "-o", exe] + flags + vflags)
                rep = sh([weftc, src, "--emit=local", "--comm-report", "-o",
                          os.devnull] + flags + vflags)
                m = re.search(r"total (\d+) collective", rep)
                asyncs = rep.count("[async, overlaps")
                exes[name] = (exe, "%s coll., %d async" % (m.group(1), asyncs),
                              venv)
            programs.append((prog, exes))

        print("== %s  nproc %d  cpu: %s" % (
            datetime.datetime.now().isoformat(timespec="seconds"),
            os.cpu_count(), platform.processor() or platform.machine()))
        print("== %d ranks, %d rounds x %d steps (step 1 warms up, profile of "
              "steps 2..%d); OPENBLAS_NUM_THREADS=1; OPENBLAS_CORETYPE=%s "
              "(not changed); load average %s" % (
                  a.np, a.rounds, a.steps, a.steps,
                  os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
                  " ".join("%.2f" % x for x in os.getloadavg())))
        res = {}
        for r in range(a.rounds):
            for prog, exes in programs:
                order = list(exes) if r % 2 == 0 else list(reversed(exes))
                for name in order:
                    out = sh(MPIRUN + ["-np", str(a.np)] +
                             sum((["-x", k] for k in exes[name][2]), []) +
                             [exes[name][0], "--random-inputs", "1", "--steps",
                              str(a.steps), "--profile"],
                             env=dict(env, **exes[name][2]))
                    st = STEP_RE.search(out)
                    ov = OVERLAP_RE.search(out)
                    if not st or not ov:
                        sys.exit("no step time or overlap line in:\n" + out)
                    d = res.setdefault((prog, name), dict(t=[], comm=[], hid=[],
                                                          exp=[]))
                    d["t"].append(float(st.group(1)))
                    d["comm"].append(float(ov.group(2)))
                    d["hid"].append(float(ov.group(4)))
                    d["exp"].append(float(ov.group(5)))
            print("   round %d/%d done" % (r + 1, a.rounds), flush=True)
        print("== load average at end: %s" % " ".join(
            "%.2f" % x for x in os.getloadavg()))
        print("\n%-7s %-13s %-20s %26s %24s %13s %11s %11s" % (
            "program", "variant", "collectives", "step ms", "ratio to sync",
            "comm ms/step", "hidden %", "exposed ms"))
        for prog, exes in programs:
            base = res[(prog, "sync")]["t"]
            for name in exes:
                d = res[(prog, name)]
                ratios = [t / b for t, b in zip(d["t"], base)]
                print("%-7s %-13s %-20s %26s %24s %13.3f %11.1f %11.3f" % (
                    prog, name, exes[name][1], rng(d["t"]), rng(ratios),
                    statistics.median(d["comm"]), statistics.median(d["hid"]),
                    statistics.median(d["exp"])))


if __name__ == "__main__":
    main()
