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
