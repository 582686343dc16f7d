// P2 (sequence-parallel MLP, programs.md) at small shapes: x and y split t
// on model; the local view all-gathers x on t and reduce-scatters the second
// einsum's partial result on t.
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_local | FileCheck %s
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_local --seed 11 | FileCheck %s
// CHECK: result #0: match tensor<2x8x4xf32> on 4 rank(s)
// CHECK: compare: 1 of 1 result(s) match
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_via_all_to_all | FileCheck %s
// Combining the partial results by max instead of sum is caught.
// RUN: not weft-interp %s --func mlp --compare %s --local-func mlp_scatter_max | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: MISMATCH
// WRONG: compare: 0 of 1 result(s) match

weft.mesh @mesh ["model" = 4]

func.func @mlp(%x: tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>,
    %w1: tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>> {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>, tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<2x8x8xf32>
  %a = weft.map gelu "btf->btf" (%h) : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<2x8x8xf32>, tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
  return %y : tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>
}

func.func @mlp_local(
    %x: tensor<2x2x4xf32> {weft.global_type = tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x2x4xf32> {weft.global_type = tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>}) {
  %xf = weft.all_gather %x on @mesh over ["model"] dim 1 : tensor<2x2x4xf32> -> tensor<2x8x4xf32>
  %h = weft.einsum "btd,df->btf" (%xf, %w1) : (tensor<2x8x4xf32>, tensor<4x2xf32>) -> tensor<2x8x2xf32>
  %a = weft.map gelu "btf->btf" (%h) : (tensor<2x8x2xf32>) -> tensor<2x8x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x8x2xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>
  %y = weft.reduce_scatter sum %p on @mesh over ["model"] dim 1 : tensor<2x8x4xf32> -> tensor<2x2x4xf32>
  return %y : tensor<2x2x4xf32>
}

// Also right: reduce-scatter on d, then an all-to-all moves the split from
// d to t (partial -> split d -> split t).
func.func @mlp_via_all_to_all(
    %x: tensor<2x2x4xf32> {weft.global_type = tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x2x4xf32> {weft.global_type = tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>}) {
  %xf = weft.all_gather %x on @mesh over ["model"] dim 1 : tensor<2x2x4xf32> -> tensor<2x8x4xf32>
  %h = weft.einsum "btd,df->btf" (%xf, %w1) : (tensor<2x8x4xf32>, tensor<4x2xf32>) -> tensor<2x8x2xf32>
  %a = weft.map gelu "btf->btf" (%h) : (tensor<2x8x2xf32>) -> tensor<2x8x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x8x2xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>
  %s = weft.reduce_scatter sum %p on @mesh over ["model"] dim 2 : tensor<2x8x4xf32> -> tensor<2x8x1xf32>
  %y = weft.all_to_all %s on @mesh over ["model"] split 1 concat 2 : tensor<2x8x1xf32> -> tensor<2x2x4xf32>
  return %y : tensor<2x2x4xf32>
}

// Wrong: the partial results are combined by max instead of sum.
func.func @mlp_scatter_max(
    %x: tensor<2x2x4xf32> {weft.global_type = tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x2x4xf32> {weft.global_type = tensor<2x8x4xf32, #weft.sharding<@mesh, [{}, {"model"}, {}]>>}) {
  %xf = weft.all_gather %x on @mesh over ["model"] dim 1 : tensor<2x2x4xf32> -> tensor<2x8x4xf32>
  %h = weft.einsum "btd,df->btf" (%xf, %w1) : (tensor<2x8x4xf32>, tensor<4x2xf32>) -> tensor<2x8x2xf32>
  %a = weft.map gelu "btf->btf" (%h) : (tensor<2x8x2xf32>) -> tensor<2x8x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x8x2xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>
  %y = weft.reduce_scatter max %p on @mesh over ["model"] dim 1 : tensor<2x8x4xf32> -> tensor<2x2x4xf32>
  return %y : tensor<2x2x4xf32>
}
