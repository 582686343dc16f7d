// RUN: weft-opt %s --split-input-file --weft-autodiff -verify-diagnostics

func.func @not_scalar(%w: tensor<4xf32> {weft.param}) -> tensor<4xf32> {
  %y = weft.map square "a->a" (%w) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{--weft-autodiff needs the function to return one scalar loss (a rank-0 tensor); it returns 'tensor<4xf32>'}}
  return %y : tensor<4xf32>
}

// -----

func.func @two_results(%w: tensor<f32> {weft.param}) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{it returns 2 values}}
  return %w, %w : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{argument #0 is marked weft.param but has type 'tensor<4xi32>': only float tensors have gradients}}
func.func @int_param(%ids: tensor<4xi32> {weft.param}, %t: tensor<8x2xf32>) -> tensor<f32> {
  %e = weft.embed "b,vd->bd" (%ids, %t) : (tensor<4xi32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %l = weft.reduce sum "bd->" (%e) : (tensor<4x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-warning @+1 {{parameter #1 does not reach the loss: its gradient is zero}}
func.func @unused(%w: tensor<4xf32> {weft.param}, %u: tensor<3xf32> {weft.param}) -> tensor<f32> {
  %l = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

weft.mesh @mesh ["x" = 2]
// expected-error @+1 {{--weft-autodiff}}
func.func @local(%w: tensor<2xf32> {weft.param, weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"x"}]>>}) -> tensor<f32> {
  %l = weft.reduce sum "a->" (%w) : (tensor<2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
