"""Runs a compiled training program under mpirun with every .npy file of a
directory as an input (--input NAME=DIR/NAME.npy), the rest of the command
line passed on; its output goes to LOG. The mpirun command and the runner
are train_example.py's.

  run_inputs.py NP EXE DIR LOG [ARGS...]
"""
import os
import sys

from train_example import MPIRUN, Failure, run


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    n, exe, data, log = sys.argv[1:5]
    inputs = []
    for f in sorted(os.listdir(data)):
        if f.endswith(".npy"):
            inputs += ["--input", "%s=%s" % (f[:-4], os.path.join(data, f))]
    try:
        run(MPIRUN + ["-np", n, exe] + inputs + sys.argv[5:], log)
    except Failure as e:
        sys.exit("run_inputs.py: %s" % e)


if __name__ == "__main__":
    main()
