// A second, unused mesh (D9, unsharded-two-meshes.test).
weft.mesh @m1 ["model" = 4]
weft.mesh @m2 ["data" = 2]
func.func @f(%x: tensor<8x8xf32, #weft.sharding<@m1, [{}, {"model"}]>>) -> tensor<8x8xf32> {
  %z = weft.map relu "ij->ij" (%x) : (tensor<8x8xf32, #weft.sharding<@m1, [{}, {"model"}]>>) -> tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}
