// P1 (Megatron MLP, programs.md) at small shapes, global view: w1 and w2
// split f on model; x and y replicated.
weft.mesh @mesh ["model" = 4]

func.func @mlp(%x: tensor<2x8x16xf32>,
    %w1: tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>> {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<2x8x16xf32>, tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<2x8x32xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<2x8x32xf32>, tensor<32x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
  return %y : tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
}
