// Rotary position embeddings in the "rotate half" form of Llama's
// reference code, with weft.slice and weft.concat:
//   x1, x2 = x[..., :K/2], x[..., K/2:];  rot = concat(-x2, x1)
//   y = x * concat(cos, cos) + rot * concat(sin, sin)
// with theta[t, j] = t * 10000^(-2j/K) computed from iota (no S x K
// tables). Sequence parallel: t split on model, b on data; the sliced and
// joined letter k is whole on every rank, so the whole block runs without
// communication (the angles are computed for each rank's positions).
// mesh data=2, model=2: x[b=4, t=16, k=16].

weft.mesh @mesh ["data" = 2, "model" = 2]

func.func @rotary_half(%x: tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {weft.name = "x"})
    -> (tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> {weft.name = "y"}) {
  %pos = weft.iota : tensor<16xf32>
  %j = weft.iota : tensor<8xf32>
  // 10000^(-2j/16) = exp(j * (-2 ln 10000 / 16))
  %jl = weft.map scale "j->j" (%j) {scalar = -1.1512925464970229 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %inv = weft.map exp "j->j" (%jl) : (tensor<8xf32>) -> tensor<8xf32>
  %theta = weft.map mul "t,j->tj" (%pos, %inv) : (tensor<16xf32>, tensor<8xf32>) -> tensor<16x8xf32>
  %c = weft.map cos "tj->tj" (%theta) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %s = weft.map sin "tj->tj" (%theta) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %cos = weft.concat %c, %c dim 1 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
  %sin = weft.concat %s, %s dim 1 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
  %x1 = weft.slice %x dim 2 start 0 : tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<4x16x8xf32>
  %x2 = weft.slice %x dim 2 start 8 : tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<4x16x8xf32>
  %n2 = weft.map neg "btj->btj" (%x2) : (tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %rot = weft.concat %n2, %x1 dim 2 : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x16xf32>
  %xc = weft.map mul "btk,tk->btk" (%x, %cos) : (tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %rs = weft.map mul "btk,tk->btk" (%rot, %sin) : (tensor<4x16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %y = weft.map add "btk,btk->btk" (%xc, %rs) : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
  return %y : tensor<4x16x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>
}
