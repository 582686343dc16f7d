#!/usr/bin/env python3
"""Every map kind: ns per element on Weft's CPU backend against XLA's for the
same map (issue 32's last benchmark), single-threaded, on one CPU.

  jax_maps.py [--log2n 16,20] [--rounds 15] [--cpu 0] [--bench BIN]

Weft's side is build/runtime/bench/weft-rt-bench-maps LOG2N under `taskset
-c CPU` (Backend::map over a contiguous tensor of 2^LOG2N elements; see its
header). XLA's side: the same function written in jax.numpy, `jax.jit`'d,
on inputs drawn the same way (the benchmark's generator, reproduced here:
log, sqrt, rsqrt on [0.01, 100], the others on [-4, 4]; the second operand
of a binary kind on [1, 2); scale and shift by 0.5), with XLA_FLAGS
"--xla_cpu_multi_thread_eigen=false" and the
process pinned to the CPU before jax is imported. Both sides: repeat the
call so one round takes about 2 ms, 15 rounds, median and minimum per
element (the minimum is the steadier on a shared machine); XLA's calls end
with block_until_ready, so each includes jit's dispatch, which is printed
on its own (an identity function's call) and dominates at small sizes:
compare at 2^20 and above for the kernels. Before timing, each XLA map is
checked against numpy's float64 on the same inputs (the two sides must
compute the same function).

The ratio column is weft / XLA of the minima: below 1 means Weft is faster.
Optional: without jax it prints a message and exits 0. Not a test; the
figures go to docs/performance.md. Prints the CPU and which GEMM/ISA
banner the Weft runtime gives (its map loops dispatch on the same ISA).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "numpy"))
# Not "intra_op_parallelism_threads=1": it is no XLA flag, and XLA stops
# reading XLA_FLAGS at it (a --xla_force_host_platform_device_count after it
# was ignored). The one-CPU pinning keeps XLA on one core.
XLA_SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false"
POSITIVE = {"log", "sqrt", "rsqrt"}
SCALAR = 0.5


BINARY = {"add", "sub", "mul", "div", "max", "min", "gt", "ge", "lt", "le",
          "eq", "ne"}


def uniforms(n, np):
    """The benchmark's generator: its 64-bit LCG, u in [0, 1)."""
    mask = (1 << 64) - 1
    s = 0x9e3779b97f4a7c15
    states = []
    for _ in range(n):
        s = (s * 6364136223846793005 + 1442695040888963407) & mask
        states.append(s >> 11)
    return np.array(states, dtype=np.float64) / 9007199254740992.0


def draw(u, kind):
    """The benchmark's inputs of KIND: the same ranges."""
    a = (0.01 + u * 99.99) if kind in POSITIVE else (-4.0 + 8.0 * u)
    return a, 1.0 + u


def functions(jnp, jax):
    f = lambda x: x  # noqa: E731
    cmp = lambda op: (lambda a, b: op(a, b).astype(a.dtype))  # noqa: E731
    return {
        "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
        "max": jnp.maximum, "min": jnp.minimum,
        "gt": cmp(jnp.greater), "ge": cmp(jnp.greater_equal),
        "lt": cmp(jnp.less), "le": cmp(jnp.less_equal),
        "eq": cmp(jnp.equal), "ne": cmp(jnp.not_equal),
        "neg": lambda a: -a, "exp": jnp.exp, "log": jnp.log,
        "sqrt": jnp.sqrt, "rsqrt": jax.lax.rsqrt,
        "square": lambda a: a * a, "tanh": jnp.tanh,
        "relu": lambda a: jnp.maximum(a, 0),
        "gelu": lambda a: jax.nn.gelu(a, approximate=True),
        "silu": jax.nn.silu, "abs": jnp.abs, "sign": jnp.sign,
        "step": lambda a: (a > 0).astype(a.dtype),
        "sigmoid": jax.nn.sigmoid, "sin": jnp.sin, "cos": jnp.cos,
        "scale": lambda a: a * SCALAR, "shift": lambda a: a + SCALAR,
        "softplus": jax.nn.softplus, "identity": f,
    }


def reference(kind, a, b, np):
    """numpy float64 of each kind: test/numpy/weft_numpy.py's formulas (the
    e2e tests' oracle, written from WeftOps.td)."""
    import weft_numpy
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if kind in weft_numpy.BINARY:
        return weft_numpy.BINARY[kind](a64, b64)
    return weft_numpy.UNARY[kind](a64, SCALAR)


def time_call(call, rounds):
    call()
    t0 = time.perf_counter()
    call()
    one = max(time.perf_counter() - t0, 1e-7)
    reps = max(1, int(2e-3 / one))
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(reps):
            call()
        out.append((time.perf_counter() - t) / reps)
    return statistics.median(out), min(out)


