#!/usr/bin/env python3
"""What the end-to-end suite covers, checked rather than claimed.

  coverage.py --bin BUILD/bin --src SRC_ROOT

Prints one line per requirement (FileCheck'd by coverage.test):
  - every example of examples/canonical and examples/ops is run by a
    test/e2e/*.test file (so a new example cannot be silently skipped);
  - the examples together use every op kind, every map kind (those the
    numpy evaluator knows), every reduce kind, f32 and f64, a mesh of 2 and
    of 3 axes, and a dimension split over several axes.
Exits 1 if anything is missing.
"""
import argparse
import glob
import json
import re
import os
import subprocess
import sys

# No __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "numpy"))
import weft_numpy  # noqa: E402


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--src", required=True)
    a = p.parse_args(argv[1:])
    examples = sorted(glob.glob(os.path.join(a.src, "examples", "canonical",
                                             "*.mlir")) +
                      glob.glob(os.path.join(a.src, "examples", "ops",
                                             "*.mlir")))
    tests = {}
    for t in glob.glob(os.path.join(a.src, "test", "e2e", "*.test")):
        with open(t) as f:
            tests[os.path.basename(t)] = f.read()
    status = 0
    ops, maps, reduces, dtypes, axes_counts = set(), set(), set(), set(), set()
    multi_axis = False
    uneven = False
    for ex in examples:
        rel = os.path.relpath(ex, a.src)
        runners = sorted(t for t, text in tests.items()
                         if "%weft_src/" + rel in text and "e2e.py" in text)
        if not runners:
            print("NOT RUN: %s (no test/e2e/*.test runs it)" % rel)
            status = 1
        flat = subprocess.run(
            [os.path.join(a.bin, "weft-opt"), ex, "--weft-inline-calls"],
            check=True, stdout=subprocess.PIPE).stdout
        g = json.loads(subprocess.run(
            [os.path.join(a.bin, "weft-translate"), "--weft-to-json"],
            input=flat, check=True, stdout=subprocess.PIPE).stdout)
        sizes = {}
        for mesh in g["meshes"]:
            axes_counts.add(len(mesh["axes"]))
            for ax in mesh["axes"]:
                sizes[ax["name"]] = ax["size"]
        for fn in g["functions"]:
            for t in fn["inputs"] + fn["ops"] + fn["outputs"]:
                dtypes.add(t["dtype"])
                sharding = t.get("sharding", "")
                # a dim split over several axes: {"a", "b"}
                multi_axis |= '", "' in sharding.split("partial")[0]
                # an uneven dimension: its axes do not divide its size
                dims = re.findall(r"\{([^}]*)\}", sharding.split("partial")[0])
                for n, axes in zip(t.get("shape", []), dims):
                    k = 1
                    for ax in re.findall(r'"([^"]+)"', axes):
                        k *= sizes.get(ax, 1)
                    uneven |= n % k != 0
            for op in fn["ops"]:
                ops.add(op["kind"])
                if op["kind"] == "map":
                    maps.add(op["map"])
                if op["kind"] == "reduce":
                    reduces.add(op["reduce"])
    print("examples run end to end: %d" % len(examples))

    def need(what, have, want):
        nonlocal status
        missing = sorted(set(want) - have)
        print("%s: %s" % (what, "all" if not missing else
                          "MISSING " + ", ".join(map(str, missing))))
        status |= 1 if missing else 0

    need("op kinds", ops, ["einsum", "map", "reduce", "embed", "scatter_add",
                           "one_hot", "iota", "random", "cumsum", "top_k",
                           "reshape", "shard"])
    need("map kinds", maps, list(weft_numpy.UNARY) + list(weft_numpy.BINARY))
    need("reduce kinds", reduces, list(weft_numpy.REDUCE))
    need("dtypes", dtypes, ["f32", "f64", "i32"])
    need("mesh ranks", axes_counts, [1, 2, 3])
    need("a dimension split over several axes", {multi_axis}, [True])
    need("a dimension its axes do not divide (padded)", {uneven}, [True])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
