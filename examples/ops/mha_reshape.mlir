// Multi-head attention written with weft.reshape (no 3-D weights): the
// projections' output dimension e = (h k) is split into heads, h on model,
// attention runs per head, and the heads are merged back for the output
// projection. The merged dimension is split on its major letter h, so
// every local reshape moves nothing: the only collective is the output
// projection's all-reduce (Megatron's attention).
// mesh data=2, model=4: x[b=4,t=16,d=64] split b on data; wq, wk, wv
// [d,e=128] split e on model; wo[e,d] split e on model; 8 heads of 16.

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @mha(%x: tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "x"},
    %wq: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "wq"},
    %wk: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "wk"},
    %wv: tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>> {weft.name = "wv"},
    %wo: tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>> {weft.name = "wo"})
    -> (tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {weft.name = "y"}) {
  %q = weft.einsum "btd,de->bte" (%x, %wq) : (tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x16x128xf32>
  %k = weft.einsum "btd,de->bte" (%x, %wk) : (tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x16x128xf32>
  %v = weft.einsum "btd,de->bte" (%x, %wv) : (tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<64x128xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x16x128xf32>
  %qh = weft.reshape "bt(hk)->bthk" (%q) : (tensor<4x16x128xf32>) -> tensor<4x16x8x16xf32>
  %kh = weft.reshape "bs(hk)->bshk" (%k) : (tensor<4x16x128xf32>) -> tensor<4x16x8x16xf32>
  %vh = weft.reshape "bs(hk)->bshk" (%v) : (tensor<4x16x128xf32>) -> tensor<4x16x8x16xf32>
  %s0 = weft.einsum "bthk,bshk->bhts" (%qh, %kh) : (tensor<4x16x8x16xf32>, tensor<4x16x8x16xf32>) -> tensor<4x8x16x16xf32>
  %s = weft.map scale "bhts->bhts" (%s0) {scalar = 0.25 : f64} : (tensor<4x8x16x16xf32>) -> tensor<4x8x16x16xf32>
  %m = weft.reduce max "bhts->bht" (%s) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16xf32>
  %z = weft.map sub "bhts,bht->bhts" (%s, %m) : (tensor<4x8x16x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16x16xf32>
  %e = weft.map exp "bhts->bhts" (%z) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16x16xf32>
  %n = weft.reduce sum "bhts->bht" (%e) : (tensor<4x8x16x16xf32>) -> tensor<4x8x16xf32>
  %p = weft.map div "bhts,bht->bhts" (%e, %n) : (tensor<4x8x16x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16x16xf32>
  %o = weft.einsum "bhts,bshk->bthk" (%p, %vh) : (tensor<4x8x16x16xf32>, tensor<4x16x8x16xf32>) -> tensor<4x16x8x16xf32>
  %om = weft.reshape "bthk->bt(hk)" (%o) : (tensor<4x16x8x16xf32>) -> tensor<4x16x128xf32>
  %y = weft.einsum "bte,ed->btd" (%om, %wo) : (tensor<4x16x128xf32>, tensor<128x64xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y : tensor<4x16x64xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
}
