// RUN: weft-opt %s --weft-inline-calls -split-input-file -verify-diagnostics
// The errors of a weft.vjp_of declaration (docs/pipeline.md, "1F1B"), each
// at the declaration.

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error@+1 {{@g is marked weft.vjp_of: the compiler writes its body, so declare it without one}}
func.func private @g(%x: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> attributes {weft.vjp_of = @f} {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{weft.vjp_of names @nowhere, which the module does not define}}
func.func private @g(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {weft.vjp_of = @nowhere}

// -----

func.func private @two(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
// expected-error@+1 {{weft.vjp_of names @two, which returns 2 values: a vjp is of a function of one result}}
func.func private @g(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {weft.vjp_of = @two}

// -----

func.func private @f(%w: tensor<4x4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = weft.einsum "d,de->e" (%x, %w) : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
// The cotangent is missing.
// expected-error@+1 {{the vjp of @f takes its arguments and the cotangent of its result, and returns one gradient per float argument (its layout may be left out): '(tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)', not '(tensor<4x4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)'}}
func.func private @g(tensor<4x4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) attributes {weft.vjp_of = @f}

// -----

// expected-error@+1 {{weft.vjp_of must name a function (@f), not "f"}}
func.func private @g(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {weft.vjp_of = "f"}

// -----

// An integer argument has no gradient: a gradient declared for it is an
// error.
func.func private @f(%ids: tensor<4xi32>, %t: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %e = weft.embed "b,vd->bd" (%ids, %t) : (tensor<4xi32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %e : tensor<4x2xf32>
}
// expected-error@+1 {{the vjp of @f takes its arguments and the cotangent of its result, and returns one gradient per float argument (its layout may be left out): '(tensor<4xi32>, tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>', not '(tensor<4xi32>, tensor<8x2xf32>, tensor<4x2xf32>) -> (tensor<4xi32>, tensor<8x2xf32>)'}}
func.func private @g(tensor<4xi32>, tensor<8x2xf32>, tensor<4x2xf32>) -> (tensor<4xi32>, tensor<8x2xf32>) attributes {weft.vjp_of = @f}
