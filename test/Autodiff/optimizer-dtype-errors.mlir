// The dtypes --weft-optimizer needs of a loss function (docs/precision.md):
// a mismatch is a compile-time error at the value that has it, not an
// invalid update op the optimizer would build, nor a run-time failure of
// the training harness (which reads an f32 or f64 loss and feeds the
// loss_scale like lr, in the parameters' type).
// RUN: weft-opt %s -split-input-file --weft-optimizer -verify-diagnostics

// A bf16 loss (a program computed wholly in bf16, its parameters f32; the
// function as --weft-autodiff leaves it): the harness would refuse the loss
// at run time.
func.func @bf16_loss(%w: tensor<4xf32> {weft.param}) -> (tensor<bf16>, tensor<4xf32> {weft.grad_of = 0}) {
  %h = weft.convert %w : tensor<4xf32> -> tensor<4xbf16>
  // expected-error@+1 {{--weft-optimizer: the loss is 'bf16'; the training harness reads an f32 or f64 loss (convert it to f32 before its last reduction: weft.convert)}}
  %s = weft.reduce sum "a->" (%h) : (tensor<4xbf16>) -> tensor<bf16>
  return %s, %w : tensor<bf16>, tensor<4xf32>
}

// -----

// A gradient left in bf16 (as a weight-gradient GEMM of bf16-mixed computes
// it) for an f32 parameter: the update would mix the two.
func.func @bf16_gradient(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xbf16> {weft.grad_of = 0}) {
  %s = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  // expected-error@+1 {{--weft-optimizer: the gradient of argument #0 (result #1) is 'tensor<4xbf16>' but the parameter is 'tensor<4xf32>'; a gradient has its parameter's type (under weftc --precision the policy converts it back)}}
  %g = weft.convert %w : tensor<4xf32> -> tensor<4xbf16>
  return %s, %g : tensor<f32>, tensor<4xbf16>
}

// -----

// A loss_scale input in f16 while the parameters are f32.
// expected-error@+1 {{--weft-optimizer: the loss_scale argument #1 is 'tensor<f16>'; it must be 'tensor<f32>' (the parameters' element type: the harness feeds it like lr)}}
func.func @f16_scale(%w: tensor<4xf32> {weft.param}, %scale: tensor<f16> {weft.hyperparam = "loss_scale"}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0}) {
  %s = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  return %s, %w : tensor<f32>, tensor<4xf32>
}
