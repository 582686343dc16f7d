"""Converts per-layer weights to weft-stage-calls' stacked ones and back.

weftc --pipeline-stages=N turns the weights of K layer calls (NAME_0 ..
NAME_<K-1>, one .npy each) into K/N arguments per weight kind, stacked over
the stages: "NAME_<k>.stages" holds layers k, K/N + k, 2K/N + k, ... (stage
s's k-th layer is layer s*K/N + k; docs/pipeline.md, "Stages from layer
calls"). Independent of the compiler: numpy only.

  stack_stages.py --stack SRC DST --kinds Wq,Wk --layers 4 --stages 2
      copies every .npy of SRC to DST, replacing NAME_<i> by the stacked
      arrays
  stack_stages.py --unstack SRC DST ...
      the inverse: DST gets NAME_<i>.npy from SRC's NAME_<k>.stages.npy
      (and every other .npy as it is)
"""
import argparse
import os
import shutil
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stack", action="store_true")
    mode.add_argument("--unstack", action="store_true")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--kinds", required=True,
                    help="weight name prefixes, comma-separated")
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--stages", type=int, required=True)
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    per = args.layers // args.stages
    if per * args.stages != args.layers:
        sys.exit("stack_stages.py: %d layers do not divide into %d stages" %
                 (args.layers, args.stages))
    os.makedirs(args.dst, exist_ok=True)
    layer_names = {"%s_%d" % (kd, i) for kd in kinds
                   for i in range(args.layers)}
    stacked_names = {"%s_%d.stages" % (kd, k) for kd in kinds
                     for k in range(per)}
    skip = layer_names if args.stack else stacked_names
    for f in sorted(os.listdir(args.src)):
        if f.endswith(".npy") and f[:-4] not in skip:
            shutil.copy(os.path.join(args.src, f), os.path.join(args.dst, f))
    count = 0
    for kd in kinds:
        for k in range(per):
            stacked = os.path.join(args.src if args.unstack else args.dst,
                                   "%s_%d.stages.npy" % (kd, k))
            layers = [os.path.join(args.dst if args.unstack else args.src,
                                   "%s_%d.npy" % (kd, s * per + k))
                      for s in range(args.stages)]
            if args.stack:
                np.save(stacked, np.stack([np.load(p) for p in layers]))
            else:
                a = np.load(stacked)
                if a.shape[0] != args.stages:
                    sys.exit("stack_stages.py: %s has %d stages, not %d" %
                             (stacked, a.shape[0], args.stages))
                for s, p in enumerate(layers):
                    np.save(p, a[s])
            count += 1
    print("%s: %d stacked weight(s) of %d layer(s) over %d stage(s)" %
          ("stacked" if args.stack else "unstacked", count, args.layers,
           args.stages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
