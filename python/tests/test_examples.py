"""The Python versions of P1 and T2 against their hand-written twins: the
interpreter's checksums (inputs drawn by argument index, so the argument
order is the hand-written one) and P1's communication report."""

import os
import re
import subprocess

import weft
from weft import P

import mlp
import t2_lm


def interp(bin_dir, path, seed):
    out = subprocess.run([os.path.join(bin_dir, "weft-interp"), path,
                          "--seed", str(seed)], capture_output=True,
                         text=True, check=True).stdout
    assert "result #0" in out
    return out


def comm_report(bin_dir, path, tmp_path):
    return subprocess.run(
        [os.path.join(bin_dir, "weftc"), path, "--emit=local",
         "--comm-report", "-o", str(tmp_path / "local.mlir")],
        capture_output=True, text=True, check=True).stdout


def test_p1_checksums_match_hand_written(weft_bin, root, tmp_path):
    path = mlp.build().save(str(tmp_path / "mlp.mlir"))
    hand = os.path.join(root, "examples", "canonical", "p1.mlir")
    for seed in (0, 7):
        assert interp(weft_bin, path, seed) == interp(weft_bin, hand, seed)


def test_p1_comm_report_matches_hand_written(weft_bin, root, tmp_path):
    path = mlp.build().save(str(tmp_path / "mlp.mlir"))
    hand = os.path.join(root, "examples", "canonical", "p1.mlir")
    ours = comm_report(weft_bin, path, tmp_path)
    assert "all_reduce(sum)" in ours
    assert ours == comm_report(weft_bin, hand, tmp_path)


def test_p3_same_function_on_a_2d_mesh(weft_bin, root, tmp_path):
    # P3 is P1's function with x and y split b on data, mesh data=2,
    # model=4: only the specs change.
    program = weft.trace(mlp.mlp, weft.Mesh({"data": 2, "model": 4}), [
        weft.Input("x", (4, 64, 256), spec=P("data", None, None)),
        weft.Param("w1", (256, 1024), spec=P(None, "model")),
        weft.Param("w2", (1024, 256), spec=P("model", None)),
    ], out_specs=P("data", None, None))
    path = program.save(str(tmp_path / "p3.mlir"))
    hand = os.path.join(root, "examples", "canonical", "p3.mlir")
    assert interp(weft_bin, path, 1) == interp(weft_bin, hand, 1)
    ours = comm_report(weft_bin, path, tmp_path)
    assert 'all_reduce(sum)      {"model"}' in ours
    assert ours == comm_report(weft_bin, hand, tmp_path)


def test_t2_with_layer_checksums_match_hand_written(weft_bin, root,
                                                    tmp_path):
    program = t2_lm.build()
    text = program.mlir
    # The layer is traced once and called once per layer.
    assert text.count("func.func private @layer(") == 1
    assert len(re.findall(r"func\.call @layer\(", text)) == t2_lm.LAYERS
    path = program.save(str(tmp_path / "t2.mlir"))
    hand = os.path.join(root, "examples", "training", "t2_lm.mlir")
    assert interp(weft_bin, path, 3) == interp(weft_bin, hand, 3)


def test_interpret_helper(weft_bin):
    out = weft.interpret(mlp.build(), seed=0, tool=weft_bin)
    assert out.startswith("result #0: tensor<4x64x256xf32> sum ")
