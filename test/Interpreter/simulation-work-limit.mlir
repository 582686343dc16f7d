// weft-interp bounds the loop iterations of one op (--max-work, default
// 2^33): an einsum that contracts two letters no operand shares
// (`btz,fd->btd`) loops over every letter at once and ran for minutes on
// small tensors (found by scripts/fuzz-mutate.py, seed 21). An error at the
// op, never a hang.
// RUN: not weft-interp %s --max-work 4095 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: weft-interp %s --max-work 4096 | FileCheck %s --check-prefix=FITS
// RUN: not weft-interp %s --max-work 0 2>&1 | FileCheck %s --check-prefix=BAD
// OVER: simulation-work-limit.mlir:[[@LINE+5]]:8: error: evaluating this op takes more than 4095 loop iterations over its ranks (the product of its letters' sizes); weft-interp evaluates at most that many (raise with --max-work)
// FITS: result #0: tensor<4x4xf32>
// BAD: error: --max-ranks, --max-elements and --max-work must be >= 1
func.func @f(%a: tensor<4x4x16xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // b=4, t=4, z=16, f=4, d=4: 4096 iterations.
  %y = weft.einsum "btz,fd->bd" (%a, %w) : (tensor<4x4x16xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
