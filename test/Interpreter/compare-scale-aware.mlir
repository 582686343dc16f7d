// Guards the scale-aware tolerance of --compare (Compare.h): a correct
// partition of a program whose values reach 4e16 matches, although one
// element cancels to 1 in the global order and to 0 in the partitioned one
// (the partial sums 1e16 + 1 and -1e16 + 1 each lose the 1). The tolerance
// is atol + rtol * max |global|, as test/numpy/weft_numpy.py measures; a
// per-element tolerance (atol + rtol * |global|) reported a false mismatch.
// Also: --rtol and --atol must be finite and >= 0 (`--atol inf` made every
// comparison pass).

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([[1e16, 1, -1e16, 1], [1e16, 1e16, 1e16, 1e16]])); np.save('%t/w.npy', np.ones(4))"
// RUN: weft-opt --weft-propagate --weft-partition %s -o %t/local.mlir
// RUN: weft-interp %s --compare %t/local.mlir --input 0=%t/x.npy --input 1=%t/w.npy | FileCheck %s
// CHECK: result #0: match tensor<2xf64> on 2 rank(s): max abs error 1, max rel error 2.5e-17
// CHECK: compare: 1 of 1 result(s) match

// The difference is real: with no tolerance it is reported, at the element
// that cancels, with the scale.
// RUN: not weft-interp %s --compare %t/local.mlir --input 0=%t/x.npy --input 1=%t/w.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT
// EXACT: result #0: MISMATCH tensor<2xf64> on 2 rank(s): max abs error 1, max rel error 2.5e-17; 1 of 2 element(s) beyond atol 0 + rtol 0 * max |global| 4e+16, worst at [0]: local 0, global 1

// RUN: not weft-interp %s --compare %t/local.mlir --atol inf 2>&1 | FileCheck %s --check-prefix=INF
// INF: weft-interp: error: --atol must be a finite number >= 0, got inf
// RUN: not weft-interp %s --compare %t/local.mlir --rtol nan 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: weft-interp: error: --rtol must be a finite number >= 0, got nan
// RUN: not weft-interp %s --compare %t/local.mlir --atol=-1e-3 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: weft-interp: error: --atol must be a finite number >= 0, got -0.001

weft.mesh @mesh ["model" = 2]

func.func @dot(%x: tensor<2x4xf64, #weft.sharding<@mesh, [{}, {"model"}]>>,
               %w: tensor<4xf64, #weft.sharding<@mesh, [{"model"}]>>)
    -> tensor<2xf64, #weft.sharding<@mesh, [{}]>> {
  %y = weft.einsum "ij,j->i" (%x, %w) : (tensor<2x4xf64, #weft.sharding<@mesh, [{}, {"model"}]>>, tensor<4xf64, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<2xf64, #weft.sharding<@mesh, [{}]>>
  return %y : tensor<2xf64, #weft.sharding<@mesh, [{}]>>
}
