"""Tensor-parallel plans in PyTorch's vocabulary
(torch.distributed.tensor.parallel), applied as weft annotations.

`parallelize_module(model, mesh, {"layers.0.attention.wq":
ColwiseParallel(), ...})` sets each planned module's parameter specs and
records input/output layouts that become `weft.shard` constraints when
the module is traced. PyTorch's placements map to specs over the plan's
axis (`tp_axis`): Shard(d) splits dimension d on it, Replicate() is
whole; `dp_axis`, when given, also splits dimension 0 (the batch) of
every constrained activation that has one, so a 2-D mesh does data and
tensor parallelism at once.

What each style does (the same as PyTorch's; docs/python.md):

| style | parameters | input | output |
|---|---|---|---|
| ColwiseParallel | Linear weight [out, in] Shard(0), bias Shard(0); Embedding weight Shard(1) | input_layouts (Replicate) -> Replicate | Shard(-1) -> output_layouts (Shard(-1)) |
| RowwiseParallel | Linear weight Shard(1), bias replicated; Embedding weight Shard(0) | input_layouts (Shard(-1)) -> Shard(-1) (Linear) / Replicate (Embedding) | partial sum -> output_layouts (Replicate), before the bias |
| SequenceParallel | replicated | -> Shard(sequence_dim) | stays Shard(sequence_dim) |
| PrepareModuleInput | - | input_layouts -> desired_input_layouts | - |
| PrepareModuleOutput | - | - | output_layouts -> desired_output_layouts |

A layout A -> B is `weft.shard(x, A)` then `weft.shard(x, B)` (one when
equal): PyTorch's `DTensor.from_local(x, A).redistribute(B)` on the
global value. `use_local_output` has no meaning here (every traced value
is global) and is accepted and ignored.
"""

from .errors import WeftError
from .mesh import Mesh, PartitionSpec
from . import ops


class Placement:
    pass


class Shard(Placement):
    def __init__(self, dim):
        if not isinstance(dim, int):
            raise WeftError("Shard(dim): dim must be an int, got %r" %
                            (dim,))
        self.dim = dim

    def __eq__(self, other):
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self):
        return hash(("Shard", self.dim))

    def __repr__(self):
        return "Shard(%d)" % self.dim


class Replicate(Placement):
    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"


def _placement(p, what):
    if p is None or isinstance(p, Placement):
        return p
    raise WeftError("%s: %r is not a placement (Shard(d) or Replicate())" %
                    (what, p))


class _Axes:
    """The mesh axes a plan uses."""

    def __init__(self, mesh, tp_axis, dp_axis):
        self.mesh = mesh
        self.tp = tp_axis
        self.dp = dp_axis

    def spec(self, placement, x, batch_dim=0):
        """The PartitionSpec of activation `x` in `placement`."""
        rank = x.ndim
        dims = [None] * rank
        if self.dp is not None and batch_dim is not None and \
                rank > batch_dim + 1:
            dims[batch_dim] = self.dp
        if isinstance(placement, Shard):
            d = placement.dim + rank if placement.dim < 0 else placement.dim
            if not 0 <= d < rank:
                raise WeftError("Shard(%d) of a rank-%d tensor %s" % (
                    placement.dim, rank, x.shape))
            dims[d] = self.tp if dims[d] is None else (dims[d], self.tp)
        return PartitionSpec(*dims)


class ParallelStyle:
    """A plan entry. Subclasses set parameter specs (`apply`) and
    constrain inputs and outputs while tracing."""

    axes = None

    def apply(self, module, axes):
        self.axes = axes

    def prepare_inputs(self, module, args):
        return args

    def prepare_outputs(self, module, out):
        return out

    def key(self):
        return (type(self).__name__, tuple(sorted(
            (k, repr(v)) for k, v in self.__dict__.items()
            if k != "axes")), None if self.axes is None else
            (self.axes.tp, self.axes.dp))

    def _redistribute(self, module, x, src, dst):
        from .tensor import Tensor
        if not isinstance(x, Tensor):
            return x
        bd = getattr(module, "batch_dim", 0)
        if src is not None and src != dst:
            x = ops.shard(x, self.axes.spec(src, x, bd))
        if dst is not None:
            x = ops.shard(x, self.axes.spec(dst, x, bd))
        return x

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % kv for kv in sorted(self.__dict__.items())
            if kv[0] != "axes"))


