"""Tracing a Python function over symbolic tensors into a weft module.

The module is built as MLIR *text* (docs/python.md says why): one
`weft.mesh`, the layers' `func.func private` functions, and the entry
function. Ops are kept as small records and rendered when the module is
printed, so types are final by then.
"""

import inspect
import keyword

from . import dtypes
from .errors import WeftError, user_location
from .mesh import Mesh, make_sharding
from .tensor import Tensor

_stack = []


def current(what):
    """The function being traced; an op outside a trace is an error."""
    if not _stack:
        raise WeftError("%s: called outside weft.trace / weft.function" %
                        what)
    return _stack[-1]


class Op:
    """One emitted op: `render` returns its text once types are final."""

    __slots__ = ("render", "location", "results", "annotatable")

    def __init__(self, render, location, results):
        self.annotatable = True
        self.render = render
        self.location = location
        self.results = results


class FunctionBuilder:
    def __init__(self, module, name, private):
        self.module = module
        self.name = name
        self.private = private
        self.args = []          # (Tensor, attrs text)
        self.ops = []
        self.results = []       # Tensors
        self.result_attrs = []
        self.counter = 0
        self.used_names = set()

    def fresh(self, prefix="v"):
        while True:
            self.counter += 1
            name = "%%%s%d" % (prefix, self.counter)
            if name not in self.used_names:
                self.used_names.add(name)
                return name

    def arg_name(self, preferred, index):
        if preferred and preferred.isidentifier() and \
                not keyword.iskeyword(preferred) and preferred.isascii():
            name = "%" + preferred
            if name not in self.used_names:
                self.used_names.add(name)
                return name
        name = "%%arg%d" % index
        while name in self.used_names:
            name += "_"
        self.used_names.add(name)
        return name

    def add_arg(self, shape, dtype, sharding, preferred, attrs=""):
        t = Tensor(shape, dtype, sharding,
                   self.arg_name(preferred, len(self.args)), self)
        self.args.append((t, attrs))
        return t

    def emit(self, results, render, location=None):
        """Appends an op whose results are the given Tensors."""
        if location is None:
            location = user_location()
        op = Op(render, location, results)
        for r in results:
            r.producer = op
        self.ops.append(op)
        return op

    def check_owner(self, t, what):
        if t.function is not self:
            raise WeftError(
                "%s: tensor %s belongs to function @%s, not @%s; pass it to "
                "the layer as an argument" % (what, t.name, t.function.name,
                                              self.name))

    def text(self):
        args = ",\n    ".join(
            "%s: %s%s" % (t.name, t.type(), (" " + a) if a else "")
            for t, a in self.args)
        results = []
        for t, a in zip(self.results, self.result_attrs):
            results.append(t.type() + ((" " + a) if a else ""))
        if len(results) == 1 and not self.result_attrs[0]:
            res = results[0]
        else:
            res = "(" + ", ".join(results) + ")"
        head = "func.func %s@%s(\n    %s)\n    -> %s {" % (
            "private " if self.private else "", self.name, args, res)
        lines = [head]
        for op in self.ops:
            lines.append("  %s %s" % (op.render(), op.location.mlir()))
        lines.append("  return %s : %s" % (
            ", ".join(t.name for t in self.results),
            ", ".join(t.type() for t in self.results)))
        lines.append("}")
        return "\n".join(lines)


class ModuleBuilder:
    def __init__(self, mesh):
        self.mesh = mesh
        self.functions = []     # private layer functions, in creation order
        self.layer_cache = {}
        self.symbols = set()
        self.calls = []         # entry-function calls: weft.explain

    def unique_symbol(self, name):
        base = name if name.replace("_", "a").isalnum() else "fn"
        candidate = base
        n = 1
        while candidate in self.symbols:
            n += 1
            candidate = "%s_%d" % (base, n)
        self.symbols.add(candidate)
        return candidate


