// weft.shift, the pipeline's step (docs/pipeline.md): result[i] =
// input[i - by] along dim, zeros where that falls outside. Partitioned
// along a dimension split over "stage": with one position per rank the
// local form is exactly one collective_permute of the block (pairs to the
// next position, reversed for by = -1); with two positions per rank the
// boundary position is permuted and the other moves locally; an unsplit
// dimension moves locally with zeros. Checked against the global program
// on 8 ranks (weft-interp --compare); a mutated permute is caught.
// RUN: weft-opt %s | weft-opt | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP: weft.shift %arg0 dim 0 by 1 : tensor<4x2x3xf32, {{.*}}> -> tensor<4x2x3xf32, {{.*}}>
// ROUNDTRIP: weft.shift %arg1 dim 0 by -1 : tensor<8x3xf32, {{.*}}> -> tensor<8x3xf32, {{.*}}>
// RUN: weft-opt %s --weft-propagate --weft-pad-uneven --weft-partition -o %t.local.mlir
// RUN: FileCheck %s < %t.local.mlir
// One position per rank: the block itself goes to the next stage.
// CHECK: weft.collective_permute %arg0 on @mesh over ["stage"] pairs {{\[}}[0, 1], [1, 2], [2, 3]] {{.*}}boundary of weft.shift{{.*}} : tensor<1x1x3xf32>
// Two positions per rank, by -1: the first position goes to the previous
// stage, the second moves down locally.
// CHECK: %[[K:.*]] = weft.slice %arg1 dim 0 start 1 : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK: %[[B:.*]] = weft.slice %arg1 dim 0 start 0 : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK: %[[P:.*]] = weft.collective_permute %[[B]] on @mesh over ["stage"] pairs {{\[}}[1, 0], [2, 1], [3, 2]]
// CHECK: weft.concat %[[K]], %[[P]] dim 0 : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// Not split: zeros and a local slice, no communication.
// CHECK: %[[S:.*]] = weft.slice %arg2 dim 0 start 0 : tensor<6x2xf32> -> tensor<5x2xf32>
// CHECK: %[[Z:.*]] = weft.constant 0.000000e+00 : tensor<1x2xf32>
// CHECK: weft.concat %[[Z]], %[[S]] dim 0
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 3 of 3 result(s) match
// RUN: sed -e 's/pairs \[\[0, 1\], \[1, 2\], \[2, 3\]\]/pairs [[0, 1], [1, 3], [2, 2]]/' %t.local.mlir > %t.broken.mlir
// RUN: not weft-interp %s --compare %t.broken.mlir | FileCheck %s --check-prefix=BROKEN
// BROKEN: MISMATCH
// The comm report prices each permute at one position's bytes.
// RUN: weft-opt %t.local.mlir --weft-comm-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// REPORT: collective_permute {"stage"} 1x1x3xf32 1x1x3xf32 12 boundary of weft.shift at line {{[0-9]+}} (dim 0 shifted by 1 over {stage})
// REPORT: collective_permute {"stage"} 1x3xf32 1x3xf32 12 boundary of weft.shift at line {{[0-9]+}} (dim 0 shifted by -1 over {stage})
// REPORT: total 2 collective(s), 24 bytes/device

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @f(%a: tensor<4x2x3xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}, {}]>>,
             %b: tensor<8x3xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>,
             %c: tensor<6x4xf32, #weft.sharding<@mesh, [{}, {"data"}]>>)
    -> (tensor<4x2x3xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}, {}]>>,
        tensor<8x3xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>,
        tensor<6x4xf32, #weft.sharding<@mesh, [{}, {"data"}]>>) {
  %0 = weft.shift %a dim 0 by 1 : tensor<4x2x3xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}, {}]>> -> tensor<4x2x3xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}, {}]>>
  %1 = weft.shift %b dim 0 by -1 : tensor<8x3xf32, #weft.sharding<@mesh, [{"stage"}, {}]>> -> tensor<8x3xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>
  %2 = weft.shift %c dim 0 by 1 : tensor<6x4xf32, #weft.sharding<@mesh, [{}, {"data"}]>> -> tensor<6x4xf32, #weft.sharding<@mesh, [{}, {"data"}]>>
  return %0, %1, %2 : tensor<4x2x3xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}, {}]>>, tensor<8x3xf32, #weft.sharding<@mesh, [{"stage"}, {}]>>, tensor<6x4xf32, #weft.sharding<@mesh, [{}, {"data"}]>>
}
