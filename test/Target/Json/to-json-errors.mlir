// weft-translate --weft-to-json exports global views without calls only;
// anything else is an error at its location, and no JSON is written.
// RUN: weft-translate %s --split-input-file --verify-diagnostics --weft-to-json -o /dev/null
// RUN: rm -f %t.none.json
// RUN: not weft-translate %S/to-json-errors.mlir --weft-to-json -o %t.none.json 2>/dev/null
// RUN: not test -e %t.none.json

weft.mesh @mesh ["model" = 2]

// expected-error @+1 {{weft-to-json: @local is a local view (weft.global_type); export the global program}}
func.func @local(%x: tensor<2x4xf32> {weft.global_type = tensor<2x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>})
    -> tensor<2x4xf32> {
  return %x : tensor<2x4xf32>
}

// -----

weft.mesh @mesh ["model" = 2]

func.func @collective(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{weft-to-json: 'weft.all_reduce' is not a global-view op (export concat, constant, convert, cumsum, einsum, embed, iota, map, one_hot, pad_fill, random, reduce, reshape, scatter_add, shard, shift, slice, stop_gradient and top_k only)}}
  %y = weft.all_reduce sum %x on @mesh over ["model"] : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

weft.mesh @mesh ["model" = 2]

func.func @local_embed(%ids: tensor<2x4xi32>, %t: tensor<8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{weft-to-json: a local-view 'weft.embed' (with a block of a mesh) is not part of a global program}}
  %e = weft.embed "bt,vd->btd" (%ids, %t) vocab on @mesh over ["model"]
      : (tensor<2x4xi32>, tensor<8x4xf32>) -> tensor<2x4x4xf32>
  return %e : tensor<2x4x4xf32>
}

// -----

weft.mesh @mesh ["model" = 2]

func.func @local_random() -> tensor<2x4xf32> {
  // expected-error @+1 {{weft-to-json: a local-view 'weft.random' (with a block of a mesh) is not part of a global program}}
  %r = weft.random uniform seed 3 on @mesh over [[], ["model"]] : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{weft-to-json: external function @ext has no body}}
func.func private @ext(tensor<2xf32>) -> tensor<2xf32>

// -----

func.func private @layer(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{weft-to-json: a call; flatten the layer calls first (weft-opt --weft-inline-calls)}}
  %y = func.call @layer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
