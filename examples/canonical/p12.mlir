// P12 Gather the small operand, or reduce the large result (programs.md).
// mesh model=4. x[b=16,t=512,d=64] replicated; w[d=64,e=64] split d on
// model; y replicated. Minimum: all-gather w (12 KiB per device) and compute
// y on every device. The partial-sum route (slice x, all-reduce y) sends
// 3 MiB per device.

weft.mesh @mesh ["model" = 4]

func.func @project(%x: tensor<16x512x64xf32, #weft.sharding<@mesh, [{}, {}, {}]>>,
    %w: tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<16x512x64xf32, #weft.sharding<@mesh, [{}, {}, {}]>>) {
  %y = weft.einsum "btd,de->bte" (%x, %w)
      : (tensor<16x512x64xf32, #weft.sharding<@mesh, [{}, {}, {}]>>, tensor<64x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<16x512x64xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
  return %y : tensor<16x512x64xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
}
