// The resharding planner on a 2x2x2 mesh, a representative set of layout
// pairs and the collective sequence each needs. The planner slices first,
// then reduce-scatters and all-to-alls, then all-reduces, and gathers last,
// so tensors are smallest while bytes move.
// RUN: weft-opt --weft-partition -split-input-file %s | FileCheck %s

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// split -> replicated: all-gather.
// CHECK-LABEL: func.func @gather
// CHECK-NEXT: weft.all_gather %arg0 on @cube over ["x"] dim 0 {weft.bytes_per_device = 1024 : i64, {{.*}}} : tensor<4x8x8xf32> -> tensor<8x8x8xf32>
// CHECK-NEXT: return
func.func @gather(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}]>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}]>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// replicated -> split: a local slice, no communication.
// CHECK-LABEL: func.func @slice
// CHECK-NEXT: weft.slice_shard %arg0 on @cube over ["y", "z"] dim 1 : tensor<8x8x8xf32> -> tensor<8x2x8xf32>
// CHECK-NEXT: return
func.func @slice(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"y", "z"}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"y", "z"}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"y", "z"}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// partial -> replicated: all-reduce (2 (p-1)/p of 2 KiB).
// CHECK-LABEL: func.func @all_reduce
// CHECK-NEXT: weft.all_reduce sum %arg0 on @cube over ["x"] {weft.bytes_per_device = 2048 : i64, {{.*}}} : tensor<8x8x8xf32>
// CHECK-NEXT: return
func.func @all_reduce(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}], partial = sum {"x"}>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}], partial = sum {"x"}>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// partial -> split: reduce-scatter; a partial axis the target keeps stays.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-NEXT: weft.reduce_scatter sum %arg0 on @cube over ["x"] dim 2 {weft.bytes_per_device = 1024 : i64, {{.*}}} : tensor<8x8x8xf32> -> tensor<8x8x4xf32>
// CHECK-NEXT: return
func.func @reduce_scatter(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}], partial = sum {"x", "y"}>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {"x"}], partial = sum {"y"}>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {}], partial = sum {"x", "y"}>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {"x"}], partial = sum {"y"}>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {}, {"x"}], partial = sum {"y"}>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// split on one dim -> split on another: all-to-all ((p-1)/p of the 1 KiB local).
// CHECK-LABEL: func.func @all_to_all
// CHECK-NEXT: weft.all_to_all %arg0 on @cube over ["z"] split 1 concat 0 {weft.bytes_per_device = 512 : i64, {{.*}}} : tensor<4x8x8xf32> -> tensor<8x4x8xf32>
// CHECK-NEXT: return
func.func @all_to_all(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{"z"}, {}, {}]>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"z"}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{"z"}, {}, {}]>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"z"}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"z"}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// Dropping the minor axis of a dim: gather over it alone.
// CHECK-LABEL: func.func @drop_minor
// CHECK-NEXT: weft.all_gather %arg0 on @cube over ["y"] dim 0 {{.*}} : tensor<2x8x8xf32> -> tensor<4x8x8xf32>
// CHECK-NEXT: return
func.func @drop_minor(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{"x", "y"}, {}, {}]>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{"x", "y"}, {}, {}]>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// Reordering the axes of a dim: gather both, slice in the new order.
// CHECK-LABEL: func.func @reorder
// CHECK-NEXT: %[[G:.*]] = weft.all_gather %arg0 on @cube over ["x", "y"] dim 0 {{.*}} : tensor<2x8x8xf32> -> tensor<8x8x8xf32>
// CHECK-NEXT: weft.slice_shard %[[G]] on @cube over ["y", "x"] dim 0 : tensor<8x8x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: return
func.func @reorder(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{"x", "y"}, {}, {}]>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{"y", "x"}, {}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{"x", "y"}, {}, {}]>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{"y", "x"}, {}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{"y", "x"}, {}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// Swapping the axes of two dims: gather x, move y with an all-to-all, slice x.
// CHECK-LABEL: func.func @swap
// CHECK-NEXT: %[[G:.*]] = weft.all_gather %arg0 on @cube over ["x"] dim 0 {{.*}} : tensor<4x4x8xf32> -> tensor<8x4x8xf32>
// CHECK-NEXT: %[[A:.*]] = weft.all_to_all %[[G]] on @cube over ["y"] split 0 concat 1 {{.*}} : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
// CHECK-NEXT: weft.slice_shard %[[A]] on @cube over ["x"] dim 1 : tensor<4x8x8xf32> -> tensor<4x4x8xf32>
// CHECK-NEXT: return
func.func @swap(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {"y"}, {}]>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{"y"}, {"x"}, {}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {"y"}, {}]>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{"y"}, {"x"}, {}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{"y"}, {"x"}, {}]>>
}

// -----

weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// Everything at once: slice the free axis first, reduce-scatter the partial
// one, then gather.
// CHECK-LABEL: func.func @composite
// CHECK-NEXT: %[[S:.*]] = weft.slice_shard %arg0 on @cube over ["z"] dim 2 : tensor<4x8x8xf32> -> tensor<4x8x4xf32>
// CHECK-NEXT: %[[R:.*]] = weft.reduce_scatter sum %[[S]] on @cube over ["y"] dim 1 {{.*}} : tensor<4x8x4xf32> -> tensor<4x4x4xf32>
// CHECK-NEXT: weft.all_gather %[[R]] on @cube over ["x"] dim 0 {{.*}} : tensor<4x4x4xf32> -> tensor<8x4x4xf32>
// CHECK-NEXT: return
func.func @composite(%a: tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}], partial = sum {"y"}>>) -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"y"}, {"z"}]>> {
  %b = weft.shard %a : tensor<8x8x8xf32, #weft.sharding<@cube, [{"x"}, {}, {}], partial = sum {"y"}>> -> tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"y"}, {"z"}]>>
  return %b : tensor<8x8x8xf32, #weft.sharding<@cube, [{}, {"y"}, {"z"}]>>
}
