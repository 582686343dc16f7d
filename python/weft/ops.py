"""The traced ops: each checks its operands at trace time (raising a
WeftError that names the user's line) and emits one weft op.

Letters: elementwise ops and reductions name dimensions a, b, c, ... in
result order; broadcasting follows numpy (dimensions aligned at the end,
size-1 dimensions from None indexing or keepdims read by letters).
"""

import builtins
import math
import numbers

from . import dtypes
from .errors import WeftError
from .mesh import make_sharding
from .tensor import Tensor
from .trace import current

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def fmt_float(v):
    """A float literal MLIR parses back to the same double."""
    v = float(v)
    if math.isnan(v):
        return "0x7FF8000000000000"
    if math.isinf(v):
        return "0x7FF0000000000000" if v > 0 else "0xFFF0000000000000"
    s = repr(v)
    if "e" in s and "." not in s.split("e")[0]:
        mant, exp = s.split("e")
        s = "%s.0e%s" % (mant, exp)
    return s


def _is_scalar(x):
    return isinstance(x, numbers.Real)


def _operand(x, fn, what):
    if not isinstance(x, Tensor):
        raise WeftError("%s: expected a Tensor, got %s" %
                        (what, type(x).__name__))
    fn.check_owner(x, what)
    return x


def _new(fn, shape, dtype, sharding=None):
    return Tensor(shape, dtype, sharding, fn.fresh(), fn)


def _float_operand(x, fn, what):
    _operand(x, fn, what)
    if not dtypes.is_float(x.dtype):
        raise WeftError("%s: needs a float tensor, got %s %s" %
                        (what, x.dtype, x.shape))
    return x


def _signature(ops, result):
    return "(%s) -> %s" % (", ".join(o.type() for o in ops), result.type())


# --------------------------------------------------------------------------
# Elementwise maps

def _broadcast_shapes(shapes, what):
    r = builtins.max(len(s) for s in shapes)
    out = []
    for i in range(r):
        size = 1
        for s in shapes:
            j = i - (r - len(s))
            if j < 0:
                continue
            if s[j] != 1:
                if size != 1 and size != s[j]:
                    raise WeftError(
                        "%s: shapes %s do not broadcast (dimension %d: %d "
                        "vs %d)" % (what, " and ".join(str(tuple(t))
                                                       for t in shapes),
                                    i - r, size, s[j]))
                size = s[j]
        out.append(size)
    return out


def map_op(kind, operands, scalar=None, what=None, shape=None):
    """Emits `weft.map kind` over `operands` with numpy broadcasting
    (to `shape` if given)."""
    what = what or kind
    fn = current(what)
    for o in operands:
        _float_operand(o, fn, what)
    if len({o.dtype for o in operands}) > 1:
        raise WeftError("%s: element types differ: %s" %
                        (what, ", ".join(o.dtype for o in operands)))
    shapes = [o.shape for o in operands]
    out_shape = _broadcast_shapes(shapes, what)
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if len(shape) < len(out_shape) or _broadcast_shapes(
                [out_shape, shape], what) != list(shape):
            raise WeftError("%s: shape %s does not broadcast to %s" %
                            (what, tuple(out_shape), shape))
        out_shape = list(shape)
    r = len(out_shape)
    # Which result dimensions some operand really has (not an inserted
    # size-1 view dimension, not absent by rank alignment).
    real = [False] * r
    per_operand = []
    for o in operands:
        base = o.base if o.base is not None else o
        dim_map = o.dim_map if o.base is not None else list(range(o.ndim))
        off = r - o.ndim
        pairs = []
        for j, d in enumerate(dim_map):
            if d is None:
                continue
            if o.shape[j] != out_shape[off + j]:
                raise WeftError(
                    "%s: dimension %d of an operand of shape %s has size 1 "
                    "and is broadcast to %d; weft broadcasts by letters: "
                    "drop the dimension (reduce without keepdims) and index "
                    "with None instead" % (what, j, o.shape,
                                           out_shape[off + j]))
            real[off + j] = True
            pairs.append((d, off + j))
        per_operand.append((base, pairs))
    kept = [i for i in range(r) if real[i] or out_shape[i] != 1]
    letter = {}
    for n, i in enumerate(kept):
        letter[i] = _LETTERS[n]
    specs = []
    for base, pairs in per_operand:
        chars = [None] * base.ndim
        for d, i in pairs:
            chars[d] = letter[i]
        specs.append("".join(chars))
    spec = "%s->%s" % (",".join(specs), "".join(letter[i] for i in kept))
    bases = [b for b, _ in per_operand]
    result = _new(fn, [out_shape[i] for i in kept], bases[0].dtype)
    attr = "" if scalar is None else " {scalar = %s : f64}" % fmt_float(
        scalar)

    def render():
        return "%s = weft.map %s \"%s\" (%s)%s : %s" % (
            result.name, kind, spec, ", ".join(b.name for b in bases), attr,
            _signature(bases, result))

    fn.emit([result], render)
    if len(kept) == r:
        return result
    dim_map = []
    n = 0
    for i in range(r):
        if i in letter:
            dim_map.append(n)
            n += 1
        else:
            dim_map.append(None)
    return Tensor.view(result, dim_map)


