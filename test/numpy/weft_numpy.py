#!/usr/bin/env python3
"""An independent numpy evaluator of Weft global-view programs.

It reads the JSON graph that `weft-translate --weft-to-json` writes (the ops of
the global program: kinds, letter specs, scalars, shapes) and evaluates it
with numpy's own functions, in float64, from the .npy inputs a compiled
program read. It shares no code with the C++ compiler, runtime or
interpreter: it is the oracle the end-to-end tests compare against.

Semantics (WeftOps.td):
  einsum   np.einsum over the spec (sum over letters absent from the result)
  map      elementwise, operands broadcast by letters; gelu is the tanh
           approximation 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))), silu is
           x/(1+exp(-x)), rsqrt is 1/sqrt(x), scale is x*c, shift is x+c
  reduce   np.sum / np.max / np.min over the dropped letters, transposed to
           the result's letter order
  embed    fancy indexing of the table: the looked-up letter (in neither
           the ids nor the result) by the ids, every other table letter by
           its position in the result (batch letters: take_along_axis)
  scatter_add  np.add.at of the updates into zeros at (id, position) along
           the result's letters ("bt,btd->vd", "bk,bkd->btd")
  one_hot  (ids[..., None] == arange(V)), then ordered as the result
  iota     arange(n)
  random   Philox4x32-10 (Salmon et al. SC'11), written here from the paper's
           round function: key (seed low word, seed high word), counter
           words = the element's indices; uniform f32 (w0 >> 8) / 2^24, f64
           (w0:w1 >> 11) / 2^53; normal by Box-Muller from u1 = 1 - uniform
           (w0 or w0:w1) and u2 = uniform (w1 or w2:w3)
  cumsum   np.cumsum along dim (float64); exclusive shifts by one (0
           first), reverse runs from the end (np.flip around it)
  reshape  np.reshape to the result's shape (row-major, no element moves)
  slice    np.take of [start, start + n) along dim
  concat   np.concatenate along dim
  top_k    per line along dim: np.lexsort by (NaN first, value descending,
           position ascending), the first k values or the payload's there
  pad_fill the input where every index is below `valid`, `fill` elsewhere
           (np.where over an open grid of index masks)
  constant np.full of the value
  shard    the identity (shardings are ignored everywhere)
  convert  rounded once, to nearest even, from the float64 value to the
           result's dtype: astype for f32 and f16 (numpy converts float64
           to float16 directly), for bf16 (which numpy lacks) np.frexp and
           np.rint at 8 significant bits (round_bf16)

Comparison metric: rel = max|out - ref| / max|ref| over the whole output,
with ref the float64 evaluation; an output passes when its shape and dtype
are the declared ones, it has no NaN/Inf, ref is not identically zero, and
rel <= 1e-5 (f32, f16, bf16) or rel <= 1e-10 (f64).

  weft_numpy.py eval  GRAPH.json --inputs DIR --out DIR   write float64 refs
  weft_numpy.py check GRAPH.json --inputs DIR --outputs DIR [--label L]
  weft_numpy.py compare A_DIR REF_DIR [--label L]         a run against a run
Inputs and outputs are DIR/NAME.npy with the graph's names.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

TOLERANCE = {"f32": 1e-5, "f16": 1e-5, "bf16": 1e-5, "f64": 1e-10}
NUMPY_DTYPE = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
               "i32": np.int32}


class GraphError(Exception):
    pass


def parse_spec(spec):
    """'ab,bc->ac' -> (['ab', 'bc'], 'ac')."""
    if "->" not in spec:
        raise GraphError("spec %r has no '->'" % spec)
    lhs, out = spec.split("->")
    return lhs.split(","), out


def to_result_order(a, letters, out):
    """Transposes `a` (indexed by `letters`) into the letter order of `out`,
    with size-1 axes for the letters of `out` it lacks (for broadcasting)."""
    for c in letters:
        if c not in out:
            raise GraphError("map operand letter %r is not in the result %r"
                             % (c, out))
    kept = [c for c in out if c in letters]
    a = np.transpose(a, [letters.index(c) for c in kept])
    shape = [a.shape[kept.index(c)] if c in letters else 1 for c in out]
    return a.reshape(shape)


SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

UNARY = {
    "neg": lambda x, c: -x,
    "exp": lambda x, c: np.exp(x),
    "log": lambda x, c: np.log(x),
    "sqrt": lambda x, c: np.sqrt(x),
    "rsqrt": lambda x, c: 1.0 / np.sqrt(x),
    "square": lambda x, c: x * x,
    "tanh": lambda x, c: np.tanh(x),
    "relu": lambda x, c: np.maximum(x, 0.0),
    "gelu": lambda x, c: 0.5 * x * (1.0 + np.tanh(
        SQRT_2_OVER_PI * (x + 0.044715 * x ** 3))),
    "silu": lambda x, c: x / (1.0 + np.exp(-x)),
    "softplus": lambda x, c: np.logaddexp(0.0, x),
    "abs": lambda x, c: np.abs(x),
    "sign": lambda x, c: np.sign(x),
    "step": lambda x, c: (x > 0).astype(x.dtype),
    "sigmoid": lambda x, c: 1.0 / (1.0 + np.exp(-x)),
    "sin": lambda x, c: np.sin(x),
    "cos": lambda x, c: np.cos(x),
    "scale": lambda x, c: x * c,
    "shift": lambda x, c: x + c,
}
BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.fmax,
    "min": np.fmin,
    "gt": lambda a, b: (a > b).astype(np.result_type(a, b)),
    "ge": lambda a, b: (a >= b).astype(np.result_type(a, b)),
    "lt": lambda a, b: (a < b).astype(np.result_type(a, b)),
    "le": lambda a, b: (a <= b).astype(np.result_type(a, b)),
    "eq": lambda a, b: (a == b).astype(np.result_type(a, b)),
    "ne": lambda a, b: (a != b).astype(np.result_type(a, b)),
}
REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}


def eval_einsum(op, args):
    ins, out = parse_spec(op["spec"])
    if len(ins) != len(args):
        raise GraphError("einsum %s: %d operands" % (op["spec"], len(args)))
    return np.einsum(op["spec"], *args, optimize=True)


def eval_map(op, args):
    ins, out = parse_spec(op["spec"])
    kind = op["map"]
    xs = [to_result_order(a, l, out) for a, l in zip(args, ins)]
    if kind in BINARY:
        if len(xs) != 2:
            raise GraphError("map %s takes two operands" % kind)
        r = BINARY[kind](xs[0], xs[1])
    elif kind in UNARY:
        if len(xs) != 1:
            raise GraphError("map %s takes one operand" % kind)
        if kind in ("scale", "shift") and "scalar" not in op:
            raise GraphError("map %s without a scalar" % kind)
        r = UNARY[kind](xs[0], float(op.get("scalar", 0.0)))
    else:
        raise GraphError("unknown map kind %r" % kind)
    return np.broadcast_to(r, op["shape"])


def eval_reduce(op, args):
    (letters,), out = parse_spec(op["spec"])
    dropped = tuple(i for i, c in enumerate(letters) if c not in out)
    r = REDUCE[op["reduce"]](args[0], axis=dropped)
    kept = [c for c in letters if c in out]
    return np.transpose(r, [kept.index(c) for c in out])


def broadcast_to_letters(arr, letters, target, shape):
    """`arr` (dims named by `letters`, a subset of `target`) transposed to
    `target`'s order and broadcast to `shape`."""
    order = [letters.index(c) for c in target if c in letters]
    t = np.transpose(arr, order)
    t = t.reshape([shape[i] if c in letters else 1
                   for i, c in enumerate(target)])
    return np.broadcast_to(t, shape)


