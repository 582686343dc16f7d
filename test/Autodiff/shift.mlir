// The gradient of weft.shift is the cotangent shifted back (by negated):
// the backward pipeline's transfer from each stage to the previous one.
// RUN: weft-opt %s --weft-autodiff | FileCheck %s

// CHECK-LABEL: func.func @loss
// CHECK: weft.shift %{{.*}} dim 0 by 1 : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: weft.shift %{{.*}} dim 0 by -1 : tensor<4x3xf32> -> tensor<4x3xf32>
func.func @loss(%x: tensor<4x3xf32>, %w: tensor<4x3xf32> {weft.param, weft.name = "w"}) -> tensor<f32> {
  %h = weft.map mul "sd,sd->sd" (%x, %w) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %s = weft.shift %h dim 0 by 1 : tensor<4x3xf32> -> tensor<4x3xf32>
  %q = weft.map square "sd->sd" (%s) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %l = weft.reduce sum "sd->" (%q) : (tensor<4x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
