// Two embeddings on a 2-D mesh: a token table split on its vocabulary
// letter (a masked local lookup leaving a partial sum) and a position table
// split on its feature letter (a local lookup of a column block); their sum
// feeds a SiLU and an einsum whose output is split t on model. The ids are
// split b on data.
// mesh data=2, model=4: ids[b=8,t=16], pos[b,t] (i32); tok[v=128,d=32]
// split v on model; tab[u=64,d=32] split d on model; w[d,f=32] replicated.

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @embed2(%ids: tensor<8x16xi32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %pos: tensor<8x16xi32, #weft.sharding<@mesh, [{"data"}, {}]>>,
    %tok: tensor<128x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>,
    %tab: tensor<64x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w: tensor<32x32xf32, #weft.sharding<@mesh, [{}, {}]>>)
    -> (tensor<8x16x32xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>,
        tensor<8x16x32xf32>) {
  %e = weft.embed "bt,vd->btd" (%ids, %tok)
      : (tensor<8x16xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<128x32xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x16x32xf32>
  %p = weft.embed "bt,ud->btd" (%pos, %tab)
      : (tensor<8x16xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<64x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x16x32xf32>
  %x = weft.map add "btd,btd->btd" (%e, %p) : (tensor<8x16x32xf32>, tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %s = weft.map silu "btd->btd" (%x) : (tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %y = weft.einsum "btd,df->btf" (%s, %w)
      : (tensor<8x16x32xf32>, tensor<32x32xf32, #weft.sharding<@mesh, [{}, {}]>>)
      -> tensor<8x16x32xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  return %y, %x : tensor<8x16x32xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<8x16x32xf32>
}
