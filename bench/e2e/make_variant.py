#!/usr/bin/env python3
"""Writes a variant of a canonical Weft program (examples/canonical/*.mlir)
for bench/e2e, keeping every annotation:

  --batch-scale S   multiply the batch size b (the leading dim of every
                    activation, written `tensor<4x...`) by S. The weights
                    ([d,f], [f,d], [d,h,k], [h,k,d]) have no batch dim and
                    do not start with 4, so they keep their shapes; FLOPs
                    and activation bytes grow exactly S times.
  --mesh AXIS=SIZE  resize a mesh axis (until weftc has its own --mesh).

usage: make_variant.py IN.mlir OUT.mlir [--batch-scale S] [--mesh AXIS=SIZE ...]
"""
import argparse
import re
import sys


def make_variant(text, batch_scale=1, mesh=()):
    if batch_scale != 1:
        # Every activation of P1/P6/P9 is tensor<4x...> with b=4 leading.
        n = len(re.findall(r"tensor<4x", text))
        if n == 0:
            raise ValueError("no tensor<4x...> (batch b=4) types to scale")
        text = re.sub(r"tensor<4x", f"tensor<{4 * batch_scale}x", text)
    for spec in mesh:
        axis, size = spec.split("=")
        pat = re.compile(r'("' + re.escape(axis) + r'"\s*=\s*)\d+')
        if not pat.search(text):
            raise ValueError(f"no mesh axis {axis!r}")
        text = pat.sub(lambda m: m.group(1) + size, text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--batch-scale", type=int, default=1)
    ap.add_argument("--mesh", action="append", default=[])
    a = ap.parse_args()
    with open(a.input) as f:
        text = f.read()
    try:
        out = make_variant(text, a.batch_scale, a.mesh)
    except ValueError as e:
        sys.exit(f"make_variant.py: {a.input}: {e}")
    with open(a.output, "w") as f:
        f.write(out)


if __name__ == "__main__":
    main()
