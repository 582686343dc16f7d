// NaN propagates through relu, max and min (and max/min reductions), as in
// numpy's np.maximum and the runtime (ElementOps.h): relu(NaN) used to be 0
// in the runtime and the interpreter but NaN in the numpy reference
// (../shared/robustness.md, lower severity). The runtime's side is
// ElementTests NanPropagatesThroughMaxMinRelu.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([np.nan, -1, 2, np.nan], dtype=np.float32)); np.save('%t/y.npy', np.array([0, np.nan, 1, 5], dtype=np.float32))"
// RUN: weft-interp %s --input 0=%t/x.npy --input 1=%t/y.npy --print-values | FileCheck %s
// CHECK: result #0: tensor<4xf32>
// CHECK-NEXT: values: nan nan 2 nan
// CHECK: result #1: tensor<f32>
// CHECK-NEXT: values: nan
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %r = weft.map relu "i->i" (%x) : (tensor<4xf32>) -> tensor<4xf32>
  %m = weft.map max "i,i->i" (%r, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %n = weft.map min "i,i->i" (%y, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = weft.reduce max "i->" (%n) : (tensor<4xf32>) -> tensor<f32>
  return %m, %s : tensor<4xf32>, tensor<f32>
}
