#!/usr/bin/env python3
"""Optional benchmark (issue 32): Weft's 1-rank AdamW training step against
the same model and optimizer in JAX (jit), on CPU, single-threaded.

For T1 (examples/training/t1_sae.mlir, AdamW lr 1e-3) and T2
(examples/training/t2_lm.mlir, AdamW lr 3e-3):

  1. writes the inputs with the example's own generator (t1_data.py,
     t2_data.py, default seed): the initial parameters and the batches;
  2. builds the Weft executables with `weftc --train=adamw --lr LR
     --unsharded`, once with the epilogue fusion (the default) and once
     with --fuse-epilogues=false;
  3. writes the model in jax.numpy from the references
     (test/training/t1_reference.py, t2_reference.py) and AdamW exactly as
     docs/training.md states it (PyTorch's AdamW: decay on every parameter,
     wd 0.01, beta1 0.9, beta2 0.999, eps 1e-8, bias correction from the
     step), one jax.jit'd step (value_and_grad + update, parameters and
     state donated), float32, step t on batch (t-1) mod S like the harness;
  4. checks first that both agree: the losses of steps 1..--check-steps of
     the Weft executable (its `step T loss L` lines) and of JAX are printed
     side by side and must agree to --tolerance (relative; step 1 is before
     any update, so it checks the model, the later ones the optimizer); a
     case that disagrees prints MISMATCH, is not timed and the exit status
     is 1;
  5. times them in interleaved rounds (the order rotates every round): the
     Weft executable's reported median step time over --steps steps and,
     from getrusage, the CPU seconds it used per step ((CPU of --steps
     steps - CPU of 1 step) / (--steps - 1), so the process start and the
     input files are not counted); JAX's median wall time per step over
     --steps steps (block_until_ready each) and its process CPU time per
     step (time.process_time over those steps, every XLA thread included);
  6. prints per round the ratios weft/JAX (wall and CPU) and a table of the
     medians [min, max] over rounds. Targets (issue 32): <= 0.90.

Single-threaded: XLA_FLAGS gets "--xla_cpu_multi_thread_eigen=false", and
this process (so every XLA thread) is
pinned to one CPU (--cpu) before jax is imported; the Weft executable runs
with OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1, under `taskset -c CPU`
(the same CPU) unless --no-pin-weft, as an MPI singleton (no mpirun).
It prints the `weft: cpu gemm:` line (kernel / ISA) of the executable.

A benchmark, not a test: nothing here passes or fails on timing. It builds
nothing but the two executables (BUILD/bin/weftc as it is). Run it with a
Python that has jax and numpy (`ENV/bin/python bench/training/jax_step.py`);
without jax it prints "JAX not installed: skipped (pip install jax)" and
exits 0.

With --ranks 2 the Weft executables are `weftc --mesh MESH` (default
data=2,model=1) run by `mpirun -np 2 --bind-to none` under `taskset` on
two CPUs, and JAX runs on 2 host devices
(--xla_force_host_platform_device_count=2) with the program's input
shardings (PartitionSpecs of its #weft.sharding annotations) on the same
mesh and the step's outputs kept on the inputs' shardings; XLA's SPMD
partitioner places the rest, as Weft's propagation does.

usage: jax_step.py [--models t1,t2] [--rounds R] [--steps N]
                   [--check-steps K] [--tolerance T] [--cpu C]
                   [--no-pin-weft] [--no-unfused] [--ranks 1|2]
                   [--mesh data=D,model=M] [--build DIR] [--keep DIR]
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples", "training")
sys.path.insert(0, EXAMPLES)
sys.path.insert(0, HERE)

# Not "intra_op_parallelism_threads=1": it is no XLA flag, and XLA stops
# reading XLA_FLAGS at it (a --xla_force_host_platform_device_count after it
# was ignored). The one-CPU pinning keeps XLA on one core.
XLA_SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false"
TARGET = 0.90  # weft/jax, issue 32
MODELS = {
    # name: (program, lr, data generator module)
    "t1": ("t1_sae.mlir", 1e-3, "t1_data"),
    "t2": ("t2_lm.mlir", 3e-3, "t2_data"),
}
STEP_RE = re.compile(r"median step time ([0-9.]+) ms")
LOSS_RE = re.compile(r"^step (\d+) loss (\S+)", re.M)
GEMM_RE = re.compile(r"^weft: cpu gemm:.*$", re.M)


class Failure(Exception):
    pass


def parse_args():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get(
        "WEFT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--models", default="t1,t2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20,
                    help="steps per timed run (>= 2)")
    ap.add_argument("--check-steps", type=int, default=3,
                    help="steps whose losses are compared before timing")
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="max relative loss difference in the check")
    ap.add_argument("--cpu", type=int,
                    help="the CPU JAX (and the Weft executable) is pinned "
                         "to (default: the lowest one allowed)")
    ap.add_argument("--no-pin-weft", action="store_true",
                    help="do not pin the Weft executable")
    ap.add_argument("--no-unfused", action="store_true",
                    help="skip the --fuse-epilogues=false executable")
    ap.add_argument("--ranks", type=int, default=1, choices=(1, 2),
                    help="1: `weftc --unsharded` against JAX on one CPU "
                         "device; 2: `weftc --mesh MESH` on 2 ranks (mpirun) "
                         "against JAX on 2 host devices with the program's "
                         "shardings on the same mesh")
    ap.add_argument("--mesh", default="data=2,model=1",
                    help="the mesh of --ranks 2 (weftc --mesh, and JAX's)")
    ap.add_argument("--keep", help="keep the generated files here")
    args = ap.parse_args()
    try:
        args.mesh_sizes = {k: int(v) for k, v in
                           (a.split("=") for a in args.mesh.split(","))}
    except ValueError:
        ap.error(f"--mesh: expected data=D,model=M, got {args.mesh!r}")
    if args.ranks > 1 and (set(args.mesh_sizes) != {"data", "model"} or
                           args.mesh_sizes["data"] * args.mesh_sizes["model"]
                           != args.ranks):
        ap.error(f"--mesh {args.mesh}: needs data and model, "
                 f"data * model = --ranks {args.ranks}")
    if args.steps < 2:
        ap.error("--steps must be >= 2")
    for m in args.models.split(","):
        if m not in MODELS:
            ap.error(f"unknown model {m!r} (known: {', '.join(MODELS)})")
    return args


# ------------------------------------------------------------------ JAX models

from jax_models import make_step, t1_loss, t2_loss  # noqa: E402


# The programs' input shardings (the #weft.sharding of every argument of
# t1_sae.mlir and t2_lm.mlir), as PartitionSpecs on the mesh (data, model).
def program_specs(model, name):
    d, m = "data", "model"
    if model == "t1":
        return {"x": (d, None), "W_enc": (None, m), "b_enc": (m,),
                "W_dec": (m, None), "b_dec": (None,)}[name]
    if name in ("tokens", "labels"):
        return (d, None)
    if name in ("E", "P", "W2_0", "W2_1"):
        return (m, None)
    if name in ("W1_0", "W1_1", "Wout"):
        return (None, m)
    if name.startswith(("Wq_", "Wk_", "Wv_")):
        return (None, m, None)
    if name.startswith("Wo_"):
        return (m, None, None)
    raise KeyError(name)


class JaxCase:
    """The JAX side of one model: the initial parameters and the batches
    on the device(s), and the jit'd step. With MESH (a jax Mesh), every
    input gets the program's sharding on it and the step's outputs keep
    their inputs' shardings."""

    def __init__(self, jax, jnp, model, arrays, lr, mesh=None):
        self.jax, self.jnp = jax, jnp
        self.mesh = mesh
        if model == "t1":
            data_names = ["x"]
            loss_fn = t1_loss
        else:
            data_names = ["tokens", "labels"]
            loss_fn = t2_loss
        self.init = {n: a for n, a in arrays.items() if n not in data_names}
        self.put = {n: self.placer(model, n) for n in arrays}
        nb = arrays[data_names[0]].shape[0]
        self.batches = [{n: self.put[n](arrays[n][i]) for n in data_names}
                        for i in range(nb)]
        out_shardings = None
        if mesh is not None:
            from jax.sharding import NamedSharding, PartitionSpec
            ps = {n: NamedSharding(mesh, PartitionSpec(*program_specs(model, n)))
                  for n in self.init}
            out_shardings = (NamedSharding(mesh, PartitionSpec()), ps, ps, ps)
        self.step = make_step(jax, jnp, loss_fn, lr, out_shardings)

    def placer(self, model, name):
        jax = self.jax
        if self.mesh is None:
            return jax.device_put
        from jax.sharding import NamedSharding, PartitionSpec
        sh = NamedSharding(self.mesh, PartitionSpec(*program_specs(model, name)))
        return lambda a: jax.device_put(a, sh)

    def run(self, steps):
        """Runs STEPS steps from the initial state; returns (losses, wall
        seconds per step, process CPU seconds over all steps)."""
        jax, jnp = self.jax, self.jnp
        p = {n: self.put[n](a) for n, a in self.init.items()}
        m = {n: jnp.zeros_like(a) for n, a in p.items()}
        v = {n: jnp.zeros_like(a) for n, a in p.items()}
        jax.block_until_ready((p, m, v))
        ts = [jnp.float32(t) for t in range(1, steps + 1)]
        losses, times = [], []
        c0 = time.process_time()
        for t in range(1, steps + 1):
            w0 = time.perf_counter()
            loss, p, m, v = self.step(p, m, v, self.batches[(t - 1) % len(self.batches)],
                                      ts[t - 1])
            jax.block_until_ready((loss, p, m, v))
            times.append(time.perf_counter() - w0)
            losses.append(float(loss))
        cpu = time.process_time() - c0
        return losses, times, cpu


