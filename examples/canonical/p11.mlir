// P11 A chain of layers: gather the weights, keep the sequence split
// (programs.md). mesh model=2. x[b=8,t=512,d=128] split t on model; four
// layers h_i = x_{i-1} w1_i, a_i = relu(h_i), x_i = a_i w2_i with w1_i[d,f]
// and w2_i[f,d] split f on model; x_4 requested split t on model.
// Minimum: all-gather every weight once (4 x 2 x 128 KiB) and compute each
// layer on local t blocks: 1024 KiB. The sequence-parallel route (all-gather
// x, reduce-scatter the result) costs 2 MiB per layer instead of 256 KiB.

weft.mesh @mesh ["model" = 2]

func.func @chain(%x: tensor<8x512x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %w1_1: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_1: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_2: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_2: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_3: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_3: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %w1_4: tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2_4: tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<8x512x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>) {
  %h1 = weft.einsum "btd,df->btf" (%x, %w1_1)
      : (tensor<8x512x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x512x512xf32>
  %a1 = weft.map relu "btf->btf" (%h1)
      : (tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %x1 = weft.einsum "btf,fd->btd" (%a1, %w2_1)
      : (tensor<8x512x512xf32>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x512x128xf32>
  %h2 = weft.einsum "btd,df->btf" (%x1, %w1_2)
      : (tensor<8x512x128xf32>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x512x512xf32>
  %a2 = weft.map relu "btf->btf" (%h2)
      : (tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %x2 = weft.einsum "btf,fd->btd" (%a2, %w2_2)
      : (tensor<8x512x512xf32>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x512x128xf32>
  %h3 = weft.einsum "btd,df->btf" (%x2, %w1_3)
      : (tensor<8x512x128xf32>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x512x512xf32>
  %a3 = weft.map relu "btf->btf" (%h3)
      : (tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %x3 = weft.einsum "btf,fd->btd" (%a3, %w2_3)
      : (tensor<8x512x512xf32>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x512x128xf32>
  %h4 = weft.einsum "btd,df->btf" (%x3, %w1_4)
      : (tensor<8x512x128xf32>, tensor<128x512xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x512x512xf32>
  %a4 = weft.map relu "btf->btf" (%h4)
      : (tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %x4 = weft.einsum "btf,fd->btd" (%a4, %w2_4)
      : (tensor<8x512x512xf32>, tensor<512x128xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x512x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %x4 : tensor<8x512x128xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}
