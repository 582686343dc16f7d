// P1 (Megatron MLP, programs.md) at small shapes: the hand-written local view
// (f split on model, one all-reduce of y) computes the global program, on
// several seeds; without the all-reduce it does not.
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_local | FileCheck %s
// RUN: weft-interp %s --func mlp --compare %s --local-func mlp_local --seed 7 | FileCheck %s
// CHECK: result #0: match tensor<2x3x4xf32> on 4 rank(s): max abs error
// CHECK: compare: 1 of 1 result(s) match
// RUN: not weft-interp %s --func mlp --compare %s --local-func mlp_no_all_reduce | FileCheck %s --check-prefix=WRONG
// WRONG: result #0: MISMATCH tensor<2x3x4xf32> on 4 rank(s)
// WRONG-SAME: element(s) beyond atol 1e-10 + rtol 1e-09 * max |global|
// WRONG-SAME: replicas disagree: ranks {{[0-3]}} and {{[0-3]}}
// WRONG: compare: 0 of 1 result(s) match

weft.mesh @mesh ["model" = 4]

func.func @mlp(%x: tensor<2x3x4xf32>,
    %w1: tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>,
    %w2: tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>)
    -> tensor<2x3x4xf32> {
  %h = weft.einsum "btd,df->btf" (%x, %w1)
      : (tensor<2x3x4xf32>, tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>) -> tensor<2x3x8xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y = weft.einsum "btf,fd->btd" (%a, %w2)
      : (tensor<2x3x8xf32>, tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

func.func @mlp_local(
    %x: tensor<2x3x4xf32> {weft.global_type = tensor<2x3x4xf32, #weft.sharding<@mesh, [{}, {}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x3x4xf32> {weft.global_type = tensor<2x3x4xf32, #weft.sharding<@mesh, [{}, {}, {}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x3x2xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %y = weft.all_reduce sum %p on @mesh over ["model"] : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// Wrong: each rank returns its partial sum.
func.func @mlp_no_all_reduce(
    %x: tensor<2x3x4xf32> {weft.global_type = tensor<2x3x4xf32, #weft.sharding<@mesh, [{}, {}, {}]>>},
    %w1: tensor<4x2xf32> {weft.global_type = tensor<4x8xf32, #weft.sharding<@mesh, [{}, {"model"}]>>},
    %w2: tensor<2x4xf32> {weft.global_type = tensor<8x4xf32, #weft.sharding<@mesh, [{"model"}, {}]>>})
    -> (tensor<2x3x4xf32> {weft.global_type = tensor<2x3x4xf32, #weft.sharding<@mesh, [{}, {}, {}]>>}) {
  %h = weft.einsum "btd,df->btf" (%x, %w1) : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32>
  %a = weft.map relu "btf->btf" (%h) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %p = weft.einsum "btf,fd->btd" (%a, %w2) : (tensor<2x3x2xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  return %p : tensor<2x3x4xf32>
}
