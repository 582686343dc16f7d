// P4b Contracting letter split on both operands, programs.md.
// mesh model=4. x[m=256,d=1024] split d on model; w[d=1024,n=512] split d on
// model. y requested split n on model. Minimum: one reduce-scatter on n: 384 KiB.

weft.mesh @mesh ["model" = 4]

func.func @matmul(%x: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w: tensor<1024x512xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<256x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) {
  %y = weft.einsum "md,dn->mn" (%x, %w)
      : (tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<1024x512xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<256x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  return %y : tensor<256x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
}
