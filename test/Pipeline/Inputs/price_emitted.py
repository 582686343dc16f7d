#!/usr/bin/env python3
"""Compare the global search's estimate with the emitted program's price.

For each module, runs weft-opt through weftc's stages up to the local
view (calls inlined, optionally the gradient, weft-propagate with
`explain`, weft-pad-uneven, weft-partition, weft-optimize-collectives,
weft-combine-collectives at weftc's default 1 MiB unless --combine-bytes says
otherwise, weft-schedule-collectives)
and then weft-price-local, which applies the search's cost model to the
emitted program. Per function it reads the search's

    plan taken: objective 1.234000000e-05 s

and weft-price-local's

    weft-price-local: @f: ... total 1.234000000e-05 s

and checks that they agree within --tolerance (relative). Prints one line
per disagreement (DIFF) and a summary line for FileCheck; exits non-zero
when any function disagrees.

weft-propagate gets the same --combine-bytes. Since it prices the program
its plan emits (price-emitted, its default), the two must agree; with
--no-search-emitted it reports its own objective instead, which the
combiner and dead ops make disagree (the test's negative control).

Usage: price_emitted.py --weft-opt PATH [--profile SPEC] [--grad]
                        [--tolerance 0.01] [--combine-bytes N] [--verbose]
                        [--optimizer adamw|sgd] [--no-search-emitted]
                        MODULE...
"""
import argparse
import re
import subprocess
import sys

PLAN = re.compile(r"^plan taken: objective (\S+) s( \(as emitted\))?$")
PRICE = re.compile(r"^weft-price-local: @(\S+): .* total (\S+) s$")


def run(args, module, grad):
    profile = args.profile
    propagate = ("weft-propagate{explain=true profile=%s combine-bytes=%d "
                 "price-emitted=%s}" %
                 (profile, args.combine_bytes,
                  "false" if args.no_search_emitted else "true"))
    front = "weft-inline-calls,"
    if grad:
        front += "func.func(weft-autodiff),"
    if args.optimizer:
        front += "func.func(weft-optimizer{kind=%s})," % args.optimizer
    pipeline = (
        "builtin.module(" + front + "func.func(" + propagate + "),"
        "func.func(weft-pad-uneven,weft-partition),"
        "weft-optimize-collectives,"
        + ("weft-combine-collectives{max-bytes=%d}," % args.combine_bytes
           if args.combine_bytes else "") +
        "func.func(weft-schedule-collectives),"
        "weft-price-local{profile=%s})" % (args.price_profile or profile))
    out = subprocess.run(
        [args.weft_opt, module, "--pass-pipeline=" + pipeline,
         "--mlir-disable-threading", "--mlir-print-op-on-diagnostic=false",
         "-o", "/dev/null"],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("weft-opt failed on %s (exit %d):\n%s" %
                 (module, out.returncode, out.stderr[-4000:]))
    plans = [float(m.group(1)) for m in
             (PLAN.match(l) for l in out.stderr.splitlines()) if m]
    prices = [(m.group(1), float(m.group(2))) for m in
              (PRICE.match(l) for l in out.stdout.splitlines()) if m]
    return plans, prices


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft-opt", required=True)
    ap.add_argument("--profile", default="builtin:cpu")
    ap.add_argument("--grad", action="store_true")
    ap.add_argument("--price-profile", default="",
                    help="price the emitted program under another profile "
                    "(the test's mutant; default: --profile)")
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--combine-bytes", type=int, default=1 << 20,
                    help="weft-combine-collectives' max-bytes (weftc's "
                    "default; 0: the pass does not run)")
    ap.add_argument("--optimizer", default="",
                    help="with --grad: the training step as weftc --train "
                    "builds it (weft-optimizer kind=adamw or sgd)")
    ap.add_argument("--no-search-emitted", action="store_true",
                    help="weft-propagate price-emitted=false: the search "
                    "reports its own objective of the plan (the test's "
                    "negative control)")
    ap.add_argument("modules", nargs="+")
    args = ap.parse_args()
    funcs = agree = 0
    worst = 0.0
    for module in args.modules:
        plans, prices = run(args, module, args.grad)
        if len(plans) != len(prices):
            sys.exit("%s: %d search estimate(s) but %d priced function(s)" %
                     (module, len(plans), len(prices)))
        for est, (name, price) in zip(plans, prices):
            funcs += 1
            rel = abs(price - est) / max(abs(est), 1e-30)
            worst = max(worst, rel)
            if args.verbose:
                print("%s @%s: search %.9e s, emitted %.9e s" %
                      (module, name, est, price))
            if rel <= args.tolerance:
                agree += 1
            else:
                print("DIFF: %s @%s: search %.9e s, emitted %.9e s (%+.2f%%)"
                      % (module, name, est, price, 100 * (price / est - 1)))
    print("%d function(s), %d agree within %g%%, worst %.3f%%" %
          (funcs, agree, 100 * args.tolerance, 100 * worst))
    return 0 if agree == funcs else 1


if __name__ == "__main__":
    sys.exit(main())
