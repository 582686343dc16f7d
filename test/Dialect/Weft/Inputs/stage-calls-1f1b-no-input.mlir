// The chain's input is an argument (no ops before the chain): no
// @f.input, no input cotangents read out (stage-calls-1f1b.mlir).
weft.mesh @mesh ["stage" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %y = weft.map tanh "be->be" (%h) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
func.func @f(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32> {weft.param}, %w1: tensor<4x4xf32> {weft.param}) -> tensor<f32> {
  %a = func.call @layer(%x, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = func.call @layer(%a, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %l = weft.reduce sum "bd->" (%h) : (tensor<8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
