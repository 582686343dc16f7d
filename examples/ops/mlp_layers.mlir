// A 3-layer residual MLP (tensor parallel over model) with its layer written
// once and called three times (docs/calls.md); the same program written flat
// is test/weftc/Inputs/mlp_layers_flat.mlir.
weft.mesh @mesh ["data" = 2, "model" = 2]

func.func private @layer(
    %x: tensor<8x16xf32>,
    %w1: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x16xf32> {
  %h = weft.einsum "bd,df->bf" (%x, %w1) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32xf32>
  %a = weft.map tanh "bf->bf" (%h) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = weft.einsum "bf,fd->bd" (%a, %w2) : (tensor<8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %r = weft.map add "bd,bd->bd" (%x, %y) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

func.func @mlp(
    %x: tensor<8x16xf32>,
    %w1_0: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_0: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_1: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_1: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_2: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_2: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x16xf32> {
  %x1 = func.call @layer(%x, %w1_0, %w2_0) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %x2 = func.call @layer(%x1, %w1_1, %w2_1) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %x3 = func.call @layer(%x2, %w1_2, %w2_2) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  return %x3 : tensor<8x16xf32>
}
