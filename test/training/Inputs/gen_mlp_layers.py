#!/usr/bin/env python3
"""Writes Inputs/mlp_layers_train.mlir's residual MLP at L layers (its four
calls made L, each with its own weights): the depth sweep of
test/training/outline-layers.test.

Usage: gen_mlp_layers.py L OUT.mlir
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    layers, out = int(sys.argv[1]), sys.argv[2]
    if layers < 1:
        sys.exit("gen_mlp_layers.py: L must be at least 1")
    lines = open(os.path.join(HERE, "mlp_layers_train.mlir")).read().splitlines()
    text = []
    for line in lines:
        if re.search(r"%w[12]_[123]:", line) or re.search(r"%x[234] = func.call", line):
            continue  # layers 1..3: written below from layer 0's lines
        if "%w1_0:" in line:
            w1 = line
            continue
        if "%w2_0:" in line:
            for i in range(layers):
                text += [w1.replace("_0", "_%d" % i), line.replace("_0", "_%d" % i)]
            text[-1] = text[-1].rstrip(",") + ")"
            continue
        if "%x1 = func.call" in line:
            text.append(line)
            for i in range(1, layers):
                call = line.replace("%x1 =", "%%x%d =" % (i + 1))
                call = call.replace("(%x,", "(%%x%d," % i).replace("_0", "_%d" % i)
                call = call.replace(', #weft.sharding<@mesh, [{"data"}, {}]>>', ">")
                text.append(call)
            continue
        text.append(re.sub(r"%x4\b", "%%x%d" % layers, line))
    with open(out, "w") as f:
        f.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
