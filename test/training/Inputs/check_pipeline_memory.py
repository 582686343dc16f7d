#!/usr/bin/env python3
"""Compares the per-stage activation memory of two pipeline schedules
(docs/pipeline.md, "1F1B"), for test/training/pipeline-1f1b-memory.test.

usage: check_pipeline_memory.py NAME=TRACE.json ... [--less A,B]...
           [--same A,B]...

Each TRACE.json is a --trace of a pipeline run (docs/runtime.md, "Traces")
with one "memory" counter per rank: the allocator's bytes live when the
steps start ("live at start") and its high-water mark over the steps
("peak"). peak - start is what a step allocates on top of the parameters
and inputs: the activations kept for the backward pass, the gradients and
the temporaries. Prints every run's peak - start per rank, then for each
--less A,B whether A's is below B's on every rank, for each --same A,B
whether they are equal on every rank (PASS / FAIL).
"""
import argparse
import json
import sys


def peaks(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    out = {}
    for e in events:
        if e.get("ph") == "C" and e.get("name") == "memory":
            out[e["pid"]] = e["args"]["peak"] - e["args"]["live at start"]
    if not out:
        sys.exit("check_pipeline_memory.py: %s has no memory counter" % path)
    return [out[r] for r in sorted(out)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", help="NAME=TRACE.json")
    ap.add_argument("--less", action="append", default=[],
                    help="A,B: A's peak - start below B's on every rank")
    ap.add_argument("--same", action="append", default=[],
                    help="A,B: the same peak - start on every rank")
    a = ap.parse_args()
    runs = {}
    for r in a.runs:
        name, path = r.split("=", 1)
        runs[name] = peaks(path)
        print("%s: peak - start per rank, KiB: %s" %
              (name, " ".join("%.1f" % (v / 1024) for v in runs[name])))
    ok = True
    for pair in a.same:
        x, y = pair.split(",")
        good = runs[x] == runs[y]
        ok &= good
        print("%s = %s on every rank: %s" % (x, y, "PASS" if good else "FAIL"))
    for pair in a.less:
        x, y = pair.split(",")
        good = len(runs[x]) == len(runs[y]) and all(
            u < v for u, v in zip(runs[x], runs[y]))
        ok &= good
        print("%s < %s on every rank: %s" % (x, y, "PASS" if good else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
