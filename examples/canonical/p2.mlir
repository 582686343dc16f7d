// P2 Sequence-parallel MLP, programs.md.
// As P1, but x split t on model, and y requested split t on model.
// Minimum: all-gather of x over model on t, reduce-scatter of the second
// einsum's partial result over model on t: 192 + 192 = 384 KiB per device.

weft.mesh @mesh ["model" = 4]

func.func @mlp(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %w1: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<4x64x1024xf32>
  %a = weft.map relu "btf->btf" (%h)
      : (tensor<4x64x1024xf32>)
      -> tensor<4x64x1024xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<4x64x1024xf32>, tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}
