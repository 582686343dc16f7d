"""numpy reference of numpy-reference.mlir's @block.

Usage: numpy_block.py DIR. DIR holds the inputs arg0..arg4.npy and the
interpreter's results result0..result3.npy; prints one verdict per result.
"""
import sys

import numpy as np

d = sys.argv[1]
x, w, g, ids, table = (np.load(f"{d}/arg{i}.npy").astype(np.float64)
                       if i != 3 else np.load(f"{d}/arg{i}.npy")
                       for i in range(5))
e = table[ids]                                    # embed bt,vd->btd
h0 = x + e
r = 1.0 / np.sqrt((h0 * h0).sum(-1) / 4.0 + 1e-5)  # rmsnorm over d
n = h0 * r[..., None] * g
h = np.einsum("btd,df->btf", n, w)
gelu = 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (h + 0.044715 * h**3)))
silu = h / (1.0 + np.exp(-h))
ex = np.exp(h - h.max(-1, keepdims=True))
p = ex / ex.sum(-1, keepdims=True)                # softmax over f
mix = np.minimum(np.maximum(np.tanh(gelu), silu), np.log(p) - 0.5)
expected = [p, gelu, silu, mix.min(axis=1)]

ok = True
for i, want in enumerate(expected):
    got = np.load(f"{d}/result{i}.npy")
    good = got.shape == want.shape and np.allclose(got, want, rtol=1e-12,
                                                    atol=1e-14)
    ok &= good
    print(f"numpy result {i}: {'match' if good else 'MISMATCH'} {want.shape}")
print("numpy: all match" if ok else "numpy: MISMATCH")
sys.exit(0 if ok else 1)
