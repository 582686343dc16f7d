#!/usr/bin/env python3
"""Training benchmark (issue 11), CPU backend.

(a) T1 (examples/training/t1_sae.mlir, AdamW): the in-process step time of
    `weftc --train` executables on 1 rank (--unsharded), 2 ranks (model=2)
    and 4 ranks (data=2 x model=2), each against the sum of the same
    program's GEMMs called directly (bench/e2e/direct_gemm.cpp on the
    GemmPlans of the 1-rank build: every GEMM of the forward and backward,
    no map, reduce, optimizer update or collective), and the 1-rank step's
    time by op kind (--profile), which shows what the optimizer's maps cost.
(b) The compile time of --weft-autodiff on an N-layer chain (einsum + bias +
    relu per layer, a squared-error loss), for growing N: the time per layer
    should stay flat (linear in N).

Everything runs with OPENBLAS_NUM_THREADS=1 and `mpirun --bind-to none`;
the machine's OPENBLAS_CORETYPE is left as it is and the OpenBLAS core is
printed. Step times are the harness's median over --steps steps (after the
first, which warms the buffer pool); each case runs --rounds times and the
table shows the median and [min, max] over rounds. A benchmark, not a test:
nothing passes or fails on timing.

usage: bench/training/run.py [--rounds R] [--steps N] [--layers 16,64,256,1024]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "e2e"))
from run import cache_var, gemm_plans, profile_by_kind, sh  # noqa: E402

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
          "ob1", "--bind-to", "none"]
T1 = os.path.join(ROOT, "examples", "training", "t1_sae.mlir")
STEP_RE = re.compile(r"median step time ([0-9.]+) ms")


def chain(n, d=256, b=512):
    """An n-layer MLP chain with a squared-error loss, every weight and bias
    a weft.param (unsharded: only --weft-autodiff runs on it)."""
    lines = ["func.func @chain(", f"    %x: tensor<{b}x{d}xf32>,",
             f"    %t: tensor<{b}x{d}xf32>"]
    for i in range(n):
        lines[-1] += ","
        lines.append(f"    %w{i}: tensor<{d}x{d}xf32> {{weft.param}}, "
                     f"%c{i}: tensor<{d}xf32> {{weft.param}}")
    lines[-1] += ") -> tensor<f32> {"
    h = "%x"
    for i in range(n):
        lines += [
            f'  %p{i} = weft.einsum "bd,de->be" ({h}, %w{i}) : (tensor<{b}x{d}xf32>, '
            f"tensor<{d}x{d}xf32>) -> tensor<{b}x{d}xf32>",
            f'  %q{i} = weft.map add "be,e->be" (%p{i}, %c{i}) : (tensor<{b}x{d}xf32>, '
            f"tensor<{d}xf32>) -> tensor<{b}x{d}xf32>",
            f'  %h{i} = weft.map relu "be->be" (%q{i}) : (tensor<{b}x{d}xf32>) -> '
            f"tensor<{b}x{d}xf32>"]
        h = f"%h{i}"
    lines += [
        f'  %e = weft.map sub "bd,bd->bd" ({h}, %t) : (tensor<{b}x{d}xf32>, '
        f"tensor<{b}x{d}xf32>) -> tensor<{b}x{d}xf32>",
        f'  %s = weft.map square "bd->bd" (%e) : (tensor<{b}x{d}xf32>) -> tensor<{b}x{d}xf32>',
        f'  %l = weft.reduce sum "bd->" (%s) : (tensor<{b}x{d}xf32>) -> tensor<f32>',
        "  return %l : tensor<f32>", "}"]
    return "\n".join(lines) + "\n"


def fmt(vals, digits=1):
    return (f"{statistics.median(vals):.{digits}f} "
            f"[{min(vals):.{digits}f}, {max(vals):.{digits}f}]")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("WEFT_BUILD_DIR",
                                                      os.path.join(ROOT, "build")))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--layers", default="16,64,256,1024")
    ap.add_argument("--keep", help="keep the generated files in this directory")
    a = ap.parse_args()

    weftc = os.path.join(a.build, "bin", "weftc")
    weft_opt = os.path.join(a.build, "bin", "weft-opt")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    work = a.keep or tempfile.mkdtemp(prefix="weft-train-bench-")
    os.makedirs(work, exist_ok=True)

    # (a) T1.
    data = os.path.join(work, "data")
    sh([sys.executable, os.path.join(ROOT, "examples", "training", "t1_data.py"),
        "--out", data])
    flags = re.match(r"^// weftc: (.*)$", open(T1).readline()).group(1).split()
    builds = [("1 rank (unsharded)", 1, ["--unsharded"]),
              ("2 ranks (model=2)", 2, ["--mesh", "data=1,model=2"]),
              ("4 ranks (data=2 x model=2)", 4, [])]
    exes = []
    for i, (name, n, extra) in enumerate(builds):
        exe = os.path.join(work, f"t1_{n}")
        cpp = exe + ".cpp"
        sh([weftc] + flags + extra + [T1, "-o", exe, "--save-cpp", cpp])
        exes.append(exe)
    plans = gemm_plans(open(exes[0] + ".cpp").read())
    gemms = os.path.join(work, "t1.gemms")
    with open(gemms, "w") as f:
        f.write("\n".join(plans) + "\n")
    direct = os.path.join(work, "direct_gemm")
    sh([cache_var(a.build, "CMAKE_CXX_COMPILER"), "-O3", "-std=c++17", "-I",
        cache_var(a.build, "WEFT_OPENBLAS_INCLUDE_DIR"),
        os.path.join(ROOT, "bench", "e2e", "direct_gemm.cpp"), "-o", direct,
        cache_var(a.build, "WEFT_OPENBLAS_LIBRARY")])
    inputs = []
    for name in ("x", "W_enc", "b_enc", "W_dec", "b_dec"):
        inputs += ["--input", f"{name}={data}/{name}.npy"]

    first = sh([direct, gemms, "--iters", "1", "--warmup", "0"], env=env)
    core = re.search(r"openblas core: (.*)", first).group(1)
    print(f"== T1 AdamW step, {len(plans)} GEMMs per step; openblas core: {core}; "
          f"nproc {os.cpu_count()}; {a.steps} steps x {a.rounds} rounds")
    t_direct, t_run, kinds = [], [[] for _ in builds], []
    for r in range(a.rounds):
        out = sh([direct, gemms, "--iters", str(a.steps), "--warmup", "2"], env=env)
        t_direct.append(float(re.search(r"step time: median ([0-9.]+) ms",
                                        out).group(1)))
        for i, (name, n, _) in enumerate(builds):
            cmd = MPIRUN + ["-np", str(n), exes[i], "--steps", str(a.steps + 1)] + inputs
            if i == 0 and r == 0:
                prof = sh(cmd + ["--profile"], env=env)
                kinds = profile_by_kind(prof)
            out = sh(cmd, env=env)
            t_run[i].append(float(STEP_RE.search(out).group(1)))
    print(f"{'case':32} {'step ms':>22} {'vs GEMMs':>9}")
    print(f"{'GEMMs only (direct sgemm, 1 rank)':32} {fmt(t_direct, 2):>22} {'1.00':>9}")
    for i, (name, n, _) in enumerate(builds):
        ratio = statistics.median(t_run[i]) / statistics.median(t_direct)
        print(f"{name:32} {fmt(t_run[i], 2):>22} {ratio:9.2f}")
    if kinds:
        total = sum(kinds.values())
        print("1-rank step by op kind (--profile, ms per step, share):")
        for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print(f"  {k:12} {v / a.steps:8.2f} {100 * v / total:5.1f}%")

    # (b) Autodiff compile time: the pass's own wall time (--mlir-timing).
    print("\n== --weft-autodiff on an N-layer chain (weft-opt --mlir-timing: "
          "the pass alone, best of --rounds)")
    print(f"{'layers':>7} {'ops in':>7} {'ops out':>8} {'ms':>9} {'us/layer':>9}")
    for n in (int(x) for x in a.layers.split(",")):
        src = os.path.join(work, f"chain{n}.mlir")
        with open(src, "w") as f:
            f.write(chain(n))
        best = None
        for _ in range(a.rounds):
            out = subprocess.run([weft_opt, src, "--weft-autodiff", "--mlir-timing"],
                                 capture_output=True, text=True, check=True)
            m = re.search(r"([0-9.]+) \(\s*[0-9.]+%\)\s+WeftAutodiff", out.stderr)
            ms = float(m.group(1)) * 1e3
            best = ms if best is None else min(best, ms)
        ops_out = out.stdout.count(" = weft.")
        print(f"{n:7d} {3 * n + 3:7d} {ops_out:8d} {best:9.2f} {1e3 * best / n:9.1f}")


if __name__ == "__main__":
    main()
