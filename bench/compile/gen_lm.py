#!/usr/bin/env python3
"""Writes T2's language model (examples/training/t2_lm.mlir) at L layers.

The layer is T2's layer 0, copied L times with its values and weights renamed
(Wq_<i>, ...); embedding, mask and the vocabulary-parallel loss are T2's. At
L = 2 the program is T2's op for op. The program is flat (one function): the
compile-time baseline for layer functions (issue 31).

With --calls, the same model written with its layer as a function
(examples/training/t2_lm_layers.mlir) called L times: what weft-outline-layers
compiles once (docs/calls.md).

Usage: gen_lm.py [--calls] L OUT.mlir
"""
import argparse
import pathlib
import re
import sys

T2 = pathlib.Path(__file__).resolve().parents[2] / "examples/training/t2_lm.mlir"
T2_CALLS = T2.with_name("t2_lm_layers.mlir")
LAYER_WEIGHTS = ["Wq", "Wk", "Wv", "Wo", "W1", "W2"]


def calls(layers):
    """T2 with a layer function, its two calls made L."""
    lines = T2_CALLS.read_text().splitlines()
    out = []
    for l in lines:
        if re.search(r"%W(q|k|v|o|1|2)_1:", l):
            for i in range(1, layers):
                out.append(re.sub(r"_1\b", f"_{i}", l))
        elif "= func.call @layer(%v3," in l:
            out.append(l)
        elif "= func.call @layer(%x1," in l:
            for i in range(1, layers):
                c = l.replace("%x2 =", f"%x{i + 1} =").replace("(%x1,", f"(%x{i},")
                out.append(re.sub(r"%(W\w)_1\b", lambda m: f"%{m.group(1)}_{i}", c))
        else:
            out.append(re.sub(r"%x2\b", f"%x{layers}", l) if layers != 2 else l)
    return out


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\nUsage:")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", action="store_true",
                    help="the layer as a function, called L times")
    ap.add_argument("layers", type=int, metavar="L")
    ap.add_argument("out", type=pathlib.Path, metavar="OUT.mlir")
    a = ap.parse_args()
    with_calls, layers, out = a.calls, a.layers, a.out
    if layers < 1 or (with_calls and layers < 2):
        sys.exit("gen_lm.py: L must be at least 1 (2 with --calls)")
    if with_calls:
        out.write_text("\n".join(calls(layers)) + "\n")
        return
    lines = T2.read_text().splitlines()
    body_start = next(i for i, l in enumerate(lines) if l.startswith("func.func"))
    layer0 = next(i for i, l in enumerate(lines) if l.strip().startswith("// Layer 0: attention"))
    layer1 = next(i for i, l in enumerate(lines) if l.strip().startswith("// Layer 1: attention"))
    tail = next(i for i, l in enumerate(lines) if l.strip().startswith("// Vocabulary-parallel output"))
    header, prologue = lines[:body_start], lines[body_start:layer0]
    block, epilogue = lines[layer0:layer1], lines[tail:]

    # Arguments: one line each; keep the non-layer ones, then L copies of layer 0's.
    args_end = next(i for i, l in enumerate(prologue) if l.strip().startswith("-> ("))
    arg_lines = prologue[1:args_end]
    weight_line = {w: next(l for l in arg_lines if f"%{w}_0:" in l) for w in LAYER_WEIGHTS}
    before = [l for l in arg_lines if not re.search(r"%W(q|k|v|o|1|2)_\d+:", l)]
    wout = before.pop()  # %Wout comes last, after the layers' weights
    new_args = list(before)
    for i in range(layers):
        for w in LAYER_WEIGHTS:
            new_args.append(weight_line[w].replace(f"{w}_0", f"{w}_{i}"))
    new_args.append(wout)

    # Layer 0 reads %v3 (the residual) and %v7 (the mask) and ends in %v41.
    defined = sorted({int(m) for m in re.findall(r"%[vs](\d+) =", "\n".join(block))})
    out_value = f"%v{defined[-1]}"
    residual = "%v3"
    text = header + [prologue[0]] + new_args + prologue[args_end:]
    for i in range(layers):
        def rename(match):
            name, num = match.group(1), int(match.group(2))
            return f"%l{i}{name}{num}" if num in defined else match.group(0)
        for line in block:
            line = re.sub(r"%([vs])(\d+)\b", rename, line)
            line = line.replace("Layer 0", f"Layer {i}")
            for w in LAYER_WEIGHTS:
                line = line.replace(f"%{w}_0", f"%{w}_{i}")
            # Inputs from outside the block: the residual stream.
            line = re.sub(r"%v3\b", residual, line)
            text.append(line)
        residual = f"%l{i}v{defined[-1]}"
    last_in = "%v75"  # T2's input to the output head
    for line in epilogue:
        text.append(re.sub(re.escape(last_in) + r"\b", residual, line))
    out.write_text("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
