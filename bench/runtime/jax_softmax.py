#!/usr/bin/env python3
"""XLA's softmax over the rows weft-rt-bench-fused-rows times: ns per
element, to set beside that benchmark's "fused ns/el" column.

  jax_softmax.py [--cpu 1] [--rounds 41]

The rows are P9's at b=16, [16, 8, 64] x 64, three ways, as the benchmark
draws them (uniform, not its generator's exact values: the kernels' time
does not depend on the values within a class):
  - logits uniform in [-2, 2];
  - the same under a causal mask (-inf where column > row);
  - logits uniform in [-100, 100] (exps and quotients below the normal
    range).
softmax(x) = exp(x - max) / sum(exp(x - max)) over the last axis, in
jax.numpy, jax.jit'd, float32, XLA_FLAGS "--xla_cpu_multi_thread_eigen=
false" and the process pinned to one CPU before jax is imported. Each
case: 20 warm-up calls, then the median of --rounds calls (each to
block_until_ready), divided by the element count. Before timing, each
result is checked against numpy's float64 softmax of the same input.

Optional: without jax it prints a message and exits 0. Not a test; the
figures go to docs/performance.md.
"""
import argparse
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=41)
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error("--rounds must be >= 1")
    os.sched_setaffinity(0, {a.cpu})
    os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false"
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError as e:
        print(f"jax_softmax.py: skipped, jax is not installed ({e})")
        return 0

    def softmax(x):
        m = jnp.max(x, axis=-1, keepdims=True)
        e = jnp.exp(x - m)
        return e / jnp.sum(e, axis=-1, keepdims=True)

    f = jax.jit(softmax)
    rng = np.random.default_rng(7)
    shape = (16, 8, 64, 64)
    causal = np.triu(np.ones((64, 64), bool), 1)
    cases = [
        ("softmax [16,8,64] x 64 (P9 b=16)", rng.uniform(-2, 2, shape)),
        ("softmax [16,8,64] x 64 causal",
         np.where(causal, -np.inf, rng.uniform(-2, 2, shape))),
        ("softmax [16,8,64] x 64 in +-100", rng.uniform(-100, 100, shape)),
    ]
    print(f"jax {jax.__version__}, pinned to CPU {a.cpu}, single-threaded XLA")
    print(f"{'rows':<36} {'xla ns/el':>10} {'ms per call':>12}")
    for name, x64 in cases:
        x = x64.astype(np.float32)
        want = np.exp(x64 - x64.max(-1, keepdims=True))
        want /= want.sum(-1, keepdims=True)
        xd = jax.device_put(x)
        got = np.asarray(f(xd))
        err = np.max(np.abs(got - want))
        if not err <= 1e-5:
            print(f"{name}: XLA's softmax differs from numpy's by {err}")
            return 1
        for _ in range(20):
            f(xd).block_until_ready()
        ts = []
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            f(xd).block_until_ready()
            ts.append(time.perf_counter() - t0)
        t = statistics.median(ts)
        print(f"{name:<36} {t / x.size * 1e9:>10.3f} {t * 1e3:>12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