def _unary(kind):
    def op(x):
        return map_op(kind, [x])

    op.__name__ = kind
    op.__doc__ = "Elementwise %s (`weft.map %s`)." % (kind, kind)
    return op


neg = _unary("neg")
exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
square = _unary("square")
tanh = _unary("tanh")
relu = _unary("relu")
gelu = _unary("gelu")
silu = _unary("silu")
softplus = _unary("softplus")
abs = _unary("abs")
sign = _unary("sign")
step = _unary("step")
sigmoid = _unary("sigmoid")
sin = _unary("sin")
cos = _unary("cos")


def scale(x, c):
    """`x * c` (`weft.map scale`)."""
    return map_op("scale", [x], scalar=c)


def shift(x, c):
    """`x + c` (`weft.map shift`)."""
    return map_op("shift", [x], scalar=c)


def constant(value, shape=(), dtype="f32"):
    """A tensor filled with `value` (`weft.constant`)."""
    fn = current("constant")
    dtype = dtypes.normalize(dtype)
    if not dtypes.is_float(dtype):
        raise WeftError("constant: weft.constant is float only, got %s" %
                        dtype)
    result = _new(fn, shape, dtype)

    def render():
        return "%s = weft.constant %s : %s" % (result.name, fmt_float(value),
                                               result.type())

    fn.emit([result], render)
    return result


def _binary(kind, a, b):
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if not ta and not tb:
        raise WeftError("%s: at least one operand must be a Tensor" % kind)
    if ta and tb:
        return map_op(kind, [a, b])
    t, c = (a, b) if ta else (b, a)
    if not _is_scalar(c):
        raise WeftError("%s: cannot combine a Tensor with %s" %
                        (kind, type(c).__name__))
    c = float(c)
    if kind == "add":
        return shift(t, c)
    if kind == "mul":
        return scale(t, c)
    if kind == "sub":
        return shift(t, -c) if ta else shift(neg(t), c)
    if kind == "div" and ta:
        if c == 0:
            raise WeftError("div: division by the constant 0")
        return scale(t, 1.0 / c)
    k = constant(c, (), t.dtype)
    return map_op(kind, [a if ta else k, k if ta else b])


def add(a, b):
    return _binary("add", a, b)


def sub(a, b):
    return _binary("sub", a, b)


def mul(a, b):
    return _binary("mul", a, b)


def div(a, b):
    return _binary("div", a, b)


def maximum(a, b):
    return _binary("max", a, b)


def minimum(a, b):
    return _binary("min", a, b)


def greater(a, b):
    return _binary("gt", a, b)


def greater_equal(a, b):
    return _binary("ge", a, b)


def less(a, b):
    return _binary("lt", a, b)


def less_equal(a, b):
    return _binary("le", a, b)


def equal(a, b):
    return _binary("eq", a, b)


def not_equal(a, b):
    return _binary("ne", a, b)


