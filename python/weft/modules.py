"""Modules that own their parameters, in PyTorch's shape (`weft.nn`).

A `Module` holds `Parameter`s and child modules as attributes, as
`torch.nn.Module` does; `named_parameters()` names them by their path
(`layers.0.attention.wq.weight`), and `weft.trace(fn, mesh, inputs,
params=model)` declares each as a `weft.param` argument of the entry
function with that name (`weft.name`), so checkpoints and `--input`
files use PyTorch's names. While a function is traced, reading a
parameter attribute (`self.weight`) gives the traced Tensor of the
function being traced.

A module with `as_layer = True` (TransformerBlock) is traced once per
structure into a `func.func private` and called per instance: its
parameters are extra arguments of the call, so twelve blocks are one
function and twelve `func.call`s. The structure key is the module's
class, its plain attributes (sizes, flags), its parameters' types and
shardings and the plan applied to it and its children, so blocks with
another plan or shape trace another copy.

Weights follow PyTorch's layouts: Linear's weight is [out, in] and
y = x W^T + b; Embedding's weight is [num, dim]. The plan styles of
weft.parallel (ColwiseParallel, ...) read these layouts.
"""

import math

from . import nn as fn_nn
from . import ops
from .errors import WeftError, user_location
from .layer import call_traced
from .mesh import PartitionSpec
from .tensor import Tensor
from .trace import _stack, current

_bindings = []  # per traced function: {id(Parameter): Tensor}


