#!/usr/bin/env python3
"""Gradient check of every op kind: generates small f64 programs (one per
map kind, reduce kind, einsum pattern, plus shared uses, weft.shard and
weft.constant), differentiates them with `weft-opt --weft-autodiff`, and
checks each gradient against central finite differences with
`weft-interp --check-gradients` (relative error <= 1e-6). Shapes are drawn
from a fixed seed. Prints one line per program and a summary; exits 1 if any
program fails.

  gradcheck.py --weft-opt BIN --weft-interp BIN --work DIR [--seed N]
               [--cases REGEX] [--dtype bf16|f16 [--tolerance T]]

With --dtype bf16 (or f16) every program is also built in that type, as
`weftc --precision=bf16-mixed` builds one: its float arguments are f32
(master weights and inputs), converted to the low type on entry
(weft.convert), every op computes and stores the low type, and the loss is
converted back to f32. A finite difference cannot check such a gradient
(the rounded loss is piecewise constant in the weights), so the check is
two-step: the f64 program's gradient is the one checked against finite
differences above, and the low-precision program's gradient, evaluated by
`weft-interp --round-half-results` (every stored value rounded as the
runtime rounds it), must agree with it on the same inputs (the f32 inputs
the low program drew, widened) to --tolerance, a fraction of the largest
|gradient element| (default 8 units of the type's epsilon: bf16 8 x 2^-8
= 0.031, f16 8 x 2^-11 = 0.0039; a few roundings along the chain, see
gradcheck-bf16-f16.test for the measured worst). The worst error of each
gradient is printed.
"""
import argparse
import os
import random
import re
import subprocess
import sys

try:
    import numpy as np
except ImportError:  # only --dtype needs it
    np = None

UNARY = ["neg", "exp", "log", "sqrt", "rsqrt", "square", "tanh", "relu",
         "gelu", "silu", "softplus", "abs", "sign", "step", "sigmoid", "sin", "cos", "scale",
         "shift"]
BINARY = ["add", "sub", "mul", "div", "max", "min", "gt", "ge", "lt", "le",
          "eq", "ne"]
POSITIVE = {"log", "sqrt", "rsqrt"}  # defined on x > 0 only
EINSUMS = ["ab,bc->ac", "abc,cd->abd", "ab,cb->ac", "a,b->ab", "ab,b->a",
           "abc,c->", "abd,bc->ac", "ab,ab->ab", "ab,c->abc"]
EINSUM1 = ["ab->ba", "abc->a", "abc->cb", "ab->"]


class Program:
    def __init__(self, rng):
        self.rng = rng
        self.sizes = {}
        self.args = []    # (name, letters, is_param)
        self.lines = []
        self.n = 0
        self.types = {}   # value -> type, where not f64 of its letters

    def size(self, c):
        if c not in self.sizes:
            self.sizes[c] = self.rng.randint(2, 4)
        return self.sizes[c]

    def ty(self, letters):
        dims = "x".join(str(self.size(c)) for c in letters)
        return "tensor<%sxf64>" % dims if dims else "tensor<f64>"

    def arg(self, letters, param=True):
        i = len(self.args)
        self.args.append((letters, param))
        return ("%%arg%d" % i, letters)

    def op(self, text, ins, out):
        self.n += 1
        name = "%%v%d" % self.n
        types = ", ".join(self.types.get(v, self.ty(l)) for v, l in ins)
        self.lines.append('  %s = %s (%s) : (%s) -> %s' % (
            name, text, ", ".join(v for v, _ in ins), types, self.ty(out)))
        return (name, out)

    def map(self, kind, ins, out, scalar=None):
        spec = ",".join(l for _, l in ins) + "->" + out
        text = 'weft.map %s "%s"' % (kind, spec)
        v = self.op(text, ins, out)
        if scalar is not None:
            line = self.lines[-1]
            head, tail = line.split(") : (", 1)
            self.lines[-1] = head + ") {scalar = %r : f64} : (" % scalar + tail
        return v

    def positive(self, x):
        # x^2 + 0.5 > 0, so log/sqrt/rsqrt/div are smooth there.
        return self.map("shift", [self.map("square", [x], x[1])], x[1], 0.5)

    def loss(self, y):
        # A weighted sum with a fixed random weight, so every element of y
        # gets its own nonzero gradient.
        w = self.arg(y[1], param=False)
        return self.op('weft.einsum "%s,%s->"' % (y[1], y[1]), [y, w], "")

    def text(self, loss, mesh=None):
        args = []
        for i, (letters, param) in enumerate(self.args):
            attrs = ' {weft.param, weft.name = "p%d"}' % i if param else ""
            ty = self.types.get("%%arg%d" % i, self.ty(letters))
            args.append("%%arg%d: %s%s" % (i, ty, attrs))
        head = mesh + "\n" if mesh else ""
        return (head + "func.func @f(%s) -> tensor<f64> {\n%s\n  return %s : "
                "tensor<f64>\n}\n" % (", ".join(args), "\n".join(self.lines),
                                     loss[0]))


