// Found by the differential fuzzer (scripts/fuzz-partition.sh, seed 1, e.g.
// @case1_1: `weft.map mul "K,d->Kd" (%v1, %v1)`).
//
// One value used as BOTH operands of an op, with different letters, so each
// operand needs its own layout: here operand #0 needs `a` split on x (letter
// i), operand #1 needs it replicated (letter j is not split).
// Partition.cpp (Partitioner::partitionOp) records each operand's local value
// in an IRMapping keyed by the global value, so the second getAs() overwrites
// the first and the cloned op reads the replicated local value for both
// operands: its local types disagree and the output does not verify.
//
// STATUS when written: FAILS (weft-opt exits 1):
//   error: 'weft.map' op letter 'i' has size 4 in operand #0 but size 2 in
//   the result
// Expected once fixed: the partitioned program verifies and matches.

// RUN: weft-opt --weft-propagate --weft-partition %s -o %t.local.mlir
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s
// CHECK: result #0: match tensor<4x4xf32> on 2 rank(s)
// CHECK: compare: 1 of 1 result(s) match

weft.mesh @m ["x" = 2]

func.func @outer(%a: tensor<4xf32, #weft.sharding<@m, [{"x"}]>>)
    -> tensor<4x4xf32> {
  %r = weft.map mul "i,j->ij" (%a, %a)
      : (tensor<4xf32, #weft.sharding<@m, [{"x"}]>>, tensor<4xf32, #weft.sharding<@m, [{"x"}]>>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