def weft_side(bench, cpu, log2n):
    p = subprocess.run(["taskset", "-c", str(cpu), bench, str(log2n)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        sys.exit("jax_maps.py: %s failed:\n%s" % (bench, p.stdout))
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(\w+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$",
                     line)
        if m:
            rows[m.group(1)] = tuple(float(x) for x in m.groups()[1:])
    return rows, p.stdout


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log2n", default="16,20",
                    help="comma-separated log2 element counts")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--bench", default=os.path.join(
        os.environ.get("WEFT_BUILD_DIR", os.path.join(ROOT, "build")),
        "runtime", "bench", "weft-rt-bench-maps"))
    ap.add_argument("--kinds", help="comma-separated subset of map kinds")
    args = ap.parse_args()
    try:
        sizes = [int(x) for x in args.log2n.split(",")]
    except ValueError:
        sys.exit("jax_maps.py: error: --log2n wants integers, got %r"
                 % args.log2n)
    if any(not 4 <= x <= 28 for x in sizes):
        sys.exit("jax_maps.py: error: --log2n values must be in 4..28")
    os.sched_setaffinity(0, {args.cpu})
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " +
                               XLA_SINGLE_THREAD).strip()
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        print("JAX not installed: skipped (pip install jax)")
        return 0
    if not os.path.isfile(args.bench):
        sys.exit("jax_maps.py: error: no %s (build the target "
                 "weft-rt-bench-maps)" % args.bench)
    jax.config.update("jax_enable_x64", True)
    fns = functions(jnp, jax)

    with open("/proc/cpuinfo") as f:
        model = re.search(r"model name\s*:\s*(.*)", f.read())
    print("cpu: %s; jax %s; pinned to CPU %d; XLA_FLAGS=%s" % (
        model.group(1) if model else "?", jax.__version__, args.cpu,
        os.environ["XLA_FLAGS"]))
    for log2n in sizes:
        n = 1 << log2n
        rows, raw = weft_side(args.bench, args.cpu, log2n)
        banner = [ln for ln in raw.splitlines() if ln.startswith("weft:")]
        for ln in banner:
            print(ln)
        print("\n2^%d elements; ns per element, minimum [median] of %d "
              "rounds; ratio = weft min / XLA min" % (log2n, args.rounds))
        disp = {}
        for dt in ("float32", "float64"):
            x = jnp.zeros(n, dtype=dt)
            ident = jax.jit(fns["identity"])
            med, mn = time_call(lambda: ident(x).block_until_ready(),
                                args.rounds)
            disp[dt] = mn * 1e9
        print("XLA dispatch (an identity function's call): f32 %.0f ns, "
              "f64 %.0f ns per call = %.3f / %.3f ns per element" % (
                  disp["float32"], disp["float64"],
                  disp["float32"] / n, disp["float64"] / n))
        print("%-9s %17s %17s %7s %17s %17s %7s" % (
            "kind", "weft f32", "xla f32", "ratio", "weft f64", "xla f64",
            "ratio"))
        kinds = [k for k in rows if not args.kinds or
                 k in args.kinds.split(",")]
        u = uniforms(n, np)
        for kind in kinds:
            a64, b64 = draw(u, kind)
            cells = []
            for i, dt in enumerate(("float32", "float64")):
                a = jnp.asarray(a64.astype(dt))
                b = jnp.asarray(b64.astype(dt))
                f = jax.jit(fns[kind])
                binary = kind in BINARY
                call = (lambda: f(a, b).block_until_ready()) if binary else \
                    (lambda: f(a).block_until_ready())
                got = np.asarray(call(), dtype=np.float64)
                want = reference(kind, np.asarray(a), np.asarray(b), np)
                scale = np.maximum(np.abs(want), 1.0)
                err = float(np.max(np.abs(got - want) / scale))
                tol = 1e-5 if dt == "float32" else 1e-12
                if not err <= tol:
                    sys.exit("jax_maps.py: XLA's %s (%s) differs from numpy "
                             "by %.3g: not the same function" % (kind, dt, err))
                med, mn = time_call(call, args.rounds)
                w_med, w_min = rows[kind][2 * i], rows[kind][2 * i + 1]
                x_med, x_min = med * 1e9 / n, mn * 1e9 / n
                cells.append("%8.3f [%6.3f] %8.3f [%6.3f] %7.2f" % (
                    w_min, w_med, x_min, x_med, w_min / x_min))
            print("%-9s %s %s" % (kind, cells[0], cells[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
