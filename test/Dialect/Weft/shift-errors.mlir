// weft.shift's verifier: a shift by 1 or -1, a dimension in range, the
// operand's shape and element type; a padded shifted dimension is refused
// by --weft-pad-uneven at the op.
// RUN: weft-opt %s -split-input-file -verify-diagnostics
// RUN: sed -e 's/"stage" = 4/"stage" = 3/' %S/shift.mlir > %t.uneven.mlir
// RUN: not weft-opt %t.uneven.mlir --weft-propagate --weft-pad-uneven 2>&1 | FileCheck %s --check-prefix=UNEVEN
// UNEVEN: error: 'weft.shift' op shifts along dimension 0 (size 4), which a sharding splits over axes that do not divide it (it would be padded to 6, and the pads would move into the data)

func.func @by(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'weft.shift' op shifts by 2; a shift moves by 1 or -1}}
  %0 = weft.shift %a dim 0 by 2 : tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @dim(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'weft.shift' op dim 2 is out of range for 'tensor<4x3xf32>'}}
  %0 = weft.shift %a dim 2 by 1 : tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @by_negative(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'weft.shift' op shifts by -2; a shift moves by 1 or -1}}
  %0 = weft.shift %a dim 0 by -2 : tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A negative dim is named as written (the getter is unsigned).
func.func @negative_dim(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'weft.shift' op dim -1 is out of range for 'tensor<4x3xf32>'}}
  %0 = weft.shift %a dim -1 by 1 : tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @type(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'weft.shift' op changes the type: 'tensor<4x3xf32>' -> 'tensor<3x4xf32>'; the result has the operand's shape and element type}}
  %0 = weft.shift %a dim 0 by 1 : tensor<4x3xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
