#!/usr/bin/env python3
"""Optional benchmark (issue 14): Weft's one-rank step time against JAX/XLA
on CPU, on the same programs and the same inputs.

For P1 (MLP), P6 (attention) and P9 (transformer block) at programs.md's
shapes (b=4) and 4x larger (b=16, make_variant.py --batch-scale 4):

  1. builds the one-rank executable (`weftc --unsharded`) and the JSON graph
     of the global program (`weft-translate --weft-to-json`);
  2. makes float32 inputs with numpy (seed --seed, normal * 0.1, the
     graph's shapes) and saves them as .npy;
  3. builds a JAX function from the JSON graph with jax.numpy (einsum with
     the graph's spec, the maps, the reductions; an op kind it does not
     know is an error), jit-compiled, float32. XLA runs single-threaded:
     XLA_FLAGS gets "--xla_cpu_multi_thread_eigen=false" and this process
     is pinned to one CPU
     (--cpu) before jax is imported. The Weft executable runs with
     OPENBLAS_NUM_THREADS=1 (one BLAS thread; its f32 GEMMs run on oneDNN,
     one thread per rank, and the `weft: cpu gemm:` line it prints at start
     is shown above the table), not pinned unless --pin-weft;
  4. first checks that both compute the same numbers: runs the executable
     once with those inputs (--output-dir) and compares every output with
     JAX's: max|weft - jax| / max|jax| <= 1e-4 (both are also compared with
     test/numpy/weft_numpy.py's float64 evaluation, for information). A
     case that disagrees prints MISMATCH, is not timed, and the script
     exits 1 at the end;
  5. times both in the same run, interleaved (the order alternates every
     round), for --rounds rounds: weft = the median step time the
     executable reports (`--iters N --warmup W`); JAX = the median of N
     timed calls (each to block_until_ready) after W warmup calls, on
     arguments already on the device;
  6. prints a table: median [min, max] over rounds of each, and of the
     per-round ratio weft/jax. Targets (issues 14 and 32): ratio <= 1.00 on P1,
     <= 0.95 on P6 and P9.

A benchmark, not a test: nothing here passes or fails on timing (only a
numerical mismatch makes the exit status non-zero). The script never builds
anything: it uses BUILD/bin/weftc and BUILD/bin/weft-translate as they are (a
failing weftc/weft-translate call is retried 3 times, 60 s apart, in case the
build is being relinked).

Run it with a Python that has jax and numpy (e.g. a venv:
`python3 -m venv ENV && ENV/bin/pip install jax`, then
`ENV/bin/python bench/e2e/jax_compare.py`). Without jax it prints
"JAX not installed: skipped (pip install jax)" and exits 0.

usage: jax_compare.py [--rounds R] [--iters N] [--warmup W]
                      [--programs p1,p6,p9] [--scales 1,4] [--seed S]
                      [--cpu C] [--pin-weft] [--launcher direct|mpirun]
                      [--build DIR] [--keep DIR]
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from make_variant import make_variant  # noqa: E402

NAMES = {"p1": "P1 MLP", "p6": "P6 attention", "p9": "P9 block"}
TARGETS = {"p1": 1.00, "p6": 0.95, "p9": 0.95}  # weft/jax, issue 14
TOLERANCE = 1e-4  # max|weft - jax| / max|jax|
# Not "intra_op_parallelism_threads=1": it is no XLA flag, and XLA stops
# reading XLA_FLAGS at it. The one-CPU pinning keeps XLA on one core.
XLA_SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false"
MPIRUN = ["mpirun", "--allow-run-as-root", "--mca", "pml", "ob1", "--bind-to", "none",
          "-np", "1"]
STEP_RE = re.compile(r"step time: median ([0-9.]+) ms, min ([0-9.]+) ms, max ([0-9.]+) ms")
TENSOR_RE = re.compile(r"^\s+(\S+): (\w+)\[([0-9, ]*)\]")


class Failure(Exception):
    pass


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("WEFT_BUILD_DIR", os.path.join(ROOT, "build")),
                    help="build directory with bin/weftc and bin/weft-translate (default: build)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=50, help="timed steps / calls per measurement")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps / calls first")
    ap.add_argument("--programs", default="p1,p6,p9")
    ap.add_argument("--scales", default="1,4", help="batch scales (1: b=4, 4: b=16)")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--cpu", type=int,
                    help="the CPU this process (and so XLA) is pinned to "
                         "(default: the lowest one allowed)")
    ap.add_argument("--pin-weft", action="store_true",
                    help="pin the Weft executable to the same CPU (default: not pinned, "
                         "like bench/e2e/run.py's --bind-to none)")
    ap.add_argument("--launcher", choices=("direct", "mpirun"), default="direct",
                    help="run the 1-rank executable directly (MPI singleton, default) "
                         "or under `mpirun -np 1`")
    ap.add_argument("--keep", help="keep the generated files in this directory")
    return ap.parse_args()


# ---------------------------------------------------------------- processes

class Affinity:
    """Runs a block with the calling thread on `cpus`, then puts back the
    CPU set it had. Children inherit the affinity of the thread that starts
    them, and no preexec_fn is needed (a fork-exec with one is what JAX
    warns about); threads XLA already started keep their own."""

    def __init__(self, cpus):
        self.cpus = set(cpus)

    def __enter__(self):
        self.saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, self.cpus)

    def __exit__(self, *exc):
        os.sched_setaffinity(0, self.saved)


def run_tool(cmd, what, retries=3, wait=60, **kw):
    """Runs a build/bin tool; when it fails (the build may be relinking it),
    waits `wait` s and tries again, up to `retries` more times."""
    for attempt in range(retries + 1):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, **kw)
            if r.returncode == 0:
                return r.stdout
            err = f"exit {r.returncode}\n{r.stdout}{r.stderr}"
        except OSError as e:
            err = str(e)
        if attempt < retries:
            print(f"   {what} failed ({err.splitlines()[0] if err else '?'}); "
                  f"retrying in {wait} s ({attempt + 1}/{retries})", flush=True)
            time.sleep(wait)
    raise Failure(f"{what} failed: {' '.join(cmd)}\n{err}")


def run_exe(cmd, what, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise Failure(f"{what} failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr


def exe_signature(help_text):
    """[(name, dtype, shape)] of the inputs and of the outputs, in order, from
    the executable's --help."""
    sections = {"inputs": [], "outputs": []}
    cur = None
    for line in help_text.splitlines():
        if line.strip() in ("inputs:", "outputs:"):
            cur = line.strip()[:-1]
            continue
        m = TENSOR_RE.match(line)
        if cur and m:
            shape = [int(s) for s in m.group(3).replace(" ", "").split(",") if s]
            sections[cur].append((m.group(1), m.group(2), shape))
        elif cur and line.strip() and not line.startswith(" "):
            cur = None
    return sections["inputs"], sections["outputs"]


