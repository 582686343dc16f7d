#!/usr/bin/env python3
"""End-to-end check of one example: every rank count against the unsharded
build and against the independent numpy evaluation (test/numpy).

  e2e.py EXAMPLE.mlir --bin BUILD/bin --work DIR --np N:AXIS=SIZE[,...] ...

1. `weft-translate --weft-to-json` of the source as written (the graph numpy
   evaluates) and of `weftc --emit=global` (the same graph after
   propagation, with the input/output names weftc gives the executable);
   the two must describe the same ops, shapes and dtypes.
2. Inputs from numpy (seed --seed): f32/f64 uniform in [-1, 1) (times
   --input-scale, for ill-conditioned programs; docs/testing.md), i32 ids
   uniform in [0, V) with V the smallest vocabulary they index (an embed's
   table rows, a scatter_add's result rows, a one_hot's columns). Saved as
   DIR/inputs/NAME.npy and given to every run with --input.
3. numpy evaluates the graph in float64 (the reference; never the code
   under test).
4. `weftc --unsharded`, run on 1 rank: its outputs against numpy.
5. For every --np N:MESH, `weftc --mesh MESH` (compiled once), run on N
   ranks under `timeout 120 mpirun`: every output against the unsharded
   run's and against numpy.

Each result is one line `EXAMPLE np=N OUTPUT: vs unsharded|vs numpy ok
(rel err E)` or `... MISMATCH ...`; a failing stage prints
`EXAMPLE np=N: FAILED <stage>` with the command and its output. Exits 1 if
anything failed (after trying every rank count).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

# No __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "numpy"))
import weft_numpy  # noqa: E402

MPIRUN = ["timeout", "120", "mpirun", "--allow-run-as-root", "--oversubscribe",
          "--mca", "pml", "ob1"]


class StageError(Exception):
    pass


def run(cmd, what, log):
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    log.append((what, time.time() - t0))
    if p.returncode != 0:
        raise StageError("%s (exit %d)\n  command: %s\n%s" % (
            what, p.returncode, " ".join(cmd), p.stdout.rstrip()))
    return p.stdout


def export(bin_dir, src, out, log):
    # Layer calls are flattened first (weft-inline-calls, as weftc does;
    # test/weftc/calls.test checks it against a program flattened by hand),
    # so numpy evaluates one flat graph; weft-translate --weft-to-json writes
    # it.
    flat = out + ".flat.mlir"
    run([os.path.join(bin_dir, "weft-opt"), src, "--weft-inline-calls",
         "-o", flat], "weft-opt --weft-inline-calls", log)
    run([os.path.join(bin_dir, "weft-translate"), flat, "--weft-to-json",
         "-o", out], "weft-translate --weft-to-json", log)
    return weft_numpy.load_graph(out)


SEMANTIC_OP_KEYS = ("kind", "spec", "map", "reduce", "scalar", "operands",
                    "result", "shape", "dtype")


def same_graph(a, b):
    """Whether two exported functions compute the same thing (shardings,
    names and locations aside)."""
    def sig(t):
        return [(x["id"], x["shape"], x["dtype"]) for x in t]
    return (sig(a["inputs"]) == sig(b["inputs"])
            and sig(a["outputs"]) == sig(b["outputs"])
            and [{k: o.get(k) for k in SEMANTIC_OP_KEYS} for o in a["ops"]]
            == [{k: o.get(k) for k in SEMANTIC_OP_KEYS} for o in b["ops"]])


def make_inputs(fn, seed, directory, scale=1.0):
    """numpy-made inputs; ids index the rows of the table they feed; floats
    are uniform in [-scale, scale)."""
    rng = np.random.default_rng(seed)
    vocab = {}

    def bound(ids, size):
        vocab[ids] = min(vocab.get(ids, size), size)

    for op in fn["ops"]:
        if op["kind"] not in ("embed", "scatter_add", "one_hot"):
            continue
        ins, out = weft_numpy.parse_spec(op["spec"])
        if op["kind"] == "embed":
            table = next(t for t in fn["inputs"] + fn["ops"]
                         if t.get("id", t.get("result")) == op["operands"][1])
            v = [c for c in ins[1] if c not in out][0]
            bound(op["operands"][0], table["shape"][ins[1].index(v)])
        elif op["kind"] == "scatter_add":
            bound(op["operands"][0], op["shape"][0])
        else:
            v = [c for c in out if c not in ins[0]][0]
            bound(op["operands"][0], op["shape"][out.index(v)])
    os.makedirs(directory, exist_ok=True)
    values = {}
    for t in fn["inputs"]:
        if t["dtype"] == "i32":
            if t["id"] not in vocab:
                raise StageError("input %s: i32 but not the ids of an embed, "
                                 "scatter_add or one_hot"
                                 % t["name"])
            a = rng.integers(0, vocab[t["id"]], t["shape"], dtype=np.int32)
        else:
            a = (scale * rng.uniform(-1.0, 1.0, t["shape"])).astype(
                weft_numpy.NUMPY_DTYPE[t["dtype"]])
        np.save(os.path.join(directory, t["name"] + ".npy"), a)
        values[t["name"]] = a
    return values


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("example")
    p.add_argument("--bin", required=True, help="directory of weftc, weft-opt")
    p.add_argument("--work", required=True)
    p.add_argument("--np", action="append", default=[], metavar="N:MESH",
                   help="a rank count and the --mesh resizing for it")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--input-scale", type=float, default=1.0,
                   help="float inputs uniform in [-S, S) (default 1)")
    p.add_argument("--name", help="label (default: the example's file name)")
    p.add_argument("--weftc-flag", action="append", default=[], metavar="FLAG",
                   help="extra flag for every weftc call (repeat), e.g. "
                        "--weftc-flag=--search=greedy")
    p.add_argument("--corrupt", action="append", default=[], metavar="N:OUT",
                   help="self-test: after the N-rank run, scale one element "
                        "of output OUT by 1 + 1e-4 (the checks must fail)")
    a = p.parse_args(argv[1:])

    name = a.name or os.path.splitext(os.path.basename(a.example))[0]
    work = a.work
    os.makedirs(work, exist_ok=True)
    weftc = os.path.join(a.bin, "weftc")
    # One BLAS thread per rank: ranks are oversubscribed on few cores.
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    log = []
    t_start = time.time()
    status = 0

    def failed(label, err):
        nonlocal status
        status = 1
        print("%s: FAILED %s" % (label, err))

    # 1-3: graph, names, inputs, reference.
    try:
        fn = export(a.bin, a.example, os.path.join(work, "source.json"), log)
        run([weftc, a.example, *a.weftc_flag, "--emit=global", "-o",
             os.path.join(work, "global.mlir")], "weftc --emit=global", log)
        named = export(a.bin, os.path.join(work, "global.mlir"),
                       os.path.join(work, "global.json"), log)
        if not same_graph(fn, named):
            raise StageError("the propagated graph differs from the source's "
                             "(see %s/source.json, global.json)" % work)
        # Name the source graph's inputs and outputs as the executable does.
        for mine, theirs in zip(fn["inputs"] + fn["outputs"],
                                named["inputs"] + named["outputs"]):
            mine["name"] = theirs["name"]
        inputs = make_inputs(fn, a.seed, os.path.join(work, "inputs"),
                             a.input_scale)
        refs = weft_numpy.evaluate(fn, inputs)
        input_args = []
        for t in fn["inputs"]:
            input_args += ["--input", "%s=%s" % (
                t["name"], os.path.join(work, "inputs", t["name"] + ".npy"))]
    except (StageError, weft_numpy.GraphError) as err:
        failed(name, err)
        return 1

    def check(label, out_dir, ref_dir):
        ok = True
        for t in fn["outputs"]:
            path = os.path.join(out_dir, t["name"] + ".npy")
            if not os.path.exists(path):
                print("%s %s: MISMATCH missing %s" % (label, t["name"], path))
                ok = False
                continue
            out = np.load(path)
            if ref_dir is not None:
                ok &= weft_numpy.check_one(
                    label + " " + t["name"] + ": vs unsharded", out,
                    np.load(os.path.join(ref_dir, t["name"] + ".npy")),
                    t["dtype"])
            ok &= weft_numpy.check_one(label + " " + t["name"] + ": vs numpy",
                                       out, refs[t["name"]], t["dtype"])
        return ok

    # 4: the unsharded build on one rank.
    ref_dir = os.path.join(work, "out-unsharded")
    label = "%s unsharded np=1" % name
    try:
        exe = os.path.join(work, "unsharded")
        run([weftc, a.example, *a.weftc_flag, "--unsharded", "-o", exe], "weftc --unsharded",
            log)
        run(MPIRUN + ["-np", "1", exe] + input_args + ["--output-dir", ref_dir],
            "mpirun -np 1 (unsharded)", log)
        if not check(label, ref_dir, None):
            status = 1
    except StageError as err:
        failed(label, err)
        ref_dir = None

    # 5: every rank count.
    for item in a.np:
        n, _, mesh = item.partition(":")
        label = "%s np=%s" % (name, n)
        try:
            exe = os.path.join(work, "np%s" % n)
            run([weftc, a.example, *a.weftc_flag, "--mesh", mesh, "-o", exe],
                "weftc --mesh %s" % mesh, log)
            out_dir = os.path.join(work, "out-np%s" % n)
            run(MPIRUN + ["-np", n, exe] + input_args +
                ["--output-dir", out_dir], "mpirun -np %s" % n, log)
            for c in a.corrupt:
                cn, _, out_name = c.partition(":")
                if cn == n:
                    # The largest element, so the change is 1e-4 relative
                    # to max|ref|: ten times the f32 tolerance.
                    path = os.path.join(out_dir, out_name + ".npy")
                    bad = np.load(path)
                    flat = bad.reshape(-1)
                    flat[int(np.argmax(np.abs(flat)))] *= 1 + 1e-4
                    np.save(path, bad)
            if ref_dir is None:
                raise StageError("no unsharded run to compare with")
            if not check(label, out_dir, ref_dir):
                status = 1
        except StageError as err:
            failed(label, err)

    compile_s = sum(t for w, t in log if w.startswith("weft"))
    run_s = sum(t for w, t in log if w.startswith("mpirun"))
    print("%s: %s in %.1f s (compile %.1f s, run %.1f s)" % (
        name, "passed" if status == 0 else "FAILED", time.time() - t_start,
        compile_s, run_s), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
