// Round trip of #weft.sharding and weft.mesh in every form.
// RUN: weft-opt %s | FileCheck %s
// RUN: weft-opt %s > %t.1.mlir && weft-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir
// RUN: weft-opt %s --mlir-print-op-generic | weft-opt | diff %t.1.mlir -

// CHECK: weft.mesh @mesh ["data" = 2, "model" = 4]
weft.mesh @mesh ["data" = 2, "model" = 4]
// CHECK: weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
weft.mesh @cube ["x" = 2, "y" = 2, "z" = 2]
// An axis of size 1 is allowed.
// CHECK: weft.mesh @single ["one" = 1]
weft.mesh @single ["one" = 1]

// CHECK-LABEL: func.func @forms
// Replicated.
// CHECK-SAME: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>
// One axis per dim.
// CHECK-SAME: tensor<8x16x512xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>
// Two axes on one dim, major to minor, in both orders.
// CHECK-SAME: tensor<64x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>
// CHECK-SAME: tensor<64x16xf32, #weft.sharding<@mesh, [{"model", "data"}, {}]>>
// Partial states.
// CHECK-SAME: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>
// CHECK-SAME: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}], partial = max {"model"}>>
// CHECK-SAME: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = min {"data", "model"}>>
// Three axes of a 3-D mesh on one dim; rank 0.
// CHECK-SAME: tensor<8x3xf32, #weft.sharding<@cube, [{"z", "x", "y"}, {}]>>
// CHECK-SAME: tensor<f32, #weft.sharding<@mesh, []>>
func.func @forms(
    %a: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>,
    %b: tensor<8x16x512xf32, #weft.sharding<@mesh, [{"data"}, {}, {"model"}]>>,
    %c: tensor<64x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>,
    %d: tensor<64x16xf32, #weft.sharding<@mesh, [{"model", "data"}, {}]>>,
    %e: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>,
    %f: tensor<8x16xf32, #weft.sharding<@mesh, [{"data"}, {}], partial = max {"model"}>>,
    %g: tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = min {"data", "model"}>>,
    %h: tensor<8x3xf32, #weft.sharding<@cube, [{"z", "x", "y"}, {}]>>,
    %i: tensor<f32, #weft.sharding<@mesh, []>>) {
  // Ops verify the shardings of their operands against the mesh.
  // CHECK: weft.einsum "ij,ij->ij"
  %0 = weft.einsum "ij,ij->ij" (%a, %e) : (tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}]>>, tensor<8x16xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"model"}>>) -> tensor<8x16xf32>
  %1 = weft.einsum "ij->j" (%h) : (tensor<8x3xf32, #weft.sharding<@cube, [{"z", "x", "y"}, {}]>>) -> tensor<3xf32>
  %2 = weft.einsum "ij,->ij" (%c, %i) : (tensor<64x16xf32, #weft.sharding<@mesh, [{"data", "model"}, {}]>>, tensor<f32, #weft.sharding<@mesh, []>>) -> tensor<64x16xf32, #weft.sharding<@mesh, [{"model", "data"}, {}]>>
  return
}

// The parser accepts free spacing.
// CHECK-LABEL: func.func @spacing
// CHECK-SAME: tensor<8xf32, #weft.sharding<@mesh, [{"data"}], partial = sum {"model"}>>
func.func @spacing(%a: tensor<8xf32, #weft.sharding< @mesh ,[ { "data" } ] , partial = sum { "model" } >>) {
  return
}
