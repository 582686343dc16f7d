"""Checks of --init (test/training/init.test).

params DIR_A DIR_B...   the initial parameters each run wrote (one step at
                        lr 0): equal across runs (bit for bit), and each
                        drawn as its rule says: W1 normal:0.3, W4 zeros,
                        W2 and W3 scaled:1 (std 1/sqrt(32) for 32x32)
losses LOG_A LOG_B      the 'step T loss L' lines agree to 1e-5 relative
"""
import math
import os
import re
import sys

import numpy as np


def load(d, name):
    return np.load(os.path.join(d, name + ".npy")).astype(np.float64)


def params(dirs):
    bad = 0
    first = dirs[0]
    for d in dirs[1:]:
        for n in ["W1", "W2", "W3", "W4"]:
            same = np.array_equal(load(first, n), load(d, n))
            bad += not same
            print("%s %s equals %s: %s" % (os.path.basename(d), n,
                                          os.path.basename(first),
                                          "yes" if same else "NO"))
    # 1024 samples: the sample std is within 10% of the rule's with
    # overwhelming probability (its relative error is ~1/sqrt(2048) = 2%).
    want = {"W1": 0.3, "W2": 1 / math.sqrt(32), "W3": 1 / math.sqrt(32)}
    for n, sd in want.items():
        w = load(first, n)
        ok = abs(w.std() / sd - 1) < 0.1 and abs(w.mean()) < 0.2 * sd
        bad += not ok
        print("%s std %.4f (rule %.4f), mean %.4f: %s" % (
            n, w.std(), sd, w.mean(), "ok" if ok else "WRONG"))
    z = load(first, "W4")
    bad += bool(np.any(z != 0))
    print("W4 zeros: %s" % ("ok" if not np.any(z != 0) else "WRONG"))
    return bad


def losses(path):
    out = {}
    for line in open(path):
        m = re.match(r"step (\d+) loss (\S+)", line)
        if m:
            out[int(m.group(1))] = float(m.group(2))
    return out


def main():
    cmd = sys.argv[1]
    if cmd == "params":
        return 1 if params(sys.argv[2:]) else 0
    a, b = losses(sys.argv[2]), losses(sys.argv[3])
    worst = max(abs(a[t] - b[t]) / abs(b[t]) for t in b) if a.keys() == b.keys() and b else math.inf
    ok = len(b) > 0 and worst <= 1e-5
    print("%d steps, first loss %s, last %s, max relative difference %.2e: %s"
          % (len(b), b.get(1), b.get(len(b)), worst, "ok" if ok else "DIFFERENT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
