// P8b Data-parallel weight gradient, programs.md.
// mesh data=4. x[b,t,d] and dy[b,t,f] split b on data.
// dw requested split d on data (sharded optimizer state): one
// reduce-scatter, 768 KiB.

weft.mesh @mesh ["data" = 4]

func.func @weight_grad(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %dy: tensor<4x64x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> (tensor<256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) {
  %dw = weft.einsum "btd,btf->df" (%x, %dy)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<4x64x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  return %dw : tensor<256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
}