def looked_up_letter(op, letters, *others):
    """The one letter of `letters` in none of `others` (a gather's
    looked-up letter)."""
    found = [c for c in letters if not any(c in o for o in others)]
    if len(found) != 1:
        raise GraphError("%s %s: expected one looked-up letter"
                         % (op["kind"], op["spec"]))
    return found[0]


def eval_embed(op, args):
    """The gather result[ids letters, kept] = table[batch, ids, kept]: the
    table letters shared with the ids index by position, the looked-up one
    by the id."""
    (id_letters, table_letters), out = parse_spec(op["spec"])
    ids, table = args
    vocab = looked_up_letter(op, table_letters, id_letters, out)
    ids = checked_ids(op, ids, table.shape[table_letters.index(vocab)])
    shape = tuple(op["shape"])
    grid = np.indices(shape, sparse=True)
    index = tuple(broadcast_to_letters(ids, id_letters, out, shape)
                  if c == vocab else grid[out.index(c)]
                  for c in table_letters)
    return table[index]


def checked_ids(op, ids, vocab):
    ids = ids.astype(np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= vocab):
        raise GraphError("%s %s: ids outside [0, %d)" % (
            op["kind"], op["spec"], vocab))
    return ids


def eval_scatter_add(op, args):
    """embed's transpose: np.add.at of each update into the row of its id
    (and its own position along the batch and kept letters)."""
    (id_letters, upd_letters), out = parse_spec(op["spec"])
    ids, updates = args
    vocab = looked_up_letter(op, out, id_letters, upd_letters)
    ids = checked_ids(op, ids, op["shape"][out.index(vocab)])
    grid = np.indices(updates.shape, sparse=True)
    index = tuple(broadcast_to_letters(ids, id_letters, upd_letters,
                                       updates.shape)
                  if c == vocab else
                  np.broadcast_to(grid[upd_letters.index(c)], updates.shape)
                  for c in out)
    result = np.zeros(op["shape"])
    np.add.at(result, index, updates)
    return result


