"""Checks a --trace file (docs/runtime.md, "Traces"), for
test/training/trace.test and pipeline-mlp.test.

usage: check_trace.py TRACE.json --ranks N --steps K [--expect-kind KIND]...

Parses the file with json and checks, printing one line per check:
  - every rank 0..N-1 is a process (pid) named "rank R" with complete
    ("ph": "X") events, and no other pid has events;
  - each rank has exactly the step events "step 1".."step K" (or the
    steps the run trained), in order and not overlapping;
  - every other event of the ops row (tid 0) lies inside the step it names
    (args.step) and the ops of a row do not overlap (they run one after
    the other on the rank);
  - every event has ts >= 0 and dur >= 0;
  - for each --expect-kind, every rank has at least one event of that
    category (e.g. einsum, collective_permute), and the bytes of those
    events (summed per rank and step) are printed;
  - with --memory, every rank has exactly one "memory" counter ("ph": "C")
    whose peak is at least its bytes live at the start, which are > 0 (the
    allocator's high-water mark per rank; the values are printed).
Exits 1 on the first failed check.
"""
import argparse
import collections
import json
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--expect-kind", action="append", default=[])
    ap.add_argument("--memory", action="store_true")
    a = ap.parse_args()
    with open(a.trace) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    xs = [e for e in events if e["ph"] == "X"]
    by_rank = collections.defaultdict(list)
    for e in xs:
        if e["ts"] < 0 or e["dur"] < 0:
            fail("negative time in %s" % e)
        by_rank[e["pid"]].append(e)
    if sorted(by_rank) != list(range(a.ranks)):
        fail("ranks with events: %s" % sorted(by_rank))
    for r in range(a.ranks):
        if names.get(r) != "rank %d" % r:
            fail("pid %d is named %r" % (r, names.get(r)))
    print("ranks: %d, each named, %d events" % (a.ranks, len(xs)))
    eps = 1e-3  # microseconds: the file rounds to the nanosecond
    for r in range(a.ranks):
        evs = by_rank[r]
        steps = sorted((e for e in evs if e["cat"] == "step"),
                       key=lambda e: e["ts"])
        want = ["step %d" % (i + 1) for i in range(a.steps)]
        if [s["name"] for s in steps] != want:
            fail("rank %d steps %s, expected %s" %
                 (r, [s["name"] for s in steps], want))
        for s0, s1 in zip(steps, steps[1:]):
            if s0["ts"] + s0["dur"] > s1["ts"] + eps:
                fail("rank %d: %s overlaps %s" % (r, s0["name"], s1["name"]))
        span = {s["args"]["step"]: (s["ts"], s["ts"] + s["dur"])
                for s in steps}
        ops = sorted((e for e in evs if e["cat"] != "step" and e["tid"] == 0),
                     key=lambda e: e["ts"])
        if not ops:
            fail("rank %d has no ops" % r)
        for e in ops:
            b, end = span.get(e["args"]["step"], (None, None))
            if b is None or e["ts"] < b - eps or e["ts"] + e["dur"] > end + eps:
                fail("rank %d: %s (step %s) is outside its step" %
                     (r, e["name"], e["args"]["step"]))
        for e0, e1 in zip(ops, ops[1:]):
            if e0["ts"] + e0["dur"] > e1["ts"] + eps:
                fail("rank %d: %s overlaps %s" % (r, e0["name"], e1["name"]))
    print("steps: %d per rank, in order; every op inside its step, none "
          "overlapping" % a.steps)
    for kind in a.expect_kind:
        for r in range(a.ranks):
            ks = [e for e in by_rank[r] if e["cat"] == kind and e["tid"] == 0]
            if not ks:
                fail("rank %d has no %s event" % (r, kind))
            per_step = collections.Counter()
            for e in ks:
                per_step[e["args"]["step"]] += e["args"]["bytes"]
            print("rank %d %s: %d events, bytes per step %s" %
                  (r, kind, len(ks),
                   sorted(set(int(v) for v in per_step.values()))))
    if a.memory:
        for r in range(a.ranks):
            cs = [e for e in events if e["ph"] == "C" and e["pid"] == r and
                  e["name"] == "memory"]
            if len(cs) != 1:
                fail("rank %d has %d memory counters" % (r, len(cs)))
            start, peak = cs[0]["args"]["live at start"], cs[0]["args"]["peak"]
            if not 0 < start <= peak:
                fail("rank %d memory: live at start %s, peak %s" %
                     (r, start, peak))
            print("rank %d memory: live at start %d, peak %d bytes" %
                  (r, start, peak))
    print("trace: PASS")


if __name__ == "__main__":
    main()
