// weft.top_k along a split dimension: each rank selects its block's k
// candidates (and their payloads, here positions: argmax and top-2
// indices), all-gathers them over the dimension's axes (k per line and
// rank, never the whole letter) and selects again. Checked against the
// global program with many ties (sign(x) takes 3 values: equal values go to
// the lower global index on every mesh), on 8 ranks, on an uneven mesh
// (blocks smaller than k send all they have) and on 48 ranks.
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' | FileCheck %s
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// RUN: sed -e 's/"data" = 2, "model" = 4/"data" = 3, "model" = 5/' %s > %t.uneven.mlir
// RUN: weft-opt %t.uneven.mlir --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.uneven.local.mlir
// RUN: weft-interp %t.uneven.mlir --compare %t.uneven.local.mlir | FileCheck %s --check-prefix=CMP
// RUN: sed -e 's/"data" = 2, "model" = 4/"data" = 6, "model" = 8/' %s > %t.many.mlir
// RUN: weft-opt %t.many.mlir --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.many.local.mlir
// RUN: weft-interp %t.many.mlir --compare %t.many.local.mlir | FileCheck %s --check-prefix=CMP
// Merging by the first rank's candidates only is caught.
// RUN: sed -e 's/weft.top_k %\([0-9]*\), %\([0-9]*\) dim 1 k 2 : (tensor<3x8xf32>/weft.top_k %\2, %\1 dim 1 k 2 : (tensor<3x8xf32>/' %t.local.mlir > %t.broken.mlir
// RUN: not weft-interp %s --compare %t.broken.mlir | FileCheck %s --check-prefix=BROKEN
// BROKEN: MISMATCH

weft.mesh @mesh ["data" = 2, "model" = 4]

// CHECK-LABEL: func.func @select
// CHECK: %[[V:.*]] = weft.top_k %{{.*}} dim 1 k 2 : (tensor<3x4xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[GV:.*]] = weft.all_gather %[[V]] on @mesh over ["model"] dim 1 {weft.bytes_per_device = 72 : i64, weft.reason = "top-k candidates of weft.top_k at line {{[0-9]+}} (dim 1 selected over {model})"} : tensor<3x2xf32> -> tensor<3x8xf32>
// CHECK-NEXT: weft.top_k %[[GV]] dim 1 k 2 : (tensor<3x8xf32>) -> tensor<3x2xf32>
// CHECK: %[[P:.*]] = weft.top_k %{{.*}}, %{{.*}} dim 1 k 2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[GP:.*]] = weft.all_gather %[[P]]
// CHECK-NEXT: weft.top_k %{{.*}}, %[[GP]] dim 1 k 2 : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x2xf32>
func.func @select(%x: tensor<6x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>)
    -> (tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x1xf32>, tensor<3x16xf32>) {
  %s = weft.map sign "ab->ab" (%x) : (tensor<6x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<6x16xf32>
  %pos0 = weft.iota : tensor<16xf32>
  %pos = weft.map scale "b->ab" (%pos0) {scalar = 1.0 : f64} : (tensor<16xf32>) -> tensor<6x16xf32>
  %v = weft.top_k %x dim 1 k 2 : (tensor<6x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<6x2xf32>
  %i = weft.top_k %s, %pos dim 1 k 2 : (tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<6x2xf32>
  %m = weft.top_k %s, %pos dim 1 k 1 : (tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<6x1xf32>
  %c = weft.top_k %x dim 0 k 3 : (tensor<6x16xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<3x16xf32>
  return %v, %i, %m, %c : tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x1xf32>, tensor<3x16xf32>
}
