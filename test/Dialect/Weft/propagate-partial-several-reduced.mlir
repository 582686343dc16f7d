// A sum over several reduced letters whose annotated result is partial
// over axes no operand splits (seq and z): the axes go on the reduced
// letters, the operand is sliced locally, and the op's natural result is
// the annotated partial sum. Re-propagating weft-propagate's own output on
// the random corpus (gen_random_programs.py --seed 30: a dead einsum of
// @case30_107, typed partial by the first run) failed with "no letter map
// with a valid resharding plan (internal error)" while decide()'s last
// resort placed the extra axes only where one reduced letter could split
// (propagate-partial-slice.mlir). Every placement is now priced, the ones
// that split evenly first: g (14) takes seq, t (12) takes z; z on g would
// need padding (14 is not a multiple of 6).
// RUN: weft-opt --weft-propagate=search=greedy %s | FileCheck %s
// RUN: weft-opt --weft-propagate %s | FileCheck %s
// RUN: weft-opt --weft-propagate %s | weft-opt --weft-propagate | FileCheck %s
// RUN: weft-opt --weft-propagate --weft-partition %s | FileCheck %s --check-prefix=PART

// CHECK: weft.einsum "gFt->" (%arg0) {weft.split = {g = ["y", "seq"], t = ["z"]}}
// PART-NOT: all_
// PART: weft.slice_shard %arg0 on @mesh over ["seq"] dim 0 : tensor<14x1x12xf32> -> tensor<7x1x12xf32>
// PART-NEXT: weft.slice_shard %0 on @mesh over ["z"] dim 2 : tensor<7x1x12xf32> -> tensor<7x1x4xf32>
// PART-NEXT: weft.einsum "gFt->" (%1) {{.*}} : (tensor<7x1x4xf32>) -> tensor<f32>
// PART-NOT: all_

weft.mesh @mesh ["y" = 1, "z" = 3, "seq" = 2]
func.func @f(%x: tensor<14x1x12xf32, #weft.sharding<@mesh, [{"y"}, {}, {}]>>) -> tensor<f32, #weft.sharding<@mesh, [], partial = sum {"seq", "z"}>> {
  %s = weft.einsum "gFt->" (%x) : (tensor<14x1x12xf32, #weft.sharding<@mesh, [{"y"}, {}, {}]>>) -> tensor<f32, #weft.sharding<@mesh, [], partial = sum {"seq", "z"}>>
  return %s : tensor<f32, #weft.sharding<@mesh, [], partial = sum {"seq", "z"}>>
}
