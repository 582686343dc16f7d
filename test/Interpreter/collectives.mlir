// Exact semantics of the local-view ops on a 2x2x2 mesh, hand-checked rank by
// rank. Ranks map to coordinates (a, b, c) row-major: rank = 4a + 2b + c.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x8.npy', np.arange(8, dtype=np.float32)); np.save('%t/x24.npy', np.arange(8, dtype=np.float32).reshape(2, 4)); np.save('%t/inc.npy', np.array([1, 2, 3, 4], dtype=np.float32)); np.save('%t/pm.npy', np.array([3, -5], dtype=np.float32)); np.save('%t/table.npy', np.arange(1, 9, dtype=np.float32).reshape(8, 1)); np.save('%t/ids.npy', np.array([0, 5, 7], dtype=np.int32))"

// A dim split over ["a", "b"]: block index 2a + b, replicated over c.
// RUN: weft-interp %s --func split --input 0=%t/x8.npy --print-ranks --print-values | FileCheck %s --check-prefix=SPLIT
// SPLIT: rank 0 result #0: 2: 0 1
// SPLIT-NEXT: rank 1 result #0: 2: 0 1
// SPLIT-NEXT: rank 2 result #0: 2: 2 3
// SPLIT-NEXT: rank 3 result #0: 2: 2 3
// SPLIT-NEXT: rank 4 result #0: 2: 4 5
// SPLIT-NEXT: rank 5 result #0: 2: 4 5
// SPLIT-NEXT: rank 6 result #0: 2: 6 7
// SPLIT-NEXT: rank 7 result #0: 2: 6 7
// SPLIT: result #0: tensor<8xf32> sum 28 sumsq 140
// SPLIT-NEXT: values: 0 1 2 3 4 5 6 7
func.func @split(%x: tensor<2xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"a", "b"}]>>})
    -> (tensor<2xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"a", "b"}]>>}) {
  return %x : tensor<2xf32>
}

