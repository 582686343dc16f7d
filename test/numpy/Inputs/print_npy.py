"""Prints DIR/NAME.npy for each NAME: `NAME shape: v, v, ...` (%.9g)."""
import os
import sys

import numpy as np

d = sys.argv[1]
for name in sys.argv[2:]:
    a = np.load(os.path.join(d, name + ".npy"))
    print("%s %s: %s" % (name, "x".join(map(str, a.shape)),
                         ", ".join("%.9g" % (float(v) + 0.0) for v in a.flat)))
