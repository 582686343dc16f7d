weft.mesh @mesh ["data" = 2]
func.func @loss(%x: tensor<4x3xf64, #weft.sharding<@mesh, [{"data"}, {}]>>,
                %w: tensor<3x2xf64, #weft.sharding<@mesh, [{}, {}]>> {weft.param}) -> tensor<f64> {
  %y = weft.einsum "bd,df->bf" (%x, %w) : (tensor<4x3xf64, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<3x2xf64, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<4x2xf64>
  %l = weft.reduce sum "bf->" (%y) : (tensor<4x2xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