def power(x, exponent):
    """`x ** 2` (square), `** 0.5` (sqrt), `** -0.5` (rsqrt), `** 1`."""
    if exponent == 2:
        return square(x)
    if exponent == 0.5:
        return sqrt(x)
    if exponent == -0.5:
        return rsqrt(x)
    if exponent == 1:
        return x
    if exponent == -1:
        return div(1.0, x)
    raise WeftError("power: weft has x**2, x**0.5, x**-0.5, x**1 and x**-1, "
                    "not x**%r" % (exponent,))


# --------------------------------------------------------------------------
# Reductions

def _axes(axis, rank, what):
    if axis is None:
        return list(range(rank))
    if isinstance(axis, int):
        axis = [axis]
    out = []
    for a in axis:
        if not isinstance(a, int) or not -rank <= a < rank:
            raise WeftError("%s: axis %r out of range for rank %d" %
                            (what, a, rank))
        a %= rank
        if a in out:
            raise WeftError("%s: axis %d given twice" % (what, a))
        out.append(a)
    return sorted(out)


def reduce_op(kind, x, axis=None, keepdims=False):
    """`weft.reduce kind` over `axis` (all by default)."""
    what = "%s" % kind
    fn = current(what)
    _float_operand(x, fn, what)
    axes = _axes(axis, x.ndim, what)
    base = x.base if x.base is not None else x
    dim_map = x.dim_map if x.base is not None else list(range(x.ndim))
    base_axes = [dim_map[a] for a in axes if dim_map[a] is not None]
    if base_axes:
        in_letters = _LETTERS[:base.ndim]
        out_letters = "".join(c for d, c in enumerate(in_letters)
                              if d not in base_axes)
        kept_dims = [d for d in range(base.ndim) if d not in base_axes]
        result = _new(fn, [base.shape[d] for d in kept_dims], base.dtype)
        spec = "%s->%s" % (in_letters, out_letters)

        def render():
            return "%s = weft.reduce %s \"%s\" (%s) : %s" % (
                result.name, kind, spec, base.name,
                _signature([base], result))

        fn.emit([result], render)
        renumber = {d: n for n, d in enumerate(kept_dims)}
    else:
        result = base
        renumber = {d: d for d in range(base.ndim)}
    new_map = []
    for i, d in enumerate(dim_map):
        if i in axes:
            if keepdims:
                new_map.append(None)
        else:
            new_map.append(None if d is None else renumber[d])
    return Tensor.view(result, new_map)


def sum(x, axis=None, keepdims=False):
    return reduce_op("sum", x, axis, keepdims)


def max(x, axis=None, keepdims=False):
    return reduce_op("max", x, axis, keepdims)


