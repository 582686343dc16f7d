// Bad global-view ops: malformed specs, letters that disagree with the
// types, element types, and the rules of map, reduce, embed and shard.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

// The spec needs an arrow.
func.func @no_arrow(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.einsum' op has a malformed spec "ij": expected '->' between the operand letters and the result letters}}
  %0 = weft.einsum "ij" (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Only one arrow.
func.func @two_arrows(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{has a malformed spec "ij->ji->ij": '->' appears more than once}}
  %0 = weft.einsum "ij->ji->ij" (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Letters only.
func.func @digit(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{unexpected character '1' in operand #0 "i1" (letters are a-z and A-Z)}}
  %0 = weft.einsum "i1->i" (%a) : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Ellipses are not supported.
func.func @ellipsis(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{unexpected character '.' in operand #0}}
  %0 = weft.einsum "...j->j" (%a) : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

// A letter appears once per operand (no diagonals).
func.func @repeated_in_operand(%a: tensor<3x3xf32>) {
  // expected-error@+1 {{letter 'i' appears twice in operand #0 "ii"}}
  %0 = weft.einsum "ii->i" (%a) : (tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

// A letter appears once in the result.
func.func @repeated_in_result(%a: tensor<3xf32>) {
  // expected-error@+1 {{letter 'i' appears twice in the result "ii"}}
  %0 = weft.einsum "i->ii" (%a) : (tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Result letters come from the operands.
func.func @result_letter_unknown(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{result letter 'k' does not appear in any operand}}
  %0 = weft.einsum "ij->ik" (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// One term per operand.
func.func @term_count(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{spec "ij->ij" has 1 operand term(s) but the op has 2 operand(s)}}
  %0 = weft.einsum "ij->ij" (%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Einsum takes one or two operands.
func.func @three_operands(%a: tensor<2xf32>) {
  // expected-error@+1 {{'weft.einsum' op takes one or two operands, got 3}}
  %0 = weft.einsum "i,i,i->i" (%a, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Operand rank must match its letters.
func.func @operand_rank(%a: tensor<2x3x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'weft.einsum' op operand #0 has rank 3 but the spec names 2 dimension(s) ("ij")}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Result rank must match its letters.
func.func @result_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{the result has rank 1 but the spec names 2 dimension(s) ("ik")}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<8xf32>
  return
}

// -----

// A letter has one size across operands.
func.func @letter_size(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) {
  // expected-error@+1 {{letter 'j' has size 3 in operand #0 but size 5 in operand #1}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// A letter has one size in the operands and the result.
func.func @letter_size_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{letter 'k' has size 4 in operand #1 but size 6 in the result}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Operands and result share one element type.
func.func @mixed_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error@+1 {{'weft.einsum' op operand #1 has element type 'f64' but the result has 'f32'}}
  %0 = weft.einsum "ij,jk->ik" (%a, %b) : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

// Compute ops take floats.
func.func @int_einsum(%a: tensor<2x3xi32>) {
  // expected-error@+1 {{'weft.einsum' op operand #0 must be variadic of statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values}}
  %0 = weft.einsum "ij->ij" (%a) : (tensor<2x3xi32>) -> tensor<2x3xf32>
  return
}

// -----

// Integer types other than i32 are rejected, f8 too.
func.func @f8(%a: tensor<2xf8E4M3FN>) {
  // expected-error@+1 {{'weft.map' op operand #0 must be variadic of statically shaped tensor of 32-bit float}}
  %0 = weft.map relu "i->i" (%a) : (tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN>
  return
}

// -----

// Shapes are static.
func.func @dynamic(%a: tensor<?x3xf32>) {
  // expected-error@+1 {{must be variadic of statically shaped tensor}}
  %0 = weft.einsum "ij->ij" (%a) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

// Binary maps take two operands.
func.func @map_arity(%a: tensor<2xf32>) {
  // expected-error@+1 {{'weft.map' op 'add' takes 2 operand(s), got 1}}
  %0 = weft.map add "i->i" (%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Unary maps take one operand.
func.func @map_arity_unary(%a: tensor<2xf32>) {
  // expected-error@+1 {{'weft.map' op 'exp' takes 1 operand(s), got 2}}
  %0 = weft.map exp "i,i->i" (%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Unknown map kind.
func.func @map_kind(%a: tensor<2xf32>) {
  // expected-error@+1 {{expected a map kind (one of add, sub, mul, div, max, min, gt, ge, lt, le, eq, ne, neg, exp, log, sqrt, rsqrt, square, tanh, relu, gelu, silu, abs, sign, step, sigmoid, sin, cos, scale, shift, softplus)}}
  %0 = weft.map "i->i" (%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Unknown map kind name.
func.func @map_kind_name(%a: tensor<2xf32>) {
  // expected-error@+1 {{unknown map kind 'frobnicate' (one of add, sub, mul, div, max, min, gt, ge, lt, le, eq, ne, neg, exp, log, sqrt, rsqrt, square, tanh, relu, gelu, silu, abs, sign, step, sigmoid, sin, cos, scale, shift, softplus)}}
  %0 = weft.map frobnicate "i->i" (%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A map does not reduce.
func.func @map_reduces(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{letter 'j' of operand #0 is missing from the result: a map does not reduce (use weft.reduce)}}
  %0 = weft.map exp "ij->i" (%a) : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Broadcasting must agree on sizes.
func.func @map_broadcast_size(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{letter 'j' has size 3 in operand #0 but size 4 in operand #1}}
  %0 = weft.map add "ij,j->ij" (%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// scale needs its constant.
func.func @scale_no_scalar(%a: tensor<2xf32>) {
  // expected-error@+1 {{'weft.map' op 'scale' needs a `scalar` attribute}}
  %0 = weft.map scale "i->i" (%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Other kinds take no constant.
func.func @relu_scalar(%a: tensor<2xf32>) {
  // expected-error@+1 {{'weft.map' op 'relu' takes no `scalar` attribute}}
  %0 = weft.map relu "i->i" (%a) {scalar = 2.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// The constant is an f64.
func.func @scalar_type(%a: tensor<2xf32>) {
  // expected-error@+1 {{'weft.map' op attribute 'scalar' failed to satisfy constraint: 64-bit float attribute}}
  %0 = weft.map scale "i->i" (%a) {scalar = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Unknown reduction kind.
func.func @reduce_kind(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
  %0 = weft.reduce mean "ij->i" (%a) : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Reduce letters agree with the types.
func.func @reduce_rank(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.reduce' op the result has rank 2 but the spec names 1 dimension(s) ("i")}}
  %0 = weft.reduce sum "ij->i" (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Reduce keeps the element type.
func.func @reduce_type(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'weft.reduce' op operand #0 has element type 'f32' but the result has 'f64'}}
  %0 = weft.reduce sum "ij->i" (%a) : (tensor<2x3xf32>) -> tensor<2xf64>
  return
}

// -----

// Embed ids are i32.
func.func @embed_ids_type(%ids: tensor<4xf32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'weft.embed' op operand #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = weft.embed "b,vd->bd" (%ids, %t) : (tensor<4xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// One table letter is looked up.
func.func @embed_two_looked_up(%ids: tensor<4xi32>, %t: tensor<16x8x2xf32>) {
  // expected-error@+1 {{'weft.embed' op the table must have exactly one letter in neither the ids nor the result (the looked-up letter), got 'v' and 'e'}}
  %0 = weft.embed "b,vde->bd" (%ids, %t) : (tensor<4xi32>, tensor<16x8x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Some letter is looked up, not kept.
func.func @embed_vocab_in_result(%ids: tensor<4xi32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{no table letter is looked up: one of "vd" must appear in neither the ids nor the result}}
  %0 = weft.embed "b,vd->bvd" (%ids, %t) : (tensor<4xi32>, tensor<16x8xf32>) -> tensor<4x16x8xf32>
  return
}

// -----

// A batch letter has one size in the ids and the table.
func.func @embed_batch_size(%ids: tensor<4xi32>, %t: tensor<5x16xf32>) {
  // expected-error@+1 {{letter 'b'}}
  %0 = weft.embed "b,bv->b" (%ids, %t) : (tensor<4xi32>, tensor<5x16xf32>) -> tensor<4xf32>
  return
}

// -----

// Every ids letter is kept.
func.func @embed_ids_dropped(%ids: tensor<4x2xi32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{ids letter 't' must appear in the result}}
  %0 = weft.embed "bt,vd->bd" (%ids, %t) : (tensor<4x2xi32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// The looked-up letter is not an ids letter.
func.func @embed_vocab_in_ids(%ids: tensor<4x16xi32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{no table letter is looked up}}
  %0 = weft.embed "bv,vd->bvd" (%ids, %t) : (tensor<4x16xi32>, tensor<16x8xf32>) -> tensor<4x16x8xf32>
  return
}

// -----

// Embed keeps the table's element type.
func.func @embed_type(%ids: tensor<4xi32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'weft.embed' op the table has element type 'f32' but the result has 'f64'}}
  %0 = weft.embed "b,vd->bd" (%ids, %t) : (tensor<4xi32>, tensor<16x8xf32>) -> tensor<4x8xf64>
  return
}

// -----

weft.mesh @mesh ["model" = 4]
// weft.shard keeps the shape.
func.func @shard_shape(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.shard' op changes the shape or element type: 'tensor<8xf32>' -> 'tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>'}}
  %0 = weft.shard %a : tensor<8xf32> -> tensor<16xf32, #weft.sharding<@mesh, [{"model"}]>>
  return
}

// -----

// weft.shard states a sharding.
func.func @shard_no_sharding(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.shard' op result type needs a #weft.sharding encoding (the constraint)}}
  %0 = weft.shard %a : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// The spec attribute is a string.
func.func @spec_not_string(%a: tensor<2xf32>) {
  // expected-error@+1 {{expected non-function type}}
  %0 = weft.einsum (%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @constant_int() -> tensor<4xi32> {
  // expected-error@+1 {{'weft.constant' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %c = weft.constant 1.0 : tensor<4xi32>
  return %c : tensor<4xi32>
}

// -----

func.func @map_comparison_arity(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'gt' takes 2 operand(s), got 1}}
  %0 = weft.map gt "i->i" (%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// scatter_add: one result letter (looked up) is in no operand.
func.func @scatter_add_two_looked_up(%ids: tensor<4xi32>, %u: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.scatter_add' op the result must have exactly one letter in no operand (the looked-up letter), got 'v' and 'e'}}
  %0 = weft.scatter_add "b,bd->vde" (%ids, %u) : (tensor<4xi32>, tensor<4x8xf32>) -> tensor<16x8x2xf32>
  return
}

// -----

func.func @scatter_add_vocab_in_updates(%ids: tensor<4xi32>, %u: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.scatter_add' op no result letter is looked up: one of "bd" must appear in no operand}}
  %0 = weft.scatter_add "b,bd->bd" (%ids, %u) : (tensor<4xi32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_add_updates_letter(%ids: tensor<4xi32>, %u: tensor<4x8x2xf32>) {
  // expected-error@+1 {{'weft.scatter_add' op updates letter 'd' must appear in the ids or the result}}
  %0 = weft.scatter_add "b,bde->ve" (%ids, %u) : (tensor<4xi32>, tensor<4x8x2xf32>) -> tensor<16x2xf32>
  return
}

// -----

func.func @scatter_add_ids_letter(%ids: tensor<4x2xi32>, %u: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.scatter_add' op ids letter 't' must appear in the updates}}
  %0 = weft.scatter_add "bt,bd->vd" (%ids, %u) : (tensor<4x2xi32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @scatter_add_types(%ids: tensor<4xi32>, %u: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.scatter_add' op the updates have element type 'f32' but the result has 'f64'}}
  %0 = weft.scatter_add "b,bd->vd" (%ids, %u) : (tensor<4xi32>, tensor<4x8xf32>) -> tensor<16x8xf64>
  return
}

// -----

// one_hot: the ids' letters plus exactly one vocabulary letter.
func.func @one_hot_two_new(%ids: tensor<4xi32>) {
  // expected-error@+1 {{'weft.one_hot' op the result must have the ids' letters plus one vocabulary letter, got "b->bvw"}}
  %0 = weft.one_hot "b->bvw" (%ids) : (tensor<4xi32>) -> tensor<4x8x2xf32>
  return
}

// -----

func.func @one_hot_drops(%ids: tensor<4x2xi32>) {
  // expected-error@+1 {{'weft.one_hot' op ids letter 't' must appear in the result}}
  %0 = weft.one_hot "bt->bv" (%ids) : (tensor<4x2xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @one_hot_float_ids(%ids: tensor<4xf32>) {
  // expected-error@+1 {{'weft.one_hot' op operand #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = weft.one_hot "b->bv" (%ids) : (tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error@+1 {{'weft.iota' op result must have rank 1, got 'tensor<2x3xf32>'}}
  %0 = weft.iota : tensor<2x3xf32>
  return
}

// -----

func.func @random_rank() {
  // expected-error@+1 {{'weft.random' op result must have at most 4 dimensions (one Philox counter word each), got 'tensor<1x2x3x4x5xf32>'}}
  %0 = weft.random uniform seed 1 : tensor<1x2x3x4x5xf32>
  return
}

// -----

func.func @random_dim_too_big() {
  // expected-error@+1 {{'weft.random' op dimension 1 has size 4294967297: a counter word indexes at most 2^32}}
  %0 = weft.random uniform seed 1 : tensor<0x4294967297xf32>
  return
}

// -----

func.func @random_i32() {
  // expected-error@+1 {{'weft.random' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = weft.random uniform seed 1 : tensor<4xi32>
  return
}

// -----

func.func @random_kind() {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [uniform, normal]}}
  %0 = weft.random gamma seed 1 : tensor<4xf32>
  return
}

// -----

func.func @pad_fill_valid_rank(%x: tensor<12x8xf32>) -> tensor<12x8xf32> {
  // expected-error@+1 {{'weft.pad_fill' op `valid` needs one size per dimension (2), got 1}}
  %y = weft.pad_fill %x valid [10] fill 0.0 : tensor<12x8xf32> -> tensor<12x8xf32>
  return %y : tensor<12x8xf32>
}

// -----

func.func @pad_fill_valid_range(%x: tensor<12x8xf32>) -> tensor<12x8xf32> {
  // expected-error@+1 {{'weft.pad_fill' op valid size 9 of dimension 1 must be in [1, 8]}}
  %y = weft.pad_fill %x valid [10, 9] fill 0.0 : tensor<12x8xf32> -> tensor<12x8xf32>
  return %y : tensor<12x8xf32>
}

// -----

func.func @pad_fill_valid_zero(%x: tensor<12x8xf32>) -> tensor<12x8xf32> {
  // expected-error@+1 {{'weft.pad_fill' op valid size 0 of dimension 0 must be in [1, 12]}}
  %y = weft.pad_fill %x valid [0, 8] fill 0.0 : tensor<12x8xf32> -> tensor<12x8xf32>
  return %y : tensor<12x8xf32>
}

// -----

func.func @pad_fill_types(%x: tensor<12x8xf32>) -> tensor<12x8xf64> {
  // expected-error@+1 {{'weft.pad_fill' op result must have the input's shape and element type, got 'tensor<12x8xf32>' -> 'tensor<12x8xf64>'}}
  %y = weft.pad_fill %x valid [10, 8] fill 0.0 : tensor<12x8xf32> -> tensor<12x8xf64>
  return %y : tensor<12x8xf64>
}

// -----

func.func @pad_fill_int_fill(%x: tensor<12xi32>) -> tensor<12xi32> {
  // expected-error@+1 {{'weft.pad_fill' op an i32 tensor needs an integer fill, got 5.000000e-01}}
  %y = weft.pad_fill %x valid [10] fill 0.5 : tensor<12xi32> -> tensor<12xi32>
  return %y : tensor<12xi32>
}

// -----

weft.mesh @mesh ["data" = 4]
func.func @pad_fill_local_bound(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error@+1 {{'weft.pad_fill' op valid size 13 of dimension 0 exceeds its global size 12}}
  %y = weft.pad_fill %x valid [13, 8] fill 0.0 on @mesh over [["data"], []] : tensor<3x8xf32> -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

weft.mesh @mesh ["data" = 4]
func.func @pad_fill_local_axes(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error@+1 {{'weft.pad_fill' op `over` needs one list of axes per dimension (2), got 1}}
  %y = weft.pad_fill %x valid [10, 8] fill 0.0 on @mesh over [["data"]] : tensor<3x8xf32> -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

weft.mesh @m ["x" = 4]
func.func @logical_shape_rank(%x: tensor<12xf32> {weft.logical_shape = array<i64: 10, 1>}) -> tensor<12xf32> {
  return %x : tensor<12xf32>
}
// expected-error@-3 {{'func.func' op argument #0: weft.logical_shape has 2 sizes for a tensor of rank 1}}

// -----

func.func @logical_shape_bound(%x: tensor<12xf32>) -> (tensor<12xf32> {weft.logical_shape = array<i64: 13>}) {
  return %x : tensor<12xf32>
}
// expected-error@-3 {{'func.func' op result #0: weft.logical_shape size 13 of dimension 0 is not in [1, 12]}}

// -----

func.func @cumsum_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'weft.cumsum' op dim 2 is not a dimension of 'tensor<4x8xf32>' (rank 2)}}
  %y = weft.cumsum %x dim 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @cumsum_negative_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'weft.cumsum' op dim -1 is not a dimension of 'tensor<4x8xf32>' (rank 2)}}
  %y = weft.cumsum %x dim -1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @cumsum_types(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'weft.cumsum' op result must have the input's shape and element type, got 'tensor<4x8xf32>' -> 'tensor<8x4xf32>'}}
  %y = weft.cumsum %x dim 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

func.func @cumsum_ids(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error@+1 {{'weft.cumsum' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %y = weft.cumsum %x dim 0 : tensor<4x8xi32> -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @top_k_k(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  // expected-error@+1 {{'weft.top_k' op k 9 must be in [1, 8] (the size of dim 1)}}
  %y = weft.top_k %x dim 1 k 9 : (tensor<4x8xf32>) -> tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}

// -----

func.func @top_k_zero(%x: tensor<4x8xf32>) -> tensor<4x0xf32> {
  // expected-error@+1 {{'weft.top_k' op k 0 must be in [1, 8]}}
  %y = weft.top_k %x dim 1 k 0 : (tensor<4x8xf32>) -> tensor<4x0xf32>
  return %y : tensor<4x0xf32>
}

// -----

func.func @top_k_dim(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // expected-error@+1 {{'weft.top_k' op dim 2 is not a dimension of 'tensor<4x8xf32>' (rank 2)}}
  %y = weft.top_k %x dim 2 k 2 : (tensor<4x8xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @top_k_result(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'weft.top_k' op result must be 'tensor<4x2xf32>' (the input with dim 1 of size 2), got 'tensor<2x8xf32>'}}
  %y = weft.top_k %x dim 1 k 2 : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @top_k_payload(%x: tensor<4x8xf32>, %p: tensor<4x8xf64>) -> tensor<4x2xf32> {
  // expected-error@+1 {{'weft.top_k' op payload must have the input's shape and element type, got 'tensor<4x8xf64>' for 'tensor<4x8xf32>'}}
  %y = weft.top_k %x, %p dim 1 k 2 : (tensor<4x8xf32>, tensor<4x8xf64>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @reshape_order(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'weft.reshape' op spec "ab->ba": both sides must list the same letters in the same order, got "ab" and "ba"}}
  %y = weft.reshape "ab->ba" (%x) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

func.func @reshape_group_size(%x: tensor<4x30xf32>) -> tensor<4x8x4xf32> {
  // expected-error@+1 {{'weft.reshape' op dimension 1 of the input is (hk) of size 32, but the type has 30}}
  %y = weft.reshape "a(hk)->ahk" (%x) : (tensor<4x30xf32>) -> tensor<4x8x4xf32>
  return %y : tensor<4x8x4xf32>
}

// -----

func.func @reshape_unbalanced(%x: tensor<4x32xf32>) -> tensor<4x8x4xf32> {
  // expected-error@+1 {{'weft.reshape' op spec "a(hk->ahk": unbalanced '(' in "a(hk"}}
  %y = weft.reshape "a(hk->ahk" (%x) : (tensor<4x32xf32>) -> tensor<4x8x4xf32>
  return %y : tensor<4x8x4xf32>
}

// -----

func.func @reshape_rank(%x: tensor<4x32xf32>) -> tensor<4x8x4xf32> {
  // expected-error@+1 {{'weft.reshape' op spec "ab->ab" has 2 and 2 dimensions, the types 2 and 3}}
  %y = weft.reshape "ab->ab" (%x) : (tensor<4x32xf32>) -> tensor<4x8x4xf32>
  return %y : tensor<4x8x4xf32>
}

// -----

func.func @reshape_no_size(%x: tensor<32xf32>) -> tensor<32xf32> {
  // expected-error@+1 {{'weft.reshape' op letter 'h' of group (hk) has no size: it must be a dimension of its own on the other side}}
  %y = weft.reshape "(hk)->(hk)" (%x) : (tensor<32xf32>) -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// -----

// weft.random's offset is a scalar.
func.func @random_offset_rank(%s: tensor<2xf32>) {
  // expected-error@+1 {{'weft.random' op offset must be a rank-0 tensor, got 'tensor<2xf32>'}}
  %0 = weft.random uniform seed 1 offset(%s : tensor<2xf32>) : tensor<4xf32>
  return
}

// -----

// weft.slice: the range lies inside the input.
func.func @slice_range(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.slice' op range [6, 6 + 3) of dim 1 is outside [0, 8)}}
  %0 = weft.slice %x dim 1 start 6 : tensor<4x8xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_other_dim(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.slice' op dimension 0 has extent 2 in the result but 4 in the input (only dim 1 is sliced)}}
  %0 = weft.slice %x dim 1 start 0 : tensor<4x8xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_dim(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.slice' op dim 2 is out of range for 'tensor<4x8xf32>'}}
  %0 = weft.slice %x dim 2 start 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_negative(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.slice' op range [-1, -1 + 3) of dim 1 is outside [0, 8)}}
  %0 = weft.slice %x dim 1 start -1 : tensor<4x8xf32> -> tensor<4x3xf32>
  return
}

// -----

// weft.concat: the operands' extents add up to the result's.
func.func @concat_sum(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'weft.concat' op the operands' extents along dim 1 add up to 8 but the result has 9}}
  %0 = weft.concat %a, %b dim 1 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x9xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<4x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error@+1 {{'weft.concat' op operand #1 has extent 2 on dimension 0 but the result has 4 (only dim 1 is joined)}}
  %0 = weft.concat %a, %b dim 1 : (tensor<4x3xf32>, tensor<2x5xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @concat_type(%a: tensor<4x3xf32>, %b: tensor<4x5xf64>) {
  // expected-error@+1 {{'weft.concat' op operand #1 has element type 'f64' but the result has 'f32'}}
  %0 = weft.concat %a, %b dim 1 : (tensor<4x3xf32>, tensor<4x5xf64>) -> tensor<4x8xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'weft.concat' op dim -1 is out of range for 'tensor<4x3xf32>'}}
  %0 = weft.concat %a dim -1 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// A convert changes the element type only.
func.func @convert_shape(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.convert' op changes the shape: 'tensor<4x8xf32>' -> 'tensor<8x4xbf16>'; a convert changes the element type only}}
  %0 = weft.convert %a : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}

// -----

// Integer ids are not converted (float element types only).
func.func @convert_int(%ids: tensor<4xi32>) {
  // expected-error@+1 {{'weft.convert' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = weft.convert %ids : tensor<4xi32> -> tensor<4xf32>
  return
}