def draw_inputs(np, named_shapes, folder, seed=14):
    """The inputs of a case: for each (name, shape), numpy's normal * 0.1 as
    float32 (one generator seeded `seed`, in order), saved as FOLDER/NAME.npy.
    Returns the arrays and the executable's --input arguments (run.py's
    `--inputs normal` draws the same)."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    arrays, args = [], []
    for name, shape in named_shapes:
        x = (rng.standard_normal(shape) * 0.1).astype(np.float32)
        path = os.path.join(folder, name + ".npy")
        np.save(path, x)
        arrays.append(x)
        args += ["--input", f"{name}={path}"]
    return arrays, args


def openblas_core(exe):
    """openblas_get_corename() of the libopenblas the executable loads (read
    in a child process, with the same environment as the Weft runs)."""
    try:
        ldd = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
        m = re.search(r"(libopenblas\S*) => (\S+)", ldd)
        if not m:
            return "unknown (no shared libopenblas in ldd of the executable)"
        code = ("import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); "
                "l.openblas_get_corename.restype=ctypes.c_char_p; "
                "print(l.openblas_get_corename().decode(), l.openblas_get_num_threads())")
        out = subprocess.run([sys.executable, "-c", code, m.group(2)], capture_output=True,
                             text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        core, threads = out.stdout.split()
        return f"{core} ({os.path.realpath(m.group(2))}, {threads} thread)"
    except Exception as e:  # informational only
        return f"unknown ({e})"


# ---------------------------------------------------------------- JAX graph

def parse_spec(spec):
    if "->" not in spec:
        raise Failure(f"spec {spec!r} has no '->'")
    lhs, out = spec.split("->")
    return lhs.split(","), out


def make_jax_ops(jnp):
    """Op kind -> function(op, operands) in jax.numpy, with the semantics of
    test/numpy/weft_numpy.py (WeftOps.td), in the operands' dtype (f32)."""
    sqrt_2_over_pi = (2.0 / 3.141592653589793) ** 0.5

    unary = {
        "neg": lambda x, c: -x,
        "exp": lambda x, c: jnp.exp(x),
        "log": lambda x, c: jnp.log(x),
        "sqrt": lambda x, c: jnp.sqrt(x),
        "rsqrt": lambda x, c: 1.0 / jnp.sqrt(x),
        "square": lambda x, c: x * x,
        "tanh": lambda x, c: jnp.tanh(x),
        "relu": lambda x, c: jnp.maximum(x, 0.0),
        "gelu": lambda x, c: 0.5 * x * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x))),
        "silu": lambda x, c: x / (1.0 + jnp.exp(-x)),
        "abs": lambda x, c: jnp.abs(x),
        "sign": lambda x, c: jnp.sign(x),
        "step": lambda x, c: (x > 0).astype(x.dtype),
        "sigmoid": lambda x, c: 1.0 / (1.0 + jnp.exp(-x)),
        "sin": lambda x, c: jnp.sin(x),
        "cos": lambda x, c: jnp.cos(x),
        "scale": lambda x, c: x * c,
        "shift": lambda x, c: x + c,
    }
    binary = {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "max": jnp.fmax,
        "min": jnp.fmin,
        "gt": lambda a, b: (a > b).astype(a.dtype),
        "ge": lambda a, b: (a >= b).astype(a.dtype),
        "lt": lambda a, b: (a < b).astype(a.dtype),
        "le": lambda a, b: (a <= b).astype(a.dtype),
        "eq": lambda a, b: (a == b).astype(a.dtype),
        "ne": lambda a, b: (a != b).astype(a.dtype),
    }
    reduce = {"sum": jnp.sum, "max": jnp.max, "min": jnp.min}

    def to_result_order(a, letters, out):
        """`a` (indexed by `letters`) transposed to `out`'s letter order, with
        size-1 axes for the letters it lacks (broadcasting)."""
        for c in letters:
            if c not in out:
                raise Failure(f"map operand letter {c!r} is not in the result {out!r}")
        kept = [c for c in out if c in letters]
        a = jnp.transpose(a, [letters.index(c) for c in kept])
        return a.reshape([a.shape[kept.index(c)] if c in letters else 1 for c in out])

    def einsum(op, args):
        ins, _ = parse_spec(op["spec"])
        if len(ins) != len(args):
            raise Failure(f"einsum {op['spec']}: {len(args)} operands")
        return jnp.einsum(op["spec"], *args)

    def map_(op, args):
        ins, out = parse_spec(op["spec"])
        kind = op["map"]
        xs = [to_result_order(a, l, out) for a, l in zip(args, ins)]
        if kind in binary and len(xs) == 2:
            r = binary[kind](xs[0], xs[1])
        elif kind in unary and len(xs) == 1:
            if kind in ("scale", "shift") and "scalar" not in op:
                raise Failure(f"map {kind} without a scalar")
            r = unary[kind](xs[0], float(op.get("scalar", 0.0)))
        else:
            raise Failure(f"map {kind!r} with {len(xs)} operand(s) is not supported "
                          "by jax_compare.py")
        return jnp.broadcast_to(r, op["shape"])

    def reduce_(op, args):
        (letters,), out = parse_spec(op["spec"])
        if op["reduce"] not in reduce:
            raise Failure(f"reduce {op['reduce']!r} is not supported by jax_compare.py")
        dropped = tuple(i for i, c in enumerate(letters) if c not in out)
        r = reduce[op["reduce"]](args[0], axis=dropped)
        kept = [c for c in letters if c in out]
        return jnp.transpose(r, [kept.index(c) for c in out])

    return {
        "einsum": einsum,
        "map": map_,
        "reduce": reduce_,
        "reshape": lambda op, args: args[0].reshape(op["shape"]),
        "slice": lambda op, args: jnp.take(
            args[0], jnp.arange(op["start"], op["start"] + op["shape"][op["dim"]]), axis=op["dim"]),
        "concat": lambda op, args: jnp.concatenate(args, axis=op["dim"]),
        "constant": lambda op, args: jnp.full(op["shape"], op["value"], dtype=jnp.float32),
        "shard": lambda op, args: args[0],
    }