def unary(rng, kind):
    p = Program(rng)
    x = p.arg("ab")
    if kind in POSITIVE:
        x = p.positive(x)
    scalar = 0.75 if kind in ("scale", "shift") else None
    y = p.map(kind, [x], "abc", scalar)  # broadcast along c
    return p.text(p.loss(y))


def binary(rng, kind):
    p = Program(rng)
    a, b = p.arg("ab"), p.arg("b")
    if kind == "div":
        b = p.positive(b)
    if kind in ("max", "min"):
        # Shifted apart so no pair ties within the finite-difference step.
        b = p.map("shift", [b], "b", 0.01)
    y = p.map(kind, [a, b], "ab")
    return p.text(p.loss(y))


def reduce(rng, kind):
    p = Program(rng)
    x = p.arg("abc")
    y = p.op('weft.reduce %s "abc->ca"' % kind, [x], "ca")
    return p.text(p.loss(y))


def einsum(rng, spec):
    p = Program(rng)
    ins, out = spec.split("->")
    xs = [p.arg(l) for l in ins.split(",")]
    y = p.op('weft.einsum "%s"' % spec, xs, out)
    return p.text(p.loss(y) if out else y)


def softmax(rng):
    p = Program(rng)
    x = p.arg("ab")
    m = p.op('weft.reduce max "ab->a"', [x], "a")
    e = p.map("exp", [p.map("sub", [x, m], "ab")], "ab")
    s = p.op('weft.reduce sum "ab->a"', [e], "a")
    return p.text(p.loss(p.map("div", [e, s], "ab")))


def softmax_shared(rng):
    # The softmax rule (docs/autodiff.md, "Softmax") where the exp and the
    # sum have uses besides the normalization (log-softmax's log of the
    # sum, the exp itself): their gradients go through their own rules.
    p = Program(rng)
    x = p.arg("ab")
    e = p.map("exp", [x], "ab")
    s = p.op('weft.reduce sum "ab->a"', [e], "a")
    q = p.map("div", [e, s], "ab")
    t = p.map("add", [q, p.map("log", [s], "a")], "ab")
    return p.text(p.loss(p.map("add", [t, p.map("scale", [e], "ab", 0.25)], "ab")))


def softmax_first_letter(rng):
    # Normalized over the first letter (the sum keeps b).
    p = Program(rng)
    x = p.arg("ab")
    e = p.map("exp", [x], "ab")
    s = p.op('weft.reduce sum "ab->b"', [e], "b")
    return p.text(p.loss(p.map("div", [e, s], "ab")))


def shared_shard_constant(rng):
    p = Program(rng)
    p.sizes["a"] = 4
    x = p.arg("ab")
    sq = p.map("mul", [x, x], "ab")          # one value, two operands
    sharded = ("%v" + str(p.n + 1), "ab")
    p.n += 1
    p.lines.append('  %s = weft.shard %s : %s -> tensor<%dx%dxf64, '
                   '#weft.sharding<@mesh, [{"x"}, {}]>>' % (
                       sharded[0], sq[0], p.ty("ab"), p.size("a"), p.size("b")))
    c = ("%v" + str(p.n + 1), "ab")
    p.n += 1
    p.lines.append("  %s = weft.constant 2.5 : %s" % (c[0], p.ty("ab")))
    sharded_ty = "tensor<%dx%dxf64, #weft.sharding<@mesh, [{\"x\"}, {}]>>" % (
        p.size("a"), p.size("b"))
    p.n += 1
    y = ("%v" + str(p.n), "ab")
    p.lines.append('  %s = weft.map mul "ab,ab->ab" (%s, %s) : (%s, %s) -> %s'
                   % (y[0], sharded[0], c[0], sharded_ty, p.ty("ab"),
                      p.ty("ab")))
    z = p.map("add", [y, x], "ab")           # x used again
    return p.text(p.loss(z), mesh='weft.mesh @mesh ["x" = 2]')


