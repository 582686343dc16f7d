// A merged dimension is split as its major letter: a block of (hk) is a
// block of h times all of k. Splitting (hk) = 6 over 2 devices divides the
// merged size but not h = 3, so --weft-pad-uneven refuses it at the op
// (before: --weft-partition emitted a local reshape of 2 rows of h that
// did not verify; found by the differential fuzzer's relaxed probe).
// h = 4, k = 3 splits fine and matches the global program.
// RUN: not weft-opt %s --split-input-file --weft-propagate --weft-pad-uneven 2>&1 | FileCheck %s
// CHECK: reshape-major-uneven.mlir:[[@LINE+11]]:8: error: 'weft.reshape' op splits letter 'h' (size 3, the major letter of the merged dimension (hk)) over {x} (2 devices), which do not divide it: a merged dimension is split as its major letter, so split it over axes that divide 3, or none
// CHECK: reshape-major-uneven.mlir:[[@LINE+19]]:8: error: 'weft.reshape' op splits letter 'h' (size 3, the major letter of the merged dimension (hk))
// CHECK-NOT: error
// RUN: sed -n '/^\/\/ FINE$/,$p' %s > %t.fine.mlir
// RUN: weft-opt %t.fine.mlir --weft-propagate --weft-pad-uneven --weft-partition -o %t.fine.local.mlir
// RUN: weft-interp %t.fine.mlir --compare %t.fine.local.mlir | FileCheck %s --check-prefix=FINE
// FINE: compare: 1 of 1 result(s) match

// A split input.
weft.mesh @m ["x" = 2]
func.func @split(%a: tensor<6xf32, #weft.sharding<@m, [{"x"}]>>) -> tensor<3x2xf32, #weft.sharding<@m, [{}, {}]>> {
  %r = weft.reshape "(hk)->hk" (%a) : (tensor<6xf32, #weft.sharding<@m, [{"x"}]>>) -> tensor<3x2xf32, #weft.sharding<@m, [{}, {}]>>
  return %r : tensor<3x2xf32, #weft.sharding<@m, [{}, {}]>>
}

// -----

// A split result.
weft.mesh @m ["x" = 2]
func.func @merge(%a: tensor<3x2xf32, #weft.sharding<@m, [{}, {}]>>) -> tensor<6xf32, #weft.sharding<@m, [{"x"}]>> {
  %r = weft.reshape "hk->(hk)" (%a) : (tensor<3x2xf32, #weft.sharding<@m, [{}, {}]>>) -> tensor<6xf32, #weft.sharding<@m, [{"x"}]>>
  return %r : tensor<6xf32, #weft.sharding<@m, [{"x"}]>>
}

// -----

// FINE
weft.mesh @m ["x" = 2]
func.func @fine(%a: tensor<12xf32, #weft.sharding<@m, [{"x"}]>>) -> tensor<4x3xf32> {
  %r = weft.reshape "(hk)->hk" (%a) : (tensor<12xf32, #weft.sharding<@m, [{"x"}]>>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
