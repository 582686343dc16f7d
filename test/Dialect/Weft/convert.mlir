// weft.convert: round trip, and its folds under --canonicalize: a convert
// to the operand's own type is the operand; a convert of a convert whose
// first step is exact (a widening) converts the original operand directly;
// a first step that rounds (f32 -> bf16) stays.
// RUN: weft-opt %s | weft-opt | FileCheck %s --check-prefix=ROUND
// RUN: weft-opt %s --canonicalize | FileCheck %s

// ROUND-LABEL: func.func @folds
// ROUND: weft.convert %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
// ROUND: weft.convert %{{.*}} : tensor<4x8xf16> -> tensor<4x8xf32>

// CHECK-LABEL: func.func @folds
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[HD:.*]] = weft.convert %[[H]] : tensor<4x8xf16> -> tensor<4x8xf64>
// CHECK-NEXT: %[[B:.*]] = weft.convert %[[A]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK-NEXT: %[[BF:.*]] = weft.convert %[[B]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[A]], %[[HD]], %[[BF]], %[[A]] :
func.func @folds(%a: tensor<4x8xf32>, %h: tensor<4x8xf16>)
    -> (tensor<4x8xf32>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = weft.convert %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = weft.convert %h : tensor<4x8xf16> -> tensor<4x8xf32>
  %2 = weft.convert %1 : tensor<4x8xf32> -> tensor<4x8xf64>
  %3 = weft.convert %a : tensor<4x8xf32> -> tensor<4x8xbf16>
  %4 = weft.convert %3 : tensor<4x8xbf16> -> tensor<4x8xf32>
  %5 = weft.convert %a : tensor<4x8xf32> -> tensor<4x8xf64>
  %6 = weft.convert %5 : tensor<4x8xf64> -> tensor<4x8xf32>
  return %0, %2, %4, %6 : tensor<4x8xf32>, tensor<4x8xf64>, tensor<4x8xf32>, tensor<4x8xf32>
}

// f16 and bf16 share no values beyond each other's range: f16 -> bf16
// rounds, so the pair stays two converts.
// CHECK-LABEL: func.func @no_fold
// CHECK: weft.convert %{{.*}} : tensor<4xf16> -> tensor<4xbf16>
// CHECK: weft.convert %{{.*}} : tensor<4xbf16> -> tensor<4xf32>
func.func @no_fold(%h: tensor<4xf16>) -> tensor<4xf32> {
  %0 = weft.convert %h : tensor<4xf16> -> tensor<4xbf16>
  %1 = weft.convert %0 : tensor<4xbf16> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
