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
