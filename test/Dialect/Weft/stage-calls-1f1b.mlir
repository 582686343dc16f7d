// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2 schedule=1f1b" 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2 schedule=1f1b" --weft-inline-calls --weft-autodiff 2>/dev/null | FileCheck %s --check-prefix=FLAT
// RUN: weft-opt %s --weft-stage-calls="stages=2 micro-batches=2 schedule=1f1b" -o %t.mlir 2>/dev/null
// RUN: weft-interp %t.mlir --check-gradients --seed 1 | FileCheck %s --check-prefix=GRAD
// RUN: weft-interp %t.mlir --check-gradients --seed 2 | FileCheck %s --check-prefix=GRAD
// Without ops before the chain: no @f.input and its vjp, no stage-0
// cotangent read out; the gradients against finite differences.
// RUN: weft-opt %S/Inputs/stage-calls-1f1b-no-input.mlir --weft-stage-calls="stages=2 micro-batches=2 schedule=1f1b" -o %t.noin.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=NOIN < %t.noin.mlir
// RUN: weft-interp %t.noin.mlir --check-gradients --seed 3 | FileCheck %s --check-prefix=NOINGRAD
// NOIN-NOT: @f.input
// NOIN-COUNT-2: weft.einsum "s,sbc->bc"
// NOIN-NOT: weft.einsum "s,sbc->bc"
// NOINGRAD: grad_arg1.stages (result #1, argument #1): 32 element(s), {{.*}}: ok