def eval_one_hot(op, args):
    (id_letters,), out = parse_spec(op["spec"])
    vocab_letter = [c for c in out if c not in id_letters]
    if len(vocab_letter) != 1:
        raise GraphError("one_hot %s: expected one vocabulary letter"
                         % op["spec"])
    vocab = op["shape"][out.index(vocab_letter[0])]
    ids = checked_ids(op, args[0], vocab)
    hot = (ids[..., None] == np.arange(vocab)).astype(np.float64)
    return np.einsum("%s->%s" % (id_letters + vocab_letter[0], out), hot)


MASK32 = 0xFFFFFFFF


def philox4x32_10(counter, key):
    """Philox4x32-10 of four uint64 arrays of 32-bit counter words under
    the two 32-bit key words; returns the four output words."""
    c = [np.asarray(w, dtype=np.uint64) for w in counter]
    k0, k1 = key
    for r in range(10):
        if r:
            k0 = (k0 + 0x9E3779B9) & MASK32
            k1 = (k1 + 0xBB67AE85) & MASK32
        p0 = np.uint64(0xD2511F53) * c[0]   # < 2^64: no wrap
        p1 = np.uint64(0xCD9E8D57) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0),
             p1 & np.uint64(MASK32),
             (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1),
             p0 & np.uint64(MASK32)]
    return c


