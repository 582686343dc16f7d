// --weft-pad-uneven: dimensions their axes do not divide are padded at the
// end, the padded signature records weft.logical_shape, and weft.pad_fill
// clears every pad an op could have made nonzero (exp(0) = 1, an embed of
// pad id 0) or fills the reduced letter's pads with -inf before a max (the
// kept letter b keeps zero pads, so the max of a pad row is 0). neg keeps
// zero pads: no fill. The embed's d letter is not split: its class is not
// padded.
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven))' | FileCheck %s
// -debug-only=weft-pad-uneven traces its decisions.
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven))' -debug-only=weft-pad-uneven -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: [weft-pad-uneven] fill the padding of {{.*}} with {{.*}} before weft.{{[a-z_]+}} at loc(
// The partitioned program equals the unpadded global one on 8 ranks.
// RUN: weft-opt %s --pass-pipeline='builtin.module(func.func(weft-propagate,weft-pad-uneven,weft-partition))' -o %t.local.mlir
// RUN: weft-interp %s --func f --compare %t.local.mlir --local-func f | FileCheck %s --check-prefix=CMP
// CMP: compare: 4 of 4 result(s) match
// Without the fills the pads leak into the max and the sum: the check
// above can fail.
// RUN: sed -e 's/fill 0xFFF0000000000000/fill 0.0/' %t.local.mlir > %t.nofill.mlir
// RUN: not weft-interp %s --func f --compare %t.nofill.mlir --local-func f | FileCheck %s --check-prefix=NOFILL
// NOFILL: result #1: MISMATCH

weft.mesh @mesh ["data" = 4, "model" = 2]

