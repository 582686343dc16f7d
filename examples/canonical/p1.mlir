// P1 Megatron MLP (tensor parallel), programs.md.
// mesh model=4. x replicated; w1[d,f] and w2[f,d] split f on model; y
// replicated. Minimum: one all-reduce(sum) of y over model, 384 KiB per device.

weft.mesh @mesh ["model" = 4]

func.func @mlp(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>,
    %w1: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>) {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<4x64x1024xf32>
  %a = weft.map relu "btf->btf" (%h)
      : (tensor<4x64x1024xf32>)
      -> tensor<4x64x1024xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<4x64x1024xf32>, tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
}
