#!/usr/bin/env python3
"""A rank killed while collectives are in flight ends the whole job.

  fault_kill.py EXE --np N [--limit SECONDS] [-- EXE_ARGS...]

Starts `mpirun -np N EXE EXE_ARGS` (a long training run), waits until it
printed its second step, then kills one rank (SIGKILL: no handler runs, as
when a node dies) and waits for mpirun. Prints
  `killed rank pid P; job ended in T s with exit status S`
and `ok` when every rank is gone, the exit status is non-zero and T is
under --limit; `FAULT: ...` and exit 1 otherwise (a hang is killed at the
limit).
"""
import argparse
import os
import signal
import subprocess
import sys
import time


def children_running(exe):
    """PIDs of processes running `exe` (the ranks)."""
    pids = []
    real = os.path.realpath(exe)
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if os.path.realpath("/proc/%s/exe" % d) == real:
                pids.append(int(d))
        except OSError:
            pass
    return sorted(pids)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("exe")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--limit", type=float, default=30.0)
    argv = sys.argv[1:]
    args = []
    if "--" in argv:
        args = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = ap.parse_args(argv)
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
           "ob1", "-np", str(a.np), a.exe] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    seen = 0
    start = time.time()
    for line in p.stdout:
        if line.startswith("step "):
            seen += 1
        if seen >= 2:
            break
        if time.time() - start > a.limit:
            break
    ranks = children_running(a.exe)
    if seen < 2 or len(ranks) != a.np:
        p.kill()
        print("FAULT: the run did not start as expected (%d steps seen, ranks "
              "%s)" % (seen, ranks))
        return 1
    victim = ranks[-1]
    os.kill(victim, signal.SIGKILL)
    t0 = time.time()
    try:
        # Drains the output (mpirun never blocks on a full pipe) and waits.
        p.communicate(timeout=a.limit)
        status = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        for pid in children_running(a.exe):
            os.kill(pid, signal.SIGKILL)
        print("FAULT: the job still ran %.0f s after a rank was killed" %
              a.limit)
        return 1
    elapsed = time.time() - t0
    left = children_running(a.exe)
    print("killed rank pid %d; job ended in %.1f s with exit status %d" % (
        victim, elapsed, status))
    if status == 0 or left or elapsed > a.limit:
        print("FAULT: status %d, ranks left %s" % (status, left))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