def _set_spec(module, name, placement, axes):
    if name not in module._parameters:
        return
    p = module._parameters[name]
    dims = [None] * len(p.shape)
    if isinstance(placement, Shard):
        dims[placement.dim] = axes.tp
    spec = PartitionSpec(*dims)
    if p.spec is not None and tuple(p.spec) != tuple(spec):
        raise WeftError(
            "%s.%s is already laid out as %r; the plan asks %r (a tied "
            "weight must be split the same way in both modules)" % (
                type(module).__name__, name, p.spec, spec))
    p.spec = spec


def _is(module, cls_name):
    return any(c.__name__ == cls_name for c in type(module).__mro__)


class ColwiseParallel(ParallelStyle):
    def __init__(self, input_layouts=None, output_layouts=None,
                 use_local_output=True):
        self.input_layouts = _placement(input_layouts, "ColwiseParallel") \
            or Replicate()
        self.output_layouts = _placement(output_layouts, "ColwiseParallel") \
            or Shard(-1)

    def apply(self, module, axes):
        super().apply(module, axes)
        if _is(module, "Linear"):
            _set_spec(module, "weight", Shard(0), axes)
            _set_spec(module, "bias", Shard(0), axes)
        elif _is(module, "Embedding"):
            _set_spec(module, "weight", Shard(1), axes)
        else:
            raise WeftError("ColwiseParallel applies to Linear and Embedding "
                            "modules, not %s" % type(module).__name__)

    def prepare_inputs(self, module, args):
        return tuple(self._redistribute(module, a, self.input_layouts,
                                        Replicate()) for a in args)

    def prepare_outputs(self, module, out):
        return self._redistribute(module, out, Shard(-1),
                                  self.output_layouts)


class RowwiseParallel(ParallelStyle):
    def __init__(self, input_layouts=None, output_layouts=None,
                 use_local_output=True):
        self.input_layouts = _placement(input_layouts, "RowwiseParallel") \
            or Shard(-1)
        self.output_layouts = _placement(output_layouts, "RowwiseParallel") \
            or Replicate()

    def apply(self, module, axes):
        super().apply(module, axes)
        if _is(module, "Linear"):
            _set_spec(module, "weight", Shard(1), axes)
            _set_spec(module, "bias", Replicate(), axes)
            self._desired_input = Shard(-1)
        elif _is(module, "Embedding"):
            _set_spec(module, "weight", Shard(0), axes)
            self._desired_input = Replicate()
        else:
            raise WeftError("RowwiseParallel applies to Linear and Embedding "
                            "modules, not %s" % type(module).__name__)

    def prepare_inputs(self, module, args):
        return tuple(self._redistribute(module, a, self.input_layouts,
                                        self._desired_input) for a in args)

    def prepare_outputs(self, module, out):
        # The product is a partial sum over the axis; the constraint is the
        # reduction (all-reduce to Replicate, reduce-scatter to Shard).
        return self._redistribute(module, out, None, self.output_layouts)


class SequenceParallel(ParallelStyle):
    def __init__(self, sequence_dim=1, use_local_output=False):
        self.sequence_dim = sequence_dim

    def apply(self, module, axes):
        super().apply(module, axes)
        for name in module._parameters:
            _set_spec(module, name, Replicate(), axes)

    def prepare_inputs(self, module, args):
        return tuple(self._redistribute(module, a, None,
                                        Shard(self.sequence_dim))
                     for a in args)

    def prepare_outputs(self, module, out):
        return self._redistribute(module, out, None,
                                  Shard(self.sequence_dim))


def _tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class PrepareModuleInput(ParallelStyle):
    def __init__(self, input_layouts=None, desired_input_layouts=None,
                 use_local_output=False):
        self.input_layouts = _tuple(input_layouts)
        self.desired_input_layouts = _tuple(desired_input_layouts)
        if self.input_layouts is not None and \
                self.desired_input_layouts is not None and \
                len(self.input_layouts) != len(self.desired_input_layouts):
            raise WeftError("PrepareModuleInput: %d input_layouts, %d "
                            "desired_input_layouts" % (
                                len(self.input_layouts),
                                len(self.desired_input_layouts)))

    def prepare_inputs(self, module, args):
        if self.desired_input_layouts is None:
            return args
        if len(args) < len(self.desired_input_layouts):
            raise WeftError("PrepareModuleInput on %s: %d layouts for %d "
                            "inputs" % (type(module).__name__,
                                        len(self.desired_input_layouts),
                                        len(args)))
        out = list(args)
        for i, dst in enumerate(self.desired_input_layouts):
            src = self.input_layouts[i] if self.input_layouts else None
            if dst is not None:
                out[i] = self._redistribute(module, out[i], src, dst)
        return tuple(out)


