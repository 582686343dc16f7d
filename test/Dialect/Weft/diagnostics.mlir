// Outside -verify-diagnostics, bad input exits non-zero with a diagnostic that
// names the file, line and column of the op.
// RUN: not weft-opt %s 2>&1 | FileCheck %s

weft.mesh @mesh ["model" = 4]
func.func @f(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) {
  // CHECK: diagnostics.mlir:[[@LINE+1]]:8: error: 'weft.einsum' op letter 'j' has size 3 in operand #0 but size 5 in operand #1
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>
  return
}