def min(x, axis=None, keepdims=False):
    return reduce_op("min", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """`sum` then `scale` by 1/n."""
    axes = _axes(axis, x.ndim, "mean") if isinstance(x, Tensor) else []
    n = 1
    for a in axes:
        n *= x.shape[a]
    return scale(sum(x, axis, keepdims), 1.0 / n)


# --------------------------------------------------------------------------
# Contractions, lookups, layout

def _parse_operands(spec, count, what):
    if not isinstance(spec, str):
        raise WeftError("%s: the spec must be a string like \"bd,df->bf\", "
                        "got %r" % (what, spec))
    spec = spec.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->", 1)
    else:
        lhs, out = spec, None
    ins = lhs.split(",")
    if len(ins) != count:
        raise WeftError("%s: spec %r names %d operands, %d given" %
                        (what, spec, len(ins), count))
    for s in ins + ([out] if out is not None else []):
        for c in s:
            if c not in _LETTERS and c not in _LETTERS.upper():
                raise WeftError("%s: %r in spec %r is not a letter" %
                                (what, c, spec))
    return ins, out


def _letter_sizes(ins, operands, what, spec):
    sizes = {}
    for k, (letters, t) in enumerate(zip(ins, operands)):
        if len(letters) != t.ndim:
            raise WeftError(
                "%s: operand %d has rank %d (shape %s) but spec %r gives it "
                "%d letters %r" % (what, k, t.ndim, t.shape, spec,
                                   len(letters), letters))
        if len(set(letters)) != len(letters):
            raise WeftError("%s: a letter repeats in operand %d's %r" %
                            (what, k, letters))
        for c, s in zip(letters, t.shape):
            if c in sizes and sizes[c][0] != s:
                raise WeftError(
                    "%s: letter %r is %d in operand %d but %d in operand %d "
                    "(spec %r, shapes %s)" % (
                        what, c, s, k, sizes[c][0], sizes[c][1], spec,
                        ", ".join(str(o.shape) for o in operands)))
            sizes.setdefault(c, (s, k))
    return {c: v[0] for c, v in sizes.items()}


def einsum(spec, *operands):
    """`weft.einsum "btd,df->btf" (x, w)`: one or two float operands."""
    what = "einsum"
    fn = current(what)
    if len(operands) not in (1, 2):
        raise WeftError("einsum: one or two operands, got %d" %
                        len(operands))
    operands = [_float_operand(o, fn, what).resolved(what)
                for o in operands]
    if len({o.dtype for o in operands}) > 1:
        raise WeftError("einsum: element types differ: %s" %
                        ", ".join(o.dtype for o in operands))
    ins, out = _parse_operands(spec, len(operands), what)
    sizes = _letter_sizes(ins, operands, what, spec)
    if out is None:
        counts = {}
        for s in ins:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c, n in counts.items() if n == 1))
    if len(set(out)) != len(out):
        raise WeftError("einsum: a letter repeats in the result %r" % out)
    for c in out:
        if c not in sizes:
            raise WeftError("einsum: result letter %r of %r is in no operand"
                            % (c, spec))
    full = "%s->%s" % (",".join(ins), out)
    result = _new(fn, [sizes[c] for c in out], operands[0].dtype)

    def render():
        return "%s = weft.einsum \"%s\" (%s) : %s" % (
            result.name, full, ", ".join(o.name for o in operands),
            _signature(operands, result))

    fn.emit([result], render)
    return result


