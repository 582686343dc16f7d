"""Checks that a pipeline's point-to-point bytes are exactly its boundary
activations' (docs/pipeline.md), for test/training/pipeline-*.test.

usage: check_p2p.py REPORT.json --ticks T --slot B,D[,...] --data Q
                    [--model-slots K]

REPORT.json is weftc --comm-report=json of a program written by
bench/pipeline/make_pipeline_mlp.py (or make_pipeline_1f1b.py,
make_pipeline_lm.py): T ticks move T - 1 boundary slots forward and T - 1
cotangent slots backward; a slot is one micro-batch's activation
[1, 1, B/Q, D, ...] f32 on each rank (B rows split over Q data ranks; the
LM's is [1, 1, B/Q, t, d]). The expected bytes come from those sizes, not
from the report. With --model-slots K (tensor parallelism inside the
stages), the all-reduces over ["model"] must move exactly K slots in all
(each a whole number of slots: the partitioner may combine two into one),
i.e. K x slot bytes per device (a ring over 2 ranks moves the buffer once).
Prints the permutes' count and bytes, the model all-reduces' bytes (with
--model-slots) and the other collectives' kinds.
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
    ap.add_argument("--model-slots", type=int, default=None)
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
    counted = {id(c) for c in perms}
    if a.model_slots is not None:
        tp = [c for c in rep["collectives"]
              if c["kind"] == "all_reduce" and c["axes"] == ["model"]]
        counted |= {id(c) for c in tp}
        got = sum(c["bytes_per_device"] for c in tp)
        want = a.model_slots * slot
        tp_ok = got == want and all(c["bytes_per_device"] % slot == 0
                                    for c in tp)
        print("all-reduces over model: %d bytes per device; %d slots x %d "
              "bytes = %d: %s" % (got, a.model_slots, slot, want,
                                  "PASS" if tp_ok else "FAIL"))
        ok = ok and tp_ok
    others = collections.Counter(c["kind"] for c in rep["collectives"]
                                 if id(c) not in counted)
    print("other collectives: %s" %
          (", ".join("%s x%d" % kv for kv in sorted(others.items())) or
           "none"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
