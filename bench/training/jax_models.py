"""The training examples written in jax.numpy, for the benchmarks that time
Weft against JAX on the same work (bench/training/jax_step.py on CPU,
bench/gpu/jax_train.py on a GPU). Written from the models' descriptions
(the numpy references under test/training/), not from Weft's output.

Every GEMM goes through `mm(spec, a, b)`, so one model serves both
precisions: `f32_mm` is a plain einsum; `bf16_mm` is the bf16-mixed policy
of docs/precision.md (operands rounded to bf16, the product in bf16 with
f32 accumulation, its result widened back to f32), so maps, reductions
and the loss stay f32 as in Weft's `--precision=bf16-mixed`.
"""

ADAMW = dict(b1=0.9, b2=0.999, eps=1e-8, wd=0.01)  # docs/training.md defaults


def f32_mm(jnp):
    return jnp.einsum


def bf16_mm(jnp):
    def mm(spec, a, b):
        return jnp.einsum(spec, a.astype(jnp.bfloat16),
                          b.astype(jnp.bfloat16)).astype(jnp.float32)
    return mm


def t1_loss(jnp, p, batch, mm=None):
    mm = mm or jnp.einsum
    x = batch["x"]
    f = jnp.maximum(mm("bi,ij->bj", x, p["W_enc"]) + p["b_enc"], 0)
    r = mm("bj,ji->bi", f, p["W_dec"]) + p["b_dec"] - x
    return jnp.mean(r * r) + 1e-3 * jnp.mean(jnp.abs(f))


def t2_loss(jnp, p, batch, layers=2, mm=None):
    mm = mm or jnp.einsum
    tokens, labels = batch["tokens"], batch["labels"]
    t = tokens.shape[1]

    def rms(x):
        return x * jnp.reciprocal(jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5))

    def gelu(x):
        c = float((2 / 3.141592653589793) ** 0.5)
        return 0.5 * x * (1 + jnp.tanh(c * (x + 0.044715 * x * x * x)))

    x = p["E"][tokens] + p["P"][None]
    pos = jnp.arange(t, dtype=jnp.float32)
    mask = jnp.where(pos[:, None] >= pos[None, :], 0.0, -1e9).astype(jnp.float32)
    for l in range(layers):
        xa = rms(x)
        q = mm("btd,dhk->bhtk", xa, p[f"Wq_{l}"])
        k = mm("bsd,dhk->bhsk", xa, p[f"Wk_{l}"])
        v = mm("bsd,dhk->bhsk", xa, p[f"Wv_{l}"])
        s = mm("bhtk,bhsk->bhts", q, k) * (1.0 / q.shape[-1] ** 0.5) + mask
        s = jnp.exp(s - jnp.max(s, -1, keepdims=True))
        s = s / jnp.sum(s, -1, keepdims=True)
        o = mm("bhts,bhsk->bhtk", s, v)
        x = x + mm("bhtk,hkd->btd", o, p[f"Wo_{l}"])
        x = x + mm("btf,fd->btd", gelu(mm("btd,df->btf", rms(x), p[f"W1_{l}"])),
                   p[f"W2_{l}"])
    logits = mm("btd,dv->btv", rms(x), p["Wout"])
    z = logits - jnp.max(logits, -1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(z), -1))
    target = jnp.take_along_axis(z, labels[..., None], -1)[..., 0]
    return jnp.mean(lse - target)


def llama_loss(jnp, p, batch, layers=2, mm=None):
    """test/training/llama_reference.py's model: pre-norm blocks, RMSNorm
    with a learned gain (eps 1e-5), rotary on adjacent pairs, causal
    softmax attention, SwiGLU, next-token cross-entropy."""
    mm = mm or jnp.einsum
    tokens, labels = batch["tokens"], batch["labels"]
    t = tokens.shape[1]

    def rms(x, g):
        return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5) * g

    def rotary(q):
        k = q.shape[3]
        theta = (jnp.arange(t, dtype=jnp.float32)[:, None] *
                 10000.0 ** (-jnp.arange(0, k, 2, dtype=jnp.float32) / k))
        c = jnp.cos(theta)[None, :, None, :]
        s = jnp.sin(theta)[None, :, None, :]
        even, odd = q[..., 0::2], q[..., 1::2]
        return jnp.stack([even * c - odd * s, even * s + odd * c],
                         axis=-1).reshape(q.shape)

    x = p["E"][tokens]
    pos = jnp.arange(t)
    mask = jnp.where(pos[:, None] >= pos[None, :], 0.0, -1e9).astype(jnp.float32)
    for l in range(layers):
        xa = rms(x, p[f"g1_{l}"])
        wq, wk = p[f"wq_{l}"], p[f"wk_{l}"]
        d, h = wq.shape[0], wq.shape[1]
        q = rotary(mm("btd,dhk->bthk", xa, wq.reshape(d, h, -1)))
        k = rotary(mm("btd,dhk->bthk", xa, wk.reshape(d, h, -1)))
        v = mm("btd,dhe->bthe", xa, p[f"wv_{l}"])
        s = mm("bthk,bshk->bhts", q, k) / float(q.shape[-1]) ** 0.5 + mask
        s = jnp.exp(s - jnp.max(s, -1, keepdims=True))
        s = s / jnp.sum(s, -1, keepdims=True)
        o = mm("bhts,bshe->bthe", s, v)
        x = x + mm("bthe,hed->btd", o, p[f"wo_{l}"])
        xm = rms(x, p[f"g2_{l}"])
        a = mm("btd,df->btf", xm, p[f"w1_{l}"])
        gate = a / (1 + jnp.exp(-a)) * mm("btd,df->btf", xm, p[f"w3_{l}"])
        x = x + mm("btf,fd->btd", gate, p[f"w2_{l}"])
    logits = mm("btd,dv->btv", rms(x, p["gf"]), p["Wout"])
    m = jnp.max(logits, -1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(logits - m), -1)) + m[..., 0]
    target = jnp.take_along_axis(logits, labels[..., None], -1)[..., 0]
    return jnp.mean(lse - target)


def make_step(jax, jnp, loss_fn, lr, out_shardings=None):
    """One jit'd AdamW step as docs/training.md states it: returns
    (loss, params, m, v); params, m and v are donated."""
    b1, b2, eps, wd = ADAMW["b1"], ADAMW["b2"], ADAMW["eps"], ADAMW["wd"]

    def step(params, m, v, batch, t):
        loss, g = jax.value_and_grad(lambda p: loss_fn(jnp, p, batch))(params)
        bc1 = 1.0 - jnp.power(jnp.float32(b1), t)
        bc2_sqrt = jnp.sqrt(1.0 - jnp.power(jnp.float32(b2), t))
        step_size = lr / bc1
        new_p, new_m, new_v = {}, {}, {}
        for n in params:
            p = params[n] * jnp.float32(1.0 - lr * wd)
            mn = b1 * m[n] + (1.0 - b1) * g[n]
            vn = b2 * v[n] + (1.0 - b2) * (g[n] * g[n])
            new_p[n] = p - step_size * (mn / (jnp.sqrt(vn) / bc2_sqrt + eps))
            new_m[n], new_v[n] = mn, vn
        return loss, new_p, new_m, new_v

    if out_shardings is None:
        return jax.jit(step, donate_argnums=(0, 1, 2))
    return jax.jit(step, donate_argnums=(0, 1, 2), out_shardings=out_shardings)
