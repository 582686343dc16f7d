// weftc: --train=sgd --lr 0.1
// Per-step dropout in training: a two-layer MLP whose hidden activation is
// dropped (p = 0.25) by a weft.random mask keyed by the training step (the
// `offset` operand reads the `step` argument, marked weft.hyperparam, which
// --weft-optimizer reuses instead of adding its own): every step draws a
// new mask, and every mesh draws the unsharded program's mask.
// Mesh data=2, model=2:
//   x[b=32, d=16] and y[b, o=8] split b on data (x.npy / y.npy hold
//   [steps, b, ...]: step t reads batch (t-1) mod steps);
//   W1[d, h=64] and W2[h, o] split h on model.
//   hid = relu(x W1); keep = step(u - 0.25), u = uniform(seed 11, step);
//   out = (hid * keep / 0.75) W2; loss = mean((out - y)^2).
// Build and run (4 ranks, 3 steps; test/training/dropout-steps.test):
//   weftc --train=sgd --lr 0.1 examples/training/dropout_mlp.mlir -o /tmp/dmlp
//   mpirun -np 4 /tmp/dmlp --steps 3 --input x=x.npy --input y=y.npy \
//     --input W1=W1.npy --input W2=W2.npy

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @dropout_mlp(
    %x: tensor<32x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "x"},
    %y: tensor<32x8xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "y"},
    %W1: tensor<16x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "W1"},
    %W2: tensor<64x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "W2"},
    %step: tensor<f32> {weft.hyperparam = "step", weft.name = "step"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %pre = weft.einsum "bd,dh->bh" (%x, %W1)
      : (tensor<32x16xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<16x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<32x64xf32>
  %hid = weft.map relu "bh->bh" (%pre) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %u = weft.random uniform seed 11 offset(%step : tensor<f32>) : tensor<32x64xf32>
  %us = weft.map shift "bh->bh" (%u) {scalar = -0.25 : f64} : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %keep = weft.map step "bh->bh" (%us) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %kept = weft.map mul "bh,bh->bh" (%hid, %keep) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %drop = weft.map scale "bh->bh" (%kept) {scalar = 1.3333333333333333 : f64} : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %out = weft.einsum "bh,ho->bo" (%drop, %W2)
      : (tensor<32x64xf32>, tensor<64x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<32x8xf32>
  %e = weft.map sub "bo,bo->bo" (%out, %y)
      : (tensor<32x8xf32>, tensor<32x8xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<32x8xf32>
  %e2 = weft.map square "bo->bo" (%e) : (tensor<32x8xf32>) -> tensor<32x8xf32>
  %se = weft.reduce sum "bo->" (%e2) : (tensor<32x8xf32>) -> tensor<f32>
  %loss = weft.map scale "->" (%se) {scalar = 0.00390625 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
