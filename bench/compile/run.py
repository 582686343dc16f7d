#!/usr/bin/env python3
"""Compile-time benchmark (issue 31): `weftc --train=adamw` on T2's language
model at L layers (bench/compile/gen_lm.py), wall time by stage and generated
C++ bytes, next to jax.jit(step).lower(...).compile() of the same model
(bench/compile/jax_lm.py; optional: skipped with a message when JAX is
missing; pass --python with a Python that has JAX).

Stages come from weftc's -v report (MLIR's pass timing, plus weftc's
"C++ compile + link"): autodiff = WeftAutodiff + WeftAccumulate +
WeftOptimizer; propagation = WeftPropagate (with weft-plan-layers, the
propagation of its three-call copy; autodiff counts the copy's and the
module's); partition =
WeftPadUneven + WeftPartition; other passes = every other pass; lowering =
WeftLowerToRuntime + translate to C++; C++ = the C++ compile and link; CPU = user + system seconds of weftc and
the compiler it runs (the wall times measure a shared machine's load too).
A benchmark, not a test: nothing passes or fails on time.

With --calls the model is written with a layer function called L times
(gen_lm.py --calls; weft-outline-layers outlines the equal calls, docs/calls.md);
--weftc-flag FLAG (repeatable) passes FLAG to weftc, e.g.
--weftc-flag=--outline-layers=false for the flat lowering of the same program.
--no-cxx stops at the generated C++ (--emit=cpp): bytes and the passes'
times without the C++ compile.

usage: bench/compile/run.py [--layers 2,4,8] [--bin build/bin] [--python PY]
                            [--calls] [--weftc-flag FLAG] [--no-cxx]
"""
import argparse
import os
import pathlib
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def weftc_stages(weftc, program, workdir, flags=(), no_cxx=False):
    cpp = workdir / "step.cpp"
    out = (["--emit=cpp", "-o", str(cpp)] if no_cxx else
           ["-o", str(workdir / "step"), "--save-cpp", str(cpp)])
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([weftc, "--train=adamw", "--lr", "3e-3", "-v", str(program)] +
                         list(flags) + out, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - start
    # CPU seconds of weftc and the C++ compiler it runs: on a shared machine
    # the wall times measure the load too, the CPU time much less so.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if run.returncode != 0:
        sys.exit(f"weftc failed on {program}:\n{run.stderr[-2000:]}")
    times = {}
    for line in run.stderr.splitlines():
        # "wall (p%) name", or "user (p%) wall (q%) name" when MLIR's
        # multithreading adds a user-time column: the wall time is the last.
        m = re.match(r"\s*(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)?([0-9.]+) \(\s*[0-9.]+%\)\s+(.*\S)\s*$", line)
        if m:
            times.setdefault(m.group(2).strip("'"), 0.0)
            times[m.group(2).strip("'")] += float(m.group(1))
    def take(*names):
        return sum(times.pop(n, 0.0) for n in names)
    total = times.pop("Total", wall)
    stages = {
        "propagation": take("WeftPropagate"),
        "autodiff": take("WeftAutodiff", "WeftAccumulate", "WeftOptimizer"),
        "partition": take("WeftPadUneven", "WeftPartition"),
        "lowering": take("WeftLowerToRuntime", "translate to C++"),
        "C++": take("C++ compile + link"),
    }
    # weft-plan-layers holds the front's passes (counted above by name).
    nested = [n for n in times if n.endswith("Pipeline") or n == "WeftPlanLayers"]
    for n in nested:
        times.pop(n)
    stages["other passes"] = sum(times.values())
    stages["total"] = total
    stages["CPU"] = cpu
    return stages, cpp.stat().st_size


def jax_seconds(python, layers):
    code = ("import sys; sys.path.insert(0, %r); import jax_lm; "
            "print(jax_lm.compile_seconds(%d))" % (str(HERE), layers))
    try:
        run = subprocess.run([python, "-c", code], capture_output=True, text=True)
    except OSError as e:
        return None, str(e)
    if run.returncode != 0:
        return None, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "failed"
    return float(run.stdout.strip().splitlines()[-1]), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", default="2,4,8")
    ap.add_argument("--bin", default=str(ROOT / "build/bin"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--calls", action="store_true")
    ap.add_argument("--weftc-flag", action="append", default=[])
    ap.add_argument("--no-cxx", action="store_true")
    args = ap.parse_args()
    weftc = os.path.join(args.bin, "weftc")
    layers = [int(x) for x in args.layers.split(",")]
    cols = ["autodiff", "propagation", "partition", "other passes", "lowering", "C++", "total", "CPU"]
    print(f"weftc: {weftc}; model: T2 (d=128, f=512, V=512, t=64, b=8) at L layers, "
          "data=2 x model=2, --train=adamw; seconds" +
          ("; layer function called L times" if args.calls else "") +
          "".join(" " + f for f in args.weftc_flag))
    print("| L | " + " | ".join(cols) + " | C++ bytes | JAX compile |")
    print("|---" * (len(cols) + 3) + "|")
    jax_note = None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for n in layers:
            program = tmp / f"lm{n}.mlir"
            subprocess.run([sys.executable, str(HERE / "gen_lm.py")] +
                           (["--calls"] if args.calls else []) + [str(n), str(program)],
                           check=True)
            stages, size = weftc_stages(weftc, program, tmp, args.weftc_flag, args.no_cxx)
            jax_s = "skipped"
            if jax_note is None:
                secs, err = jax_seconds(args.python, n)
                if secs is None:
                    jax_note = err
                else:
                    jax_s = f"{secs:.2f}"
            print(f"| {n} | " + " | ".join(f"{stages[c]:.2f}" for c in cols) +
                  f" | {size} | {jax_s} |", flush=True)
    if jax_note:
        print(f"JAX skipped: {jax_note} (pass --python with a Python that has JAX)")


if __name__ == "__main__":
    main()
