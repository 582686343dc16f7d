// Bad weft.collective_permute: pairs outside the group, a position sent
// from or to twice, negative positions, no pairs, a malformed pair.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @outside_group(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op pair [3, 4] is outside the group of 4 rank(s) over ["stage"]}}
  %0 = weft.collective_permute %a on @mesh over ["stage"] pairs [[3, 4]] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @two_sources(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op position 0 is the source of two pairs}}
  %0 = weft.collective_permute %a on @mesh over ["stage"] pairs [[0, 1], [0, 2]] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @two_targets(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op position 2 is the target of two pairs}}
  %0 = weft.collective_permute %a on @mesh over ["stage"] pairs [[0, 2], [1, 2]] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @negative(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op pair [-1, 2] has a negative group position}}
  %0 = weft.collective_permute %a on @mesh over ["stage"] pairs [[-1, 2]] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @no_pairs(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op needs at least one source-target pair}}
  %0 = weft.collective_permute %a on @mesh over ["stage"] pairs [] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @odd_generic(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op pairs hold 3 positions; each pair is [source, target]}}
  %0 = "weft.collective_permute"(%a) <{mesh = @mesh, axes = ["stage"], pairs = array<i64: 0, 1, 2>}> : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @not_a_pair(%a: tensor<8xf32>) {
  // expected-error@+1 {{expected ','}}
  %0 = weft.collective_permute %a on @mesh over ["stage"] pairs [[0]] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["stage" = 4, "data" = 2]
func.func @unknown_axis(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.collective_permute' op names axis "pipe", which mesh @mesh does not have (its axes: "stage", "data")}}
  %0 = weft.collective_permute %a on @mesh over ["pipe"] pairs [[0, 1]] : tensor<8xf32>
  return
}
