// weft.random with an offset operand (a training step): the key is
// seed + offset * 2^32. Offset 0 draws the numbers of no offset; offset 3
// draws others; the partitioned program (the offset read whole, the mask
// drawn block by block on 8 ranks) equals the global one; an offset that
// is not an integer in [0, 2^32) is an error at the op.
// RUN: weft-opt %s | weft-opt | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP: weft.random uniform seed 9 offset(%{{.*}} : tensor<f32>) : tensor<4x8x6xf32>
// RUN: weft-interp %s --print-values | FileCheck %s --check-prefix=VALUES
// VALUES: result #0: tensor<f32> sum 0 sumsq 0
// VALUES: result #1: tensor<f32> sum {{[1-9]}}
// RUN: weft-opt %s --weft-propagate --weft-pad-uneven --weft-partition -o %t.local.mlir
// RUN: FileCheck %s --check-prefix=LOCAL < %t.local.mlir
// LOCAL: weft.random normal seed 9 offset(%{{.*}} : tensor<f32>) on @mesh over {{\[\["data"\], \["model"\], \[\]\]}} {{.*}}: tensor<2x2x6xf32>
// RUN: weft-interp %s --compare %t.local.mlir | FileCheck %s --check-prefix=CMP
// CMP: compare: 3 of 3 result(s) match
// RUN: sed -e 's/constant 3.0/constant 2.5/' %s > %t.frac.mlir
// RUN: not weft-interp %t.frac.mlir 2>&1 | FileCheck %s --check-prefix=FRAC
// FRAC: frac.mlir:27:8: error: offset 2.500000e+00 is not an integer in [0, 2^32)

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @f(%x: tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>)
    -> (tensor<f32>, tensor<f32>, tensor<4x8x6xf32>) {
  %z = weft.constant 0.0 : tensor<f32>
  %three = weft.constant 3.0 : tensor<f32>
  %a = weft.random uniform seed 9 : tensor<4x8x6xf32>
  %b = weft.random uniform seed 9 offset(%z : tensor<f32>) : tensor<4x8x6xf32>
  %c = weft.random normal seed 9 offset(%three : tensor<f32>) : tensor<4x8x6xf32>
  %ab = weft.map sub "abc,abc->abc" (%a, %b) : (tensor<4x8x6xf32>, tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %abs = weft.map abs "abc->abc" (%ab) : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %same = weft.reduce max "abc->" (%abs) : (tensor<4x8x6xf32>) -> tensor<f32>
  %ac = weft.map sub "abc,abc->abc" (%a, %c) : (tensor<4x8x6xf32>, tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %abs2 = weft.map abs "abc->abc" (%ac) : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %diff = weft.reduce max "abc->" (%abs2) : (tensor<4x8x6xf32>) -> tensor<f32>
  %y = weft.map mul "abc,abc->abc" (%x, %c) : (tensor<4x8x6xf32, #weft.sharding<@mesh, [{"data"}, {"model"}, {}]>>, tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %same, %diff, %y : tensor<f32>, tensor<f32>, tensor<4x8x6xf32>
}
