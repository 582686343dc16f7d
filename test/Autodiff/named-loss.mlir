// A loss result with attributes (weft.name) keeps them, and each gradient
// gets its own: --weft-autodiff once indexed past the old one-entry
// result-attribute array here and aborted.
// RUN: weft-opt %s --weft-autodiff | FileCheck %s
// CHECK: -> (tensor<f32> {weft.name = "loss"}, tensor<4xf32> {weft.grad_of = 0 : i64, weft.name = "grad_w"}, tensor<4xf32> {weft.grad_of = 1 : i64, weft.name = "grad_v"})
func.func @f(%w: tensor<4xf32> {weft.param, weft.name = "w"},
             %v: tensor<4xf32> {weft.param, weft.name = "v"}) -> (tensor<f32> {weft.name = "loss"}) {
  %p = weft.map mul "a,a->a" (%w, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = weft.reduce sum "a->" (%p) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
