"""Symbolic tensors: a traced value's shape, element type and sharding.

A `Tensor` names one SSA value of the function being traced. Its type is
rendered only when the module is printed, so a function result's sharding
can still be written onto the op that produced it (as hand-written weft
does, docs/design.md "What a user annotates").

A tensor can also be a *view* of another with size-1 dimensions inserted
(`x[:, None]`, `sum(..., keepdims=True)`): elementwise ops read such a view
by letters, broadcasting over the inserted dimensions ("btd,bt->btd"), so
numpy's broadcasting idioms trace to a single `weft.map` and no reshape.
"""

from .errors import WeftError


class Tensor:
    __slots__ = ("shape", "dtype", "sharding", "name", "function",
                 "producer", "base", "dim_map", "__weakref__")

    def __init__(self, shape, dtype, sharding, name, function, producer=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.sharding = sharding
        self.name = name
        self.function = function
        self.producer = producer
        self.base = None
        self.dim_map = None

    @classmethod
    def view(cls, base, dim_map):
        """`base` with size-1 dimensions where `dim_map` holds None."""
        if base.base is not None:
            dim_map = [None if d is None else base.dim_map[d]
                       for d in dim_map]
            base = base.base
        shape = [1 if d is None else base.shape[d] for d in dim_map]
        if all(d == i for i, d in enumerate(dim_map)) and \
                len(dim_map) == len(base.shape):
            return base
        t = cls(shape, base.dtype, None, base.name, base.function)
        t.base = base
        t.dim_map = list(dim_map)
        return t

    @property
    def ndim(self):
        return len(self.shape)

    rank = ndim

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def type(self):
        """The MLIR tensor type, with the sharding encoding if any."""
        if self.base is not None:
            raise WeftError("internal: a view has no MLIR type")
        dims = "".join("%dx" % s for s in self.shape)
        if self.sharding is None:
            return "tensor<%s%s>" % (dims, self.dtype)
        return "tensor<%s%s, %s>" % (dims, self.dtype, self.sharding.mlir())

    def resolved(self, what):
        """The tensor itself; a view with inserted dimensions is refused by
        every op but the elementwise ones."""
        if self.base is not None:
            raise WeftError(
                "%s: this tensor (shape %s) has size-1 dimensions added by "
                "None indexing or keepdims=True; only elementwise ops read "
                "those (reduce with keepdims=False instead)" %
                (what, self.shape))
        return self

    def __repr__(self):
        spec = "" if self.sharding is None else ", %r" % (self.sharding,)
        return "Tensor(%s, %s%s)" % (self.shape, self.dtype, spec)

    def __bool__(self):
        raise WeftError("a traced Tensor has no truth value: Python control "
                        "flow cannot depend on it")

    def __len__(self):
        return self.shape[0]

    # Operators: see ops.py.
    def __add__(self, other):
        from . import ops
        return ops.add(self, other)

    def __radd__(self, other):
        from . import ops
        return ops.add(other, self)

    def __sub__(self, other):
        from . import ops
        return ops.sub(self, other)

    def __rsub__(self, other):
        from . import ops
        return ops.sub(other, self)

    def __mul__(self, other):
        from . import ops
        return ops.mul(self, other)

    def __rmul__(self, other):
        from . import ops
        return ops.mul(other, self)

    def __truediv__(self, other):
        from . import ops
        return ops.div(self, other)

    def __rtruediv__(self, other):
        from . import ops
        return ops.div(other, self)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    def __pow__(self, exponent):
        from . import ops
        return ops.power(self, exponent)

    def __gt__(self, other):
        from . import ops
        return ops.greater(self, other)

    def __ge__(self, other):
        from . import ops
        return ops.greater_equal(self, other)

    def __lt__(self, other):
        from . import ops
        return ops.less(self, other)

    def __le__(self, other):
        from . import ops
        return ops.less_equal(self, other)

    def __eq__(self, other):
        from . import ops
        return ops.equal(self, other)

    def __ne__(self, other):
        from . import ops
        return ops.not_equal(self, other)

    __hash__ = object.__hash__

    def __matmul__(self, other):
        from . import ops
        return ops.matmul(self, other)

    def __getitem__(self, index):
        from . import ops
        return ops.getitem(self, index)

    def astype(self, dtype):
        """`weft.convert` to float type `dtype` (numpy's spelling)."""
        from . import ops
        return ops.convert(self, dtype)

    def sum(self, axis=None, keepdims=False):
        from . import ops
        return ops.sum(self, axis, keepdims)

    def mean(self, axis=None, keepdims=False):
        from . import ops
        return ops.mean(self, axis, keepdims)

    def max(self, axis=None, keepdims=False):
        from . import ops
        return ops.max(self, axis, keepdims)

    def min(self, axis=None, keepdims=False):
        from . import ops
        return ops.min(self, axis, keepdims)

    def reshape(self, spec, **sizes):
        from . import ops
        return ops.reshape(self, spec, **sizes)
