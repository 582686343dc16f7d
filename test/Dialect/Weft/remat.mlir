// Activation checkpointing per call (docs/calls.md, "Rematerialization"):
// the second layer call is marked weft.remat, so the backward pass
// recomputes its einsum and tanh (whose value the backward of the product
// reads) from the call's input instead of reading the forward pass's
// value; the first call's backward reads the forward pass as usual.
// RUN: weft-opt %s --weft-inline-calls --weft-autodiff --weft-remat | FileCheck %s
// RUN: weft-opt %s --weft-inline-calls | FileCheck %s --check-prefix=MARK
// RUN: weft-opt %s --weft-inline-calls=remat-all --weft-autodiff --weft-remat | FileCheck %s --check-prefix=ALL

weft.mesh @mesh ["data" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %y = weft.map tanh "be->be" (%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = weft.map mul "be,be->be" (%y, %x) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %z : tensor<8x16xf32>
}

// The marks: one group per marked call, on every op inlined from it.
// MARK: weft.map tanh
// MARK-NOT: weft.remat_group
// MARK: weft.map mul
// MARK: weft.einsum {{.*}}weft.remat_group = 0 : i64
// MARK: weft.map tanh {{.*}}weft.remat_group = 0 : i64
// MARK: weft.map mul {{.*}}weft.remat_group = 0 : i64

// CHECK-LABEL: func.func @loss
// CHECK: %[[H0:.*]] = weft.einsum "bd,de->be" (%arg0, %arg1)
// CHECK: %[[Y0:.*]] = weft.map tanh "be->be" (%[[H0]])
// CHECK: %[[Z0:.*]] = weft.map mul "be,be->be" (%[[Y0]], %arg0)
// CHECK: %[[H1:.*]] = weft.einsum "bd,de->be" (%[[Z0]], %arg2)
// CHECK: %[[Y1:.*]] = weft.map tanh "be->be" (%[[H1]])
// CHECK: weft.map mul "be,be->be" (%[[Y1]], %[[Z0]])
// CHECK: %[[L:.*]] = weft.reduce sum
// The backward of the marked call recomputes its einsum and tanh from its
// input %Z0 (saved: the next forward op reads it) and reads the copies.
// CHECK: %[[RH1:.*]] = weft.einsum "bd,de->be" (%[[Z0]], %arg2) {weft.recomputed}
// CHECK: %[[RY1:.*]] = weft.map tanh "be->be" (%[[RH1]]) {weft.recomputed}
// CHECK-NOT: weft.recomputed
// CHECK: weft.map {{.*}}%[[RY1]]
// The first call is not marked: its backward reads the forward values.
// CHECK: weft.map {{.*}}%[[Y0]]
// CHECK-NOT: weft.remat_group
// CHECK: return %[[L]]
func.func @loss(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32> {weft.param},
                %w1: tensor<16x16xf32> {weft.param}) -> tensor<f32> {
  %b = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = func.call @layer(%b, %w1) {weft.remat} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %l = weft.reduce sum "be->" (%c) : (tensor<8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// With remat-all both calls are recomputed (the first from the argument %x).
// ALL: weft.map tanh "be->be" ({{.*}}) {weft.recomputed}
// ALL: weft.map tanh "be->be" ({{.*}}) {weft.recomputed}
// ALL-NOT: weft.remat_group
