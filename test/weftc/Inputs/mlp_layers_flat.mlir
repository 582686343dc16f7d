// examples/ops/mlp_layers.mlir written flat: the layer body three times.
weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @mlp(
    %x: tensor<8x16xf32>,
    %w1_0: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_0: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_1: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_1: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_2: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_2: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<8x16xf32> {
  %h0 = weft.einsum "bd,df->bf" (%x, %w1_0) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32xf32>
  %a0 = weft.map tanh "bf->bf" (%h0) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %y0 = weft.einsum "bf,fd->bd" (%a0, %w2_0) : (tensor<8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %r0 = weft.map add "bd,bd->bd" (%x, %y0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %h1 = weft.einsum "bd,df->bf" (%r0, %w1_1) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32xf32>
  %a1 = weft.map tanh "bf->bf" (%h1) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %y1 = weft.einsum "bf,fd->bd" (%a1, %w2_1) : (tensor<8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %r1 = weft.map add "bd,bd->bd" (%r0, %y1) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %h2 = weft.einsum "bd,df->bf" (%r1, %w1_2) : (tensor<8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<8x32xf32>
  %a2 = weft.map tanh "bf->bf" (%h2) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %y2 = weft.einsum "bf,fd->bd" (%a2, %w2_2) : (tensor<8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<8x16xf32>
  %r2 = weft.map add "bd,bd->bd" (%r1, %y2) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r2 : tensor<8x16xf32>
}
