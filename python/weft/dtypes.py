"""Element types: weft's names and the spellings accepted for them."""

from .errors import WeftError

FLOATS = ("f32", "f64", "f16", "bf16")
INTS = ("i32",)

_ALIASES = {
    "f32": "f32", "float32": "f32", "float": "f32",
    "f64": "f64", "float64": "f64", "double": "f64",
    "f16": "f16", "float16": "f16", "half": "f16",
    "bf16": "bf16", "bfloat16": "bf16",
    "i32": "i32", "int32": "i32", "int": "i32",
}


def normalize(dtype):
    """'f32', 'float32', numpy.float32 or numpy.dtype('float32') -> 'f32'."""
    if dtype is None:
        return "f32"
    key = getattr(dtype, "__name__", None) or str(getattr(dtype, "name",
                                                          dtype))
    if key in _ALIASES:
        return _ALIASES[key]
    raise WeftError("unknown element type %r; weft has %s" %
                    (dtype, ", ".join(FLOATS + INTS)))


def is_float(dtype):
    return dtype in FLOATS
