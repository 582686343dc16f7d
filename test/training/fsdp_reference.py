"""numpy trainer of examples/training/fsdp_mlp.mlir (plain SGD), for
test/training/fsdp-mlp.test.

Writes the data (x, y [2, 16, 32]: step t reads batch (t-1) mod 2; W1..W4
[32, 32]) with --out DIR, or trains on it with --data DIR --steps N
[--save OUT], printing `step t loss L` (the loss before the step's update)
per step. Float64, gradients derived by hand (no Weft code).
"""
import os

import numpy as np

import reference_cli

B, D, LAYERS, LR = 16, 32, 4, 5.0
C = 1 / np.sqrt(D)


def write_data(out):
    rng = np.random.default_rng(13)
    os.makedirs(out, exist_ok=True)
    arrays = {"x": rng.standard_normal((2, B, D)),
              "y": 0.5 * rng.standard_normal((2, B, D))}
    for i in range(1, LAYERS + 1):
        arrays["W%d" % i] = rng.standard_normal((D, D))
    for name, a in arrays.items():
        np.save(os.path.join(out, name + ".npy"), a.astype(np.float32))


def train(data, steps, save):
    load = lambda n: np.load(os.path.join(data, n + ".npy")).astype(np.float64)
    xs, ys = load("x"), load("y")
    W = [load("W%d" % i) for i in range(1, LAYERS + 1)]
    for t in range(1, steps + 1):
        x, y = xs[(t - 1) % len(xs)], ys[(t - 1) % len(ys)]
        hs, ps = [x], []
        for i in range(LAYERS):
            p = C * (hs[-1] @ W[i])
            ps.append(p)
            hs.append(np.maximum(p, 0) if i + 1 < LAYERS else p)
        e = hs[-1] - y
        print("step %d loss %.9g" % (t, np.sum(e * e) / (B * D)), flush=True)
        dp = 2 * e / (B * D)
        grads = [None] * LAYERS
        for i in reversed(range(LAYERS)):
            dm = C * dp
            grads[i] = hs[i].T @ dm
            if i > 0:
                dp = (dm @ W[i].T) * (ps[i - 1] > 0)
        for i in range(LAYERS):
            W[i] -= LR * grads[i]
    if save:
        os.makedirs(save, exist_ok=True)
        for i in range(LAYERS):
            np.save(os.path.join(save, "W%d.npy" % (i + 1)), W[i])


def main():
    p = reference_cli.parser(__doc__)
    reference_cli.run(p, write_data,
                      lambda a: train(a.data, a.steps, a.save))


if __name__ == "__main__":
    main()
