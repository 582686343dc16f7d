"""Writes the inputs of Inputs/small.mlir into DIR (exact small values)."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
arrays = {
    "x": np.array([[1, 2, 3], [4, 5, 6]], np.float32),
    "w": np.array([[1, 0], [0, 1], [1, 1]], np.float32),
    "b": np.array([10, 20], np.float32),
    "ids": np.array([2, 0], np.int32),
    "table": np.array([[1, 2], [3, 4], [5, 6]], np.float32),
    "u": np.array([-1, 0, 1, 2], np.float64),
    "v": np.array([4, 1, 0.25, 16], np.float64),
}
for name, a in arrays.items():
    np.save(os.path.join(d, name + ".npy"), a)
