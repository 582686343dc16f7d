// Ranks that hold only pads (2 elements on 4 ranks) carry a partial max of
// -inf after the -inf fill of a reduce max: scale by 0, log and sqrt do not
// pass a partial max through (0 * -inf and log(-inf) are NaN), so the
// partial is resolved before them. Found by the differential fuzzer (seed
// 227 case 217, --uneven 1).
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir --all-funcs | FileCheck %s
// CHECK-NOT: MISMATCH
// CHECK: compare-all: 3 of 3 function(s) match
weft.mesh @mesh ["x" = 4]
func.func @scale0(%a: tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<f32> {
  %m = weft.reduce max "T->" (%a) : (tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<f32>
  %z = weft.map scale "->" (%m) {scalar = 0.0 : f64} : (tensor<f32>) -> tensor<f32>
  return %z : tensor<f32>
}
func.func @log(%a: tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<f32> {
  %e = weft.map shift "T->T" (%a) {scalar = 2.0 : f64} : (tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<2xf32>
  %m = weft.reduce max "T->" (%e) : (tensor<2xf32>) -> tensor<f32>
  %z = weft.map log "->" (%m) : (tensor<f32>) -> tensor<f32>
  return %z : tensor<f32>
}
func.func @sqrt(%a: tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<f32> {
  %e = weft.map shift "T->T" (%a) {scalar = 2.0 : f64} : (tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>) -> tensor<2xf32>
  %m = weft.reduce max "T->" (%e) : (tensor<2xf32>) -> tensor<f32>
  %z = weft.map sqrt "->" (%m) : (tensor<f32>) -> tensor<f32>
  return %z : tensor<f32>
}
