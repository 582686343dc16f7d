"""Layers: traced once per signature (operand types, sharding included,
and static arguments), emitted as func.func private, used by func.call;
the layered program evaluates like its flat twin."""

import contextlib
import os
import re
import subprocess

import pytest

import weft
from weft import P

MESH = weft.Mesh({"data": 2, "model": 2})


@weft.layer
def block(x, w, act="relu"):
    h = weft.einsum("bd,df->bf", x, w)
    return x + (weft.relu(h) if act == "relu" else weft.gelu(h))


@weft.layer
def split(x):
    return weft.relu(x), weft.neg(x)


def model(x, w0, w1, w2):
    x = block(x, w0)
    x = block(x, w1)                    # same signature: same function
    x = block(x, w2, act="gelu")        # static argument: another trace
    y = weft.shard(x, P("data"))
    y = block(y, w0)                    # sharded operand: another trace
    a, b = split(y)
    return a * b


def flat(x, w0, w1, w2):
    def blk(x, w, act="relu"):
        h = weft.einsum("bd,df->bf", x, w)
        return x + (weft.relu(h) if act == "relu" else weft.gelu(h))
    x = blk(blk(x, w0), w1)
    x = blk(x, w2, act="gelu")
    y = blk(weft.shard(x, P("data")), w0)
    return weft.relu(y) * weft.neg(y)


INPUTS = [weft.Input("x", (4, 8)),
          weft.Param("w0", (8, 8), spec=P(None, "model")),
          weft.Param("w1", (8, 8), spec=P(None, "model")),
          weft.Param("w2", (8, 8), spec=P(None, "model"))]


def test_one_function_per_signature():
    text = weft.trace(model, MESH, INPUTS).mlir
    privates = re.findall(r"func\.func private @(\w+)\(", text)
    assert privates == ["block", "block_2", "block_3", "split"]
    calls = re.findall(r"func\.call @(\w+)\(", text)
    assert calls == ["block", "block", "block_2", "block_3", "split"]
    # The sharded operand's encoding is in block_3's argument type.
    start = text.index("@block_3(")
    sig = text[start:text.index("%w:", start)]
    assert '#weft.sharding<@mesh, [{"data"}, {}]>' in sig
    assert re.search(r"%x\d+:2 = func\.call @split", text)


def test_layers_evaluate_like_flat(weft_bin, tmp_path):
    def run(fn, name):
        path = weft.trace(fn, MESH, INPUTS).save(str(tmp_path / name))
        return subprocess.run(
            [os.path.join(weft_bin, "weft-interp"), path, "--seed", "4"],
            capture_output=True, text=True, check=True).stdout
    layered = run(model, "layered.mlir")
    assert "result #0: tensor<4x8xf32>" in layered
    assert layered == run(flat, "flat.mlir")


def test_call_result_sharded_by_out_spec_gets_a_shard_op():
    text = weft.trace(lambda x, w0, w1, w2: block(x, w0), MESH, INPUTS,
                      out_specs=P("data")).mlir
    # The call's result type must stay the callee's; the spec goes on a
    # weft.shard after it.
    assert re.search(r"= weft\.shard %x\d+ : tensor<4x8xf32> -> "
                     r"tensor<4x8xf32, #weft.sharding<@mesh, "
                     r"\[\{\"data\"\}, \{\}\]>>", text), text


# Pipeline stages from layer calls (docs/pipeline.md, "Stages from layer
# calls"): the calls of one @weft.layer function, compiled with
# pipeline_stages, become a GPipe pipeline over the mesh axis "stage".
STAGE_MESH = weft.Mesh({"stage": 2, "data": 1})


@weft.layer
def residual(x, w):
    return x + weft.relu(weft.einsum("bd,df->bf", x, w))


def four_layers(stage_of=None):
    """Four calls of `residual` and a squared-error loss; with `stage_of`,
    layer i's call is traced inside `weft.stage(stage_of(i))`."""
    def model(x, y, w0, w1, w2, w3):
        h = x
        for i, w in enumerate((w0, w1, w2, w3)):
            with (weft.stage(stage_of(i)) if stage_of
                  else contextlib.nullcontext()):
                h = residual(h, w)
        d = h - y
        return weft.sum(d * d)
    model.__name__ = "four_layers"
    return model


