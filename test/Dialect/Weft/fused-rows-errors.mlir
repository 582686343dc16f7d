// Malformed weft.fused_rows: row letters, operands, steps and the result.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

// A row reduction in a weft.fused_map.
func.func @f0(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: 'row_sum' is a row reduction, which only weft.fused_rows has}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s0 = row_sum(in0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An unknown row reduction.
func.func @f1(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op steps: step 0: unknown row reduction 'row_mean' (row_sum, row_max, row_min)}}
  %0 = weft.fused_rows "ij->i" rows "j" (%a) steps "s0 = row_mean(in0)" : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// A row reduction of two values.
func.func @f2(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op steps: step 0: row_sum takes one value, got 'row_sum(in0, in0)'}}
  %0 = weft.fused_rows "ij->i" rows "j" (%a) steps "s0 = row_sum(in0, in0)" : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// No row letters.
func.func @f3(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op `rows` names no letter}}
  %0 = weft.fused_rows "ij->i" rows "" (%a) steps "s0 = row_sum(in0)" : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// A repeated row letter.
func.func @f4(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op row letter 'j' is repeated}}
  %0 = weft.fused_rows "ij->i" rows "jj" (%a) steps "s0 = row_sum(in0)" : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// The result holds the row letter, but not last.
func.func @f5(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op the result "ji" holds the row letters "j" but not as its trailing letters}}
  %0 = weft.fused_rows "ij->ji" rows "j" (%a) steps "s0 = row_sum(in0); s1 = sub(in0, s0)" : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// An operand with the row letter not last (a transposed one).
func.func @f6(%a: tensor<3x2xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op operand #0 ("ji") holds row letters but not "j" as its trailing letters}}
  %0 = weft.fused_rows "ji->i" rows "j" (%a) steps "s0 = row_sum(in0)" : (tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

// An operand letter that is neither kept nor a row letter.
func.func @f7(%a: tensor<2x4x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op letter 'k' of operand #0 is neither a kept letter of the result nor a row letter}}
  %0 = weft.fused_rows "ikj->i" rows "j" (%a) steps "s0 = row_sum(in0)" : (tensor<2x4x3xf32>) -> tensor<2xf32>
  return
}

// -----

// A reduction of a row value.
func.func @f8(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op step 1: row_max of a row value (it has no row letters to reduce)}}
  %0 = weft.fused_rows "ij,i->i" rows "j" (%a, %b) steps "s0 = row_sum(in0); s1 = row_max(in1)" : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// No reduction: that is a weft.fused_map.
func.func @f9(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op has no row reduction (a chain of maps is a weft.fused_map)}}
  %0 = weft.fused_rows "ij->ij" rows "j" (%a) steps "s0 = exp(in0); s1 = neg(s0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// The last step is a row value, the result full.
func.func @f10(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op the last step is a row value but the result "ij" holds the row letters}}
  %0 = weft.fused_rows "ij->ij" rows "j" (%a) steps "s0 = row_sum(in0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// The last step is full, the result a row value.
func.func @f11(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op the last step is full but the result "i" lacks the row letters "j"}}
  %0 = weft.fused_rows "ij->i" rows "j" (%a) steps "s0 = row_sum(in0); s1 = sub(in0, s0)" : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// A result letter in no operand (the runtime sizes the space from them).
func.func @f12(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op has a malformed spec "ij->ki": }}
  %0 = weft.fused_rows "ij->ki" rows "j" (%a) steps "s0 = row_sum(in0)" : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

// An operand no step reads.
func.func @f13(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_rows' op operand #1 is read by no step}}
  %0 = weft.fused_rows "ij,ij->i" rows "j" (%a, %a) steps "s0 = row_sum(in0)" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Mixed element types.
func.func @f14(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error@+1 {{'weft.fused_rows' op operand #1 has element type 'f64' but the result has 'f32'}}
  %0 = weft.fused_rows "ij,ij->i" rows "j" (%a, %b) steps "s0 = add(in0, in1); s1 = row_sum(s0)" : (tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2xf32>
  return
}
