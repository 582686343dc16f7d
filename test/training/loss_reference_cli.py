"""The command line the numpy forward-pass references of test/training share
(t2_reference.py, llama_reference.py): the loss of a set of parameters on the
batch the training harness reads at step T.

    NAME.py --params DIR --data DIR --step T [--layers L] [--bf16-mixed]

reads DIR/NAME.npy for every parameter and tokens[(T-1) % S],
labels[(T-1) % S] of --data; prints `step T loss L`.

--bf16-mixed rounds to bf16 where `weftc --precision=bf16-mixed` does
(docs/precision.md): every GEMM (a two-operand einsum of the program) takes
its operands rounded to bf16 and has its result rounded to bf16, and
everything else is computed in f64 as before. The models route their GEMMs
through gemm() and their other rounded values through half()."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from t1_reference import round_bf16  # noqa: E402

# Whether the model rounds as bf16-mixed does (--bf16-mixed).
BF16_MIXED = [False]


def half(a):
    """A as the program stores a GEMM operand or result: rounded to bf16
    under --bf16-mixed (returned in f64), A itself otherwise."""
    return round_bf16(np.asarray(a, dtype=np.float64)) if BF16_MIXED[0] else a


def gemm(spec, a, b):
    """np.einsum(SPEC, A, B), a GEMM of the program: under --bf16-mixed on
    operands rounded to bf16, accumulated in f64, the result rounded to
    bf16. The program accumulates in f32, in its GEMM library's order: a
    result within an f32 rounding of a bf16 midpoint may round the other
    way there (one bf16 ulp of one element), so a loss through many GEMMs
    matches only to the effect of such an ulp (llama-bf16.test)."""
    return half(np.einsum(spec, half(a), half(b)))


def main(doc, prog, names, loss, argv=None):
    """names(layers) -> the parameter names; loss(params, tokens, labels,
    layers) -> float."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--params", required=True, metavar="DIR")
    ap.add_argument("--data", required=True, metavar="DIR")
    ap.add_argument("--step", type=int, required=True, metavar="T")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--bf16-mixed", action="store_true",
                    help="round to bf16 where weftc --precision=bf16-mixed "
                    "does (every GEMM's operands and result)")
    args = ap.parse_args(argv)
    BF16_MIXED[0] = args.bf16_mixed
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
