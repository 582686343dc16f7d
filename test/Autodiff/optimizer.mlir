// --weft-optimizer turns --weft-autodiff's loss-and-gradients function into
// a training step (docs/training.md): state arguments per parameter, the
// step and lr inputs, and results that update their arguments.
// RUN: weft-opt %s --weft-autodiff --weft-optimizer | FileCheck %s --check-prefix=ADAMW
// RUN: weft-opt %s --weft-autodiff --weft-optimizer="kind=sgd momentum=0.9 clip-norm=1.0" | FileCheck %s --check-prefix=SGD
// RUN: weft-opt %s --weft-autodiff --weft-optimizer="kind=sgd" | FileCheck %s --check-prefix=PLAIN
// ZeRO-1: the state split over data too; reduce-scatter and all-gather.
// RUN: weft-opt %s --weft-autodiff --weft-optimizer="zero1-axis=data" | FileCheck %s --check-prefix=ZERO
// RUN: weft-opt %s --weft-autodiff --weft-optimizer="zero1-axis=data" --weft-propagate --weft-partition --weft-optimize-collectives --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=ZCOMM
// RUN: not weft-opt %s --weft-autodiff --weft-optimizer="zero1-axis=model" 2>&1 | FileCheck %s --check-prefix=ZAXIS
// ZAXIS: error: --weft-optimizer zero1-axis=model: the function's mesh has no such axis
// The update needs no communication: only the gradient's data all-reduce.
// RUN: weft-opt %s --weft-autodiff --weft-optimizer --weft-propagate --weft-partition --weft-optimize-collectives --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=COMM

// ADAMW-LABEL: func.func @loss(
// ADAMW-SAME: %arg1: tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.name = "w", weft.param}
// ADAMW-SAME: %arg2: tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.name = "m_w", weft.state_of = 1 : i64}
// ADAMW-SAME: %arg3: tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.name = "v_w", weft.state_of = 1 : i64}
// ADAMW-SAME: %arg4: tensor<f32> {weft.hyperparam = "step", weft.name = "step"}
// ADAMW-SAME: %arg5: tensor<f32> {weft.hyperparam = "lr", weft.name = "lr"}
// ADAMW-SAME: -> (tensor<f32> {weft.name = "loss"},
// ADAMW-SAME: {weft.name = "new_w", weft.updates = 1 : i64}
// ADAMW-SAME: {weft.name = "new_m_w", weft.updates = 2 : i64}
// ADAMW-SAME: {weft.name = "new_v_w", weft.updates = 3 : i64}
// ADAMW-SAME: weft.optimizer = {beta1 = 9.000000e-01 : f64, {{.*}}kind = "adamw", lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64}}
// Bias correction from the runtime step: 1 - exp(t ln 0.9).
// ADAMW: weft.map scale "->" (%arg4) {scalar = -0.10536051565782628 : f64}
// ADAMW-NEXT: weft.map exp "->"
// ADAMW: weft.map rsqrt "->"
// ADAMW: weft.map sqrt "ab->ab"
// ADAMW: return

// SGD-LABEL: func.func @loss(
// SGD-SAME: {weft.name = "mom_w", weft.state_of = 1 : i64}
// SGD-SAME: {weft.hyperparam = "step", weft.name = "step"}
// SGD-SAME: {weft.name = "new_w", weft.updates = 1 : i64}
// SGD-SAME: {weft.name = "new_mom_w", weft.updates = 2 : i64}
// SGD-SAME: kind = "sgd", lr = 1.000000e-03 : f64, momentum = 9.000000e-01 : f64
// Clipping: the global norm over every gradient.
// SGD: weft.reduce sum "ab->"
// SGD: weft.map sqrt "->"
// SGD: weft.map min ",->"
// SGD: weft.map scale "ab->ab" ({{.*}}) {scalar = 9.000000e-01 : f64}

// PLAIN-NOT: state_of
// PLAIN: {weft.name = "new_w", weft.updates = 1 : i64}) attributes

// ZERO-LABEL: func.func @loss(
// ZERO-SAME: %arg2: tensor<4x3xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.name = "m_w", weft.state_of = 1 : i64}
// ZERO-SAME: zero1_axis = "data"
// ZCOMM: reduce_scatter(sum) {"data"} 4x3xf32 2x3xf32 24
// ZCOMM-NEXT: all_gather {"data"} 2x3xf32 4x3xf32 24
// ZCOMM: total 2 collective(s), 48 bytes/device

// COMM: all_reduce(sum) {"data"} 4x3xf32 4x3xf32 48
// COMM: total 1 collective(s), 48 bytes/device

weft.mesh @mesh ["data" = 2]
func.func @loss(%x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>,
                %w: tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %y = weft.einsum "bd,df->bf" (%x, %w) : (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>, tensor<4x3xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<8x3xf32>
  %s = weft.map square "bf->bf" (%y) : (tensor<8x3xf32>) -> tensor<8x3xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
