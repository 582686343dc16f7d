// Malformed asynchronous collectives and weft.wait.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

weft.mesh @mesh ["data" = 2]
func.func @f0(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = weft.all_reduce sum %a on @mesh over ["data"] : tensor<4xf32>
  // expected-error@+1 {{'weft.wait' op waits for an asynchronous collective (one with `weft.async`); its operand is not one}}
  %1 = weft.wait %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

weft.mesh @mesh ["data" = 2]
func.func @f1(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'weft.all_reduce' op is asynchronous (`weft.async`): its result must have exactly one use, a weft.wait}}
  %0 = weft.all_reduce sum %a on @mesh over ["data"] {weft.async = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

weft.mesh @mesh ["data" = 2]
func.func @f2(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'weft.all_reduce' op `weft.async` must be a non-negative integer (the ops it overlaps), got -2 : i64}}
  %0 = weft.all_reduce sum %a on @mesh over ["data"] {weft.async = -2 : i64} : tensor<4xf32>
  %1 = weft.wait %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

weft.mesh @mesh ["data" = 2]
func.func @f3(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'weft.slice_shard' op does not communicate: it cannot be `weft.async`}}
  %0 = weft.slice_shard %a on @mesh over ["data"] dim 0 {weft.async = 0 : i64} : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

weft.mesh @mesh ["data" = 2]
func.func @f4(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'weft.all_reduce' op is asynchronous (`weft.async`): its result must have exactly one use, a weft.wait}}
  %0 = weft.all_reduce sum %a on @mesh over ["data"] {weft.async = 1 : i64} : tensor<4xf32>
  %1 = weft.wait %0 : tensor<4xf32>
  %2 = weft.wait %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
