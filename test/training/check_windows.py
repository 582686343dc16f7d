"""tokens.test: the --print-windows lines of an uninterrupted run and of a
run resumed from its checkpoint, and their loss lines.

Checks: in every step, the two data-parallel groups (ranks 0-1: rows 0..2,
ranks 2-3: rows 2..4 of the [4, 8] batch) read different windows, and the
model-parallel peers in a group the same; the resumed run's windows and
losses for its steps equal the uninterrupted run's."""

import re
import sys


def parse(path):
    windows, losses = {}, {}
    for line in open(path):
        m = re.match(r"windows step (\d+) batch (\d+) rank (\d+) rows "
                     r"(\d+)\.\.(\d+): (.*)", line)
        if m:
            step, rank = int(m.group(1)), int(m.group(3))
            windows[(step, rank)] = (m.group(4), m.group(5),
                                     m.group(6).split())
        m = re.match(r"step (\d+) loss (\S+)", line)
        if m:
            losses[int(m.group(1))] = m.group(2)
    return windows, losses


full_w, full_l = parse(sys.argv[1])
res_w, res_l = parse(sys.argv[2])
steps = sorted({s for s, _ in full_w})
for s in steps:
    group0 = full_w[(s, 0)]
    group1 = full_w[(s, 2)]
    assert group0 == full_w[(s, 1)], (s, group0, full_w[(s, 1)])
    assert group1 == full_w[(s, 3)], (s, group1, full_w[(s, 3)])
    assert group0[:2] == ("0", "2") and group1[:2] == ("2", "4"), (s, group0,
                                                                    group1)
    assert not set(group0[2]) & set(group1[2]), (s, group0, group1)
print("uninterrupted: %d steps, data-parallel groups read different "
      "windows, model peers the same" % len(steps))
resumed = sorted({s for s, _ in res_w})
assert resumed and all(s in steps for s in resumed), (resumed, steps)
for key, value in res_w.items():
    assert full_w[key] == value, (key, full_w[key], value)
for s, loss in res_l.items():
    assert full_l[s] == loss, (s, full_l[s], loss)
print("resumed: steps %d..%d, windows and losses equal the uninterrupted "
      "run's" % (resumed[0], resumed[-1]))
