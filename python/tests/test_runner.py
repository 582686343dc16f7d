"""Running and training from Python (weft.Executable): outputs come back as
numpy arrays, and the loss curve and final parameters of a data-parallel
least-squares model trained with SGD on 2 ranks equal an independent numpy
computation of the same steps."""

import io
import shutil

import numpy as np
import pytest

import weft
from weft import P

MESH = weft.Mesh({"data": 2})


def least_squares(x, t, w):
    e = weft.einsum("bd,df->bf", x, w) - t
    return (e * e).sum()


INPUTS = [weft.Input("x", (8, 4), spec=P("data")),
          weft.Input("t", (8, 3), spec=P("data")),
          weft.Param("w", (4, 3))]


def data():
    r = np.random.default_rng(0)
    x = r.standard_normal((3, 8, 4)).astype(np.float32)
    t = r.standard_normal((8, 3)).astype(np.float32)
    w = r.standard_normal((4, 3)).astype(np.float32) * 0.1
    return x, t, w


@pytest.fixture(scope="module")
def mpirun():
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun not found")


@pytest.fixture(scope="module")
def trainer(weft_bin, tmp_path_factory, mpirun):
    """The SGD training executable, compiled once for the tests below."""
    program = weft.trace(least_squares, MESH, INPUTS, out_names=["l"])
    out = tmp_path_factory.mktemp("train") / "ls"
    return program.build(str(out), train="sgd", lr=0.01, weftc=weft_bin)


def test_run_returns_outputs(weft_bin, tmp_path, mpirun):
    x, t, w = data()
    program = weft.trace(least_squares, MESH, INPUTS, out_names=["l"])
    exe = program.build(str(tmp_path / "ls"), weftc=weft_bin)
    assert exe.ranks == 2
    out = exe.run({"x": x[0], "t": t, "w": w})
    assert list(out) == ["l"]
    want = np.sum((x[0].astype(np.float64) @ w - t) ** 2)
    np.testing.assert_allclose(out["l"], want, rtol=1e-5)


def test_train_matches_numpy_sgd(trainer):
    x, t, w = data()
    exe = trainer
    bar = io.StringIO()
    result = exe.train(4, inputs={"x": x, "t": t, "w": w}, lr=0.01,
                       outputs=True, file=bar)
    # numpy: step T reads batch (T-1) mod 3; loss before the update.
    wn, losses = w.astype(np.float64), []
    for step in range(4):
        xb = x[step % 3].astype(np.float64)
        e = xb @ wn - t
        losses.append(np.sum(e ** 2))
        wn = wn - 0.01 * 2 * xb.T @ e
    assert result.steps == [1, 2, 3, 4]
    np.testing.assert_allclose(result.losses, losses, rtol=1e-5)
    updated = [v for k, v in result.outputs.items() if k != "l"]
    assert len(updated) == 1, list(result.outputs)
    np.testing.assert_allclose(updated[0], wn, rtol=1e-4, atol=1e-6)
    text = bar.getvalue()
    assert "step 4/4 [" + "#" * 24 + "] loss" in text, text
    assert "4 step(s) in" in text, text


def test_failed_run_raises_with_diagnostics(trainer):
    exe = trainer
    bad = np.zeros((8, 5), np.float32)
    with pytest.raises(weft.WeftcError) as info:
        exe.train(2, inputs={"x": bad, "t": bad[:, :3], "w": bad[:4, :3]},
                  progress=False)
    assert "input 'x'" in str(info.value), str(info.value)


def test_loss_curve_plot(tmp_path):
    import xml.etree.ElementTree as ET
    result = weft.TrainResult([1, 2, 3], [4.0, 2.0, 1.0], None, "")
    path = result.plot(str(tmp_path / "loss.svg"), title="a & b")
    root = ET.parse(path).getroot()
    line = root.find("{http://www.w3.org/2000/svg}polyline")
    points = [tuple(map(float, p.split(",")))
              for p in line.get("points").split()]
    # 640x360 with a 48 px margin: steps 1..3 across, losses 4..1 downward.
    assert points == [(48.0, 48.0), (320.0, 224.0), (592.0, 312.0)]
    assert root.find("{http://www.w3.org/2000/svg}text").text == "a & b"
    with pytest.raises(ValueError):
        weft.TrainResult([], [], None, "").plot(str(tmp_path / "e.svg"))
