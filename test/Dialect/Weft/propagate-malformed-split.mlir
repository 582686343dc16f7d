// RUN: weft-opt %s --weft-propagate -split-input-file -verify-diagnostics
// A malformed `weft.split` letter map on the input is an error at the op,
// not a silent failure (found by the mutation fuzzer, seed 1, 2026-11-26:
// weftc exited 1 without a diagnostic).

weft.mesh @mesh ["model" = 4]
func.func @two_letter_key(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32> {
  // expected-error@+1 {{'weft.map' op has a malformed `weft.split` letter map {ij = [1]}}}
  %r = weft.map relu "i->i" (%x) {weft.split = {ij = [1]}} : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
func.func @axis_not_a_string(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32> {
  // expected-error@+1 {{'weft.map' op has a malformed `weft.split` letter map {i = [1]}}}
  %r = weft.map relu "i->i" (%x) {weft.split = {i = [1]}} : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
