// weft.global_type on the arguments and results of a partitioned function.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{'func.func' op argument #0: weft.global_type must be a statically shaped tensor type, got f32}}
func.func @not_a_tensor(%a: tensor<2xf32> {weft.global_type = f32}) {
  return
}

// -----

// expected-error@+1 {{'func.func' op argument #0: local type 'tensor<2xf32>' does not match the element type and rank of its weft.global_type 'tensor<8xf64>'}}
func.func @element_type(%a: tensor<2xf32> {weft.global_type = tensor<8xf64>}) {
  return
}

// -----

// expected-error@+1 {{'func.func' op argument #0: local dimension 0 (3) does not divide global dimension 8}}
func.func @not_a_block(%a: tensor<3xf32> {weft.global_type = tensor<8xf32>}) {
  return
}

// -----

// expected-error@+1 {{'func.func' op result #0: local type 'tensor<2x2xf32>' does not match the element type and rank of its weft.global_type 'tensor<8xf32>'}}
func.func @result(%a: tensor<2x2xf32>) -> (tensor<2x2xf32> {weft.global_type = tensor<8xf32>}) {
  return %a : tensor<2x2xf32>
}