def matmul(a, b):
    """`a @ b`: a (..., m, k) times b (k, n) or (..., k, n) of equal rank."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise WeftError("matmul: both operands must be Tensors")
    if a.ndim < 2 or b.ndim < 2 or (b.ndim != 2 and b.ndim != a.ndim):
        raise WeftError("matmul: shapes %s @ %s: weft's @ takes rank >= 2 "
                        "times a matrix or an equal-rank batch" %
                        (a.shape, b.shape))
    batch = _LETTERS[:a.ndim - 2]
    la = batch + "mk"
    lb = "kn" if b.ndim == 2 else batch + "kn"
    return einsum("%s,%s->%smn" % (la, lb, batch), a, b)


def embed(ids, table, spec=None):
    """Looks up rows of `table` by `ids` (`weft.embed`).

    Default spec: ids of any rank index the first dimension of a table
    [V, D] ("bt,vd->btd"); give `spec` for other forms ("bt,btv->bt").
    """
    what = "embed"
    fn = current(what)
    _operand(ids, fn, what)
    ids = ids.resolved(what)
    table = _float_operand(table, fn, what).resolved(what)
    if ids.dtype != "i32":
        raise WeftError("embed: ids must be i32, got %s" % ids.dtype)
    if spec is None:
        if table.ndim != 2:
            raise WeftError("embed: the default spec needs a [V, D] table, "
                            "got shape %s; pass spec=" % (table.shape,))
        vl, dl = "v", "z"
        if ids.ndim > 20:
            raise WeftError("embed: ids of rank %d" % ids.ndim)
        il = "abcdefghijklmnopqrstu"[:ids.ndim]
        spec = "%s,%s%s->%s%s" % (il, vl, dl, il, dl)
    ins, out = _parse_operands(spec, 2, what)
    if out is None:
        raise WeftError("embed: the spec needs '->' and the result letters")
    sizes = _letter_sizes(ins, [ids, table], what, spec)
    looked = [c for c in ins[1] if c not in ins[0] and c not in out]
    if len(looked) != 1:
        raise WeftError("embed: exactly one table letter must be in neither "
                        "the ids nor the result (the looked-up letter); "
                        "spec %r has %d" % (spec, len(looked)))
    for c in out:
        if c not in sizes:
            raise WeftError("embed: result letter %r is in no operand" % c)
    result = _new(fn, [sizes[c] for c in out], table.dtype)
    full = "%s,%s->%s" % (ins[0], ins[1], out)

    def render():
        return "%s = weft.embed \"%s\" (%s, %s) : %s" % (
            result.name, full, ids.name, table.name,
            _signature([ids, table], result))

    fn.emit([result], render)
    return result


def scatter_add(ids, updates, num_rows, spec=None):
    """Adds rows of `updates` into a zero table of `num_rows` rows by `ids`
    (`weft.scatter_add`, the transpose of `embed`): by default ids [...]
    and updates [..., D] give a table [num_rows, D] ("bt,btz->vz")."""
    what = "scatter_add"
    fn = current(what)
    _operand(ids, fn, what)
    ids = ids.resolved(what)
    updates = _float_operand(updates, fn, what).resolved(what)
    if ids.dtype != "i32":
        raise WeftError("scatter_add: ids must be i32, got %s" % ids.dtype)
    if not isinstance(num_rows, int) or num_rows < 1:
        raise WeftError("scatter_add: num_rows must be an int >= 1, got %r" %
                        (num_rows,))
    if spec is None:
        if updates.ndim != ids.ndim + 1 or \
                tuple(updates.shape[:ids.ndim]) != tuple(ids.shape):
            raise WeftError("scatter_add: the default spec needs updates of "
                            "shape ids.shape + [D]; got ids %s, updates %s; "
                            "pass spec=" % (ids.shape, updates.shape))
        il = "abcdefghijklmnopqrstu"[:ids.ndim]
        spec = "%s,%sz->vz" % (il, il)
    ins, out = _parse_operands(spec, 2, what)
    if out is None:
        raise WeftError("scatter_add: the spec needs '->' and the result "
                        "letters")
    sizes = _letter_sizes(ins, [ids, updates], what, spec)
    looked = [c for c in out if c not in ins[0] and c not in ins[1]]
    if len(looked) != 1:
        raise WeftError("scatter_add: exactly one result letter must be in "
                        "no operand (the row letter); spec %r has %d" %
                        (spec, len(looked)))
    sizes[looked[0]] = num_rows
    result = _new(fn, [sizes[c] for c in out], updates.dtype)
    full = "%s,%s->%s" % (ins[0], ins[1], out)

    def render():
        return "%s = weft.scatter_add \"%s\" (%s, %s) : %s" % (
            result.name, full, ids.name, updates.name,
            _signature([ids, updates], result))

    fn.emit([result], render)
    return result


def cumsum(x, axis=-1, exclusive=False, reverse=False):
    """The cumulative sum along `axis` (`weft.cumsum`); `exclusive` leaves
    each element out of its own sum, `reverse` sums from the end."""
    what = "cumsum"
    fn = current(what)
    x = _float_operand(x, fn, what).resolved(what)
    if not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise WeftError("cumsum: axis %r is out of range for a rank-%d "
                        "tensor" % (axis, x.ndim))
    dim = axis % x.ndim
    result = _new(fn, x.shape, x.dtype)

    def render():
        flags = (" exclusive" if exclusive else "") + (" reverse" if reverse
                                                       else "")
        return "%s = weft.cumsum %s dim %d%s : %s -> %s" % (
            result.name, x.name, dim, flags, x.type(), result.type())

    fn.emit([result], render)
    return result


def one_hot(ids, num_classes, dtype="f32"):
    """1 where the id equals the index along a new last dimension."""
    what = "one_hot"
    fn = current(what)
    _operand(ids, fn, what)
    ids = ids.resolved(what)
    if ids.dtype != "i32":
        raise WeftError("one_hot: ids must be i32, got %s" % ids.dtype)
    dtype = dtypes.normalize(dtype)
    if not dtypes.is_float(dtype):
        raise WeftError("one_hot: the result is float, got %s" % dtype)
    if not isinstance(num_classes, int) or num_classes < 1:
        raise WeftError("one_hot: num_classes must be an int >= 1")
    il = "abcdefghijklmnopqrstu"[:ids.ndim]
    spec = "%s->%sv" % (il, il)
    result = _new(fn, list(ids.shape) + [num_classes], dtype)

    def render():
        return "%s = weft.one_hot \"%s\" (%s) : %s" % (
            result.name, spec, ids.name, _signature([ids], result))

    fn.emit([result], render)
    return result


def shard(x, spec):
    """Constrains the layout of `x` (`weft.shard`): the result is laid out
    as `spec` says (a P(...), a tuple, or a Sharding)."""
    what = "shard"
    fn = current(what)
    _operand(x, fn, what)
    x = x.resolved(what)
    sharding = make_sharding(spec, x.shape, fn.module.mesh, what)
    result = _new(fn, x.shape, x.dtype, sharding)

    def render():
        return "%s = weft.shard %s : %s -> %s" % (
            result.name, x.name, x.type(), result.type())

    fn.emit([result], render)
    return result


def convert(x, dtype):
    """`x` with its elements converted to float type `dtype` (`weft.convert`:
    round to nearest even, once; widening is exact). The result keeps x's
    layout; the gradient is the cotangent converted back."""
    what = "convert"
    fn = current(what)
    _float_operand(x, fn, what)
    x = x.resolved(what)
    dtype = dtypes.normalize(dtype)
    if not dtypes.is_float(dtype):
        raise WeftError("convert: converts between float types (%s), not to "
                        "%s" % (", ".join(dtypes.FLOATS), dtype))
    if dtype == x.dtype:
        return x
    result = _new(fn, x.shape, dtype)

    def render():
        return "%s = weft.convert %s : %s -> %s" % (
            result.name, x.name, x.type(), result.type())

    fn.emit([result], render)
    return result


def stop_gradient(x):
    """`x`, with no gradient flowing back through it (`weft.stop_gradient`,
    as jax.lax.stop_gradient and torch's detach): e.g. the max a stable
    softmax subtracts."""
    what = "stop_gradient"
    fn = current(what)
    _float_operand(x, fn, what)
    x = x.resolved(what)
    result = _new(fn, x.shape, x.dtype)

    def render():
        return "%s = weft.stop_gradient %s : %s -> %s" % (
            result.name, x.name, x.type(), result.type())

    fn.emit([result], render)
    return result


def iota(n, dtype="f32"):
    """The positions 0 .. n-1 (`weft.iota`)."""
    fn = current("iota")
    dtype = dtypes.normalize(dtype)
    if not isinstance(n, int) or n < 1:
        raise WeftError("iota: n must be an int >= 1, got %r" % (n,))
    result = _new(fn, [n], dtype)

    def render():
        return "%s = weft.iota : %s" % (result.name, result.type())

    fn.emit([result], render)
    return result


def _groups(side, what, spec):
    out = []
    i = 0
    while i < len(side):
        c = side[i]
        if c == "(":
            j = side.find(")", i)
            if j < 0:
                raise WeftError("%s: unbalanced '(' in %r" % (what, spec))
            out.append(side[i + 1:j])
            i = j + 1
        elif c in _LETTERS or c in _LETTERS.upper():
            out.append(c)
            i += 1
        else:
            raise WeftError("%s: unexpected %r in %r" % (what, c, spec))
    return out


def reshape(x, spec, **sizes):
    """Splits and merges dimensions, einops style (`weft.reshape`):
    `reshape(x, "bt(hk)->bthk", h=4)`."""
    what = "reshape"
    fn = current(what)
    _operand(x, fn, what)
    x = x.resolved(what)
    if not isinstance(spec, str):
        raise WeftError("reshape: the spec must be a string like "
                        "\"b(hk)->bhk\", got %r" % (spec,))
    spec = spec.replace(" ", "")
    if "->" not in spec:
        raise WeftError("reshape: spec %r needs '->'" % spec)
    lhs, rhs = spec.split("->", 1)
    gl, gr = _groups(lhs, what, spec), _groups(rhs, what, spec)
    if "".join(gl) != "".join(gr):
        raise WeftError("reshape: both sides of %r must list the same "
                        "letters in the same order" % spec)
    if len(gl) != x.ndim:
        raise WeftError("reshape: %r has %d dimensions on the left, the "
                        "operand has rank %d (shape %s)" %
                        (spec, len(gl), x.ndim, x.shape))
    known = dict(sizes)
    for g, s in zip(gl, x.shape):
        unknown = [c for c in g if c not in known]
        prod = 1
        for c in g:
            if c in known:
                prod *= known[c]
        if len(unknown) > 1:
            raise WeftError("reshape: give the sizes of all but one of %r" %
                            g)
        if unknown:
            if s % prod:
                raise WeftError("reshape: %d is not divisible by %d in %r" %
                                (s, prod, g))
            known[unknown[0]] = s // prod
        elif prod != s:
            raise WeftError("reshape: the group %r is %d, the dimension %d"
                            % (g, prod, s))
    shape = []
    for g in gr:
        prod = 1
        for c in g:
            prod *= known[c]
        shape.append(prod)
    result = _new(fn, shape, x.dtype)

    def render():
        return "%s = weft.reshape \"%s\" (%s) : %s" % (
            result.name, spec, x.name, _signature([x], result))

    fn.emit([result], render)
    return result


def slice(x, dim, start, stop):
    """`x[..., start:stop, ...]` along `dim` (`weft.slice`)."""
    what = "slice"
    fn = current(what)
    _operand(x, fn, what)
    x = x.resolved(what)
    dim = _axes(dim, x.ndim, what)[0]
    n = x.shape[dim]
    if not (0 <= start < stop <= n):
        raise WeftError("slice: [%d:%d] is not a non-empty range of "
                        "dimension %d of size %d" % (start, stop, dim, n))
    shape = list(x.shape)
    shape[dim] = stop - start
    result = _new(fn, shape, x.dtype)

    def render():
        return "%s = weft.slice %s dim %d start %d : %s -> %s" % (
            result.name, x.name, dim, start, x.type(), result.type())

    fn.emit([result], render)
    return result


def concat(tensors, dim):
    """Joins tensors along `dim` (`weft.concat`)."""
    what = "concat"
    fn = current(what)
    tensors = [_operand(t, fn, what).resolved(what) for t in tensors]
    if not tensors or len(tensors) > 32:
        raise WeftError("concat: 1 to 32 operands, got %d" % len(tensors))
    rank = tensors[0].ndim
    dim = _axes(dim, rank, what)[0]
    for t in tensors:
        if t.ndim != rank or t.dtype != tensors[0].dtype or any(
                t.shape[i] != tensors[0].shape[i]
                for i in range(rank) if i != dim):
            raise WeftError("concat: shapes %s do not agree off dimension %d"
                            % (", ".join(str(u.shape) for u in tensors),
                               dim))
    shape = list(tensors[0].shape)
    shape[dim] = builtins.sum(t.shape[dim] for t in tensors)
    result = _new(fn, shape, tensors[0].dtype)

    def render():
        return "%s = weft.concat %s dim %d : %s" % (
            result.name, ", ".join(t.name for t in tensors), dim,
            _signature(tensors, result))

    fn.emit([result], render)
    return result


def getitem(x, index):
    """`x[:, None]` (a size-1 dimension, for broadcasting), `x[..., a:b]`
    (a `weft.slice`); integer indices are not supported."""
    if not isinstance(index, tuple):
        index = (index,)
    n_real = builtins.sum(1 for i in index if i is not None and
                          i is not Ellipsis)
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise WeftError("index: at most one '...'")
    if n_real > x.ndim:
        raise WeftError("index: %d indices for rank %d" % (n_real, x.ndim))
    expanded = []
    for i in index:
        if i is Ellipsis:
            expanded.extend([builtins.slice(None)] * (x.ndim - n_real))
        else:
            expanded.append(i)
    if Ellipsis not in index:
        expanded.extend([builtins.slice(None)] * (x.ndim - n_real))
    dim_map = []
    slices = []
    d = 0
    for i in expanded:
        if i is None:
            dim_map.append(None)
        elif isinstance(i, builtins.slice):
            if i.step not in (None, 1):
                raise WeftError("index: steps are not supported")
            start, stop, _ = i.indices(x.shape[d])
            if (start, stop) != (0, x.shape[d]):
                slices.append((d, start, stop))
            dim_map.append(d)
            d += 1
        else:
            raise WeftError("index: %r is not supported (None, ':', '...' "
                            "and ranges are)" % (i,))
    y = x
    for dim, start, stop in slices:
        y = slice(y, dim, start, stop)
    return Tensor.view(y, dim_map)


def broadcast_to(x, shape):
    """`x` repeated to `shape` (numpy's rule): `weft.map scale` by 1.0 with
    the new letters on the result only ("f->bf")."""
    return map_op("scale", [x], scalar=1.0, what="broadcast_to",
                  shape=shape)


def top_k(x, k, axis=-1, payload=None):
    """The `k` largest elements along `axis`, in descending order
    (`weft.top_k`); with `payload` (x's shape and type), the payload's
    elements at those positions. `top_k_indices` gives the positions."""
    what = "top_k"
    fn = current(what)
    x = _float_operand(x, fn, what).resolved(what)
    operands = [x]
    if payload is not None:
        payload = _float_operand(payload, fn, what).resolved(what)
        if payload.shape != x.shape or payload.dtype != x.dtype:
            raise WeftError("top_k: the payload (%s %s) must have the "
                            "input's shape and type (%s %s)" %
                            (payload.dtype, payload.shape, x.dtype, x.shape))
        operands.append(payload)
    dim = _axes(axis, x.ndim, what)[0]
    if not isinstance(k, int) or not 1 <= k <= x.shape[dim]:
        raise WeftError("top_k: k must be an int in [1, %d], got %r" %
                        (x.shape[dim], k))
    shape = list(x.shape)
    shape[dim] = k
    result = _new(fn, shape, x.dtype)

    def render():
        return "%s = weft.top_k %s dim %d k %d : %s" % (
            result.name, ", ".join(o.name for o in operands), dim, k,
            _signature(operands, result))

    fn.emit([result], render)
    return result


def top_k_indices(x, k, axis=-1):
    """The positions (as floats) of the `k` largest elements along `axis`:
    `top_k` with a payload of positions (an iota broadcast along it)."""
    x = x.resolved("top_k_indices")
    dim = _axes(axis, x.ndim, "top_k_indices")[0]
    pos = iota(x.shape[dim], x.dtype)
    pos = Tensor.view(pos, [0 if d == dim else None for d in range(x.ndim)])
    return top_k(x, k, dim, payload=broadcast_to(pos, x.shape))


def random(shape, kind="uniform", seed=0, dtype="f32", spec=None,
           offset=None):
    """Counter-based random numbers (`weft.random`): `uniform` in [0, 1)
    or `normal`; each element depends on `seed` and its global index only.
    `offset` (a rank-0 tensor, e.g. the training step) shifts the key;
    `spec` lays the result out."""
    what = "random"
    fn = current(what)
    if kind not in ("uniform", "normal"):
        raise WeftError("random: kind is 'uniform' or 'normal', got %r" %
                        (kind,))
    dtype = dtypes.normalize(dtype)
    if dtype not in ("f32", "f64"):
        raise WeftError("random: f32 or f64, got %s" % dtype)
    if not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise WeftError("random: seed must be an int in [0, 2^64)")
    shape = tuple(int(s) for s in shape)
    if not 1 <= len(shape) <= 4:
        raise WeftError("random: 1 to 4 dimensions, got shape %s" %
                        (shape,))
    if offset is not None:
        _operand(offset, fn, what)
        offset = offset.resolved(what)
        if offset.ndim != 0:
            raise WeftError("random: offset must be a rank-0 tensor, got "
                            "shape %s" % (offset.shape,))
    sharding = None if spec is None else make_sharding(
        spec, shape, fn.module.mesh, what)
    result = _new(fn, shape, dtype, sharding)

    def render():
        off = "" if offset is None else " offset(%s : %s)" % (
            offset.name, offset.type())
        return "%s = weft.random %s seed %d%s : %s" % (
            result.name, kind, seed, off, result.type())

    fn.emit([result], render)
    return result
