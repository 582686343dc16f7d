#!/usr/bin/env python3
"""Random annotated weft programs for differential testing of the partitioner.

Writes ONE module holding COUNT random programs: function @case<SEED>_<i> on
its own mesh @m<i>. Each program is a DAG of 1 to MAX_OPS index-letter ops
(weft.einsum, weft.map, weft.reduce, weft.embed, weft.scatter_add,
weft.one_hot, weft.iota, weft.random, weft.shard) over fresh
arguments and earlier results, with random non-partial shardings on some
arguments, some op results and every weft.shard. The programs are meant to be
run through

    weft-opt --weft-propagate --weft-pad-uneven --weft-partition prog.mlir \
        -o local.mlir
    weft-interp prog.mlir --compare local.mlir --all-funcs

Uneven cases (a fraction --uneven of the cases, 0.4 by default): dim sizes
also from 5, 7, 9, 10, ... and layouts that put a mesh axis on a dim it does
not divide (also on dims smaller than the group: some ranks hold only pads),
so --weft-pad-uneven pads them; these cases also draw the kinds whose pads
need a weft.pad_fill or must stay zero (weft.constant, sigmoid, abs, sign,
step, the comparisons). Whether a case is uneven is drawn from a generator
of its own, so an even case is exactly what it was before uneven cases
existed, and --uneven 0 writes the modules of the earlier generator.

The generator never runs the compiler: every shape, letter and annotation is
chosen here so that the module verifies (a module that does not verify is a
generator bug). Values are kept numerically tame (an interval bound is
tracked per value; log/sqrt/rsqrt/div only see values >= 0.25, exp only
small arguments), so the global and local runs agree to rounding and any
mismatch is the partitioner's.

--scan-ops P adds weft.cumsum and weft.top_k to the draw of a fraction P of
the cases; --reshape-ops P makes each op slot a weft.reshape (a dim split
into 2 or 3 letters, 2 or 3 adjacent dims merged, or a split then a merge)
with probability P, drawn from a stream of its own; --index-ops P likewise
makes it a weft.slice, a weft.concat, a gather (weft.embed) or scatter-add
with batch letters, or a weft.random with an offset (gen_index). All three
default to 0, and then the modules are byte-identical to those of the
generator without them.

Usage: gen_random_programs.py OUT.mlir --seed S [--count N] [--max-ops K]
                              [--only I] [--uneven P] [--scan-ops P]
                              [--reshape-ops P] [--index-ops P]
Prints one line "<N> cases, <ops> ops, seed <S>, <U> uneven" (for
FileCheck).
--only I writes case I alone (same content as in the full module: every case
draws from its own generator seeded by (S, I)).
"""
import argparse
import math
import random
import sys

AXIS_POOL = ["x", "y", "z", "data", "model", "seq"]
AXIS_SIZES = [1, 2, 2, 3, 4, 4]        # weighted: 2 and 4 more often
DIM_SIZES = [1, 2, 2, 3, 4, 4, 6, 6, 8, 8, 12, 12, 24]
# Uneven cases: sizes that the axes (1 to 4, groups up to 8) often do not
# divide, and small ones (below the group size: ranks with pads only).
UNEVEN_DIM_SIZES = [1, 2, 3, 4, 5, 5, 6, 7, 7, 8, 9, 10, 10, 11, 12, 13, 14]
P_UNEVEN = 0.4          # default fraction of uneven cases
P_UNEVEN_AXIS = 0.75    # uneven case: an axis may join a dim it does not divide
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_ELEMS = 2048        # per tensor
MAX_EINSUM_WORK = 8192  # product of all letter sizes of an op
MAX_RANK = 4
BIG = 1.0e4             # a value bound above which growth ops are avoided
# weft-interp counts a concat's work as the product of every operand's
# extent along the joined dim and the result's (one letter each).
MAX_CONCAT_WORK = 2**30

# Constructs --avoid can leave out while a partitioner bug that they hit is
# open, so a long fuzz run can look for other bugs meanwhile. Each has a
# regression test in test/Differential/regress-*.mlir.
AVOIDABLE = {
    # One value as both operands of an op (einsum or binary map). Fixed
    # (Partition.cpp sets operands by position); kept as an example.
    "repeated-operand": "regress-repeated-operand-*.mlir",
}

UNARY_ALWAYS = ["neg", "tanh", "relu", "gelu", "silu", "scale", "shift"]
BINARY = ["add", "sub", "mul", "max", "min", "div"]
# Uneven cases only (see the module docstring). sign, step and the
# comparisons are discontinuous: sign and step only see fresh arguments, a
# comparison compares with a fresh argument (a computed value never ties
# with an independent random input, so rounding cannot flip one).
UNARY_UNEVEN = ["sigmoid", "abs"]
UNARY_ARG_ONLY = ["sign", "step"]
COMPARE = ["gt", "ge", "lt", "le", "eq", "ne"]
CONSTANTS = [0.0, 1.0, -0.5, 2.0, 0.25]
SKIP = "skip"   # Case.reshape_operand: leave the op slot to another op


class Value:
    def __init__(self, name, shape, ann, lo, hi, ids=False, vocab=None):
        self.name = name
        self.shape = list(shape)
        self.ann = ann          # None or list (per dim) of axis lists
        self.lo = lo            # interval containing every element
        self.hi = hi
        self.ids = ids          # an i32 ids tensor (vocab = its bound)
        self.vocab = vocab
        self.uses = 0
        self.shard_ann = None   # the layout of weft.shard constraints on it

    @property
    def bound(self):
        return max(abs(self.lo), abs(self.hi))


