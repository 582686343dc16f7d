// The same defect as regress-repeated-operand-layout.mlir, here SILENT: the
// partitioned program verifies but computes twice the right answer.
//
// %p is a partial sum over x (einsum "ij->i" contracts j, split on x). The
// outer product einsum "i,j->ij" (%p, %p) is linear in one operand, so it
// accepts operand #0 partial and asks for operand #1 all-reduced. Because
// Partitioner::partitionOp maps operands through an IRMapping keyed by the
// global value, the clone reads the all-reduced value for BOTH operands, and
// the result, declared partial over x, is all-reduced once more:
// every element is 2 * p_i * p_j (the group size times the true value).
//
// STATUS when written: FAILS (weft-interp exits 1):
//   result #0: MISMATCH tensor<4x4xf32> on 2 rank(s): max abs error 2.81,
//   max rel error 1; 16 of 16 element(s) beyond rtol 1e-09 atol 1e-10, ...
// Expected once fixed: match.

// RUN: weft-opt --weft-propagate --weft-partition %s -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s
// CHECK: result #0: match tensor<4x4xf32> on 2 rank(s)
// CHECK: compare: 1 of 1 result(s) match

weft.mesh @m ["x" = 2]

func.func @square_of_partial(%a: tensor<4x4xf32, #weft.sharding<@m, [{}, {"x"}]>>)
    -> tensor<4x4xf32, #weft.sharding<@m, [{}, {}]>> {
  %p = weft.einsum "ij->i" (%a)
      : (tensor<4x4xf32, #weft.sharding<@m, [{}, {"x"}]>>) -> tensor<4xf32>
  %r = weft.einsum "i,j->ij" (%p, %p)
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32, #weft.sharding<@m, [{}, {}]>>
  return %r : tensor<4x4xf32, #weft.sharding<@m, [{}, {}]>>
}
