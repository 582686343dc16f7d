"""Helpers built from the traced ops, written as a user would write them,
and (from modules.py) the modules that own parameters: `weft.nn.Linear`,
`weft.nn.Transformer`, ...

Each traces to the op sequence the hand-written examples use (T2's
examples/training/t2_lm.mlir), so a Python model and its hand-written
twin evaluate to the same numbers.
"""

from . import ops


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along `axis`."""
    m = ops.max(x, axis, keepdims=True)
    e = ops.exp(x - m)
    return e / ops.sum(e, axis, keepdims=True)


def log_softmax(x, axis=-1):
    """(x - max) - log(sum(exp(x - max))) along `axis`."""
    shifted = x - ops.max(x, axis, keepdims=True)
    return shifted - ops.log(ops.sum(ops.exp(shifted), axis, keepdims=True))


def cross_entropy(logits, labels, reduction="mean"):
    """Mean over the leading dimensions of logsumexp(logits) minus the
    label's logit; `logits` [..., V] float, `labels` [...] i32. With
    `reduction="none"`, the per-position losses."""
    shifted = logits - ops.max(logits, -1, keepdims=True)
    lse = ops.log(ops.sum(ops.exp(shifted), -1))
    target = ops.one_hot(labels, logits.shape[-1], logits.dtype)
    picked = ops.sum(shifted * target, -1)
    loss = lse - picked
    if reduction == "none":
        return loss
    if reduction == "sum":
        return ops.sum(loss)
    return ops.mean(loss)


def rms_norm(x, eps=1e-5, weight=None, axis=-1):
    """x / sqrt(mean(x^2) + eps) along `axis`, times `weight` if given."""
    ms = ops.mean(ops.square(x), axis, keepdims=True)
    y = x * ops.rsqrt(ms + eps)
    return y if weight is None else y * weight


def layer_norm(x, eps=1e-5, weight=None, bias=None, axis=-1):
    """(x - mean) / sqrt(var + eps), then weight and bias if given."""
    mu = ops.mean(x, axis, keepdims=True)
    c = x - mu
    var = ops.mean(ops.square(c), axis, keepdims=True)
    y = c * ops.rsqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def causal_mask(n, dtype="f32", neg=-1e9):
    """[n, n]: 0 where the key position s <= the query position t, `neg`
    elsewhere, from `weft.iota` (no input)."""
    pos = ops.iota(n, dtype)
    allowed = pos[:, None] >= pos[None, :]
    return (allowed - 1.0) * -neg


def dropout(x, rate, seed, offset=None):
    """Keeps an element where a uniform draw u > rate, scaled by
    1/(1-rate) (docs/generated/WeftOps.md, weft.random); give every site
    its own `seed`, and the training step as `offset` for new masks each
    step."""
    u = ops.random(x.shape, "uniform", seed, x.dtype, offset=offset)
    keep = ops.step(u - rate)
    return (x * keep) * (1.0 / (1.0 - rate))


# The modules (weft.nn.Linear, ...); imported last: modules.py uses the
# helpers above.
from .modules import (Attention, Embedding, FeedForward, LayerNorm,  # noqa
                      Linear, Module, ModuleList, Parameter,
                      PositionEmbedding, RMSNorm, SwiGLU, Transformer,
                      TransformerBlock, rotary)
