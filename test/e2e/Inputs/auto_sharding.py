#!/usr/bin/env python3
"""Auto-sharding end to end: an unannotated example under memory budgets.

1. `weftc EXAMPLE --memory-budget=<huge> --emit=global` reports (remark)
   the replicated plan's footprint R per device.
2. The unsharded build runs on 1 rank with --random-inputs (inputs are drawn
   per global element, so every layout reads the same values).
3. For each fraction f (--fractions, default 1,0.5,0.25): budget
   B = floor(f * R). `weftc --memory-budget=B --mesh MESH` either says no
   plan fits (printed, with its reason) or reports its estimate E; then the
   build runs on N ranks with --memory-report and its outputs are compared
   with the unsharded run's. Printed per fraction (for FileCheck):

     f=0.50: estimate E <= budget B: ok; allocator peak M <= budget: ok;
             outputs vs unsharded: ok

   ("EXCEEDS" / "MISMATCH" otherwise, and the exit status is 1).
Also prints the layouts the plan gave the arguments (--emit=global).

Usage: auto_sharding.py EXAMPLE --bin DIR --work DIR --np N --mesh MESH
                        [--fractions 1,0.5,0.25]
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

MPIRUN = ["timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe",
          "--mca", "pml", "ob1", "--bind-to", "none"]
ESTIMATE = re.compile(r"weft-propagate memory: estimated peak (\d+) bytes per "
                      r"device, budget (\d+)(?:, replicated (\d+))?")
MEASURED = re.compile(r"weft memory: peak live bytes per device: max (\d+)")


def sh(cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    if check and p.returncode != 0:
        sys.exit("failed (exit %d): %s\n%s%s" % (p.returncode, " ".join(cmd),
                                                 p.stdout, p.stderr))
    return p


def outputs(d):
    return {f[:-4]: np.load(os.path.join(d, f)) for f in sorted(os.listdir(d))
            if f.endswith(".npy")}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("example")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--mesh", required=True)
    ap.add_argument("--fractions", default="1,0.5,0.25")
    a = ap.parse_args()
    weftc = os.path.join(a.bin, "weftc")
    os.makedirs(a.work, exist_ok=True)
    name = os.path.splitext(os.path.basename(a.example))[0]

    p = sh([weftc, a.example, "--mesh", a.mesh, "--memory-budget",
            str(1 << 60), "--emit=global", "-o", os.devnull])
    m = ESTIMATE.search(p.stderr)
    if not m or not m.group(3):
        sys.exit("no replicated footprint in weftc's remark:\n" + p.stderr)
    replicated = int(m.group(3))
    print("%s: replicated footprint %d bytes per device" % (name, replicated))

    ref_exe = os.path.join(a.work, "unsharded")
    sh([weftc, a.example, "--unsharded", "-o", ref_exe])
    ref_dir = os.path.join(a.work, "ref")
    sh(MPIRUN + ["-np", "1", ref_exe, "--random-inputs", "7",
                 "--output-dir", ref_dir])
    ref = outputs(ref_dir)

    failed = False
    for f in [float(x) for x in a.fractions.split(",")]:
        budget = int(f * replicated)
        exe = os.path.join(a.work, "%s_%g" % (name, f))
        p = sh([weftc, a.example, "--mesh", a.mesh, "--memory-budget",
                str(budget), "-o", exe], check=False)
        tag = "f=%.2f" % f
        if p.returncode != 0:
            if "no plan fits the memory budget" in p.stderr:
                reason = p.stderr.strip().splitlines()[0]
                print("%s: budget %d: no plan fits (%s)" % (
                    tag, budget, reason.split("error: ")[-1]))
                continue
            sys.exit("weftc failed:\n" + p.stderr)
        m = ESTIMATE.search(p.stderr)
        if not m:
            sys.exit("no estimate in weftc's remark:\n" + p.stderr)
        est = int(m.group(1))
        out_dir = os.path.join(a.work, "out_%g" % f)
        r = sh(MPIRUN + ["-np", str(a.np), exe, "--random-inputs", "7",
                         "--output-dir", out_dir, "--memory-report"])
        mm = MEASURED.search(r.stdout)
        if not mm:
            sys.exit("no memory report:\n" + r.stdout + r.stderr)
        measured = int(mm.group(1))
        got = outputs(out_dir)
        # Relative to the largest magnitude: the random inputs are not
        # normalized, so values grow through the layers, and a sum split
        # over ranks rounds differently (measured: ~1e-6).
        same = got.keys() == ref.keys() and all(
            got[k].shape == ref[k].shape and
            np.abs(got[k] - ref[k]).max() <= 1e-5 * max(np.abs(ref[k]).max(), 1e-30)
            for k in ref)
        ok_est, ok_meas = est <= budget, measured <= budget
        failed |= not (ok_est and ok_meas and same)
        print("%s: estimate %d <= budget %d: %s; allocator peak %d <= budget: "
              "%s; outputs vs unsharded: %s" % (
                  tag, est, budget, "ok" if ok_est else "EXCEEDS", measured,
                  "ok" if ok_meas else "EXCEEDS",
                  "ok" if same else "MISMATCH"))
        g = sh([weftc, a.example, "--mesh", a.mesh, "--memory-budget",
                str(budget), "--emit=global", "-o", "-"]).stdout
        sig = re.search(r"func\.func @\w+\((.*?)\)\s*->", g, re.S)
        if sig:
            layouts = re.findall(r"#weft\.sharding<@\w+, (\[[^>]*\])>", sig.group(1))
            print("%s: argument layouts %s" % (tag, " ".join(layouts)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
