"""Traced ops evaluated by weft-interp on given inputs against numpy: the
operators, broadcasting, scalars, reductions and the nn helpers mean what
numpy means."""

import os
import subprocess

import numpy as np

import weft
from weft import P

MESH = weft.Mesh({"data": 2, "model": 2})


def evaluate(bin_dir, program, arrays, tmp_path):
    path = program.save(str(tmp_path / "prog.mlir"))
    args = [os.path.join(bin_dir, "weft-interp"), path, "--print-values"]
    for i, a in enumerate(arrays):
        f = str(tmp_path / ("in%d.npy" % i))
        np.save(f, a)
        args += ["--input", "%d=%s" % (i, f)]
    out = subprocess.run(args, capture_output=True, text=True,
                         check=True).stdout
    values = [np.array([float(v) for v in line.split()[1:]])
              for line in out.splitlines()
              if line.strip().startswith("values:")]
    assert values, out
    return values


def check(bin_dir, tmp_path, fn, inputs, arrays, reference):
    program = weft.trace(fn, MESH, inputs)
    got = evaluate(bin_dir, program, arrays, tmp_path)
    want = reference(*[a.astype(np.float64) if a.dtype.kind == "f" else a
                       for a in arrays])
    if not isinstance(want, tuple):
        want = (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.ravel(w), rtol=1e-9, atol=1e-9)


def test_operators_and_broadcasting(weft_bin, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    y = rng.uniform(1, 2, (4,)).astype(np.float32)

    def f(x, y):
        a = (x * 2.0 + 1) / y - x.max(-1)[:, :, None]
        b = (x > 0.25) + (x <= y) * 3.0 - (2.0 - x) + 1 / (y ** 2)
        c = weft.maximum(x, 0.1) * weft.minimum(x, y) + (-x) ** 2
        return a, b, c, x.sum((0, 2)), x.mean(-1, keepdims=True) * x

    check(weft_bin, tmp_path, f,
          [weft.Input("x", (2, 3, 4), spec=P("data")),
           weft.Input("y", (4,))], [x, y],
          lambda x, y: ((x * 2.0 + 1) / y - x.max(-1)[:, :, None],
                        (x > 0.25) + (x <= y) * 3.0 - (2.0 - x) + 1 / y ** 2,
                        np.maximum(x, 0.1) * np.minimum(x, y) + x ** 2,
                        x.sum((0, 2)), x.mean(-1, keepdims=True) * x))


def test_nn_helpers(weft_bin, tmp_path):
    rng = np.random.default_rng(1)
    z = rng.uniform(-2, 2, (2, 3, 5)).astype(np.float32)
    labels = np.array([[0, 4, 2], [1, 1, 3]], dtype=np.int32)

    def f(z, labels):
        return (weft.softmax(z), weft.log_softmax(z, axis=1),
                weft.cross_entropy(z, labels), weft.rms_norm(z),
                weft.layer_norm(z), weft.causal_mask(3))

    def ref(z, labels):
        def softmax(v, axis):
            e = np.exp(v - v.max(axis, keepdims=True))
            return e / e.sum(axis, keepdims=True)
        lsm = np.log(softmax(z, -1))
        ce = -np.take_along_axis(lsm, labels[..., None], -1).mean()
        rms = z / np.sqrt((z ** 2).mean(-1, keepdims=True) + 1e-5)
        c = z - z.mean(-1, keepdims=True)
        ln = c / np.sqrt((c ** 2).mean(-1, keepdims=True) + 1e-5)
        mask = np.where(np.arange(3)[None, :] <= np.arange(3)[:, None],
                        0.0, -1e9)
        return (softmax(z, -1), np.log(softmax(z, 1)), ce, rms, ln, mask)

    check(weft_bin, tmp_path, f,
          [weft.Input("z", (2, 3, 5)), weft.Input("labels", (2, 3), "i32")],
          [z, labels], ref)


def test_layout_ops(weft_bin, tmp_path):
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (2, 6)).astype(np.float32)
    table = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    ids = np.array([[4, 0], [2, 2]], dtype=np.int32)

    def f(x, table, ids):
        r = weft.reshape(x, "b(hk)->bhk", h=2)
        return (r, x[:, 1:4], weft.concat([x, x[:, :2]], 1),
                weft.embed(ids, table), weft.einsum("bhk->kb", r),
                x @ weft.einsum("ab->ba", x))

    check(weft_bin, tmp_path, f,
          [weft.Input("x", (2, 6)), weft.Input("table", (5, 3)),
           weft.Input("ids", (2, 2), "i32")], [x, table, ids],
          lambda x, t, i: (x.reshape(2, 2, 3), x[:, 1:4],
                           np.concatenate([x, x[:, :2]], 1), t[i],
                           x.reshape(2, 2, 3).sum(1).T, x @ x.T))


