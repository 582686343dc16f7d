// P8a Data-parallel weight gradient, programs.md.
// mesh data=4. x[b=16,t=256,d] and dy[b=16,t=256,f] split b on data (large
// enough that gathering them and computing dw everywhere never pays).
// dw replicated. Minimum: one all-reduce over data of dw [256,1024]:
// 1.5 MiB (data parallelism's gradient all-reduce, derived, not written).

weft.mesh @mesh ["data" = 4]

func.func @weight_grad(%x: tensor<16x256x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %dy: tensor<16x256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> (tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>) {
  %dw = weft.einsum "btd,btf->df" (%x, %dy)
      : (tensor<16x256x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<16x256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %dw : tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>
}
