// --weft-fuse-elementwise builds a fused op at its root's position, so a
// producer it takes is computed there and its operands live until then. It
// takes a producer only if the operands whose lives that extends past an
// op outside the group that allocates hold no more bytes than the
// producer's result (and a sixteenth): fusion does not raise the peak
// (docs/fusion.md, "Lifetimes"). Without the rule, an unrolled 1F1B
// pipeline's peak grew with its micro-batch count
// (test/training/pipeline-1f1b-memory.test).
// RUN: weft-opt %s --weft-fuse-elementwise | FileCheck %s
// The fused functions compute what the unfused ones do (the interpreter's
// checksums of their results agree).
// RUN: weft-opt %s --weft-fuse-elementwise -o %t.mlir
// RUN: weft-interp %s --func=same_bytes_across_work > %t.a
// RUN: weft-interp %t.mlir --func=same_bytes_across_work > %t.b
// RUN: diff %t.a %t.b
// RUN: weft-interp %s --func=operands_live_anyway > %t.c
// RUN: weft-interp %t.mlir --func=operands_live_anyway > %t.d
// RUN: diff %t.c %t.d

// Two full-size operands (8 KiB) for a 4 KiB result, with an einsum (an
// allocation) between the add and its only reader: the add is not moved
// past it.
// CHECK-LABEL: func.func @binary_across_work
// CHECK: %[[S:.*]] = weft.map add "ab,ab->ab"
// CHECK-NEXT: weft.einsum
// CHECK-NEXT: weft.map exp "ab->ab" (%[[S]])
func.func @binary_across_work(%x: tensor<32x32xf32>, %y: tensor<32x32xf32>,
    %w: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %s = weft.map add "ab,ab->ab" (%x, %y) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = weft.einsum "ab,bc->ac" (%w, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %e = weft.map exp "ab->ab" (%s) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %e, %m : tensor<32x32xf32>, tensor<32x32xf32>
}

// The same add with nothing between it and its reader fuses.
// CHECK-LABEL: func.func @binary_adjacent
// CHECK: weft.fused_map "ab,ab->ab" (%{{.*}}, %{{.*}}) steps "s0 = add(in0, in1); s1 = exp(s0)"
func.func @binary_adjacent(%x: tensor<32x32xf32>, %y: tensor<32x32xf32>,
    %w: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %m = weft.einsum "ab,bc->ac" (%w, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = weft.map add "ab,ab->ab" (%x, %y) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %e = weft.map exp "ab->ab" (%s) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %e, %m : tensor<32x32xf32>, tensor<32x32xf32>
}

// A unary producer across the einsum: its operand (4 KiB) lives instead of
// its result (4 KiB), no more bytes: it fuses. So does a producer with a
// row statistic beside its full-size operand (within the sixteenth).
// CHECK-LABEL: func.func @same_bytes_across_work
// CHECK: weft.einsum
// CHECK-NEXT: weft.fused_map "ab,a->ab" (%{{.*}}, %{{.*}}) steps "s0 = tanh(in0); s1 = mul(s0, in1); s2 = exp(s1)"
func.func @same_bytes_across_work(%x: tensor<32x32xf32>, %r: tensor<32xf32>,
    %w: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %t = weft.map tanh "ab->ab" (%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = weft.map mul "ab,a->ab" (%t, %r) : (tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %m = weft.einsum "ab,bc->ac" (%w, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %e = weft.map exp "ab->ab" (%s) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %e, %m : tensor<32x32xf32>, tensor<32x32xf32>
}

// Operands read after the root anyway (they are returned): moving the add
// keeps nothing alive longer, so it fuses across the einsum.
// CHECK-LABEL: func.func @operands_live_anyway
// CHECK: weft.einsum
// CHECK-NEXT: weft.fused_map "ab,ab->ab" (%{{.*}}, %{{.*}}) steps "s0 = add(in0, in1); s1 = exp(s0)"
func.func @operands_live_anyway(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>)
    -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  %x2 = weft.map neg "ab->ab" (%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = weft.map add "ab,ab->ab" (%x2, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = weft.einsum "ab,bc->ac" (%w, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %e = weft.map exp "ab->ab" (%s) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %k = weft.map relu "ab->ab" (%x2) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %e, %m, %k : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
