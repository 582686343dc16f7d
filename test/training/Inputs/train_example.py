#!/usr/bin/env python3
"""Trains a Weft training example on several rank counts and compares runs.

Used by test/training/*.test. For the example (whose first line is
`// weftc: FLAGS`), it:

  1. builds it with weftc FLAGS: --unsharded (the reference run) and once per
     --np N:MESH (weftc --mesh MESH; "-" keeps the example's own mesh);
  2. runs each build for --steps steps under mpirun, every input that has a
     DATA/NAME.npy file given with --input NAME=..., final parameters written
     with --output-dir;
  3. compares every run with the unsharded run and, with --reference, with an
     independent trainer's log and parameters (compare_training.py: per-step
     losses to --rtol, parameters to --param-tol relative L2);
  4. with --checkpoint A:B:K, runs K steps on the A-rank build with --save,
     resumes on the B-rank build with --load for the remaining steps and
     compares those steps with the full A-rank run. A or B may be
     "unsharded" (the one-device build: a checkpoint written without a
     mesh resumes on one, or the other way round, with no extra build).

It prints one line per check, `... PASS` or `... FAIL: why`, for FileCheck,
and exits 1 if any check failed or any command failed (its output shown).
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(os.path.dirname(HERE), "compare_training.py")
MPIRUN = ["timeout", "300", "mpirun", "--allow-run-as-root", "--oversubscribe",
          "--mca", "pml", "ob1"]


class Failure(Exception):
    pass


def run(cmd, log_path=None):
    """Runs `cmd`; its stdout goes to `log_path` (when given). Raises Failure
    with the command's output when it fails."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    if log_path:
        with open(log_path, "w") as f:
            f.write(p.stdout)
    if p.returncode != 0:
        raise Failure("command failed (exit %d): %s\n%s" %
                      (p.returncode, " ".join(cmd), p.stdout[-4000:]))
    return p.stdout


