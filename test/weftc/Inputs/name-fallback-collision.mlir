// Output #1 has no SSA name (%0); its fallback name result1 is the name the
// user gave output #0 (D10).
weft.mesh @mesh ["model" = 2]
func.func @f(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> (tensor<8xf32>, tensor<8xf32>) {
  %result1 = weft.map relu "i->i" (%x) : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32>
  %0 = weft.map neg "i->i" (%x) : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32>
  return %result1, %0 : tensor<8xf32>, tensor<8xf32>
}