# ------------------------------------------------------------------ Weft side

def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
          "ob1", "--bind-to", "none", "-np"]


def run_weft(exe, inputs, steps, pin, ranks=1):
    """Runs EXE for STEPS steps (under mpirun when RANKS > 1); returns
    (stdout, CPU seconds of it and its children)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ([exe] + inputs + ["--steps", str(steps), "--log-every", "1"])
    if ranks > 1:
        cmd = MPIRUN + [str(ranks)] + cmd
    if pin is not None:
        cmd = ["taskset", "-c", ",".join(map(str, pin))] + cmd
    c0 = children_cpu()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    cpu = children_cpu() - c0
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr, cpu


def weft_losses(out):
    return [float(l) for _, l in LOSS_RE.findall(out)]


def weft_median_ms(out):
    m = STEP_RE.search(out)
    if not m:
        raise Failure(f"no median step time in the output:\n{out}")
    return float(m.group(1))


def fmt(vals, digits=3):
    return (f"{statistics.median(vals):.{digits}f} "
            f"[{min(vals):.{digits}f}, {max(vals):.{digits}f}]")


def main():
    args = parse_args()
    allowed = sorted(os.sched_getaffinity(0))
    if args.ranks > len(allowed):
        print(f"jax_step.py: error: --ranks {args.ranks} needs as many CPUs, "
              f"{len(allowed)} allowed", file=sys.stderr)
        return 1
    first = args.cpu if args.cpu is not None else allowed[0]
    pinned = [first] + [c for c in allowed if c != first][:args.ranks - 1]
    os.sched_setaffinity(0, set(pinned))
    flags = os.environ.get("XLA_FLAGS", "")
    flags = (flags + " " + XLA_SINGLE_THREAD).strip()
    if args.ranks > 1:
        flags += f" --xla_force_host_platform_device_count={args.ranks}"
    os.environ["XLA_FLAGS"] = flags
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        print("JAX not installed: skipped (pip install jax)")
        return 0
    jax.config.update("jax_platforms", "cpu")
    weftc = os.path.join(args.build, "bin", "weftc")
    if not os.access(weftc, os.X_OK):
        print(f"jax_step.py: error: {weftc} not found (build weftc first)",
              file=sys.stderr)
        return 1
    work = args.keep or tempfile.mkdtemp(prefix="weft-jax-step-")
    os.makedirs(work, exist_ok=True)
    pin = None if args.no_pin_weft else pinned
    mesh = None
    if args.ranks > 1:
        if len(jax.devices()) != args.ranks:
            print(f"jax_step.py: error: JAX has {len(jax.devices())} devices, "
                  f"expected {args.ranks}", file=sys.stderr)
            return 1
        # A plain Mesh: automatic axes (jax.make_mesh's explicit axes would
        # ask for an out_sharding at every gather), so XLA's partitioner
        # places what the inputs' shardings leave open, as weft's does.
        mesh = jax.sharding.Mesh(
            np.array(jax.devices()).reshape(args.mesh_sizes["data"],
                                            args.mesh_sizes["model"]),
            ("data", "model"))
    print(f"jax {jax.__version__}, XLA_FLAGS={os.environ['XLA_FLAGS']!r}, "
          f"pinned to CPUs {pinned}; weft pinned: {pin is not None}; "
          f"{args.ranks} rank(s), mesh {args.mesh if args.ranks > 1 else '1 device'}; "
          f"{args.rounds} rounds of {args.steps} steps; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    status = 0
    results = {}
    try:
        for model in args.models.split(","):
            program, lr, gen = MODELS[model]
            mod = __import__(gen)
            ddir = os.path.join(work, model + "-data")
            os.makedirs(ddir, exist_ok=True)
            if mod.main(["--out", ddir]) != 0:
                raise Failure(f"{gen}.py failed")
            arrays = {f[:-4]: np.load(os.path.join(ddir, f))
                      for f in sorted(os.listdir(ddir)) if f.endswith(".npy")}
            inputs = []
            for n in arrays:
                inputs += ["--input", f"{n}={os.path.join(ddir, n + '.npy')}"]
            variants = [("weft", [])]
            if not args.no_unfused:
                variants.append(("weft-unfused", ["--fuse-epilogues=false"]))
            exes = {}
            for name, extra in variants:
                exe = os.path.join(work, f"{model}-{name}")
                where = (["--unsharded"] if args.ranks == 1 else
                         ["--mesh", args.mesh])
                cmd = [weftc, "--train=adamw", "--lr", repr(lr)] + where + [
                    os.path.join(EXAMPLES, program), "-o", exe] + extra
                print(f"== {model}: {' '.join(cmd)}", flush=True)
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    raise Failure(f"weftc failed:\n{r.stdout}{r.stderr}")
                exes[name] = exe

            # The check: losses of the first steps, side by side.
            case = JaxCase(jax, jnp, model, arrays, lr, mesh)
            k = max(1, args.check_steps)
            jl, _, _ = case.run(k)
            ok = True
            for name, exe in exes.items():
                out, _ = run_weft(exe, inputs, k, pin, args.ranks)
                g = GEMM_RE.search(out)
                print(f"   {name} kernel: {g.group(0) if g else '(no weft: cpu gemm line)'}")
                wl = weft_losses(out)
                if len(wl) < k:
                    raise Failure(f"{name}: expected {k} loss lines:\n{out}")
                for t in range(k):
                    rel = abs(wl[t] - jl[t]) / max(abs(jl[t]), 1e-30)
                    good = rel <= args.tolerance
                    ok = ok and good
                    print(f"   step {t + 1} loss: {name} {wl[t]:.9g}  jax {jl[t]:.9g}"
                          f"  rel diff {rel:.2e}{'' if good else '  MISMATCH'}")
            if not ok:
                print(f"   {model}: MISMATCH, not timed")
                status = 1
                continue

            # Timing: interleaved rounds, the order rotating.
            sides = list(exes) + ["jax"]
            wall = {s: [] for s in sides}
            cpus = {s: [] for s in sides}
            for rnd in range(args.rounds):
                order = sides[rnd % len(sides):] + sides[:rnd % len(sides)]
                for s in order:
                    if s == "jax":
                        _, times, c = case.run(args.steps)
                        wall[s].append(statistics.median(times) * 1e3)
                        cpus[s].append(c / args.steps * 1e3)
                    else:
                        out, c = run_weft(exes[s], inputs, args.steps, pin, args.ranks)
                        _, c1 = run_weft(exes[s], inputs, 1, pin, args.ranks)
                        wall[s].append(weft_median_ms(out))
                        cpus[s].append((c - c1) / (args.steps - 1) * 1e3)
                line = "  ".join(
                    f"{s} {wall[s][-1]:.1f} ms (cpu {cpus[s][-1]:.1f})" for s in sides)
                ratios = "  ".join(
                    f"{s}/jax {wall[s][-1] / wall['jax'][-1]:.3f} "
                    f"(cpu {cpus[s][-1] / cpus['jax'][-1]:.3f})" for s in exes)
                print(f"   round {rnd + 1} [{' '.join(order)}]: {line}  |  {ratios}",
                      flush=True)
            results[model] = (wall, cpus, list(exes))
    except Failure as e:
        print(f"jax_step.py: error: {e}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    print(f"\nload average at the end: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\n| model | side | wall ms per step | CPU ms per step | wall ratio "
          f"weft/jax | CPU ratio weft/jax | target |")
    print("|---|---|---|---|---|---|---|")
    for model, (wall, cpus, names) in results.items():
        for s in names + ["jax"]:
            if s == "jax":
                print(f"| {model.upper()} | jax | {fmt(wall[s])} | {fmt(cpus[s])} | | | |")
                continue
            rw = [a / b for a, b in zip(wall[s], wall["jax"])]
            rc = [a / b for a, b in zip(cpus[s], cpus["jax"])]
            print(f"| {model.upper()} | {s} | {fmt(wall[s])} | {fmt(cpus[s])} | "
                  f"{fmt(rw)} | {fmt(rc)} | <= {TARGET:.2f} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
