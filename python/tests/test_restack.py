"""weft.restack: per-layer <-> stacked names of weftc --pipeline-stages
(docs/pipeline.md, "Stages from layer calls"), checked with numpy alone."""

import json
import os
import zlib

import numpy as np
import pytest

from weft import restack


def _write(d, arrays):
    os.makedirs(d)
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a)


def _read(d):
    return {f[:-4]: np.load(os.path.join(d, f))
            for f in os.listdir(d) if f.endswith(".npy")}


def _layers(k=4):
    rng = np.random.default_rng(0)
    arrays = {"W_%d" % i: rng.standard_normal((3, 2)).astype(np.float32)
              for i in range(k)}
    arrays.update({"m_W_%d" % i: rng.standard_normal((3, 2)).astype(
        np.float32) for i in range(k)})
    arrays["E"] = rng.standard_normal((5, 3)).astype(np.float32)
    return arrays


def test_stack_layout(tmp_path):
    src, dst = str(tmp_path / "src"), str(tmp_path / "dst")
    arrays = _layers()
    _write(src, arrays)
    assert restack.main([src, dst, "--layers", "4", "--stages", "2"]) == 0
    out = _read(dst)
    assert sorted(out) == ["E", "W_0.stages", "W_1.stages", "m_W_0.stages",
                           "m_W_1.stages"]
    # Stage s's k-th layer is layer s*K/N + k.
    np.testing.assert_array_equal(out["W_0.stages"][1], arrays["W_2"])
    np.testing.assert_array_equal(out["W_1.stages"][0], arrays["W_1"])
    np.testing.assert_array_equal(out["m_W_1.stages"][1], arrays["m_W_3"])


def test_round_trip_through_other_stage_counts(tmp_path):
    arrays = _layers(8)
    _write(str(tmp_path / "a"), arrays)
    restack.restack(str(tmp_path / "a"), str(tmp_path / "b"), 8, 2)
    restack.restack(str(tmp_path / "b"), str(tmp_path / "c"), 8, 4)
    assert _read(str(tmp_path / "c"))["W_1.stages"].shape == (4, 3, 2)
    restack.restack(str(tmp_path / "c"), str(tmp_path / "d"), 8, 0)
    back = _read(str(tmp_path / "d"))
    assert sorted(back) == sorted(arrays)
    for name in arrays:
        np.testing.assert_array_equal(back[name], arrays[name])


def test_checkpoint_manifest(tmp_path):
    src = str(tmp_path / "step-00000002")
    arrays = _layers()
    arrays["step"] = np.array(2, dtype=np.int32)
    _write(src, arrays)
    tensors = []
    for name in arrays:
        data = open(os.path.join(src, name + ".npy"), "rb").read()
        tensors.append({"name": name, "file": name + ".npy",
                        "role": "state" if name.startswith("m_") else
                        "parameter", "dtype": "f32", "shape": [],
                        "bytes": len(data), "crc32": zlib.crc32(data)})
    with open(os.path.join(src, "manifest.json"), "w") as f:
        json.dump({"format": "weft-checkpoint", "version": 1, "step": 2,
                   "program": "p", "tensors": tensors}, f)
    dst = str(tmp_path / "out")
    restack.restack(src, dst, 4, 2)
    with open(os.path.join(dst, "manifest.json")) as f:
        m = json.load(f)
    assert m["step"] == 2 and m["program"] == "p"
    by = {t["name"]: t for t in m["tensors"]}
    assert sorted(by) == sorted(_read(dst))
    for name, t in by.items():
        data = open(os.path.join(dst, t["file"]), "rb").read()
        assert t["bytes"] == len(data) and t["crc32"] == zlib.crc32(data)
        assert t["shape"] == list(np.load(os.path.join(dst, t["file"])).shape)
    assert by["W_0.stages"]["role"] == "parameter"
    assert by["m_W_1.stages"]["role"] == "state"
    assert by["W_0.stages"]["dtype"] == "f32"


def test_errors_leave_no_output(tmp_path, capsys):
    src, dst = str(tmp_path / "src"), str(tmp_path / "dst")
    _write(src, _layers())
    assert restack.main([src, dst, "--layers", "4", "--stages", "3"]) == 1
    assert "4 layers do not divide into 3 stages" in capsys.readouterr().err
    assert not os.path.exists(dst)
    assert [f for f in os.listdir(str(tmp_path)) if f.startswith(".restack")] == []
    os.makedirs(dst)
    assert restack.main([src, dst, "--layers", "4", "--stages", "2"]) == 1
    assert "exists" in capsys.readouterr().err
    # The source is never changed.
    assert sorted(_read(src)) == sorted(_layers())
    # A stacking that does not hold K layers.
    s2 = str(tmp_path / "s2")
    restack.restack(src, s2, 4, 2)
    assert restack.main([s2, str(tmp_path / "x"), "--layers", "6",
                         "--stages", "0"]) == 1
    assert "do not hold 6 layers" in capsys.readouterr().err


def test_destination_in_a_new_run_directory(tmp_path):
    # A checkpoint's step directory restacked into a run directory that
    # does not exist yet: made, and the step written whole.
    src = str(tmp_path / "src")
    _write(src, _layers())
    dst = str(tmp_path / "run" / "step-00000002")
    assert restack.main([src, dst, "--layers", "4", "--stages", "4"]) == 0
    assert _read(dst)["W_0.stages"].shape == (4, 3, 2)
    assert os.listdir(str(tmp_path / "run")) == ["step-00000002"]
