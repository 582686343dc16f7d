// weft-optimize-collectives on hand-written local programs.
// RUN: weft-opt --weft-optimize-collectives -split-input-file %s | FileCheck %s

weft.mesh @mesh ["data" = 2, "model" = 4]
// An all-reduce only sliced afterwards is a reduce-scatter.
// CHECK-LABEL: func.func @all_reduce_then_slice
// CHECK-NEXT: %[[R:.*]] = weft.reduce_scatter max %arg0 on @mesh over ["model"] dim 1 : tensor<2x64xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_then_slice(%p: tensor<2x64xf32>) -> tensor<2x16xf32> {
  %r = weft.all_reduce max %p on @mesh over ["model"] : tensor<2x64xf32>
  %s = weft.slice_shard %r on @mesh over ["model"] dim 1 : tensor<2x64xf32> -> tensor<2x16xf32>
  return %s : tensor<2x16xf32>
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Not when the all-reduce has another use, or the axes differ.
// CHECK-LABEL: func.func @all_reduce_kept
// CHECK: weft.all_reduce sum
// CHECK: weft.slice_shard
// CHECK: weft.all_reduce sum
// CHECK: weft.slice_shard
func.func @all_reduce_kept(%p: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x16xf32>, tensor<2x32xf32>) {
  %r = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x64xf32>
  %s = weft.slice_shard %r on @mesh over ["model"] dim 1 : tensor<2x64xf32> -> tensor<2x16xf32>
  %r2 = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x64xf32>
  %s2 = weft.slice_shard %r2 on @mesh over ["data"] dim 1 : tensor<2x64xf32> -> tensor<2x32xf32>
  return %r, %s, %s2 : tensor<2x64xf32>, tensor<2x16xf32>, tensor<2x32xf32>
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// A gather and a slice of the same blocks cancel, in both orders.
// CHECK-LABEL: func.func @cancel
// CHECK-NOT: weft.all_gather
// CHECK-NOT: weft.slice_shard
// CHECK: return %arg0, %arg1
func.func @cancel(%a: tensor<2x16xf32>, %b: tensor<2x64xf32>) -> (tensor<2x16xf32>, tensor<2x64xf32>) {
  %g = weft.all_gather %a on @mesh over ["model"] dim 1 : tensor<2x16xf32> -> tensor<2x64xf32>
  %s = weft.slice_shard %g on @mesh over ["model"] dim 1 : tensor<2x64xf32> -> tensor<2x16xf32>
  %s2 = weft.slice_shard %b on @mesh over ["data"] dim 0 : tensor<2x64xf32> -> tensor<1x64xf32>
  %g2 = weft.all_gather %s2 on @mesh over ["data"] dim 0 : tensor<1x64xf32> -> tensor<2x64xf32>
  return %s, %g2 : tensor<2x16xf32>, tensor<2x64xf32>
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// A gather and a slice of different dims do not cancel.
// CHECK-LABEL: func.func @no_cancel
// CHECK: weft.all_gather
// CHECK: weft.slice_shard
func.func @no_cancel(%a: tensor<2x16xf32>) -> tensor<2x32xf32> {
  %g = weft.all_gather %a on @mesh over ["model"] dim 1 : tensor<2x16xf32> -> tensor<2x64xf32>
  %s = weft.slice_shard %g on @mesh over ["data"] dim 1 : tensor<2x64xf32> -> tensor<2x32xf32>
  return %s : tensor<2x32xf32>
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Two all-reduces of one kind merge; of different kinds they do not.
// CHECK-LABEL: func.func @merge
// CHECK-NEXT: %[[M:.*]] = weft.all_reduce sum %arg0 on @mesh over ["model", "data"]
// CHECK-NEXT: %[[A:.*]] = weft.all_reduce max %arg0 on @mesh over ["model"]
// CHECK-NEXT: %[[B:.*]] = weft.all_reduce min %[[A]] on @mesh over ["data"]
func.func @merge(%p: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = weft.all_reduce sum %p on @mesh over ["model"] : tensor<8xf32>
  %b = weft.all_reduce sum %a on @mesh over ["data"] : tensor<8xf32>
  %c = weft.all_reduce max %p on @mesh over ["model"] : tensor<8xf32>
  %d = weft.all_reduce min %c on @mesh over ["data"] : tensor<8xf32>
  return %b, %d : tensor<8xf32>, tensor<8xf32>
}
