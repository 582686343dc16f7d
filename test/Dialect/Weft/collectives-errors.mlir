// Bad local-view ops: axes, dimensions, and shapes against the group size.
// RUN: weft-opt %s -split-input-file -verify-diagnostics

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @unknown_mesh(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_reduce' op refers to mesh @nope, which is not defined (declare it with weft.mesh)}}
  %0 = weft.all_reduce sum %a on @nope over ["model"] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @unknown_axis(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_reduce' op names axis "pipe", which mesh @mesh does not have (its axes: "data", "model")}}
  %0 = weft.all_reduce sum %a on @mesh over ["pipe"] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @no_axes(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_reduce' op needs at least one mesh axis}}
  %0 = weft.all_reduce sum %a on @mesh over [] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @axis_twice(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_gather' op names axis "model" more than once}}
  %0 = weft.all_gather %a on @mesh over ["model", "model"] dim 0 : tensor<8xf32> -> tensor<128xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @all_reduce_type(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_reduce' op failed to verify that all of {input, result} have same type}}
  %0 = "weft.all_reduce"(%a) {kind = 0 : i32, mesh = @mesh, axes = ["model"]} : (tensor<8xf32>) -> tensor<4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @gather_shape(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.all_gather' op result dimension 1 should have size 32 (group size 4), got 16}}
  %0 = weft.all_gather %a on @mesh over ["model"] dim 1 : tensor<2x8xf32> -> tensor<2x16xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @gather_other_dim(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.all_gather' op result dimension 0 should have size 2 (group size 8), got 4}}
  %0 = weft.all_gather %a on @mesh over ["data", "model"] dim 1 : tensor<2x8xf32> -> tensor<4x64xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @dim_range(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.all_gather' op dimension 2 is out of range for rank 2}}
  %0 = weft.all_gather %a on @mesh over ["model"] dim 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @scatter_divisible(%a: tensor<2x6xf32>) {
  // expected-error@+1 {{'weft.reduce_scatter' op dimension 1 has size 6, which is not divisible by the group size 4}}
  %0 = weft.reduce_scatter sum %a on @mesh over ["model"] dim 1 : tensor<2x6xf32> -> tensor<2x1xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @scatter_shape(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.reduce_scatter' op result dimension 1 should have size 2 (group size 4), got 8}}
  %0 = weft.reduce_scatter sum %a on @mesh over ["model"] dim 1 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @slice_shape(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'weft.slice_shard' op result dimension 0 should have size 1 (group size 2), got 2}}
  %0 = weft.slice_shard %a on @mesh over ["data"] dim 0 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @all_to_all_same_dim(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.all_to_all' op split and concat dimensions must differ}}
  %0 = weft.all_to_all %a on @mesh over ["model"] split 1 concat 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @all_to_all_shape(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.all_to_all' op result dimension 0 should have size 16 (group size 4), got 4}}
  %0 = weft.all_to_all %a on @mesh over ["model"] split 1 concat 0 : tensor<4x8xf32> -> tensor<4x2xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @all_to_all_divisible(%a: tensor<4x6xf32>) {
  // expected-error@+1 {{'weft.all_to_all' op dimension 1 has size 6, which is not divisible by the group size 4}}
  %0 = weft.all_to_all %a on @mesh over ["model"] split 1 concat 0 : tensor<4x6xf32> -> tensor<16x1xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @element_type(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.slice_shard' op changes the element type from 'f32' to 'f64'}}
  %0 = weft.slice_shard %a on @mesh over ["model"] dim 0 : tensor<8xf32> -> tensor<2xf64>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @rank_change(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_gather' op changes the rank from 1 to 2}}
  %0 = weft.all_gather %a on @mesh over ["model"] dim 0 : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
// Collectives live in the local view: no sharding encodings.
func.func @sharded_type(%a: tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>) {
  // expected-error@+1 {{'weft.all_reduce' op is a local-view op: its types carry local shapes and no #weft.sharding}}
  %0 = weft.all_reduce sum %a on @mesh over ["model"] : tensor<8xf32, #weft.sharding<@mesh, [{"model"}]>>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @missing_dim(%a: tensor<8xf32>) {
  // expected-error@+1 {{expected 'dim'}}
  %0 = weft.all_gather %a on @mesh over ["model"] : tensor<8xf32> -> tensor<32xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @axes_not_strings(%a: tensor<8xf32>) {
  // expected-error@+1 {{'weft.all_reduce' op attribute 'axes' failed to satisfy constraint: string array attribute}}
  %0 = weft.all_reduce sum %a on @mesh over [1] : tensor<8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @embed_vocab_axis(%ids: tensor<4xi32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'weft.embed' op names axis "pipe", which mesh @mesh does not have}}
  %0 = weft.embed "b,vd->bd" (%ids, %t) vocab on @mesh over ["pipe"] : (tensor<4xi32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @embed_vocab_half(%ids: tensor<4xi32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'weft.embed' op needs both `mesh` and `vocab_axes`, or neither}}
  %0 = weft.embed "b,vd->bd" (%ids, %t) {mesh = @mesh} : (tensor<4xi32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @one_hot_vocab_axis(%ids: tensor<4xi32>) {
  // expected-error@+1 {{'weft.one_hot' op names axis "pipe", which mesh @mesh does not have}}
  %0 = weft.one_hot "b->bv" (%ids) vocab on @mesh over ["pipe"] : (tensor<4xi32>) -> tensor<4x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @scatter_add_vocab_half(%ids: tensor<4xi32>, %u: tensor<4x8xf32>) {
  // expected-error@+1 {{'weft.scatter_add' op needs both `mesh` and `vocab_axes`, or neither}}
  %0 = weft.scatter_add "b,bd->vd" (%ids, %u) {mesh = @mesh} : (tensor<4xi32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @iota_no_axes() {
  // expected-error@+1 {{'weft.iota' op `on` needs at least one mesh axis}}
  %0 = weft.iota on @mesh over [] : tensor<4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @iota_sharded_local() {
  // expected-error@+1 {{'weft.iota' op with `on` is a local-view op: its types carry no #weft.sharding}}
  %0 = weft.iota on @mesh over ["model"] : tensor<4xf32, #weft.sharding<@mesh, [{"model"}]>>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @random_axes_per_dim() {
  // expected-error@+1 {{'weft.random' op `over` needs one list of axes per dimension (2), got 1}}
  %0 = weft.random uniform seed 1 on @mesh over [["model"]] : tensor<4x4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @random_axis_twice() {
  // expected-error@+1 {{'weft.random' op splits two dimensions over axis "model"}}
  %0 = weft.random uniform seed 1 on @mesh over [["model"], ["data", "model"]] : tensor<4x4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @random_unknown_axis() {
  // expected-error@+1 {{'weft.random' op names axis "pipe", which mesh @mesh does not have}}
  %0 = weft.random uniform seed 1 on @mesh over [["pipe"], []] : tensor<4x4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @random_not_names() {
  // expected-error@+1 {{'weft.random' op `over` needs a list of axis names per dimension, got 3}}
  %0 = weft.random uniform seed 1 on @mesh over [3, []] : tensor<4x4xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @random_global_too_big() {
  // expected-error@+1 {{'weft.random' op dimension 0 spans 8589934592 global indices: a counter word indexes at most 2^32}}
  %0 = weft.random uniform seed 1 on @mesh over [["model", "data"]] : tensor<1073741824xf32>
  return
}

// -----

weft.mesh @mesh ["data" = 2, "model" = 4]
func.func @random_sharded_local() {
  // expected-error@+1 {{'weft.random' op with `on` is a local-view op: its types carry no #weft.sharding}}
  %0 = weft.random uniform seed 1 on @mesh over [["model"]] : tensor<4xf32, #weft.sharding<@mesh, [{"model"}]>>
  return
}
