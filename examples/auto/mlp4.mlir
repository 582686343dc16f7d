// An unannotated 4-layer MLP for auto-sharding (weftc --memory-budget):
// only the mesh is given; the global search chooses every layout (data,
// tensor, FSDP-style weight sharding) so the estimated peak bytes per
// device fit the budget. x[b=64,d=256], w1_i[d,f=512], w2_i[f,d].
// test/auto/auto-sharding.test runs it at 100%, 50% and 25% of the
// replicated footprint.

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @mlp4(%x: tensor<64x256xf32>,
    %w1_1: tensor<256x512xf32>,
    %w2_1: tensor<512x256xf32>,
    %w1_2: tensor<256x512xf32>,
    %w2_2: tensor<512x256xf32>,
    %w1_3: tensor<256x512xf32>,
    %w2_3: tensor<512x256xf32>,
    %w1_4: tensor<256x512xf32>,
    %w2_4: tensor<512x256xf32>)
    -> tensor<64x256xf32> {
  %h1 = weft.einsum "bd,df->bf" (%x, %w1_1)
      : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %a1 = weft.map relu "bf->bf" (%h1) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  %x1 = weft.einsum "bf,fd->bd" (%a1, %w2_1)
      : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
  %h2 = weft.einsum "bd,df->bf" (%x1, %w1_2)
      : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %a2 = weft.map relu "bf->bf" (%h2) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  %x2 = weft.einsum "bf,fd->bd" (%a2, %w2_2)
      : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
  %h3 = weft.einsum "bd,df->bf" (%x2, %w1_3)
      : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %a3 = weft.map relu "bf->bf" (%h3) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  %x3 = weft.einsum "bf,fd->bd" (%a3, %w2_3)
      : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
  %h4 = weft.einsum "bd,df->bf" (%x3, %w1_4)
      : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %a4 = weft.map relu "bf->bf" (%h4) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  %x4 = weft.einsum "bf,fd->bd" (%a4, %w2_4)
      : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
  return %x4 : tensor<64x256xf32>
}
