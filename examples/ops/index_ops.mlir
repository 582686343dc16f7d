// The index ops on a 2-D mesh, each with its vocabulary (or position)
// letter split: a vocabulary-parallel embedding and its transpose, the
// scatter-add of a gradient into the table rows; a cross-entropy target
// picked with one_hot of integer labels (no table, no V x V input); a
// causal mask built from iota; a running sum of the targets along t split
// on model (weft.cumsum: block scans plus an all-gather of block totals).
// mesh data=2, model=2: ids, labels[b=4,t=8] (i32) split b on data;
// tab[v=64,d=16] split v on model; w[d,v] split v on model; g[b,t,d].

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @index_ops(%ids: tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "ids"},
    %labels: tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "labels"},
    %tab: tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.name = "tab"},
    %w: tensor<16x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "w"},
    %g: tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "g"})
    -> (tensor<4x8xf32> {weft.name = "target"},
        tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.name = "dtab"},
        tensor<4x8x8xf32> {weft.name = "masked"},
        tensor<4x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>> {weft.name = "running"}) {
  %x = weft.embed "bt,vd->btd" (%ids, %tab)
      : (tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x8x16xf32>
  %l = weft.einsum "btd,dv->btv" (%x, %w)
      : (tensor<4x8x16xf32>, tensor<16x64xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8x64xf32>
  %oh = weft.one_hot "bt->btv" (%labels)
      : (tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4x8x64xf32>
  %pick = weft.map mul "btv,btv->btv" (%l, %oh) : (tensor<4x8x64xf32>, tensor<4x8x64xf32>) -> tensor<4x8x64xf32>
  %target = weft.reduce sum "btv->bt" (%pick) : (tensor<4x8x64xf32>) -> tensor<4x8xf32>
  %dtab = weft.scatter_add "bt,btd->vd" (%ids, %g)
      : (tensor<4x8xi32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x8x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) -> tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  %pos = weft.iota : tensor<8xf32>
  %causal = weft.map ge "t,s->ts" (%pos, %pos) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %scores = weft.einsum "btd,bsd->bts" (%x, %x) : (tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x8xf32>
  %masked = weft.map mul "bts,ts->bts" (%scores, %causal) : (tensor<4x8x8xf32>, tensor<8x8xf32>) -> tensor<4x8x8xf32>
  %running = weft.cumsum %target dim 1
      : tensor<4x8xf32> -> tensor<4x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>
  return %target, %dtab, %masked, %running : tensor<4x8xf32>, tensor<64x16xf32, #weft.sharding<@mesh, [{"model"}, {}]>>, tensor<4x8x8xf32>,
      tensor<4x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>
}
