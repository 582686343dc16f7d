#!/usr/bin/env python3
"""Mutation fuzzer of the compiler's front end and pipeline.

  scripts/fuzz-mutate.py --bin build/bin [--seed S] [--count N] [--seconds T]
                         [--keep DIR] [CORPUS.mlir ...]

Takes the examples and the lit inputs (default: examples/**/*.mlir and
test/**/*.mlir, split at `// -----`), applies random text mutations (sizes
set to 0, 1, -1, 2^31, 2^62, 2^63-1 ...; axis sizes and names changed;
letters of specs dropped or swapped; lines deleted, duplicated or truncated;
bytes flipped) and runs each mutant through

  1. weft-opt --weft-propagate --weft-pad-uneven --weft-partition
     --weft-optimize-collectives
  2. weft-interp MUTANT --compare LOCAL   (when step 1 accepted the mutant)
  3. weftc MUTANT --emit=local             (weftc's front end)

A tool may accept or reject a mutant (exit 0 or 1, a diagnostic). A crash
(a signal, an exit code other than 0/1, 'LLVM ERROR', 'Stack dump',
'PLEASE submit a bug report', an uncaught exception), a hang (a timeout), a
rejection without a diagnostic, or a MISMATCH from weft-interp (the
partitioned program computes something else) is a failure: the mutant is
written to --keep (default: build/fuzz-mutate-failures) with the command.

Deterministic: the same seed and corpus give the same mutants. Prints
`fuzz-mutate: N mutants, A accepted by the pipeline, C compared, F failures`
and exits 1 if F > 0. The CI run is lit's test/Fuzz/mutate.test; a long run
is `scripts/fuzz-mutate.py --bin build/bin --count 100000 --seconds 3600`.
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRASH_MARKERS = ("LLVM ERROR", "Stack dump", "PLEASE submit a bug report",
                 "terminate called", "Assertion", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "runtime error:")
INTERESTING_NUMBERS = ["0", "1", "-1", "2", "3", "7", "1024", "65537",
                       "2147483648", "4294967296", "4611686018427387904",
                       "9223372036854775807", "18446744073709551616"]
AXIS_NAMES = ['"model"', '"data"', '"nope"', '""', '"a"']


def corpus(paths):
    units = []
    for path in paths:
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for part in text.split("// -----"):
            if "weft." in part:
                units.append(part)
    return units


def mutate(text, rng):
    """One to three random edits."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(9)
        if kind == 0:  # a number (sizes, axis sizes, dims)
            nums = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", text))
            if nums:
                m = rng.choice(nums)
                text = text[:m.start()] + rng.choice(INTERESTING_NUMBERS) + \
                    text[m.end():]
        elif kind == 1:  # a dimension of a tensor type
            dims = list(re.finditer(r"(?<=[<x])\d+(?=x)", text))
            if dims:
                m = rng.choice(dims)
                text = text[:m.start()] + rng.choice(INTERESTING_NUMBERS) + \
                    text[m.end():]
        elif kind == 2:  # an axis name
            names = list(re.finditer(r'"[A-Za-z_]\w*"', text))
            if names:
                m = rng.choice(names)
                text = text[:m.start()] + rng.choice(AXIS_NAMES) + \
                    text[m.end():]
        elif kind == 3:  # a spec's letters
            specs = list(re.finditer(r'"([a-zA-Z,]*->[a-zA-Z]*)"', text))
            if specs:
                m = rng.choice(specs)
                s = list(m.group(1))
                letters = [i for i, c in enumerate(s) if c.isalpha()]
                if letters:
                    i = rng.choice(letters)
                    op = rng.randrange(3)
                    if op == 0:
                        del s[i]
                    elif op == 1:
                        s[i] = rng.choice("abcdefxyz")
                    else:
                        j = rng.choice(letters)
                        s[i], s[j] = s[j], s[i]
                text = text[:m.start(1)] + "".join(s) + text[m.end(1):]
        elif kind == 4:  # delete a line
            lines = text.split("\n")
            if len(lines) > 1:
                del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 5:  # duplicate a line
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 6:  # truncate
            if text:
                text = text[:rng.randrange(len(text))]
        elif kind == 7:  # flip a byte
            if text:
                i = rng.randrange(len(text))
                text = text[:i] + chr(rng.choice([0x7b, 0x7d, 0x5b, 0x5d, 0x3c,
                                                  0x3e, 0x2c, 0x22, 0x40,
                                                  0x25, 0x30, 0x7f])) + \
                    text[i + 1:]
        else:  # drop or change a sharding
            shard = list(re.finditer(r"\{\"?[\w\"]*\"?\}", text))
            if shard:
                m = rng.choice(shard)
                text = text[:m.start()] + rng.choice(
                    ["{}", '{"model"}', '{"data", "model"}', '{"model", "model"}']
                ) + text[m.end():]
    return text


