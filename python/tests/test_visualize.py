"""visualize_sharding on a 2x2 mesh: which device holds which block.
Expected texts written by hand from the layout rule (row-major ranks, the
last mesh axis fastest)."""

import pytest

import weft
from weft import P

MESH = weft.Mesh((2, 2), ("data", "model"))


def test_both_axes():
    text = weft.visualize_sharding((8, 4), P("data", "model"), MESH,
                                   print_it=False)
    assert text == "\n".join([
        '8x4 P(\'data\', \'model\') on Mesh(data=2, model=2)',
        "+------------+------------+",
        "| device 0   | device 1   |",
        "| [0:4, 0:2] | [0:4, 2:4] |",
        "+------------+------------+",
        "| device 2   | device 3   |",
        "| [4:8, 0:2] | [4:8, 2:4] |",
        "+------------+------------+",
    ])


def test_replicated_over_one_axis():
    text = weft.visualize_sharding((8, 4), P(None, "data"), MESH,
                                   print_it=False)
    # model is unused: devices differing only in model hold the same block.
    assert text.splitlines()[1:] == [
        "+-------------+-------------+",
        "| devices 0,1 | devices 2,3 |",
        "| [0:8, 0:2]  | [0:8, 2:4]  |",
        "+-------------+-------------+",
    ]


def test_two_axes_on_one_dimension_uneven():
    # 6 rows over (model, data): 4 blocks of ceil(6/4) = 2, the last empty;
    # block index = model * 2 + data.
    text = weft.visualize_sharding((6,), P(("model", "data")), MESH,
                                   print_it=False)
    assert text.splitlines()[2:4] == [
        "| device 0 | device 2 | device 1 | device 3 |",
        "| [0:2]    | [2:4]    | [4:6]    | [6:6]    |",
    ]


def test_rank_three_lists_blocks(capsys):
    weft.visualize_sharding((2, 4, 6), P("model", None, "data"), MESH)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        "[0:1, 0:4, 0:3]: device 0",
        "[0:1, 0:4, 3:6]: device 2",
        "[1:2, 0:4, 0:3]: device 1",
        "[1:2, 0:4, 3:6]: device 3",
    ]


def test_bad_spec_is_an_error():
    with pytest.raises(weft.WeftError, match="unknown mesh axis"):
        weft.visualize_sharding((4, 4), P("x"), MESH, print_it=False)


def test_svg_picture(tmp_path):
    import xml.etree.ElementTree as ET
    path = tmp_path / "w.svg"
    text = weft.visualize_sharding((5, 4), P(None, ("data", "model")), MESH,
                                   print_it=False, svg=str(path))
    root = ET.parse(str(path)).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    rects = root.findall(".//%srect" % ns)
    labels = [t.text for t in root.iter("%stext" % ns)]
    # Four blocks of one column each (ceil(4/4) = 1), one device each.
    assert len(rects) == 4
    assert labels[0] == text.splitlines()[0]
    assert labels[1:] == ["device 0", "[0:5, 0:1]", "device 1", "[0:5, 1:2]",
                          "device 2", "[0:5, 2:3]", "device 3", "[0:5, 3:4]"]
    widths = {float(r.get("width")) for r in rects}
    assert len(widths) == 1
    assert len({r.get("fill") for r in rects}) == 4


def test_svg_uneven_blocks_in_proportion(tmp_path):
    import xml.etree.ElementTree as ET
    path = tmp_path / "v.svg"
    # 6 over model's 2 blocks: two equal cells (each held by two devices).
    weft.visualize_sharding((6,), P("model"), MESH, print_it=False,
                            svg=str(path))
    rects = ET.parse(str(path)).getroot().findall(
        ".//{http://www.w3.org/2000/svg}rect")
    assert [float(r.get("width")) for r in rects] == [160.0, 160.0]
    weft.visualize_sharding((5,), P(("data", "model")), MESH, print_it=False,
                            svg=str(path))
    rects = ET.parse(str(path)).getroot().findall(
        ".//{http://www.w3.org/2000/svg}rect")
    # Blocks of ceil(5/4) = 2: 2, 2, 1, 0 elements of 5, out of 640 px.
    assert [float(r.get("width")) for r in rects] == [256.0, 256.0, 128.0,
                                                      0.0]
    with pytest.raises(ValueError, match="rank 3"):
        weft.visualize_sharding((2, 2, 2), P("data"), MESH, print_it=False,
                                svg=str(path))


def test_program_show_sharding(weft_bin):
    # The propagated layout of an unannotated weight, drawn by weftc
    # --show-sharding: w2 follows w1's split of f (P1's Megatron plan).
    mesh = weft.Mesh({"model": 4})

    def mlp(x, w1, w2):
        return weft.einsum("btf,fd->btd",
                           weft.relu(weft.einsum("btd,df->btf", x, w1)), w2)

    program = weft.trace(mlp, mesh, [
        weft.Input("x", (4, 8, 16), spec=P()),
        weft.Param("w1", (16, 32), spec=P(None, "model")),
        weft.Param("w2", (32, 16))], out_specs=P())
    text = program.show_sharding(["w2"], weftc=weft_bin)
    assert text.splitlines()[:4] == [
        "@mlp input 'w2': 32x16xf32 [{model}, {}]",
        "+---------------+",
        "| device 0      |",
        "| [0:8, 0:16]   |",
    ], text
    # The cells are as wide as the longest label, "[16:24, 0:16]".
    assert "| [24:32, 0:16] |" in text
    assert "'w1'" not in text
