// Guards the embedding id bound (getIdBound, include/weft/Interpreter/
// include/weft/Dialect/Weft/IR/IdBound.h, shared with the lowering): the random ids of an input that
// feeds two tables (16 and 64 rows) stay below the smallest table, in the
// global view and in the partitioned view (where the 64-row table is split
// on its vocabulary: 32 local rows times 2 ranks). An id beyond a table is
// an error of the interpreter, so every run below shows the bound.

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: weft-interp %s --seed 3 --output-dir %t/g | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: result #0: tensor<4x8x8xf32>
// RUN: %python -c "import numpy as np; a = np.load('%t/g/arg0.npy'); print('ids', a.dtype, a.min(), a.max())" | FileCheck %s --check-prefix=IDS
// IDS: ids int32 0 15

// RUN: weft-opt --weft-propagate --weft-partition %s -o %t/local.mlir
// RUN: weft-interp %s --compare %t/local.mlir --seed 3 | FileCheck %s --check-prefix=COMPARE
// COMPARE: result #0: match
// COMPARE: result #1: match
// COMPARE: compare: 2 of 2 result(s) match
// The local view alone draws the same ids.
// RUN: weft-interp %t/local.mlir --seed 3 --output-dir %t/l | FileCheck %s --check-prefix=LOCAL
// LOCAL: local view of @two_tables on 2 rank(s)
// RUN: cmp %t/g/arg0.npy %t/l/arg0.npy

weft.mesh @mesh ["model" = 2]

func.func @two_tables(%ids: tensor<4x8xi32>, %small: tensor<16x8xf32>,
                      %big: tensor<64x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %a = weft.embed "bt,vd->btd" (%ids, %small) : (tensor<4x8xi32>, tensor<16x8xf32>) -> tensor<4x8x8xf32>
  %b = weft.embed "bt,vd->btd" (%ids, %big) : (tensor<4x8xi32>, tensor<64x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x8x8xf32>
  return %a, %b : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}
