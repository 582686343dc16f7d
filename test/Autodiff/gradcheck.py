#!/usr/bin/env python3
"""Gradient check of every op kind: generates small f64 programs (one per
map kind, reduce kind, einsum pattern, plus shared uses, weft.shard and
weft.constant), differentiates them with `weft-opt --weft-autodiff`, and
checks each gradient against central finite differences with
`weft-interp --check-gradients` (relative error <= 1e-6). Shapes are drawn
from a fixed seed. Prints one line per program and a summary; exits 1 if any
program fails.

  gradcheck.py --weft-opt BIN --weft-interp BIN --work DIR [--seed N]
"""
import argparse
import os
import random
import subprocess
import sys

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft-opt", required=True)
    ap.add_argument("--weft-interp", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = [("map-" + k, unary(rng, k)) for k in UNARY]
    cases += [("map-" + k, binary(rng, k)) for k in BINARY]
    cases += [("reduce-" + k, reduce(rng, k)) for k in ("sum", "max", "min")]
    cases += [("einsum-" + s, einsum(rng, s)) for s in EINSUMS + EINSUM1]
    cases += [("softmax", softmax(rng)), ("shared-shard-constant",
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
    os.makedirs(a.work, exist_ok=True)
    failed = 0
    gradients = 0
    for i, (name, text) in enumerate(cases):
        src = os.path.join(a.work, "case%d.mlir" % i)
        out = os.path.join(a.work, "case%d.ad.mlir" % i)
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([a.weft_opt, src, "--weft-autodiff", "-o", out],
                           capture_output=True, text=True)
        if r.returncode == 0:
            r = subprocess.run([a.weft_interp, out, "--check-gradients",
                                "--seed", str(a.seed + i)],
                               capture_output=True, text=True)
        lines = [l for l in r.stdout.splitlines() if l.strip()]
        ok = r.returncode == 0 and lines and all(l.endswith(": ok")
                                                 for l in lines)
        gradients += len(lines)
        print("%s %s (%s, %d gradient(s))" % ("ok" if ok else "FAIL", name,
                                               src, len(lines)))
        if not ok:
            failed += 1
            sys.stdout.write(r.stdout + r.stderr)
    print("gradcheck: %d program(s), %d gradient(s), %d failed"
          % (len(cases), gradients, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
