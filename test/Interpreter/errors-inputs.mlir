// Inputs from .npy files that do not fit, and ids out of range: errors with
// the location of the op, exit status 1.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/ids.npy', np.array([1, 9, 2], dtype=np.int32)); np.save('%t/neg.npy', np.array([1, -1, 2], dtype=np.int32)); np.save('%t/frac.npy', np.array([1.5, 0, 2])); np.save('%t/t.npy', np.ones((4, 2), dtype=np.float32)); np.save('%t/wrong.npy', np.ones((2, 4), dtype=np.float32)); np.save('%t/fortran.npy', np.asfortranarray(np.ones((4, 2)))); np.save('%t/u8.npy', np.ones((4, 2), dtype=np.uint8))"

// RUN: not weft-interp %s --func global --input 0=%t/ids.npy --input 1=%t/t.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: errors-inputs.mlir:[[@LINE+2]]:8: error: id 9 at index [1] of the ids is outside the vocabulary [0, 4)
func.func @global(%ids: tensor<3xi32>, %t: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %e = weft.embed "t,vd->td" (%ids, %t) : (tensor<3xi32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %e : tensor<3x2xf32>
}
// RUN: not weft-interp %s --func global --input 0=%t/neg.npy 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: id -1 at index [1] of the ids is outside the vocabulary [0, 4)
// RUN: not weft-interp %s --func global --input 0=%t/frac.npy 2>&1 | FileCheck %s --check-prefix=FRAC
// FRAC: error: id 1 at index [0] of the ids is outside the vocabulary [0, 4)

// one_hot and scatter_add check their ids the same way (vocabulary 4).
// RUN: not weft-interp %s --func one_hot --input 0=%t/ids.npy 2>&1 | FileCheck %s --check-prefix=HOT
// HOT: error: id 9 at index [1] of the ids is outside the vocabulary [0, 4)
// RUN: not weft-interp %s --func scatter --input 0=%t/neg.npy 2>&1 | FileCheck %s --check-prefix=SCATTER
// SCATTER: error: id -1 at index [1] of the ids is outside the vocabulary [0, 4)

// In the local view, an id outside the global vocabulary (2 ranks x 2 rows).
// RUN: not weft-interp %s --func local --input 0=%t/ids.npy --input 1=%t/t.npy 2>&1 | FileCheck %s --check-prefix=LOCAL
// LOCAL: errors-inputs.mlir:[[@LINE+4]]:8: error: id 9 at index [1] of the ids is outside the vocabulary [0, 4) (rank 0)
func.func @local(%ids: tensor<3xi32> {weft.global_type = tensor<3xi32>},
    %t: tensor<2x2xf32> {weft.global_type = tensor<4x2xf32, #weft.sharding<@mesh, [{"m"}, {}]>>})
    -> (tensor<3x2xf32> {weft.global_type = tensor<3x2xf32, #weft.sharding<@mesh, [{}, {}], partial = sum {"m"}>>}) {
  %e = weft.embed "t,vd->td" (%ids, %t) vocab on @mesh over ["m"] : (tensor<3xi32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %e : tensor<3x2xf32>
}

// RUN: not weft-interp %s --func global --input 1=%t/wrong.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: weft-interp: error: --input 1: '{{.*}}wrong.npy' has shape 2x4 but argument #1 has shape 4x2
// RUN: not weft-interp %s --func global --input 1=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: weft-interp: error: '{{.*}}fortran.npy' is not a supported .npy file: Fortran order is not supported
// RUN: not weft-interp %s --func global --input 1=%t/u8.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: weft-interp: error: '{{.*}}u8.npy' is not a supported .npy file: unsupported dtype |u1 (supported: <f2, <f4, <f8, <i4, <i8)

weft.mesh @mesh ["m" = 2]

func.func @one_hot(%ids: tensor<3xi32>) -> tensor<3x4xf32> {
  %h = weft.one_hot "t->tv" (%ids) : (tensor<3xi32>) -> tensor<3x4xf32>
  return %h : tensor<3x4xf32>
}

func.func @scatter(%ids: tensor<3xi32>, %u: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %s = weft.scatter_add "t,td->vd" (%ids, %u) : (tensor<3xi32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}
