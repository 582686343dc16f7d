#!/usr/bin/env python3
"""Compares two training runs: their loss logs and, optionally, parameters.

A training log is a text file; the lines that match `^step (\\d+) loss (\\S+)`
are its losses (t1_reference.py and the compiled T1 program print them), every
other line is ignored. Checks, each a failure (exit 1) with a message:

  logs     both logs have at least one step, the same set of step numbers
           (after --steps filtering; missing steps are named), no step twice,
           finite losses, and |a - b| <= rtol * max(|a|, |b|) at every step.
           The worst relative difference and its step are printed.
  --falls  the last loss of LOG_A is below --falls-factor times its first
           (and below --falls-below X when given).
  --params DIR_A DIR_B
           for each of --names, DIR_A/NAME.npy and DIR_B/NAME.npy have the
           same shape, are finite, and
               ||a - b|| <= param-tol * ||a|| (L2 norms);
           the measured error of every tensor is printed.

Exit status: 0 when every check passes, 1 otherwise (bad input included).

Examples:
    compare_training.py ref.log run.log --rtol 1e-4 --falls
    compare_training.py ref.log run.log --params ref_out run_out
    compare_training.py full.log resumed.log --steps 26:50
"""
import argparse
import math
import os
import re
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(f"compare_training.py: error: numpy is not importable by {sys.executable}; "
             "run this script with a Python that has numpy")

STEP_LINE = re.compile(r"^step (\d+) loss (\S+)")


class CheckError(Exception):
    """A failed check or unusable input: reported as one message, exit 1."""


def parse_range(text):
    """Parses LO:HI (inclusive; either end may be empty) or a single N."""
    parts = text.split(":")
    try:
        if len(parts) == 1:
            lo = hi = int(parts[0])
        elif len(parts) == 2:
            lo = int(parts[0]) if parts[0] else None
            hi = int(parts[1]) if parts[1] else None
        else:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected LO:HI, LO:, :HI or N, got {text!r}") from None
    return lo, hi


