"""The command line the numpy forward-pass references of test/training share
(t2_reference.py, llama_reference.py): the loss of a set of parameters on the
batch the training harness reads at step T.

    NAME.py --params DIR --data DIR --step T [--layers L]

reads DIR/NAME.npy for every parameter and tokens[(T-1) % S],
labels[(T-1) % S] of --data; prints `step T loss L`."""
import argparse
import os
import sys

import numpy as np


def main(doc, prog, names, loss, argv=None):
    """names(layers) -> the parameter names; loss(params, tokens, labels,
    layers) -> float."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--params", required=True, metavar="DIR")
    ap.add_argument("--data", required=True, metavar="DIR")
    ap.add_argument("--step", type=int, required=True, metavar="T")
    ap.add_argument("--layers", type=int, default=2)
    args = ap.parse_args(argv)
    try:
        p = {n: np.load(os.path.join(args.params, n + ".npy")).astype(np.float64)
             for n in names(args.layers)}
        tokens = np.load(os.path.join(args.data, "tokens.npy"))
        labels = np.load(os.path.join(args.data, "labels.npy"))
    except OSError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    i = (args.step - 1) % tokens.shape[0]
    print(f"step {args.step} loss {loss(p, tokens[i], labels[i], args.layers):.9g}")
    return 0
