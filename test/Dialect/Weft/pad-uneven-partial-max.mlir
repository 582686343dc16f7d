// Partial values through the padding (found by the differential fuzzer's
// uneven cases, test/Differential/random-partition-uneven.test):
// - a weft.pad_fill on a partial max or min (a -inf fill before a reduce
//   max of a reduce max; a zero fill after exp of a partial max) passes it
//   through: the mask is the same on every rank, so the select commutes
//   with max and min (it used to fail with "cannot make a value partial");
// - ranks holding only pads carry a partial max of -inf: scale by 0, log
//   and sqrt must not pass a partial max (0 * -inf, log(-inf) are NaN), so
//   the partitioner resolves it first (they used to give NaN).
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir --all-funcs | FileCheck %s
// CHECK-NOT: MISMATCH
// CHECK: compare-all: 2 of 2 function(s) match
weft.mesh @mesh ["data" = 4, "model" = 2]
func.func @reduce_of_reduce(%x: tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<f32> {
  %m = weft.reduce max "bd->b" (%x) : (tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<10xf32>
  %s = weft.reduce max "b->" (%m) : (tensor<10xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @exp_of_partial(%x: tensor<10x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<10xf32> {
  %m = weft.reduce max "bd->b" (%x) : (tensor<10x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<10xf32>
  %e = weft.map exp "b->b" (%m) : (tensor<10xf32>) -> tensor<10xf32>
  return %e : tensor<10xf32>
}
