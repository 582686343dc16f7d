func.func @loss(%w: tensor<2x3xf64> {weft.param, weft.name = "w"}) -> tensor<f64> {
  %s = weft.map square "ab->ab" (%w) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %l = weft.reduce sum "ab->" (%s) : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
