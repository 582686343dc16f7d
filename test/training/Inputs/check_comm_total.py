"""Checks a weftc comm report's total bytes per device against a bound.

Reads the text report (weftc --comm-report), prints the profile line it
ends with, then 'total bytes/device within N: PASS' or FAIL with the
measured total. A report without a total line fails.
"""
import argparse
import re
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("report")
    ap.add_argument("--max-bytes", type=int, required=True)
    args = ap.parse_args()
    total = None
    profile = None
    with open(args.report) as f:
        for line in f:
            m = re.match(r"total (\d+) collective\(s\), (\d+) bytes/device", line)
            if m:
                total = int(m.group(2))
            if line.startswith("plan priced with machine profile"):
                profile = line.strip()
    print(profile or "no profile line")
    if total is None:
        print("total bytes/device within %d: FAIL (no total line)" %
              args.max_bytes)
        return 1
    ok = total <= args.max_bytes
    print("total bytes/device within %d: %s (%d)" %
          (args.max_bytes, "PASS" if ok else "FAIL", total))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
