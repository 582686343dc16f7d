func.func @f(%w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64> {weft.grad_of = 0 : i64}) {
  return %w, %w : tensor<3xf64>, tensor<3xf64>
}
