#!/usr/bin/env python3
"""The exhaustive oracle of weft-propagate's global search.

Runs `weft-opt --weft-propagate="explain search=global"` and (unless
--no-exhaustive) `search=exhaustive` on a module of random programs (one
function per mesh, gen_random_programs.py), reads each function's summary
remark:

    ...: remark: weft-propagate: 5 op(s) on mesh @m12, ...
    weft-propagate search=global (profile ...): ...; 42 state(s), exact
    objective seconds: search 1.234e-05, greedy 2.345e-05

and checks, per function:
  - global: the plan the search found is no worse than greedy's
    (search <= greedy) whenever the DP is exact, and it says exact or
    beam-pruned;
  - with the exhaustive run, for every function it enumerated and the DP
    solved exactly (not beam-pruned): the DP's optimum equals the
    exhaustive optimum (relative 1e-9).
Prints one summary line (for FileCheck) and exits non-zero on any
mismatch, listing the functions.

Usage: search_oracle.py --weft-opt PATH MODULE [--no-exhaustive]
                        [--min-enumerated N]
"""
import argparse
import re
import subprocess
import sys

SUMMARY = re.compile(r"remark: weft-propagate: \d+ op\(s\) on mesh @(\S+?),")
SEARCH = re.compile(r"^weft-propagate search=(\w+) .*; (\d+) state\(s\), (.*)$")
OBJECTIVE = re.compile(r"^objective seconds: search (\S+), greedy (\S+)$")
SKIPPED = re.compile(r"warning: weft-propagate search=exhaustive: more than")


def run(weft_opt, module, mode):
    out = subprocess.run(
        [weft_opt, "--weft-propagate=explain search=" + mode,
         "--mlir-print-op-on-diagnostic=false", module, "-o", "/dev/null"],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("weft-opt search=%s failed (exit %d):\n%s" %
                 (mode, out.returncode, out.stderr[-4000:]))
    results = {}
    lines = out.stderr.splitlines()
    skipped = 0
    for i, line in enumerate(lines):
        if SKIPPED.search(line):
            skipped += 1
        m = SUMMARY.search(line)
        if not m:
            continue
        mesh = m.group(1)
        # The search's two lines follow the summary's first line.
        for j in range(i + 1, min(i + 4, len(lines))):
            s = SEARCH.match(lines[j])
            if s:
                o = OBJECTIVE.match(lines[j + 1]) if j + 1 < len(lines) else None
                if not o:
                    sys.exit("no objective line after: " + lines[j])
                results[mesh] = dict(mode=s.group(1), states=int(s.group(2)),
                                     status=s.group(3),
                                     search=float(o.group(1)),
                                     greedy=float(o.group(2)))
                break
    return results, skipped


def close(a, b):
    if a == b:
        return True
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft-opt", required=True)
    ap.add_argument("module")
    ap.add_argument("--no-exhaustive", action="store_true")
    ap.add_argument("--min-enumerated", type=int, default=0,
                    help="fail unless at least N functions were enumerated "
                         "with an exact DP (and so compared)")
    a = ap.parse_args()

    glob, _ = run(a.weft_opt, a.module, "global")
    if not glob:
        sys.exit("no search summaries found (is this a module of meshes?)")
    bad = []
    exact = improved = 0
    for mesh, r in sorted(glob.items()):
        if r["status"] not in ("exact", "beam-pruned (not proven optimal)"):
            bad.append("%s: status %r" % (mesh, r["status"]))
        if r["status"] == "exact":
            exact += 1
            if r["search"] > r["greedy"] and not close(r["search"], r["greedy"]):
                bad.append("%s: exact search %.9e worse than greedy %.9e" %
                           (mesh, r["search"], r["greedy"]))
        if r["search"] < r["greedy"] and not close(r["search"], r["greedy"]):
            improved += 1
    line = "%d functions, %d exact, %d cheaper than greedy" % (
        len(glob), exact, improved)

    if not a.no_exhaustive:
        exh, skipped = run(a.weft_opt, a.module, "exhaustive")
        enumerated = compared = 0
        for mesh, r in sorted(exh.items()):
            if r["status"] != "every plan enumerated":
                continue
            enumerated += 1
            g = glob.get(mesh)
            if g is None:
                bad.append("%s: no global summary" % mesh)
                continue
            # A beam-pruned DP promises no optimum: only exact ones compare.
            if g["status"] != "exact":
                continue
            compared += 1
            if not close(g["search"], r["search"]):
                bad.append("%s: DP optimum %.12e != exhaustive %.12e" %
                           (mesh, g["search"], r["search"]))
        line += "; %d enumerated (%d too big), %d compared" % (
            enumerated, skipped, compared)
        if not bad:
            line += ", all optima equal"
        if compared < a.min_enumerated:
            bad.append("only %d functions compared (want >= %d)" %
                       (compared, a.min_enumerated))
    print(line)
    if bad:
        print("MISMATCH:")
        for b in bad:
            print("  " + b)
        sys.exit(1)


if __name__ == "__main__":
    main()
