// weftc: --train=adamw --lr 1e-2
// A 4-layer residual MLP, its layer written once and called four times
// (docs/calls.md), tensor parallel over model and data parallel as propagation picks,
// trained on a mean squared error: the training step of
// test/training/outline-layers.test.
weft.mesh @mesh ["data" = 2, "model" = 2]

func.func private @layer(
    %x: tensor<16x32xf32>,
    %w1: tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<16x32xf32> {
  %h = weft.einsum "bd,df->bf" (%x, %w1) : (tensor<16x32xf32>, tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<16x64xf32>
  %a = weft.map tanh "bf->bf" (%h) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = weft.einsum "bf,fd->bd" (%a, %w2) : (tensor<16x64xf32>, tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<16x32xf32>
  %r = weft.map add "bd,bd->bd" (%x, %y) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

func.func @mlp_train(
    %x: tensor<16x32xf32> {weft.name = "x"},
    %t: tensor<16x32xf32> {weft.name = "t"},
    %w1_0: tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w1_0"},
    %w2_0: tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "w2_0"},
    %w1_1: tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w1_1"},
    %w2_1: tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "w2_1"},
    %w1_2: tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w1_2"},
    %w2_2: tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "w2_2"},
    %w1_3: tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.param, weft.name = "w1_3"},
    %w2_3: tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.param, weft.name = "w2_3"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %x1 = func.call @layer(%x, %w1_0, %w2_0) : (tensor<16x32xf32>, tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<16x32xf32>
  %x2 = func.call @layer(%x1, %w1_1, %w2_1) : (tensor<16x32xf32>, tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<16x32xf32>
  %x3 = func.call @layer(%x2, %w1_2, %w2_2) : (tensor<16x32xf32>, tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<16x32xf32>
  %x4 = func.call @layer(%x3, %w1_3, %w2_3) : (tensor<16x32xf32>, tensor<32x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<64x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<16x32xf32>
  %e = weft.map sub "bd,bd->bd" (%x4, %t) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %e2 = weft.map square "bd->bd" (%e) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %se = weft.reduce sum "bd->" (%e2) : (tensor<16x32xf32>) -> tensor<f32>
  %loss = weft.map scale "->" (%se) {scalar = 0.001953125 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
