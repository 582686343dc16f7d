#!/usr/bin/env python3
"""Checks a training log of dynamic loss scaling against its rule.

Reads the `step T loss L lr X scale S [skipped (overflow)] time ...` lines
a program compiled with weftc --precision=f16-mixed prints, and checks,
from the rule alone (docs/precision.md; PyTorch's GradScaler):

  - the first step runs with --init;
  - after a skipped step the scale is multiplied by --backoff;
  - after --interval steps in a row with finite gradients at one scale it
    is multiplied by --growth; otherwise it stays;
  - --first-skipped: step 1 is skipped; --min-skipped/--max-skipped bound
    the number of skipped steps;
  - --falls F: the last step's loss is below F times the first step's.

Prints "check_loss_scale.py: PASS" and a summary, or the first violation
and exits 1.

Example:
    check_loss_scale.py run.log --init 4294967296 --interval 8 --first-skipped
"""
import argparse
import math
import re
import sys

LINE = re.compile(r"^step (\d+) loss (\S+) lr \S+ scale (\S+)( skipped \(overflow\))?")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("log")
    p.add_argument("--init", type=float, required=True)
    p.add_argument("--interval", type=int, default=2000)
    p.add_argument("--growth", type=float, default=2.0)
    p.add_argument("--backoff", type=float, default=0.5)
    p.add_argument("--first-skipped", action="store_true")
    p.add_argument("--min-skipped", type=int, default=0)
    p.add_argument("--max-skipped", type=int, default=None)
    p.add_argument("--falls", type=float, default=None)
    args = p.parse_args(argv)

    steps = []
    with open(args.log) as f:
        for text in f:
            m = LINE.match(text)
            if m:
                steps.append((int(m.group(1)), float(m.group(2)),
                              float(m.group(3)), m.group(4) is not None))
    def fail(why):
        print(f"check_loss_scale.py: FAIL: {why}")
        return 1
    if not steps:
        return fail(f"{args.log} has no 'step T loss L lr X scale S' line")
    scale, clean = args.init, 0
    for i, (t, loss, s, skipped) in enumerate(steps):
        if t != steps[0][0] + i:
            return fail(f"step {t} is not step {steps[0][0] + i} (every step "
                        "must be printed)")
        if s != scale:
            return fail(f"step {t} runs with scale {s:g}; the rule gives "
                        f"{scale:g}")
        if not skipped and not math.isfinite(loss):
            return fail(f"step {t}: loss {loss} but the step was not skipped")
        if skipped:
            scale, clean = scale * args.backoff, 0
        else:
            clean += 1
            if clean == args.interval:
                scale, clean = scale * args.growth, 0
    n_skipped = sum(1 for s in steps if s[3])
    if args.first_skipped and not steps[0][3]:
        return fail(f"step {steps[0][0]} was not skipped")
    if n_skipped < args.min_skipped:
        return fail(f"{n_skipped} skipped step(s), expected at least "
                    f"{args.min_skipped}")
    if args.max_skipped is not None and n_skipped > args.max_skipped:
        return fail(f"{n_skipped} skipped step(s), expected at most "
                    f"{args.max_skipped}")
    if args.falls is not None and not steps[-1][1] < args.falls * steps[0][1]:
        return fail(f"the loss went from {steps[0][1]} to {steps[-1][1]}, "
                    f"not below {args.falls} times the first")
    print(f"{len(steps)} steps, {n_skipped} skipped, loss {steps[0][1]:.6g} "
          f"-> {steps[-1][1]:.6g}, last scale {steps[-1][2]:g}")
    print("check_loss_scale.py: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
