// An activation split on its contracted letter d feeding a replicated
// weight (test/Dialect/Weft/propagate-global.test).
weft.mesh @mesh ["model" = 4]
func.func @f(%x: tensor<8x128x256xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>,
             %w: tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x128x1024xf32> {
  %h = weft.einsum "btd,df->btf" (%x, %w) : (tensor<8x128x256xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>, tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x128x1024xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<8x128x1024xf32>) -> tensor<8x128x1024xf32>
  return %a : tensor<8x128x1024xf32>
}
