// weftc: --train=adamw --lr 1e-3 --precision=bf16-mixed
// T1 (examples/training/t1_sae.mlir) at a quarter of its sizes, so that
// test/training/t1-bf16.test trains it 50 steps on 1 and 4 ranks in
// seconds: x[b=512, d=64], W_enc[d, h=512], b_enc[h], W_dec[h, d],
// b_dec[d], split as T1 (b on data, h on model; mesh data=2, model=2).
// Data: examples/training/t1_data.py --b 512 --d 64 --h 512.

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @t1_sae(
    %x: tensor<512x64xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
    %W_enc: tensor<64x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W_enc"},
    %b_enc: tensor<512xf32, #weft.sharding<@mesh, [{"model"}]>> {weft.param, weft.name = "b_enc"},
    %W_dec: tensor<512x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W_dec"},
    %b_dec: tensor<64xf32, #weft.sharding<@mesh, [{}]>> {weft.param, weft.name = "b_dec"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %pre = weft.einsum "bd,dh->bh" (%x, %W_enc)
      : (tensor<512x64xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<64x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<512x512xf32>
  %z = weft.map add "bh,h->bh" (%pre, %b_enc)
      : (tensor<512x512xf32>, tensor<512xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<512x512xf32>
  %f = weft.map relu "bh->bh" (%z) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %y = weft.einsum "bh,hd->bd" (%f, %W_dec)
      : (tensor<512x512xf32>, tensor<512x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<512x64xf32>
  %xh = weft.map add "bd,d->bd" (%y, %b_dec)
      : (tensor<512x64xf32>, tensor<64xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<512x64xf32>
  %e = weft.map sub "bd,bd->bd" (%xh, %x)
      : (tensor<512x64xf32>, tensor<512x64xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<512x64xf32>
  %e2 = weft.map square "bd->bd" (%e) : (tensor<512x64xf32>) -> tensor<512x64xf32>
  %se = weft.reduce sum "bd->" (%e2) : (tensor<512x64xf32>) -> tensor<f32>
  // 1 / (512 * 64)
  %mse = weft.map scale "->" (%se) {scalar = 3.0517578125e-05 : f64} : (tensor<f32>) -> tensor<f32>
  %af = weft.map abs "bh->bh" (%f) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %sa = weft.reduce sum "bh->" (%af) : (tensor<512x512xf32>) -> tensor<f32>
  // 1e-3 / (512 * 512)
  %l1 = weft.map scale "->" (%sa) {scalar = 3.814697265625e-09 : f64} : (tensor<f32>) -> tensor<f32>
  %loss = weft.map add ",->" (%mse, %l1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
