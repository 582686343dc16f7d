// weft.convert in the interpreter rounds once, to nearest even, from the
// exact value (APFloat): 1 + 2^-8 + 2^-40 goes up to the next bf16
// (1 + 2^-7), where rounding through f32 first (1 + 2^-8, a tie) would give
// 1; 1 + 2^-8 is a bf16 tie that goes to the even 1; 65520 is past f16's
// largest finite value (65504) by half an ulp: infinity; 1e-50 is below
// both types' smallest subnormal: 0; -0 keeps its sign.
// REQUIRES: numpy
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.array([1 + 2**-8 + 2**-40, 1 + 2**-8, 1 + 3 * 2**-8, 65520.0, 1e-50, -0.0]))"
// RUN: weft-interp %s --input=0=%t.npy --print-values | FileCheck %s

// CHECK: result #0: tensor<6xf64>
// CHECK-NEXT: values: 1.0078125 1 1.015625 65536 0 -0
// CHECK: result #1: tensor<6xf64>
// CHECK-NEXT: values: 1.00390625 1.00390625 1.01171875 inf 0 -0
func.func @f(%x: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>) {
  %b = weft.convert %x : tensor<6xf64> -> tensor<6xbf16>
  %bd = weft.convert %b : tensor<6xbf16> -> tensor<6xf64>
  %h = weft.convert %x : tensor<6xf64> -> tensor<6xf16>
  %hd = weft.convert %h : tensor<6xf16> -> tensor<6xf64>
  return %bd, %hd : tensor<6xf64>, tensor<6xf64>
}
