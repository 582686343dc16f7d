"""Checks that a pipeline's point-to-point bytes are exactly its boundary
activations' (docs/pipeline.md), for test/training/pipeline-*.test.

usage: check_p2p.py REPORT.json --ticks T --slot B,D[,...] --data Q

REPORT.json is weftc --comm-report=json of a program written by
bench/pipeline/make_pipeline_mlp.py (or make_pipeline_lm.py): T ticks move
T - 1 boundary slots forward and T - 1 cotangent slots backward; a slot is
one micro-batch's activation [1, 1, B/Q, D, ...] f32 on each rank (B rows
split over Q data ranks; the LM's is [1, 1, B/Q, t, d]). The expected
bytes come from those sizes, not from the report. Prints the permutes' count and bytes and the other collectives' kinds.
"""
import argparse
import collections
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--ticks", type=int, required=True)
    ap.add_argument("--slot", required=True, help="B,D[,...]")
    ap.add_argument("--data", type=int, default=1)
    a = ap.parse_args()
    dims = [int(v) for v in a.slot.split(",")]
    slot = dims[0] // a.data * 4
    for n in dims[1:]:
        slot *= n
    with open(a.report) as f:
        rep = json.load(f)
    perms = [c for c in rep["collectives"] if c["kind"] == "collective_permute"]
    want_n = 2 * (a.ticks - 1)
    got = sum(c["bytes_per_device"] for c in perms)
    ok = len(perms) == want_n and got == want_n * slot and all(
        c["bytes_per_device"] == slot for c in perms)
    print("permutes: %d, %d bytes per device; boundary slots: %d x %d bytes "
          "= %d: %s" % (len(perms), got, want_n, slot, want_n * slot,
                        "PASS" if ok else "FAIL"))
    others = collections.Counter(c["kind"] for c in rep["collectives"]
                                 if c["kind"] != "collective_permute")
    print("other collectives: %s" %
          (", ".join("%s x%d" % kv for kv in sorted(others.items())) or
           "none"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