def index_ops(rng, kind, spec):
    """embed / scatter_add with ids of random letters (`spec` names the
    ids, the other operand and the result), plus one_hot and iota terms:
    the table's and the updates' gradients (a scatter-add and an embed)."""
    p = Program(rng)
    ids_letters, other, out = spec[0], spec[1], spec[2]
    i = len(p.args)
    p.args.append((ids_letters, False))
    ids = ("%%arg%d" % i, ids_letters)
    p.types[ids[0]] = p.ty(ids_letters).replace("f64", "i32")
    p.sizes.setdefault("v", rng.randint(3, 6))
    x = p.arg(other)
    y = p.op('weft.%s "%s,%s->%s"' % (kind, ids_letters, other, out),
             [ids, x], out)
    # one_hot of the same ids against y's vocabulary-free letters, and iota
    # along the first ids letter: constants of the parameters (no gradient
    # flows through them), so they only weight the loss.
    hot = p.op('weft.one_hot "%s->%sv"' % (ids_letters, ids_letters), [ids],
               ids_letters + "v")
    pos = ("%%v%d" % (p.n + 1), ids_letters[0])
    p.n += 1
    p.lines.append("  %s = weft.iota : %s" % (pos[0], p.ty(ids_letters[0])))
    w = p.map("add", [hot, pos], ids_letters + "v")
    z = p.op('weft.einsum "%s,%s->"' % (out, ids_letters + "v"), [y, w], "")
    return p.text(p.map("add", [z, p.loss(y)], ""))


def dropout(rng):
    """Dropout of x by a mask from weft.random (no gradient flows into the
    draw): the gradient is the cotangent times the same mask."""
    p = Program(rng)
    x = p.arg("abc")
    u = ("%%v%d" % (p.n + 1), "abc")
    p.n += 1
    p.lines.append("  %s = weft.random uniform seed 5 : %s" % (u[0],
                                                              p.ty("abc")))
    keep = p.map("step", [p.map("shift", [u], "abc", -0.3)], "abc")
    y = p.map("scale", [p.map("mul", [x, keep], "abc")], "abc", 1 / 0.7)
    return p.text(p.loss(y))


def cumsum(rng, dim, flags):
    """weft.cumsum along `dim` (its gradient: the scan the other way), fed
    a nonlinear value so the cotangent differs along the line."""
    p = Program(rng)
    x = p.arg("abc")
    t = p.map("tanh", [x], "abc")
    p.n += 1
    y = ("%%v%d" % p.n, "abc")
    p.lines.append("  %s = weft.cumsum %s dim %d%s : %s -> %s" % (
        y[0], t[0], dim, flags, p.ty("abc"), p.ty("abc")))
    return p.text(p.loss(p.map("square", [y], "abc")))


def top_k(rng, dim, payload):
    """weft.top_k along `dim` (k = 2): the cotangent goes to the selected
    positions of x, or of the payload (then x gets none)."""
    p = Program(rng)
    x = p.arg("abc")
    src = p.arg("abc") if payload else None
    out = "abc"[:dim] + "Z" + "abc"[dim + 1:]
    p.sizes["Z"] = 2
    p.n += 1
    y = ("%%v%d" % p.n, out)
    operands = x[0] + (", " + src[0] if payload else "")
    types = p.ty("abc") + (", " + p.ty("abc") if payload else "")
    p.lines.append("  %s = weft.top_k %s dim %d k 2 : (%s) -> %s" % (
        y[0], operands, dim, types, p.ty(out)))
    return p.text(p.loss(p.map("tanh", [y], out)))


