"""Fails if a pass source names a concrete weft op class.

Usage: op_class_names.py WeftOps.td OWN_FILE -- PASS_FILE...

The op class names come from WeftOps.td (`def Weft_XOp : ...Op<` gives the
C++ class `XOp`), never from a hand list, so a new op is covered as soon
as it is defined. OWN_FILE (the ops' own file) must name some of them: a
self-check that the names were read right, so this test cannot pass by
finding no names at all. Each PASS_FILE must name none: passes reach ops
through their interfaces (docs/design.md, "What a new op touches").
"""

import re
import sys


def op_classes(td_path):
    text = open(td_path).read()
    names = re.findall(r"^def\s+Weft_(\w+)\s*:\s*(?:Weft_\w*Op|Op)\s*<",
                       text, re.M)
    return sorted(set(names))


def main():
    args = sys.argv[1:]
    sep = args.index("--")
    td, own = args[:sep]
    passes = args[sep + 1:]
    names = op_classes(td)
    if len(names) < 10:
        print("error: read only %d op classes from %s: %s" %
              (len(names), td, names))
        return 1
    pattern = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, names)))
    own_hits = set(pattern.findall(open(own).read()))
    if len(own_hits) < 10:
        print("error: self-check: %s names only %s" % (own, sorted(own_hits)))
        return 1
    bad = 0
    for path in passes:
        for number, line in enumerate(open(path), 1):
            for m in pattern.finditer(line):
                print("%s:%d: names op class %s: %s" %
                      (path, number, m.group(1), line.strip()))
                bad += 1
    if bad:
        return 1
    print("%d op classes; none named in %d pass sources" %
          (len(names), len(passes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
