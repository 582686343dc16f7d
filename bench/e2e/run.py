#!/usr/bin/env python3
"""End-to-end benchmark of compiled Weft programs (issue 6), CPU backend.

For P1 (MLP), P6 (attention) and P9 (transformer block) at programs.md's
shapes (b=4) and 4x larger (b=16, see make_variant.py), measures:

  (a) 1 rank: the step time of the `weftc --unsharded` executable (the same
      program on a 1-device mesh) against a step made only of the same
      cblas_sgemm calls (the GemmPlans weftc fixed, read from
      `weftc --unsharded --emit=cpp`, run by direct_gemm.cpp on
      preallocated buffers). Target: ratio <= 1.10.
  (b) 2 ranks: the sharded program on a model=2 mesh against (a)'s 1-rank
      step time (with the collectives weftc inserted).
  diagnostic: (a)'s executable again with glibc's heap never trimmed
      (GLIBC_TUNABLES), which shows what per-step page faults cost.

Inputs: `--inputs uniform` (the default, as every earlier run) gives the
executables `--random-inputs 1`, uniform in [-1, 1); P6's attention
scores then spread over hundreds and its softmax is one-hot, which takes
the exp's full form (docs/runtime.md). `--inputs normal` draws what
jax_compare.py draws (numpy, seed 14, normal * 0.1, float32), saved as .npy
and given with `--input` (the same files to the 1- and 2-rank runs).

Everything runs with OPENBLAS_NUM_THREADS=1 (one BLAS thread per process)
and `mpirun --bind-to none`. The three measurements of a case are taken in
the same round, alternating their order every round; each process reports
the median step time of --iters steps after --warmup; the tables give the
median over --rounds rounds and the [min, max] over rounds. The per-op
breakdown comes from the 1-rank runs' --profile (mean per step).
A benchmark, not a test: nothing here passes or fails on timing.

usage: bench/e2e/run.py [--rounds R] [--iters N] [--warmup W]
                        [--programs p1,p6,p9] [--scales 1,4] [--no-build]
                        [--inputs uniform|normal]
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from make_variant import make_variant  # noqa: E402

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml", "ob1",
          "--bind-to", "none"]
# glibc tunables that stop free() from returning the heap to the kernel
# (buffers up to 32 MiB come from the heap, the heap is never trimmed), so a
# step reuses pages instead of faulting in fresh zeroed ones.
KEEP_HEAP = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"
NAMES = {"p1": "P1 MLP", "p6": "P6 attention", "p9": "P9 block"}


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def cache_var(build, name):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    sys.exit(f"{name} not in {build}/CMakeCache.txt")


def gemm_plans(cpp):
    """label m n k transA transB lda ldb ldc strideA strideB strideC batch
    outerBatch outerStrideA outerStrideB outerStrideC for every einsum plan
    with a GEMM, in the step's call order."""
    plans = {}
    # A plan is the static of a function returning it:
    #   static const weft::rt::EinsumPlan &weft_plan0() {
    #     static const weft::rt::EinsumPlan plan = weft::rt::EinsumPlan{...};
    for m in re.finditer(r"weft::rt::EinsumPlan &(\w+)\(\) \{\s*static const weft::rt::EinsumPlan \w+ = "
                         r"[^;]*?\.spec = \"([^\"]+)\""
                         r"[^;]*?\.gemm = weft::rt::GemmPlan\{([^}]*)\}", cpp):
        f = dict(kv.strip().lstrip(".").split(" = ") for kv in m.group(3).split(","))
        conv = lambda v: {"true": "1", "false": "0"}.get(v, v)  # noqa: E731
        plans[m.group(1)] = " ".join(
            [m.group(2).replace(" ", "")] +
            [conv(f[k]) for k in ("m", "n", "k", "transA", "transB", "lda", "ldb", "ldc",
                                  "strideA", "strideB", "strideC", "batch")] +
            [f.get(k, d) for k, d in (("outerBatch", "1"), ("outerStrideA", "0"),
                                      ("outerStrideB", "0"), ("outerStrideC", "0"))])
    order = re.findall(r"gen::einsum\(\w+, (\w+)\(\),", cpp)
    return [plans[p] for p in order if p in plans]


STEP_RE = re.compile(r"step time: median ([0-9.]+) ms, min ([0-9.]+) ms, max ([0-9.]+) ms")
# The label column is 40 wide and truncated, so one space may separate it
# from the kind; the four numeric columns anchor the row.
ROW_RE = re.compile(r"^(#\d+ .*?)\s+(\S+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$", re.M)


def step_ms(out):
    m = STEP_RE.search(out)
    if not m:
        sys.exit(f"no step time in:\n{out}")
    return float(m.group(1))


def profile_by_kind(out):
    """Mean ms per step of each op kind from a --profile table."""
    kinds = {}
    for m in ROW_RE.finditer(out):
        calls, total = int(m.group(3)), float(m.group(4))
        kinds[m.group(2)] = kinds.get(m.group(2), 0.0) + total
    return kinds


