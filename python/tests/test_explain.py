"""weft.explain: weft-propagate's remarks summarized per layer call."""

import re

import weft


def _rows(text):
    rows = []
    for line in text.splitlines():
        m = re.match(r"(\S.*?)\s+(\d+) ops\s+(.+?B)\s+(.*)$", line)
        if m:
            rows.append((m.group(1), int(m.group(2)), m.group(4)))
    return rows


def test_blocks_of_a_module_model_are_one_line_each(weft_bin):
    import t2_modules
    program = t2_modules.build()
    text = weft.explain(program, tool=weft_bin)
    rows = _rows(text)
    assert [r[0] for r in rows] == ["(entry)", "layers.0", "layers.1",
                                    "(entry)"]
    # Both blocks: the same ops and collectives (Megatron + SP: gather the
    # sequence before attention and MLP, reduce-scatter after).
    assert rows[1][1:] == rows[2][1:]
    assert rows[1][2] == 'all_gather {"model"} x2, reduce_scatter {"model"} x2'
    # Every op of the flattened program is in exactly one row.
    m = re.search(r"weft-propagate: (\d+) op\(s\)", text)
    assert m and sum(r[1] for r in rows) == int(m.group(1))
    full = weft.explain(program, tool=weft_bin, per_layer=False)
    ops = [line for line in full.splitlines() if ": remark: " in line and
           ": remark: weft-propagate:" not in line]
    assert len(ops) == int(m.group(1))
    assert len(text.splitlines()) < len(full.splitlines()) / 50


def test_layer_functions_are_named_by_their_symbols(weft_bin):
    from test_layers import INPUTS, MESH, model
    text = weft.explain(weft.trace(model, MESH, INPUTS), tool=weft_bin)
    labels = [r[0] for r in _rows(text)]
    assert labels == ["block", "block", "block_2", "(entry)", "block_3",
                      "split", "(entry)"]
