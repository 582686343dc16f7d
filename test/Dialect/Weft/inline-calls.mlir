// RUN: weft-opt %s --weft-inline-calls -split-input-file | FileCheck %s
// RUN: weft-opt %s --inline -split-input-file | FileCheck %s --check-prefix=UPSTREAM

// Two calls of one layer become two copies of its ops, in call order, each
// reading its own weight; the private layer no call references is erased.
// The module records which function each call called (weft.call_sites,
// for the comm report's tallies by call: docs/calls.md, "Reports by call").
// CHECK: module attributes {weft.call_sites = {layer = ["{{.*}}inline-calls.mlir:29:8", "{{.*}}inline-calls.mlir:30:8"]}}
weft.mesh @mesh ["data" = 2]
func.func private @layer(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %y = weft.map relu "be->be" (%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
// CHECK-NOT: func.func private @layer
// CHECK-LABEL: func.func @two_layers
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W0:.*]]: tensor<16x16xf32>, %[[W1:.*]]: tensor<16x16xf32>)
// CHECK-NEXT: %[[H0:.*]] = weft.einsum "bd,de->be" (%[[X]], %[[W0]])
// CHECK-NEXT: %[[Y0:.*]] = weft.map relu "be->be" (%[[H0]])
// CHECK-NEXT: %[[H1:.*]] = weft.einsum "bd,de->be" (%[[Y0]], %[[W1]])
// CHECK-NEXT: %[[Y1:.*]] = weft.map relu "be->be" (%[[H1]])
// CHECK-NEXT: return %[[Y1]]
// CHECK-NOT: func.call
// UPSTREAM-LABEL: func.func @two_layers
// UPSTREAM-COUNT-2: weft.einsum
// UPSTREAM-NOT: call @layer
func.func @two_layers(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>,
                      %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %b = func.call @layer(%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = func.call @layer(%b, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// Nested calls flatten (the callee's own calls first); a callee's sharding
// signature (its annotated weight) and weft.shard constraints come along;
// a public function that is also called stays, since it may be an entry.
weft.mesh @mesh ["model" = 2]
func.func private @mlp(%x: tensor<4x8xf32>, %w: tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32> {
  %h = weft.einsum "bd,df->bf" (%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32>
  %s = weft.shard %h : tensor<4x8xf32> -> tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}]>>
  %y = weft.map add "bf,bf->bf" (%x, %s) : (tensor<4x8xf32>, tensor<4x8xf32, #weft.sharding<@mesh, [{}, {}]>>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @block(%x: tensor<4x8xf32>, %w: tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32> {
  %y = func.call @mlp(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32>
  %z = weft.map tanh "bf->bf" (%y) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
// CHECK-NOT: @mlp
// CHECK-LABEL: func.func @block
// CHECK-NEXT: = weft.einsum "bd,df->bf"
// CHECK-NEXT: = weft.shard
// CHECK-NEXT: = weft.map add
// CHECK-NEXT: = weft.map tanh
// CHECK-LABEL: func.func @net
// CHECK-COUNT-2: weft.einsum "bd,df->bf"
// CHECK-NOT: func.call
func.func @net(%x: tensor<4x8xf32>, %w: tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32> {
  %a = func.call @block(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32>
  %b = func.call @block(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// A program without calls is unchanged.
weft.mesh @mesh ["data" = 2]
// CHECK-LABEL: func.func @flat
// CHECK-NEXT: = weft.map exp
// CHECK-NEXT: return
func.func @flat(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = weft.map exp "b->b" (%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