def normal_inputs(help_text, folder):
    """--input arguments for every input the executable's --help lists,
    drawn as jax_compare.py draws them (numpy, seed 14, normal * 0.1,
    float32) into FOLDER/NAME.npy."""
    try:
        import numpy as np
    except ImportError:
        sys.exit("--inputs normal needs numpy (Debian's python3-numpy: /usr/bin/python3)")
    from jax_compare import draw_inputs, exe_signature
    named_shapes = []
    for name, dtype, shape in exe_signature(help_text)[0]:
        if dtype != "f32":
            sys.exit(f"--inputs normal: input {name} is {dtype}, not f32")
        named_shapes.append((name, shape))
    return draw_inputs(np, named_shapes, folder)[1]


def fmt_range(vals, digits=3):
    return f"{statistics.median(vals):.{digits}f} [{min(vals):.{digits}f}, {max(vals):.{digits}f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("WEFT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--programs", default="p1,p6,p9")
    ap.add_argument("--scales", default="1,4")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--keep", help="keep the generated files in this directory")
    ap.add_argument("--inputs", choices=("uniform", "normal"), default="uniform",
                    help="uniform: --random-inputs 1; normal: numpy normal * 0.1 .npy files "
                         "(seed 14, as jax_compare.py)")
    a = ap.parse_args()

    build = a.build
    if not a.no_build:
        print("== ninja -C build weftc weft_rt_main", flush=True)
        sh(["ninja", "-C", build, "weftc", "weft_rt_main"])
    weftc = os.path.join(build, "bin", "weftc")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    work = a.keep or tempfile.mkdtemp(prefix="weft-e2e-")
    os.makedirs(work, exist_ok=True)
    try:
        cxx = cache_var(build, "CMAKE_CXX_COMPILER")
        direct = os.path.join(work, "direct_gemm")
        sh([cxx, "-O3", "-std=c++17", "-I", cache_var(build, "WEFT_OPENBLAS_INCLUDE_DIR"),
            os.path.join(HERE, "direct_gemm.cpp"), "-o", direct,
            cache_var(build, "WEFT_OPENBLAS_LIBRARY")])

        # Compile every case: unsharded (1 rank) and model=2 (2 ranks).
        cases = []
        for prog in a.programs.split(","):
            src = open(os.path.join(ROOT, "examples", "canonical", prog + ".mlir")).read()
            for scale in (int(s) for s in a.scales.split(",")):
                tag = f"{prog}-b{4 * scale}"
                base = os.path.join(work, tag + ".mlir")
                two = os.path.join(work, tag + "-model2.mlir")
                open(base, "w").write(make_variant(src, scale))
                open(two, "w").write(make_variant(src, scale, ["model=2"]))
                print(f"== weftc {tag} (--unsharded, and model=2)", flush=True)
                sh([weftc, base, "--unsharded", "-o", base[:-5] + "-1",
                    "--save-cpp", base[:-5] + "-1.cpp"])
                sh([weftc, two, "-o", two[:-5]])
                rep = sh([weftc, two, "--emit=local", "--comm-report", "-o", os.devnull])
                comm = re.search(r"total (\d+) collective\(s\), \d+ bytes/device \(([^)]*)\)", rep)
                comm = f"{comm.group(1)} coll., {comm.group(2)}" if comm else "none"
                plans = gemm_plans(open(base[:-5] + "-1.cpp").read())
                if not plans:  # the generated C++ changed shape: say so, do not divide by 0
                    sys.exit(f"no GEMM plan found in {base[:-5]}-1.cpp (gemm_plans' pattern)")
                with open(base[:-5] + ".gemms", "w") as f:
                    f.write("# label m n k transA transB lda ldb ldc strideA strideB strideC batch"
                            " outerBatch outerStrideA outerStrideB outerStrideC\n")
                    f.write("\n".join(plans) + "\n")
                if a.inputs == "uniform":
                    inputs = ["--random-inputs", "1"]
                else:
                    inputs = normal_inputs(sh([base[:-5] + "-1", "--help"], env=env),
                                           base[:-5] + "-in")
                cases.append(dict(tag=tag, name=f"{NAMES.get(prog, prog)} b={4 * scale}",
                                  inputs=inputs,
                                  one=base[:-5] + "-1", two=two[:-5],
                                  gemms=base[:-5] + ".gemms", nplans=len(plans), comm=comm,
                                  t1=[], td=[], t2=[], tk=[], r1=[], r2=[], rk=[], kinds=[],
                                  kinds_k=[]))

        # Environment.
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                    if l.startswith("model name")), platform.processor())
        first = sh([direct, cases[0]["gemms"], "--iters", "1", "--warmup", "0"], env=env)
        core = re.search(r"openblas core: (.*)", first).group(1)
        print(f"\n== {datetime.datetime.now().isoformat(timespec='seconds')}  "
              f"nproc {os.cpu_count()}  cpu: {cpu}")
        print(f"== {core}  (OPENBLAS_NUM_THREADS=1 for every process; "
              f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}, not changed)")
        print(f"== mpirun {' '.join(MPIRUN[1:])}; {a.rounds} rounds x "
              f"({a.warmup} warmup + {a.iters} timed steps) per measurement")
        print(f"== load average at start: {open('/proc/loadavg').read().split()[:3]}", flush=True)

        print(f"== inputs: {a.inputs}", flush=True)
        harness = ["--iters", str(a.iters), "--warmup", str(a.warmup), "--profile"]
        for r in range(a.rounds):
            for c in cases:
                def one():
                    out = sh(MPIRUN + ["-np", "1", c["one"]] + c["inputs"] + harness, env=env)
                    c["t1"].append(step_ms(out))
                    c["kinds"].append({k: v / a.iters for k, v in profile_by_kind(out).items()})

                def dgemm():
                    out = sh([direct, c["gemms"], "--iters", str(a.iters),
                              "--warmup", str(a.warmup)], env=env)
                    c["td"].append(step_ms(out))

                def kept():  # diagnostic: the same run with glibc's heap never trimmed
                    out = sh(MPIRUN + ["-x", "GLIBC_TUNABLES", "-np", "1", c["one"]] +
                             c["inputs"] + harness,
                             env=dict(env, GLIBC_TUNABLES=KEEP_HEAP))
                    c["tk"].append(step_ms(out))
                    c["kinds_k"].append({k: v / a.iters for k, v in profile_by_kind(out).items()})

                def two():
                    out = sh(MPIRUN + ["-np", "2", c["two"]] + c["inputs"] + harness, env=env)
                    c["t2"].append(step_ms(out))

                for f in ([one, dgemm, kept, two] if r % 2 == 0 else [two, kept, dgemm, one]):
                    f()
                c["r1"].append(c["t1"][-1] / c["td"][-1])
                c["rk"].append(c["tk"][-1] / c["td"][-1])
                c["r2"].append(c["t2"][-1] / c["t1"][-1])
            print(f"   round {r + 1}/{a.rounds} done", flush=True)
        print(f"== load average at end: {open('/proc/loadavg').read().split()[:3]}")

        print("\n(a) 1 rank (weftc --unsharded) vs the same GEMMs called directly; "
              "ms per step, median [min, max] over rounds")
        print(f"{'case':<20} {'gemms':>5} {'weft 1 rank':>24} {'direct sgemm':>24} "
              f"{'ratio (<=1.10)':>24}")
        for c in cases:
            print(f"{c['name']:<20} {c['nplans']:>5} {fmt_range(c['t1']):>24} "
                  f"{fmt_range(c['td']):>24} {fmt_range(c['r1']):>24}")
        print("\n    diagnostic: the same 1-rank executable with GLIBC_TUNABLES=" + KEEP_HEAP)
        print(f"{'case':<20} {'':>5} {'weft 1 rank, heap kept':>24} {'direct sgemm':>24} "
              f"{'ratio':>24}")
        for c in cases:
            print(f"{c['name']:<20} {'':>5} {fmt_range(c['tk']):>24} "
                  f"{fmt_range(c['td']):>24} {fmt_range(c['rk']):>24}")

        print("\n    where the 1-rank step goes (from --profile, ms per step, median over rounds);"
              "\n    einsum = GEMM + its operand/result permutation copies, rest = step - profiled ops")
        kinds = sorted({k for c in cases for d in c["kinds"] for k in d})
        print(f"{'case':<26} {'step':>8} {'sgemm':>8} " +
              " ".join(f"{k:>8}" for k in kinds) + f" {'einsum-sgemm':>13} {'rest':>8}")
        for c in cases:
            for tag, ts, ks in (("", c["t1"], c["kinds"]), (" heap kept", c["tk"], c["kinds_k"])):
                med = {k: statistics.median(d.get(k, 0.0) for d in ks) for k in kinds}
                rest = statistics.median(t - sum(d.values()) for t, d in zip(ts, ks))
                print(f"{c['name'] + tag:<26} {statistics.median(ts):>8.3f} "
                      f"{statistics.median(c['td']):>8.3f} " +
                      " ".join(f"{med[k]:>8.3f}" for k in kinds) +
                      f" {med.get('einsum', 0) - statistics.median(c['td']):>13.3f} {rest:>8.3f}")

        print("\n(b) 2 ranks (model=2 mesh, sharded) vs 1 rank (unsharded); "
              "ms per step, median [min, max] over rounds")
        print(f"{'case':<20} {'1 rank':>24} {'2 ranks':>24} {'ratio 2/1':>24}  "
              "communication (weftc --comm-report)")
        for c in cases:
            print(f"{c['name']:<20} {fmt_range(c['t1']):>24} {fmt_range(c['t2']):>24} "
                  f"{fmt_range(c['r2']):>24}  {c['comm']}")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