class Case:
    def __init__(self, seed, index, max_ops, avoid=(), p_uneven=P_UNEVEN):
        self.avoid = set(avoid)
        self.rng = random.Random(seed * 1000003 + index)
        # Drawn apart from self.rng: an even case draws what it always did.
        self.uneven = (random.Random(f"uneven {seed} {index}").random()
                       < p_uneven)
        self.dim_sizes = UNEVEN_DIM_SIZES if self.uneven else DIM_SIZES
        self.seed = seed
        self.index = index
        self.max_ops = max_ops
        self.mesh_name = f"m{index}"
        self.args = []          # Values
        self.values = []        # float Values usable as operands
        self.ids_values = []
        self.index_ids = []     # ids made by a slice or concat of ids
        self.ids_private = []   # ids arguments only they take
        self.lines = []
        self.counter = 0
        self.num_ops = 0
        self.make_mesh()
        self.num_devices = math.prod(s for _, s in self.axes)
        r = self.rng.random()
        self.elt = "f32" if r < 0.8 else ("f64" if r < 0.9 else "bf16")

    # -- mesh and annotations ----------------------------------------------
    def make_mesh(self):
        rng = self.rng
        while True:
            n = rng.choice([1, 2, 2, 3, 3])
            names = rng.sample(AXIS_POOL, n)
            sizes = [rng.choice(AXIS_SIZES) for _ in names]
            if math.prod(sizes) <= 8:
                break
        self.axes = list(zip(names, sizes))

    def random_layout(self, shape, p_use=0.6):
        """A random non-partial layout of `shape` on the case's mesh: each
        axis, in random order, joins a random dim it divides (or none); in
        an uneven case, often any dim (--weft-pad-uneven pads it)."""
        rng = self.rng
        dims = [[] for _ in shape]
        prods = [1] * len(shape)
        order = list(self.axes)
        rng.shuffle(order)
        for name, size in order:
            if not shape or rng.random() > p_use:
                continue
            cands = [d for d in range(len(shape))
                     if shape[d] % (prods[d] * size) == 0]
            if self.uneven and rng.random() < P_UNEVEN_AXIS:
                cands = list(range(len(shape)))
            if not cands:
                continue
            d = rng.choice(cands)
            dims[d].append(name)
            prods[d] *= size
        return dims

    def maybe_layout(self, shape, p):
        if self.rng.random() < p:
            return self.random_layout(shape)
        return None

    def enc(self, ann):
        dims = ", ".join("{" + ", ".join(f'"{a}"' for a in d) + "}"
                         for d in ann)
        return f"#weft.sharding<@{self.mesh_name}, [{dims}]>"

    def ty(self, shape, ann, elt=None):
        elt = elt or self.elt
        s = "x".join(str(d) for d in shape)
        s = (s + "x" if shape else "") + elt
        if ann is not None:
            s += ", " + self.enc(ann)
        return f"tensor<{s}>"

    def vty(self, v):
        return self.ty(v.shape, v.ann, "i32" if v.ids else None)

    # -- values --------------------------------------------------------------
    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def new_arg(self, shape, ids=False, vocab=None):
        name = f"%a{len(self.args)}"
        ann = self.maybe_layout(shape, 0.6)
        if ids:
            v = Value(name, shape, ann, 0, 0, ids=True, vocab=vocab)
            self.ids_values.append(v)
        else:
            v = Value(name, shape, ann, -1.0, 1.0)
            self.values.append(v)
        self.args.append(v)
        return v

    def pick_value(self, pred=lambda v: True):
        cands = [v for v in self.values if pred(v)]
        if not cands:
            return None
        # Prefer recent values (deeper graphs) and unused ones (fewer dead
        # ops), but keep fan-out.
        weights = [1.0 + i + (3.0 if v.uses == 0 else 0.0)
                   for i, v in enumerate(cands)]
        return self.rng.choices(cands, weights)[0]

    def random_shape(self, rank):
        rng = self.rng
        for _ in range(50):
            shape = [rng.choice(self.dim_sizes) for _ in range(rank)]
            if math.prod(shape) <= MAX_ELEMS:
                return shape
        return [2] * rank

    def operand(self, p_reuse=0.75, min_rank=0):
        """An existing float value (preferred) or a fresh argument."""
        # A reshape's result is often the next op's operand (so sharding
        # propagates across the reshape); never set without --reshape-ops.
        prefer = getattr(self, "prefer", None)
        if prefer is not None:
            self.prefer = None
            if len(prefer.shape) >= min_rank:
                return prefer
        if self.rng.random() < p_reuse:
            v = self.pick_value(lambda v: len(v.shape) >= min_rank)
            if v is not None:
                return v
        rank = self.rng.choice([r for r in [0, 1, 1, 2, 2, 2, 3, 3, 4]
                                if r >= min_rank])
        return self.new_arg(self.random_shape(rank))

    def may_repeat(self, a, b):
        """Whether `b` may be the second operand of an op whose first is
        `a` (--avoid repeated-operand keeps them distinct)."""
        return a is not b or "repeated-operand" not in self.avoid

    def letters_for(self, n, avoid=""):
        pool = [c for c in LETTERS if c not in avoid]
        return "".join(self.rng.sample(pool, n))

    def emit(self, text, shape, lo, hi, result_p=0.2):
        """Emits `%r = text : ... -> type` with a maybe-annotated result."""
        name = self.fresh()
        ann = self.maybe_layout(shape, result_p)
        v = Value(name, shape, ann, lo, hi)
        self.lines.append((v, text))
        self.values.append(v)
        self.num_ops += 1
        return v

    def op_line(self, v, op, spec, operands, attrs):
        # Rendered at the end: an annotation added to a returned value later
        # shows in every use of it.
        if op == "weft.shard":
            return (f"  {v.name} = weft.shard {operands[0].name} : "
                    f"{self.vty(operands[0])} -> {self.vty(v)}")
        if op == "weft.random" and operands:
            # The offset operand (--index-ops).
            s = operands[0]
            return (f"  {v.name} = {op}{spec} offset({s.name} : "
                    f"{self.vty(s)}) : {self.vty(v)}")
        if op in ("weft.random", "weft.iota", "weft.constant"):
            # No operands: `spec` is the rest of the op's syntax.
            return f"  {v.name} = {op}{spec} : {self.vty(v)}"
        if op == "weft.slice":
            return (f"  {v.name} = weft.slice {operands[0].name}{spec} : "
                    f"{self.vty(operands[0])} -> {self.vty(v)}")
        if op == "weft.concat":
            ins = ", ".join(o.name for o in operands)
            tys = ", ".join(self.vty(o) for o in operands)
            return (f"  {v.name} = weft.concat {ins}{spec}\n"
                    f"      : ({tys}) -> {self.vty(v)}")
        if op == "weft.cumsum":
            return (f"  {v.name} = weft.cumsum {operands[0].name}{spec} : "
                    f"{self.vty(operands[0])} -> {self.vty(v)}")
        if op == "weft.top_k":
            ins = ", ".join(o.name for o in operands)
            tys = ", ".join(self.vty(o) for o in operands)
            return (f"  {v.name} = weft.top_k {ins}{spec} : ({tys}) -> "
                    f"{self.vty(v)}")
        ins = ", ".join(o.name for o in operands)
        tys = ", ".join(self.vty(o) for o in operands)
        attr = f" {{{attrs}}}" if attrs else ""
        return (f"  {v.name} = {op} \"{spec}\" ({ins}){attr}\n"
                f"      : ({tys}) -> {self.vty(v)}")

    def finish(self, v, op, spec, operands, attrs=""):
        for o in operands:
            o.uses += 1
        self.lines[-1] = (v, (op, spec, operands, attrs))
        return v

    # -- ops -----------------------------------------------------------------
    def gen_einsum2(self):
        rng = self.rng
        a = self.operand()
        la = self.letters_for(len(a.shape))
        size = dict(zip(la, a.shape))
        # Second operand: an existing value whose dims can share letters with
        # a's (same size), or a fresh argument.
        b = None
        if rng.random() < 0.6:
            b = self.pick_value(lambda v: len(v.shape) <= MAX_RANK and
                                self.may_repeat(a, v))
        if b is not None:
            lb = ""
            used = set()
            for d in b.shape:
                share = [c for c in la if size[c] == d and c not in used]
                if share and rng.random() < 0.7:
                    c = rng.choice(share)
                else:
                    c = self.letters_for(1, la + lb + "".join(size))
                    size[c] = d
                used.add(c)
                lb += c
        else:
            shared = [c for c in la if rng.random() < 0.6]
            new = self.letters_for(rng.choice([0, 1, 1, 2]), la)
            for c in new:
                size[c] = rng.choice(self.dim_sizes)
            lb = "".join(rng.sample(shared + list(new), len(shared) + len(new)))
            b = self.new_arg([size[c] for c in lb])
        allc = list(dict.fromkeys(la + lb))
        return self.einsum_result(allc, size, [a, b], [la, lb])

    def gen_einsum1(self):
        a = self.operand(min_rank=1)
        la = self.letters_for(len(a.shape))
        return self.einsum_result(list(la), dict(zip(la, a.shape)), [a], [la])

    def einsum_result(self, allc, size, operands, terms):
        rng = self.rng
        for _ in range(20):
            k = rng.randint(0, min(MAX_RANK, len(allc)))
            res = rng.sample(allc, k)
            shape = [size[c] for c in res]
            if math.prod(shape) <= MAX_ELEMS:
                break
        else:
            return None
        if math.prod(size[c] for c in allc) > MAX_EINSUM_WORK:
            return None
        contracted = math.prod(size[c] for c in allc if c not in res)
        bound = contracted * math.prod(o.bound for o in operands)
        if bound > BIG:
            return None
        spec = ",".join(terms) + "->" + "".join(res)
        v = self.emit(None, shape, -bound, bound)
        return self.finish(v, "weft.einsum", spec, operands)

    def gen_map_unary(self):
        rng = self.rng
        a = self.operand()
        kinds = list(UNARY_ALWAYS)
        if a.bound <= 8:
            kinds.append("exp")
        if a.bound <= 100:
            kinds += ["square", "sin", "cos"]
        if a.lo >= 0.25:
            kinds += ["log", "sqrt", "rsqrt"]
        if self.uneven:
            kinds += UNARY_UNEVEN
            if any(a is x for x in self.args):
                kinds += UNARY_ARG_ONLY
        kind = rng.choice(kinds)
        lo, hi = a.lo, a.hi
        attrs = ""
        if kind == "neg":
            lo, hi = -hi, -lo
        elif kind == "tanh":
            lo, hi = math.tanh(lo), math.tanh(hi)
        elif kind == "relu":
            lo, hi = max(lo, 0.0), max(hi, 0.0)
        elif kind in ("gelu", "silu"):
            lo, hi = min(-0.3, lo), max(hi, 0.0)
        elif kind == "scale":
            c = rng.choice([0.5, -0.5, 2.0, -1.0, 0.25, 3.0, 0.0])
            if c * a.bound > BIG:
                c = 0.5
            attrs = f"scalar = {c!r} : f64"
            lo, hi = sorted((c * lo, c * hi))
        elif kind == "shift":
            c = rng.choice([1.0, -0.5, 0.25, 2.0, 1.5])
            attrs = f"scalar = {c!r} : f64"
            lo, hi = lo + c, hi + c
        elif kind == "exp":
            lo, hi = math.exp(lo), math.exp(hi)
        elif kind == "square":
            lo = 0.0 if lo <= 0 <= hi else min(lo * lo, hi * hi)
            hi = max(lo * lo, hi * hi, a.lo * a.lo, a.hi * a.hi)
        elif kind in ("sin", "cos", "sign"):
            lo, hi = -1.0, 1.0
        elif kind in ("sigmoid", "step"):
            lo, hi = 0.0, 1.0
        elif kind == "abs":
            lo, hi = (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi)),
                      a.bound)
        elif kind == "log":
            lo, hi = math.log(lo), math.log(hi)
        elif kind == "sqrt":
            lo, hi = math.sqrt(lo), math.sqrt(hi)
        elif kind == "rsqrt":
            lo, hi = 1 / math.sqrt(hi), 1 / math.sqrt(lo)
        la = self.letters_for(len(a.shape))
        res = la
        if rng.random() < 0.25:
            res = "".join(rng.sample(la, len(la)))
        shape = [a.shape[la.index(c)] for c in res]
        v = self.emit(None, shape, lo, hi)
        return self.finish(v, f"weft.map {kind}", f"{la}->{res}", [a], attrs)

    def make_positive(self, a):
        """square then shift 1.0: a value >= 1 (two ops)."""
        la = self.letters_for(len(a.shape))
        sq = self.emit(None, a.shape, 0.0, a.bound * a.bound)
        self.finish(sq, "weft.map square", f"{la}->{la}", [a])
        v = self.emit(None, a.shape, 1.0, sq.hi + 1.0)
        return self.finish(v, "weft.map shift", f"{la}->{la}", [sq],
                           "scalar = 1.0 : f64")

    def gen_map_binary(self):
        rng = self.rng
        kind = rng.choice(BINARY + COMPARE if self.uneven else BINARY)
        a = self.operand()
        la = self.letters_for(len(a.shape))
        size = dict(zip(la, a.shape))
        need_pos = kind == "div"
        b = None
        # A comparison's second operand is a fresh argument: no ties.
        if kind not in COMPARE and rng.random() < 0.6:
            # An existing value whose every dim can take one of a's letters
            # (broadcast) or a new letter.
            b = self.pick_value(lambda v: (not need_pos or v.lo >= 0.25)
                                and v.bound <= BIG and self.may_repeat(a, v))
        if b is not None:
            lb = ""
            for d in b.shape:
                share = [c for c in la if size[c] == d and c not in lb]
                if share and rng.random() < 0.8:
                    c = rng.choice(share)
                else:
                    c = self.letters_for(1, la + lb + "".join(size))
                    size[c] = d
                lb += c
        else:
            shared = [c for c in la if rng.random() < 0.7]
            new = self.letters_for(rng.choice([0, 0, 1]), la)
            for c in new:
                size[c] = rng.choice(self.dim_sizes)
            lb = "".join(rng.sample(shared + list(new), len(shared) + len(new)))
            b = self.new_arg([size[c] for c in lb])
            if need_pos and self.num_ops + 2 < self.max_ops:
                b = self.make_positive(b)
            elif need_pos:
                kind = "mul"
        if need_pos and b.lo < 0.25:
            kind = "mul"
        allc = list(dict.fromkeys(la + lb))
        if len(allc) > MAX_RANK:
            return None
        res = "".join(rng.sample(allc, len(allc))) if rng.random() < 0.3 \
            else "".join(allc)
        shape = [size[c] for c in res]
        if math.prod(shape) > MAX_ELEMS:
            return None
        # Interval of the result.
        pa, pb = (a.lo, a.hi), (b.lo, b.hi)
        if kind == "add":
            lo, hi = pa[0] + pb[0], pa[1] + pb[1]
        elif kind == "sub":
            lo, hi = pa[0] - pb[1], pa[1] - pb[0]
        elif kind == "mul":
            prods = [x * y for x in pa for y in pb]
            lo, hi = min(prods), max(prods)
        elif kind == "div":
            quots = [x / y for x in pa for y in pb]
            lo, hi = min(quots), max(quots)
        elif kind == "max":
            lo, hi = max(pa[0], pb[0]), max(pa[1], pb[1])
        elif kind in COMPARE:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = min(pa[0], pb[0]), min(pa[1], pb[1])
        if max(abs(lo), abs(hi)) > BIG:
            return None
        v = self.emit(None, shape, lo, hi)
        return self.finish(v, f"weft.map {kind}", f"{la},{lb}->{res}", [a, b])

    def gen_reduce(self):
        rng = self.rng
        a = self.operand(min_rank=1)
        la = self.letters_for(len(a.shape))
        kind = rng.choice(["sum", "sum", "max", "min"])
        k = rng.randint(0, len(la) - 1) if rng.random() < 0.9 else len(la)
        res = "".join(rng.sample(la, k))
        shape = [a.shape[la.index(c)] for c in res]
        n = math.prod(a.shape) // max(1, math.prod(shape))
        if kind == "sum":
            lo, hi = n * a.lo, n * a.hi
            if max(abs(lo), abs(hi)) > BIG:
                return None
        else:
            lo, hi = a.lo, a.hi
        v = self.emit(None, shape, lo, hi)
        return self.finish(v, f"weft.reduce {kind}", f"{la}->{res}", [a])

    def gen_embed(self):
        rng = self.rng
        # Table: an existing rank-2 value or a fresh argument.
        table = None
        if rng.random() < 0.4:
            table = self.pick_value(lambda v: len(v.shape) == 2)
        if table is None:
            table = self.new_arg(self.random_shape(2))
        V, D = table.shape
        ids = self.ids_operand(p_reuse=0.4)
        li = self.letters_for(len(ids.shape))
        vd = self.letters_for(2, li)
        allc = li + vd[1]
        res = "".join(rng.sample(allc, len(allc))) if rng.random() < 0.3 \
            else allc
        shape = [dict(zip(li, ids.shape)).get(c, D) for c in res]
        if math.prod(shape) > MAX_ELEMS:
            return None
        v = self.emit(None, shape, min(table.lo, 0.0), max(table.hi, 0.0))
        # The ids operand is an i32 tensor.
        return self.finish(v, "weft.embed", f"{li},{vd}->{res}", [ids, table])

    def gen_random(self):
        # Counter-based random numbers of a random shape (f32/f64 only);
        # any layout is free, each rank draws its block.
        rng = self.rng
        if self.elt not in ("f32", "f64"):
            return None
        shape = self.random_shape(rng.choice([1, 2, 2, 3, 3, 4]))
        kind = rng.choice(["uniform", "normal"])
        lo, hi = (0.0, 1.0) if kind == "uniform" else (-9.0, 9.0)
        v = self.emit(None, shape, lo, hi)
        return self.finish(v, "weft.random",
                           f" {kind} seed {rng.randint(0, 2**40)}", [])

    def gen_cumsum(self):
        # A scan along any dim, often a split one (block scans plus the
        # all-gathered block totals), inclusive or exclusive, either way.
        rng = self.rng
        a = self.operand(min_rank=1)
        d = rng.randrange(len(a.shape))
        n = a.shape[d]
        lo, hi = min(0.0, n * a.lo), max(0.0, n * a.hi)
        if max(abs(lo), abs(hi)) > BIG:
            return None
        flags = "".join(f for f in (" exclusive", " reverse")
                        if rng.random() < 0.5)
        v = self.emit(None, list(a.shape), lo, hi)
        return self.finish(v, "weft.cumsum", f" dim {d}{flags}", [a])

    def gen_top_k(self):
        # The k largest along a dim (candidates per block, gathered when it
        # is split), the values or a payload's at their places.
        # Even cases only: a consumer may split the k letter, and an uneven
        # split of it is refused (PadUneven.cpp; docs/partitioning.md).
        if self.uneven:
            return None
        rng = self.rng
        a = self.operand(min_rank=1)
        d = rng.randrange(len(a.shape))
        k = rng.randint(1, min(a.shape[d], 4))
        shape = list(a.shape)
        shape[d] = k
        operands = [a]
        lo, hi = a.lo, a.hi
        if rng.random() < 0.5:
            p = self.pick_value(lambda v: v.shape == a.shape and v is not a)
            if p is None:
                p = self.new_arg(list(a.shape))
            operands.append(p)
            lo, hi = p.lo, p.hi
        # Unannotated: a split of the k letter would be padded, which
        # top_k refuses (PadUneven.cpp).
        v = self.emit(None, shape, lo, hi, result_p=0.0)
        v.keep_unannotated = True
        return self.finish(v, "weft.top_k", f" dim {d} k {k}", operands)

    # -- weft.reshape (--reshape-ops) --------------------------------------
    # A merged dimension is split exactly as its major (first) letter, and
    # propagation accepts uneven splits, so a split of (hk) over axes that
    # divide h*k but not h would pad h, which --weft-pad-uneven refuses
    # across a reshape. So in even cases (where every split divides its
    # dim) a group of size P takes a major letter of size h only if every
    # product g of mesh axes that divides P divides h (major_ok): then every
    # split still divides its dim, across any chain of reshapes. Minor
    # letters are never split by the reshape (a split of one, e.g. by an
    # annotation, is resharded around it). In uneven cases every dimension
    # of both sides is a multiple of the device count M, so none is ever
    # padded (the refusal covers every dimension of a reshape), while other
    # values of the function are.
    def major_ok(self, h, group):
        if not hasattr(self, "axis_products"):
            sizes = [s for _, s in self.axes]
            self.axis_products = {
                math.prod(s for j, s in enumerate(sizes) if m >> j & 1)
                for m in range(1, 1 << len(sizes))} - {1}
        return all(h % g == 0 for g in self.axis_products if group % g == 0)

    def reshape_ok(self, shape):
        M = self.num_devices
        return (len(shape) >= 1 and math.prod(shape) <= MAX_ELEMS and
                (not self.uneven or all(n % M == 0 for n in shape)))

    def reshape_sizes(self):
        """Sizes for the dims of a fresh reshape operand that no group
        constrains (multiples of M in uneven cases)."""
        M = self.num_devices
        if self.uneven:
            return [n for n in self.dim_sizes if n % M == 0] or [M]
        return self.dim_sizes

    def major_size(self):
        """A major letter's size: a multiple of M, or (even cases) any, to
        be checked by major_ok."""
        rng = self.rng
        if self.uneven or rng.random() < 0.5:
            return self.num_devices * rng.choice([1, 1, 2, 3])
        return rng.choice(self.dim_sizes)

    def minor_size(self):
        if self.uneven and self.num_devices > 1:
            return self.num_devices * self.rng.choice([1, 1, 2])
        return self.rng.choice([1, 2, 2, 3, 3, 4])

    def factorizations(self, n, parts):
        """Ways to write n as a product of `parts` letter sizes, major first:
        the major one major_ok (every size a multiple of M in uneven
        cases)."""
        M = self.num_devices
        out = []

        def rec(rest, k, acc):
            if k == 1:
                if not self.uneven or rest % M == 0:
                    out.append(acc + [rest])
                return
            for f in range(1, rest + 1):
                if rest % f:
                    continue
                if self.uneven and f % M:
                    continue
                if not acc and not self.major_ok(f, n):
                    continue
                rec(rest // f, k - 1, acc + [f])
        rec(n, parts, [])
        return out

    def layout_on(self, shape, d):
        """A layout that splits dim `d` (a merged dim, or the major dim of a
        group) on an axis that divides it, and maybe other dims too."""
        rng = self.rng
        dims = [[] for _ in shape]
        prods = [1] * len(shape)
        order = list(self.axes)
        rng.shuffle(order)
        first = [a for a in order if a[1] > 1 and shape[d] % a[1] == 0]
        if first:
            name, size = first[0]
            dims[d].append(name)
            prods[d] *= size
            order.remove(first[0])
        for name, size in order:
            if rng.random() < 0.5:
                continue
            cands = [e for e in range(len(shape))
                     if shape[e] % (prods[e] * size) == 0]
            if cands:
                e = rng.choice(cands)
                dims[e].append(name)
                prods[e] *= size
        return dims

    def reshape_input(self, a, d):
        """Sometimes requests `a` split on dim `d` (and others): on its type
        when it has no annotation or is an argument, or by a weft.shard (the
        one it already has, if any)."""
        rng = self.rng
        if getattr(a, "keep_unannotated", False) or rng.random() < 0.55:
            return a
        if ((a.ann is None or any(a is x for x in self.args))
                and rng.random() < 0.75):
            a.ann = self.layout_on(a.shape, d)
            return a
        if a.shard_ann is None:
            a.shard_ann = self.layout_on(a.shape, d)
        v = Value(self.fresh(), a.shape, a.shard_ann, a.lo, a.hi)
        a.uses += 1
        self.lines.append((v, ("weft.shard", None, [a], "")))
        self.values.append(v)
        self.num_ops += 1
        return v

    def reshape_operand(self, pred):
        """An existing value for a reshape: often the latest one (an einsum
        or reduce result may then arrive partial), mostly an op result;
        None for a fresh argument, or SKIP (no op result qualifies yet:
        often the slot is left to another op, so that reshapes come in the
        middle of programs)."""
        last = self.values[-1] if self.values else None
        if last is not None and pred(last) and self.rng.random() < 0.5:
            return last
        v = self.pick_value(
            lambda v: pred(v) and not any(v is x for x in self.args))
        if v is None and self.rng.random() < 0.6:
            return SKIP
        if v is not None and self.rng.random() < 0.8:
            return v
        return self.pick_value(pred)

    def reshape_spec(self, groups_in, groups_out, letters):
        """The spec from per-side group lengths over `letters`."""
        def side(groups):
            out, i = "", 0
            for n in groups:
                g = letters[i:i + n]
                out += g if n == 1 else f"({g})"
                i += n
            return out
        return side(groups_in) + "->" + side(groups_out)

    def emit_reshape(self, a, groups_in, groups_out, shape):
        letters = self.letters_for(sum(groups_in))
        spec = self.reshape_spec(groups_in, groups_out, letters)
        v = self.emit(None, shape, a.lo, a.hi)
        return self.finish(v, "weft.reshape", spec, [a])

    def split_candidates(self, shape, parts):
        """(dim, factorization) pairs that split one dim into `parts`."""
        return [(d, f) for d, n in enumerate(shape)
                for f in self.factorizations(n, parts)]

    def gen_reshape_split(self, a=None):
        # One dim split into 2 (sometimes 3) letters: "a(bc)d->abcd".
        rng = self.rng
        parts = 3 if rng.random() < 0.2 else 2

        def pred(v):
            return (len(v.shape) + parts - 1 <= 5 and
                    self.reshape_ok(v.shape) and
                    bool(self.split_candidates(v.shape, parts)))
        if a is not None and not pred(a):
            return None
        if a is None and rng.random() < 0.8:
            a = self.reshape_operand(pred)
            if a is SKIP:
                return None
        if a is None:
            for _ in range(20):
                rank = rng.choice([1, 2, 2, 3])
                shape = [rng.choice(self.reshape_sizes())
                         for _ in range(rank)]
                sizes = [self.major_size()] + [self.minor_size()
                                               for _ in range(parts - 1)]
                shape[rng.randrange(rank)] = math.prod(sizes)
                if (self.reshape_ok(shape) and
                        self.split_candidates(shape, parts)):
                    break
            else:
                return None
            a = self.new_arg(shape)
        cands = self.split_candidates(a.shape, parts)
        if not cands:
            return None
        # Mostly no size-1 letter.
        nontrivial = [c for c in cands if min(c[1]) > 1]
        if nontrivial and rng.random() < 0.9:
            cands = nontrivial
        d, f = rng.choice(cands)
        a = self.reshape_input(a, d)
        groups_in = [1] * len(a.shape)
        groups_in[d] = parts
        shape = a.shape[:d] + f + a.shape[d + 1:]
        return self.emit_reshape(a, groups_in, [1] * len(shape), shape)

    def merge_runs(self, shape):
        """(first dim, length) of the runs of 2 or 3 adjacent dims that
        may merge (major_ok)."""
        return [(i, n) for n in (2, 3) for i in range(len(shape) - n + 1)
                if self.major_ok(shape[i], math.prod(shape[i:i + n]))]

    def gen_reshape_merge(self, a=None):
        # 2 (sometimes 3) adjacent dims merged into one: "abcd->a(bc)d".
        rng = self.rng

        def pred(v):
            return self.reshape_ok(v.shape) and bool(self.merge_runs(v.shape))
        if a is not None and not pred(a):
            return None
        if a is None and rng.random() < 0.8:
            a = self.reshape_operand(pred)
            if a is SKIP:
                return None
        if a is None:
            for _ in range(20):
                rank = rng.choice([2, 2, 3, 3, 4])
                n = 3 if rank >= 3 and rng.random() < 0.25 else 2
                i = rng.randrange(rank - n + 1)
                shape = [rng.choice(self.reshape_sizes())
                         for _ in range(rank)]
                shape[i] = self.major_size()
                if self.reshape_ok(shape) and self.merge_runs(shape):
                    break
            else:
                return None
            a = self.new_arg(shape)
        runs = self.merge_runs(a.shape)
        if not runs:
            return None
        # Mostly runs of 2.
        weights = [3.0 if n == 2 else 1.0 for _, n in runs]
        i, n = rng.choices(runs, weights)[0]
        a = self.reshape_input(a, i)
        groups_out = [1] * i + [n] + [1] * (len(a.shape) - i - n)
        shape = (a.shape[:i] + [math.prod(a.shape[i:i + n])] +
                 a.shape[i + n:])
        return self.emit_reshape(a, [1] * len(a.shape), groups_out, shape)

    def gen_reshape(self):
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            v = self.gen_reshape_split()
        elif r < 0.75:
            v = self.gen_reshape_merge()
        elif r < 0.88:
            # A split, then a merge of its result (often across the
            # split's group: "a(bc)->abc", "abc->(ab)c").
            v = self.gen_reshape_split()
            if v is not None and self.merge_runs(v.shape):
                v = self.gen_reshape_merge(v)
        else:
            # A contraction or a reduction, then a reshape of its result
            # (which may arrive partial).
            u = rng.choice([self.gen_einsum2, self.gen_einsum2,
                            self.gen_einsum1, self.gen_reduce])()
            v = None
            if u is not None:
                g = rng.choice([self.gen_reshape_split,
                                self.gen_reshape_merge])
                v = g(u)
        # Mostly the next op's first operand.
        if v is not None and rng.random() < 0.7:
            self.prefer = v
        return v

    # -- slices, concatenations, gathers (--index-ops) ---------------------
    # weft.slice and weft.concat compute their dimension D whole (an
    # operand split on D is resharded first, a result split on D is sliced
    # after); every other dim splits freely. --weft-pad-uneven refuses a
    # padded D on a slice's result and on any operand or result of a
    # concat, but accepts it on a slice's input (the range never reaches
    # the pads). So in uneven cases the extents along D of a slice's result
    # and of every concat operand (hence of its result) are multiples of
    # the device count M, which no split pads, while a slice's input and
    # the other dims of both are padded freely. Even cases split only what
    # divides, so any extent is safe there.
    # Ids made by a slice or concat of ids: the interpreter's id bound
    # (IdBound.cpp) follows weft.shard and the collectives, not a slice or
    # concat, so the ids they come from are drawn below the default bound
    # 16 if nothing else looks them up, and below the smallest lookup's
    # rows otherwise (which may be more rows than a lookup of the slice
    # has). So slices and concats of ids only take ids arguments of their
    # own (ids_private, which no lookup uses directly: bound 16) or earlier
    # derived ids (index_ids), and only lookups with at least 16 rows use
    # derived ids (DERIVED_VOCAB).
    DERIVED_VOCAB = [16, 16, 20, 24]

    def index_m(self):
        """The multiple the extents along D must be (1 in even cases)."""
        return self.num_devices if self.uneven else 1

    def emit_any(self, shape, lo, hi, ids=False, result_p=0.2):
        """emit(), for an i32 result too (a slice or concat of ids, kept
        apart in index_ids: see DERIVED_VOCAB)."""
        if not ids:
            return self.emit(None, shape, lo, hi, result_p)
        # (a derived ids value: see DERIVED_VOCAB)
        ann = self.maybe_layout(shape, result_p)
        v = Value(self.fresh(), shape, ann, 0, 0, ids=True)
        self.lines.append((v, None))
        self.index_ids.append(v)
        self.num_ops += 1
        return v

    def index_input(self, a, d, p_skip=0.5):
        """Sometimes requests `a` split on dim `d` (layout_on) or in any
        layout: on its type when it has no annotation or is an argument,
        else by a weft.shard (ids too)."""
        rng = self.rng
        if getattr(a, "keep_unannotated", False) or rng.random() < p_skip:
            return a
        if d is not None and rng.random() < 0.6:
            layout = self.layout_on(a.shape, d)
        else:
            layout = self.random_layout(a.shape, p_use=0.7)
        if ((a.ann is None or any(a is x for x in self.args))
                and rng.random() < 0.75):
            a.ann = layout
            return a
        if a.shard_ann is None:
            a.shard_ann = layout
        v = Value(self.fresh(), a.shape, a.shard_ann, a.lo, a.hi, ids=a.ids)
        a.uses += 1
        self.lines.append((v, ("weft.shard", None, [a], "")))
        if any(a is x for x in self.index_ids):
            self.index_ids.append(v)
        elif any(a is x for x in self.ids_private):
            self.ids_private.append(v)
        elif a.ids:
            self.ids_values.append(v)
        else:
            self.values.append(v)
        self.num_ops += 1
        return v

    def index_operand(self, pred, p_ids=0.2):
        """An operand for a slice or concat: an ids value (p_ids; see
        DERIVED_VOCAB), else a float value as for a reshape
        (reshape_operand: None for a fresh argument, SKIP to leave the
        slot to another op)."""
        if self.rng.random() < p_ids:
            cands = [v for v in self.ids_private + self.index_ids
                     if pred(v)]
            if cands:
                return self.rng.choice(cands)
        return self.reshape_operand(pred)

    def new_index_arg(self, shape, ids):
        """A fresh argument for a slice or concat; ids ones are private
        (DERIVED_VOCAB)."""
        v = self.new_arg(shape, ids=ids)
        if ids:
            self.ids_values.remove(v)
            self.ids_private.append(v)
        return v

    def index_shape(self, min_rank, d_extent):
        """A fresh operand's shape: rank min_rank..4, a random dim (returned)
        of extent d_extent."""
        rng = self.rng
        rank = rng.choice([r for r in [1, 2, 2, 3, 3, 4] if r >= min_rank])
        shape = self.random_shape(rank)
        d = rng.randrange(rank)
        shape[d] = d_extent
        return shape, d

    def emit_slice(self, a, d, start, n):
        a = self.index_input(a, d)
        shape = list(a.shape)
        shape[d] = n
        v = self.emit_any(shape, a.lo, a.hi, ids=a.ids)
        return self.finish(v, "weft.slice", f" dim {d} start {start}", [a])

    def gen_slice(self, a=None):
        # A contiguous range [start, start + n) of a dim D (in uneven cases
        # n a multiple of M, the input's extent any).
        rng = self.rng
        M = self.index_m()

        def pred(v):
            return any(n >= max(M, 2) for n in v.shape)
        if a is not None and not pred(a):
            return None
        if a is None:
            a = self.index_operand(pred)
            if a is SKIP:
                return None
        if a is None:
            shape, _ = self.index_shape(
                1, M * rng.choice([1, 2, 3]) + rng.choice([0, 0, 1, 3])
                if M > 1 else rng.choice([2, 3, 4, 6, 8, 12, 24]))
            if math.prod(shape) > MAX_ELEMS:
                return None
            a = self.new_index_arg(shape, rng.random() < 0.15)
        d = rng.choice([d for d, n in enumerate(a.shape) if n >= max(M, 2)])
        e = a.shape[d]
        if M > 1:
            n = M * rng.randint(1, e // M)
        elif rng.random() < 0.9:
            n = rng.randint(1, e - 1)
        else:
            n = e
        return self.emit_slice(a, d, rng.randint(0, e - n), n)

    def concat_work(self, shape, d, ext):
        """What weft-interp counts as a concat's work (and refuses above
        --max-work, 2^33): the product of its sharding rule's letters,
        one per operand along `d`, times the ranks (at most 8)."""
        return (8 * math.prod(shape) * math.prod(ext))

    def concat_partner(self, a, d, M):
        """Another operand for a concat of `a` along `d`: `a` itself, an
        existing value that agrees off `d`, or (None) a fresh argument."""
        rng = self.rng
        r = rng.random()
        if r < 0.2 and self.may_repeat(a, a):
            return a
        if r < 0.6:
            pool = (self.ids_private + self.index_ids) if a.ids else \
                self.values
            cands = [v for v in pool
                     if len(v.shape) == len(a.shape) and
                     all(v.shape[i] == a.shape[i]
                         for i in range(len(a.shape)) if i != d) and
                     v.shape[d] % M == 0 and self.may_repeat(a, v)]
            if cands:
                return rng.choice(cands)
        return None

    def gen_concat(self, a=None):
        # 2 (sometimes 3) operands joined along D, agreeing elsewhere; the
        # same value twice sometimes (in uneven cases every extent along D
        # a multiple of M).
        rng = self.rng
        M = self.index_m()

        def pred(v):
            return any(n % M == 0 for n in v.shape)
        if a is not None and not pred(a):
            return None
        if a is None:
            a = self.index_operand(pred)
            if a is SKIP:
                return None
        if a is None:
            shape, _ = self.index_shape(
                1, M * rng.choice([1, 1, 2]) if M > 1
                else rng.choice(self.dim_sizes))
            if math.prod(shape) > MAX_ELEMS:
                return None
            a = self.new_index_arg(shape, rng.random() < 0.15)
        d = rng.choice([d for d, n in enumerate(a.shape) if n % M == 0])
        k = 3 if rng.random() < 0.25 else 2
        others = [self.concat_partner(a, d, M) for _ in range(k - 1)]
        # The fresh ones' extents along d.
        fresh = [M * rng.choice([1, 1, 2, 3]) if M > 1
                 else rng.choice(self.dim_sizes) for _ in others]
        ext = [a.shape[d]] + [o.shape[d] if o is not None else f
                              for o, f in zip(others, fresh)]
        shape = list(a.shape)
        shape[d] = sum(ext)
        if (math.prod(shape) > MAX_ELEMS or
                self.concat_work(shape, d, ext) > MAX_CONCAT_WORK):
            return None
        operands = [a]
        for o, f in zip(others, fresh):
            if o is None:
                s = list(a.shape)
                s[d] = f
                o = self.new_index_arg(s, a.ids)
            operands.append(o)
        rng.shuffle(operands)
        operands = [self.index_input(o, d) for o in operands]
        lo = min(o.lo for o in operands)
        hi = max(o.hi for o in operands)
        v = self.emit_any(shape, lo, hi, ids=a.ids)
        return self.finish(v, "weft.concat", f" dim {d}", operands)

    def gen_rotate(self):
        # A dim cut in two and rejoined the other way round, the moved half
        # sometimes negated (Llama's rotate-half when cut in the middle).
        rng = self.rng
        M = self.index_m()

        def pred(v):
            return any(n % M == 0 and n >= 2 * M for n in v.shape)
        a = self.reshape_operand(pred)
        if a is SKIP:
            return None
        if a is None:
            shape, _ = self.index_shape(
                1, M * rng.choice([2, 2, 4]) if M > 1
                else rng.choice([2, 4, 6, 8, 8, 12, 24]))
            if math.prod(shape) > MAX_ELEMS:
                return None
            a = self.new_arg(shape)
        d = rng.choice([d for d, n in enumerate(a.shape)
                        if n % M == 0 and n >= 2 * M])
        e = a.shape[d]
        if e % (2 * M) == 0 and rng.random() < 0.6:
            h = e // 2
        else:
            h = M * rng.randint(1, e // M - 1)
        if self.concat_work(a.shape, d, [h, e - h]) > MAX_CONCAT_WORK:
            return None
        lo = self.emit_slice(a, d, 0, h)
        hi = self.emit_slice(a, d, h, e - h)
        if rng.random() < 0.6:
            la = self.letters_for(len(hi.shape))
            neg = self.emit(None, hi.shape, -hi.hi, -hi.lo)
            hi = self.finish(neg, "weft.map neg", f"{la}->{la}", [hi])
        operands = [self.index_input(o, d) for o in (hi, lo)]
        v = self.emit(None, list(a.shape), min(o.lo for o in operands),
                      max(o.hi for o in operands))
        return self.finish(v, "weft.concat", f" dim {d}", operands)

    def gather_ids(self, min_rank):
        """Ids for a gather, and whether they are derived (a slice or
        concat of ids: lookups of at least 16 rows only)."""
        rng = self.rng
        r = rng.random()
        derived = [v for v in self.index_ids if len(v.shape) >= min_rank]
        if r < 0.25 and derived:
            return rng.choice(derived), True
        known = [v for v in self.ids_values if len(v.shape) >= min_rank]
        if r < 0.6 and known:
            return rng.choice(known), False
        rank = rng.choice([x for x in [1, 1, 2, 2, 3] if x >= min_rank])
        return self.new_arg(self.random_shape(rank), ids=True), False

    def vocab_size(self, derived):
        if derived:
            return self.rng.choice(self.DERIVED_VOCAB)
        return self.rng.choice(self.dim_sizes)

    def fit_table(self, t, li, size, derived, max_batch):
        """Letters for an existing value `t` as a table looked up by ids
        with letters li: one dim looked up (>= 16 rows for derived ids),
        some dims batch letters (ids letters of equal size), the others
        kept (at most 2). None if it does not fit."""
        rng = self.rng
        dims = [p for p, n in enumerate(t.shape)
                if not derived or n >= 16]
        if not dims:
            return None
        p = rng.choice(dims)
        tl = ""
        nb = nk = 0
        for q, n in enumerate(t.shape):
            if q == p:
                c = self.letters_for(1, li + tl)
                size[c] = n
            else:
                share = [c for c in li if size[c] == n and c not in tl]
                if share and nb < max_batch and rng.random() < 0.8:
                    c = rng.choice(share)
                    nb += 1
                else:
                    c = self.letters_for(1, li + tl)
                    size[c] = n
                    nk += 1
            tl += c
        if nk > 2:
            return None
        return tl, tl[p]

    def gen_gather(self):
        # weft.embed with batch letters (table letters shared with the ids:
        # each position looks up its own row), the looked-up letter
        # anywhere in a table of rank 1 to 4, 0 to 2 kept letters.
        rng = self.rng
        nb = rng.choice([0, 1, 1, 1, 2, 2])
        ids, derived = self.gather_ids(nb)
        li = self.letters_for(len(ids.shape))
        size = dict(zip(li, ids.shape))
        table = fit = None
        if rng.random() < 0.45:
            table = self.pick_value(lambda v: 1 <= len(v.shape) <= 4)
            if table is not None:
                fit = self.fit_table(table, li, size, derived, nb)
        if fit is not None:
            tl, vl = fit
        else:
            nk = min(rng.choice([0, 1, 1, 2]), 3 - nb)
            batch = rng.sample(li, nb)
            new = self.letters_for(1 + nk, li)
            vl = new[0]
            size[vl] = self.vocab_size(derived)
            for c in new[1:]:
                size[c] = rng.choice(self.dim_sizes)
            tl = "".join(rng.sample(batch + list(new), len(batch) + len(new)))
            table = None
        kept = [c for c in tl if c != vl and c not in li]
        res = li + "".join(kept)
        if rng.random() < 0.4:
            res = "".join(rng.sample(res, len(res)))
        shape = [size[c] for c in res]
        if (math.prod(shape) > MAX_ELEMS or
                math.prod(size[c] for c in tl) > MAX_ELEMS):
            return None
        if table is None:
            table = self.new_arg([size[c] for c in tl])
        # Often split on the looked-up letter (a masked lookup and a
        # partial sum), on a batch letter, or anywhere.
        table = self.index_input(table, tl.index(vl), p_skip=0.35)
        ids = self.index_input(ids, None)
        v = self.emit(None, shape, min(table.lo, 0.0), max(table.hi, 0.0))
        return self.finish(v, "weft.embed", f"{li},{tl}->{res}",
                           [ids, table])

    def gen_scatter_batch(self):
        # weft.scatter_add with batch letters (result letters shared with
        # the ids: each position adds into its own row), the looked-up
        # letter anywhere in a result of rank 1 to 4.
        rng = self.rng
        nb = rng.choice([0, 1, 1, 1, 2, 2])
        ids, derived = self.gather_ids(nb)
        li = self.letters_for(len(ids.shape))
        size = dict(zip(li, ids.shape))
        upd = None
        ul = None
        if rng.random() < 0.5:
            u = self.pick_value(
                lambda v: len(li) <= len(v.shape) <= len(li) + 2)
            if u is not None:
                # Each ids letter on a distinct dim of equal size.
                free = list(range(len(u.shape)))
                rng.shuffle(free)
                ul = [None] * len(u.shape)
                for c in li:
                    q = next((q for q in free if u.shape[q] == size[c]),
                             None)
                    if q is None:
                        ul = None
                        break
                    free.remove(q)
                    ul[q] = c
                if ul is not None:
                    for q in free:
                        c = self.letters_for(1, "".join(size))
                        size[c] = u.shape[q]
                        ul[q] = c
                    ul = "".join(ul)
                    upd = u
        if upd is None:
            nk = rng.choice([0, 1, 1, 2])
            kept = self.letters_for(nk, li)
            for c in kept:
                size[c] = rng.choice(self.dim_sizes)
            ul = li + kept
            if rng.random() < 0.4:
                ul = "".join(rng.sample(ul, len(ul)))
        kept = [c for c in ul if c not in li]
        nb = min(nb, len(li), 3 - len(kept))
        if nb < 0:
            return None
        batch = rng.sample(li, nb)
        vl = self.letters_for(1, "".join(size))
        size[vl] = self.vocab_size(derived)
        res = batch + [vl] + kept
        res = "".join(rng.sample(res, len(res)))
        shape = [size[c] for c in res]
        if (math.prod(shape) > MAX_ELEMS or
                math.prod(size[c] for c in ul) > MAX_ELEMS):
            return None
        if upd is None:
            upd = self.new_arg([size[c] for c in ul])
        n = max(1, math.prod(size[c] for c in li if c not in batch))
        lo, hi = min(upd.lo, 0.0) * n, max(upd.hi, 0.0) * n
        if max(-lo, hi) > BIG:
            return None
        upd = self.index_input(upd, rng.randrange(len(ul)) if ul else None)
        ids = self.index_input(ids, None)
        v = self.emit(None, shape, lo, hi)
        # Often requested split on the looked-up letter (each rank adds
        # the ids in its rows).
        if rng.random() < 0.35:
            v.ann = self.layout_on(shape, res.index(vl))
        return self.finish(v, "weft.scatter_add", f"{li},{ul}->{res}",
                           [ids, upd])

    def gen_random_offset(self):
        # weft.random with an offset (a step): a rank-0 integer-valued
        # constant, or the sum of a split vector of ones (a partial sum
        # read whole).
        rng = self.rng
        if self.elt not in ("f32", "f64"):
            return None
        if rng.random() < 0.6:
            c = float(rng.choice([0, 1, 2, 3, 7, 1000]))
            s = self.emit(None, [], c, c, result_p=0.0)
            self.finish(s, "weft.constant", f" {c!r}", [])
        else:
            n = rng.choice(self.dim_sizes)
            ones = self.emit(None, [n], 1.0, 1.0, result_p=0.0)
            ones.ann = self.random_layout([n], p_use=0.9)
            self.finish(ones, "weft.constant", " 1.0", [])
            la = self.letters_for(1)
            s = self.emit(None, [], float(n), float(n), result_p=0.0)
            self.finish(s, "weft.reduce sum", f"{la}->", [ones])
        shape = self.random_shape(rng.choice([1, 2, 2, 3, 3, 4]))
        kind = rng.choice(["uniform", "normal"])
        lo, hi = (0.0, 1.0) if kind == "uniform" else (-9.0, 9.0)
        v = self.emit(None, shape, lo, hi)
        return self.finish(v, "weft.random",
                           f" {kind} seed {rng.randint(0, 2**32 - 1)}", [s])

    def gen_index(self):
        rng = self.rng
        r = rng.random()
        if r < 0.22:
            v = self.gen_slice()
        elif r < 0.4:
            v = self.gen_concat()
        elif r < 0.48:
            v = self.gen_rotate()
        elif r < 0.56:
            # A contraction or a reduction, then a slice or concat of its
            # result (which may arrive partial).
            u = rng.choice([self.gen_einsum2, self.gen_einsum1,
                            self.gen_reduce])()
            v = None
            if u is not None:
                v = rng.choice([self.gen_slice, self.gen_concat])(u)
        elif r < 0.76:
            v = self.gen_gather()
        elif r < 0.92:
            v = self.gen_scatter_batch()
        else:
            v = self.gen_random_offset()
        # Mostly the next op's first operand.
        if v is not None and not v.ids and rng.random() < 0.7:
            self.prefer = v
        return v

    def gen_iota(self):
        if self.elt not in ("f32", "f64"):
            return None
        n = self.rng.choice(self.dim_sizes)
        v = self.emit(None, [n], 0.0, float(n - 1))
        return self.finish(v, "weft.iota", "", [])

    def gen_constant(self):
        # A splat of a random shape (uneven cases: a nonzero one needs its
        # pads cleared), often split by its result annotation.
        rng = self.rng
        shape = self.random_shape(rng.choice([0, 1, 2, 2, 3]))
        c = rng.choice(CONSTANTS)
        v = self.emit(None, shape, c, c, result_p=0.5)
        return self.finish(v, "weft.constant", f" {c!r}", [])

    def ids_operand(self, p_reuse=0.5):
        """An existing ids value (with probability p_reuse) or a fresh
        ids argument."""
        rng = self.rng
        if self.ids_values and rng.random() < p_reuse:
            return rng.choice(self.ids_values)
        return self.new_arg(self.random_shape(rng.choice([0, 1, 1, 2])),
                            ids=True)

    def gen_one_hot(self):
        # The ids' letters plus a vocabulary letter, in a random order.
        rng = self.rng
        ids = self.ids_operand()
        li = self.letters_for(len(ids.shape))
        vl = self.letters_for(1, li)
        allc = li + vl
        res = "".join(rng.sample(allc, len(allc)))
        size = dict(zip(li, ids.shape))
        size[vl] = rng.choice(self.dim_sizes)
        shape = [size[c] for c in res]
        if math.prod(shape) > MAX_ELEMS:
            return None
        v = self.emit(None, shape, 0.0, 1.0)
        return self.finish(v, "weft.one_hot", f"{li}->{res}", [ids])

    def gen_scatter_add(self):
        # Updates with the ids' letters plus a feature letter, added into
        # the rows of a [vocab, feature] result.
        rng = self.rng
        ids = self.ids_operand()
        li = self.letters_for(len(ids.shape))
        vd = self.letters_for(2, li)
        size = dict(zip(li, ids.shape))
        upd = None
        if rng.random() < 0.5:
            cands = [c for c in self.values if len(c.shape) == len(li) + 1
                     and all(c.shape[i] == ids.shape[i]
                             for i in range(len(li)))]
            if cands:
                upd = rng.choice(cands)
        if upd is None:
            upd = self.new_arg(list(ids.shape) + [rng.choice(self.dim_sizes)])
        ul = li + vd[1]
        size[vd[1]] = upd.shape[-1]
        size[vd[0]] = rng.choice(self.dim_sizes)
        res = vd  # the vocabulary letter first
        shape = [size[c] for c in res]
        if math.prod(shape) > MAX_ELEMS:
            return None
        n = max(1, math.prod(ids.shape))
        v = self.emit(None, shape, min(upd.lo, 0.0) * n, max(upd.hi, 0.0) * n)
        return self.finish(v, "weft.scatter_add", f"{li},{ul}->{res}",
                           [ids, upd])

    def gen_shard(self):
        # A constraint on a float or ids value: a random non-partial layout
        # (possibly fully replicated).
        rng = self.rng
        pool = self.values + self.ids_values
        if not pool:
            return None
        a = rng.choice(pool)
        # Two weft.shard on one value must agree (docs/design.md): a second
        # constraint repeats the first.
        if a.shard_ann is None:
            # (a top_k result's k letter is never split: kept whole)
            a.shard_ann = ([[] for _ in a.shape]
                           if getattr(a, "keep_unannotated", False)
                           else self.random_layout(a.shape, p_use=0.7))
        ann = a.shard_ann
        name = self.fresh()
        v = Value(name, a.shape, ann, a.lo, a.hi, ids=a.ids, vocab=a.vocab)
        a.uses += 1
        self.lines.append((v, ("weft.shard", None, [a], "")))
        (self.ids_values if a.ids else self.values).append(v)
        self.num_ops += 1
        return v

    def generate(self):
        rng = self.rng
        target = rng.randint(1, self.max_ops)
        gens = [(self.gen_einsum2, 5), (self.gen_einsum1, 1),
                (self.gen_map_unary, 3), (self.gen_map_binary, 4),
                (self.gen_reduce, 2), (self.gen_embed, 1),
                (self.gen_shard, 1.5), (self.gen_random, 0.7),
                (self.gen_iota, 0.3), (self.gen_one_hot, 0.5),
                (self.gen_scatter_add, 0.5)]
        if self.uneven:
            gens.append((self.gen_constant, 0.5))
        if getattr(self, "scan_ops", False):
            gens += [(self.gen_cumsum, 1.5), (self.gen_top_k, 1.5)]
        # --reshape-ops: each op slot is a weft.reshape with probability
        # p_reshape, drawn from a stream of its own (make_case), so a case
        # that draws no reshape is the one written without the flag.
        p_reshape = getattr(self, "p_reshape", 0.0)
        # --index-ops: likewise a slice, concat, gather, scatter-add with
        # batch letters or random with an offset (gen_index).
        p_index = getattr(self, "p_index", 0.0)
        tries = 0
        while self.num_ops < target and tries < 200:
            tries += 1
            if p_reshape and self.reshape_rng.random() < p_reshape:
                self.gen_reshape()
                continue
            if p_index and self.index_rng.random() < p_index:
                self.gen_index()
                continue
            g = rng.choices([g for g, _ in gens], [w for _, w in gens])[0]
            g()
        while self.num_ops == 0:
            self.gen_map_unary()
        # Returns: the last result, and sometimes one more value nothing uses
        # (or any value at all).
        results = [v for v, _ in self.lines if not v.ids]
        rets = [results[-1]] if results else []
        if not rets:
            self.gen_map_unary()
            rets = [self.lines[-1][0]]
        if rng.random() < 0.4:
            sinks = [v for v in self.values if v.uses == 0 and v not in rets]
            pool = sinks or [v for v in self.values if v not in rets]
            if pool:
                rets.append(rng.choice(pool))
        # A returned op result is often requested in a layout (written on the
        # producing op's result type; a weft.shard result keeps its own).
        produced = {v.name: op for v, (op, *_) in self.lines}
        for r in rets:
            if (r.name in produced and produced[r.name] != "weft.shard"
                    and r.ann is None and rng.random() < 0.4
                    and not getattr(r, "keep_unannotated", False)):
                r.ann = self.random_layout(r.shape)
        self.rets = rets
        # A function with no annotation at all names no mesh, and with
        # several meshes in the module propagation cannot pick one
        # (docs/propagation.md): annotate the first argument then.
        annotated = [v for v in self.args if v.ann is not None] + \
            [v for v, _ in self.lines if v.ann is not None]
        if not annotated:
            if not self.args:  # only random and iota ops: an unused input
                self.new_arg(self.random_shape(1))
            self.args[0].ann = self.random_layout(self.args[0].shape)

    def text(self):
        out = []
        mesh = ", ".join(f'"{n}" = {s}' for n, s in self.axes)
        out.append(f"weft.mesh @{self.mesh_name} [{mesh}]")
        args = ",\n    ".join(f"{a.name}: {self.vty(a)}" for a in self.args)
        rets = ", ".join(self.vty(r) for r in self.rets)
        out.append(f"func.func @case{self.seed}_{self.index}({args})\n"
                   f"    -> ({rets}) {{")
        for v, (op, spec, operands, attrs) in self.lines:
            out.append(self.op_line(v, op, spec, operands, attrs))
        names = ", ".join(r.name for r in self.rets)
        out.append(f"  return {names} : {rets}")
        out.append("}")
        return "\n".join(out) + "\n"


def make_case(seed, index, max_ops, avoid=(), p_uneven=P_UNEVEN, p_scan=0.0,
              p_reshape=0.0, p_index=0.0):
    c = Case(seed, index, max_ops, avoid, p_uneven)
    # weft.cumsum and weft.top_k join the draw in a fraction of the cases,
    # decided by their own stream: the other cases are byte-identical to
    # the generator without them.
    c.scan_ops = random.Random(f"scan {seed} {index}").random() < p_scan
    # weft.reshape: per op slot, from a stream of its own (none at 0).
    c.p_reshape = p_reshape
    c.reshape_rng = random.Random(f"reshape {seed} {index}")
    # The index ops (--index-ops): likewise.
    c.p_index = p_index
    c.index_rng = random.Random(f"index {seed} {index}")
    c.generate()
    return c


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--max-ops", type=int, default=12)
    p.add_argument("--only", type=int, default=None)
    p.add_argument("--avoid", action="append", default=[],
                   choices=sorted(AVOIDABLE),
                   help="leave out a construct (a known, reported bug), so "
                        "that a long run can look for others")
    p.add_argument("--uneven", type=float, default=P_UNEVEN, metavar="P",
                   help="fraction of the cases with uneven dims (default "
                        f"{P_UNEVEN}; 0: the modules of the even-only "
                        "generator, 1: every case)")
    p.add_argument("--scan-ops", type=float, default=0.0, metavar="P",
                   help="fraction of the cases that also draw weft.cumsum "
                        "and weft.top_k (default 0: the modules of the "
                        "generator without them)")
    p.add_argument("--reshape-ops", type=float, default=0.0, metavar="P",
                   help="probability that an op slot is a weft.reshape "
                        "(split or merge of dims; even cases, and uneven "
                        "ones on dims no split pads); default 0: the "
                        "modules of the generator without it")
    p.add_argument("--index-ops", type=float, default=0.0, metavar="P",
                   help="probability that an op slot is a weft.slice, "
                        "weft.concat, a gather or scatter-add with batch "
                        "letters, or a weft.random with an offset; default "
                        "0: the modules of the generator without them")
    a = p.parse_args()
    indices = [a.only] if a.only is not None else range(a.count)
    ops = unevens = 0
    with open(a.out, "w") as f:
        avoid = "".join(f" --avoid {x}" for x in a.avoid)
        uneven = f" --uneven {a.uneven!r}" if a.uneven != P_UNEVEN else ""
        if a.scan_ops:
            uneven += f" --scan-ops {a.scan_ops!r}"
        if a.reshape_ops:
            uneven += f" --reshape-ops {a.reshape_ops!r}"
        if a.index_ops:
            uneven += f" --index-ops {a.index_ops!r}"
        f.write(f"// Generated by gen_random_programs.py --seed {a.seed} "
                f"--count {a.count} --max-ops {a.max_ops}{avoid}{uneven}\n")
        for i in indices:
            c = make_case(a.seed, i, a.max_ops, a.avoid, a.uneven,
                          a.scan_ops, a.reshape_ops, a.index_ops)
            ops += c.num_ops
            unevens += c.uneven
            f.write("\n" + c.text())
    print(f"{len(indices)} cases, {ops} ops, seed {a.seed}, "
          f"{unevens} uneven")


if __name__ == "__main__":
    main()
