// RUN: weft-opt %s --weft-inline-calls | FileCheck %s
// A declaration marked weft.vjp_of = @layer (docs/pipeline.md, "1F1B"):
// weft-inline-calls writes its body, the layer's forward recomputed from
// the call's operands and its reverse seeded with the cotangent %g, then
// flattens its call like any other. The layer and the vjp are erased once
// nothing calls them.

func.func private @layer(%w: tensor<4x4xf32>, %x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %m = weft.einsum "bd,de->be" (%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %h = weft.map tanh "be->be" (%m) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %h : tensor<2x4xf32>
}
func.func private @layer_vjp(tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>) attributes {weft.vjp_of = @layer}

// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[W:.*]]: tensor<4x4xf32>, %[[X:.*]]: tensor<2x4xf32>, %[[G:.*]]: tensor<2x4xf32>)
// The forward, recomputed from the operands:
// CHECK: %[[M:.*]] = weft.einsum "bd,de->be" (%[[X]], %[[W]])
// CHECK: %[[H:.*]] = weft.map tanh "be->be" (%[[M]])
// Its reverse, seeded with %g: tanh' = 1 - h^2, then both einsum operands.
// CHECK: weft.map {{.*}}(%[[G]]
// CHECK-DAG: %[[DW:.*]] = weft.einsum "{{.*}}->de"
// CHECK-DAG: %[[DX:.*]] = weft.einsum "{{.*}}->bd"
// CHECK-NOT: func.call
// CHECK: return %[[DW]], %[[DX]] : tensor<4x4xf32>, tensor<2x4xf32>
func.func @main(%w: tensor<4x4xf32>, %x: tensor<2x4xf32>, %g: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>) {
  %dw, %dx = func.call @layer_vjp(%w, %x, %g) : (tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>)
  return %dw, %dx : tensor<4x4xf32>, tensor<2x4xf32>
}