// 1F1B from layer calls (docs/pipeline.md, "1F1B from layer calls"): four
// calls of one layer on 2 stages (2 calls each), 2 micro-batches of 4
// rows: 4 ticks, the forward half in ticks 0-2, the backward half in
// ticks 1-3. The ops before the chain (a gain g, a parameter) become
// @mlp.input, the loss after it @mlp.loss on one micro-batch (the target
// y split like the chain's input, v passed whole), each with a
// weft.vjp_of declaration; the entry returns the loss and one gradient
// per parameter. The GRAD lines check those gradients against central finite differences
// of the rewritten program's own loss (weft-interp flattens the calls and
// writes the vjps' bodies as weftc does).
weft.mesh @mesh ["stage" = 2, "data" = 2]
func.func private @layer(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %y = weft.map tanh "be->be" (%h) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
// CHECK-LABEL: func.func private @layer.stages(
// The ops before the chain, and their vjp (the gradient of x and of g):
// CHECK-LABEL: func.func private @mlp.input(%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: weft.map mul "bd,d->bd"
// CHECK: func.func private @mlp.input_vjp(tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) attributes {weft.vjp_of = @mlp.input}
// A stage: its two layers on the buffer [stage, rows, width].
// CHECK: func.func private @mlp.stage(%[[W0:.*]]: tensor<2x4x4xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>, %[[W1:.*]]: tensor<2x4x4xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>, %[[B:.*]]: tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT: %[[L0:.*]] = call @layer.stages(%[[B]], %[[W0]])
// CHECK-NEXT: %[[L1:.*]] = call @layer.stages(%[[L0]], %[[W1]])
// CHECK-NEXT: return %[[L1]]
// CHECK: func.func private @mlp.stage_vjp({{.*}}) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>) attributes {weft.vjp_of = @mlp.stage}
// The loss on one micro-batch: (y's rows, v, the last stage's slot).
// CHECK: func.func private @mlp.loss(%[[Y:.*]]: tensor<4x4xf32>, %[[V:.*]]: tensor<4x2xf32>, %[[H:.*]]: tensor<4x4xf32>) -> tensor<f32>
// CHECK-NEXT: weft.map sub "bd,bd->bd" (%[[H]], %[[Y]]) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: weft.map square
// CHECK-NEXT: weft.einsum "bd,dk->k" ({{.*}}, %[[V]]) : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
// CHECK: func.func private @mlp.loss_vjp(tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<f32>) -> (tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>) attributes {weft.vjp_of = @mlp.loss}
// The entry: the stacked weights, and the loss and gradients returned.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: {weft.name = "w0.stages", weft.param}
// CHECK-SAME: {weft.name = "w1.stages", weft.param}
// CHECK-SAME: -> (tensor<f32> {weft.name = "loss"}, tensor<4xf32> {weft.grad_of = 1 : i64, weft.name = "grad_g"}, tensor<2x4x4xf32> {weft.grad_of = 2 : i64, weft.name = "grad_w0.stages"}, tensor<2x4x4xf32> {weft.grad_of = 3 : i64, weft.name = "grad_w1.stages"}, tensor<4x2xf32> {weft.grad_of = 5 : i64, weft.name = "grad_v"})
// CHECK-NOT: call @layer(
// tick 0: forward only
// CHECK: call @mlp.stage(
// CHECK-NOT: call @mlp.stage_vjp(
// tick 1: forward, micro-batch 0's loss and its vjp, then its backward on
// the last stage
// CHECK: weft.shift %{{.*}} dim 0 by 1
// CHECK: call @mlp.stage(
// CHECK: call @mlp.loss(
// CHECK: call @mlp.loss_vjp(
// CHECK: call @mlp.stage_vjp(
// tick 2: forward (micro-batch 1's loss), backward with the cotangent
// moved one stage back
// CHECK: call @mlp.stage(
// CHECK: call @mlp.loss(
// CHECK: call @mlp.loss_vjp(
// CHECK: weft.shift %{{.*}} dim 0 by -1
// CHECK: call @mlp.stage_vjp(
// tick 3: backward only; then the input's vjp on the joined cotangents
// CHECK-NOT: call @mlp.stage(
// CHECK: weft.shift %{{.*}} dim 0 by -1
// CHECK: call @mlp.stage_vjp(
// CHECK-NOT: call @mlp.stage
// CHECK: weft.concat
// CHECK: call @mlp.input_vjp(
// CHECK-NEXT: return
func.func @mlp(%x: tensor<8x4xf32> {weft.name = "x"},
               %g: tensor<4xf32> {weft.param, weft.name = "g"},
               %w0: tensor<4x4xf32> {weft.param, weft.name = "w0"},
               %w1: tensor<4x4xf32> {weft.param, weft.name = "w1"},
               %w2: tensor<4x4xf32> {weft.param, weft.name = "w2"},
               %w3: tensor<4x4xf32> {weft.param, weft.name = "w3"},
               %y: tensor<8x4xf32> {weft.name = "y"},
               %v: tensor<4x2xf32> {weft.param, weft.name = "v"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %x0 = weft.map mul "bd,d->bd" (%x, %g) : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %h0 = func.call @layer(%x0, %w0) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h1 = func.call @layer(%h0, %w1) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h2 = func.call @layer(%h1, %w2) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h3 = func.call @layer(%h2, %w3) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %d = weft.map sub "bd,bd->bd" (%h3, %y) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %sq = weft.map square "bd->bd" (%d) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %p = weft.einsum "bd,dk->k" (%sq, %v) : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  %s = weft.reduce sum "k->" (%p) : (tensor<2xf32>) -> tensor<f32>
  %l = weft.map scale "->" (%s) {scalar = 0.03125 : f64} : (tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
// REMARK: remark: weft-stage-calls: 4 calls of @layer over 2 stages ("stage"), 2 per stage {{.*}}; 2 micro-batches of 4 rows, 1F1B: 4 ticks (3 forward, 3 backward), at most 3 stage inputs held per stage, bubble 1/3
// Flattened, the program returns its own gradients: --weft-autodiff keeps
// them (no second backward).
// FLAT-LABEL: func.func @mlp(
// FLAT-NOT: func.call
// FLAT-NOT: weft.vjp_of
// FLAT: return {{.*}} : tensor<f32>, tensor<4xf32>, tensor<2x4x4xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>, tensor<2x4x4xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>, tensor<4x2xf32>
// GRAD: grad_g (result #1, argument #1): 4 element(s), {{.*}}: ok
// GRAD: grad_w0.stages (result #2, argument #2): 32 element(s), {{.*}}: ok
// GRAD: grad_w1.stages (result #3, argument #3): 32 element(s), {{.*}}: ok
// GRAD: grad_v (result #4, argument #5): 8 element(s), {{.*}}: ok
