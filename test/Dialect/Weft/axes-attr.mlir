// #weft.axes: the typed axis list of a #weft.sharding (one per dimension and
// one for the partial axes), printed bare inside a sharding and as
// #weft.axes<{...}> on its own. Round trip.
// RUN: weft-opt %s | weft-opt | FileCheck %s

weft.mesh @mesh ["data" = 2, "model" = 4]
// CHECK-LABEL: func.func @f
// CHECK-SAME: tensor<8x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>
// CHECK-SAME: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>
// CHECK-SAME: weft.test_axes = #weft.axes<{"data", "model"}>
func.func @f(%x: tensor<8x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>)
    -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>
    attributes {weft.test_axes = #weft.axes<{"data", "model"}>} {
  %y = weft.shard %x : tensor<8x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>> -> tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>
  return %y : tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = max {"model"}>>
}
