// A layout that does not divide (6 rows over 4 devices): an error for the
// sharded build, nothing for the --unsharded reference build.
weft.mesh @mesh ["model" = 4]
func.func @f(%x: tensor<6x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<6x8xf32> {
  %y = weft.map relu "ij->ij" (%x) : (tensor<6x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}
