#!/usr/bin/env python3
"""Weft vs upstream MLIR's shard passes on an N-layer MLP chain (compile
time). The same program (gen_mlp_chain.py: N Megatron MLP layers, x[b,d]
replicated, w1_i[d,f] and w2_i[f,d] split f on a 4-way mesh axis, the
result replicated) is written twice and run through

  Weft:     weft-opt --weft-propagate --weft-partition
  upstream: mlir-opt --pass-pipeline=
              'builtin.module(func.func(sharding-propagation,shard-partition))'

(upstream's passes are function passes: `mlir-opt --sharding-propagation
--shard-partition` alone is refused, "unable to schedule pass on a
PassManager intended to run on 'builtin.module'").

Every run first checks N=2 through both tools (the --check mode) and that
both outputs contain the collectives (one all-reduce per layer), so the
comparison is of real work; at each timed N the untimed output is checked
the same way (N all-reduces each). Then, for each N in --sizes, in one run,
interleaved: the two passes' own wall times summed (from --mlir-timing;
parsing and printing excluded) and the whole process's wall time, median of
--repeats. It prints the ratio upstream / Weft for both, Weft's time per
1000 ops, and time(largest N) / time(smallest N) against the ops ratio
(linear: equal). By default each configuration runs twice: with MLIR's
verifier after each pass (the tools' default; --mlir-timing counts it in
the pass's time) and with --verify-each=false (the pass bodies alone; the
verifier's share differs between the two tools). If weft-opt's
--weft-propagate has a `search=` option, Weft runs once with the default
and once with search=greedy. With --instructions, also the instruction
count of each tool's func.func pipeline under callgrind (deterministic, so
comparable on a loaded machine).

The upstream tool is an optional baseline: when no mlir-opt with the shard
passes is found (--mlir-opt PATH, else /usr/lib/llvm-22/bin/mlir-opt, else
mlir-opt-22 on PATH), it says so and exits 0. A benchmark, not a test:
nothing fails on timing.
Usage: bench_vs_upstream.py [--weft-opt PATH] [--mlir-opt PATH]
                            [--sizes 1000,5000] [--repeats 3] [--check]
                            [--verify default|off|both] [--instructions]
                            [--keep DIR]"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
GEN = os.path.join(HERE, "gen_mlp_chain.py")
UPSTREAM_PIPELINE = "builtin.module(func.func(sharding-propagation,shard-partition))"
WEFT_PASSES = ("WeftPropagate", "WeftPartition")
UPSTREAM_PASSES = ("ShardingPropagation", "Partition")
WEFT_COLLECTIVE = re.compile(r"\bweft\.(all_reduce|all_gather|reduce_scatter|all_to_all)\b")
UPSTREAM_COLLECTIVE = re.compile(
    r"\bshard\.(all_reduce|all_gather|reduce_scatter|all_to_all|all_slice|broadcast)\b")


def find_mlir_opt(explicit):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for cand in ("/usr/lib/llvm-22/bin/mlir-opt", shutil.which("mlir-opt-22")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(0)


def generate(dialect, n, path):
    out = subprocess.run([sys.executable, GEN, "--dialect", dialect, str(n), path],
                         check=True, capture_output=True, text=True).stdout
    return int(re.search(r"(\d+) ops", out).group(1))


def weft_cmd(weft_opt, prop_flag, path):
    return [weft_opt, prop_flag, "--weft-partition", path]


def upstream_cmd(mlir_opt, path):
    return [mlir_opt, f"--pass-pipeline={UPSTREAM_PIPELINE}", path]


def pass_seconds(timing, name):
    """Wall time of pass NAME in an --mlir-timing report (the last column
    before the name: with threading, User Time comes before Wall Time)."""
    for line in timing.splitlines():
        m = re.match(r"^\s*((?:[0-9.]+ \(\s*[0-9.]+%\)\s+)+)" + re.escape(name) + r"\s*$", line)
        if m:
            return float(re.findall(r"([0-9.]+) \(", m.group(1))[-1])
    sys.exit(f"no {name} line in --mlir-timing output:\n{timing}")


def timed_run(cmd, passes):
    """(sum of PASSES' wall times, per-pass times, process wall time)."""
    t0 = time.perf_counter()
    p = subprocess.run([*cmd, "--mlir-timing", "-o", os.devnull],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-4000:]}")
    each = [pass_seconds(p.stderr, n) for n in passes]
    return sum(each), each, wall