// CHECK-LABEL: func.func @f(
// CHECK-SAME: tensor<12x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>> {weft.logical_shape = array<i64: 10, 7>}
// CHECK-SAME: tensor<12xi32, #weft.sharding<@mesh, [{"data"}]>> {weft.logical_shape = array<i64: 10>}
// CHECK-SAME: tensor<5x7xf32, #weft.sharding<@mesh, [{}, {}]>>)
// CHECK-SAME: -> (tensor<12x8xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>> {weft.logical_shape = array<i64: 10, 7>}, tensor<12xf32, #weft.sharding<@mesh, [{"data"}], partial = max {"model"}>> {weft.logical_shape = array<i64: 10>}, tensor<12x7xf32, #weft.sharding<@mesh, [{"data"}, {}]>> {weft.logical_shape = array<i64: 10, 7>}, tensor<7xf32, #weft.sharding<@mesh, [{}], partial = sum {"data"}>>)
func.func @f(%x: tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>,
             %ids: tensor<10xi32, #weft.sharding<@mesh, [{"data"}]>>,
             %tab: tensor<5x7xf32>) -> (tensor<10x7xf32>, tensor<10xf32>, tensor<10x7xf32>, tensor<7xf32>) {
  // CHECK: %[[E:.*]] = weft.map exp
  // CHECK-NEXT: %[[EZ:.*]] = weft.pad_fill %[[E]] valid [10, 7] fill 0.000000e+00 {weft.split = {a = ["data"], b = ["model"]}}
  // CHECK-NEXT: %[[R:.*]] = weft.map neg "bd->bd" (%[[EZ]])
  // CHECK-NEXT: %[[RM:.*]] = weft.pad_fill %[[R]] valid [12, 7] fill 0xFFF0000000000000
  // CHECK-NEXT: %[[M:.*]] = weft.reduce max "bd->b" (%[[RM]])
  // CHECK-NEXT: %[[G:.*]] = weft.embed
  // CHECK-SAME: -> tensor<12x7xf32
  // CHECK-NEXT: %[[GZ:.*]] = weft.pad_fill %[[G]] valid [10, 7] fill 0.000000e+00
  // CHECK-NEXT: %[[S:.*]] = weft.reduce sum "bd->d" (%[[GZ]])
  // CHECK-NEXT: return %[[R]], %[[M]], %[[GZ]], %[[S]]
  %e = weft.map exp "bd->bd" (%x) : (tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<10x7xf32>
  %r = weft.map neg "bd->bd" (%e) : (tensor<10x7xf32>) -> tensor<10x7xf32>
  %m = weft.reduce max "bd->b" (%r) : (tensor<10x7xf32>) -> tensor<10xf32>
  %g = weft.embed "b,vd->bd" (%ids, %tab) : (tensor<10xi32, #weft.sharding<@mesh, [{"data"}]>>, tensor<5x7xf32>) -> tensor<10x7xf32>
  %s = weft.reduce sum "bd->d" (%g) : (tensor<10x7xf32>) -> tensor<7xf32>
  return %r, %m, %g, %s : tensor<10x7xf32>, tensor<10xf32>, tensor<10x7xf32>, tensor<7xf32>
}

// An evenly split program is left alone.
// CHECK-LABEL: func.func @even(
// CHECK-SAME: tensor<8x4xf32
// CHECK-NOT: weft.pad_fill
// CHECK: return
func.func @even(%x: tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<8x4xf32> {
  %e = weft.map exp "bd->bd" (%x) : (tensor<8x4xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<8x4xf32>
  return %e : tensor<8x4xf32>
}

// A max (min) over a padded letter that keeps a padded letter, used by a sum
// over the kept letter (found by the differential fuzzer's uneven cases):
// only the reduced letter's pads read -inf (+inf); the kept letter's pad
// rows stay 0, so their max (min) is 0 and the sum adds nothing. Filling the
// kept pads too (valid [10, 7]) left -inf (+inf) in the pad rows of %m (%n)
// and the sums came out -inf (+inf).
// RUN: weft-interp %s --func max_kept_pad --compare %t.local.mlir --local-func max_kept_pad | FileCheck %s --check-prefix=KEPT
// KEPT: compare: 2 of 2 result(s) match
// RUN: sed -e 's/valid \[12, 7\] fill 0x/valid [10, 7] fill 0x/' %t.local.mlir > %t.kept.mlir
// RUN: not weft-interp %s --func max_kept_pad --compare %t.kept.mlir --local-func max_kept_pad | FileCheck %s --check-prefix=KEPTBAD
// KEPTBAD: result #0: MISMATCH
// KEPTBAD: result #1: MISMATCH
// CHECK-LABEL: func.func @max_kept_pad(
// CHECK: weft.pad_fill %arg0 valid [12, 7] fill 0xFFF0000000000000
// CHECK-NEXT: weft.reduce max "bd->b"
// CHECK: weft.pad_fill %arg0 valid [12, 7] fill 0x7FF0000000000000
// CHECK-NEXT: weft.reduce min "bd->b"
func.func @max_kept_pad(%x: tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> (tensor<f32>, tensor<f32>) {
  %m = weft.reduce max "bd->b" (%x) : (tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<10xf32>
  %s = weft.reduce sum "b->" (%m) : (tensor<10xf32>) -> tensor<f32>
  %n = weft.reduce min "bd->b" (%x) : (tensor<10x7xf32, #weft.sharding<@mesh, [{"data"}, {"model"}]>>) -> tensor<10xf32>
  %t = weft.reduce sum "b->" (%n) : (tensor<10xf32>) -> tensor<f32>
  return %s, %t : tensor<f32>, tensor<f32>
}

// exp's zero fill would be read only by the max, which reads the -inf fill
// of exp's result instead: the zero fill is dropped.
// CHECK-LABEL: func.func @dead_zero_fill(
// CHECK: %[[E:.*]] = weft.map exp
// CHECK-NEXT: weft.pad_fill %[[E]] valid [6, 5] fill 0xFFF0000000000000
// CHECK-NOT: fill 0.000000e+00
// CHECK: return
func.func @dead_zero_fill(%a: tensor<6x5xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<6xf32> {
  %e = weft.map exp "ab->ab" (%a) : (tensor<6x5xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<6x5xf32>
  %m = weft.reduce max "ab->a" (%e) : (tensor<6x5xf32>) -> tensor<6xf32>
  return %m : tensor<6xf32>
}
