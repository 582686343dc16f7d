// weft.stop_gradient stops the cotangent: the loss sum(w * sg(w)) has the
// gradient sg(w) = w (the product rule's second term is dropped), not 2w,
// and a parameter read only through a stop_gradient gets a zero gradient.
// REQUIRES: numpy
// RUN: weft-opt %s --weft-autodiff | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.w.npy', np.array([1.0, -2.0, 3.0, 0.5], dtype=np.float32)); np.save('%t.v.npy', np.array([4.0, 5.0, 6.0, 7.0], dtype=np.float32))"
// RUN: weft-opt %s --weft-autodiff -o %t.grad.mlir
// RUN: weft-interp %t.grad.mlir --input=0=%t.w.npy --input=1=%t.v.npy --print-values | FileCheck %s --check-prefix=VAL

// CHECK-LABEL: func.func @loss
// CHECK-SAME: weft.grad_of
// CHECK: %[[S:.*]] = weft.stop_gradient %arg0
// CHECK: weft.map mul "i,i->i" (%arg0, %[[S]])
// CHECK: weft.stop_gradient %arg1
// CHECK: weft.reduce sum
// The backward: one product of the cotangent, dw = dy * sg(w); nothing
// for the second factor, and a zero gradient for v.
// CHECK-NOT: weft.stop_gradient
// CHECK: %[[G:.*]] = weft.map mul "i,i->i" (%{{.*}}, %[[S]])
// CHECK-NOT: weft.map mul
// CHECK: %[[Z:.*]] = weft.constant 0.000000e+00 : tensor<4xf32>
// CHECK: return %{{.*}}, %[[G]], %[[Z]]

// The loss: 1 + 4 + 9 + 0.25 + sum(sg(v)) = 14.25 + 22 = 36.25.
// VAL: result #0: tensor<f32>
// VAL-NEXT: values: 36.25
// dw = sg(w) = w.
// VAL: result #1: tensor<4xf32>
// VAL-NEXT: values: 1 -2 3 0.5
// dv = 0.
// VAL: result #2: tensor<4xf32>
// VAL-NEXT: values: 0 0 0 0
func.func @loss(%w: tensor<4xf32> {weft.param, weft.name = "w"}, %v: tensor<4xf32> {weft.param, weft.name = "v"}) -> tensor<f32> {
  %s = weft.stop_gradient %w : tensor<4xf32> -> tensor<4xf32>
  %p = weft.map mul "i,i->i" (%w, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %sv = weft.stop_gradient %v : tensor<4xf32> -> tensor<4xf32>
  %q = weft.map add "i,i->i" (%p, %sv) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = weft.reduce sum "i->" (%q) : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
