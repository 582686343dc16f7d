// The canonical P1 of examples/canonical (full shapes) against a hand-written
// local view in this file: two files, the global one from the examples.
// RUN: weft-interp %weft_src/examples/canonical/p1.mlir --compare %s | FileCheck %s
// CHECK: result #0: match tensor<4x64x256xf32> on 4 rank(s)
// CHECK: compare: 1 of 1 result(s) match

weft.mesh @mesh ["model" = 4]

func.func @mlp_local(
    %x: tensor<4x64x256xf32> {weft.global_type = tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>},
    %w1: tensor<256x256xf32> {weft.global_type = tensor<256x1024xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<256x256xf32> {weft.global_type = tensor<1024x256xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<4x64x256xf32> {weft.global_type = tensor<4x64x256xf32, #weft.sharding<@mesh, [{}, {}, {}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<4x64x256xf32>, tensor<256x256xf32>) -> tensor<4x64x256xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<4x64x256xf32>, tensor<256x256xf32>) -> tensor<4x64x256xf32>
  %y = weft.all_reduce sum %p on @mesh over ["model"] : tensor<4x64x256xf32>
  return %y : tensor<4x64x256xf32>
}