class Input:
    """A declared input: `Input("x", (4, 64, 256), "f32", P(None, "model"))`.

    `spec=None` leaves the argument's layout to propagation (no encoding);
    a spec, even `P()`, writes the sharding on the argument type. `param`
    marks a trained parameter (`weft.param`).
    """

    def __init__(self, name, shape, dtype="f32", spec=None, param=False):
        if not isinstance(name, str) or not name:
            raise WeftError("Input: a name is needed")
        self.name = name
        if not isinstance(shape, (tuple, list)) or not all(
                isinstance(s, int) and not isinstance(s, bool)
                for s in shape):
            raise WeftError("Input %r: the shape must be a tuple of ints, "
                            "got %r" % (name, shape))
        self.shape = tuple(shape)
        for s in self.shape:
            if s < 1:
                raise WeftError("Input %r: dimension sizes must be >= 1, got "
                                "%s" % (name, self.shape))
        self.dtype = dtypes.normalize(dtype)
        self.spec = spec
        self.param = param

    def __repr__(self):
        return "Input(%r, %s, %r, %r%s)" % (
            self.name, self.shape, self.dtype, self.spec,
            ", param=True" if self.param else "")


def Param(name, shape, dtype="f32", spec=None):
    """An Input with `param=True`."""
    return Input(name, shape, dtype, spec, param=True)


class Program:
    """A traced weft module: `.mlir` is its text; `.compile()` runs weftc."""

    def __init__(self, name, mesh, inputs, text, source, calls=()):
        self.calls = list(calls)
        self.name = name
        self.mesh = mesh
        self.inputs = inputs
        self.mlir = text
        self.source = source

    def __str__(self):
        return self.mlir

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.mlir)
        return path

    def compile(self, out, **kwargs):
        from .compiler import compile as _compile
        return _compile(self, out, **kwargs)

    def show_sharding(self, names=None, **kwargs):
        """Device grids of the propagated inputs and outputs (text)."""
        from .compiler import show_sharding
        return show_sharding(self, names, **kwargs)

    def build(self, out, ranks=None, launcher=None, env=None, **kwargs):
        """Compiles like `compile` and returns the runnable Executable."""
        from .runner import Executable
        return Executable(self.compile(out, **kwargs), ranks=ranks,
                          launcher=launcher, env=env)


def _mark_output(fn, t, spec, index):
    """Returns the tensor to return for result `index`, with `spec`."""
    if spec is None:
        return t
    sharding = make_sharding(spec, t.shape, fn.module.mesh,
                             "result #%d" % index)
    if t.sharding == sharding:
        return t
    producer = t.producer
    own_op = (t.sharding is None and producer is not None and
              producer.annotatable and
              not any(r is t for r in fn.results))
    if own_op:
        # Written on the producing op's result type, as hand-written weft
        # does; no extra op.
        t.sharding = sharding
        return t
    from . import ops
    return ops.shard(t, sharding)


def _run(fn, builder, args):
    _stack.append(builder)
    try:
        out = fn(*args)
    finally:
        _stack.pop()
    return out


def _results(out, what):
    if isinstance(out, Tensor):
        return [out], False
    if isinstance(out, (tuple, list)) and out and \
            all(isinstance(o, Tensor) for o in out):
        return list(out), True
    raise WeftError("%s must return a Tensor or a tuple of Tensors, got %r"
                    % (what, type(out).__name__))