class PrepareModuleOutput(ParallelStyle):
    def __init__(self, output_layouts=None, desired_output_layouts=None,
                 use_local_output=True):
        self.output_layouts = _tuple(output_layouts)
        self.desired_output_layouts = _tuple(desired_output_layouts)

    def prepare_outputs(self, module, out):
        if self.desired_output_layouts is None:
            return out
        outs = out if isinstance(out, tuple) else (out,)
        res = []
        for i, o in enumerate(outs):
            dst = self.desired_output_layouts[i] \
                if i < len(self.desired_output_layouts) else None
            src = self.output_layouts[i] if self.output_layouts and \
                i < len(self.output_layouts) else None
            res.append(self._redistribute(module, o, src, dst)
                       if dst is not None else o)
        return tuple(res) if isinstance(out, tuple) else res[0]


class _Chain(ParallelStyle):
    """Two plan entries on one module (PrepareModuleInput and a style)."""

    def __init__(self, first, second):
        self.first = first
        self.second = second

    def key(self):
        return ("chain", self.first.key(), self.second.key())

    def prepare_inputs(self, module, args):
        return self.second.prepare_inputs(
            module, self.first.prepare_inputs(module, args))

    def prepare_outputs(self, module, out):
        return self.second.prepare_outputs(
            module, self.first.prepare_outputs(module, out))


def parallelize_module(module, mesh, plan, tp_axis=None, dp_axis=None):
    """Applies `plan` ({submodule path: style}, or one style for `module`
    itself) on `mesh` and returns `module` (changed in place, as
    PyTorch's). The plan splits over `tp_axis` (default: the mesh's only
    axis); `dp_axis` also splits the batch of constrained activations.
    Paths may use `*` for one level (`"layers.*.attention.wq"`)."""
    if not isinstance(mesh, Mesh):
        raise WeftError("parallelize_module: mesh must be a weft.Mesh, got "
                        "%r" % (mesh,))
    if tp_axis is None:
        if len(mesh.axis_names) != 1:
            raise WeftError(
                "parallelize_module: mesh @%s has axes %s; name the tensor-"
                "parallel one with tp_axis=" % (
                    mesh.name, ", ".join(mesh.axis_names)))
        tp_axis = mesh.axis_names[0]
    for a in (tp_axis, dp_axis):
        if a is not None and a not in mesh.shape:
            raise WeftError("parallelize_module: unknown mesh axis %r; mesh "
                            "@%s has %s" % (a, mesh.name,
                                            ", ".join(mesh.axis_names)))
    if tp_axis == dp_axis:
        raise WeftError("parallelize_module: tp_axis and dp_axis are both "
                        "%r" % tp_axis)
    axes = _Axes(mesh, tp_axis, dp_axis)
    if isinstance(plan, ParallelStyle):
        plan = {"": plan}
    if not isinstance(plan, dict):
        raise WeftError("parallelize_module: the plan is a dict of "
                        "{path: style} or one style, got %r" % (plan,))
    for path, style in plan.items():
        if not isinstance(style, ParallelStyle):
            raise WeftError("parallelize_module: plan entry %r is %r, not a "
                            "ParallelStyle" % (path, style))
        for target in _match(module, path):
            # One style object may be shared by several modules (PyTorch
            # allows it); the traced constraints only read its settings.
            import copy
            s = copy.copy(style)
            s.apply(target, axes)
            if target._plan is None:
                object.__setattr__(target, "_plan", s)
            else:
                object.__setattr__(target, "_plan", _Chain(target._plan, s))
    return module


def _match(module, path):
    if "*" not in path:
        return [module.get_submodule(path)]
    parts = path.split(".")
    found = [module]
    for part in parts:
        nxt = []
        for m in found:
            if part == "*":
                nxt += [c for _, c in m.named_children()]
            else:
                nxt.append(m.get_submodule(part))
        found = nxt
    if not found:
        raise WeftError("parallelize_module: no submodule matches %r" % path)
    return found


__all__ = ["Placement", "Shard", "Replicate", "ParallelStyle",
           "ColwiseParallel", "RowwiseParallel", "SequenceParallel",
           "PrepareModuleInput", "PrepareModuleOutput",
           "parallelize_module"]
