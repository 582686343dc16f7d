"""Mistakes are reported at the user's line: trace-time checks raise a
WeftError naming this file and the line of the offending call, and weftc's
diagnostics on a traced program name the Python file and line too."""

import inspect
import os

import pytest

import weft
from weft import P

MESH = weft.Mesh({"data": 2, "model": 2})
HERE = os.path.abspath(__file__)


def line_after():
    """The line after the caller's: where the failing call is written."""
    return inspect.currentframe().f_back.f_lineno + 1


def trace_error(fn, inputs):
    with pytest.raises(weft.WeftError) as info:
        weft.trace(fn, MESH, inputs)
    return info.value


def assert_at(err, line, words):
    assert os.path.abspath(err.location.file) == HERE
    assert err.location.line == line
    assert str(err).startswith("%s:%d:" % (err.location.file, line))
    for w in words:
        assert w in str(err), str(err)


def test_einsum_size_mismatch():
    def f(x, w):
        line[0] = line_after()
        return weft.einsum("btd,df->btf", x, w)
    line = [0]
    err = trace_error(f, [weft.Input("x", (4, 8, 16)),
                          weft.Input("w", (32, 64))])
    assert_at(err, line[0], ["letter 'd'", "16", "32"])


def test_einsum_rank_mismatch():
    def f(x):
        line[0] = line_after()
        return weft.einsum("bt->tb", x)
    line = [0]
    assert_at(trace_error(f, [weft.Input("x", (4, 8, 16))]), line[0],
              ["rank 3"])


def test_broadcast_mismatch_in_operator():
    def f(x, y):
        line[0] = line_after()
        return x * y
    line = [0]
    assert_at(trace_error(f, [weft.Input("x", (4, 8)),
                              weft.Input("y", (4,))]), line[0],
              ["do not broadcast"])


def test_shard_unknown_axis():
    def f(x):
        line[0] = line_after()
        return weft.shard(x, P("dta"))
    line = [0]
    assert_at(trace_error(f, [weft.Input("x", (4, 8))]), line[0],
              ["unknown mesh axis 'dta'", "data, model"])


def test_shard_axis_twice():
    def f(x):
        line[0] = line_after()
        return weft.shard(x, P("model", ("data", "model")))
    line = [0]
    assert_at(trace_error(f, [weft.Input("x", (4, 8))]), line[0],
              ["'model' splits dimensions 0 and 1"])


def test_spec_longer_than_rank():
    def f(x):
        line[0] = line_after()
        return weft.shard(x, P("data", None, "model"))
    line = [0]
    assert_at(trace_error(f, [weft.Input("x", (4, 8))]), line[0],
              ["3 entries", "rank 2"])


def test_input_spec_error_points_at_trace_call():
    with pytest.raises(weft.WeftError) as info:
        line = line_after()
        weft.trace(lambda x: x, MESH, [weft.Input("x", (4,), spec=P("z"))])
    assert_at(info.value, line, ["input 'x'", "unknown mesh axis 'z'"])


def test_error_inside_layer_names_layer_line():
    @weft.layer
    def block(x, w):
        line[0] = line_after()
        return weft.einsum("bd,df->bf", x, w) + x

    def f(x, w):
        return block(x, w)
    line = [0]
    assert_at(trace_error(f, [weft.Input("x", (4, 8)),
                              weft.Input("w", (8, 16))]), line[0],
              ["do not broadcast", "(4, 16) and (4, 8)"])


def test_uneven_split_is_allowed_at_trace_time():
    # weft pads a dimension its axes do not divide (docs/design.md), so the
    # front end does not refuse it.
    prog = weft.trace(lambda x: weft.shard(weft.relu(x), P(None, "model")),
                      MESH, [weft.Input("x", (4, 3))])
    assert '{"model"}' in prog.mlir


def test_weftc_error_names_python_line(weft_bin, tmp_path):
    def f(x):
        line[0] = line_after()
        return weft.concat([x, x], 1)
    line = [0]
    # Dimension 1 (3) is split over model (2): weft would pad it, which a
    # concat along it cannot have; weftc refuses it, at our line.
    program = weft.trace(f, MESH, [weft.Input("x", (4, 3),
                                              spec=P(None, "model"))])
    with pytest.raises(weft.WeftcError) as info:
        program.compile(str(tmp_path / "out.mlir"), emit="local",
                        weftc=weft_bin)
    message = str(info.value)
    assert "%s:%d:" % (HERE, line[0]) in message, message
    assert "weft.concat" in message
    assert "return weft.concat([x, x], 1)" in message
