"""The front end's vocabulary: meshes, partition specs, inputs, the
decorator form, tool lookup."""

import pytest

import weft
from weft import P


def test_mesh_forms_agree():
    a = weft.Mesh({"data": 2, "model": 4})
    b = weft.Mesh((2, 4), ("data", "model"))
    assert a == b and a.devices == 8
    assert a.mlir() == 'weft.mesh @mesh ["data" = 2, "model" = 4]'
    assert a.coords(5) == {"data": 1, "model": 1}


@pytest.mark.parametrize("args, words", [
    (({"data": 2, "data2": 0},), "size of axis 'data2'"),
    (((2, 2), ("a",)), "2 sizes for 1 axis names"),
    (((2, 2), ("a", "a")), "axis 'a' named twice"),
    (({},), "at least one axis"),
])
def test_bad_meshes(args, words):
    with pytest.raises(weft.WeftError, match=words):
        weft.Mesh(*args)


def test_specs_in_the_peers_words():
    mesh = weft.Mesh({"data": 2, "model": 2})

    @weft.function(mesh, [weft.Input("x", (4, 6, 8),
                                     spec=(("data", "model"), None)),
                          weft.Param("b", (8,), spec=P())],
                   out_specs=P(None, "model"), out_names="y")
    def f(x, b):
        return x + b

    text = f.mlir
    assert ('%x: tensor<4x6x8xf32, #weft.sharding<@mesh, '
            '[{"data", "model"}, {}, {}]>> {weft.name = "x"}') in text
    assert ('%b: tensor<8xf32, #weft.sharding<@mesh, [{}]>> '
            '{weft.param, weft.name = "b"}') in text
    # The result spec is written on the op producing the result.
    assert ('weft.map add "abc,c->abc" (%x, %b) : (tensor<4x6x8xf32, '
            '#weft.sharding<@mesh, [{"data", "model"}, {}, {}]>>, '
            'tensor<8xf32, #weft.sharding<@mesh, [{}]>>) -> '
            'tensor<4x6x8xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>'
            ) in text
    assert '{weft.name = "y"}' in text


def test_returning_an_argument_with_a_spec_adds_a_shard():
    mesh = weft.Mesh({"model": 2})
    text = weft.trace(lambda x: x, mesh, [weft.Input("x", (4,))],
                      out_specs=P("model")).mlir
    assert "weft.shard %x : tensor<4xf32> -> tensor<4xf32, " in text


def test_scalar_float_literals_round_trip():
    mesh = weft.Mesh({"model": 2})
    text = weft.trace(lambda x: (x * 1e-5 + 1e20) / 3.0, mesh,
                      [weft.Input("x", (4,))]).mlir
    assert "{scalar = 1.0e-05 : f64}" in text
    assert "{scalar = 1.0e+20 : f64}" in text
    assert "{scalar = %r : f64}" % (1 / 3.0) in text


def test_tool_lookup(monkeypatch, tmp_path):
    monkeypatch.setenv("WEFT_BIN", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="WEFT_BIN"):
        weft.find_tool("weftc")
    tool = tmp_path / "weftc"
    tool.write_text("#!/bin/sh\necho 'x.py:3:1: error: nope' >&2\nexit 1\n")
    tool.chmod(0o755)
    assert weft.find_tool("weftc") == str(tool)
    program = weft.trace(lambda x: weft.relu(x), weft.Mesh({"m": 1}),
                         [weft.Input("x", (2,))])
    with pytest.raises(weft.WeftcError, match="x.py:3:1: error: nope"):
        program.compile(str(tmp_path / "out"))


def test_op_outside_a_trace():
    with pytest.raises(weft.WeftError, match="outside weft.trace"):
        weft.iota(4)
