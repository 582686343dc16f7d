"""The command line the Python training examples share: print the program's
MLIR, or (`--train DIR`) write the data with the example's generator under
examples/training/, compile with `weftc --train=adamw`, train on the mesh's
ranks through weft.Executable.train (a progress bar) and print the losses.
"""

import argparse
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(doc, build, name, data_script, steps, lr):
    """`build()` gives the weft.Program; `data_script` (a file name under
    examples/training/) writes every input as DIR/NAME.npy given --out DIR."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--train", metavar="DIR",
                        help="compile (--train=adamw) and train in DIR on "
                        "%s's data" % data_script)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--lr", type=float, default=lr)
    args = parser.parse_args()
    program = build()
    if not args.train:
        print(program.mlir, end="")
        return
    data = os.path.join(args.train, "data")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "training",
                                                 data_script), "--out",
                    data], check=True)
    exe = program.build(os.path.join(args.train, name), train="adamw",
                        lr=args.lr)
    result = exe.train(args.steps, lr=args.lr, inputs={
        os.path.basename(f)[:-4]: f
        for f in glob.glob(os.path.join(data, "*.npy"))})
    for step, loss in zip(result.steps, result.losses):
        print("step %d loss %.6f" % (step, loss))
