// A layout that does not divide (6 rows over 4 devices): padded to 8 rows
// for the sharded build, nothing to pad for the --unsharded reference.
weft.mesh @mesh ["model" = 4]
func.func @f(%x: tensor<6x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<6x8xf32> {
  %y = weft.map relu "ij->ij" (%x) : (tensor<6x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}