def jax_function(fn, jnp):
    """A Python function of the graph's inputs (in order) returning the tuple
    of its outputs; raises Failure for what it cannot express."""
    ops = make_jax_ops(jnp)
    for t in fn["inputs"] + fn["outputs"]:
        if t["dtype"] != "f32":
            raise Failure(f"{t['name']}: dtype {t['dtype']} (jax_compare.py handles f32 only)")
    for op in fn["ops"]:
        if op["kind"] not in ops:
            raise Failure(f"op kind {op['kind']!r} ({op.get('spec', '')}, {op.get('loc', '')}) "
                          f"is not supported by jax_compare.py (supported: "
                          f"{', '.join(sorted(ops))})")
        if op.get("dtype", "f32") != "f32":
            raise Failure(f"{op['kind']} {op.get('spec', '')}: dtype {op['dtype']} "
                          "(jax_compare.py handles f32 only)")

    def f(*args):
        values = {t["id"]: a for t, a in zip(fn["inputs"], args)}
        for op in fn["ops"]:
            r = ops[op["kind"]](op, [values[i] for i in op["operands"]])
            if list(r.shape) != op["shape"]:
                raise Failure(f"{op['kind']} {op.get('spec', '')}: shape {list(r.shape)}, "
                              f"declared {op['shape']}")
            values[op["result"]] = r
        return tuple(values[t["id"]] for t in fn["outputs"])
    return f


