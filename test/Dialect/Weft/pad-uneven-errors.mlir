// Bad input to --weft-pad-uneven: each a clear diagnostic at the op.
// RUN: weft-opt --pass-pipeline='builtin.module(func.func(weft-pad-uneven))' -split-input-file -verify-diagnostics %s

// weft.top_k selects exactly k: a sharding that splits its k dimension
// unevenly (here a consumer's result, k = 2 over 4 ranks) would pad it.
weft.mesh @mesh ["x" = 4]
func.func @top_k_uneven_k(%a: tensor<8x16xf32>) -> tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>> {
  // expected-error@+1 {{'weft.top_k' op selects k = 2 along dim 1, which a sharding splits over axes that do not divide it (it would be padded to 4): split the selected dimension over axes that divide k, or none}}
  %t = weft.top_k %a dim 1 k 2 : (tensor<8x16xf32>) -> tensor<8x2xf32>
  %s = weft.reduce sum "bk->k" (%t) : (tensor<8x2xf32>) -> tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>
  return %s : tensor<2xf32, #weft.sharding<@mesh, [{"x"}]>>
}

// -----

// A local view (after --weft-partition) is not padded again.
weft.mesh @mesh ["x" = 4]
// expected-error@+1 {{'func.func' op is already partitioned; run --weft-pad-uneven between --weft-propagate and --weft-partition}}
func.func @local(%a: tensor<2xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"x"}]>>}) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// A minor letter of a merged dimension split unevenly would interleave
// pads with elements (a padded major letter is fine: whole rows at the end).
weft.mesh @mesh ["x" = 4]
func.func @reshape_uneven_minor(%a: tensor<8x6xf32, #weft.sharding<@mesh, [{}, {"x"}]>>) -> tensor<48xf32> {
  // expected-error@+1 {{'weft.reshape' op has a minor letter of a merged dimension (spec "hk->(hk)") whose own dimension #1 of its input a sharding splits over axes that do not divide it: pads would interleave with elements; split that dimension over axes that divide it, or none}}
  %r = weft.reshape "hk->(hk)" (%a) : (tensor<8x6xf32, #weft.sharding<@mesh, [{}, {"x"}]>>) -> tensor<48xf32>
  return %r : tensor<48xf32>
}

// -----

// A slice must produce exactly its range: a result padded along the sliced
// dimension (3 rows split on 2 ranks) would read input rows as pads. (A
// commit once dropped this check: the partitioned program then summed a
// real row in the pad; found by the differential fuzzer.)
weft.mesh @m ["x" = 2]
func.func @slice_padded_result(%a: tensor<8xf32>) -> tensor<3xf32, #weft.sharding<@m, [{"x"}]>> {
  // expected-error@+1 {{'weft.slice' op produces along dimension 0 (size 3), which a sharding splits over axes that do not divide it (it would be padded to 4): split that dimension over axes that divide it, or none}}
  %s = weft.slice %a dim 0 start 2 : tensor<8xf32> -> tensor<3xf32, #weft.sharding<@m, [{"x"}]>>
  return %s : tensor<3xf32, #weft.sharding<@m, [{"x"}]>>
}

// -----

// A concat would put an operand's pads between the next one's elements.
weft.mesh @m ["x" = 2]
func.func @concat_padded_operand(%a: tensor<3xf32, #weft.sharding<@m, [{"x"}]>>, %b: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{'weft.concat' op joins along dimension 0 (size 3), which a sharding splits over axes that do not divide it (it would be padded to 4)}}
  %c = weft.concat %a, %b dim 0 : (tensor<3xf32, #weft.sharding<@m, [{"x"}]>>, tensor<2xf32>) -> tensor<5xf32>
  return %c : tensor<5xf32>
}
