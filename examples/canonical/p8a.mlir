// P8a Data-parallel weight gradient, programs.md.
// mesh data=4. x[b,t,d] and dy[b,t,f] split b on data.
// dw replicated. Minimum: one all-reduce over data of dw [256,1024]:
// 1.5 MiB (data parallelism's gradient all-reduce, derived, not written).

weft.mesh @mesh ["data" = 4]

func.func @weight_grad(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %dy: tensor<4x64x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> (tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>) {
  %dw = weft.einsum "btd,btf->df" (%x, %dy)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<4x64x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %dw : tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>
}
