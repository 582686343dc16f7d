"""The Python versions of P1 and T2 against their hand-written twins: the
interpreter's checksums (inputs drawn by argument index, so the argument
order is the hand-written one) and P1's communication report."""

import os
import re
import subprocess

import pytest

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


def _report_rows(text):
    """The comm report without its reason column (which names source lines
    and letters): kind, axes, shapes and bytes of each collective, and the
    totals."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"(\S+)\s+(\{[^}]*\})\s+(\S+)\s+(\S+)\s+(\d+)\s", line)
        if m:
            rows.append(m.groups())
        elif line.startswith("total"):
            rows.append((line,))
    return rows


def _t1_train_report(bin_dir, path, tmp_path):
    return _report_rows(subprocess.run(
        [os.path.join(bin_dir, "weftc"), path, "--train=adamw", "--lr",
         "1e-3", "--emit=local", "--comm-report", "-o",
         str(tmp_path / "local.mlir")],
        capture_output=True, text=True, check=True).stdout)


def test_t1_comm_report_matches_hand_written(weft_bin, root, tmp_path):
    # The training step's collectives (gradients, AdamW) are the same, kind
    # by kind and byte by byte, as the hand-written t1_sae.mlir's.
    import t1_sae
    path = t1_sae.build().save(str(tmp_path / "t1.mlir"))
    hand = os.path.join(root, "examples", "training", "t1_sae.mlir")
    ours = _t1_train_report(weft_bin, path, tmp_path)
    assert len(ours) >= 5 and any(r[0] == "all_reduce(sum)" for r in ours)
    assert ours == _t1_train_report(weft_bin, hand, tmp_path)


def test_t1_loss_matches_numpy(weft_bin, tmp_path):
    # The same function at small sizes against numpy's formula.
    import numpy as np
    import t1_sae
    from test_ops import evaluate
    b, d, h = 8, 4, 6
    r = np.random.default_rng(3)
    arrays = [r.standard_normal(s).astype(np.float32)
              for s in ((b, d), (d, h), (h,), (h, d), (d,))]
    got = evaluate(weft_bin, t1_sae.build(b, d, h), arrays, tmp_path)
    x, we, be, wd, bd = [a.astype(np.float64) for a in arrays]
    f = np.maximum(x @ we + be, 0)
    want = np.mean((f @ wd + bd - x) ** 2) + 1e-3 * np.mean(np.abs(f))
    np.testing.assert_allclose(got[0], [want], rtol=1e-6)


@pytest.mark.slow
def test_t1_checksums_match_hand_written(weft_bin, root, tmp_path):
    # weft-interp evaluates T1's 2048x2048 einsums in f64: ~12 s a run.
    import t1_sae
    path = t1_sae.build().save(str(tmp_path / "t1.mlir"))
    hand = os.path.join(root, "examples", "training", "t1_sae.mlir")
    assert interp(weft_bin, path, 2) == interp(weft_bin, hand, 2)


def test_llama_checksums_match_hand_written(weft_bin, root, tmp_path):
    import llama_lm
    path = llama_lm.build().save(str(tmp_path / "llama.mlir"))
    hand = os.path.join(root, "examples", "training", "llama_lm.mlir")
    for seed in (0, 5):
        assert interp(weft_bin, path, seed) == interp(weft_bin, hand, seed)
    # The layer is one function called twice, as in the hand-written file.
    text = open(path).read()
    assert text.count("func.func private @layer") == 1
    assert text.count("func.call @layer(") == 2


def _greedy_step_report(weft_bin, path, tmp_path):
    """The comm report rows of PATH's AdamW training step (lr 3e-3), compiled
    with greedy propagation. Gradient buckets across layers
    (--combine-per-call=false): the traced programs call their layer
    functions, the hand-written ones are flat, and by default a bucket holds
    one call's gradients (docs/calls.md, "Buckets per call")."""
    return _report_rows(subprocess.run(
        [os.path.join(weft_bin, "weftc"), path, "--train=adamw", "--lr",
         "3e-3", "--search=greedy", "--combine-per-call=false",
         "--emit=local", "--comm-report", "-o",
         str(tmp_path / "local.mlir")],
        capture_output=True, text=True, check=True).stdout)


def test_llama_comm_report_matches_hand_written(weft_bin, root, tmp_path):
    # Both programs compiled the same deterministic way: with the default
    # search each compile takes ~10 s of CPU (the training step's search);
    # greedy propagation takes 0.03 s and sees the same annotations and ops
    # (test/training/llama-lm-comm.test checks the default plan's bytes).
    import llama_lm
    path = llama_lm.build().save(str(tmp_path / "llama.mlir"))
    hand = os.path.join(root, "examples", "training", "llama_lm.mlir")

    ours = _greedy_step_report(weft_bin, path, tmp_path)
    assert any(r[0] == "reduce_scatter(sum)" for r in ours)
    assert ours == _greedy_step_report(weft_bin, hand, tmp_path)


def test_t2_comm_report_matches_hand_written(weft_bin, root, tmp_path):
    # The training step's collectives equal the hand-written t2_lm.mlir's
    # (greedy propagation, as the Llama test above, for the same reason).
    path = t2_lm.build().save(str(tmp_path / "t2.mlir"))
    hand = os.path.join(root, "examples", "training", "t2_lm.mlir")

    ours = _greedy_step_report(weft_bin, path, tmp_path)
    assert len(ours) > 10
    assert ours == _greedy_step_report(weft_bin, hand, tmp_path)
