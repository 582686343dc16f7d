// The half-precision mixtures a precision policy could create (an f32 value
// meeting a bf16 or f16 one where an op needs one element type) are errors
// at the op: every compute op's operands and result share one element type,
// and only weft.convert changes it (docs/precision.md). The f32/f64 forms
// of the same checks are in ops-errors.mlir.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

func.func @einsum_bf16_f32(%a: tensor<2x3xbf16>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'weft.einsum' op operand #1 has element type 'f32' but the result has 'bf16'}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xbf16>, tensor<3x4xf32>) -> tensor<2x4xbf16>
  return
}

// -----

// A bf16 GEMM whose result is typed f32 (f32 accumulation is the kernel's,
// the stored result is bf16): a weft.convert is needed.
func.func @einsum_f32_result(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error@+1 {{'weft.einsum' op operand #0 has element type 'bf16' but the result has 'f32'}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @map_f16_f32(%a: tensor<4xf16>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'weft.map' op operand #1 has element type 'f32' but the result has 'f16'}}
  %0 = weft.map add "i,i->i" (%a, %b) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// A reduction that would accumulate a bf16 input into an f32 result.
func.func @reduce_bf16_to_f32(%a: tensor<4x8xbf16>) {
  // expected-error@+1 {{'weft.reduce' op operand #0 has element type 'bf16' but the result has 'f32'}}
  %0 = weft.reduce sum "ij->i" (%a) : (tensor<4x8xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @embed_bf16_table(%ids: tensor<4xi32>, %t: tensor<16x8xbf16>) {
  // expected-error@+1 {{'weft.embed' op the table has element type 'bf16' but the result has 'f32'}}
  %0 = weft.embed "b,vd->bd" (%ids, %t) : (tensor<4xi32>, tensor<16x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @stop_gradient_cast(%a: tensor<4xf32>) {
  // expected-error@+1 {{'weft.stop_gradient' op changes the shape or element type: 'tensor<4xf32>' -> 'tensor<4xbf16>'}}
  %0 = weft.stop_gradient %a : tensor<4xf32> -> tensor<4xbf16>
  return
}

// -----

// A sharding constraint that would also round.
weft.mesh @mesh ["model" = 2]
func.func @shard_cast(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.shard' op changes the shape or element type: 'tensor<8xf32>' -> 'tensor<8xbf16, #weft.sharding<@mesh, [{"model"}]>>'}}
  %0 = weft.shard %a : tensor<8xf32> -> tensor<8xbf16, #weft.sharding<@mesh, [{"model"}]>>
  return
}
