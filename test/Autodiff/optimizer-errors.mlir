// Bad input to --weft-optimizer: clear errors at the function or return.
// RUN: not weft-opt %s --weft-optimizer="kind=adam" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: error: --weft-optimizer: unknown kind 'adam' (expected adamw or sgd)
// RUN: not weft-opt %s --weft-optimizer="beta1=1.5" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: --weft-optimizer: beta1 = 1.5 is out of range
// RUN: not weft-opt %s --weft-optimizer="kind=sgd momentum=-1" 2>&1 | FileCheck %s --check-prefix=MOM
// MOM: error: --weft-optimizer: momentum = -1 is out of range
// A weft.param without gradients: autodiff has not run.
// RUN: not weft-opt %s --weft-optimizer 2>&1 | FileCheck %s --check-prefix=NOGRAD
// NOGRAD: error: --weft-optimizer: argument #0 is a weft.param but the function has no gradient results; run --weft-autodiff first
// A gradient plus another result: not the form autodiff builds.
// RUN: not weft-opt %s --split-input-file --weft-optimizer 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: error: --weft-optimizer needs the loss followed by the gradients only

func.func @no_grads(%w: tensor<4xf32> {weft.param}) -> tensor<f32> {
  %s = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @extra(%w: tensor<4xf32> {weft.param}) -> (tensor<f32>, tensor<4xf32> {weft.grad_of = 0 : i64}, tensor<4xf32>) {
  %s = weft.reduce sum "a->" (%w) : (tensor<4xf32>) -> tensor<f32>
  return %s, %w, %w : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
