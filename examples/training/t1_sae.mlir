// weftc: --train=adamw --lr 1e-3
// T1, a sparse autoencoder trained with data x tensor parallelism
// (programs.md T1; docs/training.md). Mesh data=2, model=2:
//   x[b=2048, d=256] split b on data (the batch; t1_data.py writes 4 of them
//   in x.npy [4, 2048, 256]: step t reads batch (t-1) mod 4);
//   W_enc[d, h=2048], b_enc[h] and W_dec[h, d] split h on model; b_dec[d]
//   replicated.
//   f = relu(x W_enc + b_enc); x_hat = f W_dec + b_dec;
//   loss = mean((x_hat - x)^2) + 1e-3 * mean(|f|).
// weftc --train=adamw builds the gradients (--weft-autodiff) and the AdamW
// step (--weft-optimizer): parameters and their m, v state in, updated out.
// Build and run (4 ranks, 50 steps):
//   python3 examples/training/t1_data.py --out /tmp/t1
//   weftc --train=adamw --lr 1e-3 examples/training/t1_sae.mlir -o /tmp/t1_sae
//   mpirun -np 4 /tmp/t1_sae --steps 50 --input x=/tmp/t1/x.npy \
//     --input W_enc=/tmp/t1/W_enc.npy --input b_enc=/tmp/t1/b_enc.npy \
//     --input W_dec=/tmp/t1/W_dec.npy --input b_dec=/tmp/t1/b_dec.npy

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @t1_sae(
    %x: tensor<2048x256xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
    %W_enc: tensor<256x2048xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W_enc"},
    %b_enc: tensor<2048xf32, #weft.sharding<@mesh, [{"model"}]>> {weft.param, weft.name = "b_enc"},
    %W_dec: tensor<2048x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W_dec"},
    %b_dec: tensor<256xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "b_dec"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %pre = weft.einsum "bd,dh->bh" (%x, %W_enc)
      : (tensor<2048x256xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<256x2048xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<2048x2048xf32>
  %z = weft.map add "bh,h->bh" (%pre, %b_enc)
      : (tensor<2048x2048xf32>, tensor<2048xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<2048x2048xf32>
  %f = weft.map relu "bh->bh" (%z) : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %y = weft.einsum "bh,hd->bd" (%f, %W_dec)
      : (tensor<2048x2048xf32>, tensor<2048x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2048x256xf32>
  %xh = weft.map add "bd,d->bd" (%y, %b_dec)
      : (tensor<2048x256xf32>, tensor<256xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<2048x256xf32>
  %e = weft.map sub "bd,bd->bd" (%xh, %x)
      : (tensor<2048x256xf32>, tensor<2048x256xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<2048x256xf32>
  %e2 = weft.map square "bd->bd" (%e) : (tensor<2048x256xf32>) -> tensor<2048x256xf32>
  %se = weft.reduce sum "bd->" (%e2) : (tensor<2048x256xf32>) -> tensor<f32>
  // 1 / (2048 * 256)
  %mse = weft.map scale "->" (%se) {scalar = 1.9073486328125e-06 : f64} : (tensor<f32>) -> tensor<f32>
  %af = weft.map abs "bh->bh" (%f) : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %sa = weft.reduce sum "bh->" (%af) : (tensor<2048x2048xf32>) -> tensor<f32>
  // 1e-3 / (2048 * 2048)
  %l1 = weft.map scale "->" (%sa) {scalar = 2.384185791015625e-10 : f64} : (tensor<f32>) -> tensor<f32>
  %loss = weft.map add ",->" (%mse, %l1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
