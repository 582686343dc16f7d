#!/usr/bin/env python3
"""XLA's CPU GEMM rate at the shapes of P1, P6 and P9 (optional; needs jax).

The counterpart of build/runtime/bench/weft-rt-bench-gemm-probe, which times
cblas_sgemm (and a GEMM of our own) on the same shapes: row-major NN
float32 C = A B over 8 different A buffers in turn, here inside one jitted
lax.fori_loop so that no Python dispatch is timed, single-threaded XLA
(--xla_cpu_multi_thread_eigen=false) pinned to one CPU, median of 15
calls. Each iteration's C is summed into the loop's carry so that XLA
cannot drop or shrink the product. docs/performance.md ("A GEMM of our
own") has the comparison. Without jax it prints a message and exits 0.

usage: ENV/bin/python bench/e2e/xla_gemm_rates.py [--cpu C]
"""
import argparse
import os
import sys
import time

SHAPES = [(1024, 256, 256), (1024, 1024, 256), (1024, 256, 1024), (256, 1024, 256),
          (256, 256, 1024)]
BUFFERS, CALLS = 8, 15


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpu", type=int, help="the CPU to pin to (default: the first allowed)")
    a = ap.parse_args()
    cpu = a.cpu if a.cpu is not None else sorted(os.sched_getaffinity(0))[0]
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_cpu_multi_thread_eigen=false").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.sched_setaffinity(0, {cpu})
    try:
        import numpy as np
        import jax
        import jax.numpy as jnp
        from jax import lax
    except ImportError:
        print("JAX not installed: skipped (pip install jax)")
        return 0
    print(f"jax {jax.__version__}, pinned to CPU {cpu}, {BUFFERS} A buffers per call, "
          f"median of {CALLS} calls")
    print(f"{'m x n x k':22s} {'xla GF/s':>10s} {'ms per GEMM':>12s}")
    rng = np.random.default_rng(0)
    for m, n, k in SHAPES:
        A = jnp.asarray(rng.standard_normal((BUFFERS, m, k), dtype=np.float32) * 0.01)
        B = jnp.asarray(rng.standard_normal((k, n), dtype=np.float32) * 0.01)

        def f(A, B):
            def body(i, acc):
                return acc + jnp.sum(A[i] @ B)
            return lax.fori_loop(0, BUFFERS, body, jnp.float32(0))

        g = jax.jit(f)
        g(A, B).block_until_ready()
        ts = []
        for _ in range(CALLS):
            t = time.perf_counter()
            g(A, B).block_until_ready()
            ts.append((time.perf_counter() - t) / BUFFERS)
        t = sorted(ts)[CALLS // 2]
        print(f"{f'{m} x {n} x {k}':22s} {2 * m * n * k / t / 1e9:10.1f} {t * 1e3:12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
