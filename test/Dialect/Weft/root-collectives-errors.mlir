// Bad root collectives: the root outside its group, a negative root,
// shapes against the group size, dimensions and axes.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @root_outside_group(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.broadcast' op root 4 is outside the group of 4 rank(s) over ["model"]}}
  %0 = weft.broadcast %a on @mesh over ["model"] root 4 : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @root_outside_two_axes(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.reduce_to' op root 8 is outside the group of 8 rank(s) over ["data", "model"]}}
  %0 = weft.reduce_to sum %a on @mesh over ["data", "model"] root 8 : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @negative_root(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.reduce_to' op root -1 is negative: it is a position in the group}}
  %0 = weft.reduce_to sum %a on @mesh over ["model"] root -1 : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @gather_wrong_size(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.gather_to' op result dimension 0 should have size 8 (group size 4), got 4}}
  %0 = weft.gather_to %a on @mesh over ["model"] root 0 dim 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @scatter_not_divisible(%a: tensor<6x8xf32>) {
  // expected-error@+1 {{'weft.scatter_from' op dimension 0 has size 6, which is not divisible by the group size 4}}
  %0 = weft.scatter_from %a on @mesh over ["model"] root 1 dim 0 : tensor<6x8xf32> -> tensor<1x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @gather_dim_out_of_range(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.gather_to' op dimension 2 is out of range for rank 2}}
  %0 = weft.gather_to %a on @mesh over ["model"] root 0 dim 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @no_axes(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.broadcast' op needs at least one mesh axis}}
  %0 = weft.broadcast %a on @mesh over [] root 0 : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @unknown_axis(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.scatter_from' op names axis "pipe", which mesh @mesh does not have (its axes: "data", "model")}}
  %0 = weft.scatter_from %a on @mesh over ["pipe"] root 0 dim 0 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @rank_change(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.gather_to' op changes the rank from 2 to 1}}
  %0 = weft.gather_to %a on @mesh over ["model"] root 0 dim 0 : tensor<2x8xf32> -> tensor<64xf32>
  return
}
