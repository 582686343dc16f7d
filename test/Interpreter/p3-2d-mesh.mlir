// P3 (data x tensor parallel on a 2-D mesh, programs.md) at small shapes:
// x and y split b on data, weights split f on model; one all-reduce over
// model only. All-reducing over data instead is caught.
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_local | FileCheck %s
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_local --seed 5 | FileCheck %s
// CHECK: result #0: match tensor<4x3x4xf32> on 8 rank(s)
// CHECK: compare: 1 of 1 result(s) match
// RUN: not weft-interp %s --func mlp --compare %s --local-func mlp_wrong_axis | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: MISMATCH tensor<4x3x4xf32> on 8 rank(s)
// WRONG: compare: 0 of 1 result(s) match

weft.mesh @mesh ["data" = 2, "model" = 4]

func.func @mlp(%x: tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %w1: tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>> {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>, tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<4x3x8xf32>
  %a = weft.map silu "btf->btf" (%h) : (tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<4x3x8xf32>, tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y : tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
}

func.func @mlp_local(
    %x: tensor<2x3x4xf32> {weft.global_type = tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x3x4xf32> {weft.global_type = tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32>
  %a = weft.map silu "btf->btf" (%h) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x3x2xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %y = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

func.func @mlp_wrong_axis(
    %x: tensor<2x3x4xf32> {weft.global_type = tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x3x4xf32> {weft.global_type = tensor<4x3x4xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32>
  %a = weft.map silu "btf->btf" (%h) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x3x2xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %y = weft.all_reduce sum %p on @mesh over ["data"] : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}
