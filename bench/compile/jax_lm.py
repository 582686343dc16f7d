#!/usr/bin/env python3
"""T2's language model at L layers in JAX (the compile-time peer of gen_lm.py).

The same model as bench/compile/gen_lm.py: d=128, 4 heads of 32, f=512,
vocabulary 512, sequence 64, batch 8, pre-norm blocks with a gain-free
RMSNorm, learned positions, a causal mask, GELU MLP, mean cross-entropy; an
AdamW step written out (no optax). Sharded like the Weft program on a
data=2 x model=2 mesh of 4 host devices (TP + DP; XLA picks the rest).

compile_seconds(L) returns the wall time of
jax.jit(step).lower(...).compile(); the module raises ImportError when JAX
is missing (the caller skips with a message).
"""
import os
import time

import numpy as np

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
import jax  # noqa: E402  (ImportError: the benchmark skips JAX)
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

B, T, D, H, K, F, V = 8, 64, 128, 4, 32, 512, 512


def specs(layers):
    s = {"E": P("model", None), "P": P("model", None), "Wout": P(None, "model")}
    for i in range(layers):
        s[f"Wq_{i}"] = s[f"Wk_{i}"] = s[f"Wv_{i}"] = P(None, "model", None)
        s[f"Wo_{i}"] = P("model", None, None)
        s[f"W1_{i}"] = P(None, "model")
        s[f"W2_{i}"] = P("model", None)
    return s


def shapes(layers):
    s = {"E": (V, D), "P": (T, D), "Wout": (D, V)}
    for i in range(layers):
        s[f"Wq_{i}"] = s[f"Wk_{i}"] = s[f"Wv_{i}"] = (D, H, K)
        s[f"Wo_{i}"] = (H, K, D)
        s[f"W1_{i}"] = (D, F)
        s[f"W2_{i}"] = (F, D)
    return s


def rms(x):
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5)


def loss_fn(p, tokens, labels, layers):
    x = p["E"][tokens] + p["P"][None]
    mask = jnp.where(jnp.arange(T)[:, None] >= jnp.arange(T)[None, :], 0.0, -1e9)
    for i in range(layers):
        h = rms(x)
        q = jnp.einsum("btd,dhk->bhtk", h, p[f"Wq_{i}"])
        k = jnp.einsum("bsd,dhk->bhsk", h, p[f"Wk_{i}"])
        v = jnp.einsum("bsd,dhk->bhsk", h, p[f"Wv_{i}"])
        s = jnp.einsum("bhtk,bhsk->bhts", q, k) * (K ** -0.5) + mask
        a = jax.nn.softmax(s, axis=-1)
        x = x + jnp.einsum("bhts,bhsk,hkd->btd", a, v, p[f"Wo_{i}"])
        h = rms(x)
        x = x + jax.nn.gelu(h @ p[f"W1_{i}"]) @ p[f"W2_{i}"]
    logits = rms(x) @ p["Wout"]
    lse = jax.nn.logsumexp(logits, axis=-1)
    target = jnp.take_along_axis(logits, labels[..., None], axis=-1)[..., 0]
    return jnp.mean(lse - target)


def make_step(layers, lr=3e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.01):
    def step(p, m, v, t, tokens, labels):
        loss, g = jax.value_and_grad(loss_fn)(p, tokens, labels, layers)
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = jax.tree.map(lambda p, m, v: p - lr * (m / c1 / (jnp.sqrt(v / c2) + eps) + wd * p), p, m, v)
        return loss, p, m, v
    return step


def compile_seconds(layers):
    devices = jax.devices()
    if len(devices) < 4:
        raise RuntimeError(f"JAX sees {len(devices)} devices, needs 4 (XLA_FLAGS)")
    mesh = Mesh(np.array(devices[:4]).reshape(2, 2), ("data", "model"))
    sp, sh = specs(layers), shapes(layers)
    pshard = {n: NamedSharding(mesh, s) for n, s in sp.items()}
    params = {n: jax.ShapeDtypeStruct(sh[n], jnp.float32, sharding=pshard[n]) for n in sh}
    batch = jax.ShapeDtypeStruct((B, T), jnp.int32, sharding=NamedSharding(mesh, P("data", None)))
    scalar = jax.ShapeDtypeStruct((), jnp.float32, sharding=NamedSharding(mesh, P()))
    step = jax.jit(make_step(layers), donate_argnums=(0, 1, 2))
    start = time.perf_counter()
    step.lower(params, params, params, scalar, batch, batch).compile()
    return time.perf_counter() - start


if __name__ == "__main__":
    import sys
    for n in map(int, sys.argv[1:] or ["2"]):
        print(f"L={n}: jax.jit(step).lower().compile() {compile_seconds(n):.2f} s")
