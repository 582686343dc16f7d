#!/usr/bin/env python3
"""Writes an N-layer transformer: N blocks of programs.md's P9 (tensor +
sequence parallel) chained, each block's output feeding the next.
Usage: gen_transformer.py N OUT.mlir"""
import sys

B, T, D, F, H, K = 4, 64, 256, 1024, 8, 32
M = '"model"'


def ty(shape, split=None):
    s = "x".join(map(str, shape)) + "xf32"
    if split is None:
        return f"tensor<{s}>"
    dims = ", ".join("{" + (M if i == split else "") + "}" for i in range(len(shape)))
    return f"tensor<{s}, #weft.sharding<@mesh, [{dims}]>>"


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    args, body, types = [], [], {}
    x0 = "x"
    args.append(f"%x: {ty((B, T, D), 1)}")
    types["x"] = ty((B, T, D), 1)

    def arg(name, shape, split):
        types[name] = ty(shape, split)
        args.append(f"%{name}: {types[name]}")

    def op(res, text, ins, shape, split=None, attrs=""):
        types[res] = ty(shape, split)
        operands = ", ".join("%" + i for i in ins)
        intys = ", ".join(types[i] for i in ins)
        body.append(f"  %{res} = {text} ({operands}){attrs} : ({intys}) -> {types[res]}")

    def norm(x, o):
        op(o + "sq", 'weft.map square "btd->btd"', [x], (B, T, D))
        op(o + "ss", 'weft.reduce sum "btd->bt"', [o + "sq"], (B, T))
        op(o + "ms", 'weft.map scale "bt->bt"', [o + "ss"], (B, T), attrs=" {scalar = 3.906250e-03 : f64}")
        op(o + "me", 'weft.map shift "bt->bt"', [o + "ms"], (B, T), attrs=" {scalar = 1.000000e-05 : f64}")
        op(o + "r", 'weft.map rsqrt "bt->bt"', [o + "me"], (B, T))
        op(o, 'weft.map mul "btd,bt->btd"', [x, o + "r"], (B, T, D))

    x = x0
    for l in range(n):
        p = f"l{l}_"
        for w in ("wq", "wk", "wv"):
            arg(p + w, (D, H, K), 1)
        arg(p + "wo", (H, K, D), 0)
        arg(p + "w1", (D, F), 1)
        arg(p + "w2", (F, D), 0)
        norm(x, p + "n1")
        n1 = p + "n1"
        op(p + "q", 'weft.einsum "btd,dhk->bthk"', [n1, p + "wq"], (B, T, H, K))
        op(p + "k", 'weft.einsum "bsd,dhk->bshk"', [n1, p + "wk"], (B, T, H, K))
        op(p + "v", 'weft.einsum "bsd,dhk->bshk"', [n1, p + "wv"], (B, T, H, K))
        op(p + "sc", 'weft.einsum "bthk,bshk->bhts"', [p + "q", p + "k"], (B, H, T, T))
        op(p + "mx", 'weft.reduce max "bhts->bht"', [p + "sc"], (B, H, T))
        op(p + "df", 'weft.map sub "bhts,bht->bhts"', [p + "sc", p + "mx"], (B, H, T, T))
        op(p + "e", 'weft.map exp "bhts->bhts"', [p + "df"], (B, H, T, T))
        op(p + "z", 'weft.reduce sum "bhts->bht"', [p + "e"], (B, H, T))
        op(p + "pr", 'weft.map div "bhts,bht->bhts"', [p + "e", p + "z"], (B, H, T, T))
        op(p + "o", 'weft.einsum "bhts,bshk->bthk"', [p + "pr", p + "v"], (B, T, H, K))
        op(p + "a", 'weft.einsum "bthk,hkd->btd"', [p + "o", p + "wo"], (B, T, D))
        op(p + "r1", 'weft.map add "btd,btd->btd"', [x, p + "a"], (B, T, D))
        norm(p + "r1", p + "n2")
        op(p + "mh", 'weft.einsum "btd,df->btf"', [p + "n2", p + "w1"], (B, T, F))
        op(p + "ma", 'weft.map relu "btf->btf"', [p + "mh"], (B, T, F))
        op(p + "m", 'weft.einsum "btf,fd->btd"', [p + "ma", p + "w2"], (B, T, D))
        last = l == n - 1
        op(p + "y", 'weft.map add "btd,btd->btd"', [p + "r1", p + "m"], (B, T, D), 1 if last else None)
        x = p + "y"
    with open(out, "w") as f:
        f.write('weft.mesh @mesh ["model" = 4]\n')
        f.write("func.func @transformer(" + ",\n    ".join(args) + f") -> {types[x]} {{\n")
        f.write("\n".join(body) + "\n")
        f.write(f"  return %{x} : {types[x]}\n}}\n")
    print(f"{n} layer(s), {len(body)} ops")


if __name__ == "__main__":
    main()
