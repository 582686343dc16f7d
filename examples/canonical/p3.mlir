// P3 Data x tensor parallel on a 2-D mesh, programs.md.
// mesh data=2, model=4. x split b on data; w1, w2 as in P1; y split b on data.
// Minimum: one all-reduce(sum) over model only, of the local y [2,64,256]:
// 192 KiB per device. Nothing over data.

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @mlp(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %w1: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<4x64x1024xf32>
  %a = weft.map relu "btf->btf" (%h)
      : (tensor<4x64x1024xf32>)
      -> tensor<4x64x1024xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<4x64x1024xf32>, tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
}