// all_gather over ["b", "a"]: group order b-major, so rank 0's group is
// ranks 0 (b=0,a=0), 4 (b=0,a=1), 2 (b=1,a=0), 6 (b=1,a=1).
// RUN: weft-interp %s --func gather --input 0=%t/x8.npy --print-ranks | FileCheck %s --check-prefix=GATHER
// GATHER-COUNT-8: result #0: 8: 0 1 4 5 2 3 6 7
// GATHER: result #0: tensor<8xf32> sum 28
func.func @gather(%x: tensor<2xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"a", "b"}]>>})
    -> (tensor<8xf32> {weft.global_type = tensor<8xf32>}) {
  %g = weft.all_gather %x on @mesh over ["b", "a"] dim 0 : tensor<2xf32> -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// all_to_all over ["c"]: rank c=j receives block j of dim 1 from both ranks
// of its group and concatenates them along dim 0.
// RUN: weft-interp %s --func a2a --input 0=%t/x24.npy --print-ranks --print-values | FileCheck %s --check-prefix=A2A
// A2A: rank 0 result #0: 2x2: 0 1 4 5
// A2A-NEXT: rank 1 result #0: 2x2: 2 3 6 7
// A2A: values: 0 1 2 3 4 5 6 7
func.func @a2a(%x: tensor<1x4xf32> {weft.global_type = tensor<2x4xf32, #weft.sharding<@mesh, [{"c"}, {}]>>})
    -> (tensor<2x2xf32> {weft.global_type = tensor<2x4xf32, #weft.sharding<@mesh, [{}, {"c"}]>>}) {
  %y = weft.all_to_all %x on @mesh over ["c"] split 1 concat 0 : tensor<1x4xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// reduce_scatter over ["a", "b"] of a replicated [1, 2, 3, 4]: the sum of 4
// copies, block 2a + b.
// RUN: weft-interp %s --func rs --input 0=%t/inc.npy --print-ranks --print-values | FileCheck %s --check-prefix=RS
// RS: rank 0 result #0: 1: 4
// RS-NEXT: rank 1 result #0: 1: 4
// RS-NEXT: rank 2 result #0: 1: 8
// RS-NEXT: rank 3 result #0: 1: 8
// RS-NEXT: rank 4 result #0: 1: 12
// RS-NEXT: rank 5 result #0: 1: 12
// RS-NEXT: rank 6 result #0: 1: 16
// RS-NEXT: rank 7 result #0: 1: 16
// RS: values: 4 8 12 16
func.func @rs(%x: tensor<4xf32> {weft.global_type = tensor<4xf32>})
    -> (tensor<1xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{"a", "b"}]>>}) {
  %y = weft.reduce_scatter sum %x on @mesh over ["a", "b"] dim 0 : tensor<4xf32> -> tensor<1xf32>
  return %y : tensor<1xf32>
}

// all_reduce max and min over ["c"] of [3, -5] split over c.
// RUN: weft-interp %s --func maxmin --input 0=%t/pm.npy --print-values | FileCheck %s --check-prefix=MAXMIN
// MAXMIN: result #0: tensor<1xf32> sum 3
// MAXMIN: result #1: tensor<1xf32> sum -5
func.func @maxmin(%x: tensor<1xf32> {weft.global_type = tensor<2xf32, #weft.sharding<@mesh, [{"c"}]>>})
    -> (tensor<1xf32> {weft.global_type = tensor<1xf32>}, tensor<1xf32> {weft.global_type = tensor<1xf32>}) {
  %mx = weft.all_reduce max %x on @mesh over ["c"] : tensor<1xf32>
  %mn = weft.all_reduce min %x on @mesh over ["c"] : tensor<1xf32>
  return %mx, %mn : tensor<1xf32>, tensor<1xf32>
}

// slice_shard over ["c", "a"]: block index 2c + a; rank 1 = (0,0,1) keeps
// block 2, rank 4 = (1,0,0) keeps block 1.
// RUN: weft-interp %s --func slice --input 0=%t/x8.npy --print-ranks --print-values | FileCheck %s --check-prefix=SLICE
// SLICE: rank 0 result #0: 2: 0 1
// SLICE-NEXT: rank 1 result #0: 2: 4 5
// SLICE-NEXT: rank 2 result #0: 2: 0 1
// SLICE-NEXT: rank 3 result #0: 2: 4 5
// SLICE-NEXT: rank 4 result #0: 2: 2 3
// SLICE-NEXT: rank 5 result #0: 2: 6 7
// SLICE: values: 0 1 2 3 4 5 6 7
func.func @slice(%x: tensor<8xf32> {weft.global_type = tensor<8xf32>})
    -> (tensor<2xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"c", "a"}]>>}) {
  %y = weft.slice_shard %x on @mesh over ["c", "a"] dim 0 : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// A partial-sum input: the rank at position 0 over b holds the value, the
// other zeros; assembling sums them back.
// RUN: weft-interp %s --func partial --input 0=%t/inc.npy --print-ranks --print-values | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: rank 0 result #0: 4: 1 2 3 4
// PARTIAL-NEXT: rank 1 result #0: 4: 1 2 3 4
// PARTIAL-NEXT: rank 2 result #0: 4: 0 0 0 0
// PARTIAL-NEXT: rank 3 result #0: 4: 0 0 0 0
// PARTIAL-NEXT: rank 4 result #0: 4: 1 2 3 4
// PARTIAL: values: 1 2 3 4
func.func @partial(%x: tensor<4xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"b"}>>})
    -> (tensor<4xf32> {weft.global_type = tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"b"}>>}) {
  return %x : tensor<4xf32>
}

// Vocab-split embed: the table rows 1..8 split over ["a", "b"] (2 rows per
// block): rank (a, b, c) holds rows [2p, 2p + 2) with p = 2a + b; ids
// [0, 5, 7]; each rank looks up the ids of its block, zeros elsewhere.
// RUN: weft-interp %s --func embed --input 0=%t/ids.npy --input 1=%t/table.npy --print-ranks --print-values | FileCheck %s --check-prefix=EMBED
// EMBED: rank 0 result #0: 3x1: 1 0 0
// EMBED-NEXT: rank 1 result #0: 3x1: 1 0 0
// EMBED-NEXT: rank 2 result #0: 3x1: 0 0 0
// EMBED-NEXT: rank 3 result #0: 3x1: 0 0 0
// EMBED-NEXT: rank 4 result #0: 3x1: 0 6 0
// EMBED-NEXT: rank 5 result #0: 3x1: 0 6 0
// EMBED-NEXT: rank 6 result #0: 3x1: 0 0 8
// EMBED-NEXT: rank 7 result #0: 3x1: 0 0 8
// EMBED: values: 1 6 8
func.func @embed(%ids: tensor<3xi32> {weft.global_type = tensor<3xi32>},
    %table: tensor<2x1xf32> {weft.global_type = tensor<8x1xf32, #weft.sharding<@mesh, [{"a", "b"}, {}]>>})
    -> (tensor<3x1xf32> {weft.global_type = tensor<3x1xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"a", "b"}>>}) {
  %e = weft.embed "t,vd->td" (%ids, %table) vocab on @mesh over ["a", "b"]
      : (tensor<3xi32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  return %e : tensor<3x1xf32>
}

weft.mesh @mesh ["a" = 2, "b" = 2, "c" = 2]
