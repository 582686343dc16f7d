// Bad input to weft-partition: each a clear diagnostic.
// RUN: weft-opt --weft-partition -split-input-file -verify-diagnostics %s

weft.mesh @mesh ["model" = 4]
// An unpropagated program: no shardings at all.
// expected-error@+1 {{'func.func' op has no #weft.sharding: run --weft-propagate before --weft-partition}}
func.func @unpropagated(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = weft.map relu "i->i" (%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// Annotated but not propagated: an unannotated argument.
// expected-error@+1 {{argument #1 of @half has no #weft.sharding: run --weft-propagate before --weft-partition}}
func.func @half(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>, %y: tensor<8xf32>) {
  return
}

// -----

weft.mesh @mesh ["model" = 4]
// Annotated but not propagated: an op without its letter map.
func.func @no_split(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>> {
  // expected-error@+1 {{'weft.map' op has no valid `weft.split` letter map: run --weft-propagate before --weft-partition}}
  %r = weft.map relu "i->i" (%x) : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>
  return %r : tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>
}

// -----

weft.mesh @mesh ["model" = 4]
// A malformed letter map.
func.func @bad_split(%x: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>> {
  // expected-error@+1 {{'weft.map' op has no valid `weft.split` letter map}}
  %r = weft.map relu "i->i" (%x) {weft.split = {ij = [1]}} : (tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>
  return %r : tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>
}

// -----

weft.mesh @mesh ["model" = 4]
// A program partitioned already.
// expected-error@+1 {{'func.func' op is already partitioned (it carries weft.global_type); weft-partition runs on the global view}}
func.func @twice(%x: tensor<2xf32> {weft.global_type = tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>}) -> tensor<2xf32> {
  %r = weft.all_reduce sum %x on @mesh over ["model"] : tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Shardings that name a mesh that is missing are caught by the verifier.
func.func @missing_mesh(%x: tensor<8xf32, #weft.sharding<@gone, [{"model"}]>>) -> tensor<8xf32> {
  // expected-error@+1 {{'weft.map' op refers to mesh @gone, which is not defined (declare it with weft.mesh)}}
  %r = weft.map relu "i->i" (%x) {weft.split = {i = ["model"]}} : (tensor<8xf32, #weft.sharding<@gone, [{"model"}]>>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

weft.mesh @mesh ["model" = 4]
// A requested layout that no plan reaches: a value cannot be made partial.
func.func @to_partial(%x: tensor<8xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<8xf32, #weft.sharding<@mesh, [{}], partial = sum {"model"}>> {
  // expected-error@+1 {{'weft.shard' op cannot reshard %arg0 to [{}] partial sum {"model"}: cannot make a value partial over model}}
  %r = weft.shard %x : tensor<8xf32, #weft.sharding<@mesh, [{}]>> -> tensor<8xf32, #weft.sharding<@mesh, [{}], partial = sum {"model"}>>
  return %r : tensor<8xf32, #weft.sharding<@mesh, [{}], partial = sum {"model"}>>
}

// -----

// ../shared/robustness.md D8: a hand-written local view without collectives
// (weft.global_type on every argument and result) was repartitioned and its
// global types silently replaced.
weft.mesh @mesh ["model" = 4]
// expected-error@+1 {{'func.func' op is already partitioned (it carries weft.global_type); weft-partition runs on the global view}}
func.func @mlp(
    %x: tensor<2x8x16xf32> {weft.global_type = tensor<2x8x16xf32, #weft.sharding<@mesh, [{}, {}, {}]>>},
    %w1: tensor<16x8xf32> {weft.global_type = tensor<16x32xf32, #weft.sharding<@mesh, [{}, {"model"}]>>})
    -> (tensor<2x8x8xf32> {weft.global_type = tensor<2x8x32xf32, #weft.sharding<@mesh, [{}, {}, {"model"}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x8x16xf32>, tensor<16x8xf32>) -> tensor<2x8x8xf32>
  return %h : tensor<2x8x8xf32>
}

// -----

// An uneven split reaches the partitioner only without --weft-pad-uneven.
weft.mesh @mesh ["model" = 4]
// expected-error@+1 {{dimension #0 of argument #0 of @uneven has size 10, which is not divisible by 4 (the product of axes "model"): run --weft-pad-uneven before --weft-partition (weftc does)}}
func.func @uneven(%x: tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>>) -> tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>> {
  return %x : tensor<10xf32, #weft.sharding<@mesh, [{"model"}]>>
}
