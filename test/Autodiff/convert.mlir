// The gradient of weft.convert is the cotangent converted back to the
// operand's type: f32 master weights used in bf16 get an f32 gradient.
// RUN: weft-opt %s --weft-autodiff | FileCheck %s

// CHECK-LABEL: func.func @loss
// CHECK-SAME: {weft.grad_of = 1 : i64, weft.name = "grad_w"}
// CHECK: weft.convert %arg1 : tensor<8x4xf32> -> tensor<8x4xbf16>
// The cotangent of the f32 product, converted to the product's bf16.
// CHECK: %[[GY:.*]] = weft.convert %{{.*}} : tensor<2x4xf32> -> tensor<2x4xbf16>
// The cotangent of the bf16 weight, in bf16, converted back to f32.
// CHECK: %[[GB:.*]] = weft.einsum "bf,bd->df" (%[[GY]], %arg0) : (tensor<2x4xbf16>, tensor<2x8xbf16>) -> tensor<8x4xbf16>
// CHECK: %[[G:.*]] = weft.convert %[[GB]] : tensor<8x4xbf16> -> tensor<8x4xf32>
// CHECK: return %{{.*}}, %[[G]] : tensor<f32>, tensor<8x4xf32>
func.func @loss(%x: tensor<2x8xbf16>, %w: tensor<8x4xf32> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %wb = weft.convert %w : tensor<8x4xf32> -> tensor<8x4xbf16>
  %y = weft.einsum "bd,df->bf" (%x, %wb) : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
  %y32 = weft.convert %y : tensor<2x4xbf16> -> tensor<2x4xf32>
  %s = weft.map square "bf->bf" (%y32) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = weft.reduce sum "bf->" (%s) : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