def _round_bf16(a):
    """f32 -> bf16 -> f32 in numpy: round the f32 bits to their upper 16,
    to nearest, ties to even (finite inputs)."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def test_convert(weft_bin, tmp_path):
    rng = np.random.default_rng(1)
    x = rng.uniform(-3, 3, (4, 8)).astype(np.float32)
    # Ties (bf16 keeps 7 fraction bits: its ulp at 1 is 2^-7): 1 + 2^-8
    # rounds down to 1 (even), 1 + 3 * 2^-8 up to 1 + 2^-6 (even).
    x[0, :3] = [1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8)]

    def f(x):
        b = weft.convert(x, "bfloat16")
        h = x.astype(np.float16)
        return b.astype("f32"), h.astype("f32"), x.astype("f32")

    program = weft.trace(f, MESH, [weft.Input("x", (4, 8), spec=P("data"))])
    text = program.mlir
    assert "weft.convert %x : tensor<4x8xf32, #weft.sharding" in text
    assert "-> tensor<4x8xbf16>" in text and "-> tensor<4x8xf16>" in text
    # A convert to the operand's own type is the operand: no op.
    assert text.count("weft.convert") == 4
    got = evaluate(weft_bin, program, [x], tmp_path)
    # weft-interp prints 12 significant digits: rtol 1e-11 is far below one
    # bf16 (2^-8) or f16 (2^-11) rounding step, so a wrong rounding fails.
    np.testing.assert_allclose(got[0], np.ravel(_round_bf16(x)), rtol=1e-11)
    np.testing.assert_allclose(
        got[1], np.ravel(x.astype(np.float16).astype(np.float32)),
        rtol=1e-11)
    np.testing.assert_allclose(got[2], np.ravel(x), rtol=1e-11)
    assert got[0][0] == 1.0 and got[0][1] == 1 + 2 ** -6


def test_convert_errors():
    def to_int(x):
        return weft.convert(x, "i32")

    def unknown(x):
        return x.astype("f8")

    for fn, message in ((to_int, "converts between float types"),
                        (unknown, "unknown element type 'f8'")):
        try:
            weft.trace(fn, MESH, [weft.Input("x", (4, 8))])
        except weft.WeftError as e:
            assert message in str(e), str(e)
            assert "test_ops.py" in str(e), str(e)
        else:
            raise AssertionError("no error for %s" % fn.__name__)


def test_cumsum_and_scatter_add(weft_bin, tmp_path):
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    ids = np.array([[1, 4, 1], [0, 4, 2]], np.int32)
    up = rng.uniform(-1, 1, (2, 3, 5)).astype(np.float32)

    def f(x, ids, up):
        return (weft.cumsum(x, axis=1), weft.cumsum(x, 0, exclusive=True),
                weft.cumsum(x, -1, reverse=True),
                weft.scatter_add(ids, up, 6))

    def reference(x, ids, up):
        table = np.zeros((6, 5))
        np.add.at(table, ids.reshape(-1), up.reshape(-1, 5))
        excl = np.cumsum(x, 0) - x
        return (np.cumsum(x, 1), excl, np.cumsum(x[:, ::-1], 1)[:, ::-1],
                table)

    check(weft_bin, tmp_path, f,
          [weft.Input("x", (4, 6), spec=P("data", "model")),
           weft.Input("ids", (2, 3), "i32"),
           weft.Input("up", (2, 3, 5), spec=P("data"))],
          [x, ids, up], reference)


def test_cumsum_and_scatter_add_errors():
    cases = (
        (lambda x, ids: weft.cumsum(x, axis=2),
         "axis 2 is out of range for a rank-2 tensor"),
        (lambda x, ids: weft.scatter_add(x, x, 6),
         "scatter_add: ids must be i32"),
        (lambda x, ids: weft.scatter_add(ids, x, 6),
         "the default spec needs updates"),
        (lambda x, ids: weft.scatter_add(ids, x[:2, :3], 0),
         "num_rows must be an int >= 1"),
    )
    for fn, message in cases:
        try:
            weft.trace(fn, MESH, [weft.Input("x", (4, 6)),
                                  weft.Input("ids", (2, 3), "i32")])
        except weft.WeftError as e:
            assert message in str(e), str(e)
            assert "test_ops.py" in str(e), str(e)
        else:
            raise AssertionError("no error: %s" % message)
