"""numpy trainer of examples/training/pipeline_mlp.mlir (plain SGD,
bench/pipeline/make_pipeline_mlp.py's model without the pipeline), for
test/training/pipeline-mlp.test.

  h_0 = x, h_i = relu(c h_{i-1} W_i) (i = 1..L), c = 1/sqrt(d),
  loss = sum((h_L - y)^2) / (B d) over all B = m * b rows of the step.

Layer s*(L/S) + k - 1 is W_k[s] (weights stacked along a stage dimension);
--stages S and --layers L (default 4 and 4, the example's) pick the
stacking (pipeline-tp.test: S = 2, L = 4, two layers per stage).
Writes the data (x, y [2, m, b, d]: step t reads batch (t-1) mod 2; W_k
[S, d, d]) with --out DIR, or trains on it with --data DIR --steps N
[--save OUT], printing `step t loss L` (the loss before the step's update).
Float64, gradients derived by hand, the whole batch at once (no
micro-batches, no Weft code).
"""
import os

import numpy as np

import reference_cli

S, L, M, B, D = 4, 4, 4, 4, 32
PER = L // S
C = 1 / np.sqrt(D)


def write_data(out):
    rng = np.random.default_rng(33)
    os.makedirs(out, exist_ok=True)
    arrays = {"x": rng.standard_normal((2, M, B, D)),
              "y": 0.5 * rng.standard_normal((2, M, B, D))}
    for k in range(1, PER + 1):
        arrays["W%d" % k] = 1.5 * rng.standard_normal((S, D, D))
    for name, a in arrays.items():
        np.save(os.path.join(out, name + ".npy"), a.astype(np.float32))


def layers(Ws):
    """The L layers' weights in order (views into the stacked arrays)."""
    return [Ws[k][s] for s in range(S) for k in range(PER)]


def train(data, steps, lr, save):
    load = lambda n: np.load(os.path.join(data, n + ".npy")).astype(np.float64)
    xs, ys = load("x"), load("y")
    Ws = [load("W%d" % k) for k in range(1, PER + 1)]
    n = M * B
    for t in range(1, steps + 1):
        x = xs[(t - 1) % len(xs)].reshape(n, D)
        y = ys[(t - 1) % len(ys)].reshape(n, D)
        W = layers(Ws)
        hs, ps = [x], []
        for i in range(L):
            p = C * (hs[-1] @ W[i])
            ps.append(p)
            hs.append(np.maximum(p, 0))
        e = hs[-1] - y
        print("step %d loss %.9g" % (t, np.sum(e * e) / (n * D)), flush=True)
        dh = 2 * e / (n * D)
        grads = [None] * L
        for i in reversed(range(L)):
            dm = C * dh * (ps[i] > 0)
            grads[i] = hs[i].T @ dm
            dh = dm @ W[i].T
        for i in range(L):
            W[i] -= lr * grads[i]  # in place: W[i] views Ws
    if save:
        os.makedirs(save, exist_ok=True)
        for k in range(PER):
            np.save(os.path.join(save, "W%d.npy" % (k + 1)), Ws[k])


def main():
    global S, L, PER
    p = reference_cli.parser(__doc__)
    p.add_argument("--lr", type=float, default=1.0)
    p.add_argument("--stages", type=int, default=S)
    p.add_argument("--layers", type=int, default=L)
    a, _ = p.parse_known_args()
    if a.layers % a.stages:
        p.error("--layers must be a multiple of --stages")
    S, L, PER = a.stages, a.layers, a.layers // a.stages
    reference_cli.run(p, write_data,
                      lambda a: train(a.data, a.steps, a.lr, a.save))


if __name__ == "__main__":
    main()