class Parameter:
    """A trained tensor a module owns: its shape, element type and layout
    (`spec`, set by a plan; None = replicated)."""

    def __init__(self, shape, dtype="f32", spec=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.spec = spec

    def __repr__(self):
        return "Parameter(%s, %s%s)" % (
            self.shape, self.dtype,
            "" if self.spec is None else ", %r" % (self.spec,))


def _lookup(param, name):
    if not _stack:
        return param
    t = _bindings[-1].get(id(param)) if _bindings else None
    if t is None:
        raise WeftError(
            "parameter %s is not an input of the function being traced: "
            "pass its module as weft.trace(..., params=model)" % name)
    return t


def bind(binding):
    """Context for tracing with `binding` ({id(Parameter): Tensor})."""

    class _Bound:
        def __enter__(self):
            _bindings.append(binding)

        def __exit__(self, *exc):
            _bindings.pop()

    return _Bound()


def _static(value):
    """A hashable stand-in for a plain attribute, or None to skip it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return ("v", value)
    if isinstance(value, tuple) and all(_static(v) for v in value):
        return ("t", value)
    return None


class Module:
    """The base class: parameters and children are attributes."""

    as_layer = False
    # Where the plan's output redistribution goes: after forward (False)
    # or at the point forward calls `self._plan_output(y)` (Linear: before
    # the bias, so a row-parallel partial sum is reduced, not the bias).
    _output_inside_forward = False

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_plan", None)

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if params is None:
            raise WeftError("%s: call Module.__init__ before setting "
                            "attributes" % type(self).__name__)
        params.pop(name, None)
        self._modules.pop(name, None)
        self.__dict__.pop(name, None)
        if isinstance(value, Parameter):
            params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", {}):
            return _lookup(d["_parameters"][name], name)
        if name in d.get("_modules", {}):
            return d["_modules"][name]
        raise AttributeError("%s has no attribute %r" %
                             (type(self).__name__, name))

    def parameter(self, name):
        """The Parameter object itself (also while tracing)."""
        return self._parameters[name]

    def named_children(self):
        return list(self._modules.items())

    def named_modules(self, prefix=""):
        out = [(prefix, self)]
        for name, child in self._modules.items():
            out += child.named_modules(prefix + name if not prefix else
                                       prefix + "." + name)
        return out

    def get_submodule(self, path):
        m = self
        if path == "":
            return m
        for part in path.split("."):
            if part not in m._modules:
                raise WeftError("no submodule %r in %s (children: %s)" % (
                    path, type(self).__name__,
                    ", ".join(m._modules) or "none"))
            m = m._modules[part]
        return m

    def named_parameters(self, prefix=""):
        """(path, Parameter) pairs, registration order, each Parameter
        once (a tied weight keeps its first name, as PyTorch's)."""
        seen = set()
        out = []
        for mprefix, m in self.named_modules(prefix):
            for name, p in m._parameters.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                out.append((mprefix + "." + name if mprefix else name, p))
        return out

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def forward(self, *args):
        raise NotImplementedError

    # -- tracing ------------------------------------------------------
    def __call__(self, *args):
        current(type(self).__name__)
        if self.as_layer:
            return self._call_as_layer(args)
        return self._run(args)

    def _run(self, args):
        plan = self._plan
        if plan is not None:
            args = plan.prepare_inputs(self, args)
        out = self.forward(*args)
        if plan is not None and not self._output_inside_forward:
            out = plan.prepare_outputs(self, out)
        return out

    def _plan_output(self, y):
        if self._plan is None:
            return y
        return self._plan.prepare_outputs(self, y)

    def _structure(self):
        attrs = []
        for k, v in sorted(self.__dict__.items()):
            if k.startswith("_"):
                continue
            s = _static(v)
            if s is not None:
                attrs.append((k, s))
        params = []
        for k, p in self._parameters.items():
            params.append((k, p.shape, p.dtype,
                           None if p.spec is None else tuple(p.spec)))
        return (type(self).__qualname__, tuple(attrs), tuple(params),
                None if self._plan is None else self._plan.key(),
                tuple((k, c._structure()) for k, c in self._modules.items()))

    def _call_as_layer(self, args):
        caller = current(type(self).__name__)
        # The line that calls the module (`layer(h, mask)`), not this one.
        location = user_location(skip=2)
        named = self.named_parameters()
        tensors = []
        statics = []
        n_data = 0
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                caller.check_owner(a, "%s argument %d" %
                                   (type(self).__name__, i))
                a = a.resolved("%s argument %d" % (type(self).__name__, i))
                if a.sharding is not None:
                    # An operand with a layout in its type (a plan's
                    # constraint right before the first block) would give
                    # this call another signature than the next blocks',
                    # whose operands are call results without one, and
                    # trace a second copy. An elementwise copy drops the
                    # encoding; the layout still reaches the block, since
                    # weftc inlines calls before propagating.
                    a = ops.scale(a, 1.0)
                tensors.append(("x%d" % i if i else "x", a))
                n_data += 1
            else:
                if _static(a) is None:
                    raise WeftError(
                        "%s: argument %d is neither a Tensor nor a plain "
                        "value (%s)" % (type(self).__name__, i,
                                        type(a).__name__), location)
                statics.append((i, a))
        for path, p in named:
            tensors.append((path.replace(".", "_"), _lookup(p, path)))
        key = ("module", self._structure(), tuple(statics))

        def body(callee_args):
            data = iter(callee_args[:n_data])
            full = [a if not isinstance(a, Tensor) else next(data)
                    for a in args]
            binding = {id(p): t
                       for (_, p), t in zip(named, callee_args[n_data:])}
            with bind(binding):
                return self._run(tuple(full))

        return call_traced(self.layer_name(), key, tensors, body, location,
                           caller, label=getattr(self, "_path", None))

    def layer_name(self):
        """The symbol of the function a layer module traces to."""
        name = type(self).__name__
        return "".join("_" + c.lower() if c.isupper() and i else c.lower()
                       for i, c in enumerate(name))


class ModuleList(Module):
    """Children named 0, 1, ... (as torch.nn.ModuleList)."""

    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, m):
        setattr(self, str(len(self._modules)), m)

    def __iter__(self):
        return iter(self._modules.values())

    def __len__(self):
        return len(self._modules)

    def __getitem__(self, i):
        return list(self._modules.values())[i]


def _letters(rank):
    if rank > 20:
        raise WeftError("rank %d is too large" % rank)
    return "abcdefghjlmnpqrsuvwy"[:rank - 1]


class Linear(Module):
    """y = x W^T + b over the last dimension; W [out, in] as PyTorch's."""

    _output_inside_forward = True

    def __init__(self, in_features, out_features, bias=True, dtype="f32"):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter((out_features, in_features), dtype)
        if bias:
            self.bias = Parameter((out_features,), dtype)

    def forward(self, x):
        if x.shape[-1] != self.in_features:
            raise WeftError("Linear(%d, %d): input of shape %s" % (
                self.in_features, self.out_features, x.shape))
        lead = _letters(x.ndim)
        y = ops.einsum("%si,oi->%so" % (lead, lead), x, self.weight)
        y = self._plan_output(y)
        if "bias" in self._parameters:
            y = y + self.bias
        return y


class Embedding(Module):
    """Rows of weight [num_embeddings, embedding_dim] by i32 ids."""

    def __init__(self, num_embeddings, embedding_dim, dtype="f32"):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.weight = Parameter((num_embeddings, embedding_dim), dtype)

    def forward(self, ids):
        return ops.embed(ids, self.weight)


class PositionEmbedding(Embedding):
    """An Embedding applied to positions 0..n-1 (PyTorch's
    `pos_embeddings(torch.arange(n))`): forward(n) gives [n, dim]. weft
    has no float-to-int cast, so the lookup is a one-hot matrix from
    iota times the table, which a row-split table turns into the same
    partial sum as PyTorch's RowwiseParallel embedding. When n is the
    table's length the lookup is the table itself, with no op (T2's
    `x + P`)."""

    batch_dim = None

    def forward(self, n):
        if n > self.num_embeddings:
            raise WeftError("PositionEmbedding: %d positions, table of %d" %
                            (n, self.num_embeddings))
        if n == self.num_embeddings:
            # Positions 0..n-1 of an n-row table are the table itself.
            return self.weight
        pos = ops.iota(n)
        rows = ops.iota(self.num_embeddings)
        onehot = pos[:, None] == rows[None, :]
        return ops.einsum("tp,pd->td", onehot, self.weight)


class LayerNorm(Module):
    def __init__(self, dim, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype="f32"):
        super().__init__()
        self.dim = dim
        self.eps = eps
        if elementwise_affine:
            self.weight = Parameter((dim,), dtype)
            if bias:
                self.bias = Parameter((dim,), dtype)

    def forward(self, x):
        p = self._parameters
        return fn_nn.layer_norm(x, self.eps,
                                self.weight if "weight" in p else None,
                                self.bias if "bias" in p else None)


class RMSNorm(Module):
    def __init__(self, dim, eps=1e-5, elementwise_affine=True, dtype="f32"):
        super().__init__()
        self.dim = dim
        self.eps = eps
        if elementwise_affine:
            self.weight = Parameter((dim,), dtype)

    def forward(self, x):
        w = self.weight if "weight" in self._parameters else None
        return fn_nn.rms_norm(x, self.eps, w)


def rotary(x, base=10000.0):
    """Rotary position embedding of x [b, t, h, k] (k even), the
    rotate-half form (GPT-NeoX, Llama in Hugging Face): the pairs
    (x[i], x[i + k/2]) turn by angle t * base^(-2i/k)."""
    b, t, h, k = x.shape
    if k % 2:
        raise WeftError("rotary: head size %d is odd" % k)
    half = k // 2
    inv = ops.exp(ops.iota(half) * (-2.0 * math.log(base) / k))
    ang = ops.iota(t)[:, None] * inv[None, :]          # [t, k/2]
    cos, sin = ops.cos(ang), ops.sin(ang)
    x1 = ops.slice(x, 3, 0, half)
    x2 = ops.slice(x, 3, half, k)
    c = cos[:, None, :]
    s = sin[:, None, :]
    return ops.concat([x1 * c - x2 * s, x2 * c + x1 * s], 3)


class Attention(Module):
    """Multi-head self-attention: wq, wk, wv, wo Linear(dim, dim) (no bias
    by default), heads split from the projection's output as
    "bt(hk)->bthk", softmax(q k^T / sqrt(k) + mask) v; forward(x, mask)
    takes an additive [t, t] mask, else builds the causal one."""

    def __init__(self, dim, n_heads, causal=True, rotary=False, bias=False,
                 dtype="f32"):
        super().__init__()
        if dim % n_heads:
            raise WeftError("Attention: dim %d is not a multiple of n_heads "
                            "%d" % (dim, n_heads))
        self.dim = dim
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.causal = causal
        self.rotary = rotary
        self.wq = Linear(dim, dim, bias, dtype)
        self.wk = Linear(dim, dim, bias, dtype)
        self.wv = Linear(dim, dim, bias, dtype)
        self.wo = Linear(dim, dim, bias, dtype)

    def forward(self, x, mask=None):
        t = x.shape[1]
        split = "bt(hk)->bthk"
        q = ops.reshape(self.wq(x), split, h=self.n_heads)
        k = ops.reshape(self.wk(x), split, h=self.n_heads)
        v = ops.reshape(self.wv(x), split, h=self.n_heads)
        if self.rotary:
            q, k = rotary(q), rotary(k)
        scores = ops.einsum("bthk,bshk->bhts", q, k) * \
            (1.0 / math.sqrt(self.head_dim))
        if mask is not None:
            scores = scores + mask
        elif self.causal:
            scores = scores + fn_nn.causal_mask(t)
        att = ops.einsum("bhts,bshk->bthk", fn_nn.softmax(scores), v)
        return self.wo(ops.reshape(att, "bthk->bt(hk)"))


class FeedForward(Module):
    """w2(act(w1 x)), with biases by default (PyTorch's test FeedForward:
    GELU)."""

    def __init__(self, dim, hidden_dim, bias=True, activation="gelu",
                 dtype="f32"):
        super().__init__()
        self.activation = activation
        self.w1 = Linear(dim, hidden_dim, bias, dtype)
        self.w2 = Linear(hidden_dim, dim, bias, dtype)

    def forward(self, x):
        act = {"gelu": ops.gelu, "relu": ops.relu,
               "silu": ops.silu}[self.activation]
        return self.w2(act(self.w1(x)))


class SwiGLU(Module):
    """w2(silu(w1 x) * w3 x), no biases (Llama's MLP)."""

    def __init__(self, dim, hidden_dim, dtype="f32"):
        super().__init__()
        self.w1 = Linear(dim, hidden_dim, False, dtype)
        self.w2 = Linear(hidden_dim, dim, False, dtype)
        self.w3 = Linear(dim, hidden_dim, False, dtype)

    def forward(self, x):
        return self.w2(ops.silu(self.w1(x)) * self.w3(x))


def _norm(kind, dim, dtype):
    if kind == "layer":
        return LayerNorm(dim, dtype=dtype)
    if kind == "rms":
        return RMSNorm(dim, dtype=dtype)
    if kind == "rms_plain":
        return RMSNorm(dim, elementwise_affine=False, dtype=dtype)
    raise WeftError("unknown norm %r (layer, rms, rms_plain)" % (kind,))


class TransformerBlock(Module):
    """Pre-norm block: x + attention(norm(x)), then h + mlp(norm(h)).
    Traced once as a layer function and called per block."""

    as_layer = True

    def __init__(self, dim, n_heads, hidden_dim=None, norm="layer",
                 mlp="gelu", mlp_bias=True, rotary=False, dtype="f32"):
        super().__init__()
        hidden_dim = hidden_dim or 4 * dim
        self.attention_norm = _norm(norm, dim, dtype)
        self.attention = Attention(dim, n_heads, rotary=rotary, dtype=dtype)
        self.ffn_norm = _norm(norm, dim, dtype)
        if mlp == "swiglu":
            self.feed_forward = SwiGLU(dim, hidden_dim, dtype)
        else:
            self.feed_forward = FeedForward(dim, hidden_dim, mlp_bias, mlp,
                                            dtype)

    def forward(self, x, mask=None):
        h = x + self.attention(self.attention_norm(x), mask)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(Module):
    """A decoder-only LM with the attribute names of PyTorch's test
    Transformer (torch/testing/_internal/distributed/_tensor/
    common_dtensor.py): tok_embeddings, pos_embeddings (learned, or
    none with `pos="rotary"`), layers.N, norm, output (tied to
    tok_embeddings with `weight_tying`). forward(tokens [b, t] i32)
    gives logits [b, t, vocab]."""

    def __init__(self, vocab_size, dim, n_layers, n_heads, max_seq_len,
                 hidden_dim=None, norm="layer", mlp="gelu", mlp_bias=True,
                 pos="learned", weight_tying=False, dtype="f32"):
        super().__init__()
        if pos not in ("learned", "rotary"):
            raise WeftError("Transformer: pos is 'learned' or 'rotary', got "
                            "%r" % (pos,))
        self.max_seq_len = max_seq_len
        self.tok_embeddings = Embedding(vocab_size, dim, dtype)
        if pos == "learned":
            self.pos_embeddings = PositionEmbedding(max_seq_len, dim, dtype)
        self.layers = ModuleList(
            TransformerBlock(dim, n_heads, hidden_dim, norm, mlp, mlp_bias,
                             pos == "rotary", dtype)
            for _ in range(n_layers))
        self.norm = _norm(norm, dim, dtype)
        self.output = Linear(dim, vocab_size, False, dtype)
        if weight_tying:
            self.output.weight = self.tok_embeddings.parameter("weight")

    def forward(self, tokens):
        t = tokens.shape[1]
        if t > self.max_seq_len:
            raise WeftError("Transformer: sequence %d > max_seq_len %d" %
                            (t, self.max_seq_len))
        h = self.tok_embeddings(tokens)
        if "pos_embeddings" in self._modules:
            h = h + self.pos_embeddings(t)
        # One causal mask for all blocks, as T2 computes it: per block it
        # would be recomputed (and, on a mesh, laid out) once per layer.
        mask = fn_nn.causal_mask(t)
        for layer in self.layers:
            h = layer(h, mask)
        return self.output(self.norm(h))


__all__ = ["Parameter", "Module", "ModuleList", "Linear", "Embedding",
           "PositionEmbedding", "LayerNorm", "RMSNorm", "Attention",
           "FeedForward", "SwiGLU", "TransformerBlock", "Transformer",
           "rotary", "PartitionSpec"]
