// A loss function that reads the training step (weft.random's offset:
// per-step dropout) keeps its `step` argument: --weft-optimizer uses it and
// adds only `lr`. A second hyperparameter, or a step of another type, is an
// error at the function.
// RUN: not weft-opt %s --split-input-file --weft-autodiff --weft-optimizer="kind=sgd" 2>/dev/null | FileCheck %s
// RUN: not weft-opt %s --split-input-file --weft-autodiff --weft-optimizer="kind=sgd" 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: %arg1: tensor<f32> {weft.hyperparam = "step", weft.name = "step"}
// CHECK-SAME: %arg2: tensor<f32> {weft.hyperparam = "lr", weft.name = "lr"}
// CHECK-NOT: weft.hyperparam = "step"
// CHECK: weft.random uniform seed 3 offset(%arg1 : tensor<f32>)
// ERR: optimizer-step-arg.mlir:{{[0-9]+}}:1: error: --weft-optimizer: the step argument #1 must be 'tensor<f32>' (the parameters' element type), not 'tensor<f64>'
// ERR: optimizer-step-arg.mlir:{{[0-9]+}}:1: error: --weft-optimizer: argument #2 is weft.hyperparam "lr"; a loss function may have one "step" argument and no other hyperparameter (the optimizer adds "lr")

func.func @dropout(%w: tensor<4xf32> {weft.param}, %step: tensor<f32> {weft.hyperparam = "step", weft.name = "step"}) -> tensor<f32> {
  %u = weft.random uniform seed 3 offset(%step : tensor<f32>) : tensor<4xf32>
  %d = weft.map mul "a,a->a" (%w, %u) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = weft.reduce sum "a->" (%d) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @step_f64(%w: tensor<4xf32> {weft.param}, %step: tensor<f64> {weft.hyperparam = "step"}) -> tensor<f32> {
  %u = weft.random uniform seed 3 offset(%step : tensor<f64>) : tensor<4xf32>
  %d = weft.map mul "a,a->a" (%w, %u) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = weft.reduce sum "a->" (%d) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @two_hyper(%w: tensor<4xf32> {weft.param}, %step: tensor<f32> {weft.hyperparam = "step"}, %lr: tensor<f32> {weft.hyperparam = "lr"}) -> tensor<f32> {
  %u = weft.random uniform seed 3 offset(%step : tensor<f32>) : tensor<4xf32>
  %d = weft.map mul "a,a->a" (%w, %u) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = weft.reduce sum "a->" (%d) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
