// Malformed weft.fused_map: its step text, operands and letters.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

// A step reads a later step.
func.func @f0(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: 's1' is not an earlier step}}
  %0 = weft.fused_map "ij,ij->ij" (%a, %a) steps "s0 = add(in0, s1)" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An operand that does not exist.
func.func @f1(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: 'in2' is not an operand (the op has 2)}}
  %0 = weft.fused_map "ij,ij->ij" (%a, %a) steps "s0 = add(in0, in2)" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Steps numbered out of order.
func.func @f2(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: expected 's0 = kind(...)', got 's1 = relu(in0)'}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s1 = relu(in0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An unknown kind.
func.func @f3(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: unknown map kind 'frobnicate'}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s0 = frobnicate(in0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A unary kind with two values.
func.func @f4(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: relu takes 1 value(s), got 'relu(in0, in0)'}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s0 = relu(in0, in0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Scale without its constant.
func.func @f5(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: scale takes 1 value(s) and a constant, got 'scale(in0)'}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s0 = scale(in0)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A constant that is not finite.
func.func @f6(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: 'inf' is not a finite constant}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s0 = shift(in0, inf)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An operand no step reads.
func.func @f7(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op operand #1 is read by no step}}
  %0 = weft.fused_map "ij,ij->ij" (%a, %a) steps "s0 = relu(in0)" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An operand letter missing from the result.
func.func @f8(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op letter 'j' of operand #0 is missing from the result}}
  %0 = weft.fused_map "ij->i" (%a) steps "s0 = relu(in0)" : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// No steps.
func.func @f9(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op steps: step 0: expected 's0 = kind(...)', got ''}}
  %0 = weft.fused_map "ij->ij" (%a) steps "" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// More operands than the runtime's kernel takes.
func.func @nine(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op takes 1 to 8 operands, got 9}}
  %0 = weft.fused_map "ij,ij,ij,ij,ij,ij,ij,ij,ij->ij" (%a, %a, %a, %a, %a, %a, %a, %a, %a) steps "s0 = add(in0, in1); s1 = add(s0, in2); s2 = add(s1, in3); s3 = add(s2, in4); s4 = add(s3, in5); s5 = add(s4, in6); s6 = add(s5, in7); s7 = add(s6, in8)" : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// More steps than the runtime's kernel takes.
func.func @seventeen(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.fused_map' op has 17 steps, at most 16}}
  %0 = weft.fused_map "ij->ij" (%a) steps "s0 = neg(in0); s1 = neg(s0); s2 = neg(s1); s3 = neg(s2); s4 = neg(s3); s5 = neg(s4); s6 = neg(s5); s7 = neg(s6); s8 = neg(s7); s9 = neg(s8); s10 = neg(s9); s11 = neg(s10); s12 = neg(s11); s13 = neg(s12); s14 = neg(s13); s15 = neg(s14); s16 = neg(s15)" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Operands of another element type.
func.func @dtype(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error@+1 {{'weft.fused_map' op}}
  %0 = weft.fused_map "ij,ij->ij" (%a, %b) steps "s0 = add(in0, in1)" : (tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return
}
