#!/usr/bin/env python3
"""Writes an N-layer chain of Megatron MLPs, the same program in one of two
dialects, for bench_vs_upstream.py:

  weft      weft.mesh @mesh ["model" = P]; weft.einsum / weft.map relu;
            input for `weft-opt --weft-propagate --weft-partition`.
  upstream  MLIR's `shard` dialect (shard.grid @grid(shape = P),
            shard.sharding / shard.shard) on linalg.matmul and a
            linalg.generic relu (arith.maximumf); input for
            `mlir-opt --pass-pipeline=
            'builtin.module(func.func(sharding-propagation,shard-partition))'`.

Layer i: h = x @ w1_i (bd,df->bf); a = relu(h); x = a @ w2_i (bf,fd->bd).
Annotations, identical in both: x (the function's input) replicated,
w1_i[d,f] split f on the mesh's one axis, w2_i[f,d] split f on it, the
function's result replicated. Nothing else is annotated: each layer's h and
a (split f) and each layer's output (a partial sum, all-reduced) are left to
propagation.
Prints "N layer(s), K ops" (K: ops in the function body, return excluded,
nested ops of linalg.generic bodies excluded).
Usage: gen_mlp_chain.py [--dialect weft|upstream] [--batch B] [--dim D]
                        [--hidden F] [--axis-size P] N OUT.mlir"""
import argparse


def weft_chain(n, b, d, f, p):
    def ty(shape, split=None, annotate=True):
        s = "x".join(map(str, shape)) + "xf32"
        if not annotate:
            return f"tensor<{s}>"
        dims = ", ".join("{" + ('"model"' if i == split else "") + "}"
                         for i in range(len(shape)))
        return f"tensor<{s}, #weft.sharding<@mesh, [{dims}]>>"

    x_t, rep_out = ty((b, d)), ty((b, d))
    w1_t, w2_t = ty((d, f), 1), ty((f, d), 0)
    h_t, y_t = ty((b, f), annotate=False), ty((b, d), annotate=False)
    args = [f"%x: {x_t}"]
    body = []
    x, xt = "%x", x_t
    for i in range(n):
        args += [f"%w1_{i}: {w1_t}", f"%w2_{i}: {w2_t}"]
        last = i == n - 1
        out_t = rep_out if last else y_t
        body.append(f'  %h{i} = weft.einsum "bd,df->bf" ({x}, %w1_{i}) : ({xt}, {w1_t}) -> {h_t}')
        body.append(f'  %a{i} = weft.map relu "bf->bf" (%h{i}) : ({h_t}) -> {h_t}')
        body.append(f'  %y{i} = weft.einsum "bf,fd->bd" (%a{i}, %w2_{i}) : ({h_t}, {w2_t}) -> {out_t}')
        x, xt = f"%y{i}", out_t
    text = (f'weft.mesh @mesh ["model" = {p}]\n\n'
            "func.func @mlp_chain(" + ",\n    ".join(args) + f") -> {rep_out} {{\n"
            + "\n".join(body) + f"\n  return {x} : {rep_out}\n}}\n")
    return text, len(body)


def upstream_chain(n, b, d, f, p):
    def t(*shape):
        return "tensor<" + "x".join(map(str, shape)) + "xf32>"

    x_t, w1_t, w2_t, h_t = t(b, d), t(d, f), t(f, d), t(b, f)
    args = [f"%x: {x_t}"]
    body = [
        "  %zero = arith.constant 0.000000e+00 : f32",
        "  %s_rep = shard.sharding @grid split_axes = [[]] : !shard.sharding",
        "  %s_col = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding",
        "  %s_row = shard.sharding @grid split_axes = [[0]] : !shard.sharding",
        f"  %x_s = shard.shard %x to %s_rep : {x_t}",
    ]
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    x = "%x_s"
    for i in range(n):
        args += [f"%w1_{i}: {w1_t}", f"%w2_{i}: {w2_t}"]
        body += [
            f"  %w1s_{i} = shard.shard %w1_{i} to %s_col : {w1_t}",
            f"  %w2s_{i} = shard.shard %w2_{i} to %s_row : {w2_t}",
            f"  %he{i} = tensor.empty() : {h_t}",
            f"  %hz{i} = linalg.fill ins(%zero : f32) outs(%he{i} : {h_t}) -> {h_t}",
            f"  %h{i} = linalg.matmul ins({x}, %w1s_{i} : {x_t}, {w1_t}) outs(%hz{i} : {h_t}) -> {h_t}",
            f"  %ae{i} = tensor.empty() : {h_t}",
            f"  %a{i} = linalg.generic {{indexing_maps = [{ident}, {ident}], "
            f'iterator_types = ["parallel", "parallel"]}} ins(%h{i} : {h_t}) outs(%ae{i} : {h_t}) {{',
            "  ^bb0(%in: f32, %out: f32):",
            "    %m = arith.maximumf %in, %zero : f32",
            "    linalg.yield %m : f32",
            f"  }} -> {h_t}",
            f"  %ye{i} = tensor.empty() : {x_t}",
            f"  %yz{i} = linalg.fill ins(%zero : f32) outs(%ye{i} : {x_t}) -> {x_t}",
            f"  %y{i} = linalg.matmul ins(%a{i}, %w2s_{i} : {h_t}, {w2_t}) outs(%yz{i} : {x_t}) -> {x_t}",
        ]
        x = f"%y{i}"
    body.append(f"  %out = shard.shard {x} to %s_rep annotate_for_users : {x_t}")
    ops = sum(1 for line in body if line.startswith("  %"))
    text = (f"shard.grid @grid(shape = {p})\n\n"
            "func.func @mlp_chain(" + ",\n    ".join(args) + f") -> {x_t} {{\n"
            + "\n".join(body) + f"\n  return %out : {x_t}\n}}\n")
    return text, ops


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dialect", choices=("weft", "upstream"), default="weft")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--axis-size", type=int, default=4)
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    a = ap.parse_args()
    gen = weft_chain if a.dialect == "weft" else upstream_chain
    text, ops = gen(a.n, a.batch, a.dim, a.hidden, a.axis_size)
    with open(a.out, "w") as fh:
        fh.write(text)
    print(f"{a.n} layer(s), {ops} ops")


if __name__ == "__main__":
    main()
