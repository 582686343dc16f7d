"""`weft.explain(program)`: weft-propagate's explanation, summarized per
layer call.

`weft-opt --weft-inline-calls --weft-propagate=explain` writes one remark
per op (its letters, where they came from, its cost and the collectives
its operands need: docs/propagation.md, "Explanations"), hundreds of
lines for a model. An op a layer call inlined carries the call's site
(MLIR's CallSiteLoc, printed as a "called from" note), so the remarks
group by call: this module reads them back and prints one line per call
of the entry function (and per stretch of entry ops between calls), with
its op count, its estimated bytes per device and its collectives.

A Python loop calls every block from the same line, so the site alone
does not tell the blocks apart. The remarks are in program order and the
inliner puts each call's ops in place, one call after another, so a
site's remarks split into its calls by the callees' op counts; the k-th
call from a site is the k-th call the trace emitted there, which names it
(a module's path, `layers.3`, or the layer's symbol).
"""

import os
import re
import tempfile

from .compiler import find_tool
from .errors import WeftcError

_REMARK = re.compile(r"^(.*):(\d+):(\d+): remark: (.*)$")
_NOTE = re.compile(r"^(.*):(\d+):(\d+): note: called from$")
_COST = re.compile(r"^\s+cost (\S+) (B|KiB|MiB) per device")
_COLL = re.compile(r": (all_gather|all_reduce|reduce_scatter|all_to_all|"
                   r"slice|collective_permute)\S* over (\{[^}]*\})")
_UNIT = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}


class _Remark:
    __slots__ = ("loc", "text", "chain", "cost", "collectives")

    def __init__(self, loc, text):
        self.loc = loc
        self.text = text
        self.chain = []         # call sites, innermost first
        self.cost = 0.0
        self.collectives = []


def parse_remarks(stderr):
    """The op remarks of weft-propagate=explain, and its summary lines."""
    remarks, summary = [], []
    last = None
    for line in stderr.splitlines():
        m = _REMARK.match(line)
        if m:
            loc = (m.group(1), int(m.group(2)), int(m.group(3)))
            if m.group(4).startswith("weft-propagate:"):
                summary.append(m.group(4))
                last = None
                continue
            last = _Remark(loc, m.group(4))
            remarks.append(last)
            continue
        m = _NOTE.match(line)
        if m and last is not None:
            last.chain.append((m.group(1), int(m.group(2)), int(m.group(3))))
            continue
        if last is None:
            continue
        m = _COST.match(line)
        if m:
            last.cost = float(m.group(1)) * _UNIT[m.group(2)]
            continue
        m = _COLL.search(line)
        if m and line.startswith("    "):
            last.collectives.append((m.group(1), m.group(2)))
    return remarks, summary


def _fmt_bytes(b):
    if b >= 1024 * 1024:
        return "%.2f MiB" % (b / 1024 / 1024)
    if b >= 1024:
        return "%.1f KiB" % (b / 1024)
    return "%d B" % b


def _op_counts(text):
    """Ops per function of the module text, its calls expanded (what the
    inliner leaves of one call)."""
    bodies, name = {}, None
    for line in text.splitlines():
        m = re.match(r"func\.func (?:private )?@(\w+)\(", line)
        if m:
            name = m.group(1)
            bodies[name] = []
            continue
        if name is None:
            continue
        if line.startswith("}"):
            name = None
            continue
        m = re.match(r"\s+(?:%\S+ = )?(func\.call @(\w+)|weft\.\w+)", line)
        if m:
            bodies[name].append(m.group(2) or "")
    memo = {}

    def count(f):
        if f not in memo:
            memo[f] = sum(count(c) if c else 1 for c in bodies.get(f, []))
        return memo[f]

    return {f: count(f) for f in bodies}


def summarize(remarks, calls=(), text=""):
    """Segments of `remarks`: [(label, site, remarks)] in program order.

    The calls from one site are told apart by their op counts: all of a
    site's calls to one callee have the same number of ops (from the total
    when the site calls one function, else counted in `text`). When the
    counts do not add up, a site's calls stay one segment."""
    total = {}
    for r in remarks:
        if r.chain:
            total[r.chain[-1]] = total.get(r.chain[-1], 0) + 1
    per_site = {}
    counts = None
    for site, n in total.items():
        here = [c for c in calls if (c[0].file, c[0].line, c[0].col) == site]
        sizes = None
        if here and len({c[1] for c in here}) == 1 and n % len(here) == 0:
            sizes = [n // len(here)] * len(here)
        elif here:
            counts = counts if counts is not None else _op_counts(text)
            sizes = [counts.get(c[1], 0) for c in here]
            if sum(sizes) != n or 0 in sizes:
                sizes = None
        if sizes is None:
            here = [(None, None, "%d call(s) at %s:%d" % (
                max(1, len(here)), os.path.basename(site[0]), site[1]))]
            sizes = [n]
        per_site[site] = [[c[2], k] for c, k in zip(here, sizes)]
    segments = []
    left = 0
    for r in remarks:
        site = r.chain[-1] if r.chain else None
        cur = segments[-1] if segments else None
        if site is None:
            if cur is None or cur[1] is not None:
                segments.append(["(entry)", None, []])
        elif cur is None or cur[1] != site or left == 0:
            label, left = per_site[site].pop(0)
            segments.append([label, site, []])
        if site is not None:
            left -= 1
        segments[-1][2].append(r)
    return segments


def format_summary(segments, summary):
    rows = []
    width = max([len(s[0]) for s in segments] + [8])
    for label, site, rs in segments:
        kinds = {}
        for r in rs:
            for kind, axes in r.collectives:
                kinds[(kind, axes)] = kinds.get((kind, axes), 0) + 1
        colls = ", ".join("%s %s x%d" % (k, a, n) if n > 1 else
                          "%s %s" % (k, a)
                          for (k, a), n in sorted(kinds.items()))
        rows.append("%-*s %4d ops  %10s  %s" % (
            width, label, len(rs), _fmt_bytes(sum(r.cost for r in rs)),
            colls or "no collective"))
    return "\n".join(rows + summary) + "\n"


def explain(program, tool=None, per_layer=True, extra_args=()):
    """weft-propagate's explanation of `program`: per layer call (one line
    each) by default, the full remarks with `per_layer=False`."""
    import subprocess
    with tempfile.TemporaryDirectory(prefix="weft-explain-") as d:
        path = program.save(os.path.join(d, "%s.mlir" % program.name))
        command = [find_tool("weft-opt", tool), path, "--weft-inline-calls",
                   "--weft-propagate=explain",
                   "--mlir-print-op-on-diagnostic=false", "-o",
                   os.devnull] + list(extra_args)
        proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise WeftcError(command, proc.returncode,
                         (proc.stderr + proc.stdout).strip())
    if not per_layer:
        return proc.stderr
    remarks, summary = parse_remarks(proc.stderr)
    return format_summary(summarize(remarks, program.calls, program.mlir),
                          summary)
