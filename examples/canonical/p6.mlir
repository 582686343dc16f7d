// P6 Attention, heads split (Megatron attention), programs.md.
// mesh model=4. x replicated; wq, wk, wv [d,h,k] split h on model; wo[h,k,d]
// split h on model; y replicated. The softmax's exp(sc - mx) is written as a
// sub map and an exp map. Minimum: one all-reduce of y over model, 384 KiB;
// nothing inside attention.

weft.mesh @mesh ["model" = 4]

func.func @attention(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>,
    %wq: tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wk: tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wv: tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %wo: tensor<8x32x256xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>) {
  %q = weft.einsum "btd,dhk->bthk" (%x, %wq)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>, tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x8x32xf32>
  %kk = weft.einsum "bsd,dhk->bshk" (%x, %wk)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>, tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x8x32xf32>
  %vv = weft.einsum "bsd,dhk->bshk" (%x, %wv)
      : (tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>, tensor<256x8x32xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>)
      -> tensor<4x64x8x32xf32>
  %sc = weft.einsum "bthk,bshk->bhts" (%q, %kk)
      : (tensor<4x64x8x32xf32>, tensor<4x64x8x32xf32>)
      -> tensor<4x8x64x64xf32>
  // softmax over s
  %mx = weft.reduce max "bhts->bht" (%sc)
      : (tensor<4x8x64x64xf32>)
      -> tensor<4x8x64xf32>
  %df = weft.map sub "bhts,bht->bhts" (%sc, %mx)
      : (tensor<4x8x64x64xf32>, tensor<4x8x64xf32>)
      -> tensor<4x8x64x64xf32>
  %e = weft.map exp "bhts->bhts" (%df)
      : (tensor<4x8x64x64xf32>)
      -> tensor<4x8x64x64xf32>
  %z = weft.reduce sum "bhts->bht" (%e)
      : (tensor<4x8x64x64xf32>)
      -> tensor<4x8x64xf32>
  %p = weft.map div "bhts,bht->bhts" (%e, %z)
      : (tensor<4x8x64x64xf32>, tensor<4x8x64xf32>)
      -> tensor<4x8x64x64xf32>
  %o = weft.einsum "bhts,bshk->bthk" (%p, %vv)
      : (tensor<4x8x64x64xf32>, tensor<4x64x8x32xf32>)
      -> tensor<4x64x8x32xf32>
  %y = weft.einsum "bthk,hkd->btd" (%o, %wo)
      : (tensor<4x64x8x32xf32>, tensor<8x32x256xf32, #weft.sharding<@mesh, [{"model"}, {}, {}]>>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>
}
