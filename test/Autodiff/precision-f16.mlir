// --weft-precision=f16-mixed after --weft-autodiff: the GEMMs run in f16
// as bf16-mixed's do in bf16 (precision.mlir), and dynamic loss scaling
// (docs/precision.md): the backward's seed becomes a new `loss_scale`
// input S (the marked constant 1 is gone), and each gradient result is
// multiplied by 1 / S.
// RUN: weft-opt %s --weft-autodiff --weft-precision=policy=f16-mixed | FileCheck %s
// --weft-optimizer then returns, after the loss, whether every gradient is
// finite: the min over every element of |g| <= the largest finite f32
// (NaN and inf compare 0, so the reduction never sees a NaN).
// RUN: weft-opt %s --weft-autodiff --weft-precision=policy=f16-mixed --weft-optimizer | FileCheck %s --check-prefix=OPT
// With micro-batches every copy's seed is the one scale.
// RUN: weft-opt %s --weft-autodiff --weft-accumulate=micro-batches=2 --weft-precision=policy=f16-mixed | FileCheck %s --check-prefix=ACC
// Without gradients there is no seed: f16 GEMMs, no loss scale.
// RUN: weft-opt %s --weft-precision=policy=f16-mixed | FileCheck %s --check-prefix=FWD
// grad-reduce-dtype=f16 is the default's spelling for f16-mixed; bf16 is
// refused by weftc (test/weftc) but accepted here as the option's default.
// RUN: weft-opt %s --weft-autodiff --weft-precision="policy=f16-mixed grad-reduce-dtype=f16" | FileCheck %s

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %[[S:arg2]]: tensor<f32> {weft.hyperparam = "loss_scale", weft.name = "loss_scale"}
// CHECK: %[[ONE:.*]] = weft.constant 1.000000e+00 : tensor<f32>
// CHECK: %[[INV:.*]] = weft.map div ",->" (%[[ONE]], %[[S]])
// CHECK: weft.einsum "bd,df->bf" ({{.*}}) : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
// CHECK-NOT: weft.loss_seed
// CHECK: weft.map scale "->bf" (%[[S]])
// CHECK: %[[GB:.*]] = weft.einsum "bf,bd->df" ({{.*}}) : (tensor<2x4xf16>, tensor<2x8xf16>) -> tensor<8x4xf16>
// CHECK: %[[G:.*]] = weft.convert %[[GB]] : tensor<8x4xf16> -> tensor<8x4xf32>
// CHECK: %[[U:.*]] = weft.map mul "ab,->ab" (%[[G]], %[[INV]])
// CHECK: return %{{.*}}, %[[U]] : tensor<f32>, tensor<8x4xf32>

// OPT-LABEL: func.func @mlp
// OPT-SAME: -> (tensor<f32> {weft.name = "loss"}, tensor<f32> {weft.finite_grads, weft.name = "grads_finite"}, tensor<8x4xf32> {weft.name = "new_w", weft.updates = 1 : i64}
// OPT: %[[G:.*]] = weft.map mul "ab,->ab"
// OPT: %[[BIG:.*]] = weft.constant 3.4028234663852886E+38 : tensor<f32>
// OPT: %[[A:.*]] = weft.map abs "ab->ab" (%[[G]])
// OPT: %[[OK:.*]] = weft.map le "ab,->ab" (%[[A]], %[[BIG]])
// OPT: %[[F:.*]] = weft.reduce min "ab->" (%[[OK]])
// OPT: return %{{.*}}, %[[F]], %{{.*}}, %{{.*}}, %{{.*}} :

// ACC-LABEL: func.func @mlp
// ACC-SAME: %[[S:arg[0-9]+]]: tensor<f32> {weft.hyperparam = "loss_scale"
// ACC-NOT: weft.loss_seed
// ACC: weft.map scale "->bf" (%[[S]])
// ACC: weft.map scale "->bf" (%[[S]])

// FWD-LABEL: func.func @mlp
// FWD-NOT: loss_scale
// FWD: tensor<2x4xf16>
// FWD-NOT: loss_scale
func.func @mlp(%x: tensor<2x8xf32>, %w: tensor<8x4xf32> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %y = weft.einsum "bd,df->bf" (%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %s = weft.map square "bf->bf" (%y) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