def too_big_to_compare(text):
    """Whether weft-interp would simulate for long (its time grows with the
    ranks times the work): more than 64 devices or a tensor of 2^22
    elements or more (P8's enlarged dy, 16x256x1024, took 9.5 s to compare
    in a release build and timed out under ASan). Such mutants still go
    through weft-opt and weftc."""
    for m in re.finditer(r"weft\.mesh\s+@\w+\s*\[([^\]]*)\]", text):
        devices = 1
        for size in re.findall(r"=\s*(\d+)", m.group(1)):
            devices *= int(size)
        if devices > 64:
            return True
    for m in re.finditer(r"tensor<((?:\d+x)+)", text):
        elements = 1
        for d in m.group(1).rstrip("x").split("x"):
            elements *= int(d)
        if elements >= 1 << 22:
            return True
    return False


def run(cmd, timeout):
    """(status, output): status is the exit code, 'timeout' or 'signal N'."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout,
                           errors="replace", text=True)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    if p.returncode < 0:
        return "signal %d" % -p.returncode, p.stdout
    return p.returncode, p.stdout


def verdict(status, out, what):
    """None when fine, else why it is a failure."""
    if status not in (0, 1):
        return "%s: %s" % (what, status)
    for marker in CRASH_MARKERS:
        if marker in out:
            return "%s: output contains %r" % (what, marker)
    if status == 1 and "error" not in out:
        return "%s: exit 1 without a diagnostic" % what
    return None


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--seconds", type=float, default=0,
                   help="stop after this long too (0: no limit)")
    p.add_argument("--timeout", type=float, default=20,
                   help="per tool call (a hang is a failure)")
    p.add_argument("--keep", default=None)
    p.add_argument("--weftc-flag", action="append", default=[],
                   help="an extra weftc flag (repeat), e.g. "
                        "--weftc-flag=--pipeline-stages=2 to fuzz "
                        "weft-stage-calls")
    p.add_argument("--no-weftc", action="store_true")
    p.add_argument("corpus", nargs="*")
    a = p.parse_args(argv[1:])
    paths = a.corpus or sorted(
        glob.glob(os.path.join(ROOT, "examples", "**", "*.mlir"),
                  recursive=True) +
        glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"), recursive=True))
    units = corpus(paths)
    if not units:
        print("fuzz-mutate: empty corpus")
        return 1
    keep = a.keep or os.path.join(ROOT, "build", "fuzz-mutate-failures")
    rng = random.Random(a.seed)
    opt = os.path.join(a.bin, "weft-opt")
    interp = os.path.join(a.bin, "weft-interp")
    weftc = os.path.join(a.bin, "weftc")
    start = time.time()
    n = accepted = compared = weftc_ok = 0
    failures = []
    with tempfile.TemporaryDirectory(prefix="weft-fuzz-") as tmp:
        src = os.path.join(tmp, "mutant.mlir")
        local = os.path.join(tmp, "local.mlir")
        for n in range(1, a.count + 1):
            if a.seconds and time.time() - start > a.seconds:
                n -= 1
                break
            text = mutate(rng.choice(units), rng)
            with open(src, "w") as f:
                f.write(text)
            steps = [([opt, src, "--weft-propagate", "--weft-pad-uneven",
                       "--weft-partition",
                       "--weft-optimize-collectives", "-o", local],
                      "weft-opt")]
            problems = []
            status, out = run(steps[0][0], a.timeout)
            why = verdict(status, out, "weft-opt")
            if why:
                problems.append((why, steps[0][0], out))
            elif status == 0 and too_big_to_compare(text):
                accepted += 1
            elif status == 0:
                accepted += 1
                cmd = [interp, src, "--compare", local, "--all-funcs"]
                status, out = run(cmd, a.timeout)
                why = verdict(status, out, "weft-interp --compare")
                if why is None and "MISMATCH" in out:
                    why = "weft-interp --compare: MISMATCH (wrong answer)"
                if why:
                    problems.append((why, cmd, out))
                elif status == 0:
                    compared += 1
            if not a.no_weftc:
                cmd = [weftc, src, "--emit=local", "-o", os.devnull]
                status, out = run(cmd, a.timeout)
                why = verdict(status, out, "weftc --emit=local")
                if why:
                    problems.append((why, cmd, out))
                elif status == 0:
                    weftc_ok += 1
            for why, cmd, out in problems:
                os.makedirs(keep, exist_ok=True)
                path = os.path.join(keep, "seed%d-mutant%d.mlir" % (a.seed, n))
                with open(path, "w") as f:
                    f.write(text)
                failures.append(path)
                print("FAILURE mutant %d: %s\n  kept: %s\n  command: %s\n%s" % (
                    n, why, path, " ".join(cmd), out[-2000:]))
    print("fuzz-mutate: %d mutants, %d accepted by the pipeline, %d compared, "
          "%d accepted by weftc, %d failures (seed %d, %.0f s)" % (
              n, accepted, compared, weftc_ok, len(failures), a.seed,
              time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