def compare(what, log_a, log_b, args, params=None, extra=()):
    cmd = [sys.executable, COMPARE, log_a, log_b, "--rtol", str(args.rtol)]
    if params:
        cmd += ["--params", params[0], params[1], "--names", args.names,
                "--param-tol", str(args.param_tol)]
    cmd += list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    worst = re.search(r"worst relative difference (\S+)", p.stdout)
    errs = re.findall(r"\|\|a-b\|\|/\|\|a\|\| (\S+)", p.stdout)
    detail = "losses %s" % (worst.group(1) if worst else "?")
    if errs:
        detail += ", params %s" % max(errs, key=float)
    if p.returncode == 0:
        print("%s: PASS (%s)" % (what, detail))
        return True
    print("%s: FAIL (%s)\n%s" % (what, detail, p.stdout))
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("example")
    ap.add_argument("--bin", required=True, help="directory of weftc")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--data", required=True,
                    help="directory of NAME.npy inputs")
    ap.add_argument("--np", action="append", default=[], metavar="N:MESH",
                    help="a rank count and its --mesh ('-': as written)")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--names", required=True,
                    help="comma-separated parameter names to compare")
    ap.add_argument("--reference", nargs=2, metavar=("LOG", "PARAMS"),
                    help="an independent trainer's log and parameters")
    ap.add_argument("--checkpoint", metavar="A:B:K",
                    help="save after K steps on A ranks, resume on B "
                    "(A or B may be 'unsharded')")
    ap.add_argument("--falls-factor", type=float, default=0.5)
    ap.add_argument("--falls-below", type=float, metavar="X",
                    help="the unsharded run's last loss must be below X too")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--param-tol", type=float, default=1e-4)
    args = ap.parse_args()

    with open(args.example) as f:
        first = f.readline()
    m = re.match(r"^// weftc: (.*)$", first.rstrip("\n"))
    if not m:
        sys.exit("train_example.py: error: %s: the first line must be "
                 "'// weftc: FLAGS'" % args.example)
    flags = m.group(1).split()
    os.makedirs(args.work, exist_ok=True)
    weftc = os.path.join(args.bin, "weftc")
    files = sorted(f for f in os.listdir(args.data) if f.endswith(".npy"))
    params = set(args.names.split(","))

    def input_flags(keep):
        flags = []
        for f in files:
            if keep(f[:-4]):
                flags += ["--input",
                          "%s=%s" % (f[:-4], os.path.join(args.data, f))]
        return flags
    inputs = input_flags(lambda name: True)
    builds = [("unsharded", 1, ["--unsharded"])]
    for spec in args.np:
        n, _, mesh = spec.partition(":")
        # Two meshes of one rank count (stage=4 and stage=2,data=2) are
        # told apart by their mesh.
        tag = "np%s" % n
        if any(b[0] == tag for b in builds):
            tag += "_" + mesh.replace("=", "").replace(",", "_")
        builds.append((tag, int(n),
                       [] if mesh in ("", "-") else ["--mesh", mesh]))

    ok = True
    t0 = time.time()
    try:
        exe = {}
        for tag, n, extra in builds:
            exe[tag] = os.path.join(args.work, "t_" + tag)
            run([weftc] + flags + extra + [args.example, "-o", exe[tag]])
        compile_s = time.time() - t0
        logs, outs = {}, {}
        for tag, n, _ in builds:
            logs[tag] = os.path.join(args.work, tag + ".log")
            outs[tag] = os.path.join(args.work, "out_" + tag)
            run(MPIRUN + ["-np", str(n), exe[tag], "--steps", str(args.steps)] +
                inputs + ["--output-dir", outs[tag]], logs[tag])
        run_s = time.time() - t0 - compile_s

        ok &= compare("unsharded falls", logs["unsharded"], logs["unsharded"],
                      args, extra=["--falls", "--falls-factor",
                                   str(args.falls_factor)] +
                      (["--falls-below", str(args.falls_below)]
                       if args.falls_below is not None else []))
        if args.reference:
            ok &= compare("unsharded vs reference", logs["unsharded"],
                          args.reference[0], args,
                          (outs["unsharded"], args.reference[1]))
        for tag, n, _ in builds[1:]:
            ok &= compare("%s vs unsharded" % tag, logs[tag],
                          logs["unsharded"], args,
                          (outs[tag], outs["unsharded"]))
            if args.reference:
                ok &= compare("%s vs reference" % tag, logs[tag],
                              args.reference[0], args,
                              (outs[tag], args.reference[1]))

        if args.checkpoint:
            a, b, k = args.checkpoint.split(":")
            k = int(k)
            tag = lambda n: "unsharded" if n == "unsharded" else "np" + n
            ranks = lambda n: "1" if n == "unsharded" else n
            ckpt = os.path.join(args.work, "ckpt")
            run(MPIRUN + ["-np", ranks(a), exe[tag(a)], "--steps", str(k)] +
                inputs + ["--save", ckpt],
                os.path.join(args.work, "first.log"))
            # The resumed run takes its parameters and state from the
            # checkpoint, only the batches from files.
            data = input_flags(lambda name: name not in params)
            resumed = os.path.join(args.work, "resumed.log")
            resumed_out = os.path.join(args.work, "out_resumed")
            run(MPIRUN + ["-np", ranks(b), exe[tag(b)], "--steps",
                          str(args.steps - k), "--load", ckpt] + data +
                ["--output-dir", resumed_out], resumed)
            where = ("the unsharded build" if a == "unsharded" else
                     "%s rank(s)" % a)
            ok &= compare("checkpoint at %d on %s, resumed on %s" %
                          (k, where, b), resumed, logs[tag(a)], args,
                          (resumed_out, outs[tag(a)]),
                          ["--steps", "%d:%d" % (k + 1, args.steps)])
        print("time: compile %.1f s, %d training runs %.1f s" %
              (compile_s, len(builds), run_s), file=sys.stderr)
    except Failure as e:
        print("FAIL: %s" % e)
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
