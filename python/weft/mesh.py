"""Meshes and partition specs, in the vocabulary of JAX and PyTorch.

A `Mesh` is weft's `weft.mesh` symbol: ordered named axes with sizes, ranks
laid out row-major (the last axis varies fastest). A `PartitionSpec` names,
per tensor dimension, the mesh axes that split it: `None` (whole), one axis
name, or a tuple of names (major to minor, as `{"data", "model"}` in weft's
`#weft.sharding`). A spec shorter than the rank leaves the trailing
dimensions whole, as in JAX.
"""

from .errors import WeftError


class Mesh:
    """`Mesh({"data": 2, "model": 2})` or `Mesh((2, 2), ("data", "model"))`."""

    def __init__(self, shape, axis_names=None, name="mesh"):
        if isinstance(shape, dict):
            if axis_names is not None:
                raise WeftError("Mesh: give either a dict of axis sizes or "
                                "shape and axis_names, not both")
            items = list(shape.items())
        else:
            if axis_names is None:
                raise WeftError("Mesh: axis_names are needed with a shape")
            shape = tuple(shape)
            axis_names = tuple(axis_names)
            if len(shape) != len(axis_names):
                raise WeftError(
                    "Mesh: %d sizes for %d axis names" %
                    (len(shape), len(axis_names)))
            items = list(zip(axis_names, shape))
        if not items:
            raise WeftError("Mesh: at least one axis is needed")
        seen = set()
        for axis, size in items:
            if not isinstance(axis, str) or not axis:
                raise WeftError("Mesh: axis names are non-empty strings, "
                                "got %r" % (axis,))
            if axis in seen:
                raise WeftError("Mesh: axis %r named twice" % axis)
            seen.add(axis)
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                raise WeftError("Mesh: the size of axis %r must be an "
                                "integer >= 1, got %r" % (axis, size))
        if not name.replace("_", "a").isalnum():
            raise WeftError("Mesh: name %r is not a symbol name" % name)
        self.name = name
        self.axis_names = tuple(a for a, _ in items)
        self.shape = dict(items)
        self.devices = 1
        for _, size in items:
            self.devices *= size

    @property
    def size(self):
        return self.devices

    def mlir(self):
        axes = ", ".join('"%s" = %d' % (a, self.shape[a])
                         for a in self.axis_names)
        return "weft.mesh @%s [%s]" % (self.name, axes)

    def coords(self, rank):
        """The mesh coordinates of a rank (row-major, last axis fastest)."""
        coords = {}
        for axis in reversed(self.axis_names):
            coords[axis] = rank % self.shape[axis]
            rank //= self.shape[axis]
        return coords

    def __eq__(self, other):
        return (isinstance(other, Mesh) and self.name == other.name and
                self.axis_names == other.axis_names and
                self.shape == other.shape)

    def __hash__(self):
        return hash((self.name, self.axis_names,
                     tuple(self.shape[a] for a in self.axis_names)))

    def __repr__(self):
        return "Mesh(%s)" % ", ".join(
            "%s=%d" % (a, self.shape[a]) for a in self.axis_names)


class PartitionSpec(tuple):
    """`P("data", None, ("x", "y"))`: per dimension, the axes splitting it."""

    def __new__(cls, *entries):
        return super().__new__(cls, entries)

    def __repr__(self):
        return "P(%s)" % ", ".join(repr(e) for e in self)


P = PartitionSpec


class Sharding:
    """A checked layout: per dimension a tuple of axis names, on a mesh."""

    __slots__ = ("mesh", "dims")

    def __init__(self, mesh, dims):
        self.mesh = mesh
        self.dims = tuple(tuple(d) for d in dims)

    def mlir(self):
        dims = ", ".join(
            "{%s}" % ", ".join('"%s"' % a for a in d) for d in self.dims)
        return "#weft.sharding<@%s, [%s]>" % (self.mesh.name, dims)

    def blocks(self, dim):
        """How many blocks dimension `dim` is split into."""
        n = 1
        for axis in self.dims[dim]:
            n *= self.mesh.shape[axis]
        return n

    def block_index(self, dim, coords):
        """The block of dimension `dim` that a rank at `coords` holds."""
        index = 0
        for axis in self.dims[dim]:
            index = index * self.mesh.shape[axis] + coords[axis]
        return index

    def __eq__(self, other):
        return (isinstance(other, Sharding) and self.mesh == other.mesh and
                self.dims == other.dims)

    def __hash__(self):
        return hash((self.mesh, self.dims))

    def __repr__(self):
        return "P(%s)" % ", ".join(
            "None" if not d else repr(d[0]) if len(d) == 1 else repr(d)
            for d in self.dims)


def make_sharding(spec, shape, mesh, what="tensor"):
    """Checks `spec` against `shape` and `mesh` and returns a Sharding.

    `spec` is a PartitionSpec, a tuple or list of entries, or a Sharding.
    The checks are weft's verifier's: known axes, no axis twice in one
    tensor, no more entries than dimensions. A dimension its axes do not
    divide is allowed (weft pads it: docs/design.md, uneven shards).
    """
    if isinstance(spec, Sharding):
        if spec.mesh != mesh:
            raise WeftError("%s: sharding on mesh @%s, program on @%s" %
                            (what, spec.mesh.name, mesh.name))
        spec = spec.dims
    if isinstance(spec, str):
        spec = (spec,)
    if not isinstance(spec, (tuple, list)):
        raise WeftError("%s: a partition spec is a P(...) or a tuple, got %r"
                        % (what, spec))
    if len(spec) > len(shape):
        raise WeftError(
            "%s: partition spec %r has %d entries but the tensor has rank "
            "%d (shape %s)" % (what, P(*spec), len(spec), len(shape),
                               tuple(shape)))
    dims = []
    used = {}
    for i, entry in enumerate(list(spec) + [None] * (len(shape) - len(spec))):
        if entry is None:
            axes = ()
        elif isinstance(entry, str):
            axes = (entry,)
        elif isinstance(entry, (tuple, list)):
            axes = tuple(entry)
        else:
            raise WeftError("%s: partition spec entry %d is %r; use None, "
                            "an axis name or a tuple of axis names" %
                            (what, i, entry))
        for axis in axes:
            if not isinstance(axis, str):
                raise WeftError("%s: axis name %r in dimension %d is not a "
                                "string" % (what, axis, i))
            if axis not in mesh.shape:
                raise WeftError(
                    "%s: unknown mesh axis %r in dimension %d; mesh @%s has "
                    "axes %s" % (what, axis, i, mesh.name,
                                 ", ".join(mesh.axis_names)))
            if axis in used:
                raise WeftError(
                    "%s: mesh axis %r splits dimensions %d and %d; an axis "
                    "splits at most one dimension" % (what, axis, used[axis],
                                                      i))
            used[axis] = i
        dims.append(axes)
    return Sharding(mesh, dims)
