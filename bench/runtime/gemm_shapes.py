#!/usr/bin/env python3
"""Writes the GEMM plans of P1, P6, P9 (b=4 and b=16), T2's training
step (unsharded, 1 rank) and T1's (1 rank, and 2 ranks as T1r2) as weftc
plans them, one line per distinct plan,
for weft-rt-bench-gemm-libs:

    python3 bench/runtime/gemm_shapes.py --bin build/bin > bench/runtime/gemm-shapes.txt

Columns: label m n k transA transB lda ldb ldc strideA strideB strideC
batch outerBatch outerStrideA outerStrideB outerStrideC (bench/e2e/run.py's
gemm_plans). The label is program-spec; a plan used several times in a
step is listed once."""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "e2e"))
from make_variant import make_variant  # noqa: E402
from run import gemm_plans  # noqa: E402


def plans_of(weftc, src_text, flags, work, tag, where=("--unsharded",)):
    mlir = os.path.join(work, tag + ".mlir")
    with open(mlir, "w") as f:
        f.write(src_text)
    cpp = os.path.join(work, tag + ".cpp")
    # Epilogues unfused: gemm_plans reads plain einsum plans only, and a
    # fused einsum's GEMM plan is the same.
    subprocess.run([weftc, mlir] + list(where) + ["--fuse-epilogues=false"] +
                   flags +
                   ["-o", os.path.join(work, tag), "--save-cpp", cpp],
                   check=True)
    return gemm_plans(open(cpp).read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory of weftc")
    a = ap.parse_args()
    weftc = os.path.join(a.bin, "weftc")
    print("# label m n k transA transB lda ldb ldc strideA strideB strideC "
          "batch outerBatch outerStrideA outerStrideB outerStrideC")
    print("# made by bench/runtime/gemm_shapes.py from weftc --unsharded")
    with tempfile.TemporaryDirectory() as work:
        cases = []
        for prog in ("p1", "p6", "p9"):
            src = open(os.path.join(ROOT, "examples", "canonical",
                                    prog + ".mlir")).read()
            for scale in (1, 4):
                tag = f"{prog.upper()}b{4 * scale}"
                cases.append((tag, plans_of(weftc, make_variant(src, scale),
                                            [], work, tag)))
        t2 = open(os.path.join(ROOT, "examples", "training",
                               "t2_lm.mlir")).read()
        cases.append(("T2", plans_of(weftc, t2,
                                     ["--train=adamw", "--lr", "3e-3"],
                                     work, "t2")))
        # T1 on 1 rank and on 2 (data=2, as bench/training/jax_step.py
        # --ranks 2 runs it): its weight gradients read op(A) transposed.
        t1 = open(os.path.join(ROOT, "examples", "training",
                               "t1_sae.mlir")).read()
        train = ["--train=adamw", "--lr", "1e-3"]
        cases.append(("T1", plans_of(weftc, t1, train, work, "t1")))
        cases.append(("T1r2", plans_of(weftc, t1, train, work, "t1r2",
                                       ("--mesh", "data=2,model=1"))))
        for tag, plans in cases:
            seen = set()
            for p in plans:
                spec, rest = p.split(" ", 1)
                if rest in seen:
                    continue
                seen.add(rest)
                print(f"{tag}:{spec} {rest}")


if __name__ == "__main__":
    main()
