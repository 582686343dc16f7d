// Every dtype mismatch the precision policy (docs/precision.md) could leave
// in a training step is a compile-time error at the value or op that has it,
// never an invalid op the optimizer builds or a run-time failure of the
// harness. (optimizer-dtype-errors.mlir has the optimizer's,
// test/Dialect/Weft/half-dtype-errors.mlir the op verifiers' half-precision
// mixtures, precision-errors.mlir the bad options.)
// RUN: weft-opt %s -split-input-file --weft-precision=policy=f16-mixed -verify-diagnostics

// Loss scaling: a function that already has a loss_scale input.
// expected-error@+1 {{--weft-precision: the function already has a loss_scale input (argument #1)}}
func.func @scale_twice(%w: tensor<4xf32> {weft.param}, %s: tensor<f32> {weft.hyperparam = "loss_scale"}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0}) {
  %seed = weft.constant 1.0 {weft.loss_seed} : tensor<f32>
  %g = weft.map mul "a,->a" (%w, %seed) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %seed, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Loss scaling: two backward seeds of different types (one loss_scale input
// cannot replace both).
func.func @seeds_differ(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0}) {
  %seed = weft.constant 1.0 {weft.loss_seed} : tensor<f32>
  // expected-error@+1 {{--weft-precision: the backward seeds differ in type ('tensor<f64>' and 'tensor<f32>')}}
  %seed2 = weft.constant 1.0 {weft.loss_seed} : tensor<f64>
  %g = weft.map mul "a,->a" (%w, %seed) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %seed, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Loss scaling: a gradient in bf16 while the loss (and the scale) are f32:
// the unscaling 1 / S would mix them.
func.func @grad_not_in_loss_type(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xbf16> {weft.grad_of = 0}) {
  %seed = weft.constant 1.0 {weft.loss_seed} : tensor<f32>
  %g = weft.map mul "a,->a" (%w, %seed) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %h = weft.convert %g : tensor<4xf32> -> tensor<4xbf16>
  // expected-error@+1 {{--weft-precision: gradient result #1 is 'tensor<4xbf16>'; loss scaling needs it in the loss's element type}}
  return %seed, %h : tensor<f32>, tensor<4xbf16>
}