FOUR_LAYER_INPUTS = ([weft.Input("x", (8, 16)), weft.Input("y", (8, 16))] +
                     [weft.Param("w%d" % i, (16, 16)) for i in range(4)])


def test_pipeline_stages(tmp_path, weft_bin):
    program = weft.trace(four_layers(), STAGE_MESH, FOUR_LAYER_INPUTS)
    out = program.compile(str(tmp_path / "local.mlir"), train="sgd", lr=0.1,
                          emit="local", pipeline_stages=2,
                          pipeline_micro_batches=4, weftc=weft_bin)
    text = open(out).read()
    # Stage s's k-th layer is layer 2s + k: two stacked weights, split
    # over "stage" (one slot per rank), and the point-to-point shifts.
    assert '"w0.stages"' in text and '"w1.stages"' in text
    assert '"w2"' not in text and '"w3"' not in text
    assert "weft.collective_permute" in text
    # Without the option the same program has no permute.
    plain = program.compile(str(tmp_path / "plain.mlir"), train="sgd",
                            lr=0.1, emit="local", weftc=weft_bin)
    assert "weft.collective_permute" not in open(plain).read()


def test_pipeline_schedule_1f1b(tmp_path, weft_bin):
    # 1F1B (docs/pipeline.md, "1F1B from layer calls"): the squared-error
    # loss is a sum over the batch's rows, so each micro-batch's backward
    # runs at its loss tick; the stages' backward moves back one stage per
    # tick (permutes both ways).
    program = weft.trace(four_layers(), STAGE_MESH, FOUR_LAYER_INPUTS)
    out = program.compile(str(tmp_path / "global.mlir"), train="sgd",
                          lr=0.1, emit="global", pipeline_stages=2,
                          pipeline_micro_batches=4, pipeline_schedule="1f1b",
                          weftc=weft_bin)
    text = open(out).read()
    assert '"w0.stages"' in text and '"w1.stages"' in text
    assert "weft.shift" in text and "by -1" in text
    # A loss that is not a sum over the rows (a max over the batch) is
    # refused at its op.

    def max_loss(x, y, w0, w1, w2, w3):
        h = x
        for w in (w0, w1, w2, w3):
            h = residual(h, w)
        return weft.sum(weft.max(h - y, axis=0))
    bad = weft.trace(max_loss, STAGE_MESH, FOUR_LAYER_INPUTS)
    with pytest.raises(weft.WeftcError) as e:
        bad.compile(str(tmp_path / "bad.mlir"), train="sgd", lr=0.1,
                    emit="global", pipeline_stages=2,
                    pipeline_schedule="1f1b", weftc=weft_bin)
    assert "drops the batch's rows other than by a sum" in str(e.value)


def test_stage_annotations(tmp_path, weft_bin):
    # `with weft.stage(s)` writes weft.stage on the calls; weftc pipelines
    # them without pipeline_stages, as the option does.
    program = weft.trace(four_layers(lambda i: i // 2), STAGE_MESH,
                         FOUR_LAYER_INPUTS)
    text = str(program)
    assert text.count("weft.stage = 0 : i64") == 2
    assert text.count("weft.stage = 1 : i64") == 2
    out = program.compile(str(tmp_path / "local.mlir"), train="sgd", lr=0.1,
                          emit="local", pipeline_micro_batches=4,
                          weftc=weft_bin)
    local = open(out).read()
    assert '"w0.stages"' in local and '"w1.stages"' in local
    assert "weft.collective_permute" in local
    # Unequal stages: weftc's error names the call.
    bad = weft.trace(four_layers(lambda i: 0 if i < 3 else 1), STAGE_MESH,
                     FOUR_LAYER_INPUTS)
    with pytest.raises(weft.WeftcError) as e:
        bad.compile(str(tmp_path / "bad.mlir"), train="sgd", lr=0.1,
                    emit="local", weftc=weft_bin)
    assert "stage 1 has 1 call(s) and stage 0 has 3" in str(e.value)
    with pytest.raises(weft.WeftError):
        with weft.stage(-1):
            pass
