// --weft-export-json exports global views only; anything else is an error at
// its location, and no JSON is written.
// RUN: weft-opt %s --split-input-file --verify-diagnostics --weft-export-json=output=%t.json -o /dev/null
// RUN: rm -f %t.none.json
// RUN: not weft-opt %S/export-json-errors.mlir --weft-export-json=output=%t.none.json -o /dev/null 2>/dev/null
// RUN: not test -e %t.none.json

weft.mesh @mesh ["model" = 2]

// expected-error @+1 {{weft-export-json: @local is a local view (weft.global_type); export the global program}}
func.func @local(%x: tensor<2x4xf32> {weft.global_type = tensor<2x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>})
    -> tensor<2x4xf32> {
  return %x : tensor<2x4xf32>
}

// -----

weft.mesh @mesh ["model" = 2]

func.func @collective(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{weft-export-json: 'weft.all_reduce' is not a global-view op (export concat, constant, convert, cumsum, einsum, embed, iota, map, one_hot, pad_fill, random, reduce, reshape, scatter_add, shard, slice and top_k only)}}
  %y = weft.all_reduce sum %x on @mesh over ["model"] : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

weft.mesh @mesh ["model" = 2]

func.func @local_embed(%ids: tensor<2x4xi32>, %t: tensor<8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{weft-export-json: a local-view 'weft.embed' (with a block of a mesh) is not part of a global program}}
  %e = weft.embed "bt,vd->btd" (%ids, %t) vocab on @mesh over ["model"]
      : (tensor<2x4xi32>, tensor<8x4xf32>) -> tensor<2x4x4xf32>
  return %e : tensor<2x4x4xf32>
}

// -----

weft.mesh @mesh ["model" = 2]

func.func @local_random() -> tensor<2x4xf32> {
  // expected-error @+1 {{weft-export-json: a local-view 'weft.random' (with a block of a mesh) is not part of a global program}}
  %r = weft.random uniform seed 3 on @mesh over [[], ["model"]] : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{weft-export-json: external function @ext has no body}}
func.func private @ext(tensor<2xf32>) -> tensor<2xf32>
