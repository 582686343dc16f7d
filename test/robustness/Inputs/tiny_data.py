"""Data of test/training/Inputs/tiny_train.mlir for the robustness tests:
x (3 batches of 8x4), t (8x3), w (4x3 zeros), plus broken variants:
x_nan (a NaN in batch 1), x_f64 (x as float64)."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
r = np.random.default_rng(0)
x = r.standard_normal((3, 8, 4)).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "t.npy"), r.standard_normal((8, 3)).astype(np.float32))
np.save(os.path.join(out, "w.npy"), np.zeros((4, 3), np.float32))
bad = x.copy()
bad[1, 2, 3] = np.nan
np.save(os.path.join(out, "x_nan.npy"), bad)
np.save(os.path.join(out, "x_f64.npy"), x.astype(np.float64))
