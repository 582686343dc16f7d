"""Python twins of examples/ops/random.mlir (dropout, normal noise, a
sharded uniform draw) and examples/ops/topk_sae.mlir (top_k along a split
letter, top_k with a payload of positions): weft-interp gives the same
checksums as the hand-written programs."""

import os
import subprocess

import weft
from weft import P


def interp(bin_dir, path, seed):
    out = subprocess.run([os.path.join(bin_dir, "weft-interp"), path,
                          "--seed", str(seed)], capture_output=True,
                         text=True, check=True).stdout
    assert out.count("result #") == 3, out
    return out


def same_as(bin_dir, root, program, hand, tmp_path):
    path = program.save(str(tmp_path / "py.mlir"))
    hand = os.path.join(root, "examples", "ops", hand)
    for seed in (0, 9):
        assert interp(bin_dir, path, seed) == interp(bin_dir, hand, seed)


def test_random(weft_bin, root, tmp_path):
    def random(x, w):
        dropped = weft.dropout(x, 0.25, seed=7)
        noisy = w + weft.random((16, 8), "normal", seed=11, dtype="f64")
        v = weft.random((16, 8), "uniform", seed=12345678901,
                        spec=P(None, "model"))
        return dropped, noisy, v.sum(1)

    program = weft.trace(
        random, weft.Mesh({"data": 2, "model": 2}),
        [weft.Input("x", (4, 8, 6), spec=P("data", "model")),
         weft.Input("w", (16, 8), "f64", spec=P(("data", "model")))],
        out_specs=[P("data", "model"), P(("data", "model")), None],
        out_names=["dropped", "noisy", "rowsum"])
    assert "weft.random normal seed 11 : tensor<16x8xf64>" in program.mlir
    same_as(weft_bin, root, program, "random.mlir", tmp_path)


def test_topk_sae(weft_bin, root, tmp_path):
    def topk_sae(x, w_enc, w_dec):
        pre = weft.einsum("bd,df->bf", x, w_enc)
        top = weft.top_k(pre, 4, axis=1)
        kth = top.min(1)
        z = weft.relu(pre * (pre >= kth[:, None]))
        recon = weft.einsum("bf,fd->bd", z, w_dec)
        return recon, weft.top_k_indices(pre, 4, axis=1), top

    program = weft.trace(
        topk_sae, weft.Mesh({"data": 2, "model": 4}),
        [weft.Input("x", (8, 32), spec=P("data")),
         weft.Input("w_enc", (32, 256), spec=P(None, "model")),
         weft.Input("w_dec", (256, 32), spec=P("model"))],
        out_specs=[P("data"), None, None])
    same_as(weft_bin, root, program, "topk_sae.mlir", tmp_path)


def test_top_k_errors():
    mesh = weft.Mesh({"model": 2})
    for k in (0, 9):
        try:
            weft.trace(lambda x: weft.top_k(x, k), mesh,
                       [weft.Input("x", (4, 8))])
        except weft.WeftError as e:
            assert "k must be an int in [1, 8]" in str(e)
        else:
            raise AssertionError("top_k k=%d accepted" % k)
