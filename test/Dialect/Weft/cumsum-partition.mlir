// weft.cumsum along a split dimension: each rank scans its block, the block
// totals (one value per line) are all-gathered over the dimension's axes,
// scanned exclusively, and each rank adds its offset; the tensor itself
// never moves. Checked against the global program on 8 ranks, with the
// scanned dimension split over one and two axes, reversed, exclusive, and
// uneven (padded).
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' | FileCheck %s
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// On a mesh that divides nothing evenly: 16 over 3 and 6 over 5.
// RUN: sed -e 's/"data" = 2, "model" = 4/"data" = 5, "model" = 3/' %s > %t.uneven.mlir
// RUN: weft-opt %t.uneven.mlir --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.uneven.local.mlir
// RUN: weft-interp %t.uneven.mlir --compare %t.uneven.local.mlir | FileCheck %s --check-prefix=CMP
// Dropping the offsets is caught: the block scans alone differ.
// RUN: sed -e 's/weft.map add "abc,ac->abc"/weft.map max "abc,ac->abc"/' %t.local.mlir > %t.broken.mlir
// RUN: not weft-interp %s --compare %t.broken.mlir | FileCheck %s --check-prefix=BROKEN
// BROKEN: MISMATCH

weft.mesh @mesh ["data" = 2, "model" = 4]

// CHECK-LABEL: func.func @scans
// CHECK: %[[S:.*]] = weft.cumsum %arg0 dim 1 {{.*}}: tensor<3x4x4xf32> -> tensor<3x4x4xf32>
// CHECK-NEXT: %[[T:.*]] = weft.reduce sum "abc->ac" (%arg0) : (tensor<3x4x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[C:.*]] = weft.map scale "ac->abc" (%[[T]]) {scalar = 1.000000e+00 : f64} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
// CHECK-NEXT: %[[G:.*]] = weft.all_gather %[[C]] on @mesh over ["model"] dim 1 {weft.bytes_per_device = 144 : i64, weft.reason = "block totals of weft.cumsum at line {{[0-9]+}} (dim 1 scanned over {model})"} : tensor<3x1x4xf32> -> tensor<3x4x4xf32>
// CHECK-NEXT: %[[B:.*]] = weft.cumsum %[[G]] dim 1 exclusive : tensor<3x4x4xf32> -> tensor<3x4x4xf32>
// CHECK-NEXT: %[[M:.*]] = weft.slice_shard %[[B]] on @mesh over ["model"] dim 1 : tensor<3x4x4xf32> -> tensor<3x1x4xf32>
// CHECK-NEXT: %[[O:.*]] = weft.reduce sum "abc->ac" (%[[M]]) : (tensor<3x1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: weft.map add "abc,ac->abc" (%[[S]], %[[O]])
func.func @scans(%x: tensor<6x16x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>)
    -> (tensor<6x16x4xf32>, tensor<6x16x4xf32>, tensor<6x16x4xf32, #weft.sharding<@mesh, [{}, {"data", "model"}, {}]>>, tensor<6x16x4xf32>) {
  %a = weft.cumsum %x dim 1 : tensor<6x16x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<6x16x4xf32>
  %b = weft.cumsum %x dim 1 exclusive reverse : tensor<6x16x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<6x16x4xf32>
  %e = weft.map exp "abc->abc" (%x) : (tensor<6x16x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>) -> tensor<6x16x4xf32>
  %c = weft.cumsum %e dim 1 exclusive : tensor<6x16x4xf32> -> tensor<6x16x4xf32, #weft.sharding<@mesh, [{}, {"data", "model"}, {}]>>
  %d = weft.cumsum %x dim 0 reverse : tensor<6x16x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>> -> tensor<6x16x4xf32>
  return %a, %b, %c, %d : tensor<6x16x4xf32>, tensor<6x16x4xf32>, tensor<6x16x4xf32, #weft.sharding<@mesh, [{}, {"data", "model"}, {}]>>, tensor<6x16x4xf32>
}
