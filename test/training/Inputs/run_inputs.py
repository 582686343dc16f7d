"""Runs a compiled training program under mpirun with every .npy file of a
directory as an input (--input NAME=DIR/NAME.npy), the rest of the command
line passed on; its output goes to LOG.

  run_inputs.py NP EXE DIR LOG [ARGS...]
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    n, exe, data, log = sys.argv[1:5]
    inputs = []
    for f in sorted(os.listdir(data)):
        if f.endswith(".npy"):
            inputs += ["--input", "%s=%s" % (f[:-4], os.path.join(data, f))]
    cmd = ["timeout", "300", "mpirun", "--allow-run-as-root",
           "--oversubscribe", "--mca", "pml", "ob1", "-np", n, exe] + \
        inputs + sys.argv[5:]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with open(log, "w") as out:
        rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT,
                            env=env).returncode
    if rc != 0:
        with open(log) as f:
            sys.stderr.write(f.read()[-4000:])
        sys.exit("run_inputs.py: %s exited with %d" % (" ".join(cmd[:9]), rc))


if __name__ == "__main__":
    main()