def reshape(rng):
    """weft.reshape splitting a dimension and merging two (its gradient:
    the inverse reshape), between nonlinear maps."""
    p = Program(rng)
    x = p.arg("abc")
    a, b, c = (p.size(ch) for ch in "abc")
    t = p.map("tanh", [x], "abc")
    p.n += 1
    y = "%%v%d" % p.n
    p.lines.append('  %s = weft.reshape "abc->(ab)c" (%s) : (%s) -> '
                   'tensor<%dx%dxf64>' % (y, t[0], p.ty("abc"), a * b, c))
    p.sizes["M"] = a * b
    return p.text(p.loss(p.map("square", [(y, "Mc")], "Mc")))


def slice_concat(rng):
    """weft.slice (gradient: the cotangent between zeros, a concat) of two
    overlapping ranges, and weft.concat (gradient: each operand's range, a
    slice) of a slice and another argument, between nonlinear maps."""
    p = Program(rng)
    p.sizes["c"] = rng.randint(4, 6)
    x = p.arg("abc")
    z = p.arg("abd")
    a, b, c, d = (p.size(ch) for ch in "abcd")
    t = p.map("tanh", [x], "abc")
    p.sizes["e"] = c - 1
    p.n += 1
    lo = "%%v%d" % p.n
    p.lines.append("  %s = weft.slice %s dim 2 start 0 : %s -> %s"
                   % (lo, t[0], p.ty("abc"), p.ty("abe")))
    p.n += 1
    hi = "%%v%d" % p.n
    p.lines.append("  %s = weft.slice %s dim 2 start 1 : %s -> %s"
                   % (hi, t[0], p.ty("abc"), p.ty("abe")))
    m = p.map("mul", [(lo, "abe"), (hi, "abe")], "abe")
    p.sizes["f"] = c - 1 + d
    p.n += 1
    cat = "%%v%d" % p.n
    p.lines.append("  %s = weft.concat %s, %s dim 2 : (%s, %s) -> %s"
                   % (cat, m[0], z[0], p.ty("abe"), p.ty("abd"), p.ty("abf")))
    return p.text(p.loss(p.map("square", [(cat, "abf")], "abf")))


def pad_fill(rng):
    """weft.pad_fill (as --weft-pad-uneven inserts it, here with a nonzero
    fill): the kept elements pass their cotangent, the filled ones none."""
    p = Program(rng)
    x = p.arg("ab")
    t = p.map("tanh", [x], "ab")
    p.n += 1
    y = "%%v%d" % p.n
    p.lines.append("  %s = weft.pad_fill %s valid [%d, %d] fill 0.5 : %s -> %s"
                   % (y, t[0], p.size("a") - 1, p.size("b"), p.ty("ab"),
                      p.ty("ab")))
    return p.text(p.loss(p.map("square", [(y, "ab")], "ab")))


FLOAT = re.compile(r"x?f64(?=[,>])")


def lower_precision(text, dt):
    """The program of TEXT (f64) with every f64 tensor in DT, f32 float
    arguments converted to DT on entry and the loss converted back to f32
    (the shape weftc --precision=DT-mixed gives a program)."""
    head, rest = text.split("func.func @f(", 1)
    sig, body = rest.split(") -> tensor<f64> {\n", 1)
    body = body.rsplit("  return ", 1)[0]
    low = lambda t: FLOAT.sub(lambda m: m.group(0).replace("f64", dt), t)  # noqa
    args, entry = [], []
    for m in re.finditer(r"%arg(\d+): (tensor<[^>]*>)( \{[^}]*\})?", sig):
        i, ty, attrs = m.group(1), m.group(2), m.group(3) or ""
        if "f64" not in ty:
            args.append("%%arg%s: %s%s" % (i, ty, attrs))
            continue
        t32 = ty.replace("f64", "f32")
        args.append("%%in%s: %s%s" % (i, t32, attrs))
        entry.append("  %%arg%s = weft.convert %%in%s : %s -> %s"
                     % (i, i, t32, low(ty)))
    loss = re.search(r"  return (%\w+) : tensor<f64>", text).group(1)
    lines = entry
    for line in body.rstrip("\n").split("\n"):
        # weft.iota and weft.random make f32 or f64 only: made in f32 and
        # converted, as the precision policy leaves them.
        m = re.match(r"  (%\w+) = (weft\.(?:iota|random)\b.*) : "
                     r"(tensor<[^>]*>)$", line)
        if m and "f64" in m.group(3):
            t32 = m.group(3).replace("f64", "f32")
            lines.append("  %s_f32 = %s : %s" % (m.group(1), m.group(2), t32))
            lines.append("  %s = weft.convert %s_f32 : %s -> %s" % (
                m.group(1), m.group(1), t32, low(m.group(3))))
        else:
            lines.append(low(line))
    lines.append("  %%loss32 = weft.convert %s : tensor<%s> -> tensor<f32>"
                 % (loss, dt))
    return (head + "func.func @f(%s) -> tensor<f32> {\n%s\n  return "
            "%%loss32 : tensor<f32>\n}\n" % (", ".join(args),
                                               "\n".join(lines)))


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def grad_results(path):
    """{result index: name} of the results marked weft.grad_of in the
    autodiff output PATH (its function signature)."""
    with open(path) as f:
        text = f.read()
    sig = text[text.index("func.func"):]
    sig = sig[sig.index(") -> (") + 6:]
    out, depth, cur = [], 0, ""
    for ch in sig:
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return {i: re.search(r"weft.grad_of = ([^,}]+)", r).group(1).split(
        " : ")[0] for i, r in enumerate(out) if "weft.grad_of" in r}


