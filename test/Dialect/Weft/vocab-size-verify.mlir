// RUN: weft-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// weft.vocab_size (what --weft-pad-uneven records on a lookup whose
// vocabulary it padded) bounds randomly drawn ids, so the verifier keeps it
// within the op's vocabulary: the global block extent, pads included.

weft.mesh @mesh ["x" = 4]
// Local view: 3 rows per rank over x = 4 is a padded vocabulary of 12.
// CHECK-LABEL: func.func @padded
// CHECK: weft.vocab_size = 10
func.func @padded(%ids: tensor<4xi32>, %t: tensor<3x8xf32>) -> tensor<4x8xf32> {
  %e = weft.embed "b,vd->bd" (%ids, %t) vocab on @mesh over ["x"] {weft.vocab_size = 10 : i64} : (tensor<4xi32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

weft.mesh @mesh ["x" = 4]
func.func @over(%ids: tensor<4xi32>, %t: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{weft.vocab_size = 13 : i64 is outside [1, 12], the op's vocabulary}}
  %e = weft.embed "b,vd->bd" (%ids, %t) vocab on @mesh over ["x"] {weft.vocab_size = 13 : i64} : (tensor<4xi32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

func.func @zero(%ids: tensor<4xi32>, %t: tensor<10x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{weft.vocab_size = 0 : i64 is outside [1, 10], the op's vocabulary}}
  %e = weft.embed "b,vd->bd" (%ids, %t) {weft.vocab_size = 0 : i64} : (tensor<4xi32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

func.func @not_integer(%ids: tensor<4xi32>, %t: tensor<10x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{weft.vocab_size must be an integer}}
  %e = weft.embed "b,vd->bd" (%ids, %t) {weft.vocab_size = "ten"} : (tensor<4xi32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

func.func @not_a_lookup(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{weft.vocab_size is only for the block-indexed ops (weft.embed, weft.scatter_add, weft.one_hot, weft.iota)}}
  %y = weft.map relu "a->a" (%x) {weft.vocab_size = 4 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
