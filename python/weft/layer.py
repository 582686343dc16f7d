"""Layers: a Python function traced once per input signature into a
`func.func private`, and called with `func.call` at every use.

weftc flattens the calls first (weft-inline-calls, docs/calls.md), so a
model written with layers compiles to the same program as its flat twin,
while the module stays one layer long however many layers the model has.
The callee's argument types must equal the call's operand types exactly,
sharding encodings included, so the signature is the operands' full types:
a use with another shape, element type or sharding traces another copy.
"""

import contextlib
import functools
import inspect

from .errors import WeftError, user_location
from .tensor import Tensor
from .trace import FunctionBuilder, _results, _stack, current


# The pipeline stage of the layer calls traced now (`with weft.stage(s)`).
_stages = []


@contextlib.contextmanager
def stage(s):
    """`with weft.stage(s):` puts the layer calls the entry makes inside on
    pipeline stage `s`: each gets `weft.stage = s`, and weftc pipelines
    them over the mesh axis "stage" without --pipeline-stages
    (docs/pipeline.md, "Stages from layer calls"; like torch.distributed's
    pipeline split points). Every layer call of the chain needs one,
    consecutive calls per stage from stage 0, the same number on every
    stage: weftc says which call breaks that."""
    if isinstance(s, bool) or not isinstance(s, int) or s < 0:
        raise WeftError("weft.stage(%r): a stage is an int >= 0" % (s,),
                        user_location())
    _stages.append(s)
    try:
        yield
    finally:
        _stages.pop()


class Layer:
    def __init__(self, fn, name=None):
        self.fn = fn
        self.name = name or fn.__name__
        self.signature = inspect.signature(fn)
        functools.update_wrapper(self, fn)

    def __get__(self, obj, objtype=None):
        # As a method: `self` is a static (hashed) argument.
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __call__(self, *args, **kwargs):
        caller = current("layer %s" % self.name)
        location = user_location()
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise WeftError("layer %s: %s" % (self.name, e), location)
        bound.apply_defaults()
        tensors = []
        key = []
        for pname, value in bound.arguments.items():
            kind = self.signature.parameters[pname].kind
            if kind in (inspect.Parameter.VAR_POSITIONAL,
                        inspect.Parameter.VAR_KEYWORD):
                raise WeftError("layer %s: *args and **kwargs are not "
                                "supported" % self.name, location)
            if isinstance(value, Tensor):
                caller.check_owner(value, "layer %s" % self.name)
                value = value.resolved("layer %s argument %s" %
                                       (self.name, pname))
                tensors.append((pname, value))
                key.append(("T", value.type()))
            else:
                try:
                    hash(value)
                except TypeError:
                    raise WeftError(
                        "layer %s: argument %s is neither a Tensor nor "
                        "hashable (%s); static arguments key the trace" %
                        (self.name, pname, type(value).__name__), location)
                key.append(("S", pname, value))
        def body(callee_args):
            args = dict(bound.arguments)
            for (pname, _), t in zip(tensors, callee_args):
                args[pname] = t
            return self.fn(*[args[p] for p in bound.arguments])

        return call_traced(self.name, (id(self), tuple(key)), tensors, body,
                           location, caller)


def call_traced(name, cache_key, tensors, body, location, caller=None,
                label=None):
    """Emits `func.call` of the private function `cache_key` names, tracing
    it first if this module has none yet.

    `tensors`: the call's operands, as (argument name, Tensor) pairs;
    `body(args)`: traces the callee over its argument Tensors (in the same
    order) and returns a Tensor or a tuple. Layers (`@weft.layer`) and
    layer modules (weft.nn) both come here; the cache key must hold
    everything the trace depends on besides the operands' types, which
    are added here. `label` names the call in weft.explain's summary (a
    module's path; default the callee's symbol).
    """
    if caller is None:
        caller = current("layer %s" % name)
    module = caller.module
    cache_key = (cache_key, tuple(t.type() for _, t in tensors))
    entry = module.layer_cache.get(cache_key)
    if entry is None:
        entry = _trace(module, name, tensors, body)
        module.layer_cache[cache_key] = entry
    callee, multi = entry
    results = [Tensor(t.shape, t.dtype, t.sharding, None, caller)
               for t in callee.results]
    base = caller.fresh("x")
    if len(results) == 1:
        results[0].name = base
    else:
        for i, r in enumerate(results):
            r.name = "%s#%d" % (base, i)
    operands = [t for _, t in tensors]
    # Only the entry's calls are a pipeline's stages.
    attrs = (" {weft.stage = %d : i64}" % _stages[-1]
             if _stages and not caller.private else "")

    def render():
        lhs = base if len(results) == 1 else "%s:%d" % (base, len(results))
        res = ", ".join(r.type() for r in results)
        if len(results) != 1:
            res = "(%s)" % res
        return "%s = func.call @%s(%s)%s : (%s) -> %s" % (
            lhs, callee.name, ", ".join(o.name for o in operands), attrs,
            ", ".join(o.type() for o in operands), res)

    op = caller.emit(results, render, location)
    # A call's result types are the callee's: never annotated in place.
    op.annotatable = False
    # Calls of the entry function, in order, for the per-call summaries of
    # weft.explain: (location, callee symbol, label: a module's path).
    if not caller.private:
        module.calls.append((location, callee.name, label or callee.name))
    return tuple(results) if multi else results[0]


def _trace(module, name, tensors, body):
    symbol = module.unique_symbol(name)
    callee = FunctionBuilder(module, symbol, private=True)
    args = [callee.add_arg(t.shape, t.dtype, t.sharding, pname)
            for pname, t in tensors]
    _stack.append(callee)
    try:
        out = body(args)
    finally:
        _stack.pop()
    results, multi = _results(out, "layer %s" % name)
    for i, t in enumerate(results):
        callee.check_owner(t, "layer %s result #%d" % (name, i))
        callee.results.append(t.resolved("layer %s result #%d" % (name, i)))
        callee.result_attrs.append("")
    module.functions.append(callee)
    return callee, multi


def layer(fn=None, name=None):
    """`@weft.layer` (or `@weft.layer(name="block")`)."""
    if fn is None:
        return lambda f: Layer(f, name)
    return Layer(fn, name)
