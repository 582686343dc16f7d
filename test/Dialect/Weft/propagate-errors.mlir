// Bad input to weft-propagate: each a clear diagnostic.
// RUN: weft-opt --weft-propagate -split-input-file -verify-diagnostics %s
// RUN: not weft-opt "--weft-propagate=axis-weights=model" -split-input-file %s 2>&1 | FileCheck %s --check-prefix=WEIGHT

// WEIGHT: bad axis-weights entry 'model' (expected axis:weight with a weight > 0)

weft.mesh @a ["model" = 4]
weft.mesh @b ["model" = 4]
// One function runs on one mesh.
// expected-note@+1 {{mesh @a named here}}
func.func @two_meshes(%x: tensor<8xf32, #weft.sharding<@a, [{"model"}]>>,
                      // expected-error@+1 {{names mesh @b but the function already uses mesh @a; one function runs on one mesh}}
                      %y: tensor<8xf32, #weft.sharding<@b, [{"model"}]>>) {
  return
}

// -----

weft.mesh @mesh ["model" = 4]
// Two weft.shard constraints on one value contradict each other.
func.func @contradictory(%x: tensor<8x8xf32>) {
  // expected-note@+1 {{the other constraint}}
  %a = weft.shard %x : tensor<8x8xf32> -> tensor<8x8xf32, #weft.sharding<@mesh, [{"model"}, {}]>>
  // expected-error@+1 {{'weft.shard' op contradicts another weft.shard constraint on the same value: #weft.sharding<@mesh, [{}, {"model"}]> here, #weft.sharding<@mesh, [{"model"}, {}]> there}}
  %b = weft.shard %x : tensor<8x8xf32> -> tensor<8x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>
  return
}

// -----

weft.mesh @mesh ["model" = 4]
// Propagation runs on the global view, not on a partitioned program.
func.func @local(%x: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_reduce' op is a local-view op; weft-propagate runs on the global view (before weft-partition)}}
  %r = weft.all_reduce sum %x on @mesh over ["model"] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["model" = 4]
// Ops outside the weft dialect are not propagated through.
func.func @foreign(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) {
  // expected-error@+1 {{'arith.addf' op is not handled by weft-propagate (only weft index-letter ops and weft.shard are)}}
  %r = arith.addf %x, %x : tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>
  return
}

// -----

// ../shared/robustness.md D8: the same hand-written local view is refused by
// propagation too (it used to pass through and reach the partitioner).
weft.mesh @mesh ["model" = 4]
// expected-error@+1 {{'func.func' op is already partitioned (it carries weft.global_type); weft-propagate runs on the global view}}
func.func @mlp(
    %x: tensor<2x8x16xf32> {weft.global_type = tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>>},
    %w1: tensor<16x8xf32> {weft.global_type = tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>})
    -> (tensor<2x8x8xf32> {weft.global_type = tensor<2x8x32xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x8x16xf32>, tensor<16x8xf32>) -> tensor<2x8x8xf32>
  return %h : tensor<2x8x8xf32>
}
