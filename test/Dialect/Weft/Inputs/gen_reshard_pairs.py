#!/usr/bin/env python3
"""Writes a module with one function per pair of layouts of a rank-3 tensor
on a 2x2x2 mesh: the argument in the first layout, a weft.shard to the
second. Every layout: each axis unused, splitting one of the three dims (in
every order), or partial (sum). Targets may keep partial axes of the source.
Usage: gen_reshard_pairs.py OUT.mlir [--every N]   (every Nth pair only)"""
import itertools
import sys

AXES = ["x", "y", "z"]


def layouts():
    seen = set()
    for assign in itertools.product(range(5), repeat=3):
        groups = {g: [a for a, s in zip(AXES, assign) if s == g] for g in range(5)}
        for p0 in itertools.permutations(groups[0]):
            for p1 in itertools.permutations(groups[1]):
                for p2 in itertools.permutations(groups[2]):
                    seen.add((p0, p1, p2, tuple(groups[3])))
    return sorted(seen)


def reachable(src, dst):
    sp, dp = list(src[3]), list(dst[3])
    return all(a in sp for a in dp) and [a for a in sp if a in dp] == dp


def attr(l):
    dims = ", ".join("{" + ", ".join(f'"{a}"' for a in d) + "}" for d in l[:3])
    s = f"#weft.sharding<@cube, [{dims}]"
    if l[3]:
        s += ", partial = sum {" + ", ".join(f'"{a}"' for a in l[3]) + "}"
    return s + ">"


def main():
    out = sys.argv[1]
    every = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--every" else 1
    all_layouts = layouts()
    pairs = [(s, d) for s in all_layouts for d in all_layouts if reachable(s, d)]
    with open(out, "w") as f:
        f.write('weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]\n')
        for i, (s, d) in enumerate(pairs[::every]):
            ts = f"tensor<8x8x8xf32, {attr(s)}>"
            td = f"tensor<8x8x8xf32, {attr(d)}>"
            f.write(f"func.func @pair{i}(%a: {ts}) -> {td} {{\n"
                    f"  %b = weft.shard %a : {ts} -> {td}\n"
                    f"  return %b : {td}\n}}\n")
    print(f"{len(all_layouts)} layouts, {len(pairs[::every])} pairs")


if __name__ == "__main__":
    main()
