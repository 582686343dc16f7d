#!/usr/bin/env python3
"""Pipeline (GPipe, 1F1B) bubble and memory benchmark (issue 33; docs/performance.md,
"Pipeline bubble and activation memory"; docs/pipeline.md).

For each stage count p and micro-batch count m it writes the pipeline
with make_pipeline_mlp.py (L = p layers, one per stage), compiles it with
weftc, trains it for --steps steps on p ranks with --trace, and reads the
Chrome trace:

  - The bubble. In the rolling-buffer design every stage computes in every
    one of the m + p - 1 ticks; stage s's slot holds a micro-batch only in
    ticks s .. s + m - 1, so in the other p - 1 ticks it computes on zeros.
    The trace therefore shows no idle gap: the bubble is wasted compute.
    It is measured as the share of the stage's layer time spent in ticks
    whose slot holds no micro-batch, over the einsums every tick runs
    alike: each layer's forward einsum and its weight gradient. (The
    activation cotangent einsum is left out of the sum: tick 0's first
    layer has none, x being data, so on stage 0 tick 0 is one einsum
    lighter than the others; counting it would make the ticks unequal by
    construction rather than by measurement. The JSON has both.) Each einsum
    is attributed to its tick by its position among the einsums of its
    kind in program order (the op number in the event name): forward
    einsums run tick 0 first, autodiff's reverse runs the last tick first.
    Per tick, the median over the steps after the first is taken (the
    machine may be loaded), then bubble = sum over bubble ticks / sum over
    all ticks, against theory (p - 1) / (m + p - 1).
  - The transfers: the time the rank spends in collective_permute events
    on its ops row (the wait for the neighbour's slot, transfer and skew
    included) as a share of the step, median over the steps.
  - The memory: each rank's "memory" counter (the allocator's bytes live
    when the steps start, i.e. parameters and inputs, and its high-water
    mark over the steps); peak - start is what a step allocates on top:
    the activations autodiff keeps for the backward pass (m + p - 1 ticks'
    under GPipe), the gradients and the temporaries.

With --schedule 1f1b the program is make_pipeline_1f1b.py's (docs/
pipeline.md, "1F1B"): each tick has a forward half (ticks 0 .. m+p-2)
and a backward half (ticks p-1 .. m+2p-3), the backward half a vjp that
recomputes the stage's forward from its saved input. Stage s's forward
half of tick t holds a micro-batch when 0 <= t - s < m, its backward half
when 0 <= t - 2(p-1) + s < m; the bubble is the share of the layer
einsums' time (forward, recomputed forward and weight gradient; with the
cotangent einsum in the JSON) spent in halves that hold none. The
einsums are attributed to (tick, half) by their position among the
einsums of their kind in program order, as for GPipe.

usage: run.py [--stages 2,4] [--micro 4,8,16] [--micro-batch 64]
              [--width 512] [--steps 8] [--bin BUILD/bin] [--work DIR]
              [--json OUT] [--schedule gpipe|1f1b] [--no-fuse]

--no-fuse compiles with --fuse=false --fuse-epilogues=false (with fusion
1F1B's peak memory grew with m until weft-fuse-elementwise's lifetime
rule; docs/pipeline.md, "1F1B"). With fusion an einsum whose epilogue is
fused (a weight gradient and its accumulation) counts as its einsum; its
time includes the epilogue's.
Prints one table row per (p, m) with the worst stage's numbers and the
spread over stages.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Waiting ranks yield their core: on a machine with fewer cores than ranks
# a spinning neighbour would otherwise slow the rank that computes.
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml",
          "ob1", "--mca", "mpi_yield_when_idle", "1"]
FWD = "sjbd,sde->sjbe"   # a layer's forward einsum
BWD_X = "sjbe,sde->sjbd"  # its activation cotangent
BWD_W = "sjbe,sjbd->sde"  # its weight gradient
OPNUM = re.compile(r"#(\d+)")


def run(cmd, **kw):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, **kw)
    if p.returncode:
        sys.exit("run.py: command failed (exit %d): %s\n%s" %
                 (p.returncode, " ".join(cmd), p.stdout[-3000:]))
    return p.stdout


def einsum_eq(name):
    # "#5 einsum sjbd,sde->sjbe", or with its epilogue fused (the default
    # --fuse-epilogues: a weight gradient and its accumulation)
    # "#33 einsum+add sjbe,sjbd->sde then sde,sde->sde": the einsum's own
    return name.split(" then ")[0].split()[-1]


def tick_times(events, p, m, per, kinds):
    """{tick: microseconds} of one rank's layer einsums of `kinds` in one
    step."""
    ticks = m + p - 1
    fam = collections.defaultdict(list)
    for e in events:
        if e["cat"] != "einsum" or e["tid"] != 0:
            continue
        eq = einsum_eq(e["name"])
        if eq in (FWD, BWD_X, BWD_W):
            fam[eq].append((int(OPNUM.search(e["name"]).group(1)), e["dur"]))
    want = {FWD: per * ticks, BWD_W: per * ticks,
            # tick 0's first layer needs no input cotangent (x is data)
            BWD_X: per * ticks - 1}
    out = collections.Counter()
    for eq, n in want.items():
        if eq not in kinds:
            continue
        got = sorted(fam[eq])
        if len(got) != n:
            sys.exit("run.py: %d '%s' einsums in a step, expected %d" %
                     (len(got), eq, n))
        for i, (_, dur) in enumerate(got):
            t = i // per if eq == FWD else ticks - 1 - i // per
            out[t] += dur
    return out


def halves_1f1b(p, m, per):
    """{einsum kind: [(tick, half) of each einsum of that kind, in program
    order]} of make_pipeline_1f1b.py's program: a tick's forward call,
    then its vjp (the recomputed forward, then the reverse; the last
    tick's first-layer input cotangent is dead code, dropped)."""
    seq = {FWD: [], BWD_W: [], BWD_X: []}
    for t in range(m + 2 * p - 2):
        if t < m + p - 1:
            seq[FWD] += [(t, "F")] * per
        if t >= p - 1:
            seq[FWD] += [(t, "B")] * per
            seq[BWD_W] += [(t, "B")] * per
            # the last tick's input cotangent has no reader (dropped)
            last = t == m + 2 * p - 3
            seq[BWD_X] += [(t, "B")] * (per - 1 if last else per)
    return seq


def half_times(events, p, m, per, kinds):
    """{(tick, half): microseconds} of one rank's layer einsums of `kinds`
    in one step of the 1F1B program."""
    seq = halves_1f1b(p, m, per)
    fam = collections.defaultdict(list)
    for e in events:
        if e["cat"] != "einsum" or e["tid"] != 0:
            continue
        eq = einsum_eq(e["name"])
        if eq in seq:
            fam[eq].append((int(OPNUM.search(e["name"]).group(1)), e["dur"]))
    out = collections.Counter()
    for eq in kinds:
        got = sorted(fam[eq])
        if len(got) != len(seq[eq]):
            sys.exit("run.py: %d '%s' einsums in a step, expected %d" %
                     (len(got), eq, len(seq[eq])))
        for where, (_, dur) in zip(seq[eq], got):
            out[where] += dur
    return out


def analyse(trace, p, m, per, steps, schedule="gpipe"):
    with open(trace) as f:
        doc = json.load(f)["traceEvents"]
    rows = []
    for r in range(p):
        evs = [e for e in doc if e.get("pid") == r]
        mem = [e for e in evs if e["ph"] == "C" and e["name"] == "memory"]
        if len(mem) != 1:
            sys.exit("run.py: rank %d has %d memory counters" % (r, len(mem)))
        xs = [e for e in evs if e["ph"] == "X"]
        per_tick = collections.defaultdict(list)
        per_tick_all = collections.defaultdict(list)
        permute_share, step_ms, waits = [], [], []
        for st in range(2, steps + 1):
            se = [e for e in xs if e["args"]["step"] == st]
            step = [e for e in se if e["cat"] == "step"][0]["dur"]
            times = tick_times if schedule == "gpipe" else half_times
            for t, d in times(se, p, m, per, (FWD, BWD_W)).items():
                per_tick[t].append(d)
            for t, d in times(se, p, m, per, (FWD, BWD_W, BWD_X)).items():
                per_tick_all[t].append(d)
            wait = sum(e["dur"] for e in se
                       if e["cat"] == "collective_permute" and e["tid"] == 0)
            permute_share.append(wait / step)
            waits += [e["dur"] for e in se if e["cat"] ==
                      "collective_permute" and e["tid"] == 0]
            step_ms.append(step / 1e3)
        def holds(t):
            if schedule == "gpipe":
                return r <= t < r + m
            tick, half = t
            j = tick - r if half == "F" else tick - 2 * (p - 1) + r
            return 0 <= j < m

        def bubble_share(samples):
            med = {t: statistics.median(v) for t, v in samples.items()}
            return (sum(d for t, d in med.items() if not holds(t)) /
                    sum(med.values()), med)
        bubble, med = bubble_share(per_tick)
        rows.append({
            "rank": r,
            "bubble": bubble,
            "bubble_with_cotangent": bubble_share(per_tick_all)[0],
            "tick_us": [med[t] for t in sorted(med)],
            "ticks": [list(t) if isinstance(t, tuple) else t
                      for t in sorted(med)],
            "permute_share": statistics.median(permute_share),
            "permute_us_min": min(waits),
            "permute_us_median": statistics.median(waits),
            "step_ms": statistics.median(step_ms),
            "mem_start": mem[0]["args"]["live at start"],
            "mem_peak": mem[0]["args"]["peak"],
        })
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stages", default="2,4")
    ap.add_argument("--micro", default="4,8,16")
    ap.add_argument("--micro-batch", type=int, default=64)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "..", "build",
                                                  "bin"))
    ap.add_argument("--work", default="/tmp/weft-bench-pipeline")
    ap.add_argument("--json", help="write every rank's numbers here")
    ap.add_argument("--reuse", action="store_true",
                    help="analyse the traces already in --work again")
    ap.add_argument("--schedule", choices=("gpipe", "1f1b"), default="gpipe")
    ap.add_argument("--no-fuse", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    weftc = os.path.join(a.bin, "weftc")
    results = []
    print("| p | m | ticks | bubble theory (p-1)/(m+p-1) | bubble measured, "
          "mean (min..max over stages) | permute wait / step (max over "
          "stages) | one permute's wait, us: min / median | peak - start "
          "per stage, KiB: max (min..max) | start KiB | step ms (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in [int(s) for s in a.stages.split(",")]:
        for m in [int(s) for s in a.micro.split(",")]:
            tag = "p%dm%d" % (p, m)
            if a.schedule == "1f1b":
                tag += "-1f1b"
            if a.no_fuse:
                tag += "-nofuse"
            gen = ("make_pipeline_mlp.py" if a.schedule == "gpipe" else
                   "make_pipeline_1f1b.py")
            ticks = m + p - 1 if a.schedule == "gpipe" else m + 2 * p - 2
            src = os.path.join(a.work, tag + ".mlir")
            exe = os.path.join(a.work, tag)
            trace = os.path.join(a.work, tag + ".json")
            if not (a.reuse and os.path.exists(trace)):
                run([sys.executable, os.path.join(HERE, gen),
                     src, "--stages", str(p), "--layers", str(p), "--micro",
                     str(m), "--micro-batch", str(a.micro_batch), "--width",
                     str(a.width), "--lr", "0.01"])
                run([weftc, "--train=sgd", "--lr", "0.01", src, "-o", exe] +
                    (["--fuse=false", "--fuse-epilogues=false"]
                     if a.no_fuse else []))
                run(MPIRUN + ["-np", str(p), exe, "--steps", str(a.steps),
                              "--random-inputs", "1", "--trace", trace])
            rows = analyse(trace, p, m, 1, a.steps, a.schedule)
            theory = (p - 1) / (m + p - 1)
            bub = [r["bubble"] for r in rows]
            act = [r["mem_peak"] - r["mem_start"] for r in rows]
            print("| %d | %d | %d | %.3f | %.3f (%.3f..%.3f) | %.3f | %.0f / "
                  "%.0f | %.0f (%.0f..%.0f) | %.0f | %.1f |" %
                  (p, m, ticks, theory, statistics.mean(bub), min(bub),
                   max(bub), max(r["permute_share"] for r in rows),
                   min(r["permute_us_min"] for r in rows),
                   statistics.median(r["permute_us_median"] for r in rows),
                   max(act) / 1024, min(act) / 1024, max(act) / 1024,
                   max(r["mem_start"] for r in rows) / 1024,
                   statistics.median(r["step_ms"] for r in rows)),
                  flush=True)
            results.append({"p": p, "m": m, "schedule": a.schedule,
                            "theory": theory, "ranks": rows})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
