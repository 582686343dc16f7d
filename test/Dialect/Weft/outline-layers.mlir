// RUN: weft-opt %s --weft-outline-layers -split-input-file | FileCheck %s
// RUN: weft-opt %s --weft-outline-layers -split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// --weft-outline-layers on local programs whose ops carry the locations
// weft-inline-calls gives: `callsite(<line in the layer> at <call>)`.

// Two runs from two calls, equal but for their external values: one
// function of the externals (x, w in first-use order) returning what is
// used after the run; each run a call at its call's location. Inside, the
// layer's own lines.
// CHECK-LABEL: func.func private @layer_0
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[H:.*]] = weft.einsum "bd,de->be" (%[[X]], %[[W]])
// CHECK-NEXT: %[[Y:.*]] = weft.map relu "be->be" (%[[H]])
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @two_calls
// CHECK-NEXT: %[[C0:.*]] = call @layer_0(%arg0, %arg1)
// CHECK-NEXT: %[[C1:.*]] = call @layer_0(%[[C0]], %arg2)
// CHECK-NEXT: %[[S:.*]] = weft.map add "be,be->be" (%[[C1]], %[[C0]])
// CHECK-NEXT: return %[[S]]
// LOC-LABEL: func.func private @layer_0
// LOC: weft.einsum {{.*}} loc("layer.mlir":3:5)
// LOC: weft.map relu {{.*}} loc("layer.mlir":4:5)
// LOC-LABEL: func.func @two_calls
// LOC: call @layer_0{{.*}} loc("layer.mlir":10:3)
// LOC: call @layer_0{{.*}} loc("layer.mlir":11:3)
func.func @two_calls(%x: tensor<8x16xf32>, %w0: tensor<16x16xf32>,
                     %w1: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h0 = weft.einsum "bd,de->be" (%x, %w0) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("layer.mlir":3:5 at "layer.mlir":10:3))
  %y0 = weft.map relu "be->be" (%h0) : (tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("layer.mlir":4:5 at "layer.mlir":10:3))
  %h1 = weft.einsum "bd,de->be" (%y0, %w1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("layer.mlir":3:5 at "layer.mlir":11:3))
  %y1 = weft.map relu "be->be" (%h1) : (tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("layer.mlir":4:5 at "layer.mlir":11:3))
  %s = weft.map add "be,be->be" (%y1, %y0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

// Structurally different runs are different functions: relu twice, tanh
// twice (each pair equal), so two functions and four calls. A value used
// after its run in one member only is still returned by the function (the
// union over members); the other call leaves that result unused.
// CHECK-LABEL: func.func private @layer_0
// CHECK-SAME: -> (tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: weft.map relu
// CHECK-LABEL: func.func private @layer_1
// CHECK-SAME: -> tensor<8x16xf32>
// CHECK: weft.map tanh
// CHECK-LABEL: func.func @two_kinds
// CHECK-NEXT: %[[A:.*]]:2 = call @layer_0(%arg0, %arg1)
// CHECK-NEXT: %[[B:.*]]:2 = call @layer_0(%[[A]]#1, %arg1)
// CHECK-NEXT: %[[C:.*]] = call @layer_1(%[[B]]#1, %arg1)
// CHECK-NEXT: %[[D:.*]] = call @layer_1(%[[C]], %arg1)
// CHECK-NEXT: weft.map add "be,be->be" (%[[D]], %[[A]]#0)
func.func @two_kinds(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %h0 = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":3:5 at "a.mlir":20:3))
  %y0 = weft.map relu "be->be" (%h0) : (tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":4:5 at "a.mlir":20:3))
  %h1 = weft.einsum "bd,de->be" (%y0, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":3:5 at "a.mlir":21:3))
  %y1 = weft.map relu "be->be" (%h1) : (tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":4:5 at "a.mlir":21:3))
  %h2 = weft.einsum "bd,de->be" (%y1, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":7:5 at "a.mlir":22:3))
  %y2 = weft.map tanh "be->be" (%h2) : (tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":8:5 at "a.mlir":22:3))
  %h3 = weft.einsum "bd,de->be" (%y2, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":7:5 at "a.mlir":23:3))
  %y3 = weft.map tanh "be->be" (%h3) : (tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":8:5 at "a.mlir":23:3))
  %s = weft.map add "be,be->be" (%y3, %h0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

// Asynchronous collectives: a start and its wait stay in one function (the
// verifier's rule). Each run starts an all-reduce and waits for it inside
// (outlined with it), and starts one more whose wait is in the next run or
// after: that start and that wait stay in the caller, cutting the runs.
// CHECK-LABEL: func.func private @layer_0
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[A:.*]] = weft.all_reduce sum %[[X]] {{.*}}weft.async
// CHECK-NEXT: %[[H:.*]] = weft.einsum {{.*}}(%[[X]], %[[W]])
// CHECK-NEXT: %[[R:.*]] = weft.wait %[[A]]
// CHECK-NEXT: %[[S:.*]] = weft.map add {{.*}}(%[[R]], %[[H]])
// CHECK-NEXT: return %[[S]]
// CHECK-LABEL: func.func @async_pairs
// CHECK-NEXT: %[[C0:.*]] = call @layer_0(%arg0, %arg1)
// CHECK-NEXT: %[[B0:.*]] = weft.all_reduce sum %[[C0]] {{.*}}weft.async
// CHECK-NEXT: %[[Q0:.*]] = weft.wait %[[B0]]
// CHECK-NEXT: %[[C1:.*]] = call @layer_0(%[[Q0]], %arg1)
// CHECK-NEXT: %[[B1:.*]] = weft.all_reduce sum %[[C1]] {{.*}}weft.async
// CHECK-NEXT: %[[Q1:.*]] = weft.wait %[[B1]]
// CHECK-NEXT: return %[[Q1]]
weft.mesh @mesh ["data" = 2]
func.func @async_pairs(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %a0 = weft.all_reduce sum %x on @mesh over ["data"] {weft.async = 1 : i64} : tensor<8x16xf32> loc(callsite("a.mlir":5:5 at "a.mlir":30:3))
  %h0 = weft.einsum "bd,de->be" (%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":6:5 at "a.mlir":30:3))
  %r0 = weft.wait %a0 : tensor<8x16xf32> loc(callsite("a.mlir":5:5 at "a.mlir":30:3))
  %s0 = weft.map add "be,be->be" (%r0, %h0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":7:5 at "a.mlir":30:3))
  %b0 = weft.all_reduce sum %s0 on @mesh over ["data"] {weft.async = 1 : i64} : tensor<8x16xf32> loc(callsite("a.mlir":8:5 at "a.mlir":30:3))
  %q0 = weft.wait %b0 : tensor<8x16xf32> loc(callsite("a.mlir":8:5 at "a.mlir":31:3))
  %a1 = weft.all_reduce sum %q0 on @mesh over ["data"] {weft.async = 1 : i64} : tensor<8x16xf32> loc(callsite("a.mlir":5:5 at "a.mlir":31:3))
  %h1 = weft.einsum "bd,de->be" (%q0, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":6:5 at "a.mlir":31:3))
  %r1 = weft.wait %a1 : tensor<8x16xf32> loc(callsite("a.mlir":5:5 at "a.mlir":31:3))
  %s1 = weft.map add "be,be->be" (%r1, %h1) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> loc(callsite("a.mlir":7:5 at "a.mlir":31:3))
  %b1 = weft.all_reduce sum %s1 on @mesh over ["data"] {weft.async = 1 : i64} : tensor<8x16xf32> loc(callsite("a.mlir":8:5 at "a.mlir":31:3))
  %q1 = weft.wait %b1 : tensor<8x16xf32> loc("a.mlir":40:3)
  return %q1 : tensor<8x16xf32>
}
