// RUN: weft-opt %s --weft-inline-calls | FileCheck %s
// A vjp of a function with an integer argument (token ids): the integer
// argument is passed and has no gradient, so the declaration returns one
// gradient per float argument (docs/pipeline.md, "1F1B from layer calls":
// the embedding's vjp takes the tokens).

func.func private @embed(%ids: tensor<4xi32>, %t: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %e = weft.embed "b,vd->bd" (%ids, %t) : (tensor<4xi32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %e : tensor<4x2xf32>
}
func.func private @embed_vjp(tensor<4xi32>, tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> attributes {weft.vjp_of = @embed}

// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[IDS:.*]]: tensor<4xi32>, %[[T:.*]]: tensor<8x2xf32>, %[[G:.*]]: tensor<4x2xf32>)
// The embedding's gradient: the cotangent's rows added into the table's.
// CHECK: %[[DT:.*]] = weft.scatter_add {{.*}}(%[[IDS]], %[[G]])
// CHECK-NOT: func.call
// CHECK: return %[[DT]] : tensor<8x2xf32>
func.func @main(%ids: tensor<4xi32>, %t: tensor<8x2xf32>, %g: tensor<4x2xf32>) -> tensor<8x2xf32> {
  %dt = func.call @embed_vjp(%ids, %t, %g) : (tensor<4xi32>, tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %dt : tensor<8x2xf32>
}
