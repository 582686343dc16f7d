// P8b Data-parallel weight gradient, programs.md.
// mesh data=4. x[b=16,t=256,d] and dy[b=16,t=256,f] split b on data (large
// enough that gathering them and computing dw everywhere never pays).
// dw requested split d on data (sharded optimizer state): one
// reduce-scatter, 768 KiB.

weft.mesh @mesh ["data" = 4]

func.func @weight_grad(%x: tensor<16x256x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %dy: tensor<16x256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> (tensor<256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) {
  %dw = weft.einsum "btd,btf->df" (%x, %dy)
      : (tensor<16x256x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<16x256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
  return %dw : tensor<256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}]>>
}