def eval_random(op, args):
    shape = op["shape"]
    if len(shape) > 4:
        raise GraphError("random: at most 4 dimensions, got %s" % shape)
    idx = list(np.indices(shape, dtype=np.uint64)) if shape else []
    zero = np.zeros(shape, dtype=np.uint64)
    counter = idx + [zero] * (4 - len(idx))
    seed = op["seed"] & 0xFFFFFFFFFFFFFFFF
    if args:  # the offset operand (a step) moves the key's high word
        t = float(np.asarray(args[0]).reshape(()))
        if not (0 <= t < 2.0 ** 32 and t == int(t)):
            raise GraphError("random: offset %r is not an integer in "
                             "[0, 2^32)" % t)
        seed = (seed + (int(t) << 32)) & 0xFFFFFFFFFFFFFFFF
    w = philox4x32_10(counter, (seed & MASK32, seed >> 32))

    def u24(word):
        return (word >> np.uint64(8)).astype(np.float64) / 2.0 ** 24

    def u53(hi, lo):
        bits = ((hi << np.uint64(32)) | lo) >> np.uint64(11)
        return bits.astype(np.float64) / 2.0 ** 53

    f32 = op["dtype"] != "f64"
    if op["dist"] == "uniform":
        return u24(w[0]) if f32 else u53(w[0], w[1])
    if op["dist"] != "normal":
        raise GraphError("random: unknown distribution %r" % op["dist"])
    u1 = 1.0 - (u24(w[0]) if f32 else u53(w[0], w[1]))
    u2 = u24(w[1]) if f32 else u53(w[2], w[3])
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def eval_slice(op, args):
    (x,) = args
    d, start = op["dim"], op["start"]
    n = op["shape"][d]
    if not (0 <= d < x.ndim and 0 <= start and start + n <= x.shape[d]):
        raise GraphError("slice: [%d, %d) of dim %d outside %s"
                         % (start, start + n, d, x.shape))
    return np.take(x, np.arange(start, start + n), axis=d)


def eval_shift(op, args):
    """weft.shift: result[i] = x[i - by] along dim, zeros outside."""
    (x,) = args
    d, by = op["dim"], op["by"]
    if not (0 <= d < x.ndim and by in (1, -1)):
        raise GraphError("shift: by %s along dim %d of %s" % (by, d, x.shape))
    out = np.zeros_like(x)
    n = x.shape[d]
    src = [slice(None)] * x.ndim
    dst = [slice(None)] * x.ndim
    src[d] = slice(0, n - 1) if by > 0 else slice(1, n)
    dst[d] = slice(1, n) if by > 0 else slice(0, n - 1)
    out[tuple(dst)] = x[tuple(src)]
    return out


def eval_concat(op, args):
    return np.concatenate(args, axis=op["dim"])


def eval_cumsum(op, args):
    (x,) = args
    d = op["dim"]
    if not 0 <= d < x.ndim:
        raise GraphError("cumsum: dim %d of a %d-D input" % (d, x.ndim))
    if op.get("reverse"):
        x = np.flip(x, axis=d)
    y = np.cumsum(x, axis=d)
    if op.get("exclusive"):
        y = y - x
    if op.get("reverse"):
        y = np.flip(y, axis=d)
    return y


def eval_top_k(op, args):
    x = args[0]
    src = args[1] if len(args) > 1 else x
    d, k = op["dim"], op["k"]
    if not 0 <= d < x.ndim or not 1 <= k <= x.shape[d]:
        raise GraphError("top_k: dim %d, k %d of a %s input" % (d, k, x.shape))
    xl = np.moveaxis(x, d, -1)
    sl = np.moveaxis(src, d, -1)
    n = xl.shape[-1]
    flat_x = xl.reshape(-1, n)
    flat_s = sl.reshape(-1, n)
    pos = np.arange(n)
    out = np.empty((flat_x.shape[0], k))
    for r in range(flat_x.shape[0]):
        v = flat_x[r]
        nan = np.isnan(v)
        order = np.lexsort((pos, -np.where(nan, 0.0, v), ~nan))
        out[r] = flat_s[r][order[:k]]
    return np.moveaxis(out.reshape(xl.shape[:-1] + (k,)), -1, d)


def eval_pad_fill(op, args):
    (x,) = args
    valid = op["valid"]
    if len(valid) != x.ndim:
        raise GraphError("pad_fill: %d valid sizes for a %d-D input"
                         % (len(valid), x.ndim))
    keep = np.ones(x.shape, dtype=bool)
    for d, n in enumerate(valid):
        shape = [1] * x.ndim
        shape[d] = x.shape[d]
        keep &= (np.arange(x.shape[d]) < n).reshape(shape)
    return np.where(keep, x, np.float64(float(op["fill"])))


