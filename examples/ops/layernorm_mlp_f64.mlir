// A GELU MLP with a bias, a residual and a LayerNorm, in f64, data x tensor
// parallel on a 2-D mesh; the normalized output is split over both axes
// ({"data", "model"}) on the batch dimension.
// mesh data=2, model=4: x[b=8,t=16,d=32] split b on data; w1[d,f=64] and
// b1[f] split f on model; w2[f,d] split f on model.
// LayerNorm over d: mean = sum/32, centered c = r - mean,
// var = sum(c^2)/32, n = c * rsqrt(var + 1e-5).

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @layernorm_mlp(%x: tensor<8x16x32xf64, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %w1: tensor<32x64xf64, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %b1: tensor<64xf64, #weft.sharding<@mesh, [{"model"}]>>,
    %w2: tensor<64x32xf64, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<8x16x32xf64, #weft.sharding<@mesh, [{"data", "model"}, {}, {}]>>) {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<8x16x32xf64, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<32x64xf64, #weft.sharding<@mesh, [{}, {"model"}]>>)
      -> tensor<8x16x64xf64>
  %hb = weft.map add "btf,f->btf" (%h, %b1)
      : (tensor<8x16x64xf64>, tensor<64xf64, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8x16x64xf64>
  %a = weft.map gelu "btf->btf" (%hb) : (tensor<8x16x64xf64>) -> tensor<8x16x64xf64>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<8x16x64xf64>, tensor<64x32xf64, #weft.sharding<@mesh, [{"model"}, {}]>>)
      -> tensor<8x16x32xf64>
  %r = weft.map add "btd,btd->btd" (%x, %y)
      : (tensor<8x16x32xf64, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<8x16x32xf64>) -> tensor<8x16x32xf64>
  %s = weft.reduce sum "btd->bt" (%r) : (tensor<8x16x32xf64>) -> tensor<8x16xf64>
  %mean = weft.map scale "bt->bt" (%s) {scalar = 3.125000e-02 : f64} : (tensor<8x16xf64>) -> tensor<8x16xf64>
  %c = weft.map sub "btd,bt->btd" (%r, %mean) : (tensor<8x16x32xf64>, tensor<8x16xf64>) -> tensor<8x16x32xf64>
  %c2 = weft.map square "btd->btd" (%c) : (tensor<8x16x32xf64>) -> tensor<8x16x32xf64>
  %vs = weft.reduce sum "btd->bt" (%c2) : (tensor<8x16x32xf64>) -> tensor<8x16xf64>
  %var = weft.map scale "bt->bt" (%vs) {scalar = 3.125000e-02 : f64} : (tensor<8x16xf64>) -> tensor<8x16xf64>
  %ve = weft.map shift "bt->bt" (%var) {scalar = 1.000000e-05 : f64} : (tensor<8x16xf64>) -> tensor<8x16xf64>
  %inv = weft.map rsqrt "bt->bt" (%ve) : (tensor<8x16xf64>) -> tensor<8x16xf64>
  %n = weft.map mul "btd,bt->btd" (%c, %inv)
      : (tensor<8x16x32xf64>, tensor<8x16xf64>)
      -> tensor<8x16x32xf64, #weft.sharding<@mesh, [{"data", "model"}, {}, {}]>>
  return %n : tensor<8x16x32xf64, #weft.sharding<@mesh, [{"data", "model"}, {}, {}]>>
}
