"""P1, the Megatron MLP (examples/canonical/p1.mlir), written in Python.

mesh model=4; x replicated; w1[d, f] and w2[f, d] split f on model; y
replicated: one all-reduce of y over model.

  PYTHONPATH=python python3 examples/python/mlp.py            # print the MLIR
  PYTHONPATH=python WEFT_BIN=build/bin python3 examples/python/mlp.py \
      --compile /tmp/mlp                                      # weftc it
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import weft  # noqa: E402
from weft import P  # noqa: E402

mesh = weft.Mesh({"model": 4})


def mlp(x, w1, w2):
    h = weft.einsum("btd,df->btf", x, w1)
    a = weft.relu(h)
    return weft.einsum("btf,fd->btd", a, w2)


def build():
    return weft.trace(mlp, mesh, [
        weft.Input("x", (4, 64, 256), spec=P(None, None, None)),
        weft.Param("w1", (256, 1024), spec=P(None, "model")),
        weft.Param("w2", (1024, 256), spec=P("model", None)),
    ], out_specs=P(None, None, None))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", metavar="EXE",
                        help="compile with weftc to this executable")
    args = parser.parse_args()
    program = build()
    if args.compile:
        print(program.compile(args.compile))
    else:
        print(program.mlir, end="")


if __name__ == "__main__":
    main()