BF16_MAX = (2.0 - 2.0 ** -7) * 2.0 ** 127


def round_bf16(x):
    """x (float64) rounded once to bfloat16 (8 significant bits, exponent
    as f32's), nearest with ties to even; returned as float64."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)  # |x| = m 2^e, m in [0.5, 1)
        # Below bf16's smallest normal (2^-126 = 0.5 2^-125) the quantum
        # stays the subnormal one, 2^-133.
        e = np.maximum(e, -125)
        q = np.ldexp(np.rint(np.ldexp(x, 8 - e)), e - 8)
        q = np.where(np.abs(q) > BF16_MAX, np.copysign(np.inf, x), q)
        return np.where(np.isfinite(x), q, x)


def eval_convert(op, args):
    (x,) = args
    x = np.asarray(x, dtype=np.float64)
    dtype = op["dtype"]
    if dtype == "f64":
        return x
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        return round_bf16(x)
    raise GraphError("convert to %r: not a float dtype" % dtype)


def eval_reshape(op, args):
    (x,) = args
    if int(np.prod(op["shape"])) != x.size:
        raise GraphError("reshape: %s elements into %s" % (x.size, op["shape"]))
    return x.reshape(op["shape"])


EVAL = {"einsum": eval_einsum, "map": eval_map, "reduce": eval_reduce,
        "embed": eval_embed, "scatter_add": eval_scatter_add,
        "slice": eval_slice, "concat": eval_concat, "shift": eval_shift,
        "one_hot": eval_one_hot,
        "iota": lambda op, args: np.arange(op["shape"][0], dtype=np.float64),
        "random": eval_random, "pad_fill": eval_pad_fill,
        "cumsum": eval_cumsum, "top_k": eval_top_k, "reshape": eval_reshape,
        "constant": lambda op, args: np.full(op["shape"], op["value"]),
        "shard": lambda op, args: args[0], "convert": eval_convert}


def load_graph(path, func=None):
    with open(path) as f:
        graph = json.load(f)
    if graph.get("format") != "weft-graph":
        raise GraphError("%s is not a weft-graph JSON" % path)
    funcs = graph["functions"]
    if func is not None:
        funcs = [f for f in funcs if f["name"] == func]
    if len(funcs) != 1:
        raise GraphError("%s: expected one function%s, found %d" % (
            path, " named " + func if func else "", len(funcs)))
    return funcs[0]


def evaluate(fn, inputs):
    """Evaluates function `fn` of a graph; `inputs` maps input names to
    arrays. Returns {output name: float64 (or int) array}."""
    values = {}
    for t in fn["inputs"]:
        a = np.asarray(inputs[t["name"]])
        if list(a.shape) != t["shape"]:
            raise GraphError("input %s: shape %s, expected %s" % (
                t["name"], list(a.shape), t["shape"]))
        values[t["id"]] = a if t["dtype"] == "i32" else a.astype(np.float64)
    for op in fn["ops"]:
        if op["kind"] not in EVAL:
            raise GraphError("unknown op kind %r" % op["kind"])
        r = EVAL[op["kind"]](op, [values[i] for i in op["operands"]])
        if list(r.shape) != op["shape"]:
            raise GraphError("%s %s: result shape %s, declared %s" % (
                op["kind"], op.get("spec", ""), list(r.shape), op["shape"]))
        values[op["result"]] = r
    return {t["name"]: values[t["id"]] for t in fn["outputs"]}


def load_inputs(fn, directory):
    return {t["name"]: np.load(os.path.join(directory, t["name"] + ".npy"))
            for t in fn["inputs"]}


def relative_error(out, ref):
    ref = np.asarray(ref, dtype=np.float64)
    scale = float(np.abs(ref).max()) if ref.size else 0.0
    diff = float(np.abs(np.asarray(out, dtype=np.float64) - ref).max()) \
        if ref.size else 0.0
    return diff / scale if scale > 0 else float("inf"), scale


def check_one(what, out, ref, dtype):
    """Prints `what: ok ...` or `what: MISMATCH ...`; returns True when `out`
    matches `ref` (see the metric above)."""
    want = NUMPY_DTYPE.get(dtype)
    if out.shape != ref.shape:
        print("%s: MISMATCH shape %s, expected %s" % (
            what, list(out.shape), list(ref.shape)))
        return False
    if want is not None and out.dtype != want:
        print("%s: MISMATCH dtype %s, expected %s" % (
            what, out.dtype, np.dtype(want)))
        return False
    if not np.all(np.isfinite(out)):
        print("%s: MISMATCH output has NaN or Inf" % what)
        return False
    err, scale = relative_error(out, ref)
    if scale == 0:
        print("%s: MISMATCH reference is identically zero (a vacuous "
              "comparison)" % what)
        return False
    tol = TOLERANCE.get(dtype, 1e-5)
    if not err <= tol:
        print("%s: MISMATCH rel err %.3g > %g" % (what, err, tol))
        return False
    print("%s: ok (rel err %.2g)" % (what, err))
    return True


def check(fn, refs, out_dir, label):
    ok = True
    for t in fn["outputs"]:
        path = os.path.join(out_dir, t["name"] + ".npy")
        if not os.path.exists(path):
            print("%s %s: MISMATCH missing %s" % (label, t["name"], path))
            ok = False
            continue
        ok &= check_one("%s %s" % (label, t["name"]), np.load(path),
                        refs[t["name"]], t["dtype"])
    return ok


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("eval")
    e.add_argument("graph")
    e.add_argument("--func")
    e.add_argument("--inputs", required=True)
    e.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("graph")
    c.add_argument("--func")
    c.add_argument("--inputs", required=True)
    c.add_argument("--outputs", required=True)
    c.add_argument("--label", default="numpy")
    m = sub.add_parser("compare")
    m.add_argument("run")
    m.add_argument("ref")
    m.add_argument("--graph", help="graph for output names and dtypes")
    m.add_argument("--label", default="compare")
    a = p.parse_args(argv[1:])

    try:
        if a.cmd == "eval":
            fn = load_graph(a.graph, a.func)
            refs = evaluate(fn, load_inputs(fn, a.inputs))
            os.makedirs(a.out, exist_ok=True)
            for name, r in refs.items():
                np.save(os.path.join(a.out, name + ".npy"), r)
                print("%s: %s %s" % (name, r.dtype, list(r.shape)))
            return 0
        if a.cmd == "check":
            fn = load_graph(a.graph, a.func)
            refs = evaluate(fn, load_inputs(fn, a.inputs))
            return 0 if check(fn, refs, a.outputs, a.label) else 1
        if a.cmd == "compare":
            names = sorted(f[:-4] for f in os.listdir(a.ref)
                           if f.endswith(".npy"))
            dtypes = {}
            if a.graph:
                fn = load_graph(a.graph)
                names = [t["name"] for t in fn["outputs"]]
                dtypes = {t["name"]: t["dtype"] for t in fn["outputs"]}
            if not names:
                print("%s: MISMATCH no outputs in %s" % (a.label, a.ref))
                return 1
            ok = True
            for n in names:
                paths = [os.path.join(d, n + ".npy") for d in (a.run, a.ref)]
                missing = [q for q in paths if not os.path.exists(q)]
                if missing:
                    print("%s %s: MISMATCH missing %s" % (a.label, n,
                                                          missing[0]))
                    ok = False
                    continue
                ref = np.load(paths[1])
                ok &= check_one("%s %s" % (a.label, n), np.load(paths[0]), ref,
                                dtypes.get(n, {np.float64: "f64"}.get(
                                    ref.dtype.type, "f32")))
            return 0 if ok else 1
    except (GraphError, OSError, KeyError, ValueError) as err:
        print("weft_numpy: error: %s" % err)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
