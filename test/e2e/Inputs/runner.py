"""Shared by the e2e scripts beside it: how they launch ranks and run a
stage (a failed stage ends the script with its command and output)."""
import subprocess
import sys

MPIRUN = ["timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe",
          "--mca", "pml", "ob1"]


def run(cmd, tool, env=None):
    """Runs `cmd`, returns its stdout and stderr; exits naming `tool` on a
    non-zero status."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    if p.returncode != 0:
        sys.exit("%s: failed (exit %d): %s\n%s" % (
            tool, p.returncode, " ".join(cmd), p.stdout))
    return p.stdout
