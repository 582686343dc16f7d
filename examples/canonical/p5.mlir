// P5 Only the activation split on the contracted letter, programs.md.
// mesh model=4. x[m=256,d=4096] split d on model; w[d=4096,n=256] replicated;
// y replicated. Minimum: slice w locally to its d block, local einsum, one
// all-reduce of y: 384 KiB (all-gathering x instead moves 3 MiB).

weft.mesh @mesh ["model" = 4]

func.func @matmul(%x: tensor<256x4096xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w: tensor<4096x256xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<256x256xf32, #weft.sharding<@mesh, [{}, {}]>>) {
  %y = weft.einsum "md,dn->mn" (%x, %w)
      : (tensor<256x4096xf32, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<4096x256xf32, #weft.sharding<@mesh, [{}, {}]>>)
      -> tensor<256x256xf32, #weft.sharding<@mesh, [{}, {}]>>
  return %y : tensor<256x256xf32, #weft.sharding<@mesh, [{}, {}]>>
}
