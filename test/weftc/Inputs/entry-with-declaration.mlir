// One function with a body and a declaration (entry-selection.test).
weft.mesh @mesh ["model" = 2]
func.func private @helper(tensor<8xf32>) -> tensor<8xf32>
func.func @relu(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32> {
  %y = weft.map relu "i->i" (%x) : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
