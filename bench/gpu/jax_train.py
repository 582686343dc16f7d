#!/usr/bin/env python3
"""GPU benchmark (a device-tool session): Weft's 1-GPU AdamW training step
against the same model and optimizer in JAX (jit) on the same GPU, in f32
and in bf16-mixed, with and without `--cuda-graph`.

  bench/gpu/jax_train.py --programs BUILD/programs [--models t2,llama]
                         [--precisions f32,bf16] [--steps 100] [--rounds 3]

Needs the bundle's training programs built for CUDA (scripts/gpu/bundle.py
bundles train_t2_lm, train_t2_lm_bf16, train_llama_lm, train_llama_lm_bf16;
scripts/run-gpu-tests.sh builds them) and a Python with jax and numpy; no
MLIR. For each model and precision it:
  1. writes the inputs with the example's own generator (default seed);
  2. checks that Weft (cuda backend) and JAX agree: the losses of steps
     1..--check-steps side by side, within 1e-4 relative in f32 and 2e-2 in
     bf16 (JAX keeps its GEMM results in f32 where Weft rounds them to
     bf16); a case that disagrees prints MISMATCH and is not timed;
  3. times, in interleaved rounds (the order rotating): the Weft
     executable's median step time over --steps steps, op by op and with
     --cuda-graph, and JAX's median wall time per step over --steps steps
     (block_until_ready each step; the harness likewise reads each step's
     loss back), after a first untimed call that compiles;
  4. prints a table of the medians [min, max] over rounds and the ratios.
The models are bench/training/jax_models.py (written from the numpy
references). f32 GEMMs in JAX run at "highest" precision (no TF32), as
Weft's cuBLAS calls (CUBLAS_COMPUTE_32F) do. A benchmark, not a test.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "training"))
sys.path.insert(0, os.path.join(ROOT, "bench", "training"))
import jax_models  # noqa: E402

MODELS = {
    # name: (bundled program stem, lr, data generator, loss)
    "t2": ("train_t2_lm", 3e-3, "t2_data", jax_models.t2_loss),
    "llama": ("train_llama_lm", 3e-3, "llama_data", jax_models.llama_loss),
}
STEP_RE = re.compile(r"median step time ([0-9.]+) ms")
LOSS_RE = re.compile(r"^step (\d+) loss (\S+)", re.M)


def run_weft(exe, inputs, steps, graph, backend="cuda"):
    cmd = [exe, "--backend", backend, "--steps", str(steps)] + inputs
    if graph:
        cmd.append("--cuda-graph")
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{out}")
    return out


def fmt(vals):
    return f"{statistics.median(vals):.3f} [{min(vals):.3f}, {max(vals):.3f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", required=True)
    ap.add_argument("--models", default="t2,llama")
    ap.add_argument("--precisions", default="f32,bf16")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--check-steps", type=int, default=3)
    ap.add_argument("--backend", default="cuda",
                    help="cpu: a dry run of the script on a machine without "
                         "a GPU (no --cuda-graph side)")
    a = ap.parse_args()
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        print("JAX not installed: skipped")
        return 0
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}", flush=True)
    work = tempfile.mkdtemp(prefix="weft-jax-gpu-")
    status, rows = 0, []
    for model in a.models.split(","):
        stem, lr, gen, loss_fn = MODELS[model]
        ddir = os.path.join(work, model)
        os.makedirs(ddir)
        if __import__(gen).main(["--out", ddir]) != 0:
            print(f"{gen}.py failed")
            return 1
        arrays = {f[:-4]: np.load(os.path.join(ddir, f))
                  for f in sorted(os.listdir(ddir)) if f.endswith(".npy")}
        inputs = []
        for n in arrays:
            inputs += ["--input", f"{n}={os.path.join(ddir, n + '.npy')}"]
        data = ("tokens", "labels")
        batches = [{n: jax.device_put(arrays[n][i]) for n in data}
                   for i in range(arrays["tokens"].shape[0])]
        init = {n: v for n, v in arrays.items() if n not in data}
        for prec in a.precisions.split(","):
            exe = os.path.join(a.programs, stem + ("_bf16" if prec == "bf16" else ""))
            if not os.access(exe, os.X_OK):
                print(f"{model} {prec}: {exe} not built: skipped")
                continue
            jax.config.update("jax_default_matmul_precision",
                              "highest" if prec == "f32" else "default")
            mm = (jax_models.f32_mm if prec == "f32" else jax_models.bf16_mm)(jnp)
            step = jax_models.make_step(
                jax, jnp, lambda j, p, b: loss_fn(j, p, b, mm=mm), lr)

            def jax_run(steps):
                p = {n: jax.device_put(v) for n, v in init.items()}
                m = {n: jnp.zeros_like(v) for n, v in p.items()}
                v = {n: jnp.zeros_like(x) for n, x in p.items()}
                losses, times = [], []
                for t in range(1, steps + 1):
                    w0 = time.perf_counter()
                    loss, p, m, v = step(p, m, v, batches[(t - 1) % len(batches)],
                                         jnp.float32(t))
                    jax.block_until_ready((loss, p, m, v))
                    times.append(time.perf_counter() - w0)
                    losses.append(float(loss))
                return losses, times

            tol = 1e-4 if prec == "f32" else 2e-2
            k = a.check_steps
            jl, _ = jax_run(k)
            ok = True
            graphs = (False, True) if a.backend == "cuda" else (False,)
            for graph in graphs:
                out = run_weft(exe, inputs, k + 2 if graph else k, graph,
                               a.backend)
                wl = [float(x) for _, x in LOSS_RE.findall(out)]
                for line in out.splitlines():
                    if "--cuda-graph" in line:
                        print("   " + line)
                for t in range(k):
                    rel = abs(wl[t] - jl[t]) / max(abs(jl[t]), 1e-30)
                    good = rel <= tol
                    ok = ok and good
                    print(f"   {model} {prec} step {t + 1}: weft{'+graph' if graph else ''} "
                          f"{wl[t]:.7g} jax {jl[t]:.7g} rel {rel:.2e}"
                          f"{'' if good else ' MISMATCH'}", flush=True)
            if not ok:
                status = 1
                continue
            sides = ["weft", "weft+graph", "jax"] if len(graphs) == 2 else [
                "weft", "jax"]
            ms = {s: [] for s in sides}
            for rnd in range(a.rounds):
                order = sides[rnd % len(sides):] + sides[:rnd % len(sides)]
                for s in order:
                    if s == "jax":
                        _, times = jax_run(a.steps)
                        ms[s].append(statistics.median(times) * 1e3)
                    else:
                        out = run_weft(exe, inputs, a.steps, s == "weft+graph",
                                       a.backend)
                        ms[s].append(float(STEP_RE.search(out).group(1)))
                print(f"   {model} {prec} round {rnd + 1}: " + "  ".join(
                    f"{s} {ms[s][-1]:.3f} ms" for s in sides), flush=True)
            rows.append((model, prec, ms))
    print("\n| model | precision | weft ms | weft --cuda-graph ms | jax ms | "
          "weft/jax | weft graph/jax |")
    print("|---|---|---|---|---|---|---|")
    for model, prec, ms in rows:
        g = ms.get("weft+graph") or [float("nan")] * len(ms["jax"])
        r1 = [x / y for x, y in zip(ms["weft"], ms["jax"])]
        r2 = [x / y for x, y in zip(g, ms["jax"])]
        print(f"| {model} | {prec} | {fmt(ms['weft'])} | {fmt(g)} | "
              f"{fmt(ms['jax'])} | {fmt(r1)} | {fmt(r2)} |")
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for d in os.listdir(tempfile.gettempdir()):
            if d.startswith("weft-jax-gpu-"):
                shutil.rmtree(os.path.join(tempfile.gettempdir(), d),
                              ignore_errors=True)
