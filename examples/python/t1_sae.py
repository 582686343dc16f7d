"""T1, the sparse autoencoder (examples/training/t1_sae.mlir), written in
Python and trained from Python.

mesh data=2, model=2; x[b=2048, d=256] split b on data; W_enc[d, h], b_enc[h]
and W_dec[h, d] split h on model; b_dec replicated.
  f = relu(x W_enc + b_enc); x_hat = f W_dec + b_dec;
  loss = mean((x_hat - x)^2) + 1e-3 * mean(|f|).

  PYTHONPATH=python python3 examples/python/t1_sae.py          # print the MLIR
  PYTHONPATH=python WEFT_BIN=build/bin python3 examples/python/t1_sae.py \
      --train /tmp/t1 --steps 50          # weftc --train=adamw, then train
                                          # on 4 ranks with a progress bar
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import weft  # noqa: E402
from weft import P  # noqa: E402

mesh = weft.Mesh({"data": 2, "model": 2})
B, D, H = 2048, 256, 2048


def t1_sae(x, W_enc, b_enc, W_dec, b_dec):
    (b, d), h = x.shape, W_enc.shape[1]
    f = weft.relu(weft.einsum("bd,dh->bh", x, W_enc) + b_enc)
    x_hat = weft.einsum("bh,hd->bd", f, W_dec) + b_dec
    mse = ((x_hat - x) ** 2).sum() * (1.0 / (b * d))
    l1 = weft.abs(f).sum() * (1e-3 / (b * h))
    return mse + l1


def build(b=B, d=D, h=H):
    """The program at T1's sizes (or smaller ones, for tests)."""
    return weft.trace(t1_sae, mesh, [
        weft.Input("x", (b, d), spec=P("data", None)),
        weft.Param("W_enc", (d, h), spec=P(None, "model")),
        weft.Param("b_enc", (h,), spec=P("model")),
        weft.Param("W_dec", (h, d), spec=P("model", None)),
        weft.Param("b_dec", (d,), spec=P(None)),
    ], out_names=["loss"])


if __name__ == "__main__":
    import example_cli
    example_cli.main(__doc__, build, "t1_sae", "t1_data.py", 50, 1e-3)