def collectives(cmd, pattern):
    """Runs CMD, returns (returncode, stderr, {collective: count})."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    counts = {}
    if p.returncode == 0:
        for m in pattern.finditer(p.stdout):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return p.returncode, p.stderr, counts


def fmt_counts(c):
    return ", ".join(f"{v} {k}" for k, v in sorted(c.items())) or "none"


def check(weft_opt, mlir_opt, tmp, n=2, prop_flag="--weft-propagate"):
    """N layers through both tools; each must emit N all-reduces.
    Returns None, or (for upstream only) the reason to skip."""
    wpath, upath = os.path.join(tmp, f"check_weft_{n}.mlir"), os.path.join(tmp, f"check_up_{n}.mlir")
    generate("weft", n, wpath)
    generate("upstream", n, upath)
    rc, err, wc = collectives(weft_cmd(weft_opt, prop_flag, wpath), WEFT_COLLECTIVE)
    if rc != 0:
        sys.exit(f"weft-opt failed on the N={n} chain:\n{err[-4000:]}")
    if wc.get("all_reduce", 0) != n:
        sys.exit(f"weft-opt: expected {n} all_reduce on the N={n} chain, got {fmt_counts(wc)}")
    rc, err, uc = collectives(upstream_cmd(mlir_opt, upath), UPSTREAM_COLLECTIVE)
    if rc != 0:
        return f"{mlir_opt} does not run the shard passes on the N={n} chain:\n{err[-2000:]}"
    if uc.get("all_reduce", 0) != n:
        return (f"{mlir_opt}: expected {n} shard.all_reduce on the N={n} chain, got "
                f"{fmt_counts(uc)} (the upstream pipeline does not do the same work)")
    print(f"check N={n}: weft {fmt_counts(wc)}; upstream {fmt_counts(uc)}", flush=True)
    return None


def pipeline_instructions(cmd, tmp):
    """Inclusive instructions of the func.func pipeline (both passes, and the
    verifier after each unless --verify-each=false) under callgrind:
    OpToOpPassAdaptor::runOnOperation[Async]Impl, the same libMLIR symbol in
    both tools. Deterministic: the algorithmic cost without the machine."""
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    *cmd, "-o", os.devnull], check=True, capture_output=True)
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                            check=True, capture_output=True, text=True).stdout
    m = re.search(r"^\s*([0-9,]+) .*OpToOpPassAdaptor::runOnOperation(?:Async)?Impl\(bool\) ",
                  report, re.M)
    if not m:
        sys.exit("no OpToOpPassAdaptor::runOnOperation[Async]Impl in the callgrind report")
    return int(m.group(1).replace(",", ""))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def search_variants(weft_opt, tmp):
    """[(label, --weft-propagate flag)] and a note on the search option."""
    helptext = subprocess.run([weft_opt, "--help"], capture_output=True, text=True).stdout
    m = re.search(r"--weft-propagate\b.*?(?=\n {0,6}--|\Z)", helptext, re.S)
    if not m or "--search=" not in m.group(0):
        return [("-", "--weft-propagate")], "this weft-opt's --weft-propagate has no search= option"
    probe = os.path.join(tmp, "probe.mlir")
    generate("weft", 1, probe)
    bogus = subprocess.run([weft_opt, "--weft-propagate=search=no-such-search", probe,
                            "-o", os.devnull], capture_output=True, text=True)
    note = "search= accepted; default global"
    if bogus.returncode == 0:
        note += ("; NOTE: it also accepts search=no-such-search without error, so this "
                 "binary probably does not read the option (both rows then run the same code)")
    return [("global", "--weft-propagate"), ("greedy", "--weft-propagate=search=greedy")], note


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft-opt", default=os.path.join(ROOT, "build", "bin", "weft-opt"))
    ap.add_argument("--mlir-opt", default=None,
                    help="upstream mlir-opt (default /usr/lib/llvm-22/bin/mlir-opt, then mlir-opt-22)")
    ap.add_argument("--sizes", default="1000,5000", help="layer counts N")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--check", action="store_true",
                    help="only check N=2 through both tools (collectives present) and exit")
    ap.add_argument("--keep", metavar="DIR", help="write the generated programs here")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the function pipeline's instructions under valgrind's "
                         "callgrind (deterministic; slow: minutes at N=5000)")
    ap.add_argument("--verify", choices=("default", "off", "both"), default="both",
                    help="time with MLIR's verifier after each pass (default), with "
                         "--verify-each=false (off), or both (the default)")
    a = ap.parse_args()

    mlir_opt = find_mlir_opt(a.mlir_opt)
    if not mlir_opt:
        skip("no upstream mlir-opt (--mlir-opt PATH, /usr/lib/llvm-22/bin/mlir-opt or "
             "mlir-opt-22 on PATH): the upstream baseline is optional")
    helptext = subprocess.run([mlir_opt, "--help"], capture_output=True, text=True).stdout
    if "--sharding-propagation" not in helptext or "--shard-partition" not in helptext:
        skip(f"{mlir_opt} has no --sharding-propagation / --shard-partition "
             "(needs MLIR with the `shard` dialect, LLVM 21+)")
    if not os.access(a.weft_opt, os.X_OK):
        sys.exit(f"no weft-opt at {a.weft_opt} (--weft-opt PATH)")

    with tempfile.TemporaryDirectory() as scratch:
        tmp = a.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        reason = check(a.weft_opt, mlir_opt, tmp)
        if reason:
            skip(reason)
        if a.check:
            return
        sizes = [int(s) for s in a.sizes.split(",")]
        variants, note = search_variants(a.weft_opt, tmp)
        ver = subprocess.run([mlir_opt, "--version"], capture_output=True, text=True).stdout
        ver = re.search(r"LLVM version (\S+)", ver)
        print(f"cpu: {cpu_model()}, nproc {os.cpu_count()}")
        print(f"weft-opt: {a.weft_opt}; {note}")
        print(f"upstream: {mlir_opt} (LLVM {ver.group(1) if ver else '?'}), "
              f"--pass-pipeline='{UPSTREAM_PIPELINE}'")
        print(f"median of {a.repeats}; pass s = the two passes' wall times (--mlir-timing), "
              "wall s = the whole process", flush=True)

        verifies = {"default": [("on", [])], "off": [("off", ["--verify-each=false"])],
                    "both": [("on", []), ("off", ["--verify-each=false"])]}[a.verify]
        res = {}
        for n in sizes:
            wpath, upath = os.path.join(tmp, f"weft_{n}.mlir"), os.path.join(tmp, f"up_{n}.mlir")
            wops, uops = generate("weft", n, wpath), generate("upstream", n, upath)
            # Untimed: the same work at this size (n all-reduces each).
            rc, err, wc = collectives(weft_cmd(a.weft_opt, variants[0][1], wpath), WEFT_COLLECTIVE)
            rc2, err2, uc = collectives(upstream_cmd(mlir_opt, upath), UPSTREAM_COLLECTIVE)
            if rc or rc2 or wc.get("all_reduce") != n or uc.get("all_reduce") != n:
                sys.exit(f"N={n}: weft rc {rc} {fmt_counts(wc)}; upstream rc {rc2} "
                         f"{fmt_counts(uc)}\n{err[-2000:]}{err2[-2000:]}")
            runs = {}
            for r in range(a.repeats):
                order = []
                for vlabel, vflags in verifies:
                    order += [((vlabel, label), weft_cmd(a.weft_opt, flag, wpath) + vflags, WEFT_PASSES)
                              for label, flag in variants]
                    order.append(((vlabel, "upstream"), upstream_cmd(mlir_opt, upath) + vflags,
                                  UPSTREAM_PASSES))
                if r % 2:
                    order.reverse()
                for key, cmd, passes in order:
                    runs.setdefault(key, []).append(timed_run(cmd, passes))
            res[n] = {"wops": wops, "uops": uops}
            for key, rs in runs.items():
                res[n][key] = (statistics.median(x[0] for x in rs),
                               [statistics.median(x[1][i] for x in rs) for i in range(2)],
                               statistics.median(x[2] for x in rs))
            print(f"N={n}: {wops} weft ops, {uops} upstream ops, {n} all-reduces each "
                  "(checked); timed", flush=True)

        print()
        print("verify: on = MLIR's default verifier after each pass (counted in the pass's "
              "time by --mlir-timing), off = --verify-each=false (both tools)")
        print(f"{'N':>6} {'weft ops':>8} {'up ops':>7} {'verify':>6} {'search':>7} | "
              f"{'weft pass s':>11} {'up pass s':>10} {'up/weft':>7} | {'weft wall s':>11} "
              f"{'up wall s':>10} {'up/weft':>7} | {'weft ms/1000 ops':>16}")
        for vlabel, _ in verifies:
            for n in sizes:
                r = res[n]
                up = r[(vlabel, "upstream")]
                for label, _ in variants:
                    w = r[(vlabel, label)]
                    print(f"{n:>6} {r['wops']:>8} {r['uops']:>7} {vlabel:>6} {label:>7} | "
                          f"{w[0]:>11.4f} {up[0]:>10.4f} {up[0] / w[0]:>7.2f} | {w[2]:>11.4f} "
                          f"{up[2]:>10.4f} {up[2] / w[2]:>7.2f} | {1e6 * w[0] / r['wops']:>16.2f}")
        print()
        print("per pass (median s):")
        for vlabel, _ in verifies:
            for n in sizes:
                r = res[n]
                for label, _ in variants:
                    p = r[(vlabel, label)][1]
                    print(f"  verify {vlabel}, N={n} weft ({label}): WeftPropagate {p[0]:.4f}, "
                          f"WeftPartition {p[1]:.4f}")
                p = r[(vlabel, "upstream")][1]
                print(f"  verify {vlabel}, N={n} upstream: ShardingPropagation {p[0]:.4f}, "
                      f"Partition {p[1]:.4f}")
        if a.instructions:
            if not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
                print("\n--instructions: valgrind/callgrind_annotate not found, skipped")
            else:
                print("\nfunc.func pipeline instructions under callgrind (inclusive "
                      "OpToOpPassAdaptor::runOnOperation[Async]Impl; Weft with its first search "
                      "row):")
                print(f"{'N':>6} {'verify':>6} | {'weft':>15} {'upstream':>15} {'up/weft':>7} | "
                      f"{'weft per op':>11} {'up per op':>9}")
                inst = {}
                for vlabel, vflags in verifies:
                    for n in sizes:
                        wpath = os.path.join(tmp, f"weft_{n}.mlir")
                        upath = os.path.join(tmp, f"up_{n}.mlir")
                        wi = pipeline_instructions(
                            weft_cmd(a.weft_opt, variants[0][1], wpath) + vflags, tmp)
                        ui = pipeline_instructions(upstream_cmd(mlir_opt, upath) + vflags, tmp)
                        inst[(vlabel, n)] = (wi, ui)
                        print(f"{n:>6} {vlabel:>6} | {wi:>15,} {ui:>15,} {ui / wi:>7.2f} | "
                              f"{wi / res[n]['wops']:>11,.0f} {ui / res[n]['uops']:>9,.0f}",
                              flush=True)
                if len(sizes) > 1:
                    lo, hi = min(sizes), max(sizes)
                    for vlabel, _ in verifies:
                        (wl, ul), (wh, uh) = inst[(vlabel, lo)], inst[(vlabel, hi)]
                        print(f"  verify {vlabel}: instructions N={hi} / N={lo}: weft "
                              f"{wh / wl:.2f}, upstream {uh / ul:.2f} (ops ratio "
                              f"{res[hi]['wops'] / res[lo]['wops']:.2f})")
        if len(sizes) > 1:
            lo, hi = min(sizes), max(sizes)
            print()
            print(f"linearity, time(N={hi}) / time(N={lo}) "
                  f"(ops ratio {res[hi]['wops'] / res[lo]['wops']:.2f}):")
            for vlabel, _ in verifies:
                for label in [v[0] for v in variants] + ["upstream"]:
                    a_, b_ = res[lo][(vlabel, label)], res[hi][(vlabel, label)]
                    name = "upstream" if label == "upstream" else f"weft ({label})"
                    print(f"  verify {vlabel}, {name}: passes {b_[0] / a_[0]:.2f} (propagation "
                          f"{b_[1][0] / a_[1][0]:.2f}, partition {b_[1][1] / a_[1][1]:.2f}), "
                          f"process {b_[2] / a_[2]:.2f}")

if __name__ == "__main__":
    main()