def check_low(a, i, name, src_text, work):
    """The low-precision check of case I: returns (ok, lines)."""
    low_src = os.path.join(work, "case%d.%s.mlir" % (i, a.dtype))
    low_ad = os.path.join(work, "case%d.%s.ad.mlir" % (i, a.dtype))
    with open(low_src, "w") as f:
        f.write(lower_precision(src_text, a.dtype))
    r = run([a.weft_opt, low_src, "--weft-autodiff", "-o", low_ad])
    if r.returncode != 0:
        return False, ["%s: weft-opt --weft-autodiff failed:" % low_src,
                       r.stdout + r.stderr]
    low_dir = os.path.join(work, "case%d.%s.out" % (i, a.dtype))
    r = run([a.weft_interp, low_ad, "--round-half-results", "--seed",
             str(a.seed + i), "--output-dir", low_dir])
    if r.returncode != 0:
        return False, ["%s: weft-interp failed:" % low_ad, r.stdout + r.stderr]
    # The f64 program on the same inputs, widened.
    f64_ad = os.path.join(work, "case%d.ad.mlir" % i)
    f64_dir = os.path.join(work, "case%d.f64.out" % i)
    os.makedirs(f64_dir, exist_ok=True)
    inputs = []
    k = 0
    while os.path.exists(os.path.join(low_dir, "arg%d.npy" % k)):
        x = np.load(os.path.join(low_dir, "arg%d.npy" % k))
        if x.dtype.kind == "f":
            x = x.astype(np.float64)
        path = os.path.join(f64_dir, "in%d.npy" % k)
        np.save(path, x)
        inputs += ["--input", "%d=%s" % (k, path)]
        k += 1
    r = run([a.weft_interp, f64_ad, "--output-dir", f64_dir] + inputs)
    if r.returncode != 0:
        return False, ["%s: weft-interp (f64) failed:" % f64_ad,
                       r.stdout + r.stderr]
    grads = grad_results(low_ad)
    if grads != grad_results(f64_ad):
        return False, ["the gradients of %s and %s differ: %s vs %s" % (
            low_ad, f64_ad, grads, grad_results(f64_ad))]
    ok, lines = True, []
    for j, of in sorted(grads.items()):
        got = np.load(os.path.join(low_dir, "result%d.npy" % j))
        want = np.load(os.path.join(f64_dir, "result%d.npy" % j))
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        err = float(np.max(np.abs(got.astype(np.float64) - want))) \
            if want.size else 0.0
        rel = err / scale if scale > 0 else (0.0 if err == 0 else np.inf)
        good = got.shape == want.shape and rel <= a.tolerance
        ok &= good
        lines.append("  grad of %s (result #%d): %s, max error %.3e of "
                     "max |grad| %.3e = %.4f: %s" % (
                         of, j, list(want.shape), err, scale, rel,
                         "ok" if good else "MISMATCH"))
        a.worst = max(a.worst, rel)
    return ok, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft-opt", required=True)
    ap.add_argument("--weft-interp", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dtype", choices=["bf16", "f16"],
                    help="also check every program built in this type "
                    "against its f64 gradient")
    ap.add_argument("--cases", metavar="REGEX",
                    help="check only the programs whose name matches")
    ap.add_argument("--tolerance", type=float,
                    help="--dtype's bound, a fraction of the largest "
                    "|gradient| (default 8 epsilons: 0.031 bf16, "
                    "0.0039 f16)")
    a = ap.parse_args()
    if a.dtype and np is None:
        sys.exit("gradcheck.py: error: --dtype needs numpy")
    if a.tolerance is None:
        a.tolerance = {"bf16": 8 * 2.0 ** -8,
                       "f16": 8 * 2.0 ** -11}.get(a.dtype, 0.0)
    a.worst = 0.0
    rng = random.Random(a.seed)
    cases = [("map-" + k, unary(rng, k)) for k in UNARY]
    cases += [("map-" + k, binary(rng, k)) for k in BINARY]
    cases += [("reduce-" + k, reduce(rng, k)) for k in ("sum", "max", "min")]
    cases += [("einsum-" + s, einsum(rng, s)) for s in EINSUMS + EINSUM1]
    cases += [("softmax", softmax(rng)), ("softmax-shared", softmax_shared(rng)),
              ("softmax-first-letter", softmax_first_letter(rng)), ("shared-shard-constant",
                                          shared_shard_constant(rng))]
    cases += [("dropout", dropout(rng))]
    cases += [("reshape", reshape(rng)), ("pad_fill", pad_fill(rng))]
    cases += [("slice-concat", slice_concat(rng))]
    cases += [("top_k-%d%s" % (d, "-payload" if pl else ""), top_k(rng, d, pl))
              for d, pl in [(0, False), (1, False), (2, True)]]
    cases += [("cumsum-%d%s" % (d, f.replace(" ", "-")), cumsum(rng, d, f))
              for d, f in [(0, ""), (1, " exclusive"), (2, " reverse"),
                           (1, " exclusive reverse")]]
    # embed (gradient: a scatter-add) and scatter_add (gradient: an embed),
    # with one_hot and iota in the loss.
    # Gathers along a letter: batch letters shared by the ids and the
    # table (or the scatter's result).
    cases += [("index-" + k + "-" + ",".join(spec), index_ops(rng, k, spec))
              for k, spec in [("embed", ("ab", "vd", "abd")),
                              ("embed", ("ab", "vd", "dba")),
                              ("embed", ("ab", "abv", "ab")),
                              ("embed", ("ab", "bvd", "adb")),
                              ("scatter_add", ("ab", "abd", "vd")),
                              ("scatter_add", ("a", "da", "vd")),
                              ("scatter_add", ("ab", "abd", "avd"))]]
    if a.cases:
        try:
            pattern = re.compile(a.cases)
        except re.error as e:
            sys.exit("gradcheck.py: error: --cases %r: %s" % (a.cases, e))
        # Numbered as in the whole list, so a case keeps its seed.
        cases = [(n, t) if pattern.search(n) else None for n, t in cases]
    os.makedirs(a.work, exist_ok=True)
    failed = 0
    gradients = 0
    for i, case in enumerate(cases):
        if case is None:
            continue
        name, text = case
        src = os.path.join(a.work, "case%d.mlir" % i)
        out = os.path.join(a.work, "case%d.ad.mlir" % i)
        with open(src, "w") as f:
            f.write(text)
        r = run([a.weft_opt, src, "--weft-autodiff", "-o", out])
        if r.returncode == 0:
            r = run([a.weft_interp, out, "--check-gradients", "--seed",
                     str(a.seed + i)])
        lines = [l for l in r.stdout.splitlines() if l.strip()]
        ok = r.returncode == 0 and lines and all(l.endswith(": ok")
                                                 for l in lines)
        gradients += len(lines)
        low = []
        if ok and a.dtype:
            ok, low = check_low(a, i, name, text, a.work)
        print("%s %s (%s, %d gradient(s))" % ("ok" if ok else "FAIL", name,
                                               src, len(lines)))
        for l in low:
            print(l)
        if not ok:
            failed += 1
            sys.stdout.write(r.stdout + r.stderr)
    print("gradcheck: %d program(s), %d gradient(s), %d failed"
          % (sum(c is not None for c in cases), gradients, failed))
    if a.dtype:
        print("gradcheck: %s against f64: worst error %.4f of the largest "
              "|gradient| (tolerance %g)" % (a.dtype, a.worst, a.tolerance))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
