"""weft: a Python front end for the weft SPMD compiler.

Trace ordinary Python functions over symbolic tensors into weft's MLIR
dialect, with shardings written in JAX/PyTorch vocabulary (Mesh,
PartitionSpec), layers as functions, and weftc to compile. See
docs/python.md.
"""

from .errors import Location, WeftError, WeftcError
from .mesh import Mesh, PartitionSpec, P, Sharding
from .tensor import Tensor
from .trace import Input, Param, Program, function, trace
from .layer import layer, Layer, stage
from .ops import (abs, add, broadcast_to, concat, constant, convert, cos,
                 cumsum, div, scatter_add,
                 einsum,
                 embed, equal, exp, gelu, getitem, greater, greater_equal,
                 iota, less, less_equal, log, map_op, matmul, max, maximum,
                 mean, min, minimum, mul, neg, not_equal, one_hot, power,
                 random, reduce_op, relu, reshape, rsqrt, scale, shard, shift,
                 sigmoid, sign, silu, sin, slice, sqrt, square, step,
                 stop_gradient, sub, sum,
                 tanh, top_k, top_k_indices)
from .nn import (causal_mask, cross_entropy, dropout, layer_norm, log_softmax,
                 rms_norm, softmax)
from . import parallel
from .parallel import parallelize_module
from .visualize import sharding_svg, visualize_sharding
from .compiler import compile, find_tool, interpret, run_tool, show_sharding
from .runner import Executable, TrainResult
from .explain import explain

__version__ = "0.1.0"
