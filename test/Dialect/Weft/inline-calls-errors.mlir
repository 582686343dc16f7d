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

// -----

// weft.call_sites is weft-inline-calls' record of the calls it flattened
// (the comm report's tallies by call read it): anything but a dictionary
// of arrays of strings on the module is an error, not a wrong tally.
// expected-error@+1 {{weft.call_sites records the calls weft-inline-calls flattened, a dictionary from function names to arrays of call locations as strings}}
module attributes {weft.call_sites = {layer = [1, "x"]}} {
}

// -----

// expected-error@+1 {{'func.func' op weft.call_sites records the calls}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {weft.call_sites = {}} {
  return %x : tensor<4xf32>
}
