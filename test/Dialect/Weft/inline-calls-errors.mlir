// RUN: weft-opt %s --weft-inline-calls -split-input-file -verify-diagnostics

// A recursive call is an error at the call that closes the cycle, naming it.
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{recursive call of @f (@f -> @g -> @f)}}
  %y = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A call of a declaration: nothing to inline, and nothing weft can compile.
func.func private @external(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{calls @external, a declaration without a body: weft compiles only functions written in the program}}
  %y = func.call @external(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
