// A reduce whose annotated result is partial over more axes than its
// annotated operand is split over (data -> data, model): the operand is
// sliced locally over model (no communication) and the reduce sums its
// piece. weftc's plan for T1 under the calibrated CPU profile has one (the
// b1 gradient), so re-propagating T1's global view failed with "no letter
// map with a valid resharding plan (internal error)" before greedy's
// decide() extended the reduced letter by the result's partial axes and
// the search counted a local slice of an annotated operand as reading it
// as annotated (docs/propagation.md, "Annotations are intent").
// RUN: weft-opt --weft-propagate=search=greedy %s | FileCheck %s
// RUN: weft-opt --weft-propagate %s | FileCheck %s
// RUN: weft-opt --weft-propagate %s | weft-opt --weft-propagate | FileCheck %s
// RUN: weft-opt --weft-propagate --weft-partition %s | FileCheck %s --check-prefix=PART

// CHECK: weft.reduce sum "bd->d" (%arg0) {weft.split = {b = ["data", "model"]}}
// PART-NOT: all_
// PART: weft.slice_shard %arg0 on @mesh over ["model"] dim 0 : tensor<4x4xf32> -> tensor<2x4xf32>
// PART-NEXT: weft.reduce sum "bd->d" (%0) {{.*}} : (tensor<2x4xf32>) -> tensor<4xf32>
// PART-NOT: all_

weft.mesh @mesh ["data" = 2, "model" = 2]
func.func @f(%x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"data", "model"}>> {
  %r = weft.reduce sum "bd->d" (%x) : (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"data", "model"}>>
  return %r : tensor<4xf32, #weft.sharding<@mesh, [{}], partial = sum {"data", "model"}>>
}
