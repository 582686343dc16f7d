#!/usr/bin/env python3
"""Runs the bundled one-device programs (scripts/gpu/bundle.py) on the CUDA
and the CPU backend and checks every output against numpy's reference and
the two backends against each other.

  scripts/gpu/check.py --bundle DIR --programs BUILD/programs [--iters N]

Prints one line per output and check (`NAME OUTPUT: cuda vs numpy: ok`),
then each program's profiled step time on both backends; exits 1 on any
mismatch or failed run. Training programs (train_NAME) are trained for
--train-steps steps on each backend and compared, losses and final
parameters, with the repository's numpy trainer and with each other
(test/training/compare_training.py).
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
root = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "test", "e2e", "Inputs"))
sys.path.insert(0, os.path.join(root, "test", "numpy"))
import e2e  # noqa: E402
import weft_numpy  # noqa: E402
import numpy as np  # noqa: E402

MPIRUN = ["timeout", "300", "mpirun", "--allow-run-as-root", "-np", "1"]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout


def check_training(a, name, steps, timings):
    """Trains bundled program `name` on cuda and cpu; returns 0 or 1."""
    work = os.path.join(a.bundle, name)
    spec = json.load(open(os.path.join(work, "train.json")))
    exe = os.path.join(a.programs, name)
    data = os.path.join(work, "data")
    compare = os.path.join(root, "test", "training", "compare_training.py")
    rc, text = run([sys.executable, os.path.join(root, spec["data"]),
                    "--out", data])
    if rc != 0:
        print("%s: data generation FAILED\n%s" % (name, text))
        return 1
    inputs = []
    for f in sorted(os.listdir(data)):
        inputs += ["--input", "%s=%s" % (f[:-4], os.path.join(data, f))]
    ref_log = os.path.join(work, "numpy.log")
    step1 = spec.get("reference_kind") == "step1"
    if step1:
        # The reference gives one step's loss from the initial parameters.
        rc, text = run([sys.executable, os.path.join(root, spec["reference"]),
                        "--params", data, "--data", data, "--step", "1"])
    else:
        rc, text = run([sys.executable, os.path.join(root, spec["reference"]),
                        "--data", data, "--steps", str(a.train_steps),
                        "--save", os.path.join(work, "numpy")])
    open(ref_log, "w").write(text)
    if rc != 0:
        print("%s: numpy reference FAILED\n%s" % (name, text))
        return 1
    status = 0
    rtol = spec.get("rtol", 1e-4)
    tol = ["--rtol", str(rtol), "--param-tol", str(spec.get("param_tol", 1e-4))]
    # "cuda-graph": the cuda backend with --cuda-graph (docs/runtime.md),
    # which must give the op-by-op cuda run's losses and parameters bit for
    # bit (the same kernels on the same buffers' values, replayed), or to
    # the run's tolerance for a program with an atomicAdd kernel
    # ("deterministic": False in bundle.py).
    graph = spec.get("graph", True)
    for backend in ("cuda", "cuda-graph", "cpu") if graph else ("cuda", "cpu"):
        log = os.path.join(work, backend + ".log")
        flag = (["--backend", "cuda", "--cuda-graph"] if backend == "cuda-graph"
                else ["--backend", backend])
        rc, text = run(MPIRUN + [exe] + flag + ["--steps",
                                 str(a.train_steps)] + inputs +
                       ["--output-dir", os.path.join(work, "out-" + backend)])
        for line in text.splitlines():
            if "--cuda-graph" in line:
                print("%s: %s" % (name, line))
        open(log, "w").write(text)
        if rc != 0:
            print("%s %s: FAILED (exit %d)\n%s" % (name, backend, rc, text))
            status = 1
            continue
        m = re.search(r"median step time ([0-9.]+) ms", text)
        steps[(name, backend)] = m.group(1) if m else "?"
        if backend == "cuda-graph":
            continue
        # The per-op profile of a few steps (the first step is not profiled).
        rc, text = run(MPIRUN + [exe, "--backend", backend, "--steps", "4",
                                 "--profile"] + inputs)
        if rc != 0:
            print("%s %s: FAILED profiled run (exit %d)\n%s" % (
                name, backend, rc, text))
            status = 1
        else:
            timings.append((name, backend, text))
    for what, x, y in (("cuda vs numpy", "cuda", None),
                       ("cpu vs numpy", "cpu", None),
                       ("cuda vs cpu", "cuda", "cpu"),
                       ("cuda-graph vs cuda", "cuda-graph", "cuda"))[
                           :4 if graph else 3]:
        log_b = ref_log if y is None else os.path.join(work, y + ".log")
        dir_b = os.path.join(work, "numpy" if y is None else "out-" + y)
        if step1 and y is None:
            cmd = [sys.executable, compare, ref_log,
                   os.path.join(work, x + ".log"), "--steps", "1:1",
                   "--rtol", str(spec.get("rtol", 1e-5))]
        else:
            cmd = [sys.executable, compare, os.path.join(work, x + ".log"),
                   log_b, "--params", os.path.join(work, "out-" + x), dir_b,
                   "--names", spec["names"]] + (
                       ["--rtol", "0", "--param-tol", "0"]
                       if x == "cuda-graph" and spec.get("deterministic", True)
                       else tol)
        rc, text = run(cmd)
        print("%s training: %s: %s" % (name, what, "ok" if rc == 0 else
                                        "FAILED\n" + text))
        status |= rc != 0
    return status


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundle", required=True)
    p.add_argument("--programs", required=True)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--train-steps", type=int, default=20)
    a = p.parse_args(argv[1:])
    status = 0
    timings = []
    steps = {}
    names = sorted(os.path.splitext(f)[0]
                   for f in os.listdir(os.path.join(a.bundle, "programs")))
    for name in names:
        if name.startswith("train_"):
            status |= check_training(a, name, steps, timings)
            continue
        work = os.path.join(a.bundle, name)
        exe = os.path.join(a.programs, name)
        fn = json.load(open(os.path.join(work, "graph.json")))
        values = e2e.make_inputs(fn, a.seed, os.path.join(work, "inputs"),
                                 fn.get("input_scale", 1.0))
        refs = weft_numpy.evaluate(fn, values)
        inputs = []
        for t in fn["inputs"]:
            inputs += ["--input", "%s=%s" % (
                t["name"], os.path.join(work, "inputs", t["name"] + ".npy"))]
        got = {}
        for backend in ("cuda", "cpu"):
            out_dir = os.path.join(work, "out-" + backend)
            rc, text = run(MPIRUN + [exe, "--backend", backend] + inputs +
                           ["--output-dir", out_dir])
            if rc != 0:
                print("%s %s: FAILED (exit %d)\n%s" % (name, backend, rc, text))
                status = 1
                continue
            got[backend] = out_dir
            # Step time without the profiler (which synchronizes around
            # every op), then the per-op profile.
            for extra in ([], ["--profile"]):
                rc, text = run(MPIRUN + [exe, "--backend", backend] + inputs +
                               ["--iters", str(a.iters), "--warmup", "3"] +
                               extra)
                if rc != 0:
                    print("%s %s: FAILED timing run (exit %d)\n%s" % (
                        name, backend, rc, text))
                    status = 1
                elif not extra:
                    m = re.search(r"step time: median ([0-9.]+) ms", text)
                    steps[(name, backend)] = m.group(1) if m else "?"
                else:
                    timings.append((name, backend, text))
        for t in fn["outputs"]:
            ref = refs[t["name"]]
            for backend, out_dir in got.items():
                out = np.load(os.path.join(out_dir, t["name"] + ".npy"))
                if not weft_numpy.check_one(
                        "%s %s: %s vs numpy" % (name, t["name"], backend),
                        out, ref, t["dtype"]):
                    status = 1
            if len(got) == 2:
                if not weft_numpy.check_one(
                        "%s %s: cuda vs cpu" % (name, t["name"]),
                        np.load(os.path.join(got["cuda"], t["name"] + ".npy")),
                        np.load(os.path.join(got["cpu"], t["name"] + ".npy")),
                        t["dtype"]):
                    status = 1
    print("== step time, median ms over --iters %d (no --profile) ==" % a.iters)
    print("%-22s %10s %12s %10s" % ("program", "cuda", "cuda-graph", "cpu"))
    for name in names:
        print("%-22s %10s %12s %10s" % (
            name, steps.get((name, "cuda"), "-"),
            steps.get((name, "cuda-graph"), "-"), steps.get((name, "cpu"), "-")))
    print("== profiles (--iters %d --warmup 3 --profile) ==" % a.iters)
    for name, backend, text in timings:
        print("-- %s on %s --\n%s" % (name, backend, text.rstrip()))
    print("gpu-check: %s" % ("all passed" if status == 0 else "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