# ---------------------------------------------------------------- report

def fmt_range(vals, digits=3):
    return f"{statistics.median(vals):.{digits}f} [{min(vals):.{digits}f}, {max(vals):.{digits}f}]"


def rel_err(out, ref, np):
    ref = np.asarray(ref, dtype=np.float64)
    scale = float(np.abs(ref).max())
    diff = float(np.abs(np.asarray(out, dtype=np.float64) - ref).max())
    return diff / scale if scale > 0 else float("inf")


def main():
    a = parse_args()
    # Before jax is imported: one CPU for this process (XLA's threads inherit
    # it), XLA's Eigen pool off, CPU platform only.
    allowed = sorted(os.sched_getaffinity(0))
    cpu = a.cpu if a.cpu is not None else allowed[0]
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + XLA_SINGLE_THREAD).strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.sched_setaffinity(0, {cpu})
    try:
        import numpy as np
        import jax
        import jax.numpy as jnp
        import jaxlib
    except ImportError:
        print("JAX not installed: skipped (pip install jax)")
        return 0
    try:
        sys.path.insert(0, os.path.join(ROOT, "test", "numpy"))
        import weft_numpy  # the float64 oracle of the e2e tests (information only)
    except ImportError:
        weft_numpy = None

    weftc = os.path.join(a.build, "bin", "weftc")
    weft_translate = os.path.join(a.build, "bin", "weft-translate")
    unpinned = lambda: Affinity(allowed)  # noqa: E731
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launch = MPIRUN if a.launcher == "mpirun" else []
    weft_cpus = {cpu} if a.pin_weft else allowed

    work = a.keep or tempfile.mkdtemp(prefix="weft-jax-")
    os.makedirs(work, exist_ok=True)
    mismatches, errors = [], []
    try:
        # 1-3: executables, graphs, inputs, JAX functions.
        cases = []
        for prog in a.programs.split(","):
            src = open(os.path.join(ROOT, "examples", "canonical", prog + ".mlir")).read()
            for scale in (int(s) for s in a.scales.split(",")):
                tag = f"{prog}-b{4 * scale}"
                name = f"{NAMES.get(prog, prog)} b={4 * scale}"
                base = os.path.join(work, tag)
                try:
                    with open(base + ".mlir", "w") as f:
                        f.write(make_variant(src, scale))
                    print(f"== {tag}: weftc --unsharded, weft-translate --weft-to-json", flush=True)
                    with unpinned():
                        run_tool([weftc, base + ".mlir", "--unsharded", "-o", base], "weftc")
                        run_tool([weft_translate, base + ".mlir", "--weft-to-json",
                                  "-o", base + ".json"], "weft-translate")
                    graph = json.load(open(base + ".json"))
                    if graph.get("format") != "weft-graph" or len(graph["functions"]) != 1:
                        raise Failure(f"{base}.json: expected a weft-graph with one function")
                    fn = graph["functions"][0]
                    ins, outs = exe_signature(run_exe([base, "--help"], "--help", env=env))
                    # The executable's names, matched to the graph's by position.
                    for what, mine, theirs in (("input", fn["inputs"], ins),
                                               ("output", fn["outputs"], outs)):
                        sig = [(t["dtype"], t["shape"]) for t in mine]
                        if sig != [(d, s) for _, d, s in theirs]:
                            raise Failure(f"the executable's {what}s {theirs} do not match the "
                                          f"graph's {sig}")
                        for t, (n, _, _) in zip(mine, theirs):
                            t["exe_name"] = n
                    inputs, input_args = draw_inputs(
                        np, [(t["exe_name"], t["shape"]) for t in fn["inputs"]],
                        base + "-in", a.seed)
                    f = jax_function(fn, jnp)
                    cases.append(dict(prog=prog, tag=tag, name=name, exe=base, fn=fn, f=f,
                                      inputs=inputs, input_args=input_args,
                                      tw=[], tj=[], ratio=[]))
                except Failure as e:
                    print(f"{name}: ERROR {e}", flush=True)
                    errors.append((name, e))

        # 4: the same numbers first.
        print("\n== check: every output, weft against jax "
              f"(max|weft - jax| / max|jax| <= {TOLERANCE:g}); "
              "both against numpy float64 for information", flush=True)
        timed = []
        for c in cases:
            try:
                out_dir = c["exe"] + "-out"
                os.makedirs(out_dir, exist_ok=True)
                with Affinity(weft_cpus):
                    out = run_exe(launch + [c["exe"]] + c["input_args"] +
                                  ["--output-dir", out_dir], "weft run", env=env)
                gemm = re.search(r"^weft: cpu gemm:.*$", out, re.M)
                c["gemm"] = gemm.group(0) if gemm else "(no `weft: cpu gemm:` line)"
                c["jf"] = jax.jit(c["f"])
                c["args"] = [jax.device_put(x) for x in c["inputs"]]
                got = [np.asarray(y) for y in c["jf"](*c["args"])]
                refs = None
                if weft_numpy is not None:
                    refs = weft_numpy.evaluate(
                        c["fn"], {t["name"]: x for t, x in zip(c["fn"]["inputs"], c["inputs"])})
                ok = True
                for t, y in zip(c["fn"]["outputs"], got):
                    w = np.load(os.path.join(out_dir, t["exe_name"] + ".npy"))
                    line = f"{c['name']} {t['exe_name']}:"
                    if w.shape != y.shape or not np.all(np.isfinite(w)):
                        print(f"{line} MISMATCH weft shape {list(w.shape)} (jax {list(y.shape)}) "
                              f"or NaN/Inf")
                        ok = False
                        continue
                    err = rel_err(w, y, np)
                    extra = ""
                    if refs is not None:
                        ref = refs[t["name"]]
                        extra = (f"; vs numpy f64: weft {rel_err(w, ref, np):.2g}, "
                                 f"jax {rel_err(y, ref, np):.2g}")
                    good = err <= TOLERANCE
                    ok &= good
                    print(f"{line} {'ok' if good else 'MISMATCH'} (weft vs jax rel err "
                          f"{err:.2g}{extra})", flush=True)
                if ok:
                    timed.append(c)
                else:
                    mismatches.append(c["name"])
                    print(f"{c['name']}: MISMATCH, not timed", flush=True)
            except Failure as e:
                print(f"{c['name']}: ERROR {e}", flush=True)
                errors.append((c["name"], e))

        # 5: timing, interleaved.
        cpu_model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                          if l.startswith("model name")), platform.processor() or "unknown")
        try:
            head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True).stdout.strip() or "?"
        except OSError:
            head = "?"
        print(f"\n== {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}  "
              f"cpu: {cpu_model}  nproc {len(allowed)} (cpu_count {os.cpu_count()})")
        # The GEMM library and kernel the executable states at start (issue
        # 32: f32 GEMMs on oneDNN; OpenBLAS's core for what still uses it).
        print(f"== {timed[0]['gemm'] if timed else 'weft: cpu gemm: unknown'}")
        print(f"== openblas core: {openblas_core(cases[0]['exe']) if cases else 'unknown'}; "
              f"OPENBLAS_NUM_THREADS=1; OPENBLAS_CORETYPE="
              f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')} (not changed)")
        print(f"== jax {jax.__version__}, jaxlib {jaxlib.__version__}, numpy {np.__version__}, "
              f"python {platform.python_version()}; XLA_FLAGS=\"{os.environ['XLA_FLAGS']}\"; "
              f"jax process pinned to cpu {cpu}; weft "
              f"{'pinned to cpu %d' % cpu if a.pin_weft else 'not pinned'}, "
              f"{'mpirun -np 1' if launch else 'run directly (MPI singleton)'}")
        if cases:
            mtime = datetime.datetime.fromtimestamp(os.path.getmtime(weftc)).isoformat(
                timespec="seconds")
            print(f"== weftc {weftc} (modified {mtime}), source HEAD {head}")
        print(f"== {a.rounds} rounds x ({a.warmup} warmup + {a.iters} timed) steps or calls "
              f"per measurement; weft = the executable's median step time, jax = median "
              f"call time (block_until_ready)")
        print(f"== targets (issues 14, 32): weft/jax <= 1.00 on P1, <= 0.95 on P6 and P9 "
              f"(median ratio; information only)")
        print(f"== load average at start: {open('/proc/loadavg').read().split()[:3]}", flush=True)

        harness = ["--iters", str(a.iters), "--warmup", str(a.warmup)]
        for r in range(a.rounds):
            for c in timed:
                def weft():
                    with Affinity(weft_cpus):
                        out = run_exe(launch + [c["exe"]] + c["input_args"] + harness,
                                      "weft run", env=env)
                    m = STEP_RE.search(out)
                    if not m:
                        raise Failure(f"no step time in:\n{out}")
                    c["tw"].append(float(m.group(1)))

                def xla():
                    f, args = c["jf"], c["args"]
                    for _ in range(a.warmup):
                        jax.block_until_ready(f(*args))
                    ts = []
                    for _ in range(a.iters):
                        t0 = time.perf_counter()
                        jax.block_until_ready(f(*args))
                        ts.append(time.perf_counter() - t0)
                    c["tj"].append(statistics.median(ts) * 1e3)

                for g in ((weft, xla) if r % 2 == 0 else (xla, weft)):
                    g()
                c["ratio"].append(c["tw"][-1] / c["tj"][-1])
            print(f"   round {r + 1}/{a.rounds} done", flush=True)
        print(f"== load average at end: {open('/proc/loadavg').read().split()[:3]}")

        # 6: the table.
        if timed:
            print("\nms per step, median [min, max] over rounds; ratio = weft/jax per round")
            print(f"{'case':<20} {'weft 1 rank ms':>24} {'jax/xla ms':>24} "
                  f"{'ratio weft/jax':>24} {'target':>7} {'met':>4}")
            for c in timed:
                t = TARGETS.get(c["prog"])
                met = "" if t is None else ("yes" if statistics.median(c["ratio"]) <= t else "no")
                print(f"{c['name']:<20} {fmt_range(c['tw']):>24} {fmt_range(c['tj']):>24} "
                      f"{fmt_range(c['ratio']):>24} "
                      f"{'<=%.2f' % t if t is not None else '':>7} {met:>4}")
    except Failure as e:
        print(f"ERROR {e}")
        return 1
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    for n in mismatches:
        print(f"MISMATCH: {n} (not timed)")
    for n, e in errors:
        first = str(e).splitlines()[0] if str(e) else "?"
        print(f"ERROR: {n} (not timed): {first[:300]}")
    return 1 if mismatches or errors else 0


if __name__ == "__main__":
    sys.exit(main())