def trace(fn, mesh, inputs, out_specs=None, out_names=None, name=None,
          params=None):
    """Traces `fn(*tensors)` over `inputs` (a list of `Input`) on `mesh`.

    `out_specs`: one spec per result (or one spec for a single result),
    written on the result types; `out_names`: `weft.name` of the results.
    `params`: a weft.nn Module (or a list of them) whose parameters become
    `weft.param` arguments after `inputs`, named by their paths
    (`layers.0.attention.wq.weight`), in `named_parameters()` order, laid
    out as their plan says (replicated where no plan splits them); `fn`
    is called with the `inputs` only and reaches the parameters through
    the modules. Returns a `Program`.
    """
    param_list = _module_params(params)
    for m in (params if isinstance(params, (list, tuple)) else
              [params] if params is not None else []):
        for path, sub in m.named_modules():
            object.__setattr__(sub, "_path", path or type(sub).__name__)
    inputs = list(inputs) + [Input(n, p.shape, p.dtype,
                                   p.spec if p.spec is not None else (),
                                   param=True) for n, p in param_list]
    if not isinstance(mesh, Mesh):
        raise WeftError("trace: mesh must be a weft.Mesh, got %r" % (mesh,))
    module = ModuleBuilder(mesh)
    fname = module.unique_symbol(name or getattr(fn, "__name__", "main"))
    builder = FunctionBuilder(module, fname, private=False)
    args = []
    names = set()
    for i, inp in enumerate(inputs):
        if not isinstance(inp, Input):
            raise WeftError("trace: input %d is %r, not a weft.Input" %
                            (i, inp))
        if inp.name in names:
            raise WeftError("trace: two inputs named %r" % inp.name)
        names.add(inp.name)
        sharding = None
        if inp.spec is not None:
            sharding = make_sharding(inp.spec, inp.shape, mesh,
                                     "input %r" % inp.name)
        attrs = []
        if inp.param:
            attrs.append("weft.param")
        attrs.append('weft.name = "%s"' % inp.name)
        args.append(builder.add_arg(inp.shape, inp.dtype, sharding,
                                    inp.name.replace(".", "_"),
                                    "{%s}" % ", ".join(attrs)))
    from .modules import bind
    n_data = len(inputs) - len(param_list)
    with bind({id(p): t for (_, p), t in zip(param_list, args[n_data:])}):
        out = _run(fn, builder, args[:n_data])
    results, _ = _results(out, "the traced function")
    if out_specs is not None and not isinstance(out_specs, list):
        out_specs = [out_specs] if len(results) == 1 else list(out_specs)
    if out_specs is not None and len(out_specs) != len(results):
        raise WeftError("trace: %d out_specs for %d results" %
                        (len(out_specs), len(results)))
    if out_names is not None and isinstance(out_names, str):
        out_names = [out_names]
    if out_names is not None and len(out_names) != len(results):
        raise WeftError("trace: %d out_names for %d results" %
                        (len(out_names), len(results)))
    _stack.append(builder)
    try:
        for i, t in enumerate(results):
            builder.check_owner(t, "result #%d" % i)
            t = t.resolved("result #%d" % i)
            spec = out_specs[i] if out_specs is not None else None
            builder.results.append(_mark_output(builder, t, spec, i))
            builder.result_attrs.append(
                '{weft.name = "%s"}' % out_names[i] if out_names else "")
    finally:
        _stack.pop()
    text = [mesh.mlir(), ""]
    for f in module.functions:
        text.append(f.text())
        text.append("")
    text.append(builder.text())
    src = inspect.getsourcefile(fn) if inspect.isfunction(fn) else None
    return Program(fname, mesh, list(inputs), "\n".join(text) + "\n", src,
                   module.calls)


def _module_params(params):
    """[(path, Parameter)] of a Module or a list of Modules."""
    if params is None:
        return []
    from .modules import Module
    mods = params if isinstance(params, (list, tuple)) else [params]
    out = []
    seen = set()
    for m in mods:
        if not isinstance(m, Module):
            raise WeftError("trace: params= takes weft.nn Modules, got %r" %
                            (m,))
        for path, p in m.named_parameters():
            if id(p) not in seen:
                seen.add(id(p))
                out.append((path, p))
    return out


def function(mesh, inputs, out_specs=None, out_names=None, name=None,
             params=None):
    """Decorator form of `trace`: `@weft.function(mesh, [Input(...), ...])`
    turns the function into its `Program`."""

    def wrap(fn):
        return trace(fn, mesh, inputs, out_specs, out_names, name, params)

    return wrap