def read_log(path, step_range):
    """Returns {step: loss} of the step lines of PATH within STEP_RANGE."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise CheckError(f"cannot read log {path}: {e}") from e
    lo, hi = step_range
    losses = {}
    for number, line in enumerate(lines, 1):
        match = STEP_LINE.match(line)
        if not match:
            continue
        step = int(match.group(1))
        if (lo is not None and step < lo) or (hi is not None and step > hi):
            continue
        try:
            loss = float(match.group(2))
        except ValueError:
            raise CheckError(f"{path}:{number}: loss {match.group(2)!r} is "
                             f"not a number") from None
        if step in losses:
            raise CheckError(f"{path}:{number}: step {step} appears twice")
        if not math.isfinite(loss):
            raise CheckError(f"{path}:{number}: step {step} has a non-finite "
                             f"loss {match.group(2)}")
        losses[step] = loss
    if not losses:
        where = "" if step_range == (None, None) else " in the --steps range"
        raise CheckError(f"{path}: no `step N loss L` lines{where}")
    return losses


def describe_steps(steps):
    steps = sorted(steps)
    shown = ", ".join(str(s) for s in steps[:20])
    return shown + (f", ... ({len(steps)} in all)" if len(steps) > 20 else "")


def compare_logs(path_a, path_b, rtol, step_range):
    a = read_log(path_a, step_range)
    b = read_log(path_b, step_range)
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    if only_a or only_b:
        message = ["the logs have different steps:"]
        if only_a:
            message.append(f"steps missing from {path_b}: "
                           f"{describe_steps(only_a)}")
        if only_b:
            message.append(f"steps missing from {path_a}: "
                           f"{describe_steps(only_b)}")
        raise CheckError(" ".join(message))

    worst_rel, worst_step, failures = -1.0, None, []
    for step in sorted(a):
        la, lb = a[step], b[step]
        scale = max(abs(la), abs(lb))
        rel = abs(la - lb) / scale if scale > 0 else 0.0
        if rel > worst_rel:
            worst_rel, worst_step = rel, step
        if not abs(la - lb) <= rtol * scale:
            failures.append(f"step {step}: {la!r} vs {lb!r} (relative "
                            f"difference {rel:.3e})")
    print(f"losses: {len(a)} steps ({min(a)}..{max(a)}), worst relative "
          f"difference {worst_rel:.3e} at step {worst_step} (rtol {rtol:g})")
    if failures:
        shown = "; ".join(failures[:5])
        more = f"; ... ({len(failures)} steps in all)" if len(failures) > 5 else ""
        raise CheckError(f"losses differ by more than rtol {rtol:g}: "
                         f"{shown}{more}")
    return a


def check_below(path, losses, bound):
    last_step = max(losses)
    last = losses[last_step]
    print(f"falls below: {path} loss {last:.6g} at step {last_step} "
          f"(required < {bound:g})")
    if not last < bound:
        raise CheckError(f"the loss of {path} does not fall below {bound:g}: "
                         f"{last:.6g} at step {last_step}")


def check_falls(path, losses, factor):
    first_step, last_step = min(losses), max(losses)
    first, last = losses[first_step], losses[last_step]
    ratio = last / first if first != 0 else math.inf
    print(f"falls: {path} loss {first:.6g} at step {first_step} -> "
          f"{last:.6g} at step {last_step} (ratio {ratio:.4g}, required < "
          f"{factor:g})")
    if not last < factor * first:
        raise CheckError(f"the loss of {path} does not fall enough: last "
                         f"{last:.6g} (step {last_step}) is not below "
                         f"{factor:g} * first {first:.6g} (step {first_step})")


def load_param(directory, name):
    path = os.path.join(directory, name + ".npy")
    if not os.path.isfile(path):
        raise CheckError(f"missing parameter file {path}")
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise CheckError(f"{path} is not a .npy file")
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise CheckError(f"cannot read {path}: {e}") from e
    if not (np.issubdtype(array.dtype, np.floating)
            or np.issubdtype(array.dtype, np.integer)):
        raise CheckError(f"{path}: unsupported dtype {array.dtype}")
    return path, array.astype(np.float64)


def compare_params(dir_a, dir_b, names, tol):
    failures = []
    for name in names:
        path_a, a = load_param(dir_a, name)
        path_b, b = load_param(dir_b, name)
        if a.shape != b.shape:
            raise CheckError(f"{name}: shape {list(a.shape)} in {path_a} but "
                             f"{list(b.shape)} in {path_b}")
        for path, array in ((path_a, a), (path_b, b)):
            if not np.isfinite(array).all():
                raise CheckError(f"{path} has non-finite values")
        # The relative L2 error ||a - b|| / ||a||: Adam's update moves an
        # element whose gradient is rounding noise by up to lr per step, so
        # the elementwise maximum measures rounding, the norm the result.
        scale = max(float(np.linalg.norm(a)), 1e-30)
        error = float(np.linalg.norm(a - b))
        rel = error / scale
        worst = float(np.abs(a - b).max()) if a.size else 0.0
        ok = error <= tol * scale
        print(f"param {name} {list(a.shape)}: ||a-b||/||a|| {rel:.3e} "
              f"(max|a-b| {worst:.3e}) {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"{name} (relative {rel:.3e})")
    if failures:
        raise CheckError(f"parameters differ by more than param-tol {tol:g}: "
                         + ", ".join(failures))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Compare two training logs (`step N loss L` lines) and, "
                    "optionally, two directories of parameters (.npy).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("log_a", metavar="LOG_A")
    parser.add_argument("log_b", metavar="LOG_B")
    parser.add_argument("--rtol", type=float, default=1e-4,
                        help="per-step relative tolerance of the losses")
    parser.add_argument("--steps", type=parse_range, default=(None, None),
                        metavar="LO:HI",
                        help="only compare the steps in this inclusive range "
                             "(e.g. 26:50 or 26:); default all")
    parser.add_argument("--falls", action="store_true",
                        help="also require the last loss of LOG_A to be below "
                             "--falls-factor times its first")
    parser.add_argument("--falls-factor", type=float, default=0.5)
    parser.add_argument("--falls-below", type=float, metavar="X",
                        help="with --falls, also require the last loss of "
                             "LOG_A to be below X")
    parser.add_argument("--params", nargs=2, metavar=("DIR_A", "DIR_B"),
                        help="also compare the parameters in these directories")
    parser.add_argument("--names", default="W_enc,b_enc,W_dec,b_dec",
                        help="comma-separated tensor names for --params")
    parser.add_argument("--param-tol", type=float, default=1e-4,
                        help="tolerance of max|a-b| relative to max|a|")
    args = parser.parse_args(argv)

    if not args.rtol >= 0 or not args.param_tol >= 0:
        parser.error("--rtol and --param-tol must be >= 0")
    if not args.falls_factor > 0:
        parser.error("--falls-factor must be > 0")
    names = [n.strip() for n in args.names.split(",") if n.strip()]
    if args.params and not names:
        parser.error("--names is empty")

    try:
        losses_a = compare_logs(args.log_a, args.log_b, args.rtol, args.steps)
        if args.falls:
            check_falls(args.log_a, losses_a, args.falls_factor)
            if args.falls_below is not None:
                check_below(args.log_a, losses_a, args.falls_below)
        if args.params:
            compare_params(args.params[0], args.params[1], names,
                           args.param_tol)
    except CheckError as e:
        print(f"compare_training.py: FAIL: {e}", file=sys.stderr)
        return 1
    print("compare_training.py: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
